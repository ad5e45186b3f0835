//! The Ask screen: answers shown and kept, and their progress.

use super::*;

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
