//! The store as its callers see it: real SQLite files in a temp dir and in memory, with
//! pages (`pages`) and names and merges (`names`). These lived in the app crate's
//! integration tests; the store's behaviour is tested here, in its own crate.

mod citations;
mod names;
mod pages;
mod upkeep;

use std::sync::Arc;
use std::time::Duration;

use wikimind_contract::{CheckedClaim, CompilationResult, Confidence};
use wikimind_store::{
    fixtures, ArticleId, ArticleSort, CompileOutcome, IngestOutcome, JobEnd, JobId, JobOwner,
    JobSettings, JobState, JobTarget, NewLink, NewSource, SaveArticle, SavedArticle, SourceId,
    SourceKind, SourcePage, SourceStatus, Store, StoreError,
};

/// A graph node at (`x`, 0) with no links, in community 0.
fn node_at(node: &str, x: f64) -> wikimind_store::GraphNodeRow {
    wikimind_store::GraphNodeRow {
        node: node.to_owned(),
        x,
        y: 0.0,
        community: 0,
        links_hash: 0,
        degree: Some(0),
    }
}

fn file_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("wikimind.db")).expect("open");
    (dir, store)
}

fn new_source(origin: &str, text: &str) -> NewSource {
    NewSource {
        origin: origin.to_owned(),
        kind: SourceKind::File,
        title: Some(format!("hint for {origin}")),
        text: text.to_owned(),
        tags: Vec::new(),
        aliases: Vec::new(),
        root: None,
    }
}

fn add(store: &Store, origin: &str, text: &str) -> SourceId {
    store
        .ingest_source(&new_source(origin, text))
        .expect("ingest")
        .source_id()
}

fn result(title: &str, body: &str) -> CompilationResult {
    CompilationResult {
        title: title.to_owned(),
        summary: format!("A page about {title}."),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: body.to_owned(),
    }
}

fn link(target: &str, context: &str) -> NewLink {
    NewLink {
        target: target.to_owned(),
        context: context.to_owned(),
    }
}

fn save(
    store: &Store,
    source_id: SourceId,
    result: &CompilationResult,
    links: &[NewLink],
) -> SavedArticle {
    save_with_claims(store, source_id, result, &[], links)
}

fn save_with_claims(
    store: &Store,
    source_id: SourceId,
    result: &CompilationResult,
    claims: &[CheckedClaim],
    links: &[NewLink],
) -> SavedArticle {
    store
        .save_article(&SaveArticle {
            claims,
            links,
            record: &fixtures::answered_record("llama3"),
            ..fixtures::digest(source_id, result)
        })
        .expect("save")
}

fn claim(text: &str, confidence: Confidence) -> CheckedClaim {
    CheckedClaim {
        claim: text.to_owned(),
        confidence,
        quote: None,
        grounded: confidence == Confidence::Sourced,
    }
}

/// Names with their uses, sorted by name.
fn names(list: Vec<wikimind_text::names::KnownName>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = list.into_iter().map(|n| (n.name, n.uses)).collect();
    out.sort();
    out
}

fn status(store: &Store, id: SourceId) -> SourceStatus {
    store.source(id).expect("read").expect("exists").status
}

#[test]
fn reingesting_the_same_text_changes_nothing() {
    let (_dir, store) = file_store();
    let first = store
        .ingest_source(&new_source("/n/a.md", "hello"))
        .expect("ingest");
    let IngestOutcome::Added(id) = first else {
        panic!("expected Added, got {first:?}");
    };
    let before = store.source(id).expect("read").expect("exists");
    let again = store
        .ingest_source(&new_source("/n/a.md", "hello"))
        .expect("ingest");
    assert_eq!(again, IngestOutcome::Unchanged(id));
    assert_eq!(store.source(id).expect("read").expect("exists"), before);
    assert_eq!(store.sources().expect("list").len(), 1);
    assert_eq!(before.status, SourceStatus::Pending);
    assert_eq!(before.content_hash.len(), 64);
}

#[test]
fn a_changed_compiled_source_goes_stale_and_an_uncompiled_one_stays_pending() {
    let store = Store::open_in_memory().expect("open");
    let compiled = add(&store, "/n/a.md", "version one");
    let pending = add(&store, "/n/b.md", "draft one");
    save(&store, compiled, &result("Alpha", "body"), &[]);
    assert_eq!(status(&store, compiled), SourceStatus::Compiled);

    let outcome = store
        .ingest_source(&new_source("/n/a.md", "version two"))
        .expect("ingest");
    assert_eq!(outcome, IngestOutcome::Changed(compiled));
    let source = store.source(compiled).expect("read").expect("exists");
    assert_eq!(source.status, SourceStatus::Stale);
    assert_eq!(source.text, "version two");

    store
        .ingest_source(&new_source("/n/b.md", "draft two"))
        .expect("ingest");
    assert_eq!(status(&store, pending), SourceStatus::Pending);

    let to_compile: Vec<SourceId> = store
        .sources_to_compile(false)
        .expect("list")
        .iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(to_compile, vec![compiled, pending]);
}

#[test]
fn recompiling_keeps_the_article_id_and_replaces_claims() {
    let store = Store::open_in_memory().expect("open");
    let id = add(&store, "/n/a.md", "text");
    let first = save_with_claims(
        &store,
        id,
        &result("Alpha", "first"),
        &[
            claim("one", Confidence::Sourced),
            claim("two", Confidence::Opinion),
        ],
        &[],
    );
    let second = save_with_claims(
        &store,
        id,
        &result("Alpha", "second"),
        &[claim("three", Confidence::Inferred)],
        &[],
    );
    assert_eq!(first.article_id, second.article_id);
    assert!(!second.collision);
    let article = store
        .article(second.article_id)
        .expect("read")
        .expect("exists");
    assert_eq!(article.body, "second");
    assert_eq!(article.claims, vec![claim("three", Confidence::Inferred)]);
    let listed = store.articles().expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].claims.inferred, 1);
    assert_eq!(listed[0].claims.sourced, 0);
    assert_eq!(store.compilations(id).expect("log").len(), 2);
}

/// Until schema version 5 a second `Rust` was stored as `Rust (2)`; now digests keep the
/// title the model asked for and feed one page.
#[test]
fn digests_that_share_a_title_keep_it_and_feed_one_page() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let c = add(&store, "/n/c.md", "c");
    let first = save(&store, a, &result("Rust", "a"), &[]);
    let second = save(&store, b, &result("rust ", "b"), &[]);
    let third = save(&store, c, &result("Rust", "c"), &[]);
    for (saved, title) in [(&first, "Rust"), (&second, "rust"), (&third, "Rust")] {
        assert_eq!((saved.title.as_str(), saved.collision), (title, false));
        assert_eq!(saved.page_id, first.page_id, "one page for one topic");
    }
    // Each digest is untouched, and recompiling one keeps its id and its title.
    assert_eq!(
        store.article(first.article_id).expect("r").expect("e").body,
        "a"
    );
    let again = save(&store, b, &result("Rust", "b2"), &[]);
    assert_eq!(again.article_id, second.article_id);
    assert_eq!(again.title, "Rust");
    let pages = store.pages().expect("pages");
    assert_eq!(pages.len(), 1);
    assert_eq!(
        (pages[0].title.as_str(), pages[0].source_count),
        ("Rust", 3)
    );
    assert!(
        pages[0].stale,
        "three digests: the page waits for its rewrite"
    );
    // Finding a digest by its title finds the first one, and so does a link; when that
    // one goes, the link goes to the next digest with the title rather than nowhere.
    assert_eq!(
        store.find_article("RUST").expect("find"),
        Some(first.article_id)
    );
    let d = add(&store, "/n/d.md", "d");
    let linking = save(&store, d, &result("Cargo", "d"), &[link("Rust", "")]);
    let target = |store: &Store| {
        store
            .article(linking.article_id)
            .expect("r")
            .expect("e")
            .links[0]
            .article_id
    };
    assert_eq!(target(&store), Some(first.article_id));
    save(&store, a, &result("Rust Book", "a"), &[]);
    assert_eq!(target(&store), Some(second.article_id));
    store.remove_source(b).expect("remove");
    assert_eq!(target(&store), Some(third.article_id));
    assert!(store.wanted_page_links().expect("wanted").is_empty());
}

#[test]
fn a_wanted_link_resolves_when_its_article_is_saved_later() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let alpha = save(
        &store,
        a,
        &result("Alpha", "See [[ Beta ]]."),
        &[link(" Beta ", "Alpha builds on Beta."), link("Gamma", "")],
    );
    let wanted: Vec<String> = store
        .wanted_page_links()
        .expect("w")
        .into_iter()
        .map(|w| w.title)
        .collect();
    assert_eq!(wanted, vec!["Beta", "Gamma"]);
    assert_eq!(store.page_counts().expect("counts").wanted, 2);

    let beta = save(&store, b, &result("BETA", "b"), &[]);
    let page = store.article(alpha.article_id).expect("r").expect("e");
    assert_eq!(page.links[0].target, "Beta");
    assert_eq!(page.links[0].article_id, Some(beta.article_id));
    assert_eq!(page.links[1].article_id, None);
    let wanted = store.wanted_page_links().expect("w");
    assert_eq!(wanted.len(), 1);
    assert_eq!((wanted[0].title.as_str(), wanted[0].mentions), ("Gamma", 1));

    let beta_page = store.article(beta.article_id).expect("r").expect("e");
    assert_eq!(beta_page.backlinks.len(), 1);
    assert_eq!(beta_page.backlinks[0].article_id, alpha.article_id);
    assert_eq!(beta_page.backlinks[0].title, "Alpha");
    // What a compile prompt chooses from: each title with the links that reach it.
    assert_eq!(
        names(store.title_names().expect("t").names),
        [("Alpha".into(), 0), ("BETA".into(), 1)]
    );
    assert_eq!(beta_page.backlinks[0].context, "Alpha builds on Beta.");
}

#[test]
fn links_to_an_existing_article_resolve_at_once_and_self_links_are_dropped() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let alpha = save(&store, a, &result("Alpha", "a"), &[]);
    let beta = save(
        &store,
        b,
        &result("Beta", "b"),
        &[
            link("alpha", ""),
            link("ALPHA", "second mention"),
            link("Beta", "me"),
        ],
    );
    let page = store.article(beta.article_id).expect("r").expect("e");
    assert_eq!(page.links.len(), 1, "one row per target, no self-link");
    assert_eq!(page.links[0].article_id, Some(alpha.article_id));
    assert_eq!(page.links[0].context, "second mention");
}

#[test]
fn renaming_an_article_turns_links_to_its_old_title_into_wanted_pages() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    save(&store, a, &result("Alpha", "a"), &[link("Beta", "ctx")]);
    let beta = save(&store, b, &result("Beta", "b"), &[]);
    assert!(store.wanted_page_links().expect("w").is_empty());
    let renamed = save(&store, b, &result("Beta Prime", "b"), &[]);
    assert_eq!(renamed.article_id, beta.article_id);
    let wanted: Vec<String> = store
        .wanted_page_links()
        .expect("w")
        .into_iter()
        .map(|w| w.title)
        .collect();
    assert_eq!(wanted, vec!["Beta"]);
    assert!(store
        .article(beta.article_id)
        .expect("r")
        .expect("e")
        .backlinks
        .is_empty());
    // Renaming only the case keeps the link.
    let again = save(&store, b, &result("Beta", "b"), &[]);
    save(&store, b, &result("beta", "b"), &[]);
    assert_eq!(
        store
            .article(again.article_id)
            .expect("r")
            .expect("e")
            .backlinks
            .len(),
        1
    );
}

#[test]
fn removing_a_source_turns_links_to_its_article_into_wanted_pages() {
    let (_dir, store) = file_store();
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let alpha = save(&store, a, &result("Alpha", "a"), &[link("Beta", "ctx")]);
    let mut beta_result = result("Beta", "b");
    beta_result.concepts = vec!["Only Beta".to_owned()];
    save(&store, b, &beta_result, &[]);
    assert_eq!(
        names(store.concept_names().expect("c")),
        [("Only Beta".into(), 1)]
    );

    assert!(store.remove_source(b).expect("remove"));
    assert!(!store.remove_source(b).expect("remove twice"));
    assert_eq!(store.source(b).expect("read"), None);
    let page = store.article(alpha.article_id).expect("r").expect("e");
    assert_eq!(page.links[0].article_id, None);
    let wanted: Vec<String> = store
        .wanted_page_links()
        .expect("w")
        .into_iter()
        .map(|w| w.title)
        .collect();
    assert_eq!(wanted, vec!["Beta"]);
    assert!(store.concept_names().expect("c").is_empty());
    assert_eq!(
        names(store.title_names().expect("t").names),
        [("Alpha".into(), 0)]
    );
    assert_eq!(store.search_pages("b").expect("search").len(), 0);
    let counts = store.page_counts().expect("counts");
    assert_eq!((counts.sources, counts.pages, counts.wanted), (1, 1, 1));
}

#[test]
fn concepts_are_shared_case_insensitively() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let mut ra = result("Alpha", "a");
    ra.concepts = vec!["Machine Learning".to_owned(), "  ".to_owned()];
    let mut rb = result("Beta", "b");
    rb.concepts = vec!["machine learning".to_owned(), "Graphs".to_owned()];
    rb.open_questions = vec!["Why?".to_owned()];
    save(&store, a, &ra, &[]);
    let beta = save(&store, b, &rb, &[]);
    assert_eq!(
        names(store.concept_names().expect("c")),
        [("Graphs".into(), 1), ("Machine Learning".into(), 2)]
    );
    let page = store.article(beta.article_id).expect("r").expect("e");
    assert_eq!(page.concepts, vec!["Machine Learning", "Graphs"]);
    assert_eq!(page.open_questions, vec!["Why?"]);
    assert_eq!(page.sources[0].origin, "/n/b.md");
    assert_eq!(page.sources[0].model, "llama3");
}

#[test]
fn search_finds_body_words_and_survives_hostile_queries() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let tide = save(
        &store,
        a,
        &result("Tides", "The moon pulls the oceans into tides."),
        &[],
    );
    save(
        &store,
        b,
        &result("Volcanoes", "Magma rises through the crust."),
        &[],
    );

    let hits = store.search_pages("oceans").expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].page_id, tide.page_id.unwrap());
    assert!(
        hits[0].snippet.contains("\u{E000}oceans\u{E001}"),
        "{}",
        hits[0].snippet
    );
    // Search as you type: the last word is a prefix.
    assert_eq!(
        store.search_pages("mag").expect("search")[0].title,
        "Volcanoes"
    );
    assert_eq!(store.search_pages("MOON ocean").expect("search").len(), 1);

    for hostile in [
        "\"unbalanced ( AND * -",
        "NEAR(",
        "title:",
        "a OR",
        ")))",
        "*",
        "-moon",
        "\"",
        "'; DROP TABLE articles; --",
        "^moon",
        "",
        "   ",
    ] {
        store
            .search_pages(hostile)
            .unwrap_or_else(|e| panic!("{hostile:?}: {e}"));
    }
    assert!(store.search_pages("").expect("empty").is_empty());
    assert_eq!(
        store.search_pages("-moon").expect("search").len(),
        1,
        "`-` is not an operator"
    );
    assert_eq!(store.page_counts().expect("counts").pages, 2);
}

#[test]
fn a_failure_is_logged_with_its_raw_answer_and_keeps_the_old_article() {
    let store = Store::open_in_memory().expect("open");
    let id = add(&store, "/n/a.md", "a");
    let saved = save(&store, id, &result("Alpha", "a"), &[]);
    let mut failed = fixtures::answered_record("tiny");
    failed.raw_answer = "not json at all".to_owned();
    failed.attempt = 2;
    store
        .record_failure(id, &failed, "missing field title")
        .expect("record");

    let source = store.source(id).expect("read").expect("exists");
    assert_eq!(source.status, SourceStatus::Failed);
    assert_eq!(source.reason.as_deref(), Some("missing field title"));
    let log = store.compilations(id).expect("log");
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].outcome, CompileOutcome::Compiled);
    assert_eq!(log[0].record.repairs, vec!["closed a brace"]);
    assert_eq!(log[1].outcome, CompileOutcome::Failed);
    assert_eq!(log[1].record, failed);
    assert_eq!(log[1].reason.as_deref(), Some("missing field title"));
    assert!(store.article(saved.article_id).expect("r").is_some());

    let err = store
        .record_failure(SourceId(999), &failed, "x")
        .expect_err("unknown source");
    assert!(
        matches!(err, StoreError::SourceNotFound(SourceId(999))),
        "{err}"
    );
}

#[test]
fn find_source_and_find_article_accept_ids_origins_and_titles() {
    let store = Store::open_in_memory().expect("open");
    let id = add(&store, "https://example.org/page", "a");
    let saved = save(&store, id, &result("Ocean Tides", "a"), &[]);
    let by = |key: &str| store.find_source(key).expect("find").map(|s| s.id);
    assert_eq!(by(&id.to_string()), Some(id));
    assert_eq!(by("https://example.org/page"), Some(id));
    assert_eq!(by("ocean tides"), Some(id));
    assert_eq!(by("nothing"), None);
    assert_eq!(
        store.find_article("OCEAN TIDES").expect("find"),
        Some(saved.article_id)
    );
    assert_eq!(
        store
            .find_article(&saved.article_id.to_string())
            .expect("f"),
        Some(saved.article_id)
    );
    assert_eq!(store.find_article("Ocean").expect("find"), None);
    let listed = store.sources().expect("list");
    assert_eq!(listed[0].article_title.as_deref(), Some("Ocean Tides"));
    assert_eq!(
        listed[0].title.as_deref(),
        Some("hint for https://example.org/page")
    );
}

#[test]
fn saving_for_an_unknown_source_or_with_an_empty_title_is_an_error() {
    let store = Store::open_in_memory().expect("open");
    let err = store
        .save_article(&SaveArticle {
            record: &fixtures::answered_record("m"),
            ..fixtures::digest(SourceId(42), &result("X", "x"))
        })
        .expect_err("unknown source");
    assert_eq!(err.to_string(), "source 42 does not exist");
    let id = add(&store, "/n/a.md", "a");
    let err = store
        .save_article(&SaveArticle {
            record: &fixtures::answered_record("m"),
            ..fixtures::digest(id, &result("   ", "x"))
        })
        .expect_err("empty title");
    assert!(matches!(err, StoreError::EmptyTitle(_)), "{err}");
    assert_eq!(status(&store, id), SourceStatus::Pending);
}

#[test]
fn reopening_a_file_database_keeps_everything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data").join(wikimind_store::DATABASE_FILE);
    let article_id = {
        let store = Store::open(&path).expect("open");
        let id = add(&store, "/n/a.md", "a");
        save(
            &store,
            id,
            &result("Alpha", "kept words"),
            &[link("Beta", "")],
        )
        .article_id
    };
    let store = Store::open_data_dir(&dir.path().join("data")).expect("reopen");
    let page = store.article(article_id).expect("r").expect("still there");
    assert_eq!(page.title, "Alpha");
    assert_eq!(store.search_pages("kept").expect("search").len(), 1);
    assert_eq!(store.wanted_page_links().expect("w").len(), 1);
}

#[test]
fn a_tampered_migration_checksum_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    drop(Store::open(&path).expect("open"));
    {
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        conn.execute(
            "UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1",
            [],
        )
        .expect("tamper");
    }
    let err = Store::open(&path).expect_err("must refuse");
    assert!(
        err.to_string()
            .contains("migration 0001_init.sql was changed after it was applied"),
        "{err}"
    );
}

#[test]
fn a_database_from_a_newer_build_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    drop(Store::open(&path).expect("open"));
    {
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        conn.execute(
            "INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 'x', 'now')",
            [],
        )
        .expect("insert");
    }
    let err = Store::open(&path).expect_err("must refuse");
    assert!(err.to_string().contains("9999_future.sql"), "{err}");
    assert!(err.to_string().contains("newer WikiMind"), "{err}");
}

fn owner(pid: u32) -> JobOwner {
    JobOwner {
        host: "test-host".to_owned(),
        pid,
    }
}

const STALE: Duration = Duration::from_secs(60);

#[test]
fn jobs_queue_once_run_and_recover_after_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    let asked = JobSettings {
        model: Some("qwen2.5:3b".into()),
        ..JobSettings::default()
    };
    let (a, b, job_a) = {
        let store = Store::open(&path).expect("open");
        let a = add(&store, "/n/a.md", "a");
        let b = add(&store, "/n/b.md", "b");
        let job_a = store.enqueue(a, &JobSettings::default()).expect("enqueue");
        assert_eq!(
            store.enqueue(a, &asked).expect("enqueue again"),
            job_a,
            "no duplicate"
        );
        store.enqueue(b, &JobSettings::default()).expect("enqueue");
        let running = store.start_next(&owner(1)).expect("start").expect("a job");
        assert_eq!(
            (running.id, running.state, running.attempts),
            (job_a, JobState::Running, 1)
        );
        assert_eq!(running.settings, asked, "the newest ask is what runs");
        assert_eq!(running.owner, Some(owner(1)));
        assert_eq!(status(&store, a), SourceStatus::Compiling);
        assert_eq!(
            store.enqueue(a, &JobSettings::default()).expect("enqueue"),
            job_a,
            "a source being compiled is not queued twice"
        );
        (a, b, job_a)
        // The process "crashes" here: the job stays running.
    };
    let store = Store::open(&path).expect("reopen");
    assert_eq!(status(&store, a), SourceStatus::Compiling);
    assert_eq!(
        store
            .recover_interrupted(STALE, &|_| false)
            .expect("recover"),
        0,
        "an owner that is alive keeps its job"
    );
    assert_eq!(status(&store, a), SourceStatus::Compiling);
    assert_eq!(
        store
            .recover_interrupted(STALE, &|o| o.pid == 1)
            .expect("recover"),
        1,
        "a dead owner's job is recovered"
    );
    assert_eq!(status(&store, a), SourceStatus::Pending);

    let again = store.start_next(&owner(2)).expect("start").expect("a job");
    assert_eq!((again.id, again.attempts), (job_a, 2));
    save(&store, a, &result("Alpha", "a"), &[]);
    store.finish_job(again.id, &JobEnd::Done).expect("finish");

    let next = store
        .start_next(&owner(2))
        .expect("start")
        .expect("b's job");
    assert_eq!(next.target, JobTarget::Source(b));
    store
        .finish_job(next.id, &JobEnd::Failed("Ollama is not running".into()))
        .expect("finish");
    let source_b = store.source(b).expect("r").expect("e");
    assert_eq!(source_b.status, SourceStatus::Failed);
    assert_eq!(source_b.reason.as_deref(), Some("Ollama is not running"));
    assert_eq!(store.start_next(&owner(2)).expect("start"), None);
    let states: Vec<JobState> = store
        .jobs()
        .expect("jobs")
        .iter()
        .map(|j| j.state)
        .collect();
    assert_eq!(states, vec![JobState::Failed, JobState::Done]);
    assert_eq!(status(&store, a), SourceStatus::Compiled);
    assert!(matches!(
        store.finish_job(wikimind_store::JobId(77), &JobEnd::Done),
        Err(StoreError::JobNotFound(_))
    ));
}

#[test]
fn a_lease_expires_when_its_heartbeat_stops_and_not_before() {
    let (_dir, store) = file_store();
    let clock = wikimind_store::ManualClock::starting_now();
    let store = store.with_clock(clock.clone()).expect("clock");
    let a = add(&store, "/n/a.md", "a");
    let job = store.enqueue(a, &JobSettings::default()).expect("enqueue");
    store.start_next(&owner(1)).expect("start").expect("job");
    // Nobody says the owner is dead, and its heartbeat is fresh.
    assert_eq!(store.recover_interrupted(STALE, &|_| false).expect("r"), 0);
    assert!(store.heartbeat(&owner(1)).expect("beat").is_empty());
    // 59 seconds on, the heartbeat is not stale yet; 61 seconds on, it is.
    clock.advance(Duration::from_secs(59));
    assert_eq!(store.recover_interrupted(STALE, &|_| false).expect("r"), 0);
    clock.advance(Duration::from_secs(2));
    assert_eq!(store.recover_interrupted(STALE, &|_| false).expect("r"), 1);
    let recovered = store.job(job).expect("job").expect("exists");
    assert_eq!((recovered.state, recovered.owner), (JobState::Queued, None));
}

#[test]
fn a_cancel_reaches_the_owner_of_a_running_job_through_the_table() {
    let (_dir, store) = file_store();
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let job_a = store.enqueue(a, &JobSettings::default()).expect("enqueue");
    let job_b = store.enqueue(b, &JobSettings::default()).expect("enqueue");
    store.start_next(&owner(1)).expect("start").expect("job");
    // Another process asks to cancel both.
    assert!(store.cancel_job(job_a).expect("cancel running"));
    assert!(store.cancel_job(job_b).expect("cancel queued"));
    assert_eq!(
        store.job(job_b).expect("job").expect("exists").state,
        JobState::Cancelled,
        "a queued job is cancelled at once"
    );
    assert_eq!(store.start_next(&owner(2)).expect("start"), None);
    assert_eq!(
        store.heartbeat(&owner(2)).expect("beat"),
        Vec::<JobId>::new(),
        "only the owner is told"
    );
    assert_eq!(store.heartbeat(&owner(1)).expect("beat"), vec![job_a]);
    store.finish_job(job_a, &JobEnd::Cancelled).expect("finish");
    assert_eq!(status(&store, a), SourceStatus::Pending);
    assert!(!store.cancel_job(job_a).expect("cancel ended"));
}

#[test]
fn an_interrupted_job_goes_back_in_line() {
    let (_dir, store) = file_store();
    let a = add(&store, "/n/a.md", "a");
    let job = store.enqueue(a, &JobSettings::default()).expect("enqueue");
    store.start_next(&owner(1)).expect("start").expect("job");
    store.finish_job(job, &JobEnd::Interrupted).expect("finish");
    assert_eq!(status(&store, a), SourceStatus::Pending);
    let next = store.start_next(&owner(2)).expect("start").expect("again");
    assert_eq!((next.id, next.attempts), (job, 2));
}

#[test]
fn articles_sort_by_title_or_by_update() {
    let clock = wikimind_store::ManualClock::starting_now();
    let store = Store::open_in_memory()
        .and_then(|s| s.with_clock(clock.clone()))
        .expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    save(&store, a, &result("zebra", "a"), &[]);
    clock.advance(Duration::from_millis(5));
    save(&store, b, &result("Aardvark", "b"), &[]);
    let titles = |sort| -> Vec<String> {
        store
            .articles_sorted(sort)
            .expect("list")
            .into_iter()
            .map(|a| a.title)
            .collect()
    };
    assert_eq!(titles(ArticleSort::Title), vec!["Aardvark", "zebra"]);
    assert_eq!(titles(ArticleSort::Updated), vec!["Aardvark", "zebra"]);
    clock.advance(Duration::from_millis(5));
    save(&store, a, &result("zebra", "a2"), &[]);
    assert_eq!(titles(ArticleSort::Updated), vec!["zebra", "Aardvark"]);
}

#[test]
fn concurrent_saves_through_an_arc_all_land() {
    let (_dir, store) = file_store();
    let store = Arc::new(store);
    let threads: Vec<_> = (0..8)
        .map(|n| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || -> Vec<ArticleId> {
                (0..5)
                    .map(|i| {
                        let id = add(&store, &format!("/n/{n}-{i}.md"), &format!("text {n} {i}"));
                        let links = [link("Shared Topic", "everyone links here")];
                        save(
                            &store,
                            id,
                            &result(&format!("Note {n}-{i}"), "body"),
                            &links,
                        )
                        .article_id
                    })
                    .collect()
            })
        })
        .collect();
    let mut ids = Vec::new();
    for thread in threads {
        ids.extend(thread.join().expect("thread"));
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 40);
    assert_eq!(store.articles().expect("list").len(), 40);
    // Named by every digest: a page of its own (`pages.min_sources`), linked from all 40.
    let shared = store
        .find_page("Shared Topic")
        .expect("find")
        .expect("a page");
    let page = store.page(shared).expect("read").expect("page");
    assert_eq!(page.backlinks.len(), 40);
}

#[test]
fn outcomes_and_ids_serialise_for_the_shells() {
    let json = serde_json::to_string(&IngestOutcome::Changed(SourceId(3))).expect("json");
    assert_eq!(json, r#"{"outcome":"changed","source_id":3}"#);
    assert_eq!(
        serde_json::to_string(&SourceStatus::Stale).expect("json"),
        "\"stale\""
    );
    assert_eq!(ArticleId(7).to_string(), "7");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_is_usable_from_tokio_tasks() {
    let store = Arc::new(Store::open_in_memory().expect("open"));
    let mut tasks = Vec::new();
    for n in 0..4 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let id = add(&store, &format!("/t/{n}"), "t");
            store.enqueue(id, &JobSettings::default()).expect("enqueue")
        }));
    }
    for task in tasks {
        task.await.expect("task");
    }
    assert_eq!(store.jobs().expect("jobs").len(), 4);
}

#[test]
fn two_connections_to_one_file_wait_for_each_other() {
    // Like the CLI and the desktop app open at once: separate connections, one file.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    let stores = [
        Arc::new(Store::open(&path).expect("open one")),
        Arc::new(Store::open(&path).expect("open two")),
    ];
    let threads: Vec<_> = stores
        .iter()
        .enumerate()
        .map(|(n, store)| {
            let store = Arc::clone(store);
            std::thread::spawn(move || {
                for i in 0..20 {
                    let id = add(&store, &format!("/p/{n}-{i}.md"), "x");
                    save(&store, id, &result(&format!("P {n}-{i}"), "body"), &[]);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("thread");
    }
    assert_eq!(stores[0].articles().expect("digests").len(), 40);
    assert_eq!(stores[1].search_pages("body").expect("search").len(), 40);
}

/// Every row of `table` as text, in rowid order: what an upgrade must carry forward.
fn rows_of(conn: &rusqlite::Connection, table: &str, columns: &str) -> Vec<String> {
    let mut stmt = conn
        .prepare(&format!("SELECT {columns} FROM {table} ORDER BY rowid"))
        .expect("prepare");
    let n = stmt.column_count();
    let rows = stmt
        .query_map([], |row| {
            let mut cells = Vec::with_capacity(n);
            for i in 0..n {
                let value: rusqlite::types::Value = row.get(i)?;
                cells.push(format!("{value:?}"));
            }
            Ok(cells.join("|"))
        })
        .expect("query");
    rows.collect::<rusqlite::Result<_>>().expect("rows")
}

/// The tables of a version 1 wiki and their columns, all of which later versions keep.
const V1_TABLES: &[(&str, &str)] = &[
    // Version 3 adds `final_url` (NULL for every row a version 1 wiki had; checked below).
    (
        "sources",
        "id, origin, kind, title_hint, text, content_hash, status, reason, created_at, \
         updated_at",
    ),
    // Version 20 re-keys `title_norm`, `name_norm` and `target_norm` to the page key
    // (checked below).
    (
        "articles",
        "id, source_id, title, summary, body, truncated, provider, model, prompt_version, \
         created_at, updated_at",
    ),
    ("claims", "*"),
    ("concepts", "id, name"),
    // Version 14 adds `named` (1 for every row a version 1 wiki had; checked below).
    ("article_concepts", "article_id, concept_id, position"),
    (
        "links",
        "id, from_article, position, target_title, to_article, context",
    ),
    ("open_questions", "*"),
    ("compilations", "*"),
    (
        "jobs",
        "id, source_id, state, attempts, error, created_at, updated_at",
    ),
];

/// A copy of the version 1 fixture (`tests/data/upgrade/v1-wiki.db`) to upgrade, in a
/// temporary data dir.
pub(crate) fn v1_fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/upgrade/v1-wiki.db"
        ),
        &path,
    )
    .expect("copy the fixture");
    (dir, path)
}

/// What a window says while it upgrades is read before the upgrade, without changing the
/// file: the versions and where the copy will be; nothing for a missing file, a database
/// of this build or a new one; an error naming the file for one that is not a database.
#[test]
fn the_upgrade_ahead_is_read_without_changing_the_file() {
    let (dir, path) = v1_fixture();
    let missing = dir.path().join("missing.db");
    assert_eq!(Store::upgrade_ahead(&missing).expect("no file"), None);
    let bytes = std::fs::read(&path).expect("read");
    let ahead = Store::upgrade_ahead(&path)
        .expect("readable")
        .expect("an upgrade ahead");
    let newest = wikimind_store::MIGRATIONS.last().unwrap().version;
    assert_eq!((ahead.from, ahead.to), (1, newest));
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "unchanged");
    assert!(!dir.path().join("wikimind.db.bak-v01").exists());

    let store = Store::open(&path).expect("upgrade");
    assert_eq!(store.upgrade().map(|u| (u.from, u.to)), Some((1, newest)));
    assert_eq!(
        ahead.backup.as_deref().and_then(|p| p.file_name()),
        store
            .upgrade()
            .unwrap()
            .backup
            .as_deref()
            .and_then(|p| p.file_name()),
        "the copy is where it was said to be"
    );
    assert_eq!(Store::upgrade_ahead(&path).expect("readable"), None, "open");
    drop(store);
    assert_eq!(Store::upgrade_ahead(&path).expect("readable"), None);

    let fresh = dir.path().join("fresh.db");
    drop(Store::open(&fresh).expect("a new database"));
    assert_eq!(Store::upgrade_ahead(&fresh).expect("readable"), None);

    let garbage = dir.path().join("notes.db");
    std::fs::write(&garbage, "not a database, only text ".repeat(100)).expect("write");
    let error = Store::upgrade_ahead(&garbage).expect_err("not a database");
    assert!(error.to_string().contains("notes.db"), "{error}");
}

/// A wiki a newer build wrote is refused, by the probe and by opening, before anything
/// touches its file: the window said "upgrading from schema 9999 to 34" for one, and
/// opening switched the file to WAL before saying it could not read it.
#[test]
fn a_newer_builds_wiki_is_refused_with_its_file_left_as_it_was() {
    let (dir, path) = v1_fixture();
    {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        conn.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at)
             VALUES (9999, '9999_future.sql', 'f', '2027-01-01T00:00:00Z')",
            [],
        )
        .expect("a newer build's migration");
    }
    let bytes = std::fs::read(&path).expect("read");
    let newer = |e: &StoreError| {
        matches!(e, StoreError::NewerSchema { version: 9999, .. })
            && e.to_string().contains("9999_future.sql")
    };
    let ahead = Store::upgrade_ahead(&path).expect_err("a newer build's");
    assert!(newer(&ahead), "{ahead}");
    let opened = Store::open(&path).expect_err("a newer build's");
    assert!(newer(&opened), "{opened}");
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "unchanged");
    assert!(
        !dir.path().join("wikimind.db-wal").exists(),
        "not switched to WAL"
    );
    assert!(
        !dir.path().join("wikimind.db.bak-v9999").exists(),
        "no copy"
    );
}

/// A wiki still in a rollback journal (as version 1 left it) whose write another program
/// holds as it is opened: the switch to WAL waits for it, as a WAL wiki's upgrade does,
/// instead of failing at once with "database is locked", and the upgrade then runs.
#[test]
fn a_rollback_journal_wiki_held_by_another_program_is_upgraded_once_it_lets_go() {
    let (_dir, path) = v1_fixture();
    let holder = rusqlite::Connection::open(&path).expect("open raw");
    let mode: String = holder
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "delete", "the fixture is in a rollback journal");
    holder
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM schema_migrations WHERE 0;")
        .expect("a write held");
    let (held, let_go) = std::sync::mpsc::channel();
    let opening = {
        let path = path.clone();
        std::thread::spawn(move || {
            held.send(()).expect("said");
            Store::open(&path)
        })
    };
    // The opening thread has started: it meets the held write for a few tenths of a second,
    // and is still waiting for it (refused at once, it would have ended with the error).
    let_go.recv().expect("started");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!opening.is_finished(), "waits for the write");
    holder.execute_batch("COMMIT").expect("let go");
    let store = opening
        .join()
        .expect("no panic")
        .expect("opened once the other program let go");
    assert_eq!(store.upgrade().map(|u| u.from), Some(1), "upgraded from 1");
    drop(holder);
    let mode: String = rusqlite::Connection::open(&path)
        .expect("open raw")
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal", "switched to WAL");
}

/// `tests/data/upgrade/v1-wiki.db` was made by WikiMind with schema version 1 (the CLI
/// against the scripted test server): eleven compiled notes, one failed source, one stale,
/// one pending, one removed (its links are wanted pages), and a queue as a crash left it —
/// a queued job, and two running jobs for one source.
#[test]
fn a_version_1_wiki_upgrades_with_every_row_kept() {
    let (dir, path) = v1_fixture();
    let before: Vec<Vec<String>> = {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let version: i64 = conn
            .query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
                r.get(0)
            })
            .expect("version");
        assert_eq!(version, 1, "the fixture is a version 1 database");
        V1_TABLES
            .iter()
            .map(|(table, columns)| rows_of(&conn, table, columns))
            .collect()
    };
    // Every table holds rows (the stand-in server writes no open questions).
    for ((table, _), rows) in V1_TABLES.iter().zip(&before) {
        assert!(rows.is_empty() == (*table == "open_questions"), "{table}");
    }

    // A copy an attempt was cut short in a day ago, and one another process is writing
    // now: neither is taken for the old database; the old attempt's is removed.
    let cut_short = dir.path().join("wikimind.db.bak-v01.part-1");
    std::fs::write(&cut_short, "the first bytes of a copy").expect("write");
    let day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    std::fs::File::options()
        .write(true)
        .open(&cut_short)
        .and_then(|f| f.set_modified(day_ago))
        .expect("age it");
    let being_written = dir.path().join("wikimind.db.bak-v01.part-2");
    std::fs::write(&being_written, "another process's copy so far").expect("write");
    let store = Store::open(&path).expect("upgrade");
    assert!(!cut_short.exists(), "an old attempt's part is removed");
    assert!(being_written.exists(), "another process's part is its own");
    let parts: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".part"))
        .collect();
    assert_eq!(
        parts,
        ["wikimind.db.bak-v01.part-2"],
        "this one's own part is gone"
    );
    // The database as it was is kept beside it, once, and said.
    let upgrade = store.upgrade().expect("an upgrade").clone();
    let backup = dir.path().join("wikimind.db.bak-v01");
    assert_eq!(
        (upgrade.from, upgrade.backup.as_deref()),
        (1, Some(backup.as_path()))
    );
    assert_eq!(
        upgrade.to,
        wikimind_store::MIGRATIONS.last().unwrap().version
    );
    drop(store);
    let kept = rusqlite::Connection::open(&backup).expect("open the copy");
    for ((table, columns), rows) in V1_TABLES.iter().zip(&before) {
        assert_eq!(&rows_of(&kept, table, columns), rows, "the copy's {table}");
    }
    drop(kept);
    assert!(Store::open(&path).expect("reopen").upgrade().is_none());
    // No source id is given out again: the next is above every id the wiki ever had.
    let conn = rusqlite::Connection::open(&path).expect("open raw");
    let (max_seen, next): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT MAX(id) FROM sources), (SELECT seq FROM sqlite_sequence WHERE name = 'sources')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("sequence");
    assert!(next >= max_seen, "sequence {next} below {max_seen}");
    drop(conn);
    let conn = rusqlite::Connection::open(&path).expect("open raw");
    for ((table, columns), rows) in V1_TABLES.iter().zip(&before) {
        assert_eq!(&rows_of(&conn, table, columns), rows, "table {table}");
    }
    // Every title, concept name and link target is keyed by the one title key.
    for (table, name, key) in [
        ("articles", "title", "title_norm"),
        ("concepts", "name", "name_norm"),
        ("links", "target_title", "target_norm"),
    ] {
        let mut stmt = conn
            .prepare(&format!("SELECT {name}, {key} FROM {table}"))
            .expect("prepare");
        let pairs: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows");
        assert!(!pairs.is_empty(), "{table}");
        for (name, key) in pairs {
            assert_eq!(
                key,
                wikimind_text::key::page_key(&name),
                "{table}: {name:?}"
            );
        }
    }
    let unnamed: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM article_concepts WHERE named <> 1",
            [],
            |r| r.get(0),
        )
        .expect("named");
    assert_eq!(
        unnamed, 0,
        "every concept an old wiki had still names its page"
    );
    let with_final_url: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sources WHERE final_url IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .expect("final urls");
    assert_eq!(with_final_url, 0, "upgraded sources have no final URL");
    let check: String = conn
        .query_row("PRAGMA foreign_key_check", [], |r| r.get(0))
        .unwrap_or_else(|_| "none".to_owned());
    assert_eq!(check, "none", "no row points at nothing");
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity");
    assert_eq!(integrity, "ok");
    drop(conn);

    // What a person sees of it through the store.
    let store = Store::open(&path).expect("reopen");
    let espresso = store
        .find_article("Espresso")
        .expect("find")
        .and_then(|id| store.article(id).expect("read"))
        .expect("the Espresso article survived");
    assert!(!espresso.claims.is_empty());
    assert!(
        !store.search_pages("espresso").expect("search").is_empty(),
        "FTS kept"
    );
    assert!(!store.wanted_page_links().expect("wanted").is_empty());
    let failed = store.find_source("13").expect("find").expect("source 13");
    assert_eq!(failed.status, SourceStatus::Failed);
    assert!(failed
        .reason
        .expect("reason")
        .contains("could not be made valid"));

    // The crash's queue: the two running jobs had no owner, so they are recovered as one.
    assert_eq!(
        store
            .recover_interrupted(STALE, &|_| false)
            .expect("recover"),
        1
    );
    assert_eq!(status(&store, SourceId(5)), SourceStatus::Pending);
    let owner = owner(1);
    let mut started = Vec::new();
    while let Some(job) = store.start_next(&owner).expect("start") {
        let JobTarget::Source(source) = job.target else {
            panic!("only source jobs were queued: {job:?}");
        };
        started.push(source);
        store.finish_job(job.id, &JobEnd::Done).expect("finish");
    }
    started.sort();
    assert_eq!(started, vec![SourceId(5), SourceId(14)]);
}

/// Every table of a database with its row count and every row as text, read raw.
fn every_table(conn: &rusqlite::Connection) -> Vec<(String, usize, String)> {
    let tables: Vec<String> = {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .expect("prepare");
        let names = stmt.query_map([], |r| r.get(0)).expect("tables");
        names.collect::<rusqlite::Result<_>>().expect("names")
    };
    tables
        .into_iter()
        .map(|table| {
            // Not `rows_of`: the full-text index has tables without a rowid.
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM \"{table}\""))
                .expect("prepare");
            let n = stmt.column_count();
            let rows: Vec<String> = stmt
                .query_map([], |row| {
                    (0..n)
                        .map(|i| row.get::<_, rusqlite::types::Value>(i))
                        .map(|cell| cell.map(|v| format!("{v:?}")))
                        .collect::<rusqlite::Result<Vec<_>>>()
                        .map(|cells| cells.join("|"))
                })
                .expect("query")
                .collect::<rusqlite::Result<_>>()
                .expect("rows");
            (table, rows.len(), rows.join("\n"))
        })
        .collect()
}

/// Regression: wikis made before the URL fix stored `user:password@` (and a fragment) in
/// web page origins, and the same text wherever a message quoted the origin. Migration 4
/// rewrites them to the identity the current code computes, keeps every row, and when two
/// sources come to one identity keeps both: the one that already held it keeps it, the
/// other becomes `<identity>#source-<id>`.
#[test]
fn stored_credentials_in_url_origins_are_scrubbed_and_every_row_kept() {
    const SECRETS: [&str; 6] = [
        "aliceuser",
        "s3cret-a",
        "bobuser",
        "s3cret-b",
        "caroluser",
        "s3cret-c",
    ];
    let (_dir, path) = v1_fixture();
    let page = "https://aliceuser:s3cret-a@example.org/page";
    let other = "https://bobuser:s3cret-b@example.org/other#part";
    let other_again = "https://caroluser:s3cret-c@example.org/other";
    {
        // What a version 1 build stored: the URL as typed, quoted in the messages too.
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let source = |id: i64, origin: &str, status: &str, reason: Option<String>| {
            conn.execute(
                "INSERT INTO sources (id, origin, kind, title_hint, text, content_hash, status,
                                      reason)
                 VALUES (?1, ?2, 'url', ?3, 'page text', 'h', ?4, ?5)",
                rusqlite::params![id, origin, format!("Fetched from {origin}"), status, reason],
            )
            .expect("insert source");
        };
        source(
            100,
            page,
            "failed",
            Some(format!("compiling {page} failed")),
        );
        source(101, "https://example.org/page", "pending", None);
        source(102, other, "compiled", None);
        source(103, other_again, "pending", None);
        conn.execute(
            "INSERT INTO articles (source_id, title, title_norm, summary, body, provider, model,
                                   prompt_version)
             VALUES (102, 'Other Page', 'other page', 's', 'b', 'ollama', 'm', 'v1')",
            [],
        )
        .expect("insert article");
        for (id, origin) in [(100, page), (102, other)] {
            conn.execute(
                "INSERT INTO compilations (source_id, provider, model, prompt_version,
                                           latency_ms, attempt, raw_answer, outcome, reason)
                 VALUES (?1, 'ollama', 'm', 'v1', 1, 1, ?2, 'failed', ?3)",
                rusqlite::params![
                    id,
                    format!("{{\"title\": \"{origin}\"}}"),
                    format!("the answer about {origin} was not valid")
                ],
            )
            .expect("insert compilation");
            conn.execute(
                "INSERT INTO jobs (source_id, state, error) VALUES (?1, 'failed', ?2)",
                rusqlite::params![id, format!("could not compile {origin}")],
            )
            .expect("insert job");
        }
    }
    let before: Vec<(String, usize)> = {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let all = every_table(&conn);
        assert!(
            all.iter()
                .any(|(_, _, text)| SECRETS.iter().all(|s| text.contains(s))),
            "the credentials are there before the upgrade"
        );
        all.into_iter()
            .filter(|(table, _, _)| table != "schema_migrations")
            .map(|(table, count, _)| (table, count))
            .collect()
    };

    let store = Store::open(&path).expect("upgrade");
    drop(store);
    let conn = rusqlite::Connection::open(&path).expect("open raw");
    let after = every_table(&conn);
    for (table, count, text) in &after {
        for secret in SECRETS {
            assert!(
                !text.contains(secret),
                "{secret:?} is still in table {table}:\n{text}"
            );
        }
        if let Some((_, was)) = before.iter().find(|(t, _)| t == table) {
            assert_eq!(count, was, "every row of {table} survived");
        }
    }
    let origin_of = |id: i64| -> String {
        conn.query_row("SELECT origin FROM sources WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .expect("origin")
    };
    // 101 already held the identity: it keeps it, and 100 (credentials) gets its own.
    assert_eq!(origin_of(101), "https://example.org/page");
    assert_eq!(origin_of(100), "https://example.org/page#source-100");
    // Neither held it: the earlier one (102) gets it, the later one its own.
    assert_eq!(origin_of(102), "https://example.org/other");
    assert_eq!(origin_of(103), "https://example.org/other#source-103");
    // The messages now quote the new origin.
    let reason: String = conn
        .query_row("SELECT reason FROM sources WHERE id = 100", [], |r| {
            r.get(0)
        })
        .expect("reason");
    assert_eq!(
        reason,
        "compiling https://example.org/page#source-100 failed"
    );
    let job_error: String = conn
        .query_row("SELECT error FROM jobs WHERE source_id = 102", [], |r| {
            r.get(0)
        })
        .expect("job error");
    assert_eq!(job_error, "could not compile https://example.org/other");
    drop(conn);

    // Through the store: both pages are there, each found by its origin, the article kept.
    let store = Store::open(&path).expect("reopen");
    let found = |key: &str| store.find_source(key).expect("find").map(|s| s.id);
    assert_eq!(found("https://example.org/page"), Some(SourceId(101)));
    assert_eq!(
        found("https://example.org/page#source-100"),
        Some(SourceId(100))
    );
    assert_eq!(found("https://example.org/other"), Some(SourceId(102)));
    let other_page = store
        .find_article("Other Page")
        .expect("find")
        .and_then(|id| store.article(id).expect("read"))
        .expect("the article of a scrubbed source survived");
    assert_eq!(other_page.sources[0].origin, "https://example.org/other");
}

/// The benches' wiki (`Store::seed_bulk`) reads as a compiled one on every screen: the
/// library's counts, search, a page with its links, backlinks, sources and history, the
/// counts `lint` makes, what `ask` finds. A schema change that breaks the seed fails here,
/// not silently in a bench.
#[test]
fn a_bulk_seeded_wiki_reads_like_a_compiled_one() {
    use wikimind_store::{BulkSeed, PageId, QueryTerm};

    let (_dir, store) = file_store();
    let seeded = store.seed_bulk(&BulkSeed::new(100)).expect("seed");
    assert_eq!((seeded.pages, seeded.links), (100, 300));

    // The library: every page listed, current, fed by its source.
    let counts = store.page_counts().expect("counts");
    assert_eq!((counts.sources, counts.pages, counts.stale), (100, 100, 0));
    // A wanted name is named by one source (two would give it a page).
    assert_eq!(counts.wanted, seeded.wanted_links);
    assert!(seeded.wanted_links > 0 && seeded.wanted_links < 100);
    let pages = store.pages().expect("pages");
    assert_eq!(pages.len(), 100);
    assert!(pages.iter().all(|p| !p.stale && p.source_count >= 1));
    assert!(
        pages.iter().any(|p| !p.tags.is_empty()),
        "some pages carry tags"
    );

    // Lint's figures: 300 links, the wanted ones unresolved, no page behind its digests,
    // the stubs thin.
    let census = store.link_census().expect("link census");
    assert_eq!((census.counts.pages, census.counts.links), (100, 300));
    assert_eq!(census.unresolved.len() as u64, seeded.wanted_links);
    assert!(store.pages_behind().expect("behind").is_empty());
    assert!(store.reingested_sources().expect("reingested").is_empty());
    let claimless = store
        .thin_pages(0, 0)
        .expect("thin")
        .iter()
        .filter(|p| p.claims == 0)
        .count() as u64;
    assert_eq!(claimless, seeded.stubs);

    // A page as opened: its links resolve to pages that list it as a backlink, its
    // grounded claim's quote is in its source's text, one version written by a model.
    let resolved: Vec<(PageId, PageId)> = pages
        .iter()
        .flat_map(|p| {
            let page = store.page(p.id).expect("read").expect("a page");
            page.links
                .iter()
                .filter_map(|l| l.page_id.map(|to| (page.id, to)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(resolved.len() as u64, 300 - seeded.wanted_links);
    let (from, to) = resolved[0];
    let target = store.page(to).expect("read").expect("the linked page");
    assert!(target.backlinks.iter().any(|b| b.page_id == from));
    let page = store.page(from).expect("read").expect("page");
    assert_eq!(page.version, 1);
    let history = store.page_history(from).expect("history");
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].model.as_deref(), Some("bulk-seed"));
    let digests = store.page_digests(from).expect("digests");
    assert!(digests.iter().any(|d| d.source_id == SourceId(from.0)));
    // A linked page is fed by the digests that name it too.
    assert!(store
        .page_digests(to)
        .expect("digests")
        .iter()
        .any(|d| d.source_id == SourceId(from.0)));
    let grounded = resolved
        .iter()
        .filter_map(|(id, _)| store.page(*id).expect("read"))
        .find_map(|p| p.claims.into_iter().find(|c| c.claim.grounded))
        .expect("a grounded claim");
    let text = store
        .source_text(grounded.source_ids[0])
        .expect("text")
        .expect("its source");
    assert!(text.contains(grounded.claim.quote.as_deref().expect("a quote")));

    // Search: a page's title finds it first; a common word finds many; an alias finds
    // its page.
    let hits = store.search_pages(&page.title).expect("search");
    assert_eq!(hits[0].page_id, from);
    assert!(store.search_pages("extraction").expect("search").len() > 3);
    let with_alias = pages
        .iter()
        .map(|p| store.page(p.id).expect("read").expect("page"))
        .find(|p| !p.aliases.is_empty())
        .expect("a page with an alias");
    assert_eq!(
        store.find_page(&with_alias.aliases[0]).expect("find"),
        Some(with_alias.id)
    );

    // Ask: the pages a question's words find.
    let terms = [QueryTerm {
        word: "pressure".to_owned(),
        prefix: false,
    }];
    assert!(!store.match_pages(&terms, 8).expect("match").is_empty());

    // One seed, one wiki; a second seed into it is refused.
    let (_other_dir, other) = file_store();
    other.seed_bulk(&BulkSeed::new(100)).expect("seed");
    let titles = |s: &Store| -> Vec<String> {
        s.pages()
            .expect("pages")
            .into_iter()
            .map(|p| p.title)
            .collect()
    };
    assert_eq!(titles(&store), titles(&other));
    assert!(store.seed_bulk(&BulkSeed::new(10)).is_err());
    let fingerprint = BulkSeed::new(100).fingerprint().expect("fingerprint");
    assert_eq!(fingerprint, BulkSeed::new(100).fingerprint().unwrap());
    assert_ne!(fingerprint, BulkSeed::new(101).fingerprint().unwrap());

    // As notes of a vault: file sources with the size and time `lint` compares.
    let notes = Store::open_in_memory().expect("store");
    notes
        .seed_bulk(&BulkSeed {
            vault: Some("/vault".to_owned()),
            ..BulkSeed::new(20)
        })
        .expect("seed");
    let files = notes.file_sources().expect("file sources");
    assert_eq!(files.len(), 20);
    let text = notes.source_text(files[0].id).unwrap().unwrap();
    assert!(files[0].origin.starts_with("/vault/") && files[0].origin.ends_with(".md"));
    assert_eq!(files[0].file_size, Some(text.len() as u64));
    assert!(files[0].file_mtime_ns.is_some());
}

/// `ask`'s matching is bounded in a large wiki (words found in more than a bound of pages
/// are *common*), and unchanged where no word is that common: a question's rarer words
/// find their pages first, in their own order, and the common words fill what is left
/// from the most recent pages that have them.
#[test]
fn question_matching_drops_common_words_only_past_the_bound() {
    use wikimind_store::{BulkSeed, FoundPage, PageId, QueryTerm};

    let store = Store::open_in_memory().expect("open");
    store.seed_bulk(&BulkSeed::new(300)).expect("seed");
    let term = |w: &str| QueryTerm {
        word: w.to_owned(),
        prefix: false,
    };
    let ids = |found: &[FoundPage]| found.iter().map(|f| f.page_id).collect::<Vec<PageId>>();
    let everything = 1_000_000;
    // Every page the word finds, best first (no bound reached).
    let all_of = |w: &str| {
        store
            .match_pages_bounded(&[term(w)], everything, everything)
            .expect("match")
    };
    let common = all_of("espresso");
    assert!(common.len() > 200, "a common word of the seed");
    let title = store.pages().expect("pages")[7].title.clone();
    let rare_word = title.split(' ').next().expect("a word").to_lowercase();
    let rare = all_of(&rare_word);
    assert!(
        !rare.is_empty() && rare.len() < 50,
        "{rare_word}: {}",
        rare.len()
    );

    // Below the bound (the default is larger than this wiki): the words' pages ranked
    // together, as always.
    let both = [term("espresso"), term(&rare_word)];
    let unbounded = store
        .match_pages_bounded(&both, 8, everything)
        .expect("match");
    assert_eq!(store.match_pages(&both, 8).expect("match"), unbounded);
    assert_eq!(unbounded.len(), 8);

    // Past it: the rare word's pages first, in its own order; then pages with the
    // common word among its 50 most recent, none twice.
    let bounded = store.match_pages_bounded(&both, 8, 50).expect("match");
    assert_eq!(bounded.len(), 8);
    let shown = rare.len().min(8);
    assert_eq!(ids(&bounded[..shown]), ids(&rare[..shown]));
    let mut recent: Vec<PageId> = ids(&common);
    recent.sort_by(|a, b| b.cmp(a));
    recent.truncate(50);
    assert!(bounded[shown..]
        .iter()
        .all(|f| recent.contains(&f.page_id) && !ids(&rare).contains(&f.page_id)));

    // Only common words: the best of the recent pages that have them, by BM25 as before.
    let only_common = store
        .match_pages_bounded(&[term("espresso")], 8, 50)
        .expect("match");
    assert_eq!(only_common.len(), 8);
    assert!(only_common.iter().all(|f| recent.contains(&f.page_id)));
    assert!(only_common
        .windows(2)
        .all(|w| w[0].rank.unwrap_or(0.0) <= w[1].rank.unwrap_or(0.0)));
    // A word no page has changes nothing.
    assert_eq!(
        store
            .match_pages_bounded(&[term("espresso"), term("zzzqqq")], 8, 50)
            .expect("match"),
        only_common
    );
}

/// A layout whose process lost the lease (it paused past it and another took it) is not
/// stored over the newer one's: nothing it laid out is written.
#[test]
fn a_layout_that_lost_its_lease_is_not_saved() {
    use wikimind_store::{GraphLayoutFigures, JobOwner};
    let store = Store::open_in_memory().expect("open");
    let first = JobOwner {
        host: "a".to_owned(),
        pid: 1,
    };
    let second = JobOwner {
        host: "b".to_owned(),
        pid: 2,
    };
    let gone = |owner: &JobOwner| owner.host == "a";
    assert!(store
        .take_graph_lease(&first, Duration::from_secs(60), &|_| false)
        .expect("lease"));
    // The first holder is taken for gone: the second takes the lease over.
    assert!(store
        .take_graph_lease(&second, Duration::from_secs(60), &gone)
        .expect("lease"));
    let row = node_at;
    let figures = |nodes| GraphLayoutFigures {
        of_changes: 0,
        nodes,
        edges: 0,
        took_ms: 1,
        changes_upto: 0,
    };
    assert!(store
        .save_graph_layout(&second, &[row("p1", 1.0)], &[], figures(1))
        .expect("save"));
    assert!(!store
        .save_graph_layout(&first, &[row("p1", 9.0), row("p2", 9.0)], &[], figures(2))
        .expect("save"));
    let nodes = store.graph_nodes().expect("nodes");
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    assert_eq!(nodes[0].x, 1.0);
}

/// A grounded claim's quote is cited where it stands, on the digest and on the page it
/// feeds; a PDF's pages give the page; when the text changes the citation moves with the
/// quote, is lost when the quote goes (and listed as lost), and is placed again when the
/// quote comes back.
#[test]
fn a_citation_follows_its_quote_through_changes_of_the_text() {
    let (_dir, store) = file_store();
    let page_one = "Espresso is a coffee.\n\n";
    let text = format!("{page_one}It is brewed at nine bars of pressure.\n");
    let pages = |first_end: usize| {
        vec![
            SourcePage {
                number: 1,
                label: Some("iv".to_owned()),
                start: 0,
                end: first_end,
            },
            SourcePage {
                number: 2,
                label: None,
                start: first_end,
                end: 1_000,
            },
        ]
    };
    let source = store
        .ingest_paged_source(
            &new_source("/p/paper.pdf", &text),
            None,
            &pages(page_one.len()),
        )
        .expect("ingest")
        .source_id();
    let quote = "brewed at nine bars of pressure";
    let mut sourced = claim("Espresso takes nine bars", Confidence::Sourced);
    sourced.quote = Some(quote.to_owned());
    let saved = save_with_claims(&store, source, &result("Espresso", "b"), &[sourced], &[]);
    let cited = |store: &Store| {
        store
            .citations(&[(vec![source], Some(quote.to_owned()))])
            .expect("citations")
            .remove(0)
    };
    let first = cited(&store);
    assert_eq!(first.len(), 1);
    let at = text.find(quote).unwrap();
    assert_eq!((first[0].start, first[0].end), (at, at + quote.len()));
    assert_eq!(
        (first[0].page, first[0].page_label.as_deref()),
        (Some(2), None)
    );
    // The page the digest feeds holds the same claim and reads the same citation.
    let page = store.page(saved.page_id.unwrap()).unwrap().unwrap();
    assert_eq!(page.claims[0].source_ids, vec![source]);

    // A page inserted before: the quote moves to page 3.
    let longer = format!("Preface.\n\n{text}");
    let moved_pages = vec![
        SourcePage {
            number: 1,
            label: None,
            start: 0,
            end: 10,
        },
        SourcePage {
            number: 2,
            label: None,
            start: 10,
            end: 10 + page_one.len(),
        },
        SourcePage {
            number: 3,
            label: None,
            start: 10 + page_one.len(),
            end: 1_000,
        },
    ];
    store
        .ingest_paged_source(&new_source("/p/paper.pdf", &longer), None, &moved_pages)
        .unwrap();
    let moved = cited(&store);
    assert_eq!(moved[0].start, at + "Preface.\n\n".len());
    assert_eq!(moved[0].page, Some(3));
    assert!(store.lost_citations().unwrap().is_empty());

    // The quote gone: no citation, listed as lost; back again: placed again.
    store
        .ingest_source(&new_source(
            "/p/paper.pdf",
            "Espresso is a coffee. It is strong.",
        ))
        .unwrap();
    assert!(cited(&store).is_empty());
    assert_eq!(
        store.lost_citations().unwrap(),
        vec![(source, quote.to_owned())]
    );
    store
        .ingest_source(&new_source("/p/paper.pdf", &text))
        .unwrap();
    assert_eq!(cited(&store)[0].start, at);
    assert!(store.lost_citations().unwrap().is_empty());
}

/// Lint's "behind" list finds both ways a page falls behind: a page marked stale, and a
/// page whose digest was written again after the page was (found by one pass over
/// `page_sources`, not page by page), each once and by title.
#[test]
fn pages_behind_are_the_stale_ones_and_those_with_a_newer_digest() {
    let (dir, store) = file_store();
    for (origin, title) in [
        ("/n/a.md", "Aeropress"),
        ("/n/b.md", "Bloom"),
        ("/n/c.md", "Crema"),
    ] {
        let id = add(&store, origin, &format!("Notes on {title}."));
        save(&store, id, &result(title, &format!("About {title}.")), &[]);
    }
    assert!(
        store.pages_behind().expect("behind").is_empty(),
        "all written"
    );

    let page = |title: &str| store.find_page(title).expect("find").expect("page");
    store
        .mark_page_stale(page("Crema"), "a source was removed")
        .expect("mark");
    // Bloom's digest is written again after its page (as a recompile does).
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    conn.execute(
        "UPDATE articles SET updated_at = '2999-01-01T00:00:00.000Z' WHERE title = 'Bloom'",
        [],
    )
    .expect("touch the digest");

    let behind: Vec<(String, String)> = store
        .pages_behind()
        .expect("behind")
        .into_iter()
        .map(|p| (p.title, p.reason))
        .collect();
    assert_eq!(
        behind,
        [
            (
                "Bloom".to_owned(),
                "a digest is newer than the page".to_owned()
            ),
            ("Crema".to_owned(), "a source was removed".to_owned()),
        ]
    );
}

/// A clock that, once armed, holds the next thread to read it until the test lets it go:
/// every change to a source stamps it with the store's time inside its transaction, so an
/// armed clock stops a write half done, holding the store's write lock.
#[derive(Debug)]
struct HeldClock {
    armed: std::sync::atomic::AtomicBool,
    entered: std::sync::Mutex<std::sync::mpsc::Sender<()>>,
    release: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl wikimind_store::Clock for HeldClock {
    fn now_ms(&self) -> i64 {
        if self.armed.swap(false, std::sync::atomic::Ordering::SeqCst) {
            let _ = self.entered.lock().expect("entered").send(());
            let _ = self.release.lock().expect("release").recv();
        }
        wikimind_store::SystemClock.now_ms()
    }
}

#[test]
fn a_read_does_not_wait_for_a_write_in_progress_and_sees_what_was_committed() {
    use std::sync::mpsc::channel;
    // A bound on waiting, so that a read stuck behind the write fails the test instead of
    // hanging it; not a measure of speed.
    const STUCK: Duration = Duration::from_secs(30);
    let (entered_tx, entered) = channel();
    let (release, release_rx) = channel();
    let clock = Arc::new(HeldClock {
        armed: false.into(),
        entered: entered_tx.into(),
        release: release_rx.into(),
    });
    let (_dir, store) = file_store();
    let store = Arc::new(store.with_clock(clock.clone()).expect("clock"));
    let a = add(&store, "/n/a.md", "the first text");

    clock.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    let writer = {
        let store = Arc::clone(&store);
        std::thread::spawn(move || add(&store, "/n/a.md", "the second text"))
    };
    entered
        .recv_timeout(STUCK)
        .expect("the write stamps the changed source");

    // The write holds the lock, half done; a read on another thread answers at once, from
    // what was committed before it.
    let (answer_tx, answer) = channel();
    {
        let store = Arc::clone(&store);
        std::thread::spawn(move || {
            let text = store.source(a).expect("read").expect("source").text;
            let _ = answer_tx.send(text);
        });
    }
    let during = answer.recv_timeout(STUCK);
    release.send(()).expect("let the write go");
    assert_eq!(
        during.as_deref(),
        Ok("the first text"),
        "a read during a write answers from the last commit without waiting"
    );
    assert_eq!(writer.join().expect("writer"), a);
    assert_eq!(
        store.source(a).expect("read").expect("source").text,
        "the second text",
        "a read after the commit sees it"
    );
}

#[test]
fn the_generation_moves_with_every_commit_by_anyone_and_only_then() {
    let (dir, store) = file_store();
    let first = store.generation().expect("generation");
    assert_eq!(
        store.generation().expect("again"),
        first,
        "nothing committed"
    );
    let a = add(&store, "/n/a.md", "one");
    let second = store.generation().expect("after a write");
    assert_ne!(second, first, "this store's commit");
    store.source(a).expect("read");
    assert_eq!(store.generation().expect("after a read"), second);
    // The queue's poll is a write that finds nothing to do: it changes nothing.
    assert_eq!(
        store.recover_interrupted(STALE, &|_| false).expect("poll"),
        0
    );
    assert_eq!(
        store.generation().expect("after a poll"),
        second,
        "a transaction that changed no row"
    );
    // Another process (a connection of its own) commits: the generation moves too.
    let other = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    other
        .execute(
            "UPDATE sources SET title_hint = 'elsewhere' WHERE id = ?1",
            [a.0],
        )
        .expect("update");
    assert_ne!(store.generation().expect("after another's"), second);

    let memory = Store::open_in_memory().expect("memory");
    let before = memory.generation().expect("generation");
    add(&memory, "/n/b.md", "two");
    assert_ne!(memory.generation().expect("after"), before, "in memory too");
}
