//! `wikimind watch` against the stand-in model server: every change to a watched folder
//! is handled once (created, edited, renamed, moved, deleted, a burst of 200 files), a
//! restart picks up what changed while nothing watched, and SIGTERM in the middle of a
//! compile stops cleanly. The tests wait for the watcher's own `--json` events (`idle`:
//! everything seen is handled), never for a time.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use wikimind_testserver::{canned, Reply, TestServer};

use crate::common::Env;

/// A running `wikimind --json watch`, and the events it printed.
struct Watch {
    child: Child,
    events: mpsc::Receiver<Value>,
    /// Every event seen so far.
    seen: Vec<Value>,
}

/// How long a watcher may stay silent before the test gives up (a hang guard, never an
/// assertion on how fast anything is).
const SILENCE: Duration = Duration::from_secs(180);

impl Watch {
    fn start(env: &Env, args: &[&str]) -> Watch {
        let mut child = crate::common::process(env.dir.path(), &env.base_url)
            .env("WIKIMIND_PROVIDER", env.provider)
            .args(["--json", "watch", "--debounce-ms", "50"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON line: {line:?}: {e}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut watch = Watch {
            child,
            events,
            seen: Vec::new(),
        };
        watch.until_idle();
        watch
    }

    /// The next event.
    fn next(&mut self) -> Value {
        let event = self
            .events
            .recv_timeout(SILENCE)
            .unwrap_or_else(|_| panic!("the watcher went silent after {:#?}", self.seen));
        self.seen.push(event.clone());
        event
    }

    /// Events up to the next `idle`, without it.
    fn until_idle(&mut self) -> Vec<Value> {
        let mut batch = Vec::new();
        loop {
            let event = self.next();
            if event["event"] == "idle" {
                return batch;
            }
            batch.push(event);
        }
    }

    /// Events up to the first `idle` after `wanted` has held of the events so far.
    fn until(&mut self, wanted: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let mut events = Vec::new();
        while !wanted(&events) {
            events.extend(self.until_idle());
        }
        events
    }

    /// SIGTERM, then the exit, which must be a success; returns the remaining events.
    fn stop(mut self) -> Vec<Value> {
        let status = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = self.child.wait().unwrap();
        assert!(exit.success(), "watch exits 0 on SIGTERM: {exit:?}");
        self.events.iter().collect()
    }
}

/// Events of `kind`.
fn of<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

/// How many compile prompts (not page prompts) the server saw for a source saying `marker`.
fn compiles(server: &TestServer, marker: &str) -> usize {
    server
        .chat_requests()
        .iter()
        .map(|r| r.first_user_message())
        .filter(|m| !canned::is_page_prompt(m) && m.contains(marker))
        .count()
}

fn note(title: &str, marker: &str) -> String {
    format!("# {title}\n\n{title} is a topic of its own. It says {marker} once.\n")
}

fn notes(env: &Env) -> PathBuf {
    std::fs::create_dir_all(env.notes()).unwrap();
    std::fs::canonicalize(env.notes()).unwrap()
}

fn origin(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_owned()
}

#[test]
fn each_change_is_compiled_once_renames_keep_their_source_and_deletes_remove_it() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let dir = notes(&env);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let mut watch = Watch::start(&env, &[dir.to_str().unwrap()]);

    std::fs::write(dir.join("a.md"), note("Alpha", "marker-a1")).unwrap();
    let created = watch.until(|e| !of(e, "compiled").is_empty());
    let ingested = of(&created, "ingested");
    assert_eq!(ingested.len(), 1, "{created:#?}");
    assert_eq!(ingested[0]["outcome"], "added");
    assert_eq!(ingested[0]["path"], origin(&dir, "a.md"));
    let id = ingested[0]["source_id"].clone();
    assert_eq!(of(&created, "compiled")[0]["ok"], true);

    std::fs::write(dir.join("a.md"), note("Alpha", "marker-a2")).unwrap();
    let edited = watch.until(|e| !of(e, "compiled").is_empty());
    assert_eq!(of(&edited, "ingested")[0]["outcome"], "changed");
    assert_eq!(of(&edited, "ingested")[0]["source_id"], id);

    std::fs::rename(dir.join("a.md"), dir.join("b.md")).unwrap();
    let renamed = watch.until(|e| !of(e, "moved").is_empty());
    assert_eq!(of(&renamed, "moved")[0]["source_id"], id);
    assert_eq!(of(&renamed, "moved")[0]["to"], origin(&dir, "b.md"));
    assert!(
        of(&renamed, "compiled").is_empty(),
        "a rename compiles nothing"
    );
    assert!(of(&renamed, "removed").is_empty(), "{renamed:#?}");

    std::fs::rename(dir.join("b.md"), dir.join("sub/b.md")).unwrap();
    let moved = watch.until(|e| !of(e, "moved").is_empty());
    assert_eq!(of(&moved, "moved")[0]["to"], origin(&dir, "sub/b.md"));
    let sources = env.json(&["sources"]);
    assert_eq!(sources.as_array().unwrap().len(), 1);
    assert_eq!(sources[0]["id"], id, "the moved file keeps its source");
    assert_eq!(sources[0]["origin"], origin(&dir, "sub/b.md"));
    assert_eq!(sources[0]["status"], "compiled");
    let pages = env.json(&["list"]);
    assert!(
        pages
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["title"] == "Alpha"),
        "the page stays: {pages}"
    );

    std::fs::remove_file(dir.join("sub/b.md")).unwrap();
    let deleted = watch.until(|e| !of(e, "removed").is_empty());
    assert_eq!(of(&deleted, "removed")[0]["source_id"], id);
    let rest = watch.stop();
    assert_eq!(of(&rest, "stopped")[0]["interrupted"], false);

    assert_eq!(env.json(&["sources"]), serde_json::json!([]));
    assert!(
        !env.json(&["list"])
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["title"] == "Alpha"),
        "its page went with its only source"
    );
    let trend = env.json(&["lint", "--trend"]);
    assert!(
        trend
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["trigger"] == "compile"),
        "the health figures are stored after a watch compiles, as after `compile`: {trend}"
    );
    assert_eq!(compiles(&server, "marker-a1"), 1);
    assert_eq!(
        compiles(&server, "marker-a2"),
        1,
        "the rename and move compiled nothing"
    );
}

#[test]
fn a_burst_of_200_files_is_compiled_once_each() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let dir = notes(&env);
    let mut watch = Watch::start(&env, &[dir.to_str().unwrap()]);
    for i in 0..200 {
        std::fs::write(
            dir.join(format!("n{i:03}.md")),
            note(&format!("Topic {i:03}"), &format!("burst-{i:03}-end")),
        )
        .unwrap();
    }
    let events = watch.until(|e| of(e, "compiled").len() >= 200);
    watch.stop();
    assert_eq!(of(&events, "ingested").len(), 200);
    assert!(of(&events, "compiled").iter().all(|c| c["ok"] == true));
    for i in 0..200 {
        assert_eq!(
            compiles(&server, &format!("burst-{i:03}-end")),
            1,
            "file {i}"
        );
    }
}

#[test]
fn a_restart_picks_up_what_changed_while_nothing_watched_and_ignores_what_it_should() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let dir = notes(&env);
    std::fs::write(dir.join("keep.md"), note("Keep", "marker-keep")).unwrap();
    std::fs::write(dir.join("edit.md"), note("Edit", "marker-edit1")).unwrap();
    std::fs::write(dir.join("gone.md"), note("Gone", "marker-gone")).unwrap();
    std::fs::write(dir.join("old.md"), note("Renamed", "marker-renamed")).unwrap();
    // What is never read: hidden, .git, .obsidian, attachments, .wikimindignore's names.
    for (name, text) in [
        (".hidden.md", note("Hidden", "marker-hidden")),
        (".git/notes.md", note("Git", "marker-git")),
        (".obsidian/workspace.md", note("Vault", "marker-vault")),
        ("drafts/draft.md", note("Draft", "marker-draft")),
        ("skip.tmp.md", note("Temp", "marker-tmp")),
        ("picture.png", "not a note".to_owned()),
        (".wikimindignore", "drafts/\n*.tmp.md\n".to_owned()),
    ] {
        std::fs::create_dir_all(dir.join(name).parent().unwrap()).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }
    let dir_arg = dir.to_str().unwrap().to_owned();
    let watch = Watch::start(&env, &[&dir_arg, "--save"]);
    let first = watch.seen.clone();
    watch.stop();
    assert_eq!(of(&first, "compiled").len(), 4, "{first:#?}");
    let renamed_id = env
        .json(&["sources"])
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["origin"] == origin(&dir, "old.md"))
        .map(|s| s["id"].clone())
        .unwrap();

    // While nothing watches: an edit, a delete, a new file, a rename.
    std::fs::write(dir.join("edit.md"), note("Edit", "marker-edit2")).unwrap();
    std::fs::remove_file(dir.join("gone.md")).unwrap();
    std::fs::write(dir.join("new.md"), note("New", "marker-new")).unwrap();
    std::fs::rename(dir.join("old.md"), dir.join("renamed.md")).unwrap();

    // No DIR: the saved folder.
    let watch = Watch::start(&env, &[]);
    let second = watch.seen.clone();
    watch.stop();
    let ingested: Vec<(String, String)> = of(&second, "ingested")
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_owned(),
                e["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        ingested,
        [
            (origin(&dir, "edit.md"), "changed".to_owned()),
            (origin(&dir, "new.md"), "added".to_owned()),
        ],
        "{second:#?}"
    );
    assert_eq!(of(&second, "removed")[0]["origin"], origin(&dir, "gone.md"));
    assert_eq!(of(&second, "moved")[0]["source_id"], renamed_id);
    assert_eq!(of(&second, "compiled").len(), 2);

    // Nothing changed: nothing is read again or compiled.
    let watch = Watch::start(&env, &[]);
    let third = watch.seen.clone();
    watch.stop();
    assert!(of(&third, "ingested").is_empty(), "{third:#?}");
    assert!(of(&third, "compiled").is_empty());

    for (marker, times) in [
        ("marker-keep", 1),
        ("marker-edit1", 1),
        ("marker-edit2", 1),
        ("marker-gone", 1),
        ("marker-new", 1),
        ("marker-renamed", 1),
        ("marker-hidden", 0),
        ("marker-git", 0),
        ("marker-vault", 0),
        ("marker-draft", 0),
        ("marker-tmp", 0),
    ] {
        assert_eq!(compiles(&server, marker), times, "{marker}");
    }
    // Folder ingest leaves out the same files.
    let ingest = env.json(&["ingest", &dir_arg]);
    let ignored: Vec<&str> = ingest["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reason"]["reason"] == "ignored")
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(ignored.len(), 2, "{ingest}");
    assert!(ignored.iter().any(|p| p.ends_with("drafts")), "{ignored:?}");
    assert!(
        ignored.iter().any(|p| p.ends_with("skip.tmp.md")),
        "{ignored:?}"
    );
}

#[test]
fn sigterm_in_the_middle_of_a_compile_stops_cleanly_and_the_next_watch_finishes_it() {
    let (asked_tx, asked) = mpsc::channel::<()>();
    let asked_tx = Mutex::new(asked_tx);
    let slow = Arc::new(AtomicBool::new(true));
    let first = Arc::clone(&slow);
    let server = TestServer::builder()
        .responder(move |req| {
            let answer = canned::compilation_answer(&req.first_user_message());
            if first.swap(false, Ordering::SeqCst) {
                let _ = asked_tx.lock().unwrap().send(());
                // The first answer never ends: it stalls after its first piece until the
                // test stops the watcher.
                return Some(Reply::text(answer).chunk_chars(4).stall_after(1));
            }
            Some(Reply::text(answer))
        })
        .start();
    let env = Env::new(&server);
    let dir = notes(&env);
    let dir_arg = dir.to_str().unwrap().to_owned();
    let watch = Watch::start(&env, &[&dir_arg]);
    std::fs::write(dir.join("slow.md"), note("Slow", "marker-slow")).unwrap();
    asked.recv_timeout(SILENCE).expect("the compile started");
    let rest = watch.stop();
    assert_eq!(of(&rest, "stopped")[0]["interrupted"], true, "{rest:#?}");

    let db = env.data().join("wikimind.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let (status, articles): (String, i64) = conn
        .query_row(
            "SELECT status, (SELECT count(*) FROM articles) FROM sources",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (status.as_str(), articles),
        ("pending", 0),
        "no half-written digest"
    );
    let queued: i64 = conn
        .query_row(
            "SELECT count(*) FROM jobs WHERE state = 'queued'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(queued, 1, "the compile stays queued");
    drop(conn);

    let watch = Watch::start(&env, &[&dir_arg]);
    let resumed = watch.seen.clone();
    watch.stop();
    assert_eq!(of(&resumed, "compiled").len(), 1, "{resumed:#?}");
    assert_eq!(env.json(&["sources"])[0]["status"], "compiled");
}

#[test]
fn the_saved_list_is_managed_and_one_watcher_watches_a_wiki() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let dir = notes(&env);
    let dir_arg = dir.to_str().unwrap().to_owned();
    env.cmd()
        .args(["watch"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--save"));
    let watch = Watch::start(&env, &[&dir_arg, "--save"]);
    // A second watcher of the same wiki is refused while the first watches.
    env.cmd()
        .args(["watch", &dir_arg])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("is watching this wiki"));
    watch.stop();
    assert_eq!(
        env.json(&["watch", "--list"]),
        serde_json::json!([{"path": dir_arg, "present": true}])
    );
    assert_eq!(
        env.json(&["watch", "--remove", &dir_arg]),
        serde_json::json!({"removed": dir_arg})
    );
    assert_eq!(env.json(&["watch", "--list"]), serde_json::json!([]));
    env.cmd()
        .args(["watch", "--remove", &dir_arg])
        .assert()
        .code(2);
}

#[test]
fn a_file_moved_between_two_watched_folders_keeps_its_source() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let dir = notes(&env);
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("tea.md"), note("Tea", "marker-tea")).unwrap();
    let mut watch = Watch::start(&env, &[a.to_str().unwrap(), b.to_str().unwrap()]);
    let id = of(&watch.seen, "ingested")[0]["source_id"].clone();

    std::fs::rename(a.join("tea.md"), b.join("tea.md")).unwrap();
    let moved = watch.until(|e| !of(e, "moved").is_empty());
    watch.stop();
    assert_eq!(of(&moved, "moved")[0]["source_id"], id);
    assert_eq!(of(&moved, "moved")[0]["to"], origin(&b, "tea.md"));
    assert!(of(&moved, "removed").is_empty(), "{moved:#?}");
    assert_eq!(env.json(&["sources"])[0]["id"], id);
    assert_eq!(compiles(&server, "marker-tea"), 1);
}
