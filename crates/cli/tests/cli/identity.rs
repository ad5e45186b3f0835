//! A note is itself: forty notes that share a file name, one in each of forty folders,
//! ingested as a folder and compiled through the stand-in model. No note is merged with
//! another it only shares a file name with; each goes by the shortest folder path that
//! tells it apart (or by an alias of its own); links written as a path, and bare links to
//! the shared name, lead to the page of the note they name; `show` of the shared name lists
//! the notes and exits 2; `lint` lists each bare link to it as `ambiguous_link`; an export
//! writes each note's page in its folder and ingesting it gives the same titles back.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

const NOTES: usize = 40;

/// The folder of note `n` (1-based).
fn folder(n: usize) -> String {
    format!("Module{n:02}")
}

/// Every fifth note declares an alias of its own.
fn alias(n: usize) -> Option<String> {
    n.is_multiple_of(5).then(|| format!("Builder {}", n * 7))
}

fn write_vault(env: &Env) {
    for n in 1..=NOTES {
        let front = alias(n)
            .map(|a| format!("---\naliases: [{a}]\n---\n"))
            .unwrap_or_default();
        env.write_note(
            &format!("{}/constructor.md", folder(n)),
            &format!(
                "{front}The module {n} constructor makes a value of kind {n}.\n\n\
                 It checks input number {n} before it builds anything.\n"
            ),
        );
    }
    env.write_note(
        "Index.md",
        "# Index\n\nStart at [[Module03/constructor]] and read \
         [the seventh](Module07/constructor.md).\n\nEvery build calls [[constructor]] first.\n",
    );
    env.write_note(
        "Module09/usage.md",
        "# Usage of module nine\n\nCall [[constructor]] before anything else.\n\n\
         Compare [[Module12/constructor|the twelfth]] and [its twin](../Module13/constructor.md).\n",
    );
}

/// Page titles to ids.
fn pages(env: &Env) -> BTreeMap<String, i64> {
    env.json(&["list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["title"].as_str().unwrap().to_owned(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The title note `n` goes by.
fn title(n: usize) -> String {
    alias(n).unwrap_or_else(|| format!("{}/constructor", folder(n)))
}

/// The page ids `page` links to, by link target.
fn links_of(env: &Env, page: &str) -> BTreeMap<String, Option<i64>> {
    env.json(&["show", page])["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_owned(),
                l["page_id"].as_i64(),
            )
        })
        .collect()
}

#[test]
fn forty_notes_sharing_a_file_name_are_forty_pages_and_links_find_each() {
    let server = TestServer::builder().start();
    let env = Env::new(&server);
    write_vault(&env);
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();

    // Each source keeps the folder it was ingested from as its root.
    let root = std::fs::canonicalize(env.notes()).unwrap();
    let sources = env.json(&["sources"]);
    let sources = sources.as_array().unwrap();
    assert!(sources.iter().all(|s| s["root"].as_str() == root.to_str()));

    // No note is merged with a stranger: each constructor note's digest names a page of its
    // own, titled by the shortest folder path (or its alias), fed by its title by it alone.
    let ids = pages(&env);
    let mut merged = 0;
    let mut page_of_note: BTreeMap<usize, i64> = BTreeMap::new();
    for n in 1..=NOTES {
        let origin = root.join(folder(n)).join("constructor.md");
        let source = sources
            .iter()
            .find(|s| s["origin"].as_str() == origin.to_str())
            .unwrap();
        assert_eq!(
            source["path"].as_str(),
            Some(format!("{}/constructor.md", folder(n)).as_str())
        );
        assert_eq!(
            source["told_apart_as"].as_str(),
            Some(title(n).as_str()),
            "note {n}"
        );
        assert!(
            source["pages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p.as_str() == Some(title(n).as_str())),
            "note {n}: {source}"
        );
        let id = *ids
            .get(&title(n))
            .unwrap_or_else(|| panic!("no page {:?}", title(n)));
        page_of_note.insert(n, id);
        let shown = env.json(&["show", &title(n)]);
        let by_title: Vec<&Value> = shown["sources"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["title"].as_str() == Some(title(n).as_str()))
            .collect();
        merged += by_title.len() - 1;
        assert_eq!(by_title[0]["origin"].as_str(), origin.to_str(), "note {n}");
    }
    assert_eq!(
        merged, 0,
        "notes merged with a note they only share a file name with"
    );
    let distinct: BTreeSet<i64> = page_of_note.values().copied().collect();
    assert_eq!(distinct.len(), NOTES);

    // An alias opens its note's page; so does the note's path.
    for n in (1..=NOTES).filter(|n| alias(*n).is_some()) {
        let shown = env.json(&["show", &alias(n).unwrap()]);
        assert_eq!(
            shown["id"].as_i64(),
            Some(page_of_note[&n]),
            "alias of note {n}"
        );
    }

    // Links by path and by bare name lead to the right note's page.
    let index = links_of(&env, "Index");
    assert_eq!(
        index.get("Module03/constructor"),
        Some(&Some(page_of_note[&3]))
    );
    assert_eq!(
        index.get("Module07/constructor"),
        Some(&Some(page_of_note[&7]))
    );
    // A bare shared name from the root: the shortest path, then the first in byte order.
    assert_eq!(
        index.get("Module01/constructor"),
        Some(&Some(page_of_note[&1]))
    );
    let usage = links_of(&env, "Usage of module nine");
    // From Module09: the note beside it.
    assert_eq!(
        usage.get("Module09/constructor"),
        Some(&Some(page_of_note[&9]))
    );
    assert_eq!(
        usage.get("Module12/constructor"),
        Some(&Some(page_of_note[&12]))
    );
    assert_eq!(
        usage.get("Module13/constructor"),
        Some(&Some(page_of_note[&13]))
    );
    // No page for the shared name itself.
    assert!(!ids.keys().any(|t| t.eq_ignore_ascii_case("constructor")));
    // The rendered page leads there too (the stand-in carries the wiki-link lines into the
    // body).
    let html = env.human(&["show", "Index", "--html"]);
    for n in [1, 3] {
        assert!(
            html.contains(&format!("data-article-id=\"{}\"", page_of_note[&n])),
            "note {n}: {html}"
        );
    }

    // `show` of the shared name lists the notes (the one a bare link means first), exit 2.
    let out = env.cmd().args(["show", "constructor"]).assert().code(2);
    let listed = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), NOTES, "{listed}");
    assert_eq!(lines[0], "Module01/constructor\tModule01/constructor.md");
    let out = env
        .cmd()
        .args(["--json", "show", "constructor"])
        .assert()
        .code(2);
    let json: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["candidates"].as_array().unwrap().len(), NOTES);
    assert_eq!(json["candidates"][4]["title"], title(5));

    // `lint` lists each bare link to the shared name.
    let lint = env.json(&["lint"]);
    let ambiguous: Vec<&Value> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "ambiguous_link")
        .collect();
    assert_eq!(ambiguous.len(), 2, "{lint}");

    // An export writes each note's page in its folder; ingesting it gives the same titles.
    let out = env.dir.path().join("export");
    env.cmd()
        .args(["export", out.to_str().unwrap()])
        .assert()
        .success();
    assert!(out.join("Module03").join("constructor.md").is_file());
    let again = Env::new(&server);
    again
        .cmd()
        .args(["ingest", out.to_str().unwrap()])
        .assert()
        .success();
    again.cmd().args(["compile"]).assert().success();
    let before: BTreeSet<String> = ids.keys().cloned().collect();
    let after: BTreeSet<String> = pages(&again).keys().cloned().collect();
    assert_eq!(after, before);
}

#[test]
fn a_note_that_comes_to_share_a_name_keeps_its_page_under_the_title_that_tells_it_apart() {
    let server = TestServer::builder().start();
    let env = Env::new(&server);
    env.write_note(
        "Parser/constructor.md",
        "The parser constructor reads tokens into a tree.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();
    let first = env.json(&["show", "constructor"]);
    let id = first["id"].as_i64().unwrap();
    env.cmd()
        .args(["edit", "constructor", "-"])
        .write_stdin(format!(
            "{}\n\n## My notes\n\nKept by hand.\n",
            first["article_body"].as_str().unwrap()
        ))
        .assert()
        .success();

    // A second `constructor.md` in another folder of the vault.
    env.write_note(
        "Lexer/constructor.md",
        "The lexer constructor reads characters into tokens.\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();

    // The first note's page keeps its id and the person's edit under its new title; the
    // new note has a page of its own; the plain name lists both.
    let parser = env.json(&["show", "Parser/constructor"]);
    assert_eq!(parser["id"].as_i64(), Some(id));
    assert!(parser["article_body"]
        .as_str()
        .unwrap()
        .contains("Kept by hand."));
    let lexer = env.json(&["show", "Lexer/constructor"]);
    assert_ne!(lexer["id"].as_i64(), Some(id));
    let origins: Vec<&str> = lexer["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["origin"].as_str().unwrap())
        .collect();
    assert!(
        origins.len() == 1
            && origins[0].ends_with("constructor.md")
            && origins[0].contains("Lexer"),
        "{origins:?}"
    );
    env.cmd().args(["show", "constructor"]).assert().code(2);
    let history = env.human(&["history", "Parser/constructor"]);
    assert!(history.contains("got pages of their own"), "{history}");
}
