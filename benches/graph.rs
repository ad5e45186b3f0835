//! The graph view at scale: the layout and communities of a bulk-seeded wiki of 10,000 and
//! 100,000 pages (three links a page), computed in the core as the queue does after a run.
//!
//! ```text
//! cargo bench -p wikimind --bench graph            # 10,000 then 100,000 pages
//! cargo bench -p wikimind --bench graph -- 10000   # one size
//! ```
//!
//! Figures, each beside the in-run baseline (reading the same links from SQLite with a bare
//! query): the first (whole) layout with communities and its store write; an incremental
//! update after one page is added (linking three pages) and after one is removed; serving
//! the graph payload the window asks for (`Wiki::graph`, and its JSON size) and a local
//! graph two links deep; peak memory. The wiki is the store's bulk seed, cached under the
//! target directory (`support/seeded.rs`). Benches stay out of CI: timings are reported,
//! never asserted.

use std::time::{Duration, Instant};

use wikimind::graph::GraphFilter;
use wikimind::store::{BulkSeed, JobOwner, SourceId};
use wikimind::wiki::Wiki;

#[path = "support/seeded.rs"]
mod seeded;

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn ratio(d: Duration, base: Duration) -> String {
    format!("{:.1}×", d.as_secs_f64() / base.as_secs_f64().max(1e-9))
}

/// Peak resident memory of this process so far (Linux), in MB.
fn peak_mb() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or_else(|| "n/a".to_owned(), |kb| format!("{:.0} MB", kb / 1024.0))
}

/// The baseline: every page link with its resolved target, read by a bare query.
fn read_links(dir: &std::path::Path) -> Result<(Duration, usize), String> {
    let conn =
        rusqlite::Connection::open(dir.join(wikimind::DATABASE_FILE)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let mut stmt = conn
        .prepare(
            "SELECT l.page_id, l.target_key, p.id FROM page_links l
             LEFT JOIN pages p ON p.title_key = l.target_key",
        )
        .map_err(|e| e.to_string())?;
    let rows: Vec<(i64, String, Option<i64>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    Ok((t.elapsed(), rows.len()))
}

fn bench(n: usize) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = seeded::seed_into(dir.path(), &BulkSeed::new(n))?;
    println!("== {n} pages: {}", copy.describe());
    let (base, links) = read_links(dir.path())?;
    let (base2, _) = read_links(dir.path())?;
    let base = base.min(base2);
    println!("baseline: reading {links} links from SQLite: {}", ms(base));

    let wiki = Wiki::open(dir.path()).map_err(|e| e.to_string())?;
    let owner = JobOwner::this_process();
    let t = Instant::now();
    let whole = wiki
        .lay_out_graph(&owner, &|| true)
        .map_err(|e| e.to_string())?
        .ok_or("no layout was due on a fresh wiki")?;
    let took = t.elapsed();
    println!(
        "whole layout + communities + store: {} ({} nodes, {} edges; {} of the baseline), peak memory {}",
        ms(took),
        whole.nodes,
        whole.edges,
        ratio(took, base),
        peak_mb()
    );

    // One page added, linking three pages.
    let added_source = add_page(&wiki, n)?;
    let t = Instant::now();
    let added = wiki
        .lay_out_graph(&owner, &|| true)
        .map_err(|e| e.to_string())?
        .ok_or("no layout was due after a page was added")?;
    let took = t.elapsed();
    println!(
        "incremental, one page added: {} ({} nodes moved, {} rows written, {} links read; {} of the baseline)",
        ms(took),
        added.moved,
        added.written,
        added.links_read,
        ratio(took, base)
    );

    // One page removed: the page just added goes with its only source.
    wiki.remove_source(added_source)
        .map_err(|e| e.to_string())?;
    let t = Instant::now();
    let removed = wiki
        .lay_out_graph(&owner, &|| true)
        .map_err(|e| e.to_string())?
        .ok_or("no layout was due after a page was removed")?;
    let took = t.elapsed();
    println!(
        "incremental, one page removed: {} ({} nodes moved, {} rows written, {} links read; {} of the baseline)",
        ms(took),
        removed.moved,
        removed.written,
        removed.links_read,
        ratio(took, base)
    );

    // Serving: what the window asks for when the Graph screen opens.
    let mut serve = Vec::new();
    let mut bytes = 0;
    let mut nodes = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let view = wiki
            .graph(&GraphFilter::default())
            .map_err(|e| e.to_string())?;
        let json = serde_json::to_vec(&view).map_err(|e| e.to_string())?;
        serve.push(t.elapsed());
        bytes = json.len();
        nodes = view.titles.len();
    }
    serve.sort();
    println!(
        "graph payload (Wiki::graph + JSON): {} for {nodes} nodes, {:.1} MB ({} of the baseline)",
        ms(serve[1]),
        bytes as f64 / 1e6,
        ratio(serve[1], base)
    );
    let t = Instant::now();
    let local = wiki
        .local_graph(wikimind::PageId(1), 2, true)
        .map_err(|e| e.to_string())?;
    println!(
        "local graph, depth 2: {} ({} nodes)",
        ms(t.elapsed()),
        local.titles.len()
    );
    Ok(())
}

/// Adds one page (a pasted source and its digest) linking three existing pages; returns
/// its source.
fn add_page(wiki: &Wiki, n: usize) -> Result<SourceId, String> {
    use wikimind::store::{fixtures, NewLink, NewSource, SaveArticle, SourceKind};
    let store = wiki.store_for_tests();
    let titles: Vec<String> = [1, n / 2, n - 1]
        .iter()
        .filter_map(|&i| store.page(wikimind::PageId(i as i64)).ok().flatten())
        .map(|p| p.title)
        .collect();
    let source = store
        .ingest_source(&NewSource {
            origin: "bench:graph-new-page".to_owned(),
            kind: SourceKind::Text,
            title: Some("Graph bench page".to_owned()),
            text: "# Graph bench page\n\nA page added by the graph bench.".to_owned(),
            tags: Vec::new(),
            aliases: Vec::new(),
            root: None,
        })
        .map_err(|e| e.to_string())?
        .source_id();
    let links: Vec<NewLink> = titles
        .iter()
        .map(|t| NewLink {
            target: t.clone(),
            context: "see".to_owned(),
        })
        .collect();
    store
        .save_article(&SaveArticle {
            links: &links,
            record: &fixtures::record("bench", "bench"),
            ..fixtures::digest(
                source,
                &fixtures::result("Graph bench page", "A page added by the graph bench."),
            )
        })
        .map_err(|e| e.to_string())?;
    Ok(source)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000]
    } else {
        sizes
    };
    for n in sizes {
        if let Err(e) = bench(n) {
            eprintln!("graph bench at {n} pages: {e}");
            std::process::exit(1);
        }
    }
}
