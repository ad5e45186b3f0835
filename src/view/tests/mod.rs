//! Tests of the views the window is sent, one file per screen; the helpers they share
//! (saving a digest, a cited answer, the Sources list) are here.

use super::*;
use crate::store::PageId;

mod ask;
mod citations;
mod health;
mod jobs;
mod library;
mod opening;
mod page;
mod settings;
mod sources;

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
    use crate::contract::{CheckedClaim, Confidence};
    use crate::store::{fixtures, NewLink, SaveArticle};
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
    let result = fixtures::result(title, body);
    let saved = wiki
        .store()
        .save_article(&SaveArticle {
            claims: &claims,
            links: &links,
            record: &fixtures::record("ollama", "m"),
            ..fixtures::digest(source, &result)
        })
        .unwrap();
    (source, saved.article_id)
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

/// Every source of a small wiki, as the Sources screen's first window lists them.
fn all_sources(wiki: &Wiki) -> Vec<SourceView> {
    wiki.sources_window(None, false, 0, SOURCES_WINDOW_MAX)
        .unwrap()
        .rows
}
