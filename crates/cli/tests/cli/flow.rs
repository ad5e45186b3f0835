//! The whole flow through the real binary: ingest, compile against a local server speaking
//! the Ollama (or OpenAI) protocol, browse, remove, export — in a temp data dir.

use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;
use wikimind_testserver::{Finish, Reply, TestServer};

use crate::common::Env;

fn titles(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn ingest_compile_browse_links_and_backlinks() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note("espresso.md", "# Espresso\n\nEspresso is brewed under nine bars of pressure. It depends on [[Grind Size]] and is the base of a [[Flat White]].\n");
    env.write_note("grind.md", "# Grind Size\n\nA finer grind slows the flow of water. Espresso needs a fine grind, see [[Espresso]].\n");
    env.write_note(".hidden.md", "# Hidden\n\nNot read.\n");
    env.write_note("image.png", "\u{0}\u{1}PNG");

    let ingested = env.json(&["ingest", env.notes().to_str().unwrap()]);
    assert_eq!(ingested["sources"].as_array().unwrap().len(), 2);
    assert_eq!(
        ingested["skipped"].as_array().unwrap().len(),
        2,
        "{ingested}"
    );

    // Re-ingesting is idempotent.
    let again = env.json(&["ingest", env.notes().to_str().unwrap()]);
    assert!(again["sources"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["outcome"] == "unchanged"));

    let reports = env.json(&["compile"]);
    let reports = reports.as_array().unwrap();
    let of_kind = |kind: &'static str| reports.iter().filter(move |r| r["kind"] == kind);
    assert_eq!(of_kind("source").count(), 2, "{reports:?}");
    // Each note links to the other's topic: both pages are fed by both digests, and are
    // written after the sources.
    assert_eq!(of_kind("page").count(), 2, "{reports:?}");
    assert!(reports.iter().all(|r| r["ok"] == true), "{reports:?}");
    // One call per source, plus one per page that changed.
    let page_calls: u64 = of_kind("page").map(|r| r["calls"].as_u64().unwrap()).sum();
    // Ollama got the schema as `format` and a sized context.
    let chats = server.chat_requests();
    assert_eq!(chats.len() as u64, 2 + page_calls);
    assert_eq!(
        chats[0].body["format"]["properties"]["key_claims"]["type"],
        "array"
    );
    assert!(chats[0].body["options"]["num_ctx"].as_u64().unwrap() >= 2048);

    assert_eq!(titles(&env.json(&["list"])), vec!["Espresso", "Grind Size"]);
    let espresso = env.json(&["show", "espresso"]);
    let links = espresso["links"].as_array().unwrap();
    let grind = links.iter().find(|l| l["target"] == "Grind Size").unwrap();
    assert!(
        grind["article_id"].is_number(),
        "the link to an existing article resolves"
    );
    let flat = links.iter().find(|l| l["target"] == "Flat White").unwrap();
    assert!(
        flat["article_id"].is_null(),
        "a link to a missing page stays wanted"
    );
    let backlinks = espresso["backlinks"].as_array().unwrap();
    assert_eq!(backlinks[0]["title"], "Grind Size");
    assert!(backlinks[0]["context"]
        .as_str()
        .unwrap()
        .contains("Espresso needs a fine grind"));
    let claim = &espresso["key_claims"][0];
    assert_eq!(claim["confidence"], "sourced");
    assert_eq!(claim["grounded"], true);

    // The wanted page resolves when that article is compiled later.
    env.write_note(
        "flat-white.md",
        "# Flat White\n\nA flat white is espresso with thin steamed milk.\n",
    );
    env.json(&["ingest", env.notes().to_str().unwrap()]);
    env.cmd().args(["compile"]).assert().success();
    let espresso = env.json(&["show", "Espresso"]);
    let flat = espresso["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["target"] == "Flat White")
        .unwrap()
        .clone();
    assert!(flat["article_id"].is_number(), "{espresso}");

    // Search finds a word from a body.
    let hits = env.json(&["search", "pressure"]);
    assert_eq!(hits[0]["title"], "Espresso");

    // Rendered HTML is sanitised and links navigate inside the app.
    env.cmd()
        .args(["show", "Espresso", "--html"])
        .assert()
        .success()
        .stdout(predicate::str::contains("href=\"wikimind://article/"));

    // Removing a source turns links to its article back into wanted pages.
    env.cmd().args(["rm", "Flat White"]).assert().success();
    let espresso = env.json(&["show", "Espresso"]);
    let flat = espresso["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["target"] == "Flat White")
        .unwrap()
        .clone();
    assert!(flat["article_id"].is_null());

    // Export writes one markdown file per article with front matter.
    let out = env.dir.path().join("export");
    env.cmd()
        .args(["export", out.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(out.join("Espresso.md")).unwrap();
    assert!(text.starts_with("---\n"), "{text}");
    assert!(text.contains("[[Grind Size]]"));
}

#[test]
fn changed_source_is_stale_and_recompiles_in_place() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note(
        "a.md",
        "# Alpha\n\nThe first version says one thing clearly.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();
    let before = env.json(&["show", "Alpha"]);
    env.write_note(
        "a.md",
        "# Alpha\n\nThe second version says another thing entirely.\n",
    );
    let again = env.json(&["ingest", env.notes().to_str().unwrap()]);
    assert_eq!(again["sources"][0]["outcome"], "changed");
    let sources = env.json(&["sources"]);
    assert_eq!(sources[0]["status"], "stale");
    env.cmd().args(["compile"]).assert().success();
    let after = env.json(&["show", "Alpha"]);
    assert_eq!(
        before["id"], after["id"],
        "recompiling keeps the article's identity"
    );
    assert!(after["summary"]
        .as_str()
        .unwrap()
        .contains("second version"));
}

#[test]
fn invalid_answers_are_retried_with_feedback_then_stored() {
    let server = TestServer::start();
    server.push(Reply::text("I'm sorry, I can only answer in prose."));
    server.push(Reply::text("{\"title\": \"Half\", \"summary\": \"cut"));
    let env = Env::new(&server);
    env.write_note(
        "n.md",
        "# Note\n\nThis note has a sentence worth quoting here.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    let reports = env.json(&["compile"]);
    assert_eq!(reports[0]["ok"], true, "{reports}");
    assert_eq!(reports[0]["calls"], 3);
    let chats = server.chat_requests();
    assert_eq!(chats.len(), 3);
    // The second call carries the first answer and what was wrong with it.
    let messages = chats[1].body["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert!(messages[3]["content"]
        .as_str()
        .unwrap()
        .contains("no JSON value found"));
}

#[test]
fn an_answer_that_never_validates_marks_the_source_failed_keeping_the_raw_answer() {
    let server = TestServer::builder()
        .responder(|_| Some(Reply::text("no json here, sorry")))
        .start();
    let env = Env::new(&server);
    env.write_note("n.md", "# Note\n\nSome text.\n");
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd()
        .args(["compile"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("failed"))
        .stdout(predicate::str::contains("no JSON value found"));
    let sources = env.json(&["sources"]);
    assert_eq!(sources[0]["status"], "failed");
    assert!(sources[0]["reason"]
        .as_str()
        .unwrap()
        .contains("could not be made valid"));
    assert_eq!(server.chat_requests().len(), 3, "one call and two retries");
}

#[test]
fn truncated_answer_with_every_required_field_is_kept_and_marked() {
    let server = TestServer::start();
    server.push(
        Reply::text(r#"{"title": "Cut", "summary": "S.", "key_claims": [], "article_body": "The body was going on and on"#)
            .finish(Finish::Length),
    );
    let env = Env::new(&server);
    env.write_note("n.md", "# Cut\n\nA text.\n");
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    let reports = env.json(&["compile"]);
    assert_eq!(reports[0]["ok"], true);
    assert_eq!(reports[0]["truncated"], true);
    assert_eq!(env.json(&["show", "Cut"])["truncated"], true);
}

#[test]
fn provider_down_says_what_to_start() {
    // A port with nothing listening.
    let port = wikimind_testserver::closed_port();
    let server = TestServer::start();
    let mut env = Env::new(&server);
    env.base_url = format!("http://127.0.0.1:{port}");
    env.write_note("n.md", "# Note\n\nText.\n");
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd()
        .args(["compile"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "Ollama is not running at http://127.0.0.1:{port}"
        )))
        .stderr(predicate::str::contains("ollama serve"));
    // Nothing was lost or marked failed.
    assert_eq!(env.json(&["sources"])[0]["status"], "pending");
}

#[test]
fn falls_back_to_the_next_provider_on_invalid_answers() {
    let bad = TestServer::builder()
        .responder(|_| Some(Reply::text("prose only")))
        .start();
    let good = TestServer::builder().models(["backup"]).start();
    let env = Env::new(&bad);
    let config = env.dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[compile]\nretries = 0\n\n[[fallback]]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"backup\"\n", good.openai_url()),
    )
    .unwrap();
    env.write_note(
        "n.md",
        "# Note\n\nThe backup server writes this article well.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    let out = env
        .cmd()
        .env("WIKIMIND_CONFIG", &config)
        .args(["--json", "compile"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let reports: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(reports[0]["provider"], "openai:backup", "{reports}");
    assert_eq!(bad.chat_requests().len(), 1);
    let chats = good.chat_requests();
    assert_eq!(chats[0].body["response_format"]["type"], "json_schema");
}

#[test]
fn openai_compatible_server_with_json_object_fallback() {
    let server = TestServer::builder().reject_json_schema(true).start();
    let mut env = Env::new(&server);
    env.base_url = server.openai_url();
    env.provider = "openai";
    env.write_note(
        "n.md",
        "# Note\n\nThe server only knows json_object mode.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    let reports = env.json(&["compile"]);
    assert_eq!(reports[0]["ok"], true, "{reports}");
    let kinds: Vec<Value> = server
        .chat_requests()
        .iter()
        .map(|r| r.body["response_format"]["type"].clone())
        .collect();
    assert_eq!(
        kinds,
        vec![Value::from("json_schema"), Value::from("json_object")]
    );
}

#[test]
fn unknown_source_and_article_are_usage_errors() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.cmd()
        .args(["show", "Nothing"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no page titled"));
    env.cmd()
        .args(["compile", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no source matches"));
    env.cmd()
        .args(["ingest", "/definitely/missing/file.md"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/definitely/missing/file.md"));
}

#[test]
fn stdin_ingest_and_binary_file_refused() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.cmd()
        .args(["ingest", "-", "--title", "Pasted"])
        .write_stdin("Some pasted text about tea.")
        .assert()
        .success();
    assert_eq!(env.json(&["sources"])[0]["kind"], "stdin");
    let bin = env.dir.path().join("blob.md");
    std::fs::write(&bin, [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    env.cmd()
        .args(["ingest", bin.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("blob.md"));
    assert!(Path::new(&env.data()).join("wikimind.db").exists());

    // Binary or non-UTF-8 standard input is refused like a file, and an input given beside
    // it is still stored.
    env.write_note("kept.md", "# Kept\n\nA note given beside bad input.");
    let kept = env.notes().join("kept.md");
    env.cmd()
        .args(["ingest", "-", kept.to_str().unwrap()])
        .write_stdin(vec![b'c', b'a', b'f', 0xe9, b'!'])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "standard input: not valid UTF-8 (first bad byte at offset 3)",
        ));
    env.cmd()
        .args(["ingest", "-"])
        .write_stdin(vec![b'%', b'P', b'D', b'F', 0, 1])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "standard input: contains binary data",
        ));
    let sources = env.json(&["sources"]);
    assert_eq!(sources.as_array().unwrap().len(), 2, "{sources}");
}

#[test]
fn providers_test_reads_an_untagged_ollama_model_as_its_latest_tag() {
    for (listed, available) in [("llama3.2:latest", true), ("llama3.2:1b", false)] {
        let server = TestServer::builder().models([listed]).start();
        let env = Env::new(&server);
        let out = env
            .cmd()
            .env("WIKIMIND_MODEL", "llama3.2")
            .args(["--json", "providers", "--test"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let rows: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(rows[0]["reachable"], true, "{rows}");
        assert_eq!(rows[0]["model_available"], available, "{listed}: {rows}");
    }
}

#[test]
fn the_environment_api_key_reaches_the_primary_server_only() {
    let primary = TestServer::start();
    let fallback = TestServer::start();
    let env = Env::new(&primary);
    let config = env.dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[[fallback]]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n",
            fallback.openai_url()
        ),
    )
    .unwrap();
    let rows = env
        .cmd()
        .env("WIKIMIND_CONFIG", &config)
        .env("WIKIMIND_PROVIDER", "openai")
        .env("WIKIMIND_BASE_URL", primary.openai_url())
        .env("WIKIMIND_API_KEY", "env-key-42")
        .args(["--json", "providers", "--test"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: Value = serde_json::from_slice(&rows).unwrap();
    assert_eq!(rows[0]["api_key"], true, "{rows}");
    assert_eq!(rows[1]["api_key"], false, "{rows}");
    let sent = |s: &TestServer| -> Vec<Option<String>> {
        s.requests()
            .iter()
            .map(|r| r.header("authorization").map(str::to_string))
            .collect()
    };
    assert_eq!(sent(&primary), vec![Some("Bearer env-key-42".to_string())]);
    assert_eq!(sent(&fallback), vec![None]);
}

/// Titles and text from files and model answers never reach the terminal as control
/// sequences: human output shows them escaped, `--json` keeps them exact.
#[test]
fn control_sequences_in_a_title_are_shown_not_sent_to_the_terminal() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let title = "Evil \u{1b}]0;pwned\u{7}Title \u{202e}cod.exe";
    env.write_note(
        "evil.md",
        &format!("# {title}\n\nThis sentence clears \u{1b}[2J the screen when printed.\n"),
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().arg("compile").assert().success();

    for args in [
        vec!["sources"],
        vec!["list"],
        vec!["show", title],
        vec!["search", "sentence"],
    ] {
        let out = env
            .cmd()
            .args(&args)
            .assert()
            .success()
            .get_output()
            .clone();
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
                "{args:?} printed a raw control character: {text:?}"
            );
        }
        let shown = String::from_utf8_lossy(&out.stdout).into_owned();
        if args[0] != "search" {
            assert!(shown.contains("\\u{1b}0;pwned"), "{args:?}: {shown}");
        }
    }
    // Exact but for the `]`: a name never carries link syntax.
    let list = env.json(&["list"]);
    assert_eq!(
        titles(&list),
        [title.replace(']', "")],
        "--json stays exact"
    );
}

/// Regression: the URL a page was finally read from after redirects was stored but never
/// shown. `sources` and `show` show it beside the origin when they differ, `--json` gives
/// `final_url` (null when there is none), and credentials typed in the URL show nowhere.
#[test]
fn a_redirected_page_shows_where_it_was_read_from() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let base = server.url();
    let typed = format!(
        "{}/redirect/moved#part",
        base.replacen("http://", "http://alice:s3cret-pw@", 1)
    );
    let origin = format!("{base}/redirect/moved");
    let final_url = format!("{base}/page/moved");
    env.write_note("plain.md", "# Plain\n\nA note that never moved.\n");

    let ingested = env.json(&["ingest", &typed, env.notes().to_str().unwrap()]);
    assert_eq!(ingested["sources"][0]["origin"], origin.as_str());
    assert_eq!(ingested["sources"][0]["final_url"], final_url.as_str());
    assert_eq!(ingested["sources"][1]["final_url"], Value::Null);
    // The human report says it too (the page again: unchanged).
    env.cmd()
        .args(["ingest", &typed])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("read from {final_url}\n")))
        .stdout(predicate::str::contains("s3cret").not());
    env.cmd().arg("compile").assert().success();

    let listed = env.json(&["sources"]);
    assert_eq!(listed[0]["origin"], origin.as_str());
    assert_eq!(listed[0]["final_url"], final_url.as_str());
    assert_eq!(
        listed[1]["final_url"],
        Value::Null,
        "a file has no final URL"
    );

    let human = env.cmd().arg("sources").assert().success();
    let human = String::from_utf8_lossy(&human.get_output().stdout).into_owned();
    assert!(
        human.contains(&format!("      {origin} → {final_url}\n")),
        "{human}"
    );
    assert_eq!(
        human.matches(" → http").count(),
        1,
        "only the page moved: {human}"
    );

    let shown = env.json(&["show", "Page moved"]);
    assert_eq!(shown["sources"][0]["origin"], origin.as_str());
    assert_eq!(shown["sources"][0]["final_url"], final_url.as_str());
    assert_eq!(
        env.json(&["show", "Plain"])["sources"][0]["final_url"],
        Value::Null
    );
    env.cmd()
        .args(["show", "Page moved"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Source: {origin} → {final_url} (compiled "
        )));
    let plain = env.cmd().args(["show", "Plain"]).assert().success();
    assert!(!String::from_utf8_lossy(&plain.get_output().stdout).contains(" → "));

    // Typed credentials were sent, but show in no output.
    for args in [
        &["sources"][..],
        &["--json", "sources"],
        &["show", "Page moved"],
        &["--json", "show", "Page moved"],
    ] {
        let out = env.cmd().args(args).assert().success();
        let out = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(
            !out.contains("s3cret-pw") && !out.contains("alice"),
            "{args:?}: {out}"
        );
    }
}

/// `providers --test` with no server answering fails, says why per provider, and offers
/// the built-in engine last: in words, and as the `offer` row of `--json`.
#[test]
fn providers_test_with_no_server_fails_and_offers_the_builtin_engine() {
    let port = wikimind_testserver::closed_port();
    let server = TestServer::start();
    let mut env = Env::new(&server);
    env.base_url = format!("http://127.0.0.1:{port}");
    env.cmd()
        .args(["providers", "--test"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "primary: ollama at http://127.0.0.1:{port}"
        )))
        .stdout(predicate::str::contains("  not reachable: "))
        .stdout(predicate::str::contains("no model server is reachable"));
    let out = env
        .cmd()
        .args(["--json", "providers", "--test"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let rows: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(rows[0]["reachable"], false, "{rows}");
    assert!(rows[0]["error"].as_str().unwrap().contains("ollama serve"));
    assert_eq!(rows[1]["role"], "offer", "{rows}");
    assert_eq!(rows[1]["kind"], "builtin", "{rows}");
    assert!(rows[1]["hint"]
        .as_str()
        .unwrap()
        .contains("built-in engine"));
}

/// Ingesting a folder counts what was stored and groups what was skipped by reason.
#[test]
fn ingest_counts_outcomes_and_groups_skipped_entries_by_reason() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note("tea.md", "# Tea\n\nGreen tea is steamed.");
    env.write_note("a.png", "x");
    env.write_note("b.png", "y");
    env.write_note(".hidden.md", "# Hidden");
    let notes = env.notes();
    env.cmd()
        .args(["ingest", notes.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 added, 0 changed, 0 unchanged"))
        .stdout(predicate::str::contains(
            "skipped 3: 2 attachment, 1 hidden",
        ));
    env.cmd()
        .args(["ingest", notes.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 added, 0 changed, 1 unchanged"));
}
