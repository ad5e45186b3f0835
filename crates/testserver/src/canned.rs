//! The answer the server gives when no reply is scripted: a valid compilation result
//! derived from the prompt, so end-to-end runs compile real articles without a model.

use serde_json::{json, Value};

/// Builds a `CompilationResult`-shaped JSON answer from the last user message.
///
/// The title is the first non-empty line (without markdown `#`), the summary its first
/// sentence, and up to three sentences become `sourced` claims whose `quote` is copied
/// verbatim from the message, so a grounding check against the same text passes.
pub fn compilation_answer(user_message: &str) -> String {
    let title = user_message
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(|l| truncate_chars(l, 80))
        .unwrap_or_else(|| "Untitled".to_string());
    let sentences = sentences(user_message);
    let summary = sentences
        .first()
        .map(|s| truncate_chars(s, 300))
        .unwrap_or_else(|| title.clone());
    let claims: Vec<Value> = sentences
        .iter()
        .take(3)
        .map(|s| json!({"claim": s, "confidence": "sourced", "quote": s}))
        .collect();
    let body = format!("{summary}\n\nSee also [[Index]].");
    json!({
        "title": title,
        "summary": summary,
        "key_claims": claims,
        "concepts": ["Testing"],
        "backlink_suggestions": ["Index"],
        "open_questions": [],
        "article_body": body,
    })
    .to_string()
}

/// Sentences of the text: runs ending in `.`, `!` or `?`, trimmed, each a verbatim slice.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end_of_sentence = matches!(c, '.' | '!' | '?')
            && text[i + c.len_utf8()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace);
        if end_of_sentence || c == '\n' {
            let end = if c == '\n' { i } else { i + c.len_utf8() };
            let s = text[start..end].trim().trim_start_matches('#').trim();
            if s.split_whitespace().count() >= 3 {
                out.push(s.to_string());
            }
            start = i + c.len_utf8();
        }
    }
    let rest = text[start..].trim();
    if rest.split_whitespace().count() >= 3 {
        out.push(rest.to_string());
    }
    out
}

fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canned_answer_quotes_the_prompt() {
        let prompt = "# Rust ownership\n\nEvery value has one owner. Moves transfer it! Ok.";
        let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
        assert_eq!(answer["title"], "Rust ownership");
        assert_eq!(answer["summary"], "Every value has one owner.");
        let claims = answer["key_claims"].as_array().unwrap();
        assert_eq!(claims.len(), 2, "{claims:?}");
        assert!(prompt.contains(claims[0]["quote"].as_str().unwrap()));
    }

    #[test]
    fn an_empty_prompt_still_gives_a_title() {
        let answer: Value = serde_json::from_str(&compilation_answer("  ")).unwrap();
        assert_eq!(answer["title"], "Untitled");
    }
}
