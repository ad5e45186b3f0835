//! Unit tests that need the store's insides (the connection, the migration list).

use super::migrate::{apply, Migration};
use super::read::fts_query;
use super::*;
use crate::contract::{CheckedClaim, CompilationResult, Confidence};

fn source(store: &Store, origin: &str, text: &str) -> SourceId {
    store
        .ingest_source(&NewSource {
            origin: origin.to_owned(),
            kind: SourceKind::File,
            title: None,
            text: text.to_owned(),
        })
        .expect("ingest")
        .source_id()
}

fn result(title: &str, body: &str) -> CompilationResult {
    CompilationResult {
        title: title.to_owned(),
        summary: format!("About {title}."),
        key_claims: Vec::new(),
        concepts: vec!["Testing".to_owned()],
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: body.to_owned(),
    }
}

fn save(
    store: &Store,
    source_id: SourceId,
    result: &CompilationResult,
    claims: &[CheckedClaim],
) -> Result<SavedArticle> {
    store.save_article(&SaveArticle {
        source_id,
        result,
        claims,
        links: &[],
        truncated: false,
        record: &CompileRecord::default(),
    })
}

#[test]
fn a_failed_save_leaves_the_old_article_intact() {
    let store = Store::open_in_memory().expect("open");
    let id = source(&store, "/notes/a.md", "alpha");
    let claim = CheckedClaim {
        claim: "Old claim".to_owned(),
        confidence: Confidence::Sourced,
        quote: Some("alpha".to_owned()),
        grounded: true,
    };
    let first = save(&store, id, &result("Old Title", "old body words"), &[claim]).expect("save");

    // Make the last write of the transaction (the compile log row) fail.
    store
        .lock()
        .execute_batch(
            "CREATE TEMP TRIGGER fail_log BEFORE INSERT ON compilations
             BEGIN SELECT RAISE(ABORT, 'forced failure'); END;",
        )
        .expect("trigger");
    let err = save(&store, id, &result("New Title", "new body words"), &[])
        .expect_err("the save must fail");
    let message = err.to_string();
    assert!(
        message.contains("saving the article for source"),
        "{message}"
    );
    assert!(message.contains("forced failure"), "{message}");

    let article = store
        .article(first.article_id)
        .expect("read")
        .expect("still there");
    assert_eq!(article.title, "Old Title");
    assert_eq!(article.body, "old body words");
    assert_eq!(article.claims.len(), 1);
    assert_eq!(article.concepts, vec!["Testing".to_owned()]);
    assert_eq!(store.search("new").expect("search"), Vec::new());
    assert_eq!(store.search("old").expect("search").len(), 1);
    assert_eq!(store.find_article("new title").expect("find"), None);
}

#[test]
fn a_changed_migration_is_refused_naming_the_file() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    let original = [Migration {
        version: 1,
        name: "0001_init.sql",
        sql: "CREATE TABLE t (x INTEGER);",
    }];
    apply(&mut conn, "test.db", &original).expect("first apply");
    apply(&mut conn, "test.db", &original).expect("reapplying is a no-op");

    let edited = [Migration {
        sql: "CREATE TABLE t (x INTEGER, y TEXT);",
        ..original[0]
    }];
    let err = apply(&mut conn, "test.db", &edited).expect_err("must refuse");
    let message = err.to_string();
    assert!(
        message.contains("migration 0001_init.sql was changed after it was applied"),
        "{message}"
    );
}

#[test]
fn a_database_newer_than_the_build_is_refused() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    let both = [
        Migration {
            version: 1,
            name: "0001_a.sql",
            sql: "CREATE TABLE a (x);",
        },
        Migration {
            version: 2,
            name: "0002_b.sql",
            sql: "CREATE TABLE b (x);",
        },
    ];
    apply(&mut conn, "test.db", &both).expect("apply");
    let err = apply(&mut conn, "test.db", &both[..1]).expect_err("must refuse");
    assert!(
        matches!(err, StoreError::NewerSchema { version: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("0002_b.sql"), "{err}");
}

#[test]
fn a_broken_migration_applies_nothing_of_itself() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    let list = [
        Migration {
            version: 1,
            name: "0001_a.sql",
            sql: "CREATE TABLE a (x);",
        },
        Migration {
            version: 2,
            name: "0002_b.sql",
            sql: "CREATE TABLE b (x); SELEC oops;",
        },
    ];
    let err = apply(&mut conn, "test.db", &list).expect_err("must fail");
    assert!(
        err.to_string().contains("migration 0002_b.sql failed"),
        "{err}"
    );
    let tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('a', 'b')",
            [],
            |row| row.get(0),
        )
        .expect("count");
    assert_eq!(tables, 1, "0001 stays applied, 0002 rolled back");
}

#[test]
fn every_migration_file_is_embedded_in_order() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("migrations dir")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sql"))
        .collect();
    files.sort();
    let listed: Vec<&str> = MIGRATIONS.iter().map(|m| m.name).collect();
    assert_eq!(
        files, listed,
        "list every file of migrations/ in MIGRATIONS"
    );
    for (index, migration) in MIGRATIONS.iter().enumerate() {
        assert_eq!(migration.version, index as i64 + 1, "{}", migration.name);
        assert!(
            migration
                .name
                .starts_with(&format!("{:04}_", migration.version)),
            "{} must start with its version",
            migration.name
        );
        let on_disk = std::fs::read_to_string(dir.join(migration.name)).expect("read");
        assert_eq!(on_disk, migration.sql);
    }
}

#[test]
fn fts5_is_compiled_in() {
    let store = Store::open_in_memory().expect("open");
    let has: bool = store
        .lock()
        .query_row(
            "SELECT sqlite_compileoption_used('ENABLE_FTS5')",
            [],
            |row| row.get(0),
        )
        .expect("query");
    assert!(has);
}

#[test]
fn hostile_search_input_becomes_quoted_words() {
    let cases: &[(&str, Option<&str>)] = &[
        ("", None),
        ("   ", None),
        ("\"( AND * - NEAR )", Some("\"AND\" \"NEAR\"*")),
        ("rust", Some("\"rust\"*")),
        (
            "rust borrow-checker",
            Some("\"rust\" \"borrow\" \"checker\"*"),
        ),
        ("\"unbalanced ( AND * -", Some("\"unbalanced\" \"AND\"*")),
        ("Größe café", Some("\"Größe\" \"café\"*")),
        ("***", None),
    ];
    for (input, expected) in cases {
        assert_eq!(fts_query(input).as_deref(), *expected, "input {input:?}");
    }
}

#[test]
fn titles_normalise_case_and_whitespace() {
    assert_eq!(normalize_title("  Rust   Lang \n"), "rust lang");
    assert_eq!(normalize_title("ÄRGER"), "ärger");
    assert_eq!(normalize_title("   "), "");
}

#[test]
fn pragmas_are_set_on_file_databases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("nested/dir/wikimind.db")).expect("open");
    let conn = store.lock();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("q");
    let fk: i64 = conn
        .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
        .expect("q");
    let sync: i64 = conn
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .expect("q");
    let busy: i64 = conn
        .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
        .expect("q");
    assert_eq!(mode.to_lowercase(), "wal");
    assert_eq!(fk, 1);
    assert_eq!(sync, 1, "NORMAL");
    assert_eq!(busy, 5000);
}

#[test]
fn store_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Store>();
}
