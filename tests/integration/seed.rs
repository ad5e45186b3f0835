//! Digests saved by hand, for tests of what the app does with them (pages, names, lint,
//! page jobs, prompts) without a model.

use wikimind::contract::{CheckedClaim, CompilationResult};
use wikimind::store::{
    fixtures, NewLink, NewSource, SaveArticle, SavedArticle, SourceId, SourceKind, Store,
};

fn new_source(origin: &str, text: &str) -> NewSource {
    NewSource {
        origin: origin.to_owned(),
        kind: SourceKind::File,
        title: Some(format!("hint for {origin}")),
        text: text.to_owned(),
        tags: Vec::new(),
        aliases: Vec::new(),
        root: None,
    }
}

pub(crate) fn add(store: &Store, origin: &str, text: &str) -> SourceId {
    store
        .ingest_source(&new_source(origin, text))
        .expect("ingest")
        .source_id()
}

pub(crate) fn result(title: &str, body: &str) -> CompilationResult {
    CompilationResult {
        title: title.to_owned(),
        summary: format!("A page about {title}."),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: body.to_owned(),
    }
}

pub(crate) fn link(target: &str, context: &str) -> NewLink {
    NewLink {
        target: target.to_owned(),
        context: context.to_owned(),
    }
}

pub(crate) fn save(
    store: &Store,
    source_id: SourceId,
    result: &CompilationResult,
    links: &[NewLink],
) -> SavedArticle {
    save_with_claims(store, source_id, result, &[], links)
}

pub(crate) fn save_with_claims(
    store: &Store,
    source_id: SourceId,
    result: &CompilationResult,
    claims: &[CheckedClaim],
    links: &[NewLink],
) -> SavedArticle {
    store
        .save_article(&SaveArticle {
            claims,
            links,
            record: &fixtures::answered_record("llama3"),
            ..fixtures::digest(source_id, result)
        })
        .expect("save")
}
