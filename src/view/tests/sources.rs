//! The Sources screen: pending sources, the ingest limit, grounded quotes, redirects, windows.

use super::*;

#[test]
fn ingested_text_shows_as_a_pending_source_with_its_text() {
    let wiki = Wiki::open_in_memory().unwrap();
    let mut view = IngestView::default();
    view.absorb(
        "pasted text",
        wiki.ingest_text("# Tea\n\nTea is brewed.", None),
    );
    assert_eq!(view.added.len(), 1);
    let sources = all_sources(&wiki);
    assert_eq!(sources[0].status, SourceStatus::Pending);
    let text = wiki.source_text(sources[0].id).unwrap().unwrap();
    assert!(text.text.contains("Tea is brewed."));
    view.absorb("", wiki.ingest_text("   ", None));
    assert_eq!(view.errors.len(), 1, "{view:?}");
}

#[test]
fn the_apps_ingest_keeps_the_configured_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
        _ => None,
    };
    let mut settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    settings.compile.max_source_bytes = 64;
    let wiki = Wiki::open_in_memory()
        .unwrap()
        .with_ingest_options(crate::ingest::IngestOptions::from_settings(&settings));
    let big = format!("# Big\n\n{}", "word ".repeat(40));
    let file = dir.path().join("big.md");
    std::fs::write(&file, &big).unwrap();

    let pasted = wiki.ingest_text_view(&big, None);
    let picked = wiki.ingest_paths_view(&[file.display().to_string()]);
    for view in [pasted, picked] {
        assert!(view.added.is_empty(), "{view:?}");
        assert_eq!(view.errors.len(), 1, "{view:?}");
        assert!(view.errors[0].contains("64"), "names the limit: {view:?}");
    }
    assert!(all_sources(&wiki).is_empty(), "nothing stored");
    let small = wiki.ingest_text_view("# Small\n\nFits.", None);
    assert_eq!(small.added.len(), 1, "{small:?}");
}

#[test]
fn a_grounded_quote_is_shown_marked_in_its_source() {
    use crate::contract::CompilationResult;
    use crate::store::{fixtures, SaveArticle};
    let wiki = Wiki::open_in_memory().unwrap();
    let filler = "Lorem ipsum dolor sit amet. ".repeat(40);
    let text =
        format!("# Espresso\n\n{filler}Espresso is brewed at *nine   bars* of pressure.\n{filler}");
    let added = wiki.ingest_text(&text, None).unwrap();
    let result = CompilationResult {
        title: "Espresso".into(),
        summary: "Pressure.".into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: "Espresso.".into(),
    };
    let saved = wiki
        .store()
        .save_article(&SaveArticle {
            ..fixtures::digest(added.sources[0].source_id, &result)
        })
        .unwrap();
    let id = wiki.store().digest_page(saved.article_id).unwrap().unwrap();

    // Found the way grounding finds it: case, emphasis and spacing aside.
    let view = wiki.quote_view(id, "brewed at nine bars").unwrap().unwrap();
    assert!(view.found);
    assert_eq!(view.quote, "brewed at *nine   bars");
    assert!(view.before.ends_with("Espresso is "), "{}", view.before);
    assert_eq!(view.before.chars().count(), QUOTE_CONTEXT_CHARS);
    assert!(view.more_before && view.more_after);
    assert!(view.after.starts_with("* of pressure."), "{}", view.after);

    // Not there: the start of the source, said plainly.
    let view = wiki.quote_view(id, "brewed at ten bars").unwrap().unwrap();
    assert!(!view.found);
    assert!(view.quote.is_empty() && view.before.is_empty());
    assert!(view.after.starts_with("# Espresso"));
    assert!(wiki
        .quote_view(crate::store::PageId(id.0 + 100), "brewed")
        .unwrap()
        .is_none());
}

/// Regression: the app's source list and article page showed only a page's origin, not
/// where redirects led; they carry the final URL (absent for a page that did not move).
#[test]
fn a_redirected_page_carries_its_final_url_to_the_sources_and_page_views() {
    use crate::contract::CompilationResult;
    use crate::store::{fixtures, NewSource, SaveArticle, SourceKind};
    let wiki = Wiki::open_in_memory().unwrap();
    let page = |origin: &str, title: &str| NewSource {
        origin: origin.into(),
        kind: SourceKind::Url,
        title: Some(title.into()),
        text: format!("{title} text."),
        tags: Vec::new(),
        aliases: Vec::new(),
        root: None,
    };
    let moved = wiki
        .store()
        .ingest_source_from(
            &page("https://example.org/old", "Moved"),
            Some("https://example.com/new"),
        )
        .unwrap()
        .source_id();
    wiki.store()
        .ingest_source_from(&page("https://example.org/stays", "Stays"), None)
        .unwrap();
    // A row that kept credentials (written by hand, or by a build that did) shows none, and
    // a final URL that is the origin once they are cut out is no redirect.
    wiki.store()
        .ingest_source_from(
            &page("https://example.org/same", "Same"),
            Some("https://alice:pw@example.org/same"),
        )
        .unwrap();
    wiki.store()
        .ingest_source_from(
            &page("https://example.org/secret", "Secret"),
            Some("https://alice:pw@example.com/elsewhere"),
        )
        .unwrap();
    let result = CompilationResult {
        title: "Moved".into(),
        summary: "s".into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: "b".into(),
    };
    let saved = wiki
        .store()
        .save_article(&SaveArticle {
            ..fixtures::digest(moved, &result)
        })
        .unwrap();

    let mut sources = all_sources(&wiki);
    sources.sort_by_key(|s| s.id);
    let shown: Vec<Option<&str>> = sources.iter().map(|s| s.final_url.as_deref()).collect();
    assert_eq!(
        shown[2..],
        [None, Some("https://example.com/elsewhere")],
        "{sources:?}"
    );
    assert_eq!(sources[0].origin, "https://example.org/old");
    assert_eq!(
        sources[0].final_url.as_deref(),
        Some("https://example.com/new")
    );
    assert_eq!(sources[1].final_url, None);
    let page = wiki.store().digest_page(saved.article_id).unwrap().unwrap();
    let article = wiki.page_view(page).unwrap().unwrap();
    assert_eq!(article.sources[0].origin, "https://example.org/old");
    assert_eq!(
        article.sources[0].final_url.as_deref(),
        Some("https://example.com/new")
    );
    // On the wire it is `final_url`, `null` when there is none.
    let wire = serde_json::to_value(&sources).unwrap();
    assert_eq!(wire[0]["final_url"], "https://example.com/new");
    assert!(wire[1]["final_url"].is_null());
}

/// The Sources screen reads its list by window: the rows from an offset, oldest or newest
/// first, narrowed to a status, with the counts of every status whatever the window.
#[test]
fn the_sources_list_comes_by_window_with_counts_by_status() {
    let wiki = Wiki::open_in_memory().unwrap();
    let ids: Vec<crate::store::SourceId> = (1..=7)
        .map(|n| {
            let view = wiki.ingest_text_view(&format!("# Note {n}\n\nBody {n}."), None);
            view.added[0].source_id
        })
        .collect();
    let store = wiki.store();
    for &id in &ids[4..6] {
        store
            .set_status(id, SourceStatus::Failed, Some("the model answered no JSON"))
            .unwrap();
    }
    store
        .set_status(ids[6], SourceStatus::Compiled, None)
        .unwrap();

    let window = wiki.sources_window(None, false, 2, 3).unwrap();
    let shown: Vec<_> = window.rows.iter().map(|s| s.id).collect();
    assert_eq!(shown, ids[2..5], "rows 2 to 4, oldest first");
    assert_eq!((window.total, window.offset), (7, 2));
    let counts = window.counts;
    assert_eq!(
        (counts.all, counts.pending, counts.failed, counts.compiled),
        (7, 4, 2, 1)
    );

    let newest = wiki.sources_window(None, true, 0, 2).unwrap();
    let shown: Vec<_> = newest.rows.iter().map(|s| s.id).collect();
    assert_eq!(shown, [ids[6], ids[5]], "the newest first");

    let failed = wiki
        .sources_window(Some(SourceStatus::Failed), false, 0, 50)
        .unwrap();
    assert_eq!(failed.total, 2, "the filter's own count");
    assert_eq!(
        failed.counts, counts,
        "the counts do not depend on the filter"
    );
    assert!(failed.rows.iter().all(|s| s.status == SourceStatus::Failed
        && s.reason.as_deref() == Some("the model answered no JSON")));
    assert_eq!(failed.rows.len(), 2);

    let past_the_end = wiki.sources_window(None, false, 7, 50).unwrap();
    assert!(past_the_end.rows.is_empty());
    assert_eq!(past_the_end.total, 7);
    let capped = wiki
        .sources_window(None, false, 0, SOURCES_WINDOW_MAX + 100)
        .unwrap();
    assert_eq!(capped.rows.len(), 7);
}
