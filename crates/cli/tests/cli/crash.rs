//! Killing the CLI in the middle of a compile loses nothing: the database stays intact,
//! every source is still there, and the next run resumes the unfinished jobs.

use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use wikimind_testserver::{canned, Reply, TestServer};

const SOURCES: usize = 16;

#[test]
fn kill_during_compile_then_resume() {
    // A slow model that answers only the first ANSWERED compiles while `held`: the others
    // hang (as a busy model would) until the test lets them through. So the kill comes
    // with compiles in flight and before the end, however fast or slow the machine is.
    const ANSWERED: usize = SOURCES / 2;
    let held = Arc::new(AtomicBool::new(true));
    let asked = AtomicUsize::new(0);
    let holding = Arc::clone(&held);
    let server = TestServer::builder()
        .responder(move |req| {
            let reply = Reply::text(canned::compilation_answer(&req.first_user_message()));
            if asked.fetch_add(1, Ordering::SeqCst) >= ANSWERED && holding.load(Ordering::SeqCst) {
                return Some(reply.stall_after(0));
            }
            Some(reply.chunk_chars(12).chunk_delay(Duration::from_millis(15)))
        })
        .start();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    for i in 0..SOURCES {
        std::fs::write(
            notes.join(format!("note-{i:02}.md")),
            format!("# Note {i}\n\nThis is note number {i} with a sentence to quote. It links to [[Note {}]].\n", (i + 1) % SOURCES),
        )
        .unwrap();
    }
    let cmd = |args: &[&str]| {
        let mut c = crate::common::wikimind(dir.path(), &server.url());
        c.args(args);
        c
    };
    cmd(&["ingest", notes.to_str().unwrap()]).assert().success();

    // Start a compile and kill it (SIGKILL: no chance to clean up) once some articles landed.
    let mut child = crate::common::process(dir.path(), &server.url())
        .args(["compile", "--concurrency", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let db = data.join("wikimind.db");
    poll_until(&mut child, "two articles were written", || {
        rusqlite::Connection::open(&db)
            .and_then(|c| c.query_row("SELECT count(*) FROM articles", [], |r| r.get::<_, i64>(0)))
            .is_ok_and(|compiled| compiled >= 2)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    held.store(false, Ordering::SeqCst);

    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let sources: i64 = conn
        .query_row("SELECT count(*) FROM sources", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sources as usize, SOURCES, "no source is lost");
    let articles: i64 = conn
        .query_row("SELECT count(*) FROM articles", [], |r| r.get(0))
        .unwrap();
    assert!(
        (articles as usize) < SOURCES,
        "the kill came before the end ({articles} articles)"
    );
    drop(conn);

    // The next run resumes and finishes everything.
    let out = cmd(&["--json", "compile"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("resuming"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cmd(&["--json", "list"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let list: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(list.as_array().unwrap().len(), SOURCES);
    let out = cmd(&["--json", "sources"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let sources: Value = serde_json::from_slice(&out).unwrap();
    assert!(
        sources
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "compiled"),
        "{sources}"
    );
}

#[test]
fn two_compiles_at_once_compile_each_source_once() {
    let server = TestServer::builder()
        .responder(|req| {
            Some(
                Reply::text(canned::compilation_answer(&req.first_user_message()))
                    .chunk_chars(12)
                    .chunk_delay(Duration::from_millis(10)),
            )
        })
        .start();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    const NOTES: usize = 10;
    for i in 0..NOTES {
        std::fs::write(
            notes.join(format!("note-{i:02}.md")),
            format!("# Topic {i}\n\nThis is topic number {i}, with one sentence to quote.\n"),
        )
        .unwrap();
    }
    let spawn = |args: &[&str]| {
        crate::common::process(dir.path(), &server.url())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let ingest = spawn(&["ingest", notes.to_str().unwrap()])
        .wait_with_output()
        .unwrap();
    assert!(ingest.status.success(), "{ingest:?}");

    // Two runs on one wiki at once, as a person might start one beside the open app.
    // The second starts once the first is compiling (its first request reached the model).
    let mut first = spawn(&["--json", "compile", "--concurrency", "2"]);
    poll_until(&mut first, "the first run asked the model", || {
        !server.chat_requests().is_empty()
    });
    let second = spawn(&["--json", "compile", "--concurrency", "2"]);
    for run in [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ] {
        assert!(
            run.status.success(),
            "both runs end well: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let compiles = server.chat_requests().len();
    assert_eq!(compiles, NOTES, "each source is compiled exactly once");

    let db = rusqlite::Connection::open(data.join("wikimind.db")).unwrap();
    let compiled: i64 = db
        .query_row(
            "SELECT count(*) FROM sources WHERE status = 'compiled'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(compiled as usize, NOTES);
    let articles: i64 = db
        .query_row("SELECT count(*) FROM articles", [], |r| r.get(0))
        .unwrap();
    assert_eq!(articles as usize, NOTES, "no article twice");
}

/// Waits until `reached` holds, checking every 20 ms, while `child` runs. Fails when the
/// child exits first, or after two minutes: a guard against a hang, never a time the test
/// depends on.
fn poll_until(child: &mut Child, what: &str, reached: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !reached() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {what}");
        }
        assert!(
            Instant::now() < deadline,
            "not reached in 2 minutes: {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
