//! The readable text of a source: what prompts, parts and grounding all read (front matter,
//! comments, block ids and callout markers out).

/// `source` with its text replaced by its readable text
/// ([`wikimind_text::markdown::readable_text`]): front matter, comments, block ids and
/// callout markers out. Prompts, parts and grounding all read this text.
pub fn readable_source(mut source: crate::store::Source) -> crate::store::Source {
    source.text = readable(&source.text);
    source
}

/// The readable text of a source's raw text.
pub fn readable(raw: &str) -> String {
    wikimind_text::markdown::readable_text(raw).text
}
