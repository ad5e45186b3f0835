//! A pool of model servers (`[[pool]]` in the config file): `compile` spreads the sources
//! over two stand-in servers, a member that fails mid-run hands its jobs to the other, an
//! answer that cannot be made valid is asked again of the other, and `compile --json`
//! names each server's share.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;
use wikimind_testserver::{canned, Reply, TestServer};

use crate::common::wikimind;

/// Notes on ten different topics (no two feed one page).
const TOPICS: [&str; 10] = [
    "Espresso", "Basalt", "Kestrel", "Origami", "Tundra", "Sonnet", "Quasar", "Lichen", "Marimba",
    "Obsidian",
];

/// A temp home whose config file makes `servers` one pool (in this order), and the binary
/// run against it with no server named by a variable.
struct PoolEnv {
    dir: tempfile::TempDir,
}

impl PoolEnv {
    fn new(config: &str) -> PoolEnv {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), config).unwrap();
        PoolEnv { dir }
    }

    fn of(servers: &[&TestServer]) -> PoolEnv {
        let mut config = "[compile]\ntransport_retries = 0\n".to_owned();
        for s in servers {
            config.push_str(&format!(
                "\n[[pool]]\nkind = \"ollama\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
                s.url()
            ));
        }
        PoolEnv::new(&config)
    }

    fn cmd(&self) -> assert_cmd::Command {
        let mut c = wikimind(self.dir.path(), "unused");
        c.env_remove("WIKIMIND_BASE_URL")
            .env("WIKIMIND_CONFIG", self.dir.path().join("config.toml"))
            .timeout(std::time::Duration::from_secs(120));
        c
    }

    /// Ingests one note per topic.
    fn ingest_notes(&self) {
        let notes = self.dir.path().join("notes");
        std::fs::create_dir_all(&notes).unwrap();
        for topic in TOPICS {
            std::fs::write(
                notes.join(format!("{topic}.md")),
                format!("# {topic}\n\n{topic} is the subject of this note, and only {topic}.\n"),
            )
            .unwrap();
        }
        self.cmd()
            .args(["ingest", notes.to_str().unwrap()])
            .assert()
            .success();
    }

    /// `compile --json`, with the exit code it must have: the source reports and the pool.
    fn compile(&self, code: i32) -> (Vec<Value>, Vec<Value>) {
        let out = self
            .cmd()
            .args(["--json", "compile"])
            .assert()
            .code(code)
            .get_output()
            .clone();
        let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let sources = list
            .iter()
            .filter(|v| v["kind"] == "source")
            .cloned()
            .collect();
        let pool = list
            .iter()
            .find(|v| v["kind"] == "pool")
            .and_then(|v| v["pool"].as_array())
            .cloned()
            .unwrap_or_else(|| panic!("no pool in {list:?}"));
        (sources, pool)
    }
}

/// The compile prompts a server received (page prompts aside).
fn compile_chats(server: &TestServer) -> usize {
    server
        .chat_requests()
        .iter()
        .filter(|r| !canned::is_page_prompt(&r.first_user_message()))
        .count()
}

/// Every source has one report, and every report says compiled.
fn assert_each_compiled_once(sources: &[Value]) {
    let ids: BTreeSet<i64> = sources
        .iter()
        .map(|r| r["source_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), TOPICS.len(), "{sources:?}");
    assert_eq!(sources.len(), TOPICS.len(), "{sources:?}");
    for r in sources {
        assert_eq!(r["ok"], true, "{r}");
    }
}

fn share(pool: &[Value], i: usize, key: &str) -> u64 {
    pool[i][key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {pool:?}"))
}

#[test]
fn a_member_that_fails_mid_run_hands_its_jobs_to_the_other_and_none_is_lost() {
    // The first member answers once, then fails every call with HTTP 500.
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let failing = TestServer::builder()
        .responder(move |req| {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                return None;
            }
            let _ = req;
            Some(Reply::error(500, "the GPU fell over"))
        })
        .start();
    let steady = TestServer::start();
    let env = PoolEnv::of(&[&failing, &steady]);
    env.ingest_notes();

    let (sources, pool) = env.compile(0);
    assert_each_compiled_once(&sources);
    let failing_calls = compile_chats(&failing);
    assert!(
        failing_calls >= 2,
        "the first member is first in line whenever it is free: {failing_calls} call(s)"
    );
    // Each digest was written once: one answer of the failing member, the rest from the
    // steady one, which was never asked twice for a source.
    assert_eq!(compile_chats(&steady), TOPICS.len() - 1);
    assert_eq!(pool.len(), 2, "{pool:?}");
    assert_eq!(pool[0]["base_url"], failing.url());
    assert_eq!(pool[1]["base_url"], steady.url());
    assert_eq!(pool[0]["model"], "test-model");
    assert_eq!(share(&pool, 0, "compiled"), 1, "{pool:?}");
    assert_eq!(share(&pool, 1, "compiled"), TOPICS.len() as u64 - 1);
    // Every failed call was a job it handed on, and set it aside.
    let failed = failing_calls as u64 - 1;
    assert_eq!(share(&pool, 0, "failed"), failed, "{pool:?}");
    assert_eq!(share(&pool, 0, "set_aside"), failed, "{pool:?}");
    assert_eq!(share(&pool, 1, "failed"), 0);
    assert_eq!(share(&pool, 1, "set_aside"), 0);
}

#[test]
fn an_answer_that_cannot_be_made_valid_is_asked_again_of_the_other_member() {
    let babbling = TestServer::builder()
        .responder(|_| Some(Reply::text("I would rather talk about the weather.")))
        .start();
    let steady = TestServer::start();
    let env = PoolEnv::of(&[&babbling, &steady]);
    env.ingest_notes();

    let (sources, pool) = env.compile(0);
    assert_each_compiled_once(&sources);
    assert!(compile_chats(&babbling) > 0, "the first member had jobs");
    assert_eq!(compile_chats(&steady), TOPICS.len());
    assert_eq!(share(&pool, 0, "compiled"), 0);
    assert!(share(&pool, 0, "failed") > 0, "{pool:?}");
    assert_eq!(
        share(&pool, 0, "set_aside"),
        0,
        "it answered: it is not set aside"
    );
    assert_eq!(share(&pool, 1, "compiled"), TOPICS.len() as u64);
    // Some sources were first asked of the member that babbled: their reports say so.
    let handed_on = sources
        .iter()
        .filter(|r| r["attempts"].as_array().is_some_and(|a| a.len() > 1))
        .count() as u64;
    assert_eq!(handed_on, share(&pool, 0, "failed"));
}

#[test]
fn a_config_with_a_pool_and_a_provider_is_refused_naming_the_line() {
    let env = PoolEnv::new(
        "[[pool]]\nbase_url = \"http://127.0.0.1:1\"\n\n[provider]\nkind = \"ollama\"\n",
    );
    let out = env.cmd().arg("providers").assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("config.toml (line 4): [[pool]] replaces [provider] and [[fallback]]"),
        "{stderr}"
    );
}

#[test]
fn providers_test_checks_every_member_and_fails_when_one_does_not_answer() {
    let up = TestServer::start();
    let env = PoolEnv::new(&format!(
        "[compile]\ntransport_retries = 0\n[[pool]]\nbase_url = \"{}\"\nmodel = \"test-model\"\n[[pool]]\nbase_url = \"http://127.0.0.1:{}\"\n",
        up.url(),
        wikimind_testserver::closed_port()
    ));
    let out = env
        .cmd()
        .args(["--json", "providers", "--test"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let rows: Vec<Value> = serde_json::from_slice(&out).unwrap();
    let roles: Vec<&str> = rows.iter().filter_map(|r| r["role"].as_str()).collect();
    assert_eq!(roles, ["pool member 1", "pool member 2"], "{rows:?}");
    assert_eq!(rows[0]["reachable"], true);
    assert_eq!(rows[0]["model_available"], true);
    assert_eq!(rows[1]["reachable"], false);
}
