//! A wiki in a temporary directory, compiled through the stand-in model server running in
//! this process, with the server's own time counted apart so a bench can report the time
//! spent in WikiMind: the benches `topic_pages` and `rust_book` are built on it.
//!
//! Each bench binary uses part of this module, so what one leaves unused is allowed.
#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wikimind::compile::{CompileReport, Compiler, PageOutcome, PageReport};
use wikimind::config::{Overrides, Settings};
use wikimind::llm::CancellationToken;
use wikimind::store::{PageId, SourceId, Store};
use wikimind::topic::topic_key;
use wikimind::wiki::Wiki;
use wikimind_testserver::{canned, Reply, TestServer};

/// How the stand-in model answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// [`canned::answer`] as it is: links and concepts only from what the source marks.
    Canned,
    /// [`canned::answer`], and a compile answer also links every title the prompt lists
    /// (as known to the wiki) that occurs in the source, as a model told to link known
    /// titles would; see [`link_listed_titles`].
    LinkListedTitles,
}

/// The stand-in model: [`canned::answer`] for every chat (see [`Answers`]), each answer sent
/// as one chunk, counting the chats it answered and the time it spent making the answers.
pub struct Model {
    server: TestServer,
    chats: Arc<AtomicU64>,
    busy_ns: Arc<AtomicU64>,
}

impl Model {
    /// Starts the server on a free port, reporting a model of `context` tokens.
    pub fn start(context: u64, answers: Answers) -> Model {
        let chats = Arc::new(AtomicU64::new(0));
        let busy_ns = Arc::new(AtomicU64::new(0));
        let (c, b) = (Arc::clone(&chats), Arc::clone(&busy_ns));
        let server = TestServer::builder()
            .context_length(context)
            .responder(move |request| {
                let started = Instant::now();
                let prompt = request.first_user_message();
                let mut answer = canned::answer(&prompt);
                if answers == Answers::LinkListedTitles && !canned::is_page_prompt(&prompt) {
                    answer = link_listed_titles(&prompt, &answer);
                }
                b.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
                c.fetch_add(1, Ordering::Relaxed);
                Some(Reply::text(answer))
            })
            .start();
        Model {
            server,
            chats,
            busy_ns,
        }
    }

    /// The server (for its recorded requests).
    pub fn server(&self) -> &TestServer {
        &self.server
    }

    /// How many chats it answered so far.
    pub fn chats(&self) -> u64 {
        self.chats.load(Ordering::Relaxed)
    }

    /// How long it spent making answers so far (not counting HTTP).
    pub fn busy(&self) -> Duration {
        Duration::from_nanos(self.busy_ns.load(Ordering::Relaxed))
    }

    /// A reading of both counters, to subtract from a later one.
    pub fn mark(&self) -> ModelMark {
        ModelMark {
            chats: self.chats(),
            busy: self.busy(),
        }
    }
}

/// The model's counters at one moment.
#[derive(Debug, Clone, Copy)]
pub struct ModelMark {
    /// Chats answered.
    pub chats: u64,
    /// Time spent making answers.
    pub busy: Duration,
}

/// A file-backed wiki in a temporary directory with a compiler that talks to [`Model`].
pub struct Lab {
    /// The wiki.
    pub wiki: Wiki,
    /// Its compiler (one for the whole run, as a long-lived app holds one).
    pub compiler: Arc<Compiler>,
    /// The stand-in model.
    pub model: Model,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Lab {
    /// A new, empty wiki whose model has a context of `context` tokens and answers with
    /// the canned answers.
    pub fn new(context: u64) -> Lab {
        Lab::with_answers(context, Answers::Canned)
    }

    /// A new, empty wiki whose model has a context of `context` tokens and answers as
    /// `answers` says.
    pub fn with_answers(context: u64, answers: Answers) -> Lab {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let wiki = Wiki::open(dir.path()).expect("open the wiki");
        let model = Model::start(context, answers);
        let overrides = Overrides {
            data_dir: Some(dir.path().to_path_buf()),
            base_url: Some(model.server().url()),
            // The model the server lists, so it reports the context it was given.
            model: Some("test-model".to_owned()),
            ..Overrides::default()
        };
        let settings = Settings::resolve(&overrides, &|_| None, None).expect("settings");
        let compiler = wiki.compiler(&settings).expect("a compiler");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        Lab {
            wiki,
            compiler,
            model,
            runtime,
            _dir: dir,
        }
    }

    /// The store.
    pub fn store_for_tests(&self) -> &Arc<Store> {
        self.wiki.store_for_tests()
    }

    /// Adds pasted text as a source.
    pub fn add(&self, text: &str) -> SourceId {
        self.wiki.ingest_text(text, None).expect("ingest").sources[0].source_id
    }

    /// Adds a file (or every file of a folder) as sources.
    pub fn add_path(&self, path: &Path) -> Vec<SourceId> {
        let options = self.wiki.ingest_options().clone();
        self.wiki
            .ingest_path(path, &options)
            .expect("ingest")
            .sources
            .iter()
            .map(|s| s.source_id)
            .collect()
    }

    /// Compiles one source (one compile call, or more for a source read in parts), which
    /// must succeed.
    pub fn compile(&self, source: SourceId) -> CompileReport {
        let report = self.try_compile(source);
        assert!(report.ok, "source {source} did not compile: {report:?}");
        report
    }

    /// Compiles one source, which may fail (the report says why).
    pub fn try_compile(&self, source: SourceId) -> CompileReport {
        self.runtime
            .block_on(
                self.compiler
                    .compile_one(source, &|_| {}, &CancellationToken::new()),
            )
            .expect("compile")
    }

    /// Writes one page from its digests.
    pub fn write_page(&self, page: PageId) -> PageReport {
        self.runtime
            .block_on(
                self.compiler
                    .write_page(page, &|_| {}, &CancellationToken::new()),
            )
            .expect("write a page")
    }

    /// Writes every stale page, as the page jobs of a run would.
    pub fn write_stale_pages(&self) -> PageRun {
        let mut run = PageRun::default();
        for page in self.store_for_tests().stale_pages().expect("stale pages") {
            let report = self.write_page(page.id);
            run.calls += u64::from(report.usage.calls);
            // Calls beyond the attempts at the page itself read its material in parts.
            let parts = u64::from(report.usage.calls).saturating_sub(report.attempts.len() as u64);
            run.parts_calls += parts;
            run.read_in_parts += usize::from(parts > 0);
            run.pages.insert(page.id);
            match report.outcome {
                PageOutcome::Written { .. } => run.written += 1,
                PageOutcome::NoNewInformation => run.no_new_information += 1,
                PageOutcome::UpToDate => {}
                PageOutcome::Flagged { reason } => {
                    run.flagged += 1;
                    run.reasons
                        .push(format!("{} flagged: {reason}", page.title));
                }
                PageOutcome::Failed { reason } => {
                    run.failed += 1;
                    run.reasons.push(format!("{} failed: {reason}", page.title));
                }
            }
        }
        run
    }
}

/// `answer` (a compile answer to `prompt`) with a sentence linking every title the prompt
/// lists as already in the wiki that occurs in the prompt's source (by topic key, on word
/// boundaries), in the order listed, at most ten.
pub fn link_listed_titles(prompt: &str, answer: &str) -> String {
    let listed: Vec<&str> = prompt
        .split_once("(link to them by exact title):\n")
        .map(|(_, rest)| rest.lines().map_while(|l| l.strip_prefix("- ")).collect())
        .unwrap_or_default();
    let source = match (prompt.find("<<<SOURCE\n"), prompt.rfind("\nSOURCE>>>")) {
        (Some(open), Some(close)) if open < close => &prompt[open..close],
        _ => return answer.to_owned(),
    };
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(answer) else {
        return answer.to_owned();
    };
    let own = topic_key(value["title"].as_str().unwrap_or_default());
    let text = format!(" {} ", topic_key(source));
    let links: Vec<String> = listed
        .iter()
        .filter(|t| {
            let key = topic_key(t);
            !key.is_empty() && key != own && text.contains(&format!(" {key} "))
        })
        .take(10)
        .map(|t| format!("[[{t}]]"))
        .collect();
    if links.is_empty() {
        return answer.to_owned();
    }
    let body = value["article_body"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    value["article_body"] = format!("{body}\n\nSee also {}.", links.join(", ")).into();
    value.to_string()
}

/// What writing the stale pages came to.
#[derive(Debug, Default)]
pub struct PageRun {
    /// The pages that were stale.
    pub pages: HashSet<PageId>,
    /// Model calls made.
    pub calls: u64,
    /// Of them, calls that read a page's material in parts.
    pub parts_calls: u64,
    /// Pages whose material was read in parts.
    pub read_in_parts: usize,
    /// Pages written with a call.
    pub written: usize,
    /// Pages that only gained sources (no call).
    pub no_new_information: usize,
    /// Pages flagged: every answer was refused by the rewrite guard.
    pub flagged: usize,
    /// Pages left stale: no answer could be had.
    pub failed: usize,
    /// Why pages were flagged or left stale (the first few).
    pub reasons: Vec<String>,
}

/// The figures of a wiki's pages the issue asks for.
#[derive(Debug, Default)]
pub struct Figures {
    /// Sources.
    pub sources: usize,
    /// Pages.
    pub pages: usize,
    /// Pages fed by the digests of more than one source.
    pub multi_source: usize,
    /// Links on pages (one per target per page).
    pub links: usize,
    /// Those that lead to a page.
    pub resolved: usize,
    /// Pages no other page links to.
    pub orphans: usize,
    /// Stale pages left.
    pub stale: usize,
    /// Titles of the orphan pages (a few, for the report).
    pub orphan_titles: Vec<String>,
}

impl Figures {
    /// Reads the figures of `store`'s pages.
    pub fn of(store: &Store) -> Figures {
        let mut f = Figures {
            sources: store.sources().expect("sources").len(),
            ..Figures::default()
        };
        for summary in store.pages().expect("pages") {
            let page = store.page(summary.id).expect("page").expect("a page");
            f.pages += 1;
            f.multi_source += usize::from(summary.source_count > 1);
            f.stale += usize::from(summary.stale);
            f.links += page.links.len();
            f.resolved += page.links.iter().filter(|l| l.page_id.is_some()).count();
            if page.backlinks.is_empty() {
                f.orphans += 1;
                f.orphan_titles.push(page.title);
            }
        }
        f
    }
}

/// `part` of `whole` in percent (0 when `whole` is 0).
pub fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Milliseconds, for tables.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A small deterministic generator (xorshift64*), so every run builds the same wiki.
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
