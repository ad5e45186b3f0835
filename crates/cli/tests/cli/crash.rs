//! Killing the CLI in the middle of a compile loses nothing: the database stays intact,
//! every source is still there, and the next run resumes the unfinished jobs.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use wikimind_testserver::{canned, Reply, TestServer};

const SOURCES: usize = 16;

#[test]
fn kill_during_compile_then_resume() {
    // A slow model: every answer streams in small pieces with a pause between them.
    let server = TestServer::builder()
        .responder(|req| {
            Some(
                Reply::text(canned::compilation_answer(&req.first_user_message()))
                    .chunk_chars(12)
                    .chunk_delay(Duration::from_millis(15)),
            )
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
    let deadline = Instant::now() + Duration::from_secs(120);
    let db = data.join("wikimind.db");
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let compiled = rusqlite::Connection::open(&db)
            .and_then(|c| c.query_row("SELECT count(*) FROM articles", [], |r| r.get::<_, i64>(0)))
            .unwrap_or(0);
        if compiled >= 2 || Instant::now() > deadline {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();

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
    let first = spawn(&["--json", "compile", "--concurrency", "2"]);
    std::thread::sleep(Duration::from_millis(200));
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
