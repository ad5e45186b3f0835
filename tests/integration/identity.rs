//! A wiki written by the build before identity by path: three notes that share only a file
//! name (`Index.md` in three folders) were one page, which a person edited. The
//! `note-identity` backfill splits it without a model call: the page keeps its id, history
//! and the person's edit with the note whose told-apart title is shortest (ties: byte
//! order), its old title staying a name of it; each other note gets a page of its own,
//! marked stale; the history says so; no source, digest or claim is lost.

use wikimind::store::{NewSource, PageId, PersonChange, SourceId, SourceKind, Store};

use crate::seed::{result, save};

fn count(db: &std::path::Path, sql: &str) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn note(store: &Store, origin: &str, text: &str) -> SourceId {
    store
        .ingest_source(&NewSource {
            origin: origin.to_owned(),
            kind: SourceKind::File,
            title: Some("Index".to_owned()),
            text: text.to_owned(),
            tags: Vec::new(),
            aliases: Vec::new(),
            root: Some("/v".to_owned()),
        })
        .unwrap()
        .source_id()
}

#[test]
fn a_page_of_notes_merged_by_a_file_name_is_split_keeping_its_id_history_and_edits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("wikimind.db");
    let store = Store::open(&db).unwrap();
    // As the build before wrote it: each note's digest titled by its file name, all three
    // feeding one `Index` page.
    let b = note(&store, "/v/b/Index.md", "The index of b lists tea.");
    let deep = note(&store, "/v/c/deep/Index.md", "The deep index lists water.");
    let a = note(&store, "/v/a/Index.md", "The index of a lists coffee.");
    for id in [b, deep, a] {
        save(&store, id, &result("Index", "An index."), &[]);
    }
    let pages = store.pages().unwrap();
    assert_eq!(pages.len(), 1, "one page for three notes: {pages:?}");
    let page: PageId = pages[0].id;
    let version = store.page(page).unwrap().unwrap().version;
    store
        .edit_page(page, version, "An index.\n\n## My notes\n\nKept by hand.\n")
        .unwrap();
    let history_before = store.page_history(page).unwrap();
    let (sources, digests, claims) = (
        count(&db, "SELECT COUNT(*) FROM sources"),
        count(&db, "SELECT COUNT(*) FROM articles"),
        count(&db, "SELECT COUNT(*) FROM claims"),
    );

    let reports = wikimind::backfill::run_backfills(&store).unwrap();
    let report = reports
        .iter()
        .find(|r| r.name == "note-identity")
        .expect("the note-identity backfill ran");
    let notice = report.notice().unwrap();
    assert!(
        notice.contains("2 notes got pages of their own"),
        "{notice}"
    );

    // The page stays with `a/Index` (shortest, then byte order before `b/Index`).
    let kept = store.page(page).unwrap().unwrap();
    assert_eq!(kept.title, "a/Index");
    assert!(
        kept.aliases.contains(&"Index".to_owned()),
        "{:?}",
        kept.aliases
    );
    assert!(kept.body.contains("Kept by hand."), "{}", kept.body);
    assert!(kept.stale_reason.is_some());
    let history = store.page_history(page).unwrap();
    assert_eq!(
        history[..history_before.len()],
        history_before[..],
        "history is kept"
    );
    assert_eq!(history.last().unwrap().change, Some(PersonChange::Split));
    let reason = kept.stale_reason.unwrap();
    assert!(
        reason.contains("b/Index") && reason.contains("deep/Index"),
        "{reason}"
    );
    // Each other note has a page of its own, stale for the next compile.
    for (title, source) in [("b/Index", b), ("deep/Index", deep)] {
        let id = store.find_page(title).unwrap().expect(title);
        assert_ne!(id, page);
        let own = store.page(id).unwrap().unwrap();
        assert_eq!(own.title, title);
        assert!(own.stale_reason.is_some(), "{title} waits for a compile");
        assert_eq!(store.source_pages(source).unwrap()[0].title, title);
    }
    assert_eq!(store.source_pages(a).unwrap()[0].title, "a/Index");
    // Nothing is lost, and the old name still opens the page that had it.
    assert_eq!(count(&db, "SELECT COUNT(*) FROM sources"), sources);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM articles"), digests);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM claims"), claims);
    assert_eq!(store.find_page("Index").unwrap(), Some(page));
    assert_eq!(store.pages().unwrap().len(), 3);

    // Done once: a second run finds nothing.
    let again = wikimind::backfill::run_backfills(&store).unwrap();
    assert!(again.iter().all(|r| r.name != "note-identity"), "{again:?}");
}

/// A note moved (as `watch` moves a renamed file's source) is told apart again: its page
/// keeps its id under the title its new folder gives it, the old title staying a name of
/// it; and a note left alone with its name goes by its plain title again.
#[test]
fn a_moved_note_is_told_apart_again_and_a_note_left_alone_gets_its_plain_title() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("wikimind.db")).unwrap();
    let a = note(&store, "/v/a/Index.md", "The index of a lists coffee.");
    let b = note(&store, "/v/b/Index.md", "The index of b lists tea.");
    save(&store, a, &result("a/Index", "An index."), &[]);
    save(&store, b, &result("b/Index", "An index."), &[]);
    let page_b = store.find_page("b/Index").unwrap().unwrap();
    assert_eq!(wikimind::identity::settle_titles(&store).unwrap().notes, 0);

    store.move_source(b, "/v/c/d/Index.md").unwrap();
    let done = wikimind::identity::settle_titles(&store).unwrap();
    assert_eq!((done.notes, done.pages_renamed), (1, 1));
    let moved = store.page(page_b).unwrap().unwrap();
    assert_eq!(moved.title, "d/Index");
    assert!(moved.aliases.contains(&"b/Index".to_owned()));

    // The other note leaves: `a/Index.md` is the only `Index` now.
    store.remove_source(b).unwrap();
    wikimind::identity::settle_titles(&store).unwrap();
    let page_a = store.find_page("Index").unwrap().unwrap();
    assert_eq!(store.page(page_a).unwrap().unwrap().title, "Index");
    assert_eq!(store.source_pages(a).unwrap()[0].id, page_a);
}

/// The library shows the folder of each note told apart by its folder, as data of the
/// core, and no folder for a page whose note goes by its own title.
#[test]
fn the_library_shows_the_folder_of_a_note_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open_data_dir(dir.path()).unwrap();
        let deep = note(&store, "/v/src/a/Index.md", "The index of a lists coffee.");
        let b = note(&store, "/v/b/Index.md", "The index of b lists tea.");
        let tea = store
            .ingest_source(&NewSource {
                origin: "/v/b/Tea.md".to_owned(),
                kind: SourceKind::File,
                title: Some("Tea".to_owned()),
                text: "Tea is steamed.".to_owned(),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: Some("/v".to_owned()),
            })
            .unwrap()
            .source_id();
        save(&store, deep, &result("a/Index", "An index."), &[]);
        save(&store, b, &result("b/Index", "An index."), &[]);
        save(&store, tea, &result("Tea", "A drink."), &[]);
    }
    let wiki = wikimind::wiki::Wiki::open(dir.path()).unwrap();
    let library = wiki
        .library(wikimind::view::LibrarySort::Title, None)
        .unwrap();
    let shown: Vec<(&str, Option<&str>)> = library
        .entries
        .iter()
        .map(|e| (e.title.as_str(), e.folder.as_deref()))
        .collect();
    assert_eq!(
        shown,
        [
            ("a/Index", Some("src/a")),
            ("b/Index", Some("b")),
            ("Tea", None)
        ]
    );
}
