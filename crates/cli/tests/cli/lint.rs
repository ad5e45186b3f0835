//! `wikimind lint` and `wikimind merge` through the real binary: the JSON shape of every
//! finding (pinned: scripts read it), the exit codes, `--check`, `--fix`, `--dismiss`, and
//! a merge the next compile writes.

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

fn keys(item: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = item
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {item}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// The keys every finding has, and those of each check.
const COMMON: &[&str] = &["check", "id", "message", "pages", "severity"];
const SHAPES: &[(&str, &[&str])] = &[
    ("broken_link", &["anchor", "missing", "target"]),
    ("wanted", &["linked_from", "sources", "target"]),
    ("orphan", &["listed", "orphans", "share"]),
    ("stale", &["detail", "reason", "source"]),
    ("ungrounded", &["claim", "on", "quote", "source_ids"]),
    ("duplicate", &["absorbed", "accept", "reason", "survivor"]),
    ("thin", &["claims", "sentences"]),
    (
        "ambiguous_link",
        &["candidates", "notes", "resolved", "source", "target"],
    ),
];
const SUMMARY: &[&str] = &[
    "ambiguous_links",
    "broken_links",
    "checks",
    "dismissed",
    "duplicates",
    "errors",
    "infos",
    "link_resolution",
    "links",
    "orphan_share",
    "orphans",
    "pages",
    "stale",
    "thin",
    "ungrounded",
    "wanted",
    "warnings",
];

fn findings<'a>(report: &'a Value, check: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == check)
        .collect()
}

/// Notes with a wanted page, an acronym beside its expansion, compiled; then the espresso
/// note edited on disk.
fn wiki(server: &TestServer) -> Env {
    let env = Env::new(server);
    env.write_note(
        "a.md",
        "# Espresso\n\nEspresso is brewed under nine bars of pressure. It depends on [[Grind Size]].\n",
    );
    env.write_note(
        "b.md",
        "# LLM\n\nAn LLM predicts the next word of a text.\n",
    );
    env.write_note(
        "c.md",
        "# Large Language Model\n\nA large language model is trained on much text.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().arg("compile").assert().success();
    env.write_note(
        "a.md",
        "# Espresso\n\nEspresso is brewed under nine bars of pressure for thirty seconds.\n",
    );
    env
}

#[test]
fn lint_json_has_one_pinned_shape_per_check_and_exit_codes_follow_fail_on() {
    let server = TestServer::start();
    let env = wiki(&server);

    let report = env.json(&["lint"]);
    assert_eq!(keys(&report), ["findings", "summary"]);
    assert_eq!(keys(&report["summary"]), SUMMARY);
    let all = report["findings"].as_array().unwrap();
    assert!(!all.is_empty());
    for f in all {
        let check = f["check"].as_str().unwrap();
        let (_, own) = SHAPES
            .iter()
            .find(|(name, _)| *name == check)
            .unwrap_or_else(|| panic!("unknown check {check}"));
        let mut expected: Vec<&str> = COMMON.iter().chain(own.iter()).copied().collect();
        expected.sort_unstable();
        assert_eq!(keys(f), expected, "{f}");
        let id = f["id"].as_str().unwrap();
        assert!(
            id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "{id}"
        );
        assert!(["error", "warning", "info"].contains(&f["severity"].as_str().unwrap()));
        assert!(f["pages"].is_array());
    }

    let wanted = findings(&report, "wanted");
    assert_eq!(wanted.len(), 1, "{report:#}");
    assert_eq!(wanted[0]["target"], "Grind Size");
    assert_eq!(wanted[0]["linked_from"], 1);
    assert_eq!(wanted[0]["pages"], serde_json::json!(["Espresso"]));
    assert!(wanted[0]["sources"][0]["origin"]
        .as_str()
        .unwrap()
        .ends_with("a.md"));

    let stale = findings(&report, "stale");
    assert_eq!(stale.len(), 1, "{report:#}");
    assert_eq!(stale[0]["reason"], "changed_on_disk");
    assert_eq!(stale[0]["severity"], "warning");
    assert!(stale[0]["source"]["origin"]
        .as_str()
        .unwrap()
        .ends_with("a.md"));

    let duplicate = findings(&report, "duplicate");
    assert_eq!(duplicate.len(), 1, "{report:#}");
    assert_eq!(duplicate[0]["survivor"], "Large Language Model");
    assert_eq!(duplicate[0]["absorbed"], "LLM");
    assert_eq!(duplicate[0]["reason"], "acronym");
    assert_eq!(
        duplicate[0]["accept"],
        "wikimind merge 'Large Language Model' 'LLM'"
    );
    assert_eq!(report["summary"]["stale"], 1);
    assert_eq!(report["summary"]["pages"], 3);

    // Exit codes: 0 whatever it found; --fail-on makes a finding at or above it exit 1.
    env.cmd().arg("lint").assert().success();
    env.cmd()
        .args(["lint", "--fail-on", "warning"])
        .assert()
        .code(1);
    env.cmd()
        .args(["lint", "--fail-on", "error"])
        .assert()
        .success();
    env.cmd().args(["lint", "--check", "nope"]).assert().code(2);
    env.cmd()
        .args(["lint", "--fail-on", "info"])
        .assert()
        .code(2);

    // --check runs one check; the figures of the others are null.
    let only = env.json(&["lint", "--check", "wanted"]);
    assert!(only["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["check"] == "wanted"));
    assert_eq!(only["summary"]["wanted"], 1);
    assert!(only["summary"]["stale"].is_null());
    assert_eq!(only["summary"]["checks"], serde_json::json!(["wanted"]));

    // --fix reads the edited note again and exits 0; the source now waits for a compile.
    let fixed = env.json(&["lint", "--fix"]);
    assert_eq!(keys(&fixed), ["findings", "fixes", "summary"]);
    let fixes = fixed["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 1, "{fixed:#}");
    assert_eq!(keys(&fixes[0]), ["action", "check", "detail", "id", "ok"]);
    assert_eq!(fixes[0]["action"], "reread");
    assert_eq!(fixes[0]["ok"], true);
    let after = env.json(&["lint", "--check", "stale"]);
    assert_eq!(after["findings"][0]["reason"], "reingested");
    env.cmd().arg("compile").assert().success();
    let compiled = env.json(&["lint", "--check", "stale"]);
    assert_eq!(compiled["findings"], serde_json::json!([]), "{compiled:#}");
}

#[test]
fn health_figures_are_stored_after_each_compile_and_each_full_lint_that_finds_something_new() {
    let server = TestServer::start();
    let env = wiki(&server);
    let trend = env.json(&["lint", "--trend"]);
    let runs = trend.as_array().unwrap();
    assert_eq!(runs.len(), 1, "the compile stored one: {trend:#}");
    assert_eq!(
        keys(&runs[0]),
        [
            "at",
            "broken_links",
            "duplicates",
            "link_resolution",
            "links",
            "orphan_share",
            "pages",
            "stale",
            "thin",
            "trigger",
            "ungrounded",
            "wanted"
        ]
    );
    assert_eq!(runs[0]["trigger"], "compile");
    assert_eq!(runs[0]["pages"], 3);
    assert_eq!(runs[0]["wanted"], 1);
    assert_eq!(runs[0]["stale"], 0, "the note was edited after the compile");
    // A run of one check is partial: not stored. A full one is.
    env.cmd()
        .args(["lint", "--check", "wanted"])
        .assert()
        .success();
    assert_eq!(env.json(&["lint", "--trend"]).as_array().unwrap().len(), 1);
    env.cmd().arg("lint").assert().success();
    let trend = env.json(&["lint", "--trend"]);
    let runs = trend.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["trigger"], "lint");
    assert_eq!(runs[1]["stale"], 1);
    assert!(runs[0]["at"].as_str() <= runs[1]["at"].as_str());
    // The same lint again finds the same figures: no second point for them.
    env.cmd().arg("lint").assert().success();
    assert_eq!(env.json(&["lint", "--trend"]).as_array().unwrap().len(), 2);
    env.cmd()
        .args(["lint", "--trend", "--fix"])
        .assert()
        .code(2);
}

#[test]
fn a_dismissed_merge_is_not_proposed_again_and_merge_queues_the_page() {
    let server = TestServer::start();
    let env = wiki(&server);
    let report = env.json(&["lint", "--check", "duplicate"]);
    let id = report["findings"][0]["id"].as_str().unwrap().to_owned();

    let dismissed = env.json(&["lint", "--dismiss", &id]);
    assert_eq!(dismissed["dismissed"]["id"], id.as_str());
    let again = env.json(&["lint", "--check", "duplicate"]);
    assert_eq!(again["findings"], serde_json::json!([]));
    assert_eq!(again["summary"]["dismissed"], 1);
    // A recompile makes the digests again: still dismissed.
    env.cmd().args(["compile", "--force"]).assert().success();
    let again = env.json(&["lint", "--check", "duplicate"]);
    assert_eq!(again["findings"], serde_json::json!([]), "{again:#}");
    // An id no finding has is a usage error.
    env.cmd()
        .args(["lint", "--dismiss", "0123456789abcdef"])
        .assert()
        .code(2);

    // Merging anyway: B into A, queued for the next compile.
    let merged = env.json(&["merge", "Large Language Model", "LLM"]);
    assert_eq!(merged["outcome"], "merged");
    assert_eq!(merged["survivor"], "Large Language Model");
    assert_eq!(merged["absorbed"], "LLM");
    assert!(merged["job"].is_i64(), "{merged}");
    let shown = env.json(&["show", "LLM"]);
    assert_eq!(shown["title"], "Large Language Model");
    let out = env.human(&["compile"]);
    assert!(
        out.contains("page \"Large Language Model\": written from 2 sources"),
        "{out}"
    );
    env.cmd()
        .args(["merge", "Large Language Model", "Nothing Here"])
        .assert()
        .code(1);
}

/// `wikimind want`: a wanted name becomes a page written from the one source that mentions
/// it (a person's request, below `pages.min_sources`), which the next compile writes; a
/// name no source mentions exits 1.
#[test]
fn want_asks_for_a_wanted_page_and_the_next_compile_writes_it() {
    let server = TestServer::start();
    let env = wiki(&server);
    let before = env.json(&["lint", "--check", "wanted"]);
    assert_eq!(findings(&before, "wanted")[0]["target"], "Grind Size");

    let asked = env.json(&["want", "grind size"]);
    assert_eq!(asked["outcome"], "asked");
    assert_eq!(asked["sources"], 1);
    assert!(asked["job"].is_i64(), "{asked}");
    assert!(asked["page"].is_i64(), "{asked}");
    let out = env.human(&["compile"]);
    assert!(out.contains("page \"Grind Size\""), "{out}");
    let shown = env.json(&["show", "Grind Size"]);
    assert_eq!(shown["title"], "Grind Size");
    let after = env.json(&["lint", "--check", "wanted"]);
    assert!(findings(&after, "wanted").is_empty(), "{after:#}");

    let again = env.json(&["want", "Grind Size"]);
    assert_eq!(again["outcome"], "exists");
    env.cmd()
        .args(["want", "Nothing Mentions This"])
        .assert()
        .code(1);
}
