//! Documents (PDF, EPUB, DOCX) and URL lists through the real binary: read from a folder
//! or named one by one, compiled through the stand-in server, refused with a reason when
//! broken. The fixtures are those of `wikimind-documents` (written by reportlab,
//! python-docx and ebooklib).

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../documents/tests/data")
        .join(name)
}

fn copy_fixture(env: &Env, name: &str) -> String {
    std::fs::create_dir_all(env.notes()).unwrap();
    let to = env.notes().join(name);
    std::fs::copy(fixture(name), &to).unwrap();
    to.to_str().unwrap().to_owned()
}

#[test]
fn a_folder_of_documents_is_read_counted_and_compiled() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note("plain.md", "# Plain\n\nA note beside the documents.\n");
    for name in [
        "running-headers.pdf",
        "book.epub",
        "footnotes.docx",
        "scan.pdf",
    ] {
        copy_fixture(&env, name);
    }
    let notes = env.notes().to_str().unwrap().to_owned();
    let ingested = env.json(&["ingest", &notes]);
    let sources = ingested["sources"].as_array().unwrap();
    let formats: Vec<(&str, &str)> = sources
        .iter()
        .map(|s| {
            (
                s["title"].as_str().unwrap(),
                s["document"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        formats,
        [
            ("The Lighthouse Keeper", "epub"),
            ("Field Notes on Rivers", "docx"),
            ("Plain", "-"),
            ("running-headers", "pdf"),
        ]
    );
    // The scan has no text layer: skipped with the reason, the rest kept.
    let skipped = &ingested["skipped"][0];
    assert!(skipped["path"].as_str().unwrap().ends_with("scan.pdf"));
    assert_eq!(skipped["reason"]["reason"], "bad_document");
    assert!(
        skipped["reason"]["message"]
            .as_str()
            .unwrap()
            .contains("no OCR"),
        "{skipped}"
    );
    // Said in words too: how many documents, and the skip.
    env.cmd()
        .args(["ingest", &notes])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "3 read from documents: 1 DOCX, 1 EPUB, 1 PDF\n",
        ))
        .stdout(predicate::str::contains("skipped 1: 1 bad_document"));

    // The six-page PDF compiles through the stand-in, and what the model was given is the
    // text of its pages in order, running header gone.
    let reports = env.json(&["compile"]);
    assert!(
        reports.as_array().unwrap().iter().all(|r| r["ok"] == true),
        "{reports}"
    );
    let prompt = server
        .chat_requests()
        .iter()
        .map(|r| r.user_message())
        .find(|m| m.contains("BODY1 "))
        .expect("the PDF's text reached the model");
    let at = |marker: &str| {
        prompt
            .find(marker)
            .unwrap_or_else(|| panic!("{marker}: {prompt}"))
    };
    assert!(at("BODY1 ") < at("BODY2 ") && at("BODY5 ") < at("BODY6 "));
    assert!(
        !prompt.contains("Proceedings of the Fixture Society"),
        "{prompt}"
    );
    let digest = env.json(&["show", "--source", "running-headers"]);
    assert!(digest["title"].is_string(), "{digest}");
}

#[test]
fn one_document_named_is_read_and_a_broken_one_is_refused() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let pdf = copy_fixture(&env, "columns-2.pdf");
    let ingested = env.json(&["ingest", &pdf]);
    assert_eq!(ingested["sources"][0]["title"], "2 columns");
    assert_eq!(ingested["sources"][0]["document"], "pdf");

    let truncated = copy_fixture(&env, "truncated.pdf");
    env.cmd()
        .args(["ingest", &truncated])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "truncated.pdf: the PDF is damaged",
        ));
    let bomb = copy_fixture(&env, "zip-bomb.docx");
    env.cmd()
        .args(["ingest", &bomb])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "zip-bomb.docx: word/document.xml once inflated is larger than the limit",
        ));
    // Nothing broken was stored; the good PDF still is.
    assert_eq!(env.json(&["sources"]).as_array().unwrap().len(), 1);
}

#[test]
fn without_pdftotext_a_pdf_is_refused_with_what_to_install() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let pdf = copy_fixture(&env, "columns-1.pdf");
    let empty = env.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    env.cmd()
        .env("PATH", &empty)
        .args(["ingest", &pdf])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "reading PDF needs `pdftotext`, which is not installed — install poppler-utils",
        ));
}

#[test]
fn a_url_list_keeps_what_it_can_and_names_each_failure() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let base = server.url();
    let list = env.dir.path().join("urls.txt");
    std::fs::write(
        &list,
        format!(
            "# reading list\n\n{base}/page/one\n  {base}/page/two  \n{base}/missing/three\n\
             {base}/page/one\nnot a url\n"
        ),
    )
    .unwrap();
    env.write_note("plain.md", "# Plain\n\nA note named beside the list.\n");
    let out = env
        .cmd()
        .arg("--json")
        .args([
            "ingest",
            "--urls",
            list.to_str().unwrap(),
            &env.note_path("plain.md"),
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "/missing/three: the server answered 404",
        ))
        .get_output()
        .stdout
        .clone();
    let json: Value = serde_json::from_slice(&out).unwrap();
    let titles: Vec<&str> = json["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Plain", "Page one", "Page two"]);
    let failed = json["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 2, "{json}");
    assert_eq!(failed[0]["url"], format!("{base}/missing/three"));
    assert!(failed[0]["reason"].as_str().unwrap().contains("404"));
    assert_eq!(failed[1]["url"], "not a url");
    assert!(json["skipped"].is_array());
    // What was fetched is stored.
    assert_eq!(env.json(&["sources"]).as_array().unwrap().len(), 3);

    // A list whose every URL works succeeds, in words too.
    std::fs::write(&list, format!("{base}/page/four\n")).unwrap();
    env.cmd()
        .args(["ingest", "--urls", list.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 of 1 listed URLs failed"));
    env.cmd()
        .args(["ingest", "--urls", "/no/such/list.txt"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot read the URL list"));
}
