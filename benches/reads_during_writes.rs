//! Reads while a compile writes (issue 37, "reads never wait behind writes"): the window's
//! reads on a wiki while a compile run saves digests and pages, against the same reads on
//! the same wiki at rest.
//!
//! ```text
//! cargo bench -p wikimind --bench reads_during_writes                 # 10,000 pages, 1,000 sources
//! cargo bench -p wikimind --bench reads_during_writes -- 100000 1000  # another size
//! ```
//!
//! The wiki is the store's bulk seed (N pages, 3N links, cached by N under the target
//! directory) with M short notes ingested on top. The reads are what a person does in the
//! window while a run goes on: search as they type (each prefix of a query), open a page
//! (pages spread over the wiki) and the library's list. They are timed first with nothing
//! else running (the in-run baseline), then on the main thread while the M notes compile
//! through the stand-in model server on a runtime of their own, which answers at once, so
//! the run writes as fast as WikiMind can save. Each line gives p50, p95 and the worst read
//! of one kind, and the ratio of its p95 during the run to its p95 at rest.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wikimind::compile_run::CompilePlan;
use wikimind::config::{Overrides, Settings};
use wikimind::llm::{CancellationToken, NoKeyStore};
use wikimind::queue::JobRunner;
use wikimind::store::BulkSeed;
use wikimind::view::LibrarySort;
use wikimind::wiki::Wiki;
use wikimind::PageId;
use wikimind_testserver::{canned, Reply, TestServer};

#[path = "support/seeded.rs"]
mod seeded;

/// What a person types into search, one letter at a time.
const TYPED: &str = "extraction pres";

/// Pages opened in one round, spread over the wiki.
const OPENS: i64 = 10;

/// The reads of one kind, timed.
#[derive(Default)]
struct Timings {
    search: Vec<Duration>,
    open: Vec<Duration>,
    library: Vec<Duration>,
}

impl Timings {
    fn reads(&self) -> usize {
        self.search.len() + self.open.len() + self.library.len()
    }
}

fn percentile(v: &[Duration], p: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// One round of the window's reads: every prefix of [`TYPED`], [`OPENS`] pages, the
/// library; each serialised as the IPC layer does.
fn round(wiki: &Wiki, pages: i64, round: i64, into: &mut Timings) -> Result<(), String> {
    for end in 1..=TYPED.len() {
        let t = Instant::now();
        let hits = wiki.search_view(&TYPED[..end]).map_err(|e| e.to_string())?;
        std::hint::black_box(serde_json::to_string(&hits).map_err(|e| e.to_string())?);
        into.search.push(t.elapsed());
    }
    for k in 0..OPENS {
        let id = 1 + ((k * pages / OPENS + round * 7) % pages);
        let t = Instant::now();
        let page = wiki.page_view(PageId(id)).map_err(|e| e.to_string())?;
        std::hint::black_box(serde_json::to_string(&page).map_err(|e| e.to_string())?);
        into.open.push(t.elapsed());
    }
    let t = Instant::now();
    let lib = wiki
        .library(LibrarySort::Title, None)
        .map_err(|e| e.to_string())?;
    std::hint::black_box(serde_json::to_string(&lib).map_err(|e| e.to_string())?);
    into.library.push(t.elapsed());
    Ok(())
}

fn print(kind: &str, rest: &[Duration], busy: &[Duration]) {
    let (p95_rest, p95_busy) = (percentile(rest, 0.95), percentile(busy, 0.95));
    println!(
        "reads during writes: {kind}: at rest p50 {}, p95 {}, worst {} ({} reads); during the run p50 {}, p95 {}, worst {} ({} reads); p95 ratio {:.2}x",
        ms(percentile(rest, 0.5)),
        ms(p95_rest),
        ms(percentile(rest, 1.0)),
        rest.len(),
        ms(percentile(busy, 0.5)),
        ms(p95_busy),
        ms(percentile(busy, 1.0)),
        busy.len(),
        p95_busy.as_secs_f64() / p95_rest.as_secs_f64().max(1e-9),
    );
}

fn bench(pages: usize, sources: usize) -> Result<(), String> {
    let server = TestServer::builder()
        .responder(|request| Some(Reply::text(canned::answer(&request.first_user_message()))))
        .start();
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = seeded::seed_into(dir.path(), &BulkSeed::new(pages))?;
    println!("{}", copy.describe());
    let wiki = Wiki::open(dir.path()).map_err(|e| e.to_string())?;
    for i in 0..sources {
        let topic = format!("Topic{i:05}");
        wiki.ingest_text(
            &format!("# {topic}\n\n{topic} is the subject of this note, and only {topic}.\n"),
            None,
        )
        .map_err(|e| e.to_string())?;
    }
    let config = format!(
        "[provider]\nkind = \"ollama\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n\n[compile]\ntransport_retries = 0\n",
        server.url()
    );
    let overrides = Overrides {
        data_dir: Some(dir.path().to_path_buf()),
        ..Overrides::default()
    };
    let file = Some((std::path::Path::new("config.toml"), config.as_str()));
    let settings = Settings::resolve(&overrides, &|_| None, file).map_err(|e| e.to_string())?;

    let pages = i64::try_from(pages).map_err(|e| e.to_string())?;
    let mut rest = Timings::default();
    round(&wiki, pages, 0, &mut Timings::default())?; // warm the caches
    for r in 0..20 {
        round(&wiki, pages, r, &mut rest)?;
    }

    let done = Arc::new(AtomicBool::new(false));
    let compile = {
        let (wiki, done) = (wiki.clone(), Arc::clone(&done));
        std::thread::spawn(move || -> Result<(Duration, usize, usize), String> {
            let runner = JobRunner::new(
                wiki.clone(),
                settings,
                Arc::new(NoKeyStore),
                Box::new(|_| {}),
            );
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            let started = Instant::now();
            let outcome = rt.block_on(async {
                let plan = CompilePlan::prepare(&wiki, &runner, &[], false).await?;
                plan.run(&runner, &CancellationToken::new()).await
            });
            done.store(true, Ordering::SeqCst);
            let outcome = outcome.map_err(|e| e.to_string())?;
            let ok = outcome.reports.iter().filter(|r| r.ok).count();
            Ok((started.elapsed(), outcome.reports.len(), ok))
        })
    };
    let mut busy = Timings::default();
    let mut r = 0;
    while !done.load(Ordering::SeqCst) {
        round(&wiki, pages, r, &mut busy)?;
        r += 1;
    }
    let (took, reports, ok) = compile
        .join()
        .map_err(|_| "the compile thread panicked".to_owned())??;
    println!(
        "reads during writes: {pages} pages; compile of {sources} sources through the stand-in: {:.1} s, {ok} of {reports} compiled; {} reads at rest, {} during the run",
        took.as_secs_f64(),
        rest.reads(),
        busy.reads(),
    );
    if reports != sources || ok != sources {
        return Err(format!(
            "{ok} of {sources} sources compiled ({reports} reports)"
        ));
    }
    print("search as you type", &rest.search, &busy.search);
    print("open a page", &rest.open, &busy.open);
    print("library", &rest.library, &busy.library);
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let pages = args.first().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let sources = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    if let Err(e) = bench(pages, sources) {
        eprintln!("reads_during_writes: {e}");
        std::process::exit(1);
    }
}
