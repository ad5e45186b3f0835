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
