//! A folder of notes that link with markdown links — as Obsidian writes them with
//! "Use [[Wikilinks]]" off, and as docs sites, GitHub wikis and Notion exports do — ingested
//! and compiled through a stand-in model that writes no link of its own: every link a note
//! writes to another note of the folder (relative, from the root, percent-encoded, in angle
//! brackets, with an anchor, reference-style) leads from its page to the page of the note it
//! names; links out of the folder, to the web or to nothing lead nowhere.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

#[test]
fn markdown_links_between_notes_lead_from_page_to_page() {
    let server = TestServer::builder().start();
    let env = Env::new(&server);
    env.write_note(
        "Home.md",
        "# Home\n\nStart with [the guide](Guides/Getting%20Started.md), then \
         [setup](<Guides/Setup Steps.md#Install>).\n\nThe [reference][ref] lists every call. \
         Read the [faq](./FAQ) too, or [the site](https://example.org).\n\n\
         [ref]: /Reference/API%20Reference.md\n",
    );
    env.write_note(
        "Guides/Getting Started.md",
        "# Getting Started\n\nGo back [home](../Home.md). Next come the \
         [setup steps](Setup%20Steps.md).\n",
    );
    env.write_note(
        "Guides/Setup Steps.md",
        "# Setup Steps\n\n## Install\n\nInstall it first. The \
         [API](../Reference/API%20Reference.md#Calls) says what each call does.\n",
    );
    env.write_note(
        "Reference/API Reference.md",
        "# API Reference\n\n## Calls\n\nEvery call is listed here. Back to the \
         [start](/Guides/Getting%20Started.md).\n",
    );
    env.write_note(
        "FAQ.md",
        "# FAQ\n\nQuestions live here. Nothing is read from \
         [outside](../../../../../etc/passwd) or [a file URL](file:///etc/passwd).\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();

    let list = env.json(&["list"]);
    let ids: BTreeMap<String, i64> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["title"].as_str().unwrap().to_owned(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected: &[(&str, &[&str])] = &[
        (
            "Home",
            &["Getting Started", "Setup Steps", "API Reference", "FAQ"],
        ),
        ("Getting Started", &["Home", "Setup Steps"]),
        ("Setup Steps", &["API Reference"]),
        ("API Reference", &["Getting Started"]),
        ("FAQ", &[]),
    ];
    let mut resolved = 0;
    for (page, targets) in expected {
        let shown = env.json(&["show", page]);
        let links: BTreeMap<String, Value> = shown["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["target"].as_str().unwrap().to_owned(),
                    l["page_id"].clone(),
                )
            })
            .collect();
        for target in *targets {
            let to = links
                .get(*target)
                .unwrap_or_else(|| panic!("{page} does not link {target}: {links:?}"));
            assert_eq!(to.as_i64(), Some(ids[*target]), "{page} → {target}");
            resolved += 1;
        }
        for target in links.keys() {
            assert!(
                !target.contains(['[', ']', '(', ')', '%']) && !target.ends_with(".md"),
                "{page}: a link named {target:?}"
            );
            assert_ne!(target, "passwd", "{page} links out of the folder");
        }
    }
    assert_eq!(
        resolved, 8,
        "every link between the notes leads to its page"
    );
    let titles: BTreeSet<&String> = ids.keys().collect();
    for title in titles {
        assert!(
            !title.contains(['[', ']', '(', ')']) && !title.ends_with(".md"),
            "a page named {title:?}"
        );
    }
}

/// A fixture document of `wikimind-documents` (written by python-docx and ebooklib).
fn document_fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../documents/tests/data")
        .join(name)
}

#[test]
fn links_to_documents_of_the_folder_lead_to_their_pages_and_paths_render_as_links() {
    let server = TestServer::builder().start();
    let env = Env::new(&server);
    std::fs::create_dir_all(env.notes().join("Docs")).unwrap();
    for name in ["report.docx", "book.epub"] {
        std::fs::copy(document_fixture(name), env.notes().join("Docs").join(name)).unwrap();
    }
    env.write_note(
        "Home.md",
        "# Home\n\nThe rivers are surveyed below.\n\n![[report.docx]]\n\n\
         Read [the book](Docs/book.epub) and [[Docs/report.docx|the report]]. \
         Not ![[lone.docx]] nor ![[missing.pdf]].\n\n\
         Start with [the guide](Guides/Walkthrough.md#First%20steps), then ![[report.docx]].\n",
    );
    env.write_note(
        "Guides/Walkthrough.md",
        "# Getting around\n\n## First steps\n\nOpen the folder and read each page in turn.\n",
    );
    // A document of the same file name as a link, ingested from another folder: not of
    // the linking note's tree.
    let elsewhere = env.data().with_file_name("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::copy(
        document_fixture("generic-title.docx"),
        elsewhere.join("lone.docx"),
    )
    .unwrap();
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd()
        .args(["ingest", elsewhere.join("lone.docx").to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();

    let list = env.json(&["list"]);
    let ids: BTreeMap<String, i64> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["title"].as_str().unwrap().to_owned(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect();
    let id = |title: &str| {
        *ids.get(title)
            .unwrap_or_else(|| panic!("no page {title:?}: {ids:?}"))
    };
    let home = env.json(&["show", "Home"]);
    let links: BTreeMap<String, Value> = home["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_owned(),
                l["page_id"].clone(),
            )
        })
        .collect();
    // The documents of the folder, by their own titles, lead to their pages.
    assert_eq!(
        links.get("Field Notes on Rivers").and_then(Value::as_i64),
        Some(id("Field Notes on Rivers")),
        "{links:?}"
    );
    assert_eq!(
        links.get("The Lighthouse Keeper").and_then(Value::as_i64),
        Some(id("The Lighthouse Keeper")),
        "{links:?}"
    );
    assert_eq!(
        links.get("Getting around").and_then(Value::as_i64),
        Some(id("Getting around")),
        "{links:?}"
    );
    // The document of another folder is not linked, and no file name became a page.
    let lone: Vec<&String> = ids
        .keys()
        .filter(|t| {
            ![
                "Home",
                "Getting around",
                "Field Notes on Rivers",
                "The Lighthouse Keeper",
            ]
            .contains(&t.as_str())
        })
        .collect();
    assert_eq!(
        lone.len(),
        1,
        "one page for the other folder's document: {ids:?}"
    );
    assert!(!links.contains_key(lone[0].as_str()), "{links:?}");
    for target in links.keys() {
        assert!(
            !target.ends_with(".docx") && !target.ends_with(".pdf") && !target.ends_with(".epub"),
            "a link named {target:?}"
        );
    }

    // The page as a person reads it (the stand-in copies the lines with wiki links into
    // the body): the links written as paths lead to those pages; the rest stay chips.
    let body = home["article_body"].as_str().unwrap();
    assert!(
        body.contains("[the guide](Guides/Walkthrough.md#First%20steps)")
            && body.contains("[the book](Docs/book.epub)"),
        "{body}"
    );
    let html = env.human(&["show", "Home", "--html"]);
    let href = |title: &str| format!("href=\"wikimind://article/{}", id(title));
    assert!(
        html.contains(&format!("{}#wm-first-steps\"", href("Getting around"))),
        "{html}"
    );
    assert!(html.contains(&href("The Lighthouse Keeper")), "{html}");
    assert!(
        html.matches(&href("Field Notes on Rivers")).count() >= 2,
        "the embed and the link of the report: {html}"
    );
    assert!(!html.contains(&href(lone[0])), "{html}");
    assert!(
        html.contains("class=\"attachment\" title=\"lone.docx\"")
            && html.contains("class=\"attachment\" title=\"missing.pdf\""),
        "{html}"
    );
}
