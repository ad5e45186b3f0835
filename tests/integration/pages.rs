//! What the app adds to pages: the name cache following the names, restored claims
//! grounded again, and the backfills over an upgraded wiki. The store's own page rules
//! (one page per topic, fed by digests, every version kept, the upgrade that made pages)
//! are tested in `crates/store/tests/store/pages.rs`.

use wikimind::contract::{CheckedClaim, Confidence};
use wikimind::store::{SourceId, Store};

use crate::seed::{add, result, save_with_claims as compile};

fn claim(text: &str, confidence: Confidence, grounded: bool) -> CheckedClaim {
    CheckedClaim {
        claim: text.to_owned(),
        confidence,
        quote: grounded.then(|| text.to_owned()),
        grounded,
    }
}

/// The names generation moves when a name is made or removed, and only then, so a prompt's
/// name index is rebuilt only when the wiki's names changed.
#[test]
fn the_names_generation_moves_with_names_and_the_index_follows() {
    use wikimind::topic::NameCache;
    let (_dir, store) = file_store();
    let cache = NameCache::new();
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    compile(&store, a, &result("Espresso", "one"), &[], &[]);
    let first = store.names_generation().expect("generation");
    let (titles, _) = cache.known(&store).expect("known");
    assert_eq!(titles.len(), 1);

    // The same digest again: no name changed, the index is the one already made.
    compile(&store, a, &result("Espresso", "one, again"), &[], &[]);
    assert_eq!(store.names_generation().expect("generation"), first);
    let (again, _) = cache.known(&store).expect("known");
    assert!(std::sync::Arc::ptr_eq(&titles, &again));

    // A new spelling (an alias) and a new topic each move it; the index has them.
    compile(&store, b, &result("espressos", "two"), &[], &[]);
    let second = store.names_generation().expect("generation");
    assert!(second > first);
    compile(&store, b, &result("Tea", "two"), &[], &[]);
    assert!(store.names_generation().expect("generation") > second);
    let (now, _) = cache.known(&store).expect("known");
    assert_eq!(now.relevant("a cup of tea", 1), ["Tea"]);

    // A new concept moves the concepts' number alone: the titles' index is the one held,
    // the concepts' has the concept.
    let (titles_before, concepts_before) = store.names_generations().expect("generations");
    let mut with_concept = result("Tea", "two, with a concept");
    with_concept.concepts = vec!["Steeping time".to_owned()];
    compile(&store, b, &with_concept, &[], &[]);
    let (titles_after, concepts_after) = store.names_generations().expect("generations");
    assert_eq!(titles_after, titles_before, "no title changed");
    assert!(concepts_after > concepts_before, "a concept was made");
    let (same_titles, concepts) = cache.known(&store).expect("known");
    assert!(std::sync::Arc::ptr_eq(&now, &same_titles));
    assert_eq!(concepts.relevant("the steeping time", 1), ["Steeping time"]);
    // A new title moves the titles' number.
    let c = add(&store, "/n/c.md", "c");
    compile(&store, c, &result("Grinder", "three"), &[], &[]);
    assert!(store.names_generations().expect("generations").0 > titles_after);
    let (grown, _) = cache.known(&store).expect("known");
    assert_eq!(grown.relevant("a burr grinder", 1), ["Grinder"]);
    drop((titles, again, now, same_titles, grown));

    // A run of compiles, each adding a topic (and some a new spelling of one): the index
    // kept along answers as one a fresh process reads.
    for i in 0..20 {
        let source = add(&store, &format!("/n/run-{i}.md"), &format!("run {i}"));
        let title = if i % 5 == 4 {
            format!("topic {}", i - 1)
        } else {
            format!("Topic {i}")
        };
        compile(&store, source, &result(&title, "a run"), &[], &[]);
        cache.known(&store).expect("known");
    }
    let (kept, _) = cache.known(&store).expect("known");
    let (fresh, _) = NameCache::new().known(&store).expect("known");
    assert_eq!(kept.relevant("", 100), fresh.relevant("", 100));
    assert_eq!(
        kept.relevant("topic 3 and topic 18", 100),
        fresh.relevant("topic 3 and topic 18", 100)
    );
    assert_eq!(kept.len(), fresh.len());
}

/// Regression (hardening, round three): `restore` reattached a version's stored source ids
/// without grounding them again, so a restored claim could name a source that no longer
/// holds its quote. Restored claims are grounded against the page's sources as they are now.
#[test]
fn a_restored_claim_is_grounded_again_against_the_sources_as_they_are_now() {
    let (_dir, store) = file_store();
    let s = add(
        &store,
        "/n/roast.md",
        "Dark roasts taste bitter, light ones fruity.",
    );
    let grounded = [
        claim("Dark roasts taste bitter", Confidence::Sourced, true),
        claim("light ones fruity", Confidence::Sourced, true),
    ];
    let first = compile(&store, s, &result("Roast", "v1"), &grounded, &[]);
    // The note is edited: one quote is still in it, the other is not.
    add(
        &store,
        "/n/roast.md",
        "Light ones fruity, and nothing else is said.",
    );
    compile(&store, s, &result("Roast", "v2"), &[], &[]);

    store
        .restore_page_version(
            first.page_id.unwrap(),
            1,
            &wikimind::compile::ground::reground_page_claims,
        )
        .expect("restore");
    let page = store
        .page(first.page_id.unwrap())
        .expect("read")
        .expect("page");
    let got: Vec<(&str, Confidence, bool, Vec<SourceId>)> = page
        .claims
        .iter()
        .map(|c| {
            (
                c.claim.claim.as_str(),
                c.claim.confidence,
                c.claim.grounded,
                c.source_ids.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "Dark roasts taste bitter",
                Confidence::Inferred,
                false,
                vec![]
            ),
            ("light ones fruity", Confidence::Sourced, true, vec![s]),
        ]
    );
}

/// Regression (hardening, round three): claims that earlier builds showed grounded on a
/// quote stitched from single words are checked again by a backfill after the upgrade, once.
#[test]
fn a_backfill_checks_stored_claims_again_by_todays_grounding_rule() {
    let (_dir, store) = file_store();
    let s = add(
        &store,
        "/n/espresso.md",
        "Espresso is brewed under pressure. The water is hot and the grind is fine.",
    );
    let stitched = CheckedClaim {
        claim: "Espresso needs pressure".to_owned(),
        confidence: Confidence::Sourced,
        quote: Some("espresso ... pressure".to_owned()),
        // As builds before the piece rule stored it.
        grounded: true,
    };
    let claims = [
        stitched,
        claim(
            "Espresso is brewed under pressure",
            Confidence::Sourced,
            true,
        ),
        claim("Fine grinds are best", Confidence::Inferred, false),
    ];
    let saved = compile(&store, s, &result("Espresso", "body"), &claims, &[]);

    let reports = wikimind::backfill::run_backfills(&store).expect("backfill");
    let got: Vec<(&str, usize, usize)> = reports
        .iter()
        .map(|r| (r.name, r.checked, r.downgraded))
        .collect();
    assert_eq!(
        got,
        [
            ("reground-digest-claims", 2, 1),
            ("reground-page-claims", 2, 1),
            ("citations-digest-claims", 1, 0),
            ("citations-page-claims", 1, 0),
            ("citations-prune", 1, 0),
            ("note-metadata", 1, 0),
            ("names", 1, 0),
            // The page's body was counted when it was written: looked at, not counted again.
            ("page-sentences", 1, 0)
        ]
    );
    let page = store
        .page(saved.page_id.unwrap())
        .expect("read")
        .expect("page");
    let shown: Vec<(Confidence, bool, Vec<SourceId>)> = page
        .claims
        .iter()
        .map(|c| (c.claim.confidence, c.claim.grounded, c.source_ids.clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (Confidence::Inferred, false, vec![]),
            (Confidence::Sourced, true, vec![s]),
            (Confidence::Inferred, false, vec![]),
        ]
    );
    assert_eq!(
        page.claims[0].claim.quote.as_deref(),
        Some("espresso ... pressure"),
        "the quote is kept"
    );
    // Done once: a second run finds nothing to do.
    assert!(wikimind::backfill::run_backfills(&store)
        .expect("again")
        .is_empty());
    assert_eq!(
        store
            .backfill_cursor("reground-page-claims", 1)
            .expect("cursor"),
        None
    );
    // A newer version of the rule runs again from the start.
    assert_eq!(
        store
            .backfill_cursor("reground-page-claims", 2)
            .expect("cursor"),
        Some(0)
    );
}

/// A wiki written before citations (the version 1 fixture, upgraded): the backfill records
/// where every grounded claim's quote stands, in its digest and on its page, keeps every
/// claim and source, says so once, and is done.
#[test]
fn the_citations_backfill_places_the_quotes_of_an_upgraded_wiki() {
    let (_dir, path) = fixture();
    let store = Store::open(&path).expect("upgrade");
    let conn = rusqlite::Connection::open(&path).expect("open");
    let before = (
        count(&conn, "SELECT COUNT(*) FROM sources"),
        count(&conn, "SELECT COUNT(*) FROM claims"),
        count(&conn, "SELECT COUNT(*) FROM page_claims"),
    );
    assert_eq!(count(&conn, "SELECT COUNT(*) FROM citations"), 0);

    let reports = wikimind::backfill::run_backfills(&store).expect("backfill");
    let digest = reports
        .iter()
        .find(|r| r.name == "citations-digest-claims")
        .expect("the digest citations backfill ran");
    let grounded = count(
        &conn,
        "SELECT COUNT(*) FROM claims WHERE grounded = 1 AND quote IS NOT NULL",
    ) as usize;
    assert_eq!((digest.checked, digest.changed), (grounded, grounded));
    let notice = digest.notice().expect("a notice");
    assert!(
        notice.contains(&format!(
            "the quotes of {grounded} of {grounded} grounded claims"
        )),
        "{notice}"
    );
    assert!(reports.iter().any(|r| r.name == "citations-page-claims"));
    // Every claim and source is kept.
    assert_eq!(
        (
            count(&conn, "SELECT COUNT(*) FROM sources"),
            count(&conn, "SELECT COUNT(*) FROM claims"),
            count(&conn, "SELECT COUNT(*) FROM page_claims"),
        ),
        before
    );
    // Each citation's range holds its quote in the source's stored text, and the pages
    // read them.
    for summary in store.pages().expect("pages") {
        let page = store.page(summary.id).expect("read").expect("page");
        let wanted: Vec<(Vec<SourceId>, Option<String>)> = page
            .claims
            .iter()
            .map(|c| (c.source_ids.clone(), c.claim.quote.clone()))
            .collect();
        let cited = store.citations(&wanted).expect("citations");
        for (claim, citations) in page.claims.iter().zip(cited) {
            if claim.claim.grounded && !claim.source_ids.is_empty() {
                assert!(!citations.is_empty(), "{:?}", claim.claim.quote);
            }
            for c in citations {
                let text = store
                    .source_text(c.source_id)
                    .expect("text")
                    .expect("source");
                assert_eq!(text[c.start..c.end], c.quote);
                assert_eq!(c.page, None);
            }
        }
    }
    assert!(wikimind::backfill::run_backfills(&store)
        .expect("again")
        .is_empty());
}

fn file_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("wikimind.db")).expect("open");
    (dir, store)
}

/// A copy of the version 1 fixture to upgrade.
fn fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/upgrade/v1-wiki.db"),
        &path,
    )
    .expect("copy the fixture");
    (dir, path)
}

fn count(conn: &rusqlite::Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).expect(sql)
}
