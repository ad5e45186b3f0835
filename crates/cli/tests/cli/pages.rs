//! Pages through the real binary: one page per topic whatever the spelling of its notes,
//! found by any of its names; a source's digest; history and restore; search, wanted pages
//! and export over pages.

use predicates::prelude::*;
use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

/// What the tests of this file do with an [`Env`] more than once.
trait PagesEnv {
    fn compile(&self);
    fn three_espresso_notes(&self);
}

impl PagesEnv for Env {
    /// Ingests the notes folder and compiles everything.
    fn compile(&self) {
        self.cmd()
            .args(["ingest", self.notes().to_str().unwrap()])
            .assert()
            .success();
        self.cmd().arg("compile").assert().success();
    }

    /// Three notes on one topic, headed `Espresso`, `espresso` and `Espressos`, compiled
    /// (`Espresso` first).
    fn three_espresso_notes(&self) {
        self.write_note(
            "a.md",
            "# Espresso\n\nEspresso is brewed under nine bars of pressure. It depends on [[Grind Size]].\n",
        );
        self.write_note(
            "b.md",
            "# espresso\n\nA shot of espresso takes about thirty seconds.\n",
        );
        self.write_note(
            "c.md",
            "# Espressos\n\nEspressos are served in small cups. A [[Flat White]] starts with one.\n",
        );
        // `Espresso` first, so its spelling is the oldest; the other two in any order.
        self.cmd()
            .args(["ingest", self.notes().to_str().unwrap()])
            .assert()
            .success();
        self.cmd()
            .args(["compile", &self.note_path("a.md")])
            .assert()
            .success();
        self.cmd().arg("compile").assert().success();
    }
}

fn keys(item: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = item
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn three_spellings_of_a_topic_make_one_page_fed_by_three_sources() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.three_espresso_notes();

    let list = env.json(&["list"]);
    let pages = list.as_array().unwrap();
    assert_eq!(pages.len(), 1, "one page, not three: {list}");
    let page = &pages[0];
    assert_eq!(page["title"], "Espresso", "the oldest digest's spelling");
    assert_eq!(page["kind"], "topic");
    assert_eq!(page["source_count"], 3);
    assert!(page["id"].is_number());
    assert!(
        page.get("source_id").is_none(),
        "a page has many sources: {page}"
    );

    let shown = env.json(&["show", "espressos"]);
    assert_eq!(shown["id"], page["id"]);
    assert_eq!(shown["kind"], "topic");
    let mut aliases: Vec<&str> = shown["aliases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    aliases.sort_unstable();
    assert_eq!(aliases, ["Espressos", "espresso"]);
    for key in [
        "id",
        "title",
        "summary",
        "key_claims",
        "concepts",
        "open_questions",
        "links",
        "backlinks",
        "article_body",
        "sources",
        "truncated",
    ] {
        assert!(shown.get(key).is_some(), "show --json keeps {key}: {shown}");
    }
    let sources = shown["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 3);
    let mut digest_titles: Vec<&str> = sources
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(digest_titles[0], "Espresso", "oldest digest first");
    digest_titles.sort_unstable();
    assert_eq!(digest_titles, ["Espresso", "Espressos", "espresso"]);
    for source in sources {
        for key in [
            "source_id",
            "origin",
            "compiled_at",
            "provider",
            "model",
            "final_url",
        ] {
            assert!(
                source.get(key).is_some(),
                "sources item keeps {key}: {source}"
            );
        }
        assert_eq!(source["provider"], "ollama");
    }
    let claim = &shown["key_claims"][0];
    assert_eq!(claim["grounded"], true, "{claim}");
    assert_eq!(
        claim["source_ids"],
        serde_json::json!([sources[0]["source_id"]]),
        "a grounded claim names the source holding its quote"
    );

    let listed = env.json(&["sources"]);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 3);
    for source in listed {
        assert_eq!(source["pages"], serde_json::json!(["Espresso"]), "{source}");
        assert!(source.get("article_id").is_none(), "{source}");
        assert!(source.get("article_title").is_none(), "{source}");
    }

    // People see the count and every source; `compile` wrote the page from all three.
    let human_list = env.human(&["list"]);
    assert!(human_list.contains("3 sources"), "{human_list}");
    assert!(!human_list.contains("to rewrite"), "{human_list}");
    assert!(human_list.contains("1 page from 3 sources"), "{human_list}");
    let human_show = env.human(&["show", "ESPRESSO"]);
    assert!(!human_show.contains("will be rewritten"), "{human_show}");
    assert!(human_show.contains("Also called: "), "{human_show}");
    assert!(human_show.contains("## Sources (3)"), "{human_show}");
    assert_eq!(human_show.matches("Source: ").count(), 3, "{human_show}");
    let human_sources = env.human(&["sources"]);
    assert_eq!(
        human_sources.matches("  → Espresso\n").count(),
        3,
        "{human_sources}"
    );
}

#[test]
fn show_names_a_page_by_id_and_a_source_by_its_digest() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.three_espresso_notes();
    let page = env.json(&["show", "Espresso"]);
    let id = page["id"].to_string();

    assert_eq!(env.json(&["show", "--id", &id]), page);
    assert_eq!(env.json(&["show", &id]), page, "an id still names a page");

    let digest = env.json(&["show", "--source", &env.note_path("c.md")]);
    assert_eq!(digest["kind"], "digest");
    assert_eq!(
        digest["title"], "Espressos",
        "the digest keeps its own spelling"
    );
    assert!(digest["summary"].as_str().unwrap().contains("small cups"));
    assert_eq!(digest["pages"][0]["title"], "Espresso");
    assert_eq!(digest["pages"][0]["id"], page["id"]);
    let flat = digest["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["target"] == "Flat White")
        .unwrap();
    assert!(flat["page_id"].is_null(), "no page for it yet: {flat}");
    let human = env.human(&["show", "--source", &env.note_path("b.md")]);
    assert!(human.contains("(digest of source #"), "{human}");
    assert!(human.contains("## Feeds\n- Espresso\n"), "{human}");

    env.cmd()
        .args(["show", "--id", "9999"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no page has the id 9999"));
    env.cmd()
        .args(["show", "--source", "nothing-here"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no source matches"));
    env.cmd()
        .args(["show", "Espresso", "--id", &id])
        .assert()
        .code(2);
}

#[test]
fn history_lists_versions_and_restore_brings_one_back_as_yours() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note(
        "a.md",
        "# Alpha\n\nThe first version says one thing clearly.\n",
    );
    env.compile();
    env.write_note(
        "a.md",
        "# Alpha\n\nThe second version says another thing entirely.\n",
    );
    env.compile();

    let history = env.json(&["history", "alpha"]);
    let versions = history.as_array().unwrap();
    assert_eq!(versions.len(), 2, "{history}");
    assert_eq!(versions[0]["version"], 1);
    assert_eq!(versions[1]["version"], 2);
    assert_eq!(versions[1]["author_kind"], "model");
    assert!(
        versions[1]["author"]
            .as_str()
            .unwrap()
            .starts_with("ollama:"),
        "{history}"
    );
    assert!(versions[0]["created_at"].is_string());

    let restored = env.json(&["restore", "Alpha", "1"]);
    assert_eq!(restored["version"], 3);
    assert_eq!(restored["restored_from"], 1);
    let shown = env.json(&["show", "Alpha"]);
    assert!(
        shown["summary"].as_str().unwrap().contains("first version"),
        "{shown}"
    );
    let human = env.human(&["history", "Alpha"]);
    assert!(human.contains("you (restored version 1)"), "{human}");
    assert_eq!(human.lines().count(), 3, "{human}");
    let said = env.human(&["restore", "Alpha", "2"]);
    assert_eq!(said, "restored version 2 of \"Alpha\" as version 4\n");

    env.cmd()
        .args(["history", "Nothing"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no page titled \"Nothing\""));
    env.cmd()
        .args(["restore", "Alpha", "9"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("has no version 9"));
    env.cmd()
        .args(["restore", "Nothing", "1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no page titled"));
}

#[test]
fn search_and_wanted_pages_are_over_pages() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.three_espresso_notes();

    let hits = env.json(&["search", "pressure"]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1, "one page, not one hit per digest: {hits:?}");
    assert_eq!(hits[0]["title"], "Espresso");
    assert_eq!(keys(&hits[0]), ["page_id", "snippet", "title"]);
    let by_alias = env.json(&["search", "espressos"]);
    assert_eq!(by_alias[0]["title"], "Espresso", "{by_alias}");
    assert_eq!(by_alias.as_array().unwrap().len(), 1);
    env.cmd()
        .args(["search", "zzzz"])
        .assert()
        .success()
        .stdout("no page matches\n");

    // The page is written from all three digests: the links of each are its links, and
    // wanted.
    let human = env.human(&["list"]);
    assert!(
        human.contains("Wanted: Flat White (1), Grind Size (1)"),
        "{human}"
    );
    assert!(human.contains("; 2 wanted pages"), "{human}");

    env.write_note(
        "grind.md",
        "# Grind Size\n\nA finer grind slows the flow of water. See [[espressos]].\n",
    );
    env.compile();
    let human = env.human(&["list"]);
    assert!(human.contains("Wanted: Flat White (1)\n"), "{human}");
    let grind = env.json(&["show", "Grind Size"]);
    assert_eq!(grind["links"][0]["target"], "espressos");
    let espresso = env.json(&["show", "Espresso"]);
    assert_eq!(
        grind["links"][0]["page_id"], espresso["id"],
        "a link through another spelling resolves"
    );
    assert_eq!(espresso["backlinks"][0]["title"], "Grind Size");
    env.cmd()
        .args(["show", "Grind Size", "--html"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "href=\"wikimind://article/{}\"",
            espresso["id"]
        )));
}

#[test]
fn export_writes_one_file_per_page_and_the_digests_in_sources() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.three_espresso_notes();
    let out = env.dir.path().join("export");
    let report = env.json(&["export", out.to_str().unwrap()]);
    assert_eq!(report["files"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["digests"].as_array().unwrap().len(), 3, "{report}");

    let page = std::fs::read_to_string(out.join("Espresso.md")).unwrap();
    assert!(
        page.contains("aliases:\n  - \"Espressos\"\n  - \"espresso\"\n"),
        "{page}"
    );
    assert!(page.contains("sources:\n  - \""), "{page}");
    assert_eq!(page.matches("notes/").count(), 3, "{page}");
    assert!(
        page.contains("## Sources\n\n- [Espresso](<sources/Espresso.md>)\n"),
        "{page}"
    );
    let mut digests: Vec<String> = std::fs::read_dir(out.join("sources"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    digests.sort_unstable();
    assert_eq!(
        digests,
        ["Espresso.md", "Espressos.md", "espresso (2).md"],
        "digest titles repeat under case folding, so names are made unique"
    );
    env.cmd()
        .args(["export", out.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote 1 page(s) and 3 digest(s)"));
}

/// The corpus of `tests/data/topics`: 34 notes on 9 topics under varied headings and
/// spellings, compiled through the stand-in server, make one page per topic, with every
/// note feeding its topic's page, every sourced claim naming the source that holds it, and
/// the notes' links resolving to pages (all but the one that names no topic).
#[test]
fn a_corpus_of_overlapping_notes_makes_one_page_per_topic() {
    let server = TestServer::start();
    let env = Env::new(&server);
    // A copy, so one note can change.
    let corpus = env.notes();
    let original =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/topics/notes");
    std::fs::create_dir_all(&corpus).unwrap();
    for entry in std::fs::read_dir(&original).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, corpus.join(path.file_name().unwrap())).unwrap();
    }
    let added = env.json(&["ingest", corpus.to_str().unwrap()]);
    assert_eq!(added["sources"].as_array().unwrap().len(), 34, "{added}");
    env.cmd().arg("compile").assert().success();

    let pages = env.json(&["list"]);
    let pages = pages.as_array().unwrap();
    let mut titles: Vec<String> = pages
        .iter()
        .map(|p| {
            p["title"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .replace('-', " ")
        })
        .collect();
    titles.sort();
    assert_eq!(
        titles.len(),
        9,
        "one page per topic, no duplicates: {titles:?}"
    );
    for topic in [
        "cold brew",
        "crema",
        "espresso",
        "grind size",
        "milk foam",
        "pour over",
        "roasting",
        "tamping",
        "water temperature",
    ] {
        assert!(
            titles.iter().any(|t| t.trim_end_matches('s') == topic),
            "{topic} in {titles:?}"
        );
    }
    let fed: u64 = pages
        .iter()
        .map(|p| p["source_count"].as_u64().unwrap())
        .sum();
    // Every note feeds its topic's page, and the page of each topic it links to.
    assert!(fed > 34, "{fed}");
    for source in env.json(&["sources"]).as_array().unwrap() {
        assert!(!source["pages"].as_array().unwrap().is_empty(), "{source}");
    }
    assert!(pages
        .iter()
        .all(|p| p["source_count"].as_u64().unwrap() >= 3));

    // Every sourced claim names the source whose text holds its quote.
    for page in pages {
        let shown = env.json(&["show", "--id", &page["id"].to_string()]);
        let sources: Vec<&Value> = shown["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["source_id"])
            .collect();
        for claim in shown["key_claims"].as_array().unwrap() {
            if claim["confidence"] == "sourced" {
                let holders = claim["source_ids"].as_array().unwrap();
                assert!(!holders.is_empty(), "{claim}");
                assert!(holders.iter().all(|h| sources.contains(&h)), "{claim}");
            }
        }
    }

    // Each note's links, as its digest holds them, resolve to pages.
    let (mut links, mut resolved, mut wanted) = (0, 0, Vec::new());
    for source in env.json(&["sources"]).as_array().unwrap() {
        let digest = env.json(&["show", "--source", &source["id"].to_string()]);
        for link in digest["links"].as_array().unwrap() {
            links += 1;
            if link["page_id"].is_null() {
                wanted.push(link["target"].as_str().unwrap().to_string());
            } else {
                resolved += 1;
            }
        }
    }
    assert_eq!(links, 36);
    assert!(
        resolved * 100 >= links * 95,
        "{resolved} of {links}; wanted: {wanted:?}"
    );
    assert_eq!(wanted, ["fines"]);

    // Every page was written from all its sources by the compile, in at most two calls
    // per page that changed (a page of up to 11 sources at the default context: one call
    // carries the digests that fit, and a page holds 6 claims), and few pages are orphans
    // (no other page links to them).
    let page_calls = |server: &TestServer| {
        server
            .chat_requests()
            .iter()
            .filter(|r| r.first_user_message().starts_with("Topic: "))
            .count()
    };
    let pages = env.json(&["list"]);
    let pages = pages.as_array().unwrap();
    assert!(pages.iter().all(|p| p["stale"] == false), "{pages:?}");
    assert!(page_calls(&server) <= 2 * pages.len());
    let orphans: Vec<&str> = pages
        .iter()
        .filter(|p| {
            let shown = env.json(&["show", "--id", &p["id"].to_string()]);
            shown["backlinks"].as_array().unwrap().is_empty()
        })
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert!(orphans.len() * 10 <= pages.len(), "orphans: {orphans:?}");

    // Recompiling one changed note rewrites only the pages it feeds: one compile call, at
    // most one page call per page it feeds.
    let (compiles, pages_before) = (server.chat_requests().len(), page_calls(&server));
    let note = corpus.join("29-crema.md");
    let text = std::fs::read_to_string(&note).unwrap();
    std::fs::write(
        &note,
        text.replacen(
            "\n\n",
            "\n\nCrema thins out within two minutes of brewing.\n\n",
            1,
        ),
    )
    .unwrap();
    env.json(&["ingest", note.to_str().unwrap()]);
    env.cmd().arg("compile").assert().success();
    let feeds = env
        .json(&["sources"])
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["origin"].as_str().unwrap().ends_with("29-crema.md"))
        .map(|s| s["pages"].as_array().unwrap().len())
        .unwrap();
    let page_calls_now = page_calls(&server) - pages_before;
    assert_eq!(
        server.chat_requests().len() - compiles - page_calls_now,
        1,
        "one compile call"
    );
    assert!(
        (1..=feeds).contains(&page_calls_now),
        "{page_calls_now} page calls for a note feeding {feeds} pages"
    );
}
