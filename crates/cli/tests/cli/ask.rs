//! `wikimind ask` through the real binary and a local model server: the pinned JSON keys,
//! exit codes, no call for a question the wiki does not cover, and `--save` filing an
//! answer page that `list` shows apart.

use predicates::prelude::*;
use wikimind_testserver::{Reply, TestServer};

use crate::common::Env;

/// Three notes compiled into three pages.
fn coffee(env: &Env) {
    env.write_note(
        "espresso.md",
        "# Espresso\n\nEspresso is brewed at nine bars of pressure. See [[Crema]].\n",
    );
    env.write_note(
        "crema.md",
        "# Crema\n\nCrema is the reddish foam on top of an espresso shot.\n",
    );
    env.write_note(
        "tea.md",
        "# Green Tea\n\nGreen tea is brewed with water at about eighty degrees.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().arg("compile").assert().success();
}

fn asks(server: &TestServer) -> usize {
    server
        .chat_requests()
        .iter()
        .filter(|r| r.first_user_message().starts_with("Question: "))
        .count()
}

#[test]
fn ask_json_keeps_the_contract_and_save_files_an_answer_page() {
    let server = TestServer::start();
    let env = Env::new(&server);
    coffee(&env);
    let question = "How much pressure is espresso brewed at?";
    let report = env.json(&["ask", question, "--save"]);
    assert_eq!(report["covered"], true);
    assert_eq!(report["saved"], question);
    assert_eq!(report["pages_read"][0], "Espresso");
    assert!(report["follow_up_questions"].is_array());
    let claim = &report["claims"][0];
    let keys: Vec<&String> = claim.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["claim", "confidence", "quote", "page", "grounded"]);
    assert_eq!(claim["page"], "Espresso");
    assert_eq!(claim["grounded"], true);
    assert!(report["answer"].as_str().unwrap().contains("[[Espresso]]"));
    assert_eq!(asks(&server), 1);

    // Listed apart from topic pages, by kind.
    let list = env.json(&["list"]);
    let kinds: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["title"].as_str().unwrap(), p["kind"].as_str().unwrap()))
        .collect();
    assert!(kinds.contains(&(question, "answer")), "{kinds:?}");
    assert_eq!(kinds.iter().filter(|(_, k)| *k == "topic").count(), 3);
    env.cmd()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Saved answers:\n  {question}"
        )))
        .stdout(predicate::str::contains("3 pages from 3 sources"));
    // Shown with the page each claim cites.
    env.cmd()
        .args(["show", question])
        .assert()
        .success()
        .stdout(predicate::str::contains("[cites \"Espresso\"]"));
}

#[test]
fn a_question_the_wiki_does_not_cover_exits_0_with_no_call() {
    let server = TestServer::start();
    let env = Env::new(&server);
    coffee(&env);
    let before = server.chat_requests().len();
    let report = env.json(&["ask", "What", "is", "quantum", "chromodynamics?"]);
    assert_eq!(report["covered"], false);
    assert_eq!(report["saved"], serde_json::Value::Null);
    assert_eq!(report["claims"], serde_json::json!([]));
    assert!(report["answer"].as_str().unwrap().contains("quantum"));
    assert_eq!(server.chat_requests().len(), before);
    env.cmd()
        .args(["ask", "tell me about quarks"])
        .assert()
        .success()
        .stdout(predicate::str::contains("does not cover"));
}

#[test]
fn an_answer_that_cannot_be_made_valid_exits_1_with_the_reason() {
    let server = TestServer::start();
    let env = Env::new(&server);
    coffee(&env);
    // The first try and the two retries the default settings allow.
    for _ in 0..3 {
        server.push(Reply::text("Espresso is lovely."));
    }
    env.cmd()
        .args(["ask", "Why is crema red?"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no valid answer"));
    // A claim whose quote is not in the cited page is shown as inferred, and said so.
    server.push(Reply::text(
        serde_json::json!({
            "answer": "Crema is [[Crema|foam]].",
            "claims": [{"claim": "Crema is blue", "confidence": "sourced", "quote": "crema is blue", "page": "Crema"}]
        })
        .to_string(),
    ));
    env.cmd()
        .args(["ask", "Why is crema red?"])
        .assert()
        .success()
        .stdout(predicate::str::contains("✗ inferred [Crema] Crema is blue"))
        .stdout(predicate::str::contains("not found in \"Crema\""));
}

/// Regression: an answer saved under a topic's name (`#Espresso` is `Espresso.md` once `#`
/// is dropped, and sorts before the topic) took the topic's file in an export, pushing the
/// topic to `Espresso (2).md`, so `[[Espresso]]` opened the answer.
#[test]
fn export_gives_a_topic_its_own_file_name_before_a_saved_answer() {
    let server = TestServer::start();
    let env = Env::new(&server);
    coffee(&env);
    let report = env.json(&["ask", "#Espresso", "--save"]);
    assert_eq!(report["saved"], "#Espresso", "{report}");
    let out = env.dir.path().join("export");
    env.cmd()
        .args(["export", out.to_str().unwrap()])
        .assert()
        .success();
    let topic = std::fs::read_to_string(out.join("Espresso.md")).unwrap();
    assert!(topic.starts_with("---\ntitle: \"Espresso\"\n"), "{topic}");
    let answer = std::fs::read_to_string(out.join("Espresso (2).md")).unwrap();
    assert!(
        answer.starts_with("---\ntitle: \"#Espresso\"\n"),
        "{answer}"
    );
}

/// Regression: a 1 MB question took minutes before any model was asked (quadratic
/// de-duplication, every word and every run of words searched for), then went out whole,
/// far beyond the model's context. Now it is searched for its first words and cut to a
/// quarter of the context, and the answer says so.
#[test]
fn a_one_megabyte_question_is_cut_to_its_share_of_the_context_with_a_warning() {
    let server = TestServer::start();
    let env = Env::new(&server);
    coffee(&env);
    // 1 MB of words, in arguments of about 10 KB (one argument may hold at most 128 KB).
    let mut args = vec!["ask".to_string(), "How is espresso brewed?".to_string()];
    let mut n = 0;
    while args.iter().map(String::len).sum::<usize>() < 1_000_000 {
        let chunk: String = (0..1_000).map(|i| format!("w{} ", n * 1_000 + i)).collect();
        args.push(chunk);
        n += 1;
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = env.json(&args);
    assert_eq!(report["covered"], true, "{report}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("the question was cut to its first"),
        "{warnings}"
    );
    assert!(
        warnings.contains("quarter of the model's context"),
        "{warnings}"
    );
    let sent = server.chat_requests().last().unwrap().first_user_message();
    // The stand-in server's context is 8,192 tokens: a quarter is about 6,144 characters.
    let question = sent.split("\n").next().unwrap();
    assert!(
        question.starts_with("Question: How is espresso brewed?"),
        "{question}"
    );
    assert!(question.len() < 6_200, "{} characters sent", question.len());
}
