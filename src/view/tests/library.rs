//! The Library screen: its topics by window, wanted pages, tags, links and search snippets.

use super::*;

#[test]
fn an_empty_wiki_has_an_empty_library() {
    let wiki = Wiki::open_in_memory().unwrap();
    let lib = wiki.library(LibrarySort::Updated, None).unwrap();
    assert_eq!(lib.counts, CountsView::default());
    assert!(lib.entries.is_empty());
    assert!(wiki.search_view("anything").unwrap().is_empty());
    assert_eq!(wiki.page_view(crate::store::PageId(1)).unwrap(), None);
    assert_eq!(lib.health, None, "no health figures stored yet");
    let asked = wiki.ask_for_page_view("Nothing").unwrap();
    assert_eq!(
        (asked.outcome.as_str(), asked.page, asked.job),
        ("unnamed", None, None)
    );
}

#[test]
fn page_links_resolve_to_pages_and_unknown_titles_are_wanted() {
    use crate::contract::CompilationResult;
    use crate::store::{fixtures, NewLink, SaveArticle};
    let wiki = Wiki::open_in_memory().unwrap();
    let mut ids = Vec::new();
    for (title, body, target) in [
        ("Tea", "Tea goes with [[scones]] and [[Jam]].", "Scones"),
        ("Scones", "Scones go with [[Tea]].", "Tea"),
    ] {
        let added = wiki
            .ingest_text(&format!("# {title}\n\n{body}"), None)
            .unwrap();
        let result = CompilationResult {
            title: title.into(),
            summary: body.into(),
            key_claims: Vec::new(),
            concepts: Vec::new(),
            backlink_suggestions: Vec::new(),
            open_questions: Vec::new(),
            article_body: body.into(),
        };
        let mut links = vec![NewLink {
            target: target.into(),
            context: body.into(),
        }];
        if title == "Tea" {
            links.push(NewLink {
                target: "Jam".into(),
                context: body.into(),
            });
        }
        let saved = wiki
            .store()
            .save_article(&SaveArticle {
                links: &links,
                ..fixtures::digest(added.sources[0].source_id, &result)
            })
            .unwrap();
        ids.push(saved.article_id);
    }
    let page =
        |article: crate::store::ArticleId| wiki.store().digest_page(article).unwrap().unwrap();
    let (tea_page, scones_page) = (page(ids[0]), page(ids[1]));
    let tea = wiki.page_view(tea_page).unwrap().unwrap();
    assert!(
        tea.html
            .contains(&format!("data-article-id=\"{scones_page}\"")),
        "`[[scones]]` leads to the page Scones: {}",
        tea.html
    );
    assert!(tea.html.contains("data-wanted=\"Jam\""), "{}", tea.html);
    assert_eq!(tea.backlinks.len(), 1, "{:?}", tea.backlinks);
    assert_eq!(tea.backlinks[0].title, "Scones");
    assert_eq!(tea.backlinks[0].page_id, scones_page);
    // The digest of Tea's source renders its links against pages too.
    let source = wiki
        .sources_window(None, false, 0, SOURCES_WINDOW_MAX)
        .unwrap()
        .rows
        .into_iter()
        .find(|s| s.article_id == Some(ids[0]))
        .unwrap()
        .id;
    let digest = wiki.source_detail_view(source).unwrap().unwrap();
    // Tea's note feeds its own page and, as it links to Scones, the Scones page too.
    let fed: Vec<crate::store::PageId> = digest.source.pages.iter().map(|p| p.id).collect();
    assert_eq!(fed, [scones_page, tea_page]);
    assert_eq!(digest.digest.unwrap().html, tea.html);
    let lib = wiki.library(LibrarySort::Title, None).unwrap();
    assert_eq!(lib.counts.pages, 2);
    assert_eq!(lib.wanted[0].title, "Jam");
    // Asking for the wanted page makes it from the one source that mentions it (below
    // pages.min_sources: a person asked) and queues its write; no source is filed.
    let sources_before = all_sources(&wiki).len();
    let asked = wiki.ask_for_page_view("jam").unwrap();
    assert_eq!((asked.outcome.as_str(), asked.sources), ("asked", 1));
    assert!(asked.job.is_some());
    let jam = wiki.find_page("Jam").unwrap().expect("Jam has a page");
    assert_eq!(asked.page, Some(jam));
    let jobs = wiki.store().recent_jobs(10).unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].target, crate::store::JobTarget::Page(jam));
    assert_eq!(all_sources(&wiki).len(), sources_before);
    assert!(wiki
        .library(LibrarySort::Title, None)
        .unwrap()
        .wanted
        .is_empty());
    assert_eq!(wiki.ask_for_page_view("Jam").unwrap().outcome, "exists");
}

/// Two notes headed `Espresso` and `espressos` are one topic: one library row with two
/// sources, a stale page listing both digests, each claim badged with the source holding
/// its quote, and the quote found in that source.
#[test]
fn two_spellings_of_one_topic_are_one_page_with_both_sources() {
    let wiki = Wiki::open_in_memory().unwrap();
    let (first, _) = digest(
        &wiki,
        "# Espresso\n\nEspresso is brewed at nine bars of pressure.",
        "Espresso",
        "Espresso goes under [[Milk Foam]].",
        &["brewed at nine bars"],
        &["Milk Foam"],
    );
    let (second, _) = digest(
        &wiki,
        "# espressos\n\nA shot of espresso takes about thirty seconds.",
        "espressos",
        "Shots.",
        &[],
        &[],
    );
    let (foam, foam_digest) = digest(
        &wiki,
        "# Milk Foam\n\nMilk foam sits on [[espressos]].",
        "Milk Foam",
        "Foam sits on [[espressos]].",
        &[],
        &["espressos"],
    );

    let lib = wiki.library(LibrarySort::Title, None).unwrap();
    let titles: Vec<(&str, u32, bool)> = lib
        .entries
        .iter()
        .map(|e| (e.title.as_str(), e.source_count, e.stale))
        .collect();
    // The Milk Foam note links to `espressos` and the first note to Milk Foam: each feeds
    // the other topic's page too.
    assert_eq!(titles, [("Espresso", 3, true), ("Milk Foam", 2, true)]);
    assert_eq!((lib.counts.pages, lib.counts.sources), (2, 3));

    let espresso = lib.entries[0].id;
    let page = wiki.page_view(espresso).unwrap().unwrap();
    assert!(page.stale_reason.is_some());
    let fed_by: Vec<crate::store::SourceId> = page.sources.iter().map(|s| s.source_id).collect();
    assert_eq!(fed_by, [first, second, foam]);
    assert_eq!(page.sources[1].title, "espressos");
    assert_eq!(page.aliases, ["espressos"]);
    assert_eq!(page.history.len(), 1);
    assert_eq!(page.history[0].author_kind, AuthorKind::Model);
    assert_eq!(page.claims.len(), 1, "{page:?}");
    assert_eq!(page.claims[0].source_ids, [first]);
    assert!(!page.claims[0].quote_not_found, "its quote was found");
    let text = wiki.page_text_view(espresso, 1).unwrap().unwrap();
    assert_eq!(text.body, "Espresso goes under [[Milk Foam]].");

    // The quote is shown in the source that holds it.
    let quote = wiki
        .quote_view(espresso, "brewed at nine bars")
        .unwrap()
        .unwrap();
    assert!(quote.found);
    assert_eq!(quote.source_id, first);

    // Opened from a citation, the core marks the quote where the page holds it: in the
    // body (as read: the link as its text), else the claim whose quote holds it.
    assert!(!page.quote_marked && !page.claims[0].cited);
    let cited = wiki
        .page_view_citing(espresso, Some("goes UNDER [[Milk Foam]]"))
        .unwrap()
        .unwrap();
    assert!(cited.quote_marked, "{}", cited.html);
    assert!(
        cited.html.contains(
            "<mark class=\"cited-quote\" id=\"wm-cited-quote\">goes under </mark><a class=\"wikilink\""
        ) && cited.html.contains("><mark class=\"cited-quote\">Milk Foam</mark></a>"),
        "{}",
        cited.html
    );
    let in_claim = wiki
        .page_view_citing(espresso, Some("Brewed at  nine bars"))
        .unwrap()
        .unwrap();
    assert!(!in_claim.quote_marked, "the body does not hold it");
    assert!(in_claim.claims[0].cited, "{:?}", in_claim.claims);
    let nowhere = wiki
        .page_view_citing(espresso, Some("brewed at ten bars"))
        .unwrap()
        .unwrap();
    assert!(!nowhere.quote_marked && !nowhere.claims[0].cited);
    assert_eq!(nowhere.html, page.html);

    // `[[espressos]]` in another page leads to the Espresso page, as does the name.
    let foam_page = wiki.store().digest_page(foam_digest).unwrap().unwrap();
    let foam_view = wiki.page_view(foam_page).unwrap().unwrap();
    assert!(
        foam_view
            .html
            .contains(&format!("data-article-id=\"{espresso}\"")),
        "{}",
        foam_view.html
    );
    assert_eq!(wiki.page_id_by_name("ESPRESSO").unwrap(), Some(espresso));
    let hits = wiki.search_view("goes under").unwrap();
    assert_eq!(hits[0].page_id, espresso);
    // The matched words reach the window as marked pieces, never as marker characters.
    let matched: Vec<&str> = hits[0]
        .snippet
        .iter()
        .filter(|p| p.matched)
        .map(|p| p.text.as_str())
        .collect();
    assert_eq!(matched, ["goes", "under"], "{:?}", hits[0].snippet);
    assert!(hits[0]
        .snippet
        .iter()
        .all(|p| !p.text.is_empty() && !p.text.contains([crate::MATCH_START, crate::MATCH_END])));
    assert!(
        wiki.search_view("shots").unwrap().is_empty(),
        "pages are searched, not the digests they are not yet written from"
    );

    // The sources list names the pages each source feeds.
    let listed = all_sources(&wiki);
    let feeds = |id: crate::store::SourceId| -> Vec<String> {
        let source = listed.iter().find(|s| s.id == id).unwrap();
        source.pages.iter().map(|p| p.title.clone()).collect()
    };
    assert_eq!(feeds(first), ["Espresso", "Milk Foam"]);
    assert_eq!(feeds(second), ["Espresso"]);
    assert_eq!(feeds(foam), ["Espresso", "Milk Foam"]);
    let espresso_ref = &listed.iter().find(|s| s.id == second).unwrap().pages[0];
    assert_eq!((espresso_ref.source_count, espresso_ref.stale), (3, true));

    // The source screen: its digest and the pages it feeds.
    let detail = wiki.source_detail_view(foam).unwrap().unwrap();
    assert_eq!(detail.source.pages[1].title, "Milk Foam");
    let digest = detail.digest.unwrap();
    assert_eq!(digest.title, "Milk Foam");
    assert!(digest
        .html
        .contains(&format!("data-article-id=\"{espresso}\"")));
    assert!(wiki
        .source_detail_view(crate::store::SourceId(999))
        .unwrap()
        .is_none());
}

#[test]
fn a_search_snippet_is_sent_in_pieces_and_markdown_stays_text() {
    use crate::{MATCH_END, MATCH_START};
    let parts = super::ops::snippet_parts(&format!(
        "**really** pulled at {MATCH_START}nine{MATCH_END} {MATCH_START}bars{MATCH_END}, <b>hot</b>"
    ));
    let parts: Vec<(&str, bool)> = parts.iter().map(|p| (p.text.as_str(), p.matched)).collect();
    assert_eq!(
        parts,
        [
            ("**really** pulled at ", false),
            ("nine", true),
            (" ", false),
            ("bars", true),
            (", <b>hot</b>", false)
        ]
    );
}

/// Saves a digest for a new pasted source carrying `tags`, titled `title` (its page's
/// title), with `summary`.
fn tagged_page(wiki: &Wiki, title: &str, tags: &[&str], summary: &str) {
    use crate::contract::CompilationResult;
    use crate::store::{fixtures, NewSource, SaveArticle, SourceKind};
    let source = wiki
        .store()
        .ingest_source_from(
            &NewSource {
                origin: format!("/notes/{title}.md"),
                kind: SourceKind::File,
                title: Some(title.into()),
                text: format!("# {title}\n\n{summary}"),
                tags: tags.iter().map(|t| (*t).to_owned()).collect(),
                aliases: Vec::new(),
                root: None,
            },
            None,
        )
        .unwrap()
        .source_id();
    let result = CompilationResult {
        title: title.into(),
        summary: summary.into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: summary.into(),
    };
    wiki.store()
        .save_article(&SaveArticle {
            ..fixtures::digest(source, &result)
        })
        .unwrap();
}

/// The library's tag filter is the core's (`wikimind list --tag`): a parent tag takes its
/// nested ones, case and `#` do not count, saved answers stay listed; the tags to choose
/// from come with it, and summaries read as the page shows its links.
#[test]
fn the_library_narrows_its_topics_to_a_tag_and_lists_the_tags_to_choose() {
    let wiki = Wiki::open_in_memory().unwrap();
    tagged_page(
        &wiki,
        "Burr Grinder",
        &["gear", "coffee/tools"],
        "Clean it like [[Steam Wand#Cleaning]], with [[Brush|a brush]].",
    );
    tagged_page(&wiki, "Steam Wand", &["Coffee"], "Heats milk.");
    tagged_page(&wiki, "Teapot", &[], "Holds tea.");
    let (report, _) = espresso_answer(&wiki);
    wiki.save_answer(&report)
        .unwrap()
        .expect("an answer to keep");

    let titles = |lib: &LibraryView| -> Vec<String> {
        lib.entries.iter().map(|e| e.title.clone()).collect()
    };
    let all = wiki.library(LibrarySort::Title, None).unwrap();
    assert_eq!(all.tag, None);
    assert_eq!(all.tags, ["coffee", "coffee/tools", "gear"]);
    assert_eq!(all.entries.len(), 5, "{:?}", titles(&all));
    let grinder = all
        .entries
        .iter()
        .find(|e| e.title == "Burr Grinder")
        .unwrap();
    assert_eq!(
        grinder.summary_text,
        "Clean it like Steam Wand > Cleaning, with a brush."
    );
    let page = wiki.page_view(grinder.id).unwrap().unwrap();
    assert_eq!(page.summary, grinder.summary_text);

    let coffee = wiki.library(LibrarySort::Title, Some(" #COFFEE ")).unwrap();
    assert_eq!(coffee.tag.as_deref(), Some("COFFEE"));
    assert_eq!(
        titles(&coffee),
        ["Burr Grinder", "How is espresso brewed?", "Steam Wand"],
        "a parent takes its nested tags; the saved answer stays"
    );
    assert_eq!(coffee.tags, all.tags);
    assert_eq!(coffee.counts, all.counts, "the counts are the wiki's");
    let gear = wiki.library(LibrarySort::Title, Some("gear")).unwrap();
    assert_eq!(titles(&gear), ["Burr Grinder", "How is espresso brewed?"]);
    let none = wiki.library(LibrarySort::Title, Some("coff")).unwrap();
    assert_eq!(titles(&none), ["How is espresso brewed?"]);
    assert_eq!(wiki.library(LibrarySort::Title, Some(" # ")).unwrap(), all);
}

#[test]
fn the_library_sends_its_first_rows_and_the_rest_by_window_in_the_same_order() {
    let wiki = Wiki::open_in_memory().unwrap();
    wiki.store()
        .seed_bulk(&crate::store::BulkSeed::new(700))
        .unwrap();
    let titles = |rows: &[crate::reading::ListedPage]| -> Vec<String> {
        rows.iter().map(|r| r.title.clone()).collect()
    };
    for sort in [LibrarySort::Title, LibrarySort::Updated] {
        let lib = wiki.library(sort, None).unwrap();
        let topics: Vec<_> = lib
            .entries
            .iter()
            .filter(|e| e.kind == crate::store::PageKind::Topic)
            .cloned()
            .collect();
        assert_eq!(lib.topic_count, 700, "the list's length is every topic");
        assert_eq!(topics.len(), LIBRARY_FIRST_ROWS, "only the first rows come");
        // The rest, window by window, continue the same order without a gap or a repeat.
        let mut all = topics.clone();
        let mut offset = topics.len();
        while offset < 700 {
            let rows = wiki.library_rows(sort, None, offset, 200).unwrap();
            assert!(!rows.is_empty(), "rows from {offset}");
            offset += rows.len();
            all.extend(rows);
        }
        assert!(wiki.library_rows(sort, None, 700, 200).unwrap().is_empty());
        let mut whole = wiki.page_list().unwrap();
        if sort == LibrarySort::Updated {
            whole.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
        }
        whole.retain(|p| p.kind == crate::store::PageKind::Topic);
        assert_eq!(titles(&all), titles(&whole), "{sort:?}");
        // A row sent later is the row the whole list has there, summary and all.
        assert_eq!(all[650], whole[650]);
    }
    // Windows come from the order read with the library while nothing changes; a change
    // (a page renamed to the top of the list) is in the next window.
    wiki.library(LibrarySort::Title, None).unwrap();
    let before = wiki.library_rows(LibrarySort::Title, None, 399, 3).unwrap();
    let moved = before[1].id;
    wiki.store()
        .rename_page(moved, "Aaaa first of all")
        .unwrap();
    let after = wiki.library_rows(LibrarySort::Title, None, 400, 2).unwrap();
    // Row 400 left for the top: the rows before it move down one, those after it stay.
    assert_eq!(
        after.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![before[0].id, before[2].id]
    );
    let top = wiki.library_rows(LibrarySort::Title, None, 0, 1).unwrap();
    assert_eq!(
        (top[0].id, top[0].title.as_str()),
        (moved, "Aaaa first of all")
    );
    assert!(lib_wanted_is_capped(&wiki));
}

/// The library lists the most mentioned wanted pages only, and counts them all.
fn lib_wanted_is_capped(wiki: &Wiki) -> bool {
    let lib = wiki.library(LibrarySort::Title, None).unwrap();
    let wanted = wiki.wanted_pages().unwrap();
    wanted.len() > LIBRARY_WANTED_SHOWN
        && lib.counts.wanted == wanted.len() as u64
        && lib.wanted.len() == LIBRARY_WANTED_SHOWN
        && lib.wanted.first().map(|w| &w.title) == wanted.first().map(|w| &w.title)
}

/// The library read ahead (what the window does while its web view starts) is what the
/// window's first ask gets, held; an ask in another order is read; a change to the wiki is
/// read again, never answered from what was held.
#[test]
fn the_library_read_ahead_is_held_for_the_first_ask_until_the_wiki_changes() {
    let wiki = Wiki::open_in_memory().unwrap();
    digest(
        &wiki,
        "# Espresso\n\nShort and strong.",
        "Espresso",
        "Short and strong.",
        &[],
        &[],
    );
    wiki.read_library_ahead().unwrap();
    let held = |wiki: &Wiki| {
        let held = wiki.lists.library.lock().unwrap();
        held.as_ref()
            .map(|h| (h.generation, h.sort, h.view.clone()))
    };
    let (at, sort, ahead) = held(&wiki).expect("read ahead");
    assert_eq!(
        (at, sort),
        (wiki.store().generation().unwrap(), LibrarySort::Title)
    );
    let first = wiki.library(LibrarySort::Title, None).unwrap();
    assert_eq!(first, ahead);
    assert_eq!(first.counts.pages, 1);

    // Another order or a tag orders the heads read ahead: they are not read again.
    let heads = |wiki: &Wiki| {
        let held = wiki.lists.heads.lock().unwrap();
        std::sync::Arc::clone(&held.as_ref().expect("heads held").1)
    };
    let ahead_heads = heads(&wiki);
    let updated = wiki.library(LibrarySort::Updated, None).unwrap();
    assert_eq!(held(&wiki).map(|h| h.1), Some(LibrarySort::Updated));
    assert_eq!(updated.counts, first.counts);
    wiki.library(LibrarySort::Title, Some("none-such")).unwrap();
    assert!(std::sync::Arc::ptr_eq(&ahead_heads, &heads(&wiki)));

    digest(
        &wiki,
        "# Ristretto\n\nShorter still.",
        "Ristretto",
        "Shorter still.",
        &[],
        &[],
    );
    // The ask that is held, after the change.
    let after = wiki.library(LibrarySort::Updated, None).unwrap();
    assert_eq!(
        after.counts.pages, 2,
        "a change is read, not served from what was held"
    );
    let titles: Vec<&str> = after.entries.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(titles, ["Ristretto", "Espresso"]);
    assert!(
        !std::sync::Arc::ptr_eq(&ahead_heads, &heads(&wiki)),
        "the heads are read again after a change"
    );
}
