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

fn older_note(store: &Store, origin: &str, title: Option<&str>, text: &str) -> SourceId {
    store
        .ingest_source(&NewSource {
            origin: origin.to_owned(),
            kind: SourceKind::File,
            title: title.map(str::to_owned),
            text: text.to_owned(),
            tags: Vec::new(),
            aliases: Vec::new(),
            root: Some("/v".to_owned()),
        })
        .unwrap()
        .source_id()
}

/// A wiki as builds before today's title rules wrote it: a plain text file titled by
/// nothing (its digest by the model's title, merged into another note's page), a folder's
/// `index.md` titled by its H1 (a page a person edited), and a Notion export's page titled
/// with its 32-hex id. The `note-titles` backfills give each its own title without a model
/// call: a page keeps its id, history and edits under the new title and the old title
/// still opens it; the text file gets a page of its own, marked stale; nothing is lost.
#[test]
fn pages_of_text_index_and_notion_notes_take_todays_titles_keeping_ids_history_and_edits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("wikimind.db");
    let store = Store::open(&db).unwrap();
    let ratio = older_note(
        &store,
        "/v/brew-ratio.md",
        Some("Brew Ratio"),
        "# Brew Ratio\n\nOne gram of coffee to sixteen of water.\n",
    );
    let cold = older_note(
        &store,
        "/v/cold-brew.txt",
        None,
        "Cold Brew\n\nSteep coarse grounds in cold water for twelve hours.\n",
    );
    let install = older_note(
        &store,
        "/v/docs/install/index.md",
        Some("Installation"),
        "# Installation\n\nRun the installer, then open the app.\n",
    );
    let notion = older_note(
        &store,
        "/v/Notion/Meeting notes 0123456789abcdef0123456789abcdef.md",
        Some("Meeting notes 0123456789abcdef0123456789abcdef"),
        "We agreed to ship on Friday.\n",
    );
    save(&store, ratio, &result("Brew Ratio", "A ratio."), &[]);
    // The model's title, as older builds let it name a text file's digest.
    save(&store, cold, &result("Brew Ratio", "Cold brewing."), &[]);
    save(&store, install, &result("Installation", "Install it."), &[]);
    save(
        &store,
        notion,
        &result("Meeting notes 0123456789abcdef0123456789abcdef", "Friday."),
        &[],
    );
    let page_of = |title: &str| store.find_page(title).unwrap().expect(title);
    let (ratio_page, install_page, notion_page) = (
        page_of("Brew Ratio"),
        page_of("Installation"),
        page_of("Meeting notes 0123456789abcdef0123456789abcdef"),
    );
    assert_eq!(store.pages().unwrap().len(), 3, "the text file merged away");
    let version = store.page(install_page).unwrap().unwrap().version;
    store
        .edit_page(
            install_page,
            version,
            "Install it.\n\n## My notes\n\nKept by hand.\n",
        )
        .unwrap();
    let history_before = store.page_history(install_page).unwrap();
    let (sources, digests, claims) = (
        count(&db, "SELECT COUNT(*) FROM sources"),
        count(&db, "SELECT COUNT(*) FROM articles"),
        count(&db, "SELECT COUNT(*) FROM claims"),
    );

    let reports = wikimind::backfill::run_backfills(&store).unwrap();
    let report = reports
        .iter()
        .find(|r| r.name == "note-titles")
        .unwrap_or_else(|| panic!("the note-titles backfill ran: {reports:?}"));
    let notice = report.notice().unwrap();
    assert!(
        notice.contains("3 titles") && notice.contains("2 pages kept their id"),
        "{notice}"
    );
    assert!(notice.contains("1 note got pages of their own"), "{notice}");
    assert!(
        notice.starts_with("note-titles: 3 titles of plain text"),
        "{notice}"
    );

    // The index note's page: same id, the folder's name, the edit and history kept, the
    // old title still opens it.
    let page = store.page(install_page).unwrap().unwrap();
    assert_eq!(page.title, "install");
    assert!(page.body.contains("Kept by hand."), "{}", page.body);
    assert!(
        page.aliases.contains(&"Installation".to_owned()),
        "{:?}",
        page.aliases
    );
    let history = store.page_history(install_page).unwrap();
    assert_eq!(history[..history_before.len()], history_before[..]);
    assert_eq!(history.last().unwrap().change, Some(PersonChange::Split));
    assert_eq!(store.find_page("Installation").unwrap(), Some(install_page));
    // The Notion page: same id, no id in its title.
    assert_eq!(
        store.page(notion_page).unwrap().unwrap().title,
        "Meeting notes"
    );
    assert_eq!(
        store
            .find_page("Meeting notes 0123456789abcdef0123456789abcdef")
            .unwrap(),
        Some(notion_page)
    );
    // The text file: its own title, a page of its own waiting for the next compile; the
    // page it was merged into keeps its id and title with the note that is its.
    assert_eq!(
        store.source(cold).unwrap().unwrap().title.as_deref(),
        Some("Cold Brew")
    );
    let cold_page = page_of("Cold Brew");
    assert_ne!(cold_page, ratio_page);
    assert!(store
        .page(cold_page)
        .unwrap()
        .unwrap()
        .stale_reason
        .is_some());
    assert_eq!(store.source_pages(cold).unwrap()[0].title, "Cold Brew");
    assert_eq!(page_of("Brew Ratio"), ratio_page);
    assert_eq!(store.source_pages(ratio).unwrap()[0].title, "Brew Ratio");
    // Nothing is lost.
    assert_eq!(count(&db, "SELECT COUNT(*) FROM sources"), sources);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM articles"), digests);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM claims"), claims);
    assert_eq!(store.pages().unwrap().len(), 4);

    // Done once.
    let again = wikimind::backfill::run_backfills(&store).unwrap();
    assert!(again.iter().all(|r| r.name != "note-titles"), "{again:?}");
}
