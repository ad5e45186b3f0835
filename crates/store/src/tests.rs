//! Unit tests that need the store's insides (the connection, the migration list).

use super::migrate::{apply, Migration};
use super::read::digests::fts_query;
use super::*;
use crate::fixtures;
use wikimind_contract::{CheckedClaim, CompilationResult, Confidence};

fn source(store: &Store, origin: &str, text: &str) -> SourceId {
    store
        .ingest_source(&NewSource {
            origin: origin.to_owned(),
            kind: SourceKind::File,
            title: None,
            text: text.to_owned(),
            tags: Vec::new(),
            aliases: Vec::new(),
            root: None,
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
        claims,
        ..fixtures::digest(source_id, result)
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
    assert_eq!(store.search_pages("new").expect("search"), Vec::new());
    assert_eq!(store.search_pages("old").expect("search").len(), 1);
    assert_eq!(store.find_article("new title").expect("find"), None);
    // The pages too: the old page is as it was, and the new title made none.
    assert_eq!(store.find_page("new title").expect("find"), None);
    let page = store
        .page(first.page_id.unwrap())
        .expect("read")
        .expect("the old page");
    assert_eq!((page.title.as_str(), page.version), ("Old Title", 1));
    assert_eq!(page.body, "old body words");
    assert_eq!(page.claims[0].source_ids, [id]);
    assert_eq!(
        store
            .page_history(first.page_id.unwrap())
            .expect("history")
            .len(),
        1
    );
}

#[test]
fn a_changed_migration_is_refused_naming_the_file() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    let original = [Migration::sql(
        1,
        "0001_init.sql",
        "CREATE TABLE t (x INTEGER);",
    )];
    apply(&mut conn, "test.db", &original).expect("first apply");
    apply(&mut conn, "test.db", &original).expect("reapplying is a no-op");

    let edited = [Migration::sql(
        1,
        "0001_init.sql",
        "CREATE TABLE t (x INTEGER, y TEXT);",
    )];
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
        Migration::sql(1, "0001_a.sql", "CREATE TABLE a (x);"),
        Migration::sql(2, "0002_b.sql", "CREATE TABLE b (x);"),
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
        Migration::sql(1, "0001_a.sql", "CREATE TABLE a (x);"),
        Migration::sql(2, "0002_b.sql", "CREATE TABLE b (x); SELEC oops;"),
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

/// A parent table with a child pointing at it (`ON DELETE CASCADE`), and two rows each.
const PARENT_AND_CHILD: &str = "
    CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE child (id INTEGER PRIMARY KEY,
                        parent_id INTEGER NOT NULL REFERENCES parent(id) ON DELETE CASCADE);
    INSERT INTO parent VALUES (1, 'a'), (2, 'b');
    INSERT INTO child VALUES (10, 1), (20, 2);";

/// Rebuilds `parent` with a new check, the way a schema change of a constraint must.
const REBUILD_PARENT: &str = "
    CREATE TABLE parent_new (id INTEGER PRIMARY KEY,
                             name TEXT NOT NULL CHECK (length(name) > 0));
    INSERT INTO parent_new SELECT id, name FROM parent;
    DROP TABLE parent;
    ALTER TABLE parent_new RENAME TO parent;";

fn child_rows(conn: &rusqlite::Connection) -> i64 {
    conn.query_row("SELECT COUNT(*) FROM child", [], |row| row.get(0))
        .expect("count")
}

fn foreign_keys_on(conn: &rusqlite::Connection) -> bool {
    conn.query_row("PRAGMA foreign_keys", [], |row| row.get(0))
        .expect("pragma")
}

#[test]
fn a_table_rebuild_keeps_the_rows_that_point_at_it() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    conn.pragma_update(None, "foreign_keys", "ON")
        .expect("fk on");
    let list = [
        Migration::sql(1, "0001_a.sql", PARENT_AND_CHILD),
        Migration::rebuild(2, "0002_rebuild.sql", REBUILD_PARENT),
    ];
    apply(&mut conn, "test.db", &list).expect("apply");
    assert_eq!(child_rows(&conn), 2, "dropping the old parent cascaded");
    assert!(
        foreign_keys_on(&conn),
        "foreign keys are back on after a rebuild"
    );

    // The same SQL as a plain migration (foreign keys on) loses the children: the reason
    // rebuilds are declared as such.
    let mut plain = rusqlite::Connection::open_in_memory().expect("open");
    plain
        .pragma_update(None, "foreign_keys", "ON")
        .expect("fk on");
    let list = [
        Migration::sql(1, "0001_a.sql", PARENT_AND_CHILD),
        Migration::sql(2, "0002_rebuild.sql", REBUILD_PARENT),
    ];
    apply(&mut plain, "test.db", &list).expect("apply");
    assert_eq!(child_rows(&plain), 0);
}

#[test]
fn a_rebuild_that_leaves_dangling_rows_is_rolled_back_naming_them() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    conn.pragma_update(None, "foreign_keys", "ON")
        .expect("fk on");
    let lossy = "
        CREATE TABLE parent_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        INSERT INTO parent_new SELECT id, name FROM parent WHERE id = 1;
        DROP TABLE parent;
        ALTER TABLE parent_new RENAME TO parent;";
    let list = [
        Migration::sql(1, "0001_a.sql", PARENT_AND_CHILD),
        Migration::rebuild(2, "0002_lossy.sql", lossy),
    ];
    let err = apply(&mut conn, "test.db", &list).expect_err("must refuse");
    let message = err.to_string();
    assert!(
        matches!(err, StoreError::MigrationBrokeReferences { count: 1, .. }),
        "{message}"
    );
    assert!(message.contains("0002_lossy.sql"), "{message}");
    assert!(message.contains("child row 20 → parent"), "{message}");
    let parents: i64 = conn
        .query_row("SELECT COUNT(*) FROM parent", [], |row| row.get(0))
        .expect("count");
    assert_eq!((parents, child_rows(&conn)), (2, 2), "nothing changed");
    assert!(
        foreign_keys_on(&conn),
        "foreign keys are back on after a failure"
    );
    let version: i64 = conn
        .query_row("SELECT MAX(version) FROM schema_migrations", [], |row| {
            row.get(0)
        })
        .expect("version");
    assert_eq!(version, 1);
}

fn upper_names(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let names: Vec<(i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, name FROM parent")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (id, name) in names {
        // Unicode-aware, which SQLite's upper() is not.
        tx.execute(
            "UPDATE parent SET name = ?2 WHERE id = ?1",
            (id, name.to_uppercase()),
        )?;
    }
    Ok(())
}

fn failing_step(_tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    Err(rusqlite::Error::InvalidQuery)
}

#[test]
fn rust_steps_run_in_order_with_the_sql_files() {
    let mut conn = rusqlite::Connection::open_in_memory().expect("open");
    let list = [
        Migration::sql(1, "0001_a.sql", PARENT_AND_CHILD),
        Migration::rust(2, "0002_upper.rs", "upper-case names", upper_names),
        Migration::sql(3, "0003_c.sql", "INSERT INTO parent VALUES (3, 'é');"),
    ];
    apply(&mut conn, "test.db", &list).expect("apply");
    let names: Vec<String> = {
        let mut stmt = conn
            .prepare("SELECT name FROM parent ORDER BY id")
            .expect("prepare");
        let rows = stmt.query_map([], |row| row.get(0)).expect("query");
        rows.collect::<rusqlite::Result<_>>().expect("rows")
    };
    assert_eq!(
        names,
        ["A", "B", "é"],
        "the step ran after 0001, before 0003"
    );
    apply(&mut conn, "test.db", &list).expect("reapplying is a no-op");

    // A revised step is refused like an edited file.
    let revised = [
        list[0],
        Migration::rust(2, "0002_upper.rs", "upper-case names, v2", upper_names),
        list[2],
    ];
    let err = apply(&mut conn, "test.db", &revised).expect_err("must refuse");
    assert!(err.to_string().contains("0002_upper.rs"), "{err}");

    // A failing step applies nothing of itself and names itself.
    let mut fresh = rusqlite::Connection::open_in_memory().expect("open");
    let list = [
        Migration::sql(1, "0001_a.sql", PARENT_AND_CHILD),
        Migration::rust(2, "0002_fails.rs", "fails", failing_step),
    ];
    let err = apply(&mut fresh, "test.db", &list).expect_err("must fail");
    assert!(
        err.to_string().contains("migration 0002_fails.rs failed"),
        "{err}"
    );
}

#[test]
fn every_migration_file_is_embedded_in_order() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("migrations dir")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sql"))
        .collect();
    files.sort();
    // Rust steps have no file; every SQL migration is a file of the directory.
    let listed: Vec<&str> = MIGRATIONS
        .iter()
        .filter(|m| m.sql_text().is_some())
        .map(|m| m.name)
        .collect();
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
        if let Some(sql) = migration.sql_text() {
            let on_disk = std::fs::read_to_string(dir.join(migration.name)).expect("read");
            assert_eq!(on_disk, sql);
        }
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

/// Regression: a 10 MB query passed every word to FTS5, whose parser is quadratic in terms.
#[test]
fn a_query_searches_its_first_distinct_words_only() {
    assert_eq!(
        fts_query("Rust rust RUST borrow").as_deref(),
        Some("\"Rust\" \"borrow\"*")
    );
    let long: String = (0..100_000).map(|i| format!("w{i} ")).collect();
    let query = fts_query(&long).unwrap();
    assert_eq!(query.matches('"').count(), 2 * super::MAX_QUERY_TERMS);
    assert!(query.starts_with("\"w0\" \"w1\" "), "{query}");
}

#[test]
fn titles_are_matched_by_the_page_key() {
    assert_eq!(page_key("  Rust   Lang \n"), "rust lang");
    assert_eq!(page_key("ÄRGER"), "arger");
    assert_eq!(page_key("Espressos"), page_key("espresso"));
    assert_eq!(page_key("   "), "");
    assert_eq!(page_key(" ??  ! "), "?? !");
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
    let mmap: i64 = conn
        .query_row("PRAGMA mmap_size", [], |r| r.get(0))
        .expect("q");
    assert_eq!(mode.to_lowercase(), "wal");
    assert_eq!(fk, 1);
    assert_eq!(sync, 1, "NORMAL");
    assert_eq!(busy, 5000);
    assert_eq!(mmap, MMAP_SIZE);
    drop(conn);
    // A read connection maps the file too.
    let read = store.read(
        || "reading mmap_size".to_owned(),
        |conn| Ok(conn.query_row("PRAGMA mmap_size", [], |r| r.get::<_, i64>(0))?),
    );
    assert_eq!(read.expect("read"), MMAP_SIZE);
}

#[test]
fn store_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Store>();
}

#[test]
fn a_final_url_follows_each_ingest_and_never_changes_the_identity() {
    let store = Store::open_in_memory().expect("open");
    let page = NewSource {
        origin: "https://example.com/start".to_owned(),
        kind: SourceKind::Url,
        title: None,
        text: "page".to_owned(),
        tags: Vec::new(),
        aliases: Vec::new(),
        root: None,
    };
    let final_url = |store: &Store, id| store.source(id).expect("read").expect("source").final_url;
    let first = store
        .ingest_source_from(&page, Some("https://example.com/one"))
        .expect("ingest");
    let id = first.source_id();
    assert_eq!(
        final_url(&store, id).as_deref(),
        Some("https://example.com/one")
    );
    // Same text, redirected elsewhere now: the same source, the new final URL.
    let again = store
        .ingest_source_from(&page, Some("https://example.com/two"))
        .expect("ingest");
    assert_eq!(again, IngestOutcome::Unchanged(id));
    assert_eq!(
        final_url(&store, id).as_deref(),
        Some("https://example.com/two")
    );
    // No redirect any more, and new text.
    let changed = NewSource {
        text: "page, edited".to_owned(),
        ..page
    };
    assert_eq!(
        store.ingest_source_from(&changed, None).expect("ingest"),
        IngestOutcome::Changed(id)
    );
    assert_eq!(final_url(&store, id), None);
    assert_eq!(store.sources().expect("list")[0].final_url, None);
}

/// The columns every job had before page jobs: migration 9 carries each of them as it was.
const JOB_COLUMNS_V8: &str = "id, source_id, state, attempts, error, settings, owner_host, \
     owner_pid, heartbeat_at, cancel_requested, created_at, updated_at";

fn job_rows(conn: &rusqlite::Connection) -> Vec<String> {
    let mut stmt = conn
        .prepare(&format!("SELECT {JOB_COLUMNS_V8} FROM jobs ORDER BY id"))
        .expect("prepare");
    let rows = stmt
        .query_map([], |row| {
            (0..12)
                .map(|i| row.get::<_, rusqlite::types::Value>(i))
                .map(|cell| cell.map(|v| format!("{v:?}")))
                .collect::<rusqlite::Result<Vec<_>>>()
                .map(|cells| cells.join("|"))
        })
        .expect("query");
    rows.collect::<rusqlite::Result<_>>().expect("rows")
}

/// A version 8 wiki's queue as a person's machine may hold it (a job waiting with a model
/// asked for, one leased to a live process with a cancel asked, one done, one failed, one
/// cancelled) opens in this build with every job kept, as a source job.
#[test]
fn a_version_8_queue_is_carried_into_page_jobs_with_every_job_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    let before = {
        let mut conn = rusqlite::Connection::open(&path).expect("open");
        conn.pragma_update(None, "foreign_keys", "ON")
            .expect("fk on");
        let v8: Vec<Migration> = MIGRATIONS
            .iter()
            .copied()
            .filter(|m| m.version <= 8)
            .collect();
        assert_eq!(v8.len(), 8);
        apply(&mut conn, "v8.db", &v8).expect("a version 8 database");
        conn.execute_batch(
            "INSERT INTO sources (id, origin, kind, text, content_hash, status)
             VALUES (1, '/n/a.md', 'file', 'a', 'h1', 'pending'),
                    (2, '/n/b.md', 'file', 'b', 'h2', 'compiling'),
                    (3, '/n/c.md', 'file', 'c', 'h3', 'failed');
             INSERT INTO jobs (id, source_id, state, attempts, error, settings, owner_host,
                               owner_pid, heartbeat_at, cancel_requested, created_at,
                               updated_at)
             VALUES (4, 1, 'queued', 0, NULL, '{\"model\":\"llama3.2\"}', NULL, NULL, NULL, 0,
                     '2025-01-01T10:00:00.000Z', '2025-01-01T10:00:00.000Z'),
                    (5, 2, 'running', 2, NULL, '{}', 'host-a', 4242,
                     '2025-01-01T10:01:00.000Z', 1,
                     '2025-01-01T09:00:00.000Z', '2025-01-01T10:00:30.000Z'),
                    (6, 1, 'done', 1, NULL, '{}', 'host-a', 17, '2025-01-01T08:00:00.000Z', 0,
                     '2025-01-01T07:00:00.000Z', '2025-01-01T08:00:00.000Z'),
                    (7, 3, 'failed', 3, 'Ollama is not running', '{}', NULL, NULL, NULL, 0,
                     '2025-01-01T07:00:00.000Z', '2025-01-01T07:30:00.000Z'),
                    (9, 3, 'cancelled', 1, NULL, '{}', NULL, NULL, NULL, 0,
                     '2025-01-01T07:40:00.000Z', '2025-01-01T07:45:00.000Z');",
        )
        .expect("a queue");
        job_rows(&conn)
    };
    assert_eq!(before.len(), 5);

    let store = Store::open(&path).expect("upgrade");
    drop(store);
    let conn = rusqlite::Connection::open(&path).expect("open raw");
    assert_eq!(job_rows(&conn), before, "every job as it was");
    let kinds: Vec<(String, Option<i64>)> = {
        let mut stmt = conn
            .prepare("SELECT kind, page_id FROM jobs ORDER BY id")
            .expect("prepare");
        let rows = stmt
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .expect("query");
        rows.collect::<rusqlite::Result<_>>().expect("rows")
    };
    assert!(
        kinds.iter().all(|k| *k == ("source".to_owned(), None)),
        "{kinds:?}"
    );
    // A job must name what it works on as its kind says.
    let page_job_without_page =
        conn.execute("INSERT INTO jobs (kind, source_id) VALUES ('page', 1)", []);
    assert!(page_job_without_page.is_err());
    drop(conn);

    // What the runner then does with it.
    let store = Store::open(&path).expect("reopen");
    let jobs = store.jobs().expect("jobs");
    let seen: Vec<(i64, JobTarget, JobState)> =
        jobs.iter().map(|j| (j.id.0, j.target, j.state)).collect();
    assert_eq!(
        seen,
        [
            (9, JobTarget::Source(SourceId(3)), JobState::Cancelled),
            (7, JobTarget::Source(SourceId(3)), JobState::Failed),
            (6, JobTarget::Source(SourceId(1)), JobState::Done),
            (5, JobTarget::Source(SourceId(2)), JobState::Running),
            (4, JobTarget::Source(SourceId(1)), JobState::Queued),
        ]
    );
    let queued = jobs.iter().find(|j| j.id.0 == 4).expect("job 4");
    assert_eq!(queued.settings.model.as_deref(), Some("llama3.2"));
    let running = jobs.iter().find(|j| j.id.0 == 5).expect("job 5");
    assert!(running.cancel_requested);
    assert_eq!(
        running.owner,
        Some(JobOwner {
            host: "host-a".into(),
            pid: 4242
        })
    );
    // Its owner is gone: it is put back in line beside the one queued.
    assert_eq!(
        store
            .recover_interrupted(std::time::Duration::from_secs(60), &|_| true)
            .expect("recover"),
        1
    );
    let owner = JobOwner {
        host: "here".into(),
        pid: 1,
    };
    let first = store.start_next(&owner).expect("start").expect("job 4");
    assert_eq!(first.id.0, 4);
}

/// A person asks for a wanted name: it gets a page fed by the one source whose digest
/// names it (below `pages.min_sources`, for this one request), waiting to be written; a
/// name with a page or that no digest names makes nothing.
#[test]
fn asking_for_a_wanted_name_makes_its_page_from_the_sources_that_name_it() {
    let store = Store::open_in_memory().expect("open");
    store.set_min_sources(2);
    let id = source(&store, "/notes/a.md", "alpha");
    save(&store, id, &result("Alpha", "Alpha is tested."), &[]).expect("save");
    assert_eq!(
        store.find_page("Testing").unwrap(),
        None,
        "one source: no page"
    );

    let asked = store.ask_for_page(" testing ").unwrap();
    let page = store.find_page("Testing").unwrap().expect("made");
    assert_eq!(asked, AskedPage::Made { page, sources: 1 });
    let made = store.page(page).unwrap().unwrap();
    assert_eq!(made.title, "Testing", "titled as the digest spells it");
    assert_eq!(made.stale_reason.as_deref(), Some("asked for by you"));

    assert_eq!(
        store.ask_for_page("Testing").unwrap(),
        AskedPage::Exists(page)
    );
    // Compiled again, the one source still names it: the page asked for stays.
    save(&store, id, &result("Alpha", "Alpha is tested again."), &[]).expect("save");
    assert_eq!(store.find_page("Testing").unwrap(), Some(page));
    assert_eq!(
        store.ask_for_page("Nothing Named").unwrap(),
        AskedPage::Unnamed
    );
    assert_eq!(store.ask_for_page("  ").unwrap(), AskedPage::Unnamed);
}

/// Migration 20: digest titles, concept names and link targets keyed by the page key, so a
/// digest's `[[espressos]]` finds the `Espresso` digest; names that now share a key are one.
#[test]
fn a_version_19_wiki_is_rekeyed_to_the_one_title_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    {
        let mut conn = rusqlite::Connection::open(&path).expect("open");
        conn.pragma_update(None, "foreign_keys", "ON")
            .expect("fk on");
        let v19: Vec<Migration> = MIGRATIONS
            .iter()
            .copied()
            .filter(|m| m.version <= 19)
            .collect();
        apply(&mut conn, "v19.db", &v19).expect("a version 19 database");
        conn.execute_batch(
            "INSERT INTO sources (id, origin, kind, text, content_hash, status) VALUES
                 (1, '/n/a.md', 'file', 'a', 'h1', 'compiled'),
                 (2, '/n/b.md', 'file', 'b', 'h2', 'compiled'),
                 (3, '/n/c.md', 'file', 'c', 'h3', 'compiled');
             INSERT INTO articles (id, source_id, title, title_norm, summary, body, provider,
                                   model, prompt_version) VALUES
                 (1, 1, 'Espresso', 'espresso', 's', 'b', 'p', 'm', 'v'),
                 (2, 2, 'Café Crème', 'café crème', 's', 'b', 'p', 'm', 'v'),
                 (3, 3, 'Milk Foam', 'milk foam', 's', 'b', 'p', 'm', 'v');
             INSERT INTO concepts (id, name, name_norm) VALUES
                 (1, 'Crema', 'crema'), (2, 'cremas', 'cremas'), (3, 'Tamper', 'tamper'),
                 (4, 'Crèma', 'crèma');
             INSERT INTO article_concepts (article_id, concept_id, position, named) VALUES
                 (1, 1, 2, 1), (1, 2, 0, 0), (2, 2, 1, 1), (2, 3, 0, 1), (3, 4, 0, 1);
             INSERT INTO links (id, from_article, position, target_title, target_norm,
                                to_article, context) VALUES
                 (1, 3, 0, 'espressos', 'espressos', NULL, ''),
                 (2, 3, 1, 'Espresso', 'espresso', 1, 'on an espresso'),
                 (3, 3, 2, 'Cafe Creme', 'cafe creme', NULL, 'with a cafe creme'),
                 (4, 2, 0, 'cafe crèmes', 'cafe crèmes', NULL, 'its own plural'),
                 (5, 1, 0, 'Milk foams', 'milk foams', NULL, '');",
        )
        .expect("a version 19 wiki");
    }
    drop(Store::open(&path).expect("upgrade"));
    let conn = rusqlite::Connection::open(&path).expect("open raw");
    let rows = |sql: &str| -> Vec<String> {
        let mut stmt = conn.prepare(sql).expect(sql);
        let n = stmt.column_count();
        stmt.query_map([], |r| {
            (0..n)
                .map(|i| {
                    r.get::<_, rusqlite::types::Value>(i)
                        .map(|v| format!("{v:?}"))
                })
                .collect::<rusqlite::Result<Vec<_>>>()
                .map(|cells| cells.join("|"))
        })
        .expect(sql)
        .collect::<rusqlite::Result<_>>()
        .expect(sql)
    };
    assert_eq!(
        rows("SELECT title_norm FROM articles ORDER BY id"),
        [
            "Text(\"espresso\")",
            "Text(\"cafe creme\")",
            "Text(\"milk foam\")"
        ]
    );
    // Crema, cremas and Crèma are one concept, the oldest; each digest names it once, at
    // the first place it named any of them, named when it named any by name.
    assert_eq!(
        rows("SELECT id, name, name_norm FROM concepts ORDER BY id"),
        [
            "Integer(1)|Text(\"Crema\")|Text(\"crema\")",
            "Integer(3)|Text(\"Tamper\")|Text(\"tamper\")"
        ]
    );
    assert_eq!(
        rows("SELECT article_id, concept_id, position, named FROM article_concepts ORDER BY 1, 2"),
        [
            "Integer(1)|Integer(1)|Integer(0)|Integer(1)",
            "Integer(2)|Integer(1)|Integer(1)|Integer(1)",
            "Integer(2)|Integer(3)|Integer(0)|Integer(1)",
            "Integer(3)|Integer(1)|Integer(0)|Integer(1)"
        ]
    );
    // Milk Foam's two links to Espresso are one (the first, with the other's context),
    // resolved; Café Crème's link to its own plural is gone; every link resolves by key.
    assert_eq!(
        rows("SELECT id, from_article, target_norm, to_article, context FROM links ORDER BY id"),
        [
            "Integer(1)|Integer(3)|Text(\"espresso\")|Integer(1)|Text(\"on an espresso\")",
            "Integer(3)|Integer(3)|Text(\"cafe creme\")|Integer(2)|Text(\"with a cafe creme\")",
            "Integer(5)|Integer(1)|Text(\"milk foam\")|Integer(3)|Text(\"\")"
        ]
    );
    let check: Option<String> = conn
        .query_row("PRAGMA foreign_key_check", [], |r| r.get(0))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })
        .expect("check");
    assert_eq!(check, None);
}

/// The search as migration 23 found it: every match ranked, no prefix index.
const SEARCH_BEFORE_23: &str = "SELECT p.id, p.title,
        snippet(pages_fts, -1, char(57344), char(57345), '…', 16)
 FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid
 WHERE pages_fts MATCH ?1
 ORDER BY bm25(pages_fts, 10.0, 6.0, 4.0, 2.0, 1.0)
 LIMIT 50";

/// Migration 23 rebuilds the full-text index with prefix indexes: a wiki upgraded to it
/// finds the same pages, in the same order, with the same excerpts, for whole words and
/// for the first letters of one as typed; and the triggers of pages write to the new
/// index (a page written after the upgrade is found by its first letter).
#[test]
fn search_finds_the_same_pages_in_the_same_order_after_the_prefix_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    let before: usize = MIGRATIONS
        .iter()
        .position(|m| m.name == "0023_search_prefixes.sql")
        .expect("migration 23");
    let queries = [
        "e", "ex", "ext", "tide", "tides oc", "moon p", "pull", "crust ma", "ocean",
    ];
    let mut found_before = Vec::new();
    {
        let mut conn = rusqlite::Connection::open(&path).expect("open");
        apply(&mut conn, "test.db", &MIGRATIONS[..before]).expect("the older schema");
        let bodies = [
            ("Tides", "The moon pulls the oceans into tides twice a day."),
            ("Volcanoes", "Magma rises through the crust and explodes."),
            (
                "Extraction",
                "Espresso extraction pulls oils from the puck.",
            ),
            (
                "Ocean currents",
                "Tides and winds move the ocean; extra heat expands it.",
            ),
            (
                "Moon phases",
                "The moon passes through phases as it orbits.",
            ),
            (
                "Pressure",
                "Extraction at nine bars of pressure; pulls tides? No.",
            ),
        ];
        for (title, body) in bodies {
            conn.execute(
                "INSERT INTO pages (title, title_key, summary, body) VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![title, page_key(title), format!("{title} explained."), body],
            )
            .expect("a page");
        }
        for q in queries {
            let fts = fts_query(q).expect("a query");
            let mut stmt = conn.prepare(SEARCH_BEFORE_23).expect("prepare");
            let hits: Vec<(PageId, String, String)> = stmt
                .query_map([fts], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .expect("query")
                .collect::<rusqlite::Result<_>>()
                .expect("rows");
            found_before.push(hits);
        }
    }
    let store = Store::open(&path).expect("upgrade");
    for (q, before) in queries.iter().zip(&found_before) {
        let hits: Vec<(PageId, String, String)> = store
            .search_pages(q)
            .expect("search")
            .into_iter()
            .map(|h| (h.page_id, h.title, h.snippet))
            .collect();
        assert!(!before.is_empty(), "{q:?} finds pages");
        assert_eq!(&hits, before, "{q:?}");
    }
    let src = source(&store, "/n/new.md", "new");
    save(
        &store,
        src,
        &result("Zeppelins", "Airships of the thirties."),
        &[],
    )
    .expect("save");
    let hits = store.search_pages("z").expect("search");
    assert!(hits.iter().any(|h| h.title == "Zeppelins"), "{hits:?}");
}

/// A search matching more pages than it ranks ranks the most recent of them: every hit
/// is among them, best first by BM25 as before; with room for all, the order is that of
/// ranking every match.
#[test]
fn search_matching_many_pages_ranks_the_most_recent() {
    let store = Store::open_in_memory().expect("open");
    store.seed_bulk(&BulkSeed::new(200)).expect("seed");
    // Every summary of the seed reads "Title is …": the word is in every page.
    let every = store.search_pages_among("is", 1_000_000).expect("search");
    assert!(every.len() >= 50, "a broad query: {}", every.len());
    assert_eq!(store.search_pages("is").expect("search"), every);
    let bounded = store.search_pages_among("is", 60).expect("search");
    assert_eq!(bounded.len(), 50);
    let newest_first: Vec<PageId> = {
        let mut ids: Vec<PageId> = store.pages().expect("pages").iter().map(|p| p.id).collect();
        ids.sort_by(|a, b| b.cmp(a));
        ids
    };
    let recent: Vec<PageId> = newest_first.into_iter().take(60).collect();
    assert!(bounded.iter().all(|h| recent.contains(&h.page_id)));
    // Among the recent ones, the order ranking every match gives them.
    let every_recent: Vec<PageId> = store
        .search_pages_among("is", 1_000_000)
        .expect("search")
        .into_iter()
        .map(|h| h.page_id)
        .filter(|id| recent.contains(id))
        .collect();
    let bounded_ids: Vec<PageId> = bounded.iter().map(|h| h.page_id).collect();
    assert!(!every_recent.is_empty());
    assert_eq!(bounded_ids[..every_recent.len()], every_recent);
}

/// The wanted pages and counts as they were read before migration 24 (link by link).
const WANTED_BEFORE_24: &str = "SELECT (SELECT l2.target_title FROM page_links l2
         WHERE l2.target_key = l.target_key
         ORDER BY l2.page_id, l2.position LIMIT 1),
        COUNT(DISTINCT l.page_id) AS mentions
 FROM page_links l
 WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.title_key = l.target_key)
   AND NOT EXISTS (SELECT 1 FROM aliases a WHERE a.name_key = l.target_key AND a.former = 1)
 GROUP BY l.target_key
 ORDER BY mentions DESC, l.target_key";

/// The library read in passes over indexes lists the same pages, in the same order, with
/// the same source counts, tags, staleness and flags as reading them page by page; the
/// wanted pages and counts are those counted link by link.
#[test]
fn the_library_reads_the_same_from_its_indexes() {
    let store = Store::open_in_memory().expect("open");
    store.seed_bulk(&BulkSeed::new(150)).expect("seed");
    // A page fed by a second source, with tags of its own, and a stale page.
    let pages = store.pages_one_by_one().expect("pages");
    assert!(
        pages.iter().any(|p| !p.tags.is_empty()),
        "the seed has tags"
    );
    {
        let conn = store.lock();
        conn.execute(
            "UPDATE sources SET tags = '[\"Zeta\", \"alpha\", \"zeta\"]' WHERE id = ?1",
            [pages[3].id.0],
        )
        .expect("tags");
        conn.execute(
            "UPDATE pages SET stale_reason = 'a source changed', flagged = 'checked' WHERE id = ?1",
            [pages[5].id.0],
        )
        .expect("stale");
    }
    let listed = store.pages().expect("pages");
    assert_eq!(listed, store.pages_one_by_one().expect("pages"));
    assert!(listed.iter().any(|p| p.stale));
    assert!(listed.iter().any(|p| p.source_count > 1));
    // The heads a long list is ordered and narrowed by: the same pages in the same order,
    // with the same kinds, titles, times and tags.
    let heads: Vec<PageHead> = listed
        .iter()
        .map(|p| PageHead {
            id: p.id,
            kind: p.kind,
            title: p.title.clone(),
            updated_at: p.updated_at.clone(),
            tags: p.tags.clone(),
        })
        .collect();
    assert_eq!(store.page_heads().expect("heads"), heads);
    assert!(
        heads.iter().any(|p| p.tags.len() == 2),
        "Zeta and alpha, once each"
    );

    let wanted: Vec<(String, u32)> = store
        .wanted_page_links()
        .expect("wanted")
        .into_iter()
        .map(|w| (w.title, w.mentions))
        .collect();
    let before: Vec<(String, u32)> = {
        let conn = store.lock();
        let mut stmt = conn.prepare(WANTED_BEFORE_24).expect("prepare");
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("query");
        rows.collect::<rusqlite::Result<_>>().expect("rows")
    };
    assert!(!wanted.is_empty());
    assert_eq!(wanted, before);
    // The most wanted first, with the count of them all.
    let every = wanted.len() as u64;
    let titles = |w: Vec<WantedPage>| -> Vec<(String, u32)> {
        w.into_iter().map(|w| (w.title, w.mentions)).collect()
    };
    let (first, count) = store.wanted_pages_first(3).expect("first");
    assert_eq!((titles(first), count), (before[..3].to_vec(), every));
    let (none, count) = store.wanted_pages_first(0).expect("none");
    assert_eq!((none.len(), count), (0, every));
    let (all, _) = store.wanted_pages_first(usize::MAX).expect("all");
    assert_eq!(titles(all), before);
    let counts = store.page_counts().expect("counts");
    assert_eq!(counts.wanted, before.len() as u64);
    assert_eq!(
        store.page_counts_but_wanted().expect("counts"),
        PageCounts {
            wanted: 0,
            ..counts
        }
    );
}

/// Lint's census of the links, read in passes, gives what reading link by link gave: the
/// links of topic pages, those that resolve to no page (in page and position order, a
/// person's told apart), and the orphan pages.
#[test]
fn lint_counts_links_as_it_did_link_by_link() {
    let store = Store::open_in_memory().expect("open");
    store.seed_bulk(&BulkSeed::new(120)).expect("seed");
    // What the seed has none of: former names (one a title has taken since), links to
    // them, a page that links only to itself, a person's version, a saved answer's links.
    store
        .lock()
        .execute_batch(
            "INSERT INTO aliases (page_id, name, name_key, former)
                 VALUES (1, 'Old One', 'old one', 1), (2, 'Taken', (SELECT title_key FROM pages WHERE id = 3), 1);
             INSERT INTO page_links (page_id, position, target_title, target_key)
                 VALUES (4, 90, 'Old One', 'old one'), (5, 90, 'Taken', (SELECT title_key FROM pages WHERE id = 3)),
                        ((SELECT MIN(id) FROM pages p WHERE id > 8 AND NOT EXISTS
                              (SELECT 1 FROM page_links l WHERE l.target_key = p.title_key)),
                         90, 'Myself', (SELECT title_key FROM pages p WHERE id > 8 AND NOT EXISTS
                              (SELECT 1 FROM page_links l WHERE l.target_key = p.title_key)
                              ORDER BY id LIMIT 1)),
                        (7, 90, 'Nowhere Yet', 'nowhere yet');
             UPDATE page_versions SET author_kind = 'person'
                 WHERE page_id = 7 AND version = (SELECT version FROM pages WHERE id = 7);
             UPDATE pages SET kind = 'answer' WHERE id = 8;",
        )
        .expect("edge cases");
    let conn_rows = |sql: &str| -> Vec<(i64, String, String, String, bool)> {
        let conn = store.lock();
        let mut stmt = conn.prepare(sql).expect("prepare");
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .expect("query");
        rows.collect::<rusqlite::Result<_>>().expect("rows")
    };
    let before = conn_rows(
        "SELECT l.page_id, p.title, l.target_title, l.target_key,
                EXISTS (SELECT 1 FROM page_versions v
                        WHERE v.page_id = p.id AND v.version = p.version
                          AND v.author_kind = 'person')
         FROM page_links l JOIN pages p ON p.id = l.page_id
         WHERE p.kind = 'topic'
           AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.title_key = l.target_key)
           AND NOT EXISTS (SELECT 1 FROM aliases a WHERE a.name_key = l.target_key
                                                    AND a.former = 1)
         ORDER BY l.page_id, l.position",
    );
    let census = store.link_census().expect("census");
    let now: Vec<(i64, String, String, String, bool)> = census
        .unresolved
        .clone()
        .into_iter()
        .map(|l| {
            (
                l.page_id.0,
                l.page_title,
                l.target_title,
                l.target_key,
                l.by_person,
            )
        })
        .collect();
    assert!(!before.is_empty());
    assert!(before.iter().any(|l| l.4), "a person's link");
    assert_eq!(now, before);
    let links: i64 = store
        .lock()
        .query_row(
            "SELECT COUNT(*) FROM page_links l JOIN pages p ON p.id = l.page_id
             WHERE p.kind = 'topic'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(census.counts.links, links as u64);
    // The orphans: topic pages no link on another page resolves to, by their title or by
    // a former name no page has as its title.
    let orphans: Vec<(i64, String, String, i64)> = {
        let conn = store.lock();
        let mut stmt = conn
            .prepare(
                "SELECT p.id, p.title, p.title_key,
                        (SELECT COUNT(*) FROM page_sources ps WHERE ps.page_id = p.id)
                 FROM pages p
                 WHERE p.kind = 'topic'
                   AND NOT EXISTS (SELECT 1 FROM page_links l
                                   WHERE l.target_key = p.title_key AND l.page_id <> p.id)
                   AND NOT EXISTS (SELECT 1 FROM aliases a JOIN page_links l
                                       ON l.target_key = a.name_key
                                   WHERE a.page_id = p.id AND a.former = 1
                                     AND l.page_id <> p.id
                                     AND NOT EXISTS (SELECT 1 FROM pages q
                                                     WHERE q.title_key = a.name_key))
                 ORDER BY p.title_key",
            )
            .expect("prepare");
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .expect("query");
        rows.collect::<rusqlite::Result<_>>().expect("rows")
    };
    let listed: Vec<(i64, String, String, i64)> = census
        .orphans
        .iter()
        .map(|p| (p.id.0, p.title.clone(), p.key.clone(), i64::from(p.sources)))
        .collect();
    assert!(!orphans.is_empty());
    assert_eq!(listed, orphans);
    assert_eq!(
        census.counts.pages,
        store.page_counts().expect("counts").pages
    );
}

#[test]
fn a_file_keeps_the_widest_root_it_was_ingested_from() {
    let store = Store::open_in_memory().expect("open");
    let ingest = |root: Option<&str>, text: &str| {
        store
            .ingest_source(&NewSource {
                origin: "/v/a/Note.md".to_owned(),
                kind: SourceKind::File,
                title: None,
                text: text.to_owned(),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: root.map(str::to_owned),
            })
            .expect("ingest")
            .source_id()
    };
    let root = |id| store.source(id).expect("read").expect("source").root;
    // Alone: its own folder.
    let id = ingest(Some("/v/a"), "one");
    assert_eq!(root(id).as_deref(), Some("/v/a"));
    // Then with its vault: the vault.
    ingest(Some("/v"), "one");
    assert_eq!(root(id).as_deref(), Some("/v"));
    // Alone again, changed: it stays in its vault.
    ingest(Some("/v/a"), "two");
    assert_eq!(root(id).as_deref(), Some("/v"));
    ingest(None, "three");
    assert_eq!(root(id).as_deref(), Some("/v"));
    assert_eq!(
        store.sources().expect("list")[0].root.as_deref(),
        Some("/v")
    );
}

/// The thin pages as the bodies give them, read from the pages and their claims: no
/// claims, or fewer than `chars` characters and fewer than `few` sentences; by key, with
/// claims and sentences.
fn thin_by_bodies(store: &Store, chars: usize, few: usize) -> Vec<(PageId, u32, usize)> {
    let conn = store.lock();
    let mut stmt = conn
        .prepare(
            "SELECT p.id, p.body, (SELECT COUNT(*) FROM page_claims c WHERE c.page_id = p.id)
             FROM pages p WHERE p.kind = 'topic' ORDER BY p.title_key",
        )
        .expect("prepare");
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, String>(1)?, r.get(2)?)))
        .expect("query");
    rows.map(|row| row.expect("row"))
        .filter_map(|(id, body, claims): (PageId, String, u32)| {
            let sentences = wikimind_text::prose::sentences(&body);
            let thin = claims == 0 || body.chars().count() < chars && sentences < few;
            thin.then_some((id, claims, sentences))
        })
        .collect()
}

fn thin_found(store: &Store, chars: usize, few: usize) -> Vec<(PageId, u32, usize)> {
    store
        .thin_pages(chars, few)
        .expect("thin")
        .into_iter()
        .map(|p| (p.id, p.claims, p.sentences))
        .collect()
}

fn counted(store: &Store) -> i64 {
    store
        .lock()
        .query_row("SELECT COUNT(*) FROM page_sentences", [], |r| r.get(0))
        .expect("count")
}

/// Lint's thin pages are those the bodies give, whether their counts were made when the
/// body was written (the seed, a person's edit), are missing (a body changed by a write
/// that did not count it, an older build's page), are of another version of the rule, or
/// were made by the backfill: bodies in several scripts around the bound, with sentences
/// and without, with claims and without.
#[test]
fn thin_pages_are_those_the_bodies_give() {
    let store = Store::open_in_memory().expect("open");
    store.seed_bulk(&BulkSeed::new(60)).expect("seed");
    let pages: i64 = store
        .lock()
        .query_row("SELECT COUNT(*) FROM pages", [], |r| r.get(0))
        .expect("pages");
    assert_eq!(
        counted(&store),
        pages,
        "the seed counts every body it writes"
    );
    let baseline = thin_by_bodies(&store, 100, 3);
    assert_eq!(thin_found(&store, 100, 3), baseline);
    let sentence = "Espresso is strong coffee. ";
    let bodies = [
        "a".repeat(99),
        "a".repeat(100),
        "é".repeat(99),
        "é".repeat(100),
        "日".repeat(99),
        "日".repeat(100),
        "𝄞".repeat(99),
        "𝄞".repeat(100),
        "x".repeat(450),
        sentence.repeat(2),
        sentence.repeat(3),
        sentence.repeat(4),
        format!("{}Done.", sentence.repeat(2)),
        "One two three.\n\nFour five six!\n\nSeven eight nine?".to_owned(),
        String::new(),
    ];
    {
        let conn = store.lock();
        for (k, body) in bodies.iter().enumerate() {
            // Not through the store's writes: the trigger drops the count.
            conn.execute(
                "UPDATE pages SET body = ?1 WHERE id = ?2",
                rusqlite::params![body, k as i64 + 1],
            )
            .expect("a body");
        }
        // A page with a short body of many sentences and no claims is thin all the same.
        conn.execute("DELETE FROM page_claims WHERE page_id = 12", [])
            .expect("no claims");
        // A count made by another version of the rule is not used.
        conn.execute(
            "UPDATE page_sentences SET rule = rule + 1, sentences = 0, chars = 0 WHERE page_id = 20",
            [],
        )
        .expect("another rule");
    }
    assert_eq!(counted(&store), pages - bodies.len() as i64);
    let expected = thin_by_bodies(&store, 100, 3);
    assert_ne!(expected, baseline, "the bodies changed what is thin");
    for (k, body) in bodies.iter().enumerate() {
        let id = PageId(k as i64 + 1);
        let short = body.chars().count() < 100 && wikimind_text::prose::sentences(body) < 3;
        assert_eq!(
            expected.iter().any(|t| t.0 == id),
            short || k == 11,
            "{k}: {body:?}"
        );
    }
    assert_eq!(
        thin_found(&store, 100, 3),
        expected,
        "bodies not counted are read"
    );
    assert_eq!(thin_found(&store, 450, 4), thin_by_bodies(&store, 450, 4));

    // The backfill counts what is missing, in batches, and then every page is counted.
    let rule = wikimind_text::prose::SENTENCES_RULE;
    let mut looked = 0;
    let mut made = 0;
    while let Some(batch) = store
        .count_sentences_batch("page-sentences", rule, 7)
        .expect("batch")
    {
        looked += batch.looked;
        made += batch.counted;
    }
    assert_eq!(looked as i64, pages);
    assert_eq!(
        made,
        bodies.len() + 1,
        "only bodies not counted by this rule"
    );
    assert_eq!(
        store
            .backfill_cursor("page-sentences", rule)
            .expect("cursor"),
        None
    );
    let current: i64 = store
        .lock()
        .query_row(
            "SELECT COUNT(*) FROM page_sentences WHERE rule = ?1",
            [rule],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(current, pages);
    assert_eq!(
        thin_found(&store, 100, 3),
        expected,
        "the counts give the same"
    );
    assert_eq!(thin_found(&store, 450, 4), thin_by_bodies(&store, 450, 4));

    // A page made for a wanted name (empty until its job writes it) is counted too.
    let wanted = store.wanted_page_links().expect("wanted")[0].title.clone();
    let AskedPage::Made { page: made, .. } = store.ask_for_page(&wanted).expect("asked") else {
        panic!("{wanted:?} got no page");
    };
    assert_eq!(counted(&store), pages + 1);
    let with_wanted = thin_by_bodies(&store, 100, 3);
    assert!(with_wanted.iter().any(|t| t.0 == made && t.2 == 0));
    assert_eq!(thin_found(&store, 100, 3), with_wanted);

    // A person's edit counts the body it writes.
    store
        .edit_page(PageId(11), 1, "Too short.")
        .expect("an edit");
    assert_eq!(counted(&store), pages + 1);
    let after_edit = thin_by_bodies(&store, 100, 3);
    assert!(after_edit.iter().any(|t| t.0 == PageId(11) && t.2 == 0));
    assert_eq!(thin_found(&store, 100, 3), after_edit);
}

/// The notes are the sources read from files, as every source lists them: a pasted text
/// and a web page are not among them.
#[test]
fn the_notes_are_the_file_sources() {
    let store = Store::open_in_memory().expect("open");
    let note = source(&store, "/vault/Espresso.md", "# Espresso");
    for (origin, kind) in [
        ("text:pasted", SourceKind::Text),
        ("https://example.org/crema", SourceKind::Url),
    ] {
        store
            .ingest_source(&NewSource {
                origin: origin.to_owned(),
                kind,
                title: None,
                text: "About crema.".to_owned(),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: None,
            })
            .expect("ingest");
    }
    let second = source(&store, "/vault/Crema.md", "# Crema");
    let notes = store.note_sources().expect("notes");
    let every: Vec<NoteHead> = (store.sources().expect("sources").iter())
        .filter(|s| s.kind == SourceKind::File)
        .map(NoteHead::from)
        .collect();
    assert_eq!(notes, every);
    let ids: Vec<SourceId> = notes.iter().map(|s| s.id).collect();
    assert_eq!(ids, [note, second]);
}

#[test]
fn the_sources_stamp_moves_whenever_the_set_of_sources_changes() {
    let store = Store::open_in_memory().expect("open");
    let mut seen = vec![store.sources_stamp().expect("stamp")];
    let mut moved = |store: &Store, what: &str| {
        let stamp = store.sources_stamp().expect("stamp");
        assert!(
            !seen.contains(&stamp),
            "{what}: the stamp is one seen before"
        );
        seen.push(stamp);
    };
    let first = source(&store, "/vault/Espresso.md", "# Espresso");
    moved(&store, "one source added");
    let second = source(&store, "/vault/Crema.md", "# Crema");
    moved(&store, "another added");
    // Changed in place: the same set.
    let before = store.sources_stamp().expect("stamp");
    assert!(store
        .retitle_source(second, "Crema, again")
        .expect("retitle"));
    assert_eq!(store.sources_stamp().expect("stamp"), before);
    // One removed and one added: as many as before, but not the same set.
    assert!(store.remove_source(first).expect("remove"));
    let third = source(&store, "/vault/Grinder.md", "# Grinder");
    moved(&store, "one removed and one added");
    // The newest removed: its id is never given again, so the stamp is new.
    assert!(store.remove_source(third).expect("remove"));
    moved(&store, "the newest removed");
}

#[test]
fn a_kept_statement_is_not_prepared_again_for_each_value_bound() {
    use rusqlite::StatementStatus;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("wikimind.db")).expect("open");
    for i in 0..3 {
        source(&store, &format!("/notes/{i}.md"), &format!("text {i}"));
    }
    // A bound LIMIT is where SQLite plans around the value bound unless told not to.
    let sql = "SELECT id FROM sources ORDER BY id LIMIT ?1";
    let run = |conn: &Connection| -> Result<i32> {
        let mut stmt = conn.prepare_cached(sql)?;
        for limit in 1..=3_i64 {
            let ids = stmt
                .query_map([limit], |row| row.get::<_, i64>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            assert_eq!(ids.len() as i64, limit);
        }
        Ok(stmt.get_status(StatementStatus::RePrepare))
    };
    let writer = run(&store.lock()).expect("on the writer");
    let reader = store
        .read(|| "test".to_owned(), |conn| run(conn))
        .expect("on a reader");
    assert_eq!((writer, reader), (0, 0), "prepared again per binding");
}

/// A first run is told by a wiki with no source and no page: a source alone, or a page
/// alone (a saved answer has none), is something.
#[test]
fn a_wiki_holds_nothing_until_a_source_or_a_page_is_in_it() {
    let store = Store::open_in_memory().expect("open");
    assert!(store.holds_nothing().expect("empty"));
    source(&store, "/notes/tea.md", "Tea is brewed.");
    assert!(!store.holds_nothing().expect("a source"));

    let store = Store::open_in_memory().expect("open");
    let content = PageContent {
        title: "Why tea?".to_owned(),
        summary: "Because.".to_owned(),
        body: "Because.".to_owned(),
        claims: Vec::new(),
        concepts: Vec::new(),
        open_questions: Vec::new(),
        links: Vec::new(),
    };
    store
        .save_answer(&AnswerPage {
            question: "Why tea?",
            content: &content,
            marked: None,
            provider: "test",
            model: "test",
        })
        .expect("answer");
    assert!(!store.holds_nothing().expect("a page"));
}
