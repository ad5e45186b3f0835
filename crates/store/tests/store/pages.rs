//! Pages as a person meets them: one per topic, fed by the digests of the sources that
//! name it, kept in step as sources are compiled and removed, with every version kept; and
//! the upgrade that makes them from a wiki of articles.

use wikimind_contract::{CheckedClaim, Confidence};
use wikimind_store::{ArticleId, AuthorKind, PageId, PageKind, SourceId, Store, StoreError};

use crate::{add, file_store, link, result, save_with_claims as compile};

fn claim(text: &str, confidence: Confidence, grounded: bool) -> CheckedClaim {
    CheckedClaim {
        claim: text.to_owned(),
        confidence,
        quote: grounded.then(|| text.to_owned()),
        grounded,
    }
}

fn page_titles(store: &Store) -> Vec<(String, u32)> {
    store
        .pages()
        .expect("pages")
        .into_iter()
        .map(|p| (p.title, p.source_count))
        .collect()
}

fn found(store: &Store, name: &str) -> Option<PageId> {
    store.find_page(name).expect("find")
}

#[test]
fn espresso_espresso_and_espressos_are_one_page_under_the_first_spelling() {
    let (_dir, store) = file_store();
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let c = add(&store, "/n/c.md", "c");
    let first = compile(&store, a, &result("Espresso", "one"), &[], &[]);
    let second = compile(&store, b, &result("espresso", "two"), &[], &[]);
    let third = compile(&store, c, &result("Espressos", "three"), &[], &[]);
    assert_eq!(first.page_id, second.page_id);
    assert_eq!(first.page_id, third.page_id);
    assert_eq!(page_titles(&store), [("Espresso".to_owned(), 3)]);
    for name in [
        "Espresso",
        "espresso",
        "Espressos",
        " ESPRESSO. ",
        "espressos!",
    ] {
        assert_eq!(
            found(&store, name),
            Some(first.page_id.unwrap()),
            "{name:?}"
        );
    }
    let page = store
        .page(first.page_id.unwrap())
        .expect("read")
        .expect("page");
    assert_eq!(page.aliases, ["Espressos", "espresso"]);
    assert_eq!(page.kind, PageKind::Topic);
    // The page shows the first digest until it is written from all three.
    assert_eq!(page.body, "one");
    assert!(page.stale_reason.is_some());
    let digests = store.page_digests(first.page_id.unwrap()).expect("digests");
    let feeding: Vec<(SourceId, &str)> = digests
        .iter()
        .map(|d| (d.source_id, d.title.as_str()))
        .collect();
    assert_eq!(
        feeding,
        [(a, "Espresso"), (b, "espresso"), (c, "Espressos")],
        "oldest first"
    );
    for source in [a, b, c] {
        let pages = store.source_pages(source).expect("source pages");
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].id, first.page_id.unwrap());
    }
    assert_eq!(store.stale_pages().expect("stale").len(), 1);
}

#[test]
fn names_that_differ_by_a_number_are_different_pages() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let two = compile(&store, a, &result("Model 2", "two"), &[], &[]);
    let three = compile(&store, b, &result("Model 3", "three"), &[], &[]);
    assert_ne!(two.page_id, three.page_id);
    assert_eq!(
        page_titles(&store),
        [("Model 2".to_owned(), 1), ("Model 3".to_owned(), 1)]
    );
    assert_eq!(found(&store, "model-2"), Some(two.page_id.unwrap()));
    assert_eq!(found(&store, "MODEL3"), Some(three.page_id.unwrap()));
    assert_eq!(found(&store, "Model 4"), None);
    assert_eq!(found(&store, "Model"), None);
    assert!(store.stale_pages().expect("stale").is_empty());
}

#[test]
fn a_page_fed_by_one_digest_is_that_digest_and_follows_its_recompiles() {
    let store = Store::open_in_memory().expect("open");
    let source = add(&store, "/n/grinders.md", "text");
    let other = add(&store, "/n/espresso.md", "text");
    let espresso = compile(&store, other, &result("Espresso", "e"), &[], &[]);
    let mut grinders = result("Burr Grinders", "Burrs crush beans. See [[Espresso]].");
    grinders.concepts = vec!["Grind Size".to_owned()];
    grinders.open_questions = vec!["Flat or conical?".to_owned()];
    let claims = [
        claim("Burrs crush beans", Confidence::Sourced, true),
        claim("Burrs are better", Confidence::Opinion, false),
        claim("Blades were first", Confidence::Inferred, false),
    ];
    let links = [
        link("Espresso", "See Espresso."),
        link("Grind Size", "Fine or coarse."),
        link("burr grinder", "a link to itself"),
    ];
    let saved = compile(&store, source, &grinders, &claims, &links);

    let page = store
        .page(saved.page_id.unwrap())
        .expect("read")
        .expect("page");
    assert_eq!(page.title, "Burr Grinders");
    assert_eq!(page.body, grinders.article_body);
    assert_eq!(page.summary, grinders.summary);
    assert_eq!(page.concepts, ["Grind Size"]);
    assert_eq!(page.open_questions, ["Flat or conical?"]);
    assert_eq!(page.stale_reason, None);
    let claimed: Vec<(&str, Vec<SourceId>)> = page
        .claims
        .iter()
        .map(|c| (c.claim.claim.as_str(), c.source_ids.clone()))
        .collect();
    assert_eq!(
        claimed,
        [
            ("Burrs crush beans", vec![source]),
            ("Burrs are better", vec![]),
            ("Blades were first", vec![]),
        ],
        "only a grounded quote names its source"
    );
    let resolved: Vec<(&str, Option<PageId>)> = page
        .links
        .iter()
        .map(|l| (l.target.as_str(), l.page_id))
        .collect();
    assert_eq!(
        resolved,
        [("Espresso", espresso.page_id), ("Grind Size", None)],
        "a link to the page itself is dropped; an unknown one is wanted"
    );
    let espresso_page = store
        .page(espresso.page_id.unwrap())
        .expect("r")
        .expect("page");
    assert_eq!(espresso_page.backlinks.len(), 1);
    assert_eq!(espresso_page.backlinks[0].title, "Burr Grinders");

    // The same answer again: nothing new to keep.
    compile(&store, source, &grinders, &claims, &links);
    assert_eq!(
        store.page_history(saved.page_id.unwrap()).expect("h").len(),
        1
    );
    // A changed answer is a new version, by the model that wrote it.
    let mut changed = grinders.clone();
    changed.article_body = "Burrs crush beans evenly.".to_owned();
    let again = compile(&store, source, &changed, &claims[..1], &links[..1]);
    assert_eq!(again.page_id, saved.page_id);
    let history = store.page_history(saved.page_id.unwrap()).expect("history");
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].version, 2);
    assert_eq!(history[1].author_kind, AuthorKind::Model);
    assert_eq!(history[1].model.as_deref(), Some("llama3"));
    let page = store
        .page(saved.page_id.unwrap())
        .expect("read")
        .expect("page");
    assert_eq!(
        (page.version, page.body.as_str()),
        (2, "Burrs crush beans evenly.")
    );
    assert_eq!(page.claims.len(), 1);
}

#[test]
fn a_digest_whose_title_changes_leaves_its_old_page_for_the_new_one() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let c = add(&store, "/n/c.md", "c");
    let espresso = compile(&store, a, &result("Espresso", "a"), &[], &[]);
    compile(&store, b, &result("Espresso", "b"), &[], &[]);
    let latte = compile(
        &store,
        c,
        &result("Latte", "c"),
        &[],
        &[link("Flat White", "")],
    );
    assert!(store
        .page(espresso.page_id.unwrap())
        .expect("r")
        .expect("p")
        .stale_reason
        .is_some());

    // B now says it is about ristretto: Espresso is A's digest again, and current.
    let ristretto = compile(&store, b, &result("Ristretto", "b"), &[], &[]);
    assert_ne!(ristretto.page_id, espresso.page_id);
    let page = store
        .page(espresso.page_id.unwrap())
        .expect("r")
        .expect("page");
    assert_eq!((page.body.as_str(), page.stale_reason), ("a", None));
    assert_eq!(
        page_titles(&store),
        [
            ("Espresso".to_owned(), 1),
            ("Latte".to_owned(), 1),
            ("Ristretto".to_owned(), 1)
        ]
    );

    // A page whose only digest moves on is gone (its id is never given to another page);
    // links to it are wanted, links to the new title resolve.
    compile(
        &store,
        a,
        &result("Flat White", "a"),
        &[],
        &[link("Latte", "")],
    );
    assert_eq!(found(&store, "Espresso"), None);
    assert!(store
        .page(espresso.page_id.unwrap())
        .expect("read")
        .is_none());
    let flat_white = found(&store, "flat white").expect("the new page");
    assert!(flat_white.0 > ristretto.page_id.unwrap().0);
    let latte_page = store
        .page(latte.page_id.unwrap())
        .expect("r")
        .expect("page");
    assert_eq!(latte_page.links[0].page_id, Some(flat_white));
    assert_eq!(latte_page.backlinks[0].page_id, flat_white);
}

#[test]
fn removing_a_source_updates_every_page_it_fed() {
    let (_dir, store) = file_store();
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let d = add(&store, "/n/d.md", "d");
    let t = add(&store, "/n/tea.md", "t");
    let l = add(&store, "/n/latte.md", "l");
    let coffee = compile(&store, a, &result("Coffee", "a"), &[], &[]);
    compile(&store, b, &result("Coffee", "b"), &[], &[]);
    compile(&store, d, &result("coffee", "d"), &[], &[]);
    let tea = compile(&store, t, &result("Tea", "t"), &[], &[link("Coffee", "")]);
    let latte = compile(&store, l, &result("Latte", "l"), &[], &[link("Tea", "")]);
    // Until it is rewritten, the page says a source was removed.
    store.remove_source(d).expect("remove d");
    let page = store
        .page(coffee.page_id.unwrap())
        .expect("r")
        .expect("page");
    let reason = page.stale_reason.expect("stale");
    assert!(
        reason.contains(&format!("source {d} was removed")),
        "{reason}"
    );
    // a and b by their titles, and Tea's note, which links to Coffee.
    assert_eq!(page_titles(&store)[0], ("Coffee".to_owned(), 3));

    // A page left with no source is removed, and links to it become wanted.
    store.remove_source(t).expect("remove t");
    assert!(store.page(tea.page_id.unwrap()).expect("read").is_none());
    assert_eq!(found(&store, "Tea"), None);
    let latte_page = store
        .page(latte.page_id.unwrap())
        .expect("r")
        .expect("page");
    assert_eq!(latte_page.links[0].page_id, None);
    assert!(store
        .page(coffee.page_id.unwrap())
        .expect("r")
        .expect("page")
        .backlinks
        .is_empty());

    // One digest left whose title names the page: the page is that digest, current.
    store.remove_source(b).expect("remove b");
    let page = store
        .page(coffee.page_id.unwrap())
        .expect("r")
        .expect("page");
    assert_eq!((page.body.as_str(), page.stale_reason), ("a", None));
    assert_eq!(page.aliases, ["coffee"], "a spelling seen stays an alias");
    assert!(store.stale_pages().expect("stale").is_empty());
    assert_eq!(
        page_titles(&store),
        [("Coffee".to_owned(), 1), ("Latte".to_owned(), 1)]
    );
}

#[test]
fn history_keeps_every_version_and_a_restore_is_a_new_version_by_the_person() {
    let (_dir, store) = file_store();
    let s = add(&store, "/n/roast.md", "text");
    let grounded = [claim("Dark roasts taste bitter", Confidence::Sourced, true)];
    let first = compile(
        &store,
        s,
        &result("Roast", "light and dark"),
        &grounded,
        &[],
    );
    compile(&store, s, &result("Roast", "light, medium, dark"), &[], &[]);
    compile(&store, s, &result("Roast", "only dark"), &[], &[]);
    let id = first.page_id.unwrap();
    let history = store.page_history(id).expect("history");
    assert_eq!(
        history.iter().map(|v| v.version).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert!(history.iter().all(|v| v.author_kind == AuthorKind::Model));

    let restored = store
        .restore_page_version(id, 1, &|_, _| {})
        .expect("restore");
    assert_eq!(restored, 4);
    let page = store.page(id).expect("read").expect("page");
    assert_eq!((page.version, page.body.as_str()), (4, "light and dark"));
    assert_eq!(
        page.claims[0].source_ids,
        [s],
        "claims come back with their sources"
    );
    let latest = &store.page_history(id).expect("history")[3];
    assert_eq!(
        (
            latest.author_kind,
            latest.restored_from,
            latest.provider.as_deref()
        ),
        (AuthorKind::Person, Some(1), None)
    );
    let one = store.page_version(id, 1).expect("read").expect("v1");
    let four = store.page_version(id, 4).expect("read").expect("v4");
    assert_eq!(one.content, four.content);
    assert_eq!(
        store
            .page_version(id, 2)
            .expect("read")
            .expect("v2")
            .content
            .body,
        "light, medium, dark"
    );

    assert!(matches!(
        store.restore_page_version(id, 9, &|_, _| {}),
        Err(StoreError::PageVersionNotFound { version: 9, .. })
    ));
    assert!(matches!(
        store.restore_page_version(PageId(999), 1, &|_, _| {}),
        Err(StoreError::PageNotFound(PageId(999)))
    ));
    assert_eq!(store.page_history(id).expect("history").len(), 4);
}

use crate::v1_fixture as fixture;

fn count(conn: &rusqlite::Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).expect(sql)
}

/// A link as the version 1 wiki stored it: its target and the article it went to.
type OldLink = (String, Option<i64>);

#[test]
fn an_upgraded_wiki_has_one_page_per_article_with_its_id_and_links() {
    let (_dir, path) = fixture();
    let articles: Vec<(i64, String, Vec<OldLink>)> = {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let mut stmt = conn
            .prepare("SELECT id, title FROM articles ORDER BY id")
            .expect("prepare");
        let heads: Vec<(i64, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows");
        heads
            .into_iter()
            .map(|(id, title)| {
                let mut stmt = conn
                    .prepare(
                        "SELECT target_title, to_article FROM links
                         WHERE from_article = ?1 ORDER BY position",
                    )
                    .expect("prepare");
                let links = stmt
                    .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .expect("query")
                    .collect::<rusqlite::Result<_>>()
                    .expect("rows");
                (id, title, links)
            })
            .collect()
    };
    assert_eq!(articles.len(), 11);

    let store = Store::open(&path).expect("upgrade");
    let pages = store.pages().expect("pages");
    assert_eq!(pages.len(), articles.len(), "one page per topic");
    for (id, title, links) in &articles {
        let page = store
            .page(PageId(*id))
            .expect("read")
            .unwrap_or_else(|| panic!("page {id} ({title}) keeps the article's id"));
        assert_eq!(&page.title, title);
        assert_eq!(page.stale_reason, None, "{title}: one digest, current");
        let article = store.article(ArticleId(*id)).expect("r").expect("article");
        assert_eq!(page.body, article.body);
        assert_eq!(page.summary, article.summary);
        assert_eq!(page.concepts, article.concepts);
        let claims: Vec<&CheckedClaim> = page.claims.iter().map(|c| &c.claim).collect();
        assert_eq!(claims, article.claims.iter().collect::<Vec<_>>());
        assert!(page
            .claims
            .iter()
            .all(|c| c.source_ids == [article.sources[0].source_id]));
        // Every link goes where it went: to the page with the article's id, or nowhere.
        let now: Vec<OldLink> = page
            .links
            .iter()
            .map(|l| (l.target.clone(), l.page_id.map(|p| p.0)))
            .collect();
        assert_eq!(&now, links, "links of {title}");
        assert_eq!(page.backlinks.len(), article.backlinks.len(), "{title}");
        let history = store.page_history(page.id).expect("history");
        assert_eq!(history.len(), 1);
        // Version 1, as migration 6's frozen writer stored it, reads back as the page.
        let first = store
            .page_version(page.id, 1)
            .expect("r")
            .expect("version 1");
        assert_eq!(first.content.title, page.title);
        assert_eq!(first.content.body, page.body);
        assert_eq!(first.content.claims, page.claims, "claims of {title}");
        let targets: Vec<&str> = first
            .content
            .links
            .iter()
            .map(|l| l.target.as_str())
            .collect();
        let shown: Vec<&str> = page.links.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(targets, shown, "links of version 1 of {title}");
        assert_eq!(history[0].author_kind, AuthorKind::Model);
        assert_eq!(history[0].created_at, article.updated_at);
        assert_eq!(found(&store, &title.to_uppercase()), Some(page.id));
    }
    assert!(pages.iter().all(|p| p.source_count == 1));
    // Digests are still there for what reads them today.
    assert_eq!(store.articles().expect("digests").len(), 11);
}

/// A version 1 wiki where three sources spoke of espresso (`Espresso`, `Espresso (2)` made
/// by the collision rule, `Espressos`) and two of cold brew (the second's answer lost).
#[test]
fn an_upgrade_restores_numbered_titles_and_gives_each_topic_one_page() {
    let (_dir, path) = fixture();
    let (tables_before, compilations_before) = {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let exec = |sql: &str| conn.execute_batch(sql).expect(sql);
        exec(
            "INSERT INTO sources (id, origin, kind, text, content_hash, status) VALUES
                 (20, '/n/espresso-book.md', 'file', 'Espresso text', 'h20', 'compiled'),
                 (21, '/n/espressos.md', 'file', 'Espressos text', 'h21', 'compiled'),
                 (22, '/n/cold-brew-2.md', 'file', 'Cold brew text', 'h22', 'compiled'),
                 (23, '/n/symphony.md', 'file', 'Symphony text', 'h23', 'compiled');
             INSERT INTO articles (id, source_id, title, title_norm, summary, body, provider,
                                   model, prompt_version, created_at, updated_at) VALUES
                 (20, 20, 'Espresso (2)', 'espresso (2)', 'Book', 'From the book.', 'ollama',
                  'm', 'v1', '2026-11-24T10:00:00.000Z', '2026-11-24T10:00:00.000Z'),
                 (21, 21, 'Espressos', 'espressos', 'Shots', 'Two shots.', 'ollama', 'm', 'v1',
                  '2026-11-24T11:00:00.000Z', '2026-11-24T11:00:00.000Z'),
                 (22, 22, 'Cold Brew (2)', 'cold brew (2)', 'Cold', 'Slow.', 'ollama', 'm',
                  'v1', '2026-11-24T12:00:00.000Z', '2026-11-24T12:00:00.000Z'),
                 (23, 23, 'Symphony (5)', 'symphony (5)', 'Music', 'Da-da-da-dum.', 'ollama',
                  'm', 'v1', '2026-11-24T13:00:00.000Z', '2026-11-24T13:00:00.000Z');
             INSERT INTO claims (article_id, position, claim, confidence, quote, grounded)
             VALUES (20, 0, 'Books explain espresso', 'inferred', NULL, 0);
             INSERT INTO compilations (source_id, provider, model, prompt_version, latency_ms,
                                       attempt, raw_answer, outcome) VALUES
                 (20, 'ollama', 'm', 'v1', 1, 1, '{\"title\": \"Espresso\"}', 'compiled'),
                 (23, 'ollama', 'm', 'v1', 1, 1, '{\"title\": \"Symphony (5)\"}', 'compiled');
             INSERT INTO links (from_article, position, target_title, target_norm, to_article)
             VALUES (6, 9, 'Espresso (2)', 'espresso (2)', 20),
                    (6, 10, 'Cold Brew (2)', 'cold brew (2)', 22),
                    (20, 0, 'Espresso', 'espresso', 5);",
        );
        let tables: Vec<i64> = [
            "sources",
            "articles",
            "claims",
            "links",
            "compilations",
            "article_concepts",
        ]
        .iter()
        .map(|t| count(&conn, &format!("SELECT COUNT(*) FROM {t}")))
        .collect();
        (tables, count(&conn, "SELECT COUNT(*) FROM compilations"))
    };

    let store = Store::open(&path).expect("upgrade");
    drop(store);
    {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let tables: Vec<i64> = [
            "sources",
            "articles",
            "claims",
            "links",
            "compilations",
            "article_concepts",
        ]
        .iter()
        .map(|t| count(&conn, &format!("SELECT COUNT(*) FROM {t}")))
        .collect();
        // Every row is kept but one: the link of the digest titled `Espresso (2)` to
        // `Espresso`, which is its own title once restored, and a digest stores no link to
        // itself (migration 20).
        let mut expected = tables_before.clone();
        expected[3] -= 1;
        assert_eq!(tables, expected, "every row kept");
        assert_eq!(
            count(&conn, "SELECT COUNT(*) FROM links WHERE from_article = 20"),
            0
        );
        assert_eq!(
            count(&conn, "SELECT COUNT(*) FROM compilations"),
            compilations_before
        );
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("integrity");
        assert_eq!(integrity, "ok");
        assert_eq!(
            count(&conn, "SELECT COUNT(*) FROM pragma_foreign_key_check"),
            0
        );
        let digest_title = |id: i64| -> String {
            conn.query_row("SELECT title FROM articles WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .expect("title")
        };
        // The title the model asked for; the suffix stripped when the answer is lost; a
        // number the model asked for kept.
        assert_eq!(digest_title(20), "Espresso");
        assert_eq!(digest_title(22), "Cold Brew");
        assert_eq!(digest_title(23), "Symphony (5)");
    }

    let store = Store::open(&path).expect("reopen");
    let pages = store.pages().expect("pages");
    assert_eq!(pages.len(), 12, "eleven topics and the symphony");
    assert!(
        pages
            .iter()
            .all(|p| !p.title.ends_with(" (2)") && !p.title.ends_with(" (3)")),
        "{pages:?}"
    );
    let espresso = store.page(PageId(5)).expect("read").expect("Espresso");
    assert_eq!(espresso.title, "Espresso");
    assert!(espresso.stale_reason.expect("stale").contains("3 sources"));
    assert_eq!(espresso.aliases, ["Espressos", "Espresso (2)"]);
    let sources: Vec<SourceId> = store
        .page_digests(espresso.id)
        .expect("digests")
        .iter()
        .map(|d| d.source_id)
        .collect();
    assert_eq!(sources, [SourceId(5), SourceId(20), SourceId(21)]);
    // Version 1 is the oldest digest.
    let article = store.article(ArticleId(5)).expect("r").expect("article");
    assert_eq!(espresso.body, article.body);
    assert_eq!(store.page_history(espresso.id).expect("h").len(), 1);
    for name in ["Espresso (2)", "espressos", "ESPRESSO"] {
        assert_eq!(found(&store, name), Some(espresso.id), "{name}");
    }
    // The digests that joined another's page are no pages of their own: their ids lead
    // to the page they feed.
    for digest in [20, 21] {
        assert!(store.page(PageId(digest)).expect("read").is_none());
        assert_eq!(
            store.digest_page(ArticleId(digest)).expect("find"),
            Some(espresso.id)
        );
    }
    assert_eq!(store.digest_page(ArticleId(99)).expect("find"), None);

    // A page job writes Espresso from the two digests its first version is not.
    let material = store
        .page_material(espresso.id)
        .expect("material")
        .expect("page");
    let changed: Vec<SourceId> = material.changed().map(|d| d.source_id).collect();
    assert_eq!(changed, [SourceId(20), SourceId(21)]);
    assert!(!material.may_shrink());
    {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        // Every digest's concepts and link targets are recorded by key for concept pages.
        assert_eq!(
            count(
                &conn,
                "SELECT COUNT(*) FROM digest_names WHERE source_id = 20"
            ),
            0,
            "its one link names its own topic"
        );
        assert!(count(&conn, "SELECT COUNT(*) FROM digest_names") > 0);
        assert_eq!(
            count(
                &conn,
                "SELECT COUNT(*) FROM digest_names dn WHERE NOT EXISTS (
                     SELECT 1 FROM article_concepts ac
                     JOIN articles a ON a.id = ac.article_id
                     WHERE a.source_id = dn.source_id)
                   AND NOT EXISTS (SELECT 1 FROM links l JOIN articles a ON a.id = l.from_article
                                   WHERE a.source_id = dn.source_id)"
            ),
            0,
            "each name comes from a concept or a link of that digest"
        );
    }

    let cold_brew = store.page(PageId(3)).expect("read").expect("Cold Brew");
    assert_eq!(cold_brew.aliases, ["Cold Brew (2)"]);
    assert!(cold_brew.stale_reason.is_some());
    let symphony = found(&store, "symphony (5)").expect("symphony");
    assert_eq!(symphony, PageId(23));
    assert_eq!(
        store.page(symphony).expect("r").expect("p").stale_reason,
        None
    );

    // Old links through the numbered titles lead to the topic's page.
    let extraction = store.page(PageId(6)).expect("read").expect("Extraction");
    let targets: Vec<(&str, Option<PageId>)> = extraction
        .links
        .iter()
        .map(|l| (l.target.as_str(), l.page_id))
        .collect();
    assert!(
        targets.contains(&("Espresso (2)", Some(PageId(5)))),
        "{targets:?}"
    );
    assert!(
        targets.contains(&("Cold Brew (2)", Some(PageId(3)))),
        "{targets:?}"
    );
    assert!(espresso.backlinks.iter().any(|b| b.page_id == PageId(6)));
    // The digests are still there for what reads them today (until `show` speaks of
    // pages), under the titles the model asked for, and both search indexes are whole.
    assert_eq!(store.find_article("20").expect("find"), Some(ArticleId(20)));
    {
        let conn = rusqlite::Connection::open(&path).expect("open raw");
        let digest_hits: Vec<(i64, String)> = conn
            .prepare(
                "SELECT a.id, a.title FROM articles_fts JOIN articles a ON a.id = articles_fts.rowid
                 WHERE articles_fts MATCH 'book'",
            )
            .expect("prepare")
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert!(
            digest_hits.contains(&(20, "Espresso".to_string())),
            "{digest_hits:?}"
        );
        for index in ["articles_fts", "pages_fts"] {
            conn.execute_batch(&format!(
                "INSERT INTO {index}({index}) VALUES ('integrity-check')"
            ))
            .unwrap_or_else(|e| panic!("{index}: {e}"));
        }
        assert_eq!(
            count(
                &conn,
                "SELECT COUNT(*) FROM pages_fts WHERE pages_fts MATCH 'book'"
            ),
            0,
            "version 1 of Espresso is the oldest digest, not the book"
        );
        assert_eq!(
            count(
                &conn,
                "SELECT rowid FROM pages_fts WHERE pages_fts MATCH 'concentrated'"
            ),
            5
        );
    }

    // A new topic named like an old numbered title takes the name over: numbers never
    // merge, so `Espresso 2` is not the Espresso page.
    let sequel = add(&store, "/n/espresso-2.md", "the sequel");
    let saved = compile(&store, sequel, &result("Espresso 2", "sequel"), &[], &[]);
    assert_ne!(saved.page_id.unwrap(), espresso.id);
    assert_eq!(found(&store, "Espresso (2)"), Some(saved.page_id.unwrap()));
    let espresso = store.page(espresso.id).expect("read").expect("Espresso");
    assert_eq!(espresso.aliases, ["Espressos"]);
    assert_eq!(espresso.body, article.body, "untouched by the new topic");
}

/// The titles a compile prompt may offer are the pages' names (titles and aliases) with the
/// links of other pages that reach each page, never one entry per digest: three digests of
/// one topic are one title.
#[test]
fn the_known_titles_are_page_names_with_inbound_page_links() {
    let (_dir, store) = file_store();
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let c = add(&store, "/n/c.md", "c");
    compile(&store, a, &result("Espresso", "one"), &[], &[]);
    compile(&store, b, &result("espresso", "two"), &[], &[]);
    let links = [link("Espressos", "Milk goes on espressos.")];
    compile(&store, c, &result("Flat White", "three"), &[], &links);
    let mut names: Vec<(String, u64)> = store
        .title_names()
        .expect("names")
        .names
        .into_iter()
        .map(|n| (n.name, n.uses))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("Espresso".to_owned(), 1),
            ("Flat White".to_owned(), 0),
            ("espresso".to_owned(), 1)
        ]
    );
}

/// The names made since a mark are read alone, as the whole list would list them; a rename
/// or a removal since says the whole list must be read again.
#[test]
fn the_titles_made_since_a_mark_are_read_alone_and_anything_else_asks_for_all() {
    let (_dir, store) = file_store();
    let listed = |names: Vec<wikimind_text::names::KnownName>| {
        let mut names: Vec<(String, bool)> = names.into_iter().map(|n| (n.name, n.alias)).collect();
        names.sort();
        names
    };
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let c = add(&store, "/n/c.md", "c");
    let first = compile(&store, a, &result("Espresso", "one"), &[], &[]);
    let start = store.title_names_uncounted().expect("names");
    let nothing = store
        .title_names_since(&start.mark)
        .expect("read")
        .expect("nothing new");
    assert!(nothing.names.is_empty());
    assert_eq!(nothing.mark, start.mark);

    // A new spelling of the topic (an alias) and a new topic, each with its digest.
    compile(&store, b, &result("espresso", "two"), &[], &[]);
    compile(&store, c, &result("Flat White", "three"), &[], &[]);
    let made = store
        .title_names_since(&start.mark)
        .expect("read")
        .expect("only made");
    assert_eq!(
        listed(made.names.clone()),
        [
            ("Flat White".to_owned(), false),
            ("espresso".to_owned(), true)
        ]
    );
    let mut all = start.names;
    all.extend(made.names);
    assert_eq!(
        listed(all),
        listed(store.title_names_uncounted().expect("names").names)
    );
    assert_eq!(made.mark, store.title_names().expect("names").mark);

    // A rename since the mark: all must be read again.
    let espresso = first.page_id.expect("a page");
    store
        .rename_page(espresso, "Espresso coffee")
        .expect("rename");
    assert!(store.title_names_since(&made.mark).expect("read").is_none());
}

/// Search, wanted pages and sizes are over pages: two digests of one topic are one hit, and
/// a link no page answers to is one wanted page however many digests hold it.
#[test]
fn search_wanted_pages_and_counts_are_over_pages() {
    let (_dir, store) = file_store();
    // Two sources naming Grind Size would give it a page at the default threshold.
    store.set_min_sources(3);
    let a = add(&store, "/n/a.md", "a");
    let b = add(&store, "/n/b.md", "b");
    let links = [link("Grind Size", "")];
    compile(
        &store,
        a,
        &result("Espresso", "Brewed under pressure."),
        &[],
        &links,
    );
    compile(
        &store,
        b,
        &result("espresso", "Pressure again."),
        &[],
        &links,
    );
    let hits = store.search_pages("pressure").expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].title, "Espresso");
    let by_name = store.search_pages("espressos").expect("search");
    assert_eq!(by_name.len(), 1, "found by another spelling of its title");
    let wanted = store.wanted_page_links().expect("wanted");
    assert_eq!(wanted.len(), 1);
    assert_eq!(
        (wanted[0].title.as_str(), wanted[0].mentions),
        ("Grind Size", 1)
    );
    let counts = store.page_counts().expect("counts");
    assert_eq!(
        (counts.sources, counts.pages, counts.stale, counts.wanted),
        (2, 1, 1, 1)
    );
    let by_source = store.pages_by_source().expect("by source");
    assert_eq!(by_source[&a], ["Espresso"]);
    assert_eq!(by_source[&b], ["Espresso"]);
}

/// Regression (hardening, round three): source ids were reused after `rm`, so an old
/// version's claims could name an unrelated new source. Ids are never reused.
#[test]
fn a_removed_source_id_is_never_given_to_a_new_source() {
    let (_dir, store) = file_store();
    add(&store, "/n/a.md", "First note.");
    let last = add(&store, "/n/b.md", "Second note.");
    assert!(store.remove_source(last).expect("remove"));
    let next = add(&store, "/n/c.md", "Third note.");
    assert!(next.0 > last.0, "{next:?} reuses or precedes {last:?}");
}

/// The Sources screen reads the pages of a whole window of sources in one read: each
/// source's pages sorted by title, in the order the sources were asked for (a source asked
/// twice gets its pages twice), none for a source that feeds no page, and the pages a
/// source shares with another counted with both.
#[test]
fn the_pages_of_several_sources_come_in_one_read_each_sorted_by_title() {
    let store = Store::open_in_memory().expect("open");
    let a = add(&store, "/n/a.md", "Espresso has crema; tamping matters.");
    let b = add(&store, "/n/b.md", "Crema sits on espresso.");
    let c = add(&store, "/n/c.md", "Burr grinders crush beans.");
    let t = add(&store, "/n/t.md", "Tamping presses the coffee.");
    let idle = add(&store, "/n/idle.md", "never compiled");
    let mut espresso = result("Espresso", "e");
    espresso.concepts = vec!["Tamping".to_owned(), "Crema".to_owned()];
    compile(&store, a, &espresso, &[], &[]);
    let mut crema = result("Crema", "c");
    crema.concepts = vec!["Espresso".to_owned()];
    compile(&store, b, &crema, &[], &[]);
    compile(&store, c, &result("Burr Grinders", "g"), &[], &[]);
    compile(&store, t, &result("Tamping", "t"), &[], &[]);

    let asked = [c, a, idle, b, a];
    let fed = store.pages_of_sources(&asked).expect("pages of sources");
    let shown: Vec<Vec<(&str, u32)>> = fed
        .iter()
        .map(|pages| {
            pages
                .iter()
                .map(|p| (p.title.as_str(), p.source_count))
                .collect()
        })
        .collect();
    let all_of_a = vec![("Crema", 2), ("Espresso", 2), ("Tamping", 2)];
    assert_eq!(
        shown,
        [
            vec![("Burr Grinders", 1)],
            all_of_a.clone(),
            vec![],
            vec![("Crema", 2), ("Espresso", 2)],
            all_of_a,
        ]
    );
    for (source, pages) in asked.iter().zip(&fed) {
        assert_eq!(&store.source_pages(*source).expect("source pages"), pages);
    }
    assert!(store.pages_of_sources(&[]).expect("no sources").is_empty());
}
