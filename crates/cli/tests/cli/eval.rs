//! `wikimind eval` through the real binary, with the dataset shipped in `evals/`, against a
//! local server speaking the Ollama protocol (its canned answers quote each source).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use wikimind_testserver::{canned, Reply, TestServer};

fn evals() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../evals")
}

fn cmd(home: &Path, base_url: &str) -> Command {
    let mut c = crate::common::wikimind(home, base_url);
    c.timeout(std::time::Duration::from_secs(180));
    c
}

#[test]
fn the_shipped_dataset_runs_and_writes_every_report_file() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let output = cmd(home.path(), &server.url())
        .arg("--json")
        .arg("eval")
        .arg(evals().join("wikimind-basics.jsonl"))
        .args([
            "--model",
            "test-model",
            "--concurrency",
            "3",
            "--compare-freeform",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .clone();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["dataset"]["name"], "wikimind-basics");
    assert!(report["dataset"]["cases"].as_u64().unwrap() >= 20);
    let m = &report["models"][0];
    assert_eq!(m["model"], "ollama:test-model");
    // The canned answers are clean JSON: every first answer is valid as sent.
    assert_eq!(m["first_answer_valid_rate"], 1.0);
    assert_eq!(m["final_valid_rate"], 1.0);
    assert!(m["grounded_rate"].as_f64().unwrap() > 0.9, "{m}");
    assert!(m["freeform"]["pairs"].as_u64().unwrap() >= 20);
    for f in ["report.json", "results.jsonl", "report.html"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let lines = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(
        lines.lines().count() as u64,
        report["runs"].as_u64().unwrap()
    );
    // The person's wiki is untouched: eval compiles in a throwaway store.
    assert!(!home.path().join("data").join("wikimind.db").exists());
}

#[test]
fn the_table_names_each_model_and_yaml_datasets_run_too() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(evals().join("smoke.yaml"))
        .args(["--model", "small", "--model", "large", "--repeat", "2"])
        .arg("--out")
        .arg(home.path().join("out"))
        .assert()
        .success()
        .stdout(predicate::str::contains("ollama:small"))
        .stdout(predicate::str::contains("ollama:large"))
        .stdout(predicate::str::contains("+repair"))
        .stderr(predicate::str::contains("12 run(s)"));
}

#[test]
fn a_bad_dataset_names_file_and_line_and_nothing_runs() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("bad.jsonl");
    std::fs::write(
        &data,
        "{\"id\":\"a\",\"source\":\"Some text here.\"}\n{\"id\":\"a\",\"source\":\"More.\"}\n",
    )
    .unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "bad.jsonl: line 2: duplicate id \"a\"",
        ));
    assert!(server.chat_requests().is_empty());
}

#[test]
fn a_missing_sidecar_is_a_warning_and_wrong_flags_are_usage_errors() {
    let server = TestServer::start();
    server.push(Reply::text("not json at all"));
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("one.jsonl");
    std::fs::write(&data, "{\"id\":\"a\",\"source\":\"Some text here.\"}\n").unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .arg("--out")
        .arg(home.path().join("out"))
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: no sidecar"))
        .stderr(predicate::str::contains("using the defaults"));
    // The report says it too.
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join("out").join("report.json")).unwrap(),
    )
    .unwrap();
    let warning = report["warnings"][0].as_str().unwrap();
    assert!(warning.starts_with("no sidecar"), "{warning}");
    assert!(warning.contains("evaluator llm_judge"), "{warning}");
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--provider", "bard"])
        .assert()
        .code(2);
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--repeat", "0"])
        .assert()
        .code(2);
}

/// A folder with `hidden-ten.jsonl` (two cases, one overriding the sidecar's evaluator) and
/// the sidecar `hidden-ten.yaml` as the design writes it.
fn hidden_ten(dir: &Path) -> PathBuf {
    std::fs::write(
        dir.join("hidden-ten.yaml"),
        "dataset: hidden-ten\ndescription: Sources no model has seen\nexecution: {target: openai}\nevaluator: llm_judge\n",
    )
    .unwrap();
    let data = dir.join("hidden-ten.jsonl");
    std::fs::write(
        &data,
        concat!(
            "{\"id\":\"tea\",\"source\":\"# Tea\\n\\nGreen tea is steamed. Black tea is oxidised fully.\"}\n",
            "{\"id\":\"bread\",\"source\":\"# Bread\\n\\nSourdough rises slowly overnight.\",\"evaluator\":\"checks\"}\n"
        ),
    )
    .unwrap();
    data
}

#[test]
fn the_sidecar_is_followed_and_the_judge_scores_land_in_the_report() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let output = cmd(home.path(), &server.url())
        .arg("--json")
        .arg("eval")
        .arg(hidden_ten(home.path()))
        // `target: openai` picks the protocol; the stand-in serves it at its own address.
        .args(["--base-url", &server.openai_url(), "--out"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "judging articles (llm_judge) with openai:default",
        ))
        .get_output()
        .clone();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["dataset"]["name"], "hidden-ten");
    assert_eq!(
        report["dataset"]["description"],
        "Sources no model has seen"
    );
    assert_eq!(report["dataset"]["evaluator"], "llm_judge");
    assert_eq!(report["warnings"], serde_json::json!([]));
    let m = &report["models"][0];
    assert_eq!(m["model"], "openai:default");
    // Every call spoke the OpenAI protocol.
    let chats = server.chat_requests();
    assert!(chats.iter().all(|c| c.path == "/v1/chat/completions"));
    // Two compiles and one judge call: `bread` says `evaluator: checks`.
    assert_eq!(chats.len(), 3);
    let judge = &m["evaluators"]["llm_judge"];
    assert_eq!(judge["runs"], 1);
    assert_eq!(judge["judged"], 1);
    assert_eq!(judge["judges"], serde_json::json!(["openai:default"]));
    assert_eq!(judge["faithfulness"], 5.0);
    let lines: Vec<Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tea = lines.iter().find(|l| l["case_id"] == "tea").unwrap();
    let scored = &tea["evaluators"]["llm_judge"];
    assert_eq!(scored["faithfulness"]["score"], 5);
    assert!(scored["coverage"]["reason"]
        .as_str()
        .unwrap()
        .contains("source sentences"));
    let bread = lines.iter().find(|l| l["case_id"] == "bread").unwrap();
    assert_eq!(bread["evaluator"], "checks");
    assert_eq!(bread["evaluators"], serde_json::json!({}));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2>LLM judge</h2>"));
}

#[test]
fn the_judge_model_comes_from_the_flag_else_the_config() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("one.jsonl");
    std::fs::write(
        &data,
        "{\"id\":\"a\",\"source\":\"Some text here. And more of it.\"}\n",
    )
    .unwrap();
    let config = home.path().join(".config/wikimind");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[eval]\njudge_model = \"config-judge\"\n",
    )
    .unwrap();
    let judged_by = |extra: &[&str]| {
        let before = server.chat_requests().len();
        cmd(home.path(), &server.url())
            .arg("eval")
            .arg(&data)
            .args(["--model", "compiler"])
            .args(extra)
            .arg("--out")
            .arg(home.path().join("out"))
            .assert()
            .success();
        let chats = server.chat_requests();
        let models: Vec<String> = chats[before..]
            .iter()
            .map(|c| c.body["model"].as_str().unwrap().to_string())
            .collect();
        models
    };
    assert_eq!(judged_by(&[]), ["compiler", "config-judge"]);
    assert_eq!(
        judged_by(&["--judge-model", "flag-judge"]),
        ["compiler", "flag-judge"]
    );
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--judge-provider", "bard"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--judge-provider \"bard\": unknown provider",
        ));
}

#[test]
fn an_unknown_sidecar_field_names_the_file_and_line_and_nothing_runs() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let data = hidden_ten(home.path());
    std::fs::write(
        home.path().join("hidden-ten.yaml"),
        "dataset: hidden-ten\ndescription: x\njudge: llm\n",
    )
    .unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("hidden-ten.yaml: line 3"))
        .stderr(predicate::str::contains("unknown field `judge`"));
    // Sources in a dataset that says it holds questions: the line says what is wrong.
    std::fs::write(home.path().join("hidden-ten.yaml"), "kind: questions\n").unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "hidden-ten.jsonl: line 1: unknown field \"source\" (a question has: id, question, expect, execution); its sidecar says `kind: questions`",
        ));
    assert!(server.chat_requests().is_empty());
}

/// A sidecar nested 100,000 levels deep (200 KB of `[`) took the YAML parser tens of
/// seconds of CPU to refuse; it is refused before parsing, naming the file.
#[test]
fn a_sidecar_nested_100k_deep_is_refused_naming_the_file() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let data = hidden_ten(home.path());
    let depth = 100_000;
    std::fs::write(
        home.path().join("hidden-ten.yaml"),
        format!("dataset: {}{}\n", "[".repeat(depth), "]".repeat(depth)),
    )
    .unwrap();
    cmd(home.path(), &server.url())
        .timeout(std::time::Duration::from_secs(600))
        .arg("eval")
        .arg(&data)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "hidden-ten.yaml: line 1: nested more than 64 levels deep",
        ));
    assert!(server.chat_requests().is_empty());
}

#[test]
fn a_server_that_is_down_is_said_once() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("one.jsonl");
    std::fs::write(&data, "{\"id\":\"a\",\"source\":\"Some text here.\"}\n").unwrap();
    // A port nothing listens on.
    let port = wikimind_testserver::closed_port();
    cmd(home.path(), &format!("http://127.0.0.1:{port}"))
        .arg("eval")
        .arg(&data)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not running"));
}

/// SIGTERM (what `timeout` and `kill` send) stops an eval like Ctrl+C: the runs that
/// finished are reported and written, marked cancelled, and the exit code is 1.
#[cfg(unix)]
#[test]
fn sigterm_stops_an_eval_and_keeps_what_finished() {
    let server = TestServer::builder()
        .responder(|req| {
            // Every run is a compile and a judge call (the shipped dataset's evaluator).
            let prompt = req.first_user_message();
            let text = if canned::is_judge_prompt(&prompt) {
                canned::judge_answer(&prompt)
            } else {
                r#"{"title":"Slow","summary":"S","key_claims":[],"article_body":"Body."}"#.into()
            };
            Some(Reply::text(text).delay_headers(std::time::Duration::from_millis(300)))
        })
        .start();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let mut child = crate::common::process(home.path(), &server.url())
        .arg("eval")
        .arg(evals().join("wikimind-basics.jsonl"))
        .args(["--concurrency", "1", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let a few runs finish (each is two calls of at least 300 ms), then ask it to stop.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    // The deadline is a hang guard: reaching it fails the test, it never decides when to stop.
    while server.chat_requests().len() < 6 {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the eval ended ({status}) before its sixth call");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the eval made {} of 6 calls in a minute",
            server.chat_requests().len()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "eval did not stop after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(1), "{status:?}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["cancelled"], true);
    let runs = report["runs"].as_u64().unwrap();
    assert!((1..24).contains(&runs), "{runs} runs reported");
}

/// The notes shipped in `examples/`.
fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn the_shipped_questions_are_asked_of_the_compiled_examples_and_of_their_sources() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    cmd(home.path(), &server.url())
        .arg("ingest")
        .arg(examples())
        .assert()
        .success();
    cmd(home.path(), &server.url())
        .arg("compile")
        .assert()
        .success();
    let compiled = server.chat_requests().len();
    let out = home.path().join("out");
    let output = cmd(home.path(), &server.url())
        .arg("--json")
        .arg("eval")
        .arg(evals().join("coffee-questions.jsonl"))
        .args(["--model", "test-model", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "asking coffee-questions (17 question(s)) of the wiki in",
        ))
        .stderr(predicate::str::contains("and of its raw sources"))
        .get_output()
        .clone();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["dataset"]["kind"], "questions");
    assert_eq!(report["dataset"]["cases"], 17);
    assert_eq!(report["wiki"]["sources"], 12);
    assert!(report["wiki"]["pages"].as_u64().unwrap() >= 12);
    let m = &report["models"][0];
    assert_eq!(m["model"], "ollama:test-model");
    assert_eq!(m["runs"], 17);
    assert_eq!(m["facts_expected"], 24);
    for side in ["wiki", "raw"] {
        let f = &m[side];
        // The stand-in answers every question it is asked validly, quoting what it read.
        assert_eq!(f["valid_answers"], f["covered"], "{side}: {f}");
        assert_eq!(f["grounded_rate"], 1.0, "{side}: {f}");
        assert!(f["facts_found"].as_u64().unwrap() <= 24, "{side}: {f}");
    }
    // Every question but the one about Mongolia has words the sources use; the wiki, made
    // by the stand-in, keeps less of them.
    let covered = |side: &str| m[side]["covered"].as_u64().unwrap();
    assert_eq!(covered("raw"), 16);
    assert!((1..=16).contains(&covered("wiki")), "{m}");
    // One answer per question covered on each side, nothing compiled again.
    assert_eq!(
        (server.chat_requests().len() - compiled) as u64,
        covered("wiki") + covered("raw")
    );
    let lines: Vec<Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 17);
    let mongolia = lines
        .iter()
        .find(|l| l["case_id"] == "not-in-the-notes")
        .unwrap();
    assert_eq!(mongolia["wiki"]["covered"], false);
    assert_eq!(mongolia["raw"]["covered"], false);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Does the wiki help?"));

    // The table, for people: both sides of every model.
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(evals().join("coffee-questions.jsonl"))
        .args(["--model", "test-model", "--out"])
        .arg(home.path().join("out2"))
        .assert()
        .success()
        .stdout(predicate::str::contains("ollama:test-model  wiki"))
        .stdout(predicate::str::contains("from the wiki"))
        .stdout(predicate::str::contains("from the raw sources"));
}

#[test]
fn a_question_dataset_needs_a_compiled_wiki_and_no_article_flags() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(evals().join("coffee-questions.jsonl"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no wiki in"))
        .stderr(predicate::str::contains("wikimind compile"));
    assert!(!home.path().join("data").join("wikimind.db").exists());
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(evals().join("coffee-questions.jsonl"))
        .args(["--judge-model", "big"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--judge-model applies to article datasets; coffee-questions is a question dataset",
        ));
    assert!(server.chat_requests().is_empty());
}

/// Regression: `--out` wrote through a symlink already in the folder, so a report could
/// overwrite any file the link pointed at.
#[cfg(unix)]
#[test]
fn eval_out_replaces_a_symlink_instead_of_writing_through_it() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("one.jsonl");
    std::fs::write(&data, "{\"id\":\"a\",\"source\":\"Some text here.\"}\n").unwrap();
    let out = home.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let victim = home.path().join("precious.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, out.join("report.json")).unwrap();
    std::os::unix::fs::symlink(home.path().join("new.txt"), out.join("report.html")).unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        !home.path().join("new.txt").exists(),
        "a dangling link was followed"
    );
    for f in ["report.json", "results.jsonl", "report.html"] {
        let meta = std::fs::symlink_metadata(out.join(f)).unwrap();
        assert!(meta.is_file() && !meta.file_type().is_symlink(), "{f}");
    }
}

/// Regression: a case's `source_file` could name any file (`../`, an absolute path, a
/// symlink out of the folder), and its text was sent to the model.
#[test]
fn a_source_file_outside_the_dataset_folder_is_refused_with_file_line_and_field() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let secret = home.path().join("secret.md");
    std::fs::write(&secret, "# Secret\n\nThe vault code is 1234.\n").unwrap();
    let dir = home.path().join("datasets");
    std::fs::create_dir_all(&dir).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, dir.join("link.md")).unwrap();
    let mut cases = vec![
        ("up.jsonl", "\"../secret.md\"".to_string()),
        (
            "absolute.jsonl",
            serde_json::to_string(secret.to_str().unwrap()).unwrap(),
        ),
    ];
    if cfg!(unix) {
        cases.push(("link.jsonl", "\"link.md\"".to_string()));
    }
    for (name, file) in cases {
        let data = dir.join(name);
        std::fs::write(
            &data,
            format!(
                "{{\"id\":\"ok\",\"source\":\"Some text here.\"}}\n{{\"id\":\"leak\",\"source_file\":{file}}}\n"
            ),
        )
        .unwrap();
        cmd(home.path(), &server.url())
            .arg("eval")
            .arg(&data)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "{name}: line 2: case \"leak\": source_file"
            )))
            .stderr(predicate::str::contains("outside the dataset's folder"));
    }
    assert!(server.chat_requests().is_empty(), "nothing was sent");
}

/// Regression: a dataset could name its own server, so a shared dataset sent its sources
/// (or a person's files) to a server its author picked.
#[test]
fn a_dataset_naming_another_server_is_refused_unless_allowed() {
    let server = TestServer::start();
    let other = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("elsewhere.jsonl");
    std::fs::write(
        &data,
        format!(
            "{{\"id\":\"a\",\"source\":\"Some text here.\"}}\n{{\"id\":\"b\",\"source\":\"More text.\",\"execution\":{{\"base_url\":\"{}\"}}}}\n",
            other.url()
        ),
    )
    .unwrap();
    let out = home.path().join("out");
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "elsewhere.jsonl: line 2: case \"b\": execution.base_url",
        ))
        .stderr(predicate::str::contains(other.url()))
        .stderr(predicate::str::contains("--allow-dataset-servers"));
    assert!(server.chat_requests().is_empty() && other.chat_requests().is_empty());
    // The sidecar is checked too.
    std::fs::write(
        home.path().join("elsewhere.yaml"),
        format!("execution:\n  base_url: {}\n", other.url()),
    )
    .unwrap();
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "elsewhere.yaml: execution.base_url",
        ));
    // The person may allow it.
    cmd(home.path(), &server.url())
        .arg("eval")
        .arg(&data)
        .args(["--out", out.to_str().unwrap(), "--allow-dataset-servers"])
        .assert()
        .success();
    assert!(
        !other.chat_requests().is_empty(),
        "the dataset's server was asked"
    );
}
