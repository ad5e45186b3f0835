//! Writing in the wiki through the real binary: notes that compile into pages, and a
//! person's edits to a page that survive the model's rewrites (against the stand-in
//! server, whose page answers keep the old body and add each new digest's paragraph).

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

fn body(env: &Env) -> String {
    env.json(&["show", "Espresso"])["article_body"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn ingest_and_compile(env: &Env, name: &str, text: &str) {
    env.write_note(name, text);
    env.cmd()
        .args(["ingest", &env.note_path(name)])
        .assert()
        .success();
    env.cmd().arg("compile").assert().success();
}

#[test]
fn a_persons_edits_survive_rewrites_with_a_suggestion_for_the_conflict() {
    let server = TestServer::start();
    let env = Env::new(&server);
    ingest_and_compile(
        &env,
        "a.md",
        "# Espresso\n\nEspresso is brewed under nine bars of pressure.\n",
    );
    assert_eq!(
        body(&env),
        "Espresso is brewed under nine bars of pressure."
    );

    // The person adds a section of their own.
    let mine = "Espresso is brewed under nine bars of pressure.\n\n## My machine\n\nMy lever machine pulls at eight bars.\n";
    env.cmd()
        .args(["edit", "Espresso", "-"])
        .write_stdin(mine)
        .assert()
        .success();

    // A new source feeds the page: its paragraph comes in, the person's section stays.
    ingest_and_compile(
        &env,
        "b.md",
        "# Espresso\n\nA shot of espresso takes about thirty seconds.\n",
    );
    let merged = body(&env);
    assert_eq!(
        merged,
        "Espresso is brewed under nine bars of pressure.\n\nA shot of espresso takes about thirty seconds.\n\n## My machine\n\nMy lever machine pulls at eight bars.\n"
    );
    let history = env.json(&["history", "Espresso"]);
    let authors: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["author_kind"].as_str().unwrap())
        .collect();
    assert_eq!(authors, ["model", "person", "model", "person"], "{history}");
    // Each person's version says what it did: the edit, then the edit kept over the rewrite.
    let changes: Vec<&serde_json::Value> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["change"])
        .collect();
    assert_eq!(
        changes,
        [
            &serde_json::Value::Null,
            &serde_json::json!("edited"),
            &serde_json::Value::Null,
            &serde_json::json!("kept")
        ],
        "{history}"
    );

    // The person rewords the new paragraph; the model adds another right after it: both
    // changed the same place, so the person's text stays and the model's is a suggestion.
    let reworded = merged.replace("about thirty seconds", "25 to 30 seconds on my machine");
    let file = env.dir.path().join("body.md");
    std::fs::write(&file, &reworded).unwrap();
    let saved = env.json(&["edit", "Espresso", "--body-file", file.to_str().unwrap()]);
    assert_eq!(saved["saved"]["changed"], true);
    ingest_and_compile(
        &env,
        "c.md",
        "# Espresso\n\nCrema is the foam on top of a shot.\n",
    );
    let page = env.json(&["show", "Espresso"]);
    assert_eq!(page["article_body"], reworded.as_str());
    let suggestions = page["suggestions"].as_array().unwrap();
    assert_eq!(suggestions.len(), 1, "{page}");
    assert_eq!(suggestions[0]["section"], "");
    let text = suggestions[0]["text"].as_str().unwrap();
    assert!(
        text.contains("Crema is the foam on top of a shot."),
        "{text}"
    );
    assert!(text.contains("about thirty seconds"), "{text}");
    let human = env.human(&["show", "Espresso"]);
    assert!(human.contains("## Suggestion"), "{human}");

    // Accepting it puts the model's text in place of the section; the person's own
    // section stays.
    let id = suggestions[0]["id"].as_i64().unwrap().to_string();
    env.cmd()
        .args(["suggestion", "accept", "Espresso", &id])
        .assert()
        .success();
    let accepted = body(&env);
    assert!(
        accepted.contains("Crema is the foam on top of a shot."),
        "{accepted}"
    );
    assert!(accepted.contains("## My machine"), "{accepted}");
    assert!(env.json(&["show", "Espresso"])["suggestions"]
        .as_array()
        .unwrap()
        .is_empty());
    env.cmd()
        .args(["suggestion", "dismiss", "Espresso", &id])
        .assert()
        .failure();

    // Revert to compiled drops the person's work.
    env.cmd()
        .args(["restore", "Espresso", "--compiled"])
        .assert()
        .success();
    let compiled = body(&env);
    assert!(!compiled.contains("My machine"), "{compiled}");
    assert!(compiled.contains("Crema is the foam"), "{compiled}");
}

#[test]
fn claims_a_person_removes_stay_removed_and_their_own_are_shown_as_theirs() {
    let server = TestServer::start();
    let env = Env::new(&server);
    ingest_and_compile(
        &env,
        "a.md",
        "# Espresso\n\nEspresso is brewed under nine bars of pressure. A fine grind slows the water down.\n",
    );
    let claims = |env: &Env| -> Vec<(String, String)> {
        env.json(&["show", "Espresso"])["key_claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["claim"].as_str().unwrap().to_owned(),
                    c["author"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let before = claims(&env);
    assert!(before.len() >= 2, "{before:?}");
    assert!(before.iter().all(|(_, a)| a == "model"));
    let removed = env.json(&["claim", "rm", "Espresso", "2"]);
    assert_eq!(removed["removed"], before[1].0.as_str());
    env.cmd()
        .args(["claim", "add", "Espresso", "My grinder is a hand grinder."])
        .assert()
        .success();
    env.cmd()
        .args(["claim", "rm", "Espresso", "99"])
        .assert()
        .failure();

    // A new source makes the model write the page again, with the removed claim among
    // its material.
    ingest_and_compile(
        &env,
        "b.md",
        "# Espresso\n\nA shot of espresso takes about thirty seconds.\n",
    );
    let after = claims(&env);
    assert!(!after.iter().any(|(c, _)| *c == before[1].0), "{after:?}");
    assert!(
        after.iter().any(|(c, _)| c.contains("thirty seconds")),
        "{after:?}"
    );
    let person: Vec<&(String, String)> = after.iter().filter(|(_, a)| a == "person").collect();
    assert_eq!(person.len(), 1, "{after:?}");
    assert_eq!(person[0].0, "My grinder is a hand grinder.");
    let json = env.json(&["show", "Espresso"]);
    let mine = json["key_claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["author"] == "person")
        .unwrap();
    assert_eq!(mine["confidence"], "inferred");
    assert_eq!(mine["source_ids"], Value::Array(Vec::new()));
    assert!(env.human(&["show", "Espresso"]).contains("[yours]"));
}

#[test]
fn a_renamed_page_answers_to_its_old_title_and_keeps_its_sources() {
    let server = TestServer::start();
    let env = Env::new(&server);
    ingest_and_compile(
        &env,
        "a.md",
        "# Espresso\n\nEspresso is brewed under nine bars of pressure.\n",
    );
    let renamed = env.json(&["rename", "Espresso", "Espresso coffee"]);
    assert_eq!(renamed["title"], "Espresso coffee");
    assert_eq!(env.json(&["show", "Espresso"])["title"], "Espresso coffee");
    // A new source titled by the old name feeds the renamed page, not a new one.
    ingest_and_compile(
        &env,
        "b.md",
        "# Espresso\n\nA shot takes about thirty seconds.\n",
    );
    let list = env.json(&["list"]);
    let titles: Vec<&str> = list["pages"]
        .as_array()
        .or(list.as_array())
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"Espresso coffee"), "{list}");
    assert!(!titles.contains(&"Espresso"), "{list}");
    assert_eq!(
        env.json(&["show", "Espresso coffee"])["sources"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_note_written_in_the_wiki_compiles_into_a_page() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let saved: Value = {
        let out = env
            .cmd()
            .args(["--json", "note", "new", "Grind Size", "-"])
            .write_stdin(
                "Grind size decides how fast water runs through coffee. Use twelve clicks.\n",
            )
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice(&out).unwrap()
    };
    assert_eq!(saved["title"], "Grind Size");
    assert_eq!(saved["outcome"], "added");
    let id = saved["note_id"].as_str().unwrap().to_owned();

    env.cmd().arg("compile").assert().success();
    let page = env.json(&["show", "Grind Size"]);
    assert!(
        page["article_body"]
            .as_str()
            .unwrap()
            .contains("Grind size decides"),
        "{page}"
    );
    let list = env.json(&["note", "list"]);
    assert_eq!(list[0]["status"], "compiled");

    // Edited in the editor: the note becomes stale, and compiles again.
    env.cmd()
        .env("EDITOR", "sed -i s/twelve/eleven/")
        .args(["note", "edit", &id])
        .assert()
        .success();
    let note = env.json(&["note", "show", "Grind Size"]);
    assert!(
        note["text"].as_str().unwrap().contains("eleven clicks"),
        "{note}"
    );
    assert_eq!(note["status"], "stale");
    env.cmd().arg("compile").assert().success();
    assert_eq!(env.json(&["note", "list"])[0]["status"], "compiled");

    // Renamed, it keeps its id.
    let renamed = env.json(&["note", "edit", &id, "--title", "Grinding"]);
    assert_eq!(renamed["note_id"], id.as_str());
    assert_eq!(renamed["title"], "Grinding");

    // No editor and no `-`: a usage error naming what to do.
    env.cmd()
        .env_remove("EDITOR")
        .args(["note", "edit", &id])
        .assert()
        .code(2);

    env.json(&["note", "rm", &id]);
    assert_eq!(env.json(&["note", "list"]), Value::Array(Vec::new()));
    env.cmd().args(["note", "rm", &id]).assert().failure();
}

/// `note new -` with no title: clap put the `-` in the title's place, so the note was
/// titled "-" and the editor opened (or the command failed with "no editor").
#[test]
fn note_new_dash_reads_standard_input_and_titles_the_note_from_its_heading() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let out = env
        .cmd()
        .env("EDITOR", "false")
        .env("VISUAL", "false")
        .args(["--json", "note", "new", "-"])
        .write_stdin("# Bloom Time\n\nLet fresh coffee bloom for thirty seconds.\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let saved: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(saved["title"], "Bloom Time");
    let note = env.json(&["note", "show", "Bloom Time"]);
    assert!(
        note["text"].as_str().unwrap().contains("bloom for thirty"),
        "{note}"
    );

    // A required name given as a lone `-` is wrong usage, not a page or note called "-".
    for args in [&["edit", "-"][..], &["note", "edit", "-"]] {
        env.cmd()
            .env("EDITOR", "false")
            .args(args)
            .write_stdin("text")
            .assert()
            .code(2)
            .stderr(predicates::str::contains("comes first"));
    }
}

#[test]
fn notes_are_exported_as_written_in_their_folder() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.cmd()
        .args(["note", "new", "Grind / Size", "-"])
        .write_stdin("---\ntags: [coffee]\n---\nGrind size matters.\n")
        .assert()
        .success();
    let out = env.dir.path().join("out");
    let report = env.json(&["export", out.to_str().unwrap()]);
    let notes = report["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{report}");
    let path = std::path::PathBuf::from(notes[0]["path"].as_str().unwrap());
    assert!(path.starts_with(out.join("notes")), "{report}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "---\ntags: [coffee]\n---\nGrind size matters.\n"
    );
}
