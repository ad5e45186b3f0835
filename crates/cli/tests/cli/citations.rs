//! Citations through the real binary: each sourced claim says where its quote stands — the
//! byte range in the source's stored text, the page of a PDF (physical and printed label),
//! the heading path of a note — and keeps saying it after the source changes (a file
//! ingested again, a note edited), or stops when the quote is gone (the claim is then no
//! longer grounded). Compiled through the stand-in server, which quotes the source's first
//! sentences.

use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

/// The citations of the digest claim whose quote holds `marker`.
fn citations_of<'a>(digest: &'a Value, marker: &str) -> &'a Vec<Value> {
    digest["key_claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["quote"].as_str().is_some_and(|q| q.contains(marker)))
        .unwrap_or_else(|| panic!("a claim quoting {marker:?}: {digest}"))["citations"]
        .as_array()
        .unwrap()
}

/// The text of `path` at a citation's byte range.
fn at_range(path: &Path, citation: &Value) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let (start, end) = (
        citation["start"].as_u64().unwrap() as usize,
        citation["end"].as_u64().unwrap() as usize,
    );
    text[start..end].to_owned()
}

#[test]
fn a_pdf_of_several_pages_cites_each_quote_on_its_page() {
    let server = TestServer::start();
    let env = Env::new(&server);
    std::fs::create_dir_all(env.notes()).unwrap();
    let pdf = env.notes().join("page-labels.pdf");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../documents/tests/data/page-labels.pdf"),
        &pdf,
    )
    .unwrap();
    env.json(&["ingest", pdf.to_str().unwrap()]);
    env.json(&["compile"]);

    // The five pages are labelled i, ii, then 1, 2, 3; each page's line names its number
    // (`PHYS4`), and the stand-in quotes the first lines.
    let labels = ["i", "ii", "1", "2", "3"];
    let digest = env.json(&["show", "--source", "page-labels"]);
    let mut seen = 0;
    for claim in digest["key_claims"].as_array().unwrap() {
        if claim["confidence"] != "sourced" {
            continue;
        }
        let citations = claim["citations"].as_array().unwrap();
        assert_eq!(citations.len(), 1, "{claim}");
        let c = &citations[0];
        let quote = c["quote"].as_str().unwrap();
        let n: usize = quote
            .split("PHYS")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a page marker in {quote:?}"));
        assert_eq!(c["page"], n as u64, "{c}");
        assert_eq!(c["page_label"], labels[n - 1], "{c}");
        assert_eq!(c["heading"], serde_json::json!([]), "{c}");
        let span = c["end"].as_u64().unwrap() - c["start"].as_u64().unwrap();
        assert_eq!(span as usize, quote.len(), "{c}");
        seen += 1;
    }
    assert!(seen >= 3, "three sourced claims cited: {digest}");

    // For people: the printed label after the claim.
    env.cmd()
        .args(["show", "--source", "page-labels"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(page-labels, p. ii)"));
    // The page carries them too.
    let page_id = digest["pages"][0]["id"].as_i64().unwrap().to_string();
    let page = env.json(&["show", &page_id]);
    let cited: Vec<u64> = page["key_claims"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["citations"].as_array().unwrap().clone())
        .map(|c| c["page"].as_u64().unwrap())
        .collect();
    assert!(cited.contains(&2), "{page}");

    // Exported beside the PDF, a footnote opens the PDF at the page.
    env.json(&["export", env.notes().to_str().unwrap()]);
    let digest_file = std::fs::read_dir(env.notes().join("sources"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|t| t.contains("PHYS2"))
        .expect("the digest's file");
    assert!(
        digest_file.contains("]: [page-labels, p. ii](<../page-labels.pdf#page=2>)"),
        "{digest_file}"
    );
    // Exported elsewhere, it names the page only.
    let elsewhere = env.data().join("export");
    env.json(&["export", elsewhere.to_str().unwrap()]);
    let digest_file = std::fs::read_dir(elsewhere.join("sources"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|t| t.contains("PHYS2"))
        .expect("the digest's file");
    assert!(
        digest_file.contains("]: page-labels, p. ii\n"),
        "{digest_file}"
    );
}

const COFFEE: &str = "# Coffee\n\nIntro line about coffee beans here.\n\n## Espresso\n\n\
### Pressure\n\nEspresso is brewed at nine bars of pressure.\n\n## Milk\n\n\
Steamed milk is added to a latte.\n";

#[test]
fn a_note_cites_under_its_headings_and_its_citations_follow_its_edits() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note("coffee.md", COFFEE);
    let path = env.notes().join("coffee.md");
    env.json(&["ingest", path.to_str().unwrap()]);
    env.json(&["compile"]);
    let digest = env.json(&["show", "--source", "Coffee"]);
    let headings =
        |digest: &Value, marker: &str| citations_of(digest, marker)[0]["heading"].clone();
    assert_eq!(
        headings(&digest, "Intro line"),
        serde_json::json!(["Coffee"])
    );
    assert_eq!(
        headings(&digest, "nine bars"),
        serde_json::json!(["Coffee", "Espresso", "Pressure"])
    );
    assert_eq!(
        headings(&digest, "Steamed milk"),
        serde_json::json!(["Coffee", "Milk"])
    );
    let espresso = citations_of(&digest, "nine bars")[0].clone();
    assert_eq!(
        at_range(&path, &espresso),
        "Espresso is brewed at nine bars of pressure"
    );
    assert_eq!(espresso["page"], Value::Null);
    env.cmd()
        .args(["show", "--source", "Coffee"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(Coffee, § Pressure)"));

    // The file edited and ingested again: a paragraph before the quote, a word inside
    // another. The digest is not compiled again, yet its citations point at the new text.
    let edited = COFFEE
        .replace(
            "### Pressure\n\n",
            "### Pressure\n\nA paragraph written later, before the quote.\n\n",
        )
        .replace("Steamed milk", "Steamed whole milk");
    std::fs::write(&path, &edited).unwrap();
    env.json(&["ingest", path.to_str().unwrap()]);
    let digest = env.json(&["show", "--source", "Coffee"]);
    let moved = &citations_of(&digest, "nine bars")[0];
    assert!(
        moved["start"].as_u64() > espresso["start"].as_u64(),
        "{moved}"
    );
    assert_eq!(
        at_range(&path, moved),
        "Espresso is brewed at nine bars of pressure"
    );
    assert_eq!(
        at_range(&path, &citations_of(&digest, "Steamed milk")[0]),
        "Steamed whole milk is added to a latte"
    );

    // The quote deleted: no citation, and the claim is no longer grounded.
    std::fs::write(
        &path,
        edited.replace("Espresso is brewed at nine bars of pressure.", "Gone."),
    )
    .unwrap();
    env.json(&["ingest", path.to_str().unwrap()]);
    let digest = env.json(&["show", "--source", "Coffee"]);
    assert!(citations_of(&digest, "nine bars").is_empty(), "{digest}");
    let lint = env.json(&["lint", "--check", "ungrounded"]);
    assert!(
        lint.to_string()
            .contains("Espresso is brewed at nine bars of pressure"),
        "{lint}"
    );
}

#[test]
fn a_note_written_in_the_wiki_keeps_its_citations_through_an_edit() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let out = env
        .cmd()
        .args(["--json", "note", "new", "-"])
        .write_stdin(COFFEE)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let saved: Value = serde_json::from_slice(&out).unwrap();
    let source = saved["source_id"].to_string();
    env.json(&["compile"]);
    let before = env.json(&["show", "--source", &source]);
    let first = citations_of(&before, "nine bars")[0].clone();

    env.cmd()
        .args(["note", "edit", &source, "-"])
        .write_stdin(COFFEE.replace("Intro line", "A longer intro line"))
        .assert()
        .success();
    let after = env.json(&["show", "--source", &source]);
    let moved = &citations_of(&after, "nine bars")[0];
    assert_eq!(
        moved["start"].as_u64().unwrap(),
        first["start"].as_u64().unwrap() + "A longer i".len() as u64 - "I".len() as u64,
        "{moved}"
    );
    assert_eq!(moved["quote"], first["quote"]);
    assert_eq!(moved["heading"], first["heading"]);
}
