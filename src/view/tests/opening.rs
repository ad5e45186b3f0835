//! Opening the window: the first-run screen, an older wiki upgraded, backfills beside it.

use super::*;

#[tokio::test]
async fn the_first_run_screen_is_only_for_an_empty_wiki() {
    let dir = tempfile::tempdir().unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
        // Nothing listens on the discard port: the model server does not answer.
        "WIKIMIND_BASE_URL" => Some("http://127.0.0.1:9".to_owned()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    let wiki = Wiki::open_in_memory().unwrap();
    let empty = opening(&wiki, &settings, &[], false).await.unwrap();
    assert!(empty.first_run && !empty.check.ok, "{empty:?}");

    wiki.ingest_text("# Tea\n\nTea is brewed.", None).unwrap();
    let with_pages = opening(&wiki, &settings, &[], false).await.unwrap();
    assert!(
        !with_pages.first_run,
        "a wiki with sources opens on its library"
    );
    assert!(!with_pages.check.ok);
    assert!(
        with_pages.check.message.contains("127.0.0.1:9"),
        "the banner says where: {}",
        with_pages.check.message
    );
}

/// A copy of the version-1 wiki of `tests/data/upgrade` in a temporary data dir, and
/// settings that open it (with a server that does not answer).
fn version_one_wiki() -> (tempfile::TempDir, Settings) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/upgrade/v1-wiki.db"),
        dir.path().join("wikimind.db"),
    )
    .unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
        "WIKIMIND_BASE_URL" => Some("http://127.0.0.1:9".to_owned()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    (dir, settings)
}

/// The window is told what opening did, as the CLI prints it: an older build's database
/// upgraded (and where its copy is) reaches the opening view's banner lines.
#[tokio::test]
async fn opening_an_older_wiki_tells_the_window_what_the_upgrade_did() {
    let (_dir, settings) = version_one_wiki();
    let mut notices = Vec::new();
    let wiki = Wiki::open_for_shell(&settings, &mut |n| notices.push(n)).unwrap();
    // What it is about to do (the CLI would wait seconds on a large wiki), then what it did.
    assert!(
        notices[0].starts_with("upgrading the wiki's database from schema 1"),
        "{notices:?}"
    );
    assert!(
        notices[1].starts_with("upgraded the wiki's database from schema 1"),
        "{notices:?}"
    );
    let view = opening(&wiki, &settings, &notices, false).await.unwrap();
    assert_eq!(view.notices, notices);
    assert!(
        !view.first_run,
        "an upgraded wiki with pages opens on its library"
    );

    // Opened again, there is nothing new to say.
    drop(wiki);
    let mut again = Vec::new();
    Wiki::open_for_shell(&settings, &mut |n| again.push(n)).unwrap();
    assert!(again.is_empty(), "{again:?}");
}

/// The window opens an upgraded wiki without running its backfills (a large wiki would
/// wait for them): it says it is upgrading while they run beside it, then has none left.
#[tokio::test]
async fn the_window_opens_an_upgraded_wiki_before_its_backfills_run() {
    let (_dir, settings) = version_one_wiki();
    let mut notices = Vec::new();
    let wiki = Wiki::open_for_window(&settings, &mut |n| notices.push(n)).unwrap();
    assert_eq!(notices.len(), 1, "the upgrade only: {notices:?}");
    assert!(wiki.backfills_pending().unwrap(), "they have not run");
    let view = opening(&wiki, &settings, &notices, true).await.unwrap();
    assert!(view.upgrading);
    assert!(
        !wiki
            .library(LibrarySort::Title, None)
            .unwrap()
            .entries
            .is_empty(),
        "its library reads before they run"
    );

    wiki.bring_up_to_date(&mut |n| notices.push(n)).unwrap();
    assert!(!wiki.backfills_pending().unwrap());
    let mut again = Vec::new();
    wiki.bring_up_to_date(&mut |n| again.push(n)).unwrap();
    assert!(again.is_empty(), "nothing left to do: {again:?}");
}

/// Before opening upgrades an older wiki's database, the window can say what it is about to
/// do (the versions, where the old one is kept), and opening's own notice agrees; a wiki of
/// this build has nothing ahead.
#[tokio::test]
async fn the_window_says_what_the_upgrade_is_doing_before_it_is_done() {
    let (dir, settings) = version_one_wiki();
    let line = Wiki::upgrade_ahead(&settings).expect("an upgrade ahead");
    let newest = crate::store::MIGRATIONS.last().unwrap().version;
    let kept = dir.path().join("wikimind.db.bak-v01");
    assert_eq!(
        line,
        format!(
            "upgrading the wiki's database from schema 1 to {newest}, after keeping the old one at {}",
            kept.display()
        )
    );
    let view = opening_before_the_wiki(&settings, &[], Some(&line)).await;
    assert!(view.upgrading && !view.first_run, "{view:?}");
    assert_eq!(view.database_upgrade.as_deref(), Some(line.as_str()));

    let mut notices = Vec::new();
    let wiki = Wiki::open_for_window(&settings, &mut |n| notices.push(n)).unwrap();
    assert_eq!(
        notices,
        vec![format!(
            "upgraded the wiki's database from schema 1 to {newest}; the old one is kept at {}",
            kept.display()
        )]
    );
    assert_eq!(
        Wiki::upgrade_ahead(&settings),
        None,
        "nothing ahead once open"
    );
    let after = opening(&wiki, &settings, &notices, false).await.unwrap();
    assert_eq!(after.database_upgrade, None);
}
