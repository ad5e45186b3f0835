//! A hub: a page that many sources feed is written in calls bounded by the model's context,
//! never flagged for being popular, and lists every source with its summary; one more
//! source costs one call, not one per source.

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

/// How many notes name the hub's concept.
const NOTES: usize = 120;

/// Note `i`: its own topic (`Grinder i`), naming the concept `espresso` in every sentence
/// in words no other note uses.
fn note(i: usize) -> String {
    format!(
        "# Grinder {i}\n\nGrinder {i} pulls **espresso** at {} bars on dial {i}.\n\n\
         The burrs of grinder {i} are set to step {} for **espresso**.\n\n\
         Grinder {i} holds {} grams of beans for **espresso**.\n",
        6 + i % 5,
        i * 3,
        100 + i
    )
}

/// The page report of the hub in a `compile --json` list.
fn hub_report(reports: &Value) -> &Value {
    reports
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["kind"] == "page"
                && r["title"]
                    .as_str()
                    .unwrap()
                    .eq_ignore_ascii_case("espresso")
        })
        .unwrap_or_else(|| panic!("no page job for the hub: {reports}"))
}

/// The page calls `server` answered for the hub, each checked to fit the default
/// 8,192-token context with its answer budget (three characters a token, as WikiMind
/// counts).
fn hub_calls(server: &TestServer) -> usize {
    let calls: Vec<_> = server
        .chat_requests()
        .into_iter()
        .filter(|r| r.first_user_message().starts_with("Topic: espresso"))
        .collect();
    for call in &calls {
        let sent: usize = call.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["content"].as_str())
            .map(str::len)
            .sum();
        let budget = call.body["options"]["num_predict"].as_u64().unwrap_or(0) as usize;
        assert!(
            sent.div_ceil(3) + budget <= 8_192,
            "a page call of {sent} characters and {budget} tokens"
        );
    }
    calls.len()
}

#[test]
fn a_hub_of_120_notes_is_written_in_bounded_calls_and_lists_every_source() {
    let server = TestServer::start();
    let env = Env::new(&server);
    for i in 1..=NOTES {
        env.write_note(&format!("grinder-{i:03}.md"), &note(i));
    }
    let added = env.json(&["ingest", env.notes().to_str().unwrap()]);
    assert_eq!(added["sources"].as_array().unwrap().len(), NOTES);

    // `json` asserts the run exits 0: no page is flagged or failed.
    let reports = env.json(&["compile"]);
    let hub = hub_report(&reports);
    assert_eq!(hub["outcome"], "written", "{hub}");
    assert_eq!(hub["ok"], true, "{hub}");
    assert_eq!(hub["sources"], NOTES, "{hub}");
    let calls = hub["calls"].as_u64().unwrap();
    let (tokens_in, tokens_out) = (
        hub["tokens_in"].as_u64().unwrap(),
        hub["tokens_out"].as_u64().unwrap(),
    );
    eprintln!(
        "hub of {NOTES}: {calls} calls, {tokens_in} tokens in, {tokens_out} out, {} listed",
        hub["listed"]
    );
    assert_eq!(
        calls as usize,
        hub_calls(&server),
        "every page call is reported"
    );
    // A page at the default context holds a handful of claims: a few calls, not 120.
    assert!((1..=10).contains(&calls), "{hub}");
    assert!(tokens_in > 0 && tokens_out > 0, "{hub}");
    assert!(hub["listed"].as_u64().unwrap() > 100, "{hub}");

    let page = env.json(&["show", "espresso"]);
    assert!(page["flagged"].is_null(), "{}", page["flagged"]);
    assert!(page["stale_reason"].is_null(), "{}", page["stale_reason"]);
    let sources = page["sources"].as_array().unwrap();
    assert_eq!(sources.len(), NOTES, "every source is listed on the page");
    for source in sources {
        assert!(
            source["summary"].as_str().unwrap().contains("espresso"),
            "{source}"
        );
    }
    let claims = page["key_claims"].as_array().unwrap();
    assert!(!claims.is_empty() && claims.len() <= 13, "{}", claims.len());
    // A source no claim quotes is still reachable: its digest, and the hub among its pages.
    let quoted: Vec<&Value> = claims
        .iter()
        .flat_map(|c| c["source_ids"].as_array().unwrap())
        .collect();
    let unquoted: Vec<&Value> = sources
        .iter()
        .map(|s| &s["source_id"])
        .filter(|id| !quoted.contains(id))
        .collect();
    assert!(unquoted.len() > 100, "{}", unquoted.len());
    for id in [unquoted[0], unquoted[unquoted.len() - 1]] {
        let digest = env.json(&["show", "--source", &id.to_string()]);
        assert!(
            digest["pages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["title"]
                    .as_str()
                    .unwrap()
                    .eq_ignore_ascii_case("espresso")),
            "{digest}"
        );
    }
    // The reading view lists every source with its one-line summary.
    let shown = env.human(&["show", "espresso"]);
    assert!(shown.contains(&format!("## Sources ({NOTES})")), "{shown}");
    assert!(
        shown.contains("\"Grinder 120\": Grinder 120 pulls **espresso** at"),
        "{shown}"
    );

    // One more note: one page call, however many sources the hub has.
    let before = hub_calls(&server);
    env.write_note("grinder-121.md", &note(121));
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    let reports = env.json(&["compile"]);
    let hub = hub_report(&reports);
    assert_eq!(hub["outcome"], "written", "{hub}");
    assert_eq!(
        (hub["sources"].as_u64(), hub["changed"].as_u64()),
        (Some(121), Some(1))
    );
    assert_eq!(hub["calls"], 1, "{hub}");
    assert_eq!(hub_calls(&server) - before, 1);
    eprintln!(
        "one more note: {} call, {} tokens in, {} out",
        hub["calls"], hub["tokens_in"], hub["tokens_out"]
    );
    let page = env.json(&["show", "espresso"]);
    assert_eq!(page["sources"].as_array().unwrap().len(), NOTES + 1);
    assert!(page["flagged"].is_null() && page["stale_reason"].is_null());
    // The new note is on the page: the full page let go of an old claim for it.
    let new_id = page["sources"].as_array().unwrap().last().unwrap()["source_id"].clone();
    assert!(
        page["key_claims"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["source_ids"].as_array().unwrap().contains(&new_id)),
        "{}",
        page["key_claims"]
    );

    // Ten more at once: the page holds a handful of claims, so a few are written in, in
    // a call or two, and the rest are listed; the run's human output says so.
    let before = hub_calls(&server);
    for i in 122..=131 {
        env.write_note(&format!("grinder-{i:03}.md"), &note(i));
    }
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    let out = env.human(&["compile"]);
    let line = out
        .lines()
        .find(|l| l.starts_with("page \"espresso\""))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.starts_with("page \"espresso\": written from 131 sources (v")
            && line.ends_with(" only listed)"),
        "{line}"
    );
    let calls = hub_calls(&server) - before;
    eprintln!("ten more notes: {line}");
    assert!(
        (1..=3).contains(&calls),
        "{calls} calls for ten notes: {line}"
    );
    assert!(line.contains(&format!("{calls} call")), "{line}");
    let page = env.json(&["show", "espresso"]);
    assert_eq!(page["sources"].as_array().unwrap().len(), 131);
    assert!(page["flagged"].is_null() && page["stale_reason"].is_null());
}

/// Note `i` of a large hub: three sentences about `espresso`, each a claim of its own.
fn rich_note(i: usize) -> String {
    format!(
        "# Roaster {i}\n\nRoaster {i} roasts beans for **espresso** in batch {i}.\n\n\
         The drum of roaster {i} turns {} times a minute for **espresso**.\n\n\
         Roaster {i} cools each **espresso** batch in {} seconds.\n",
        40 + i % 7,
        200 + i
    )
}

#[test]
fn a_full_hub_of_150_sources_is_written_and_never_flagged_for_being_full() {
    // A context large enough that the page holds the most claims a page may hold (50).
    let server = TestServer::builder()
        .models(["qwen2.5:3b"])
        .context_length(32_768)
        .start();
    let env = Env::new(&server);
    for i in 1..=150 {
        env.write_note(&format!("roaster-{i:03}.md"), &rich_note(i));
    }
    env.json(&["ingest", env.notes().to_str().unwrap()]);
    // `json` asserts the run exits 0: no page is flagged or failed.
    let reports = env.json(&["compile"]);
    let hub = hub_report(&reports);
    assert_eq!(hub["outcome"], "written", "{hub}");
    assert_eq!(hub["sources"], 150, "{hub}");
    let page = env.json(&["show", "espresso"]);
    assert!(page["flagged"].is_null(), "{}", page["flagged"]);
    let claims = page["key_claims"].as_array().unwrap().len();
    assert_eq!(claims, 50, "the page is full: {claims} claims");

    // Every call is bounded: the schema each page call sends says the page's room.
    let calls: Vec<_> = server
        .chat_requests()
        .into_iter()
        .filter(|r| r.first_user_message().starts_with("Topic: espresso"))
        .collect();
    assert!(!calls.is_empty());
    for call in &calls {
        let format = &call.body["format"];
        assert_eq!(
            format["properties"]["key_claims"]["maxItems"], 50,
            "{format}"
        );
        assert!(
            format["properties"]["article_body"]["maxLength"]
                .as_u64()
                .is_some_and(|n| n > 0),
            "{format}"
        );
    }

    // Twelve more sources, each with claims of its own: the full page lets its least
    // supported claims go for them, and says which left and why.
    for i in 151..=162 {
        env.write_note(&format!("roaster-{i:03}.md"), &rich_note(i));
    }
    env.json(&["ingest", env.notes().to_str().unwrap()]);
    let reports = env.json(&["compile"]);
    let hub = hub_report(&reports);
    assert_eq!(hub["outcome"], "written", "{hub}");
    let left = hub["claims_left"]
        .as_array()
        .expect("claims left the full page");
    assert!(!left.is_empty() && left.len() <= 12, "{hub}");
    for claim in left {
        assert!(claim["why"].as_str().unwrap().contains("full"), "{claim}");
    }
    let page = env.json(&["show", "espresso"]);
    assert!(page["flagged"].is_null(), "{}", page["flagged"]);
    let claims = page["key_claims"].as_array().unwrap();
    assert_eq!(claims.len(), 50);
    let sources = page["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 162);
    // The page's history says which claims left and why.
    let history = env.json(&["history", "espresso"]);
    let last = history.as_array().unwrap().last().unwrap();
    let recorded = last["claims_left"]
        .as_array()
        .expect("claims left recorded");
    assert_eq!(recorded.len(), left.len(), "{last}");
    assert!(
        recorded[0]["why"].as_str().unwrap().contains("full"),
        "{last}"
    );
    let shown = env.human(&["history", "espresso"]);
    assert!(shown.contains("left: \""), "{shown}");
    let newest = sources.last().unwrap()["source_id"].clone();
    assert!(
        claims
            .iter()
            .any(|c| c["source_ids"].as_array().unwrap().contains(&newest)),
        "a new source is written in"
    );
}
