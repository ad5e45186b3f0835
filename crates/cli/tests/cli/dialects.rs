//! Other tools' exports and plain text, ingested as a folder and compiled through the
//! stand-in model: a Notion export reads its titles without the id suffix and resolves its
//! percent-encoded links; a docs tree names each `index.md`/`README.md` after its folder; a
//! `.txt` note keeps the title its first line gives it; and no page of any of them is named
//! with link syntax, however the model copies links.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

/// The characters of link syntax no page name may carry.
const LINK_SYNTAX: [char; 4] = ['[', ']', '|', '^'];

/// Every page's title and id.
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

/// How many page names (titles and aliases) carry link syntax, with each printed.
fn names_with_link_syntax(env: &Env, pages: &BTreeMap<String, i64>) -> usize {
    let mut bad = 0;
    for title in pages.keys() {
        let page = env.json(&["show", "--id", &pages[title].to_string()]);
        let aliases = page["aliases"].as_array().cloned().unwrap_or_default();
        let names = std::iter::once(title.clone()).chain(aliases.iter().filter_map(|a| {
            a.as_str()
                .map(str::to_owned)
                .or_else(|| a["name"].as_str().map(str::to_owned))
        }));
        for name in names {
            if name.contains(LINK_SYNTAX) {
                eprintln!("a page name with link syntax: {name:?}");
                bad += 1;
            }
        }
    }
    bad
}

/// The links of page `title` as target → page id.
fn links(env: &Env, title: &str) -> BTreeMap<String, Value> {
    env.json(&["show", title])["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_owned(),
                l["page_id"].clone(),
            )
        })
        .collect()
}

fn ingest_and_compile(env: &Env) {
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();
}

const ID_HOME: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const ID_BREW: &str = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d";
const ID_RECIPES: &str = "abcdefabcdefabcdefabcdefabcdef12";
const ID_COLD: &str = "9988776655443322110099887766554a";

#[test]
fn a_notion_export_reads_titles_without_ids_and_resolves_its_links() {
    // A model that copies the notes' links as written into its names.
    let server = TestServer::builder().links_as_written(true).start();
    let env = Env::new(&server);
    env.write_note(
        &format!("Coffee Guide {ID_HOME}.md"),
        &format!(
            "# Coffee Guide\n\nStart with [Brewing Basics](Brewing%20Basics%20{ID_BREW}.md) and \
             then the [cold brew recipe](Recipes%20{ID_RECIPES}/Cold%20Brew%20Recipe%20{ID_COLD}.md).\n"
        ),
    );
    env.write_note(
        &format!("Brewing Basics {ID_BREW}.md"),
        &format!(
            "# Brewing Basics\n\nBrewing extracts flavour with hot water. Back to the \
             [guide](Coffee%20Guide%20{ID_HOME}.md).\n"
        ),
    );
    env.write_note(
        &format!("Recipes {ID_RECIPES}/Cold Brew Recipe {ID_COLD}.md"),
        &format!(
            "Steep coarse grounds for twelve hours in cold water. See \
             [Brewing Basics](../Brewing%20Basics%20{ID_BREW}.md).\n"
        ),
    );
    ingest_and_compile(&env);

    let pages = pages(&env);
    for title in ["Coffee Guide", "Brewing Basics", "Cold Brew Recipe"] {
        assert!(pages.contains_key(title), "no page {title:?}: {pages:?}");
    }
    for title in pages.keys() {
        assert!(
            ![ID_HOME, ID_BREW, ID_RECIPES, ID_COLD]
                .iter()
                .any(|id| title.contains(id)),
            "a title with a Notion id: {title:?}"
        );
    }
    let expected: &[(&str, &[&str])] = &[
        ("Coffee Guide", &["Brewing Basics", "Cold Brew Recipe"]),
        ("Brewing Basics", &["Coffee Guide"]),
        ("Cold Brew Recipe", &["Brewing Basics"]),
    ];
    let (mut resolved, mut total) = (0, 0);
    for (page, targets) in expected {
        let links = links(&env, page);
        for target in *targets {
            total += 1;
            if links.get(*target).and_then(Value::as_i64) == Some(pages[*target]) {
                resolved += 1;
            } else {
                eprintln!("{page} → {target}: {links:?}");
            }
        }
    }
    eprintln!("notion export: {resolved} of {total} links resolve");
    assert_eq!(resolved, total);
    assert_eq!(names_with_link_syntax(&env, &pages), 0);
}

#[test]
fn a_docs_tree_names_each_index_note_after_its_folder() {
    let server = TestServer::builder().links_as_written(true).start();
    let env = Env::new(&server);
    env.write_note(
        "docs/index.md",
        "# Welcome\n\nRead the [installation](install/index.md) and [usage](usage/README.md) \
         pages.\n",
    );
    env.write_note(
        "docs/install/index.md",
        "# Installing the tool\n\nDownload the archive and unpack it. Then see \
         [usage](../usage/).\n",
    );
    env.write_note(
        "docs/usage/README.md",
        "# How to use it\n\nRun the tool on a folder. The [advanced options](advanced.md) \
         go further.\n",
    );
    env.write_note(
        "docs/usage/advanced.md",
        "# Advanced options\n\nFlags change the output. Back to [install](../install/index.md).\n",
    );
    ingest_and_compile(&env);

    let pages = pages(&env);
    for title in ["docs", "install", "usage", "Advanced options"] {
        assert!(pages.contains_key(title), "no page {title:?}: {pages:?}");
    }
    assert!(
        !pages.contains_key("index") && !pages.contains_key("README"),
        "{pages:?}"
    );
    let expected: &[(&str, &[&str])] = &[
        ("docs", &["install", "usage"]),
        ("usage", &["Advanced options"]),
        ("Advanced options", &["install"]),
    ];
    let (mut resolved, mut total) = (0, 0);
    for (page, targets) in expected {
        let links = links(&env, page);
        for target in *targets {
            total += 1;
            if links.get(*target).and_then(Value::as_i64) == Some(pages[*target]) {
                resolved += 1;
            } else {
                eprintln!("{page} → {target}: {links:?}");
            }
        }
    }
    eprintln!("docs tree: {resolved} of {total} links resolve");
    assert_eq!(resolved, total);
    assert_eq!(names_with_link_syntax(&env, &pages), 0);
}

/// Names written with every link form, in titles, H1s, aliases and links, through a model
/// that copies links as written: no page is named with link syntax.
#[test]
fn no_page_is_named_with_link_syntax_whatever_the_notes_write() {
    let server = TestServer::builder().links_as_written(true).start();
    let env = Env::new(&server);
    env.write_note(
        "Formats.md",
        "---\naliases: [\"[[File types]]\", \"Formats|the formats\"]\n---\n\
         # Using [[Supported formats|formats]] in a vault\n\n\
         You can add [[Supported formats]] to a vault. The app uses [[Sync settings#Remote|sync]] \
         and ![[diagram.png]] and [[C#]] and [[F# basics]].\n",
    );
    env.write_note(
        "Supported formats.md",
        "# Supported formats\n\nMarkdown and plain text are read. See [sync](Sync%20settings.md) \
         and [[Formats#^block1]].\n",
    );
    env.write_note(
        "Sync settings.md",
        "# Sync settings ^abc123\n\nRemote vaults sync every minute. ## Remote\n",
    );
    env.write_note("C#.md", "# C#\n\nC# is a language.\n");
    env.write_note("F# basics.md", "# F# basics\n\nF# is a language too.\n");
    ingest_and_compile(&env);

    let pages = pages(&env);
    for title in [
        "Using formats in a vault",
        "Supported formats",
        "Sync settings",
        "C#",
        "F# basics",
    ] {
        assert!(pages.contains_key(title), "no page {title:?}: {pages:?}");
    }
    assert!(
        !pages.contains_key("Supported"),
        "a fragment of a link: {pages:?}"
    );
    assert_eq!(names_with_link_syntax(&env, &pages), 0, "{pages:?}");
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Regression: the demo's `cold-brew.txt` (first line "Cold Brew") was digested as "Brew
/// Ratio", the model's title, and merged into the page of `brew-ratio.md`.
#[test]
fn a_text_note_keeps_the_title_its_first_line_gives_it() {
    let server = TestServer::start();
    let env = Env::new(&server);
    std::fs::create_dir_all(env.notes()).unwrap();
    for name in ["cold-brew.txt", "brew-ratio.md"] {
        std::fs::copy(repo().join("examples").join(name), env.notes().join(name)).unwrap();
    }
    env.write_note(
        "ratio-notes.txt",
        "Brew ratios are written as grams of water per gram of coffee.\nA 1:16 ratio is common.\n",
    );
    ingest_and_compile(&env);
    let pages = pages(&env);
    assert!(pages.contains_key("Cold Brew"), "{pages:?}");
    assert!(
        pages.contains_key("ratio-notes"),
        "a text note without a title line: {pages:?}"
    );
    // The text note's digest is titled by its first line and feeds the page of that name;
    // the page of `brew-ratio.md` is that note's (the text note only links it).
    let cold = env.json(&["show", "Cold Brew"]);
    let source = cold["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == "Cold Brew")
        .unwrap_or_else(|| panic!("{cold}"))["source_id"]
        .clone();
    let digest = env.json(&["show", "--source", &source.to_string()]);
    assert_eq!(digest["title"], "Cold Brew", "{digest}");
    let ratio = env.json(&["show", "Brew Ratio"]);
    assert_ne!(ratio["id"], cold["id"]);
    assert!(
        ratio["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["title"] == "Brew Ratio"),
        "{ratio}"
    );
}
