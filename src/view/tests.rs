use super::*;
use crate::compile::{PageOutcome, PageReport, Progress, Stage};
use crate::queue::{JobEvent, JobPhase};
use crate::store::{JobTarget, PageId};

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
    use crate::store::{CompileRecord, NewLink, SaveArticle};
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
                source_id: added.sources[0].source_id,
                result: &result,
                claims: &[],
                links: &links,
                truncated: false,
                title_is_page: true,
                unnamed_concepts: &[],
                record: &CompileRecord::default(),
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

#[test]
fn the_builtin_engine_is_offered_with_the_model_file_it_would_use() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().join("data").display().to_string()),
        "WIKIMIND_MODEL_PATH" => Some(models.display().to_string()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    let view = SettingsView::of(&settings);
    assert_eq!(view.builtin.available, crate::llm::HAS_BUILTIN);
    assert_eq!(view.builtin.model_file, None);
    let default = view
        .defaults
        .iter()
        .find(|d| d.kind == ProviderKindView::Builtin)
        .unwrap();
    assert_eq!(
        Path::new(&default.base_url),
        models.join(crate::config::DEFAULT_BUILTIN_MODEL)
    );
    if crate::llm::HAS_BUILTIN {
        assert!(
            view.builtin.hint.contains("fetch-model.sh"),
            "{}",
            view.builtin.hint
        );
    } else {
        assert!(
            view.builtin.hint.contains("`builtin` feature"),
            "{}",
            view.builtin.hint
        );
    }

    // A model file in the folder is found and offered.
    let file = models.join("tiny.gguf");
    std::fs::write(&file, b"GGUF").unwrap();
    let view = SettingsView::of(&settings);
    assert_eq!(view.builtin.model_file, Some(file.display().to_string()));

    // Choosing it makes the built-in engine the primary provider, named by its file.
    let keys = crate::llm::NoKeyStore;
    let form = ProviderForm {
        kind: ProviderKindView::Builtin,
        base_url: file.display().to_string(),
        model: String::new(),
    };
    let next = with_primary(&settings, &form, &keys).unwrap();
    assert_eq!(next.provider().kind, ProviderKind::Builtin);
    assert_eq!(next.provider().base_url, file.display().to_string());
    assert_eq!(next.provider().model, "tiny.gguf");
    let empty = ProviderForm {
        base_url: " ".into(),
        ..form
    };
    let err = with_primary(&settings, &empty, &keys).unwrap_err();
    assert!(err.to_string().contains("model file"), "{err}");
}

#[tokio::test]
async fn testing_a_model_file_that_is_not_gguf_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.gguf");
    std::fs::write(&file, b"# not a model\n").unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    let form = ProviderForm {
        kind: ProviderKindView::Builtin,
        base_url: file.display().to_string(),
        model: String::new(),
    };
    let keys = crate::llm::NoKeyStore;
    let next = with_primary(&settings, &form, &keys).unwrap();
    let check = check_connection(&next).await;
    assert!(!check.ok, "{check:?}");
    if crate::llm::HAS_BUILTIN {
        assert!(check.message.contains("notes.gguf"), "{}", check.message);
    } else {
        assert!(check.message.contains("builtin"), "{}", check.message);
    }
}

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
        .with_ingest_options(settings.ingest_options());
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
    use crate::store::{CompileRecord, SaveArticle};
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
            source_id: added.sources[0].source_id,
            result: &result,
            claims: &[],
            links: &[],
            truncated: false,
            title_is_page: true,
            unnamed_concepts: &[],
            record: &CompileRecord::default(),
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

/// Regression: the app's source list and article page showed only a page's origin, not
/// where redirects led; they carry the final URL (absent for a page that did not move).
#[test]
fn a_redirected_page_carries_its_final_url_to_the_sources_and_page_views() {
    use crate::contract::CompilationResult;
    use crate::store::{CompileRecord, NewSource, SaveArticle, SourceKind};
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
            source_id: moved,
            result: &result,
            claims: &[],
            links: &[],
            truncated: false,
            title_is_page: true,
            unnamed_concepts: &[],
            record: &CompileRecord::default(),
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

/// Saves a digest for a new pasted source: its title, a body, sourced claims (grounded when
/// their quote is in `text`) and links.
fn digest(
    wiki: &Wiki,
    text: &str,
    title: &str,
    body: &str,
    quotes: &[&str],
    links: &[&str],
) -> (crate::store::SourceId, crate::store::ArticleId) {
    use crate::contract::{CheckedClaim, CompilationResult, Confidence};
    use crate::store::{CompileRecord, NewLink, SaveArticle};
    let source = wiki.ingest_text(text, None).unwrap().sources[0].source_id;
    let claims: Vec<CheckedClaim> = quotes
        .iter()
        .map(|q| CheckedClaim {
            claim: format!("It says: {q}."),
            confidence: Confidence::Sourced,
            quote: Some((*q).to_owned()),
            grounded: text.contains(q),
        })
        .collect();
    let links: Vec<NewLink> = links
        .iter()
        .map(|t| NewLink {
            target: (*t).to_owned(),
            context: body.to_owned(),
        })
        .collect();
    let result = CompilationResult {
        title: title.into(),
        summary: format!("About {title}."),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: body.into(),
    };
    let saved = wiki
        .store()
        .save_article(&SaveArticle {
            source_id: source,
            result: &result,
            claims: &claims,
            links: &links,
            truncated: false,
            title_is_page: true,
            unnamed_concepts: &[],
            record: &CompileRecord {
                provider: "ollama".into(),
                model: "m".into(),
                ..CompileRecord::default()
            },
        })
        .unwrap();
    (source, saved.article_id)
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

/// A page's history lists every version with its author; restoring one adds a version by
/// the person with the old content, and the app's text of each version shows the change.
#[test]
fn a_page_keeps_its_versions_and_restores_one() {
    use crate::contract::CompilationResult;
    use crate::store::{CompileRecord, SaveArticle};
    let wiki = Wiki::open_in_memory().unwrap();
    let (source, article) = digest(
        &wiki,
        "# Tea\n\nTea is steeped.",
        "Tea",
        "Old body.",
        &[],
        &[],
    );
    let page = wiki.store().digest_page(article).unwrap().unwrap();
    let result = CompilationResult {
        title: "Tea".into(),
        summary: "About Tea.".into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: "New body.".into(),
    };
    wiki.store()
        .save_article(&SaveArticle {
            source_id: source,
            result: &result,
            claims: &[],
            links: &[],
            truncated: false,
            title_is_page: true,
            unnamed_concepts: &[],
            record: &CompileRecord {
                provider: "openai".into(),
                model: "other".into(),
                ..CompileRecord::default()
            },
        })
        .unwrap();
    let now = wiki.page_view(page).unwrap().unwrap();
    assert_eq!(now.version, 2);
    assert!(!now.edited, "the model wrote the current version");
    assert_eq!(now.history[1].model.as_deref(), Some("other"));
    assert_eq!(
        wiki.page_text_view(page, 1).unwrap().unwrap().body,
        "Old body."
    );
    assert_eq!(
        wiki.page_text_view(page, 2).unwrap().unwrap().body,
        "New body."
    );
    assert_eq!(wiki.page_text_view(page, 9).unwrap(), None);

    let restored = wiki.restore_page_view(page, 1).unwrap().unwrap();
    assert_eq!(restored.version, 3);
    assert!(restored.html.contains("Old body."), "{}", restored.html);
    let last = &restored.history[2];
    assert_eq!(
        (last.author_kind, last.restored_from),
        (AuthorKind::Person, Some(1))
    );
    assert!(
        restored.edited,
        "a person wrote over the model's last version"
    );
    assert!(wiki.restore_page_view(page, 9).is_err(), "no such version");
}

#[test]
fn progress_of_a_page_job_names_its_page_and_never_a_source() {
    let progress = Progress {
        target: Some(JobTarget::Page(PageId(7))),
        stage: Stage::Receiving,
        provider: "ollama:m".into(),
        attempt: 1,
        chars: 120,
        chunks: 30,
        title: Some("what the answer calls it".into()),
        message: None,
        text: None,
    };
    let job = |target, phase| JobEvent {
        target,
        provider: "ollama:m".into(),
        page_title: match target {
            JobTarget::Page(_) => Some("Espresso".into()),
            JobTarget::Source(_) => None,
        },
        phase,
    };
    let view = JobProgress::from(&job(
        JobTarget::Page(PageId(7)),
        JobPhase::Working(progress),
    ));
    assert_eq!(view.kind, JobKindView::Page);
    assert_eq!((view.page_id, view.source_id), (Some(PageId(7)), None));
    assert_eq!(view.target(), Some(JobTarget::Page(PageId(7))));
    assert_eq!(view.received, 30);
    assert_eq!(view.stage, StageView::Receiving);
    assert_eq!(
        view.title.as_deref(),
        Some("Espresso"),
        "the page's title, not the answer's"
    );

    let source = JobProgress::from(&job(JobTarget::Source(SourceId(3)), JobPhase::Queued));
    assert_eq!(source.kind, JobKindView::Source);
    assert_eq!(
        (source.source_id, source.page_id),
        (Some(SourceId(3)), None)
    );
    assert_eq!(source.stage, StageView::Queued);
    let cancelled = JobProgress::from(&job(JobTarget::Source(SourceId(3)), JobPhase::Cancelled));
    assert_eq!(cancelled.stage, StageView::Cancelled);
    assert_eq!(
        cancelled.message.as_deref(),
        Some("cancelled; the source is pending again")
    );
    let owner = crate::store::JobOwner {
        pid: 42,
        host: "desk".into(),
    };
    let elsewhere = JobProgress::from(&job(
        JobTarget::Page(PageId(7)),
        JobPhase::Running(Some(owner)),
    ));
    assert_eq!(
        elsewhere.message.as_deref(),
        Some("writing in another process (pid 42 on desk)")
    );
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["kind"], "page");
    assert_eq!(json["source_id"], serde_json::Value::Null);
}

#[test]
fn a_page_job_says_what_it_did_to_the_page() {
    let report = |outcome| PageReport {
        outcome,
        sources: 3,
        changed: 1,
        usage: crate::compile::Usage::call(None, None),
        ..PageReport::nothing_yet(PageId(2), "Espresso".into())
    };
    let finished = |outcome| {
        JobProgress::from(&JobEvent {
            target: JobTarget::Page(PageId(2)),
            provider: String::new(),
            page_title: Some("Espresso".into()),
            phase: JobPhase::Written(Box::new(report(outcome))),
        })
    };
    let written = finished(PageOutcome::Written { version: 2 });
    assert_eq!(written.stage, StageView::Compiled);
    assert_eq!(written.title.as_deref(), Some("Espresso"));
    assert_eq!(
        written.message.as_deref(),
        Some("written from 3 sources (version 2)")
    );
    assert_eq!(written.calls, Some(1));
    let same = finished(PageOutcome::NoNewInformation);
    assert_eq!(
        same.message.as_deref(),
        Some("no new information (gained 1 source)")
    );
    let flagged = finished(PageOutcome::Flagged {
        reason: "the rewrite lost every claim of source 4".into(),
    });
    assert_eq!(flagged.stage, StageView::Failed);
    assert_eq!(
        flagged.message.as_deref(),
        Some("flagged: the rewrite lost every claim of source 4")
    );
}

/// An answer to "How is espresso brewed?" citing the page Espresso twice: once with a
/// quote the page holds, once with a quote found nowhere.
fn espresso_answer(wiki: &Wiki) -> (crate::ask::AskReport, PageId) {
    use crate::ask::{AskReport, CitedClaim};
    use crate::contract::Confidence;
    let quote = "Espresso is brewed at nine bars of pressure.";
    let (source, _) = digest(
        wiki,
        &format!("# Espresso\n\n{quote}"),
        "Espresso",
        quote,
        &[quote],
        &[],
    );
    let espresso = wiki.store().find_page("Espresso").unwrap().unwrap();
    let report = AskReport {
        question: "How is espresso brewed?".into(),
        answer: "According to [[Espresso]]: at nine bars. See [[Crema]].\n\n\
                 <script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"
            .into(),
        claims: vec![
            CitedClaim {
                claim: "Espresso is brewed at nine bars.".into(),
                confidence: Confidence::Sourced,
                labelled: Confidence::Sourced,
                quote: Some(quote.into()),
                page: "Espresso".into(),
                grounded: true,
                page_id: Some(espresso),
                source_ids: vec![source],
            },
            CitedClaim {
                claim: "A shot takes 25 seconds.".into(),
                confidence: Confidence::Inferred,
                labelled: Confidence::Sourced,
                quote: Some("twenty-five seconds".into()),
                page: "espressos".into(),
                grounded: false,
                page_id: None,
                source_ids: Vec::new(),
            },
        ],
        follow_up_questions: vec!["What is crema?".into()],
        pages_read: vec!["Espresso".into()],
        covered: true,
        saved: None,
        saved_page: None,
        error: None,
        provider: Some("ollama:m".into()),
        usage: crate::compile::Usage {
            calls: 1,
            tokens_in: 10,
            tokens_out: 20,
        },
        warnings: Vec::new(),
        attempts: Vec::new(),
        prompt_version: Some("ask-v1".into()),
    };
    (report, espresso)
}

/// What the Ask screen shows: the answer sanitised with its links resolved, each claim's
/// cited page by id (found by any spelling), a quote found nowhere marked, the pages read.
#[test]
fn an_answer_is_shown_sanitised_with_its_citations_leading_to_their_pages() {
    let wiki = Wiki::open_in_memory().unwrap();
    let (report, espresso) = espresso_answer(&wiki);
    let view = wiki.answer_view(&report).unwrap();
    assert!(
        view.html
            .contains(&format!("data-article-id=\"{}\"", espresso)),
        "{}",
        view.html
    );
    assert!(view.html.contains("data-wanted=\"Crema\""), "{}", view.html);
    assert!(
        !view.html.contains("<script") && !view.html.contains("onerror"),
        "{}",
        view.html
    );
    assert_eq!(view.claims[0].page.page_id, Some(espresso));
    assert!(view.claims[0].grounded && !view.claims[0].quote_not_found);
    assert_eq!(
        view.claims[1].page.page_id,
        Some(espresso),
        "`espressos` cites the page Espresso"
    );
    assert!(view.claims[1].quote_not_found);
    assert_eq!(view.claims[1].confidence, Confidence::Inferred);
    assert_eq!(
        view.pages_read,
        vec![PageNameView {
            title: "Espresso".into(),
            page_id: Some(espresso)
        }]
    );
    assert!(view.can_save && view.saved.is_none());
}

/// A kept answer is a page of kind `answer`: listed apart from topics (and not counted
/// among them), marked because one claim did not ground, its claims naming the page they
/// cite; a question the wiki does not cover, or one with no valid answer, keeps nothing.
#[test]
fn a_saved_answer_is_listed_apart_from_topics_and_marked_when_a_quote_was_not_found() {
    let wiki = Wiki::open_in_memory().unwrap();
    let (report, espresso) = espresso_answer(&wiki);
    let saved = wiki
        .save_answer(&report)
        .unwrap()
        .expect("an answer to keep");

    let lib = wiki.library(LibrarySort::Title, None).unwrap();
    assert_eq!((lib.counts.pages, lib.counts.answers), (1, 1));
    let answer = lib
        .entries
        .iter()
        .find(|e| e.kind == PageKind::Answer)
        .expect("the answer is listed");
    assert_eq!(answer.id, saved.page_id);
    assert_eq!(answer.title, "How is espresso brewed?");
    let marked = answer.flagged.as_deref().expect("marked");
    assert!(marked.contains("1 of 2 claims"), "{marked}");
    let topic = lib
        .entries
        .iter()
        .find(|e| e.kind == PageKind::Topic)
        .unwrap();
    assert_eq!((topic.id, topic.flagged.as_deref()), (espresso, None));

    let page = wiki.page_view(saved.page_id).unwrap().unwrap();
    assert_eq!(page.kind, PageKind::Answer);
    assert!(page.flagged.is_some());
    assert!(page.sources.is_empty(), "no source feeds an answer");
    let cited: Vec<Option<crate::store::PageId>> = page
        .claims
        .iter()
        .map(|c| c.cited_page.as_ref().and_then(|p| p.page_id))
        .collect();
    assert_eq!(cited, vec![Some(espresso), Some(espresso)]);
    assert!(page
        .html
        .contains(&format!("data-article-id=\"{}\"", espresso)));
    let topic_page = wiki.page_view(espresso).unwrap().unwrap();
    assert_eq!(topic_page.kind, PageKind::Topic);
    assert!(topic_page.claims.iter().all(|c| c.cited_page.is_none()));

    let mut not_covered = report.clone();
    not_covered.covered = false;
    not_covered.claims.clear();
    assert_eq!(wiki.save_answer(&not_covered).unwrap(), None);
    assert!(!wiki.answer_view(&not_covered).unwrap().can_save);
    let mut failed = report;
    failed.answer.clear();
    failed.error = Some("the answer does not fit the contract".into());
    assert_eq!(wiki.save_answer(&failed).unwrap(), None);
    let view = wiki.answer_view(&failed).unwrap();
    assert!(!view.can_save && view.html.is_empty());
}

/// An answer's progress carries its text so far and counts tokens only while receiving.
#[test]
fn progress_of_an_answer_carries_its_text_so_far() {
    use crate::compile::{Progress, Stage};
    let p = Progress {
        target: None,
        stage: Stage::Receiving,
        provider: "ollama:m".into(),
        attempt: 1,
        chars: 40,
        chunks: 7,
        title: None,
        message: None,
        text: Some("According to [[Espresso]]".into()),
    };
    let shown = AskProgress::of("  How is espresso brewed? ", &p);
    assert_eq!(shown.question, "How is espresso brewed?");
    assert_eq!(shown.stage, StageView::Receiving);
    assert_eq!(shown.received, 7);
    assert_eq!(shown.text.as_deref(), Some("According to [[Espresso]]"));
    let parsing = AskProgress::of(
        "q",
        &Progress {
            stage: Stage::Parsing,
            ..p
        },
    );
    assert_eq!(parsing.received, 0);
}

/// The Health screen from one lint run: findings grouped by check with their pages as
/// links, the run stored for the trend, and a merge proposal accepted merges the pages
/// while a dismissed finding is not listed again.
#[test]
fn the_health_screen_groups_findings_and_accepting_a_merge_merges() {
    let wiki = Wiki::open_in_memory().unwrap();
    digest(
        &wiki,
        "# Coffee Roasting\n\nBeans are roasted hot.",
        "Coffee Roasting",
        "Beans are roasted hot.",
        &[],
        &[],
    );
    digest(
        &wiki,
        "# Roasting Coffee\n\nRoasting takes minutes.",
        "Roasting Coffee",
        "Roasting takes minutes.",
        &[],
        &[],
    );
    let first = wiki.health_view().unwrap();
    assert_eq!(first.trend.len(), 1, "a look is a lint run, stored");
    assert_eq!(first.notice, None);
    let second = wiki.health_view().unwrap();
    assert_eq!(
        second.trend.len(),
        1,
        "a look that finds nothing new adds no point"
    );
    let checks: Vec<&str> = first.groups.iter().map(|g| g.check.as_str()).collect();
    assert!(checks.contains(&"duplicate"), "{checks:?}");
    let duplicates = first
        .groups
        .iter()
        .find(|g| g.check == "duplicate")
        .unwrap();
    assert_eq!(duplicates.label, "Merge proposals");
    assert_eq!(duplicates.findings.len(), 1);
    let proposal = &duplicates.findings[0];
    let merge = proposal.merge.as_ref().expect("a merge proposal");
    assert_eq!(merge.reason, "the same words in another order");
    assert!(proposal
        .pages
        .iter()
        .all(|p| p
            .page_id
            .is_some_and(|id| wiki.store().page(id).unwrap().is_some())));
    assert_eq!(first.now.duplicates, 1);

    // Thin pages (bodies of one sentence): dismiss one, it stays away.
    let thin = first.groups.iter().find(|g| g.check == "thin").unwrap();
    let thin_id = thin.findings[0].id.clone();
    let after = wiki.dismiss_finding_view(&thin_id).unwrap();
    assert!(after.notice.as_deref().unwrap().starts_with("dismissed: "));
    assert_eq!(after.dismissed, 1);
    assert!(after
        .groups
        .iter()
        .flat_map(|g| &g.findings)
        .all(|f| f.id != thin_id));
    assert_eq!(after.trend.len(), 1, "an action is not a stored run");

    let merged = wiki.accept_merge_view(&proposal.id).unwrap();
    let notice = merged.notice.unwrap();
    assert!(notice.starts_with("merged "), "{notice}");
    assert!(merged.groups.iter().all(|g| g.check != "duplicate"));
    let lib = wiki.library(LibrarySort::Title, None).unwrap();
    assert_eq!(lib.entries.len(), 1, "one page is left");
    assert_eq!(lib.health.unwrap().duplicates, 1, "the last stored run");
    let again = wiki.accept_merge_view(&proposal.id).unwrap();
    assert!(again.notice.unwrap().contains("gone already"));
}

/// The Health screen is sent the first findings of each check with how many there are;
/// the rest come by window, in the same order, and an unknown check is refused by name.
#[test]
fn the_health_screen_sends_the_first_findings_and_the_rest_by_window() {
    let wiki = Wiki::open_in_memory().unwrap();
    let names: Vec<String> = (0..130).map(|n| format!("Wanted Thing {n:03}")).collect();
    let links: Vec<&str> = names.iter().map(String::as_str).collect();
    digest(
        &wiki,
        "# Hub\n\nThe hub names many things.",
        "Hub",
        "The hub names many things.",
        &[],
        &links,
    );
    let view = wiki.health_view().unwrap();
    let wanted = view.groups.iter().find(|g| g.check == "wanted").unwrap();
    assert_eq!(wanted.total, 130, "{:?}", view.now);
    assert_eq!(wanted.findings.len(), HEALTH_FINDINGS_SHOWN);

    let rest = wiki
        .health_findings("wanted", HEALTH_FINDINGS_SHOWN as u32, 500)
        .unwrap();
    assert_eq!(rest.len(), 30);
    let report = crate::lint::lint(&wiki, &crate::lint::LintOptions::default()).unwrap();
    let in_lint: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.check == crate::lint::Check::Wanted)
        .map(|f| f.id.as_str())
        .collect();
    let shown: Vec<&str> = wanted
        .findings
        .iter()
        .chain(&rest)
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(
        shown, in_lint,
        "the first ones and the window, in lint's order"
    );
    assert!(wiki.health_findings("wanted", 500, 10).unwrap().is_empty());

    let refused = wiki.health_findings("nonsense", 0, 10).unwrap_err();
    assert!(refused.to_string().contains("\"nonsense\""), "{refused}");
}

/// Rejecting a merge proposal from the Health screen is a dismissal: remembered, so the
/// proposal is not listed again, and both pages stay.
#[test]
fn a_rejected_merge_proposal_stays_rejected_and_both_pages_stay() {
    let wiki = Wiki::open_in_memory().unwrap();
    for title in ["Coffee Roasting", "Roasting Coffee"] {
        let text = format!("# {title}\n\nBeans are roasted hot.");
        digest(&wiki, &text, title, "Beans are roasted hot.", &[], &[]);
    }
    let view = wiki.health_view().unwrap();
    let group = view.groups.iter().find(|g| g.check == "duplicate").unwrap();
    let id = group.findings[0].id.clone();
    let after = wiki.dismiss_finding_view(&id).unwrap();
    assert!(after.notice.unwrap().starts_with("rejected: "));
    assert!(after.groups.iter().all(|g| g.check != "duplicate"));
    assert!(wiki
        .health_view()
        .unwrap()
        .groups
        .iter()
        .all(|g| g.check != "duplicate"));
    assert_eq!(
        wiki.library(LibrarySort::Title, None)
            .unwrap()
            .entries
            .len(),
        2
    );
    let gone = wiki.dismiss_finding_view(&id).unwrap();
    assert!(gone.notice.unwrap().contains("gone already"));
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
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("upgraded the wiki's database from schema 1")),
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
    use crate::store::{CompileRecord, NewSource, SaveArticle, SourceKind};
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
            source_id: source,
            result: &result,
            claims: &[],
            links: &[],
            truncated: false,
            title_is_page: true,
            unnamed_concepts: &[],
            record: &CompileRecord::default(),
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
fn the_settings_screen_sets_a_pool_shows_it_and_names_a_bad_member() {
    let env = |k: &str| (k == "HOME").then(|| "/h".to_string());
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    assert!(SettingsView::of(&settings).pool.is_empty());
    let keys = crate::llm::MemoryKeyStore::new();
    keys.set("http://vllm.test/v1", &crate::llm::Secret::new("k"))
        .unwrap();
    let member = |kind, url: &str, model: &str, concurrency| PoolMemberForm {
        kind,
        base_url: url.into(),
        model: model.into(),
        concurrency,
    };
    let members = [
        member(ProviderKindView::Ollama, "http://gpu.test:11434/", "m", 2),
        member(ProviderKindView::Openai, "http://vllm.test/v1", "big", 1),
    ];
    let next = with_pool(&settings, &members, &keys).unwrap();
    assert!(next.pool);
    let view = SettingsView::of(&next);
    assert_eq!(
        view.pool,
        [
            member(ProviderKindView::Ollama, "http://gpu.test:11434", "m", 2),
            members[1].clone(),
        ]
    );
    assert!(view.fallbacks.is_empty());
    assert_eq!(
        next.providers[1].api_key.as_ref().map(|k| k.expose()),
        Some("k"),
        "each member gets the key of its own server"
    );

    let bad = [
        members[0].clone(),
        member(ProviderKindView::Ollama, "gpu", "m", 1),
    ];
    let err = with_pool(&settings, &bad, &keys).unwrap_err().to_string();
    assert!(err.starts_with("pool member 2: base URL"), "{err}");
    let idle = [member(ProviderKindView::Ollama, "http://a.test", "m", 0)];
    let err = with_pool(&settings, &idle, &keys).unwrap_err().to_string();
    assert_eq!(err, "pool member 1: concurrency: must be at least 1");

    // No members: one server again.
    let back = with_pool(&next, &[], &keys).unwrap();
    assert!(!back.pool);
    assert_eq!(back.providers.len(), 1);
    assert!(SettingsView::of(&back).pool.is_empty());
}

/// A PDF's digest with one sourced claim quoting page 2 of the five-page fixture: its
/// passage shows the quote in its sentence with `p. ii` and the file's title, and its page
/// image comes from the PDF with the quote's words highlighted on it, from the cache the
/// second time; a PDF gone from its path says so in the passage and refuses the image.
#[test]
fn a_pdf_citation_shows_its_passage_and_its_page_with_the_quote_highlighted() {
    use crate::contract::{CheckedClaim, CompilationResult, Confidence};
    use crate::store::{CompileRecord, SaveArticle};
    if !wikimind_documents::pdf::available() || !wikimind_documents::pdf::renderer_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "poppler-utils is needed (scripts/setup.sh)"
        );
        eprintln!("SKIPPED: poppler-utils is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("notes").join("page-labels.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/documents/tests/data/page-labels.pdf"),
        &pdf,
    )
    .unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let added = wiki.ingest_paths_view(&[pdf.display().to_string()]);
    assert_eq!(added.added.len(), 1, "{added:?}");
    let source = all_sources(&wiki)[0].id;
    let quote = "PHYS2 garden field";
    let result = CompilationResult {
        title: "Pages".into(),
        summary: "Five pages.".into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: "Five pages.".into(),
    };
    wiki.store()
        .save_article(&SaveArticle {
            source_id: source,
            result: &result,
            claims: &[CheckedClaim {
                claim: "Page two names a garden.".into(),
                confidence: Confidence::Sourced,
                quote: Some(quote.into()),
                grounded: true,
            }],
            links: &[],
            truncated: false,
            title_is_page: true,
            unnamed_concepts: &[],
            record: &CompileRecord::default(),
        })
        .unwrap();

    let digest = wiki
        .source_detail_view(source)
        .unwrap()
        .unwrap()
        .digest
        .unwrap();
    let passages = &digest.claims[0].passages;
    assert_eq!(passages.len(), 1, "{passages:?}");
    let p = &passages[0];
    assert_eq!(p.quote, quote);
    assert_eq!(p.before, "Physical page 2: ");
    assert!(p.after.starts_with(" meadow orchard cobalt"), "{p:?}");
    assert_eq!(p.place.as_deref(), Some("p. ii"));
    assert_eq!(p.title, "page-labels");
    assert_eq!(
        (p.pdf_page, p.page_image_problem.as_deref(), p.file_exists),
        (Some(2), None, true)
    );

    let image = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap();
    assert_eq!((image.page, image.page_label.as_deref()), (2, Some("ii")));
    assert!(image.image.starts_with("data:image/png;base64,iVBORw0KGgo"));
    assert_eq!(
        image.height, PAGE_IMAGE_SIDE,
        "A4 portrait: the height is the long side"
    );
    assert_eq!(image.boxes.len(), 1, "one line: {:?}", image.boxes);
    let b = image.boxes[0];
    assert!(b.x > 0.0 && b.y > 0.0);
    assert!(b.x + b.width < f64::from(image.width) && b.y + b.height < f64::from(image.height));
    // The three words, not the line: it starts after "Physical page 2:" and ends before
    // "meadow" (the line runs from 60 to 385 points of the page's 595).
    let points = |x: f64| x * 595.2756 / f64::from(image.width);
    assert!((145.0..152.0).contains(&points(b.x)), "{}", points(b.x));
    assert!(
        (256.0..262.0).contains(&points(b.x + b.width)),
        "{}",
        points(b.x + b.width)
    );
    assert_eq!((image.changed, image.note.as_deref()), (false, None));
    let cached = std::fs::read_dir(dir.path().join("data/cache/page-images"))
        .unwrap()
        .count();
    assert_eq!(cached, 1, "the page is kept in the cache");
    let again = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap();
    assert_eq!(again, image, "the cached page is the same image");

    // Where pdftoppm is missing the passage still shows, and says what the page image
    // needs.
    let shown = wiki.shown_digest(source).unwrap().unwrap();
    let without = super::passages::Passages::new(&wiki)
        .assuming_renderer(false)
        .of(&shown.key_claims[0].citations)
        .unwrap();
    assert_eq!(without[0].quote, quote);
    assert_eq!(without[0].pdf_page, Some(2));
    let problem = without[0].page_image_problem.as_deref().unwrap();
    assert!(
        problem.contains("poppler-utils") && problem.contains("pdftoppm"),
        "{problem}"
    );

    // A range that is not in the text is refused with a reason.
    let error = wiki.citation_page_image(source, 0, 1 << 30).unwrap_err();
    assert!(error.to_string().contains("not a quote"), "{error}");

    // The file gone: the passage still shows and says why there is no page image.
    std::fs::remove_file(&pdf).unwrap();
    let digest = wiki
        .source_detail_view(source)
        .unwrap()
        .unwrap()
        .digest
        .unwrap();
    let p = &digest.claims[0].passages[0];
    assert_eq!(p.quote, quote);
    assert!(!p.file_exists);
    assert!(
        p.page_image_problem
            .as_deref()
            .unwrap()
            .contains("no longer at"),
        "{p:?}"
    );
    let error = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap_err();
    assert!(error.to_string().contains("no longer at"), "{error}");
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

/// Every source of a small wiki, as the Sources screen's first window lists them.
fn all_sources(wiki: &Wiki) -> Vec<SourceView> {
    wiki.sources_window(None, false, 0, SOURCES_WINDOW_MAX)
        .unwrap()
        .rows
}
