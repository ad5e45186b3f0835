//! The watcher through its seam ([`wikimind::watch::Injector`], with
//! [`EventSource::Injected`]: the test decides which events are seen): events the OS
//! dropped are recovered by the rescan an overflow asks for, and a watched folder that
//! disappears pauses without losing a source, then resumes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use wikimind::llm::NoKeyStore;
use wikimind::queue::JobRunner;
use wikimind::watch::{
    EventSource, Injector, RescanReason, Signal, WatchError, WatchEvent, WatchOptions, Watcher,
};
use wikimind::wiki::Wiki;
use wikimind_testserver::TestServer;

use crate::common::settings_for;

/// A watcher running in the background, and what it said.
struct Running {
    events: mpsc::UnboundedReceiver<WatchEvent>,
    injector: Injector,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    fn start(wiki: &Wiki, server: &TestServer, folder: &Path, retry_every: Duration) -> Running {
        let runner = JobRunner::new(
            wiki.clone(),
            settings_for(&server.url(), None),
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        let options = WatchOptions {
            events: EventSource::Injected,
            retry_every,
            rescan_every: Duration::from_secs(24 * 3600),
            ..WatchOptions::default()
        };
        let watcher = Watcher::new(wiki, runner, &[folder.to_owned()], options).unwrap();
        let injector = watcher.injector();
        let (tx, events) = mpsc::unbounded_channel();
        let stop = CancellationToken::new();
        let token = stop.clone();
        let task = tokio::spawn(async move {
            let sink = move |e: &WatchEvent| {
                let _ = tx.send(e.clone());
            };
            watcher.run(&token, &sink).await.unwrap();
        });
        Running {
            events,
            injector,
            stop,
            task,
        }
    }

    /// Events up to the first `idle` after `wanted` holds of those seen.
    async fn until(&mut self, wanted: impl Fn(&[WatchEvent]) -> bool) -> Vec<WatchEvent> {
        let mut seen = Vec::new();
        loop {
            // A hang guard, not a time the test asserts.
            let event = tokio::time::timeout(Duration::from_secs(120), self.events.recv())
                .await
                .unwrap_or_else(|_| panic!("the watcher went silent after {seen:#?}"))
                .expect("the watcher stopped");
            if event == WatchEvent::Idle && wanted(&seen) {
                return seen;
            }
            seen.push(event);
        }
    }

    async fn stop(self) {
        self.stop.cancel();
        self.task.await.unwrap();
    }
}

fn count(events: &[WatchEvent], kind: fn(&WatchEvent) -> bool) -> usize {
    events.iter().filter(|e| kind(e)).count()
}

fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let notes = std::fs::canonicalize(notes).unwrap();
    (dir, notes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_the_os_dropped_are_recovered_by_the_rescan_an_overflow_asks_for() {
    let server = TestServer::start();
    let (dir, notes) = folder();
    std::fs::write(
        notes.join("a.md"),
        "# Alpha\n\nAlpha is the first letter.\n",
    )
    .unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let mut watch = Running::start(&wiki, &server, &notes, Duration::from_secs(3600));
    let start = watch.until(|_| true).await;
    assert_eq!(
        count(&start, |e| matches!(
            e,
            WatchEvent::Compiled { ok: true, .. }
        )),
        1
    );

    // Changes whose events never arrive.
    std::fs::write(notes.join("b.md"), "# Beta\n\nBeta is the second letter.\n").unwrap();
    std::fs::write(notes.join("a.md"), "# Alpha\n\nAlpha comes before beta.\n").unwrap();
    // A path outside every watched folder is no business of this watcher.
    assert!(watch
        .injector
        .send(Signal::Changed(vec![dir.path().join("elsewhere.md")])));
    assert!(watch.injector.overflow());
    let recovered = watch
        .until(|e| count(e, |e| matches!(e, WatchEvent::Compiled { .. })) == 2)
        .await;
    assert!(recovered.contains(&WatchEvent::Rescan {
        folder: notes.to_string_lossy().into_owned(),
        reason: RescanReason::Overflow,
    }));
    let outcomes: Vec<String> = recovered
        .iter()
        .filter_map(|e| match e {
            WatchEvent::Ingested { path, outcome, .. } => Some(format!("{outcome} {path}")),
            _ => None,
        })
        .collect();
    let shown = |name: &str| notes.join(name).to_string_lossy().into_owned();
    assert_eq!(
        outcomes,
        [
            format!("changed {}", shown("a.md")),
            format!("added {}", shown("b.md"))
        ]
    );
    watch.stop().await;
    let titles: Vec<String> = wiki
        .page_list()
        .unwrap()
        .into_iter()
        .map(|p| p.title)
        .collect();
    assert!(titles.contains(&"Beta".to_owned()), "{titles:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_that_disappears_pauses_keeps_its_sources_and_resumes_when_it_returns() {
    let server = TestServer::start();
    let (dir, notes) = folder();
    std::fs::write(
        notes.join("a.md"),
        "# Alpha\n\nAlpha is the first letter.\n",
    )
    .unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let mut watch = Running::start(&wiki, &server, &notes, Duration::from_millis(20));
    watch.until(|_| true).await;

    // An unmounted drive: the folder is gone, and every file with it.
    let away = dir.path().join("away");
    std::fs::rename(&notes, &away).unwrap();
    watch
        .injector
        .send(Signal::Changed(vec![notes.join("a.md")]));
    let gone = watch
        .until(|e| e.iter().any(|e| matches!(e, WatchEvent::Paused { .. })))
        .await;
    assert_eq!(count(&gone, |e| matches!(e, WatchEvent::Removed { .. })), 0);
    assert_eq!(
        wiki.store_for_tests().sources().unwrap().len(),
        1,
        "no source is removed"
    );

    std::fs::rename(&away, &notes).unwrap();
    let back = watch
        .until(|e| {
            e.iter().any(|e| {
                matches!(
                    e,
                    WatchEvent::Rescan {
                        reason: RescanReason::Resumed,
                        ..
                    }
                )
            })
        })
        .await;
    assert!(back.contains(&WatchEvent::Resumed {
        folder: notes.to_string_lossy().into_owned()
    }));
    assert_eq!(count(&back, |e| matches!(e, WatchEvent::Removed { .. })), 0);
    assert_eq!(
        count(&back, |e| matches!(e, WatchEvent::Ingested { .. })),
        0
    );
    watch.stop().await;
    assert_eq!(
        server.chat_requests().len(),
        1,
        "nothing was compiled again"
    );
}

#[test]
fn a_file_or_a_missing_path_is_not_a_folder_to_watch() {
    let (dir, notes) = folder();
    let file = notes.join("a.md");
    std::fs::write(&file, "# A").unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let runner = JobRunner::new(
        wiki.clone(),
        settings_for("http://127.0.0.1:9", None),
        Arc::new(NoKeyStore),
        Box::new(|_| {}),
    );
    let err = Watcher::new(&wiki, runner.clone(), &[file], WatchOptions::default()).unwrap_err();
    assert!(matches!(err, WatchError::NotAFolder { .. }), "{err}");
    let missing = notes.join("missing");
    let err = Watcher::new(&wiki, runner, &[missing], WatchOptions::default()).unwrap_err();
    assert!(matches!(err, WatchError::NotAFolder { .. }), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rescan_that_finds_a_folder_emptied_keeps_its_sources_but_a_deletion_seen_removes_one() {
    let server = TestServer::start();
    let (dir, notes) = folder();
    std::fs::write(
        notes.join("a.md"),
        "# Alpha\n\nAlpha is the first letter.\n",
    )
    .unwrap();
    std::fs::write(notes.join("b.md"), "# Beta\n\nBeta is the second letter.\n").unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let mut watch = Running::start(&wiki, &server, &notes, Duration::from_secs(3600));
    watch.until(|_| true).await;

    // A share that answers with nothing (or every note gone unseen): kept, and said.
    std::fs::remove_file(notes.join("a.md")).unwrap();
    std::fs::remove_file(notes.join("b.md")).unwrap();
    watch.injector.overflow();
    let empty = watch.until(|_| true).await;
    assert_eq!(
        count(&empty, |e| matches!(e, WatchEvent::Removed { .. })),
        0
    );
    assert!(
        empty
            .iter()
            .any(|e| matches!(e, WatchEvent::Warning { message } if message.contains("is empty"))),
        "{empty:#?}"
    );
    assert_eq!(wiki.store_for_tests().sources().unwrap().len(), 2);

    // A deletion the OS reported is a person's: that source goes.
    watch
        .injector
        .send(Signal::Changed(vec![notes.join("a.md")]));
    let seen = watch.until(|_| true).await;
    assert_eq!(
        count(&seen, |e| matches!(e, WatchEvent::Removed { .. })),
        1,
        "{seen:#?}"
    );
    assert_eq!(wiki.store_for_tests().sources().unwrap().len(), 1);
    watch.stop().await;
}

/// A watched folder's documents are sources like its notes: the scan says how many there
/// are, each is read and compiled, and a broken one is skipped with its reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_folders_documents_are_counted_read_and_compiled() {
    let server = TestServer::start();
    let (dir, notes) = folder();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/documents/tests/data");
    std::fs::write(
        notes.join("a.md"),
        "# Alpha\n\nAlpha is the first letter.\n",
    )
    .unwrap();
    for name in ["hyphenation.pdf", "book.epub", "scan.pdf"] {
        std::fs::copy(data.join(name), notes.join(name)).unwrap();
    }
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let mut watch = Running::start(&wiki, &server, &notes, Duration::from_secs(3600));
    let start = watch
        .until(|e| count(e, |e| matches!(e, WatchEvent::Compiled { .. })) == 3)
        .await;
    assert!(
        start.contains(&WatchEvent::Listed {
            folder: notes.to_string_lossy().into_owned(),
            files: 4,
            documents: 3,
        }),
        "{start:#?}"
    );
    let ingested: Vec<String> = start
        .iter()
        .filter_map(|e| match e {
            WatchEvent::Ingested { path, .. } => Some(path.rsplit('/').next().unwrap().to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(ingested, ["a.md", "book.epub", "hyphenation.pdf"]);
    assert!(start.iter().any(|e| matches!(
        e,
        WatchEvent::Skipped { path, reason: wikimind::ingest::SkipReason::BadDocument { .. } }
            if path.ends_with("scan.pdf")
    )));
    assert_eq!(
        count(&start, |e| matches!(
            e,
            WatchEvent::Compiled { ok: true, .. }
        )),
        3
    );
    watch.stop().await;
}
