//! An Obsidian vault as people keep one, ingested and compiled through a stand-in model that
//! copies links as written (`[[T#h|s]]`, `![[x.png|200]]`) the way models do: every link
//! form, front matter with titles, aliases and tags, callouts, comments, block ids, notes
//! without a heading, two notes with one name in different folders, attachments, settings
//! and trash. The wiki that comes out has one page per note, no page or wanted page named
//! with link syntax or after an attachment, and every link to a note resolves.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

/// Writes `text` at `rel` under `root`, making folders.
fn put(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The notes of the vault: (path, the title its page must have).
fn write_vault(root: &Path) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    let mut note = |rel: &str, title: &str, text: &str| {
        put(root, rel, text);
        notes.push((rel.to_owned(), title.to_owned()));
    };
    note(
        "Espresso.md",
        "Espresso",
        "---\ntitle: Espresso\naliases: [Short black]\ntags: [coffee, method/pressure]\n---\n\
         # Espresso\n\nEspresso is brewed under nine bars of pressure. ^p1\n\n\
         Burrs matter: see [[Grind Size#Burr grinders|burrs]] and ![[diagram.png|200]].\n\n\
         > [!tip] Fresh beans\n> Use beans roasted within a month.\n\n\
         %%a draft thought that is not in the note%%\n\
         The ==crema== sits on top. Jump to [[#Pressure]].\n\n## Pressure\n\nNine bars is usual.\n",
    );
    note(
        "Grind Size.md",
        "Grind Size",
        "Grind size sets how fast water flows through coffee.\n\n## Burr grinders\n\n\
         Burr grinders crush beans evenly. ^b1\n\nUsed for [[Espresso]] and [[Pour Over.md]], \
         see also [[methods/Pour Over|pour-over]].\n",
    );
    note(
        "methods/Pour Over.md",
        "Pour Over",
        "---\naliases:\n  - V60 method\ntags: brewing, slow\n---\n# Pour Over\n\n\
         Pour over brewing drips water through a filter. Grind as in [[Grind Size#^b1]].\n\n\
         Taste depends on [[Water Chemistry|the water]].\n",
    );
    note(
        "Water Chemistry.md",
        "Water Chemistry",
        "# Water Chemistry\n\nMinerals in water change extraction.\n\n\
         | drink | water |\n|---|---|\n| [[Espresso\\|shots]] | soft |\n\n\
         ```\n[[Not A Link]]\n```\n\nInline `[[Also Not A Link]]` stays code.\n",
    );
    // Two notes that share only a file name are two notes, told apart by their folders.
    note(
        "a/Index.md",
        "a/Index",
        "# Index\n\nThe index of folder a lists [[Espresso]].\n",
    );
    note(
        "b/Index.md",
        "b/Index",
        "# Index\n\nThe index of folder b lists [[Water Chemistry]].\n",
    );
    note(
        "Daily/2024-01-15.md",
        "2024-01-15",
        "Tasted a [[Short black]] and tried the [[V60 method]] today. #journal\n\n\
         Both indexes: [[a/Index]] and [[b/Index]].\n",
    );
    note(
        "Broken.md",
        "Broken",
        "---\ntitle: [unclosed\n---\n# Broken\n\nThis note's front matter is not YAML.\n",
    );
    // Forty notes linking each other in every form.
    let forms = [
        |n: usize| format!("[[Topic {n:02}]]"),
        |n: usize| format!("[[Topic {n:02}|topic {n}]]"),
        |n: usize| format!("[[Topic {n:02}#Details]]"),
        |n: usize| format!("![[Topic {n:02}]]"),
        |n: usize| format!("[[Topic {n:02}.md]]"),
        |n: usize| format!("[[folder/Topic {n:02}]]"),
        |n: usize| format!("[[Topic {n:02}#Details|details of {n}]]"),
        |n: usize| format!("[[Topic {n:02}#^d{n}]]"),
    ];
    for i in 0..40 {
        let a = forms[i % forms.len()]((i + 1) % 40);
        let b = forms[(i + 3) % forms.len()]((i + 7) % 40);
        let front = if i % 4 == 0 {
            format!("---\ntags: [topic, group/{}]\n---\n", i % 3)
        } else {
            String::new()
        };
        let heading = if i % 5 == 0 {
            String::new()
        } else {
            format!("# Topic {i:02}\n\n")
        };
        note(
            &format!("folder/Topic {i:02}.md"),
            &format!("Topic {i:02}"),
            &format!(
                "{front}{heading}Topic {i} is the note number {i} of the vault. It links {a} and \
                 {b}.\n\n## Details\n\nDetail {i} is spelled out here. ^d{i}\n"
            ),
        );
    }
    // What a vault holds besides notes.
    put(root, ".obsidian/app.json", "{\"legacyEditor\": false}");
    put(
        root,
        ".obsidian/snippets/Theme Notes.md",
        "# Theme Notes\n\nNot a note.\n",
    );
    put(root, ".trash/Old Note.md", "# Old Note\n\nDeleted.\n");
    put(
        root,
        "attachments/diagram.png",
        [0x89, b'P', b'N', b'G', 0, 1, 2],
    );
    put(root, "attachments/paper.pdf", b"%PDF-1.4\n%\xe2\xe3\n");
    put(root, "Plan.canvas", "{\"nodes\": []}");
    notes
}

fn titles(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap().to_owned())
        .collect()
}

fn is_link_syntax_or_file(name: &str) -> bool {
    name.contains(['|', '[', ']'])
        || name.starts_with('#')
        || name.contains('#') && !name.ends_with('#')
        || [".png", ".pdf", ".canvas", ".md"]
            .iter()
            .any(|ext| name.to_lowercase().ends_with(ext))
}

#[test]
fn a_vault_compiles_to_one_page_per_note_with_every_link_resolved() {
    let server = TestServer::builder().links_as_written(true).start();
    let env = Env::new(&server);
    let vault = env.notes();
    let notes = write_vault(&vault);

    let out = env
        .cmd()
        .args(["--json", "ingest", vault.to_str().unwrap()])
        .assert()
        .success();
    let ingest: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(ingest["vault"], true, "{ingest}");
    let skipped: Vec<&str> = ingest["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"]["reason"].as_str().unwrap())
        .collect();
    // A PDF is a document ingest reads, no longer an attachment: this one is only a
    // header, so it is skipped as a document that cannot be read.
    for (reason, n) in [
        ("vault_settings", 1),
        ("trash", 1),
        ("attachment", 2),
        ("bad_document", 1),
    ] {
        assert_eq!(
            skipped.iter().filter(|r| **r == reason).count(),
            n,
            "{reason}: {skipped:?}"
        );
    }
    assert_eq!(ingest["sources"].as_array().unwrap().len(), notes.len());
    assert!(
        stderr.contains("Broken.md, line") && stderr.contains("kept as text"),
        "bad front matter is named with its line: {stderr}"
    );

    let compiled = env.json(&["compile"]);
    // The vault's names are all said by its notes: none is rejected.
    for source in compiled
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "source")
    {
        assert_eq!(source["rejected_names"], serde_json::json!([]), "{source}");
        // Only the two `Index` notes say that they go by the title that tells them apart.
        if !source["title"].as_str().unwrap().ends_with("/Index") {
            assert_eq!(source["title_note"], Value::Null, "{source}");
        }
    }

    // One page per note (the two `Index` notes are two pages), nothing else from the
    // vault's settings or trash, and no page named with link syntax.
    let list = env.json(&["list"]);
    let pages = titles(&list);
    let wanted_titles: BTreeSet<String> = notes.iter().map(|(_, t)| t.clone()).collect();
    for title in &wanted_titles {
        assert!(pages.contains(title), "no page {title:?} in {pages:?}");
    }
    for page in &pages {
        assert!(!is_link_syntax_or_file(page), "page named {page:?}");
        assert!(
            ![
                "Theme Notes",
                "Old Note",
                "Not A Link",
                "Also Not A Link",
                "Index"
            ]
            .contains(&page.as_str()),
            "{page:?} should not be a page"
        );
    }
    for (folder, other) in [("a", "b"), ("b", "a")] {
        let index = env.json(&["show", &format!("{folder}/Index")]);
        let origins: Vec<&str> = index["sources"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["title"] == format!("{folder}/Index"))
            .map(|s| s["origin"].as_str().unwrap())
            .collect();
        let file = |f: &str| format!("{f}{}Index.md", std::path::MAIN_SEPARATOR);
        assert!(
            origins.len() == 1 && origins[0].ends_with(&file(folder)),
            "{folder}/Index is its own note's page, not {other}'s: {origins:?}"
        );
    }

    // Every link resolves when its target note exists; no wanted page is link syntax.
    let mut links = 0;
    for page in &pages {
        let shown = env.json(&["show", page]);
        for link in shown["links"].as_array().unwrap() {
            let target = link["target"].as_str().unwrap();
            assert!(
                !is_link_syntax_or_file(target),
                "{page}: a link named {target:?}"
            );
            links += 1;
            let to_a_note = wanted_titles.iter().any(|t| t.eq_ignore_ascii_case(target))
                || ["Short black", "V60 method"].contains(&target);
            if to_a_note {
                assert!(
                    link["page_id"].is_number(),
                    "{page}: the link to {target:?} does not resolve"
                );
            }
        }
    }
    assert!(links > 80, "the vault's links were kept: {links}");
    let human = env.human(&["list"]);
    if let Some(wanted) = human.lines().find(|l| l.starts_with("Wanted: ")) {
        assert!(
            !wanted.contains(['|', '[']) && !wanted.contains(".png"),
            "{wanted}"
        );
    }

    // Aliases from front matter resolve; tags are listed, shown and filter the list.
    assert_eq!(env.json(&["show", "Short black"])["title"], "Espresso");
    assert_eq!(env.json(&["show", "V60 method"])["title"], "Pour Over");
    let espresso = env.json(&["show", "Espresso"]);
    assert_eq!(
        espresso["tags"],
        serde_json::json!(["coffee", "method/pressure"])
    );
    let body = espresso["article_body"].as_str().unwrap();
    assert!(
        !body.contains("a draft thought"),
        "comments are not read: {body}"
    );
    let tagged = titles(&env.json(&["list", "--tag", "method"]));
    assert_eq!(tagged, BTreeSet::from(["Espresso".to_owned()]));
    let journal = titles(&env.json(&["list", "--tag", "#Journal"]));
    assert_eq!(journal, BTreeSet::from(["2024-01-15".to_owned()]));
    // `slow` is only a tag of Pour Over, in no note's text.
    let found = env.json(&["search", "slow"]);
    assert_eq!(found[0]["title"], "Pour Over", "tags are searched: {found}");
    let sources = env.json(&["sources"]);
    let pour_over = sources
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == "Pour Over")
        .expect("the Pour Over source");
    assert_eq!(pour_over["tags"], serde_json::json!(["brewing", "slow"]));
    assert_eq!(pour_over["aliases"], serde_json::json!(["V60 method"]));
}

/// Every page's resolved links as (page, linked page) title pairs.
fn resolved_links(env: &Env) -> BTreeSet<(String, String)> {
    let list = env.json(&["list"]);
    let by_id: std::collections::HashMap<i64, String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_i64().unwrap(),
                p["title"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut pairs = BTreeSet::new();
    for title in by_id.values() {
        let shown = env.json(&["show", title]);
        for link in shown["links"].as_array().unwrap() {
            if let Some(to) = link["page_id"].as_i64().and_then(|id| by_id.get(&id)) {
                pairs.insert((title.clone(), to.clone()));
            }
        }
    }
    pairs
}

#[test]
fn an_export_read_again_gives_the_same_pages_and_links() {
    let server = TestServer::builder().links_as_written(true).start();
    let first = Env::new(&server);
    write_vault(&first.notes());
    first
        .cmd()
        .args(["ingest", first.notes().to_str().unwrap()])
        .assert()
        .success();
    first.cmd().arg("compile").assert().success();
    let export = first.dir.path().join("export");
    first
        .cmd()
        .args(["export", export.to_str().unwrap()])
        .assert()
        .success();
    let espresso = std::fs::read_to_string(export.join("Espresso.md")).unwrap();
    assert!(
        espresso.contains("tags:\n  - \"coffee\"\n  - \"method/pressure\"\n"),
        "{espresso}"
    );
    assert!(espresso.contains("aliases:\n"), "{espresso}");

    // A fresh wiki reads the export: its pages only, not its digests' copies.
    let second = Env::new(&server);
    let out = second.json(&["ingest", export.to_str().unwrap()]);
    assert_eq!(out["export"], true, "{out}");
    let skipped: Vec<&str> = out["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"]["reason"].as_str().unwrap())
        .collect();
    assert!(skipped.contains(&"export_copy"), "{skipped:?}");
    second.cmd().arg("compile").assert().success();

    assert_eq!(
        titles(&second.json(&["list"])),
        titles(&first.json(&["list"]))
    );
    assert_eq!(resolved_links(&second), resolved_links(&first));
    assert_eq!(second.json(&["show", "Short black"])["title"], "Espresso");
}
