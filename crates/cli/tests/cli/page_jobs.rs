//! `wikimind compile` writes the pages its sources changed, after the sources, and says so:
//! a line per page, the pages in the summary, page reports in `--json`, and the exit code.

use serde_json::Value;
use wikimind_testserver::{canned, Reply, TestServer};

use crate::common::Env;

/// Two notes on one topic: compiled, their digests feed one page that must be written.
fn two_tea_notes(env: &Env) {
    env.write_note(
        "green.md",
        "# Tea\n\nGreen tea is steamed or pan-fired soon after picking.\n",
    );
    env.write_note(
        "black.md",
        "# Tea\n\nBlack tea leaves are fully oxidised before drying.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
}

/// A server that compiles sources as the canned answer does and answers every page prompt
/// ([`canned::is_page_prompt`]) with prose no engine can read.
fn server_failing_pages() -> TestServer {
    TestServer::builder()
        .responder(|req| {
            let message = req.first_user_message();
            Some(Reply::text(if canned::is_page_prompt(&message) {
                "I would rather not write this page.".to_owned()
            } else {
                canned::compilation_answer(&message)
            }))
        })
        .start()
}

/// Needs the page writer (`Compiler::write_page`) and the test server's answer to page
/// prompts: with them the page is written from both digests and the run succeeds.
#[test]
fn compiling_two_notes_on_one_topic_writes_its_page_and_says_so() {
    let server = TestServer::start();
    let env = Env::new(&server);
    two_tea_notes(&env);
    let out = env.cmd().arg("compile").assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    let page_lines: Vec<&&str> = lines.iter().filter(|l| l.starts_with("page ")).collect();
    assert_eq!(page_lines.len(), 1, "{stdout}");
    assert!(
        page_lines[0].starts_with("page \"Tea\": written from 2 sources (v"),
        "{stdout}"
    );
    let summary = lines.last().copied().unwrap_or_default();
    assert_eq!(
        summary, "2 compiled, 0 failed; pages: 1 written, 0 unchanged, 0 failed",
        "{stdout}"
    );
    let tea = env.json(&["show", "Tea"]);
    assert_eq!(tea["stale_reason"], Value::Null, "{tea}");
    assert_eq!(tea["sources"].as_array().unwrap().len(), 2);
}

#[test]
fn a_page_that_cannot_be_written_is_reported_and_fails_the_run() {
    let server = server_failing_pages();
    let env = Env::new(&server);
    two_tea_notes(&env);
    let out = env.cmd().arg("compile").assert().code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("compiled  #"))
            .count(),
        2,
        "the sources compiled first: {stdout}"
    );
    let page_line = lines
        .iter()
        .find(|l| l.starts_with("page "))
        .unwrap_or_else(|| panic!("a line for the page: {stdout}"));
    assert!(page_line.starts_with("page \"Tea\": failed: "), "{stdout}");
    assert_eq!(
        lines.last().copied().unwrap_or_default(),
        "2 compiled, 0 failed; pages: 0 written, 0 unchanged, 1 failed"
    );
    let tea = env.json(&["show", "Tea"]);
    assert!(tea["stale_reason"].is_string(), "still waiting: {tea}");

    // Nothing changed since: the next run has nothing to do and asks no model.
    let asked = server.chat_requests().len();
    let again = env.cmd().arg("compile").assert().success();
    let stderr = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(stderr.contains("nothing to compile"), "{stderr}");
    assert_eq!(server.chat_requests().len(), asked);
}

#[test]
fn compile_json_lists_the_sources_then_the_pages_each_with_its_kind() {
    let server = server_failing_pages();
    let env = Env::new(&server);
    two_tea_notes(&env);
    let out = env
        .cmd()
        .args(["--json", "compile"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let reports: Value = serde_json::from_slice(&out).unwrap();
    let list = reports.as_array().unwrap();
    assert_eq!(list.len(), 3, "{reports}");
    for source in &list[..2] {
        // A source's report as scripts read it before pages, with its kind.
        assert_eq!(source["kind"], "source", "{source}");
        assert_eq!(source["ok"], true);
        assert!(source["source_id"].is_number());
        assert!(source["article_id"].is_number());
    }
    let page = &list[2];
    assert_eq!(page["kind"], "page", "{page}");
    assert_eq!(page["title"], "Tea");
    assert!(page["page_id"].is_number());
    assert_eq!(page["ok"], false);
    assert_eq!(page["outcome"], "failed");
    assert!(page["reason"].as_str().is_some_and(|r| !r.is_empty()));
    assert_eq!(page.get("source_id"), None, "a page has many sources");
}
