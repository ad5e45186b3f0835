//! A wiki made before the name rules (titles, links and concepts written with link syntax,
//! junk names) opens and comes out clean after the backfills: pages merged by the one merge
//! operation, junk removed, every source, digest and claim kept. The merge itself is tested
//! in `crates/store/tests/store/names.rs`.

use wikimind::contract::{CheckedClaim, Confidence};
use wikimind::store::{SourceId, Store};

use crate::seed::{add, link, result, save_with_claims};

fn sourced(text: &str) -> CheckedClaim {
    CheckedClaim {
        claim: text.to_owned(),
        confidence: Confidence::Sourced,
        quote: Some(text.to_owned()),
        grounded: true,
    }
}

fn count(db: &std::path::Path, sql: &str) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// Saves a digest as the build before the name rules did: names as the model wrote them.
fn digest(store: &Store, source: SourceId, title: &str, concepts: &[&str], links: &[&str]) {
    let mut r = result(title, &format!("{title} body."));
    r.concepts = concepts.iter().map(|c| (*c).to_owned()).collect();
    let links: Vec<_> = links.iter().map(|l| link(l, "")).collect();
    save_with_claims(
        store,
        source,
        &r,
        &[sourced(&format!("{title} is described here"))],
        &links,
    );
}

#[test]
fn an_older_wiki_comes_out_merged_and_clean_with_every_claim_and_source_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("wikimind.db");
    let store = Store::open(&db).unwrap();
    let core = add(&store, "/v/Core plugins.md", "core");
    let sync = add(&store, "/v/Sync.md", "sync");
    let basic = add(&store, "/v/Basic formatting syntax.md", "basic");
    let images = add(&store, "/v/Images.md", "images");
    let junk = add(&store, "/v/Brace.md", "brace");
    digest(
        &store,
        core,
        "Core plugins",
        &["#status bar"],
        &["Engelbart.jpg"],
    );
    digest(
        &store,
        sync,
        "Core plugins|core plugin",
        &["Core plugins|core plugin", "1:16"],
        &[
            "Introduction to Obsidian Sync|Obsidian Sync",
            "lucide-heart.svg",
        ],
    );
    digest(&store, basic, "Basic formatting syntax", &[], &[]);
    digest(
        &store,
        images,
        "Basic formatting syntax#External images",
        &[],
        &["Core plugins"],
    );
    digest(&store, junk, "{", &[], &["1:16"]);
    let titles = |store: &Store| -> Vec<String> {
        store
            .pages()
            .unwrap()
            .into_iter()
            .map(|p| p.title)
            .collect()
    };
    assert_eq!(
        titles(&store).len(),
        6,
        "the old rules made a page of each title, and one of `1:16`, named twice"
    );
    let claims_before = count(&db, "SELECT COUNT(*) FROM claims");
    let (sources, digests) = (
        count(&db, "SELECT COUNT(*) FROM sources"),
        count(&db, "SELECT COUNT(*) FROM articles"),
    );

    let reports = wikimind::backfill::run_backfills(&store).unwrap();
    let names = reports
        .iter()
        .find(|r| r.name == "names")
        .expect("the names backfill ran");
    let notice = names.notice().expect("it says what it did");
    assert!(
        notice.contains("2 merged") && notice.contains("2 removed"),
        "{notice}"
    );

    assert_eq!(
        titles(&store),
        ["Basic formatting syntax", "Core plugins"],
        "one page per name, the junk page gone"
    );
    let core_page = store.find_page("Core plugins").unwrap().unwrap();
    for old in [
        "Core plugins|core plugin",
        "Basic formatting syntax#External images",
    ] {
        assert!(
            store.find_page(old).unwrap().is_some(),
            "{old} still resolves"
        );
    }
    let page = store.page(core_page).unwrap().unwrap();
    assert!(
        page.stale_reason.is_some(),
        "the merged page waits for its rewrite"
    );
    let fed: Vec<SourceId> = store
        .page_digests(core_page)
        .unwrap()
        .iter()
        .map(|d| d.source_id)
        .collect();
    assert!(fed.contains(&core) && fed.contains(&sync), "{fed:?}");
    let merged = store.merged_into(core_page).unwrap();
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0].title, "Core plugins|core plugin");
    assert!(
        merged[0].versions >= 1,
        "the absorbed page's versions are kept"
    );

    // Nothing a source or model said is lost: sources, digests and claims stay.
    assert_eq!(count(&db, "SELECT COUNT(*) FROM claims"), claims_before);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM sources"), sources);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM articles"), digests);
    // No name with link syntax, no attachment and no junk is left to become a page.
    for table_sql in [
        "SELECT COUNT(*) FROM links WHERE target_title GLOB '*[|#]*' OR target_title LIKE '%.jpg'
             OR target_title LIKE '%.svg' OR target_title = '1:16'",
        "SELECT COUNT(*) FROM concepts WHERE name GLOB '*[|#]*' OR name = '1:16'",
        "SELECT COUNT(*) FROM digest_names WHERE name GLOB '*[|#]*' OR name = '1:16'",
    ] {
        assert_eq!(count(&db, table_sql), 0, "{table_sql}");
    }
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM links WHERE target_title = 'Introduction to Obsidian Sync'"
        ),
        1,
        "a link written with its shown text keeps its target"
    );
    let wanted: Vec<String> = store
        .wanted_page_links()
        .unwrap()
        .into_iter()
        .map(|w| w.title)
        .collect();
    assert!(wanted.iter().all(|w| !w.contains(['|', '#'])), "{wanted:?}");

    // It ran once: opening again changes nothing.
    let again = wikimind::backfill::run_backfills(&store).unwrap();
    assert!(again.iter().all(|r| r.name != "names"), "{again:?}");
}
