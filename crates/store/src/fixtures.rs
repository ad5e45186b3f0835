//! Values tests and benches write again and again, with every field they do not care about
//! at its plain value: a digest to save ([`digest`]), its compile-log entry ([`record`],
//! [`answered_record`]) and a model's answer ([`result`]).
//!
//! Built only for tests: the store's own under `cfg(test)`, and every other crate's tests
//! and benches through the `fixtures` feature, which only dev-dependencies turn on, so no
//! shell builds it. A caller changes a field with struct update syntax:
//! `SaveArticle { links: &links, ..digest(source, &result) }`.

use wikimind_contract::CompilationResult;

use crate::{CompileRecord, SaveArticle, SourceId};

/// The compile-log entry of a digest whose log a test does not read: every field empty.
static PLAIN_RECORD: CompileRecord = CompileRecord {
    provider: String::new(),
    model: String::new(),
    prompt_version: String::new(),
    tokens_in: None,
    tokens_out: None,
    latency_ms: 0,
    attempt: 0,
    repairs: Vec::new(),
    warnings: Vec::new(),
    truncated: false,
    raw_answer: String::new(),
};

/// Saving `result` as the digest of `source_id`: no claims, no links, not truncated, its
/// title naming a page, no unnamed concepts, and a compile-log entry with every field empty.
pub fn digest(source_id: SourceId, result: &CompilationResult) -> SaveArticle<'_> {
    SaveArticle {
        source_id,
        result,
        claims: &[],
        links: &[],
        truncated: false,
        title_is_page: true,
        unnamed_concepts: &[],
        record: &PLAIN_RECORD,
    }
}

/// A first attempt's compile-log entry by `provider` and `model` under prompt version
/// `v1`, with no tokens, repairs, warnings or answer.
pub fn record(provider: &str, model: &str) -> CompileRecord {
    CompileRecord {
        provider: provider.to_owned(),
        model: model.to_owned(),
        prompt_version: "v1".to_owned(),
        attempt: 1,
        ..CompileRecord::default()
    }
}

/// A first answer's compile-log entry from ollama's `model` as a real call leaves it:
/// 120 tokens in, 80 out, 900 ms, one repair ("closed a brace") and a raw answer.
pub fn answered_record(model: &str) -> CompileRecord {
    CompileRecord {
        tokens_in: Some(120),
        tokens_out: Some(80),
        latency_ms: 900,
        repairs: vec!["closed a brace".to_owned()],
        raw_answer: "{\"title\": ...}".to_owned(),
        ..record("ollama", model)
    }
}

/// A model's answer titled `title`, summarised "About {title}.", with `body` and nothing
/// else (no claims, concepts, suggestions or questions).
pub fn result(title: &str, body: &str) -> CompilationResult {
    CompilationResult {
        title: title.to_owned(),
        summary: format!("About {title}."),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: body.to_owned(),
    }
}
