//! Citations let go when no claim cites their quote any more: a page rewritten without a
//! claim, a page removed, a claim no longer grounded, and (for wikis written before) the
//! `citations-prune` backfill's batches.

use wikimind_contract::{CheckedClaim, Confidence};
use wikimind_store::{AuthorKind, PageClaim, PageContent, PageId, SourceId, Store};

use crate::{add, file_store, result, save_with_claims};

const TEXT: &str = "Espresso is brewed at nine bars of pressure. A shot takes thirty seconds.";
const PRESSURE: &str = "brewed at nine bars of pressure";
const TIME: &str = "A shot takes thirty seconds";

fn sourced(text: &str, quote: &str) -> CheckedClaim {
    CheckedClaim {
        claim: text.to_owned(),
        confidence: Confidence::Sourced,
        quote: Some(quote.to_owned()),
        grounded: true,
    }
}

/// A note on espresso whose digest's one claim cites `PRESSURE`, and the page it makes.
fn espresso(store: &Store) -> (SourceId, PageId) {
    let source = add(store, "/n/espresso.md", TEXT);
    let saved = save_with_claims(
        store,
        source,
        &result("Espresso", "b"),
        &[sourced("Nine bars", PRESSURE)],
        &[],
    );
    (source, saved.page_id.expect("a page"))
}

/// The quotes cited in `source`, in order.
fn cited_quotes(dir: &tempfile::TempDir, source: SourceId) -> Vec<String> {
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    let mut stmt = conn
        .prepare("SELECT quote FROM citations WHERE source_id = ?1 ORDER BY quote")
        .expect("prepare");
    let rows = stmt.query_map([source.0], |row| row.get(0)).expect("query");
    rows.collect::<rusqlite::Result<_>>().expect("rows")
}

/// The model writes `page` again with one claim per `(text, quote)`, each held by `source`.
fn rewrite(store: &Store, page: PageId, source: SourceId, claims: &[(&str, &str)]) {
    let material = store.page_material(page).expect("read").expect("page");
    let content = PageContent {
        title: material.title.clone(),
        summary: "About espresso.".to_owned(),
        body: "Espresso.".to_owned(),
        claims: claims
            .iter()
            .map(|(text, quote)| PageClaim {
                claim: sourced(text, quote),
                source_ids: vec![source],
                cited_page: None,
                author: AuthorKind::Model,
            })
            .collect(),
        concepts: Vec::new(),
        open_questions: Vec::new(),
        links: Vec::new(),
    };
    store
        .save_page_rewrite(&material, &content, "test", "model", &[])
        .expect("rewrite");
}

/// A quote only the page's claims cite goes when the page is written without it — not
/// only when the source's digest is saved again; one the digest cites stays.
#[test]
fn a_page_rewritten_without_a_claim_lets_its_citation_go() {
    let (dir, store) = file_store();
    let (source, page) = espresso(&store);
    assert_eq!(cited_quotes(&dir, source), [PRESSURE]);

    // The model writes the page with a second quote the source holds.
    rewrite(
        &store,
        page,
        source,
        &[("Nine bars", PRESSURE), ("Thirty seconds", TIME)],
    );
    assert_eq!(cited_quotes(&dir, source), [TIME, PRESSURE]);

    // Written again without it: nothing cites it any more.
    rewrite(&store, page, source, &[("Nine bars", PRESSURE)]);
    assert_eq!(cited_quotes(&dir, source), [PRESSURE]);

    // A quote the digest still cites stays when the page drops it.
    rewrite(&store, page, source, &[]);
    assert_eq!(cited_quotes(&dir, source), [PRESSURE]);
}

/// A page claim shown as no longer grounded names no source; its citation goes unless
/// another claim cites the quote.
#[test]
fn a_claim_no_longer_grounded_lets_its_citation_go() {
    let (dir, store) = file_store();
    let (source, page) = espresso(&store);
    rewrite(
        &store,
        page,
        source,
        &[("Nine bars", PRESSURE), ("Thirty seconds", TIME)],
    );
    assert_eq!(cited_quotes(&dir, source), [TIME, PRESSURE]);
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    let time_claim: i64 = conn
        .query_row(
            "SELECT id FROM page_claims WHERE page_id = ?1 AND quote = ?2",
            rusqlite::params![page.0, TIME],
            |row| row.get(0),
        )
        .expect("the claim");
    store
        .downgrade_claims(wikimind_store::ClaimTable::Page, &[time_claim])
        .expect("downgrade");
    assert_eq!(cited_quotes(&dir, source), [PRESSURE]);
}

/// The backfill's batch lets go of what no claim cites in the sources it is given, and
/// moves its cursor; a second process's batch at the same cursor writes nothing.
#[test]
fn the_prune_backfill_batch_lets_stale_citations_go() {
    let (dir, store) = file_store();
    let (source, _) = espresso(&store);
    // A row an older build left behind: no claim cites this quote.
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    conn.execute(
        "INSERT INTO citations (source_id, quote, piece, start, \"end\", exact, prefix, suffix)
         VALUES (?1, ?2, 0, 45, 72, ?2, '', '')",
        rusqlite::params![source.0, TIME],
    )
    .expect("insert");
    assert_eq!(cited_quotes(&dir, source), [TIME, PRESSURE]);

    let sources = store.cited_sources_after(0, 500).expect("cited");
    assert_eq!(sources, [source]);
    let gone = store
        .record_citation_prune_batch("citations-prune", 1, (0, source.0), &sources, true)
        .expect("batch");
    assert_eq!(gone, Some(1));
    assert_eq!(cited_quotes(&dir, source), [PRESSURE]);
    assert_eq!(
        store
            .record_citation_prune_batch("citations-prune", 1, (0, source.0), &sources, true)
            .expect("again"),
        None,
        "the cursor moved on"
    );
    assert_eq!(
        store.backfill_cursor("citations-prune", 1).expect("cursor"),
        None
    );
}
