//! The answer the server gives when no reply is scripted: a valid compilation result
//! derived from the prompt, so end-to-end runs compile real articles without a model.

use serde_json::{json, Value};

/// Builds a `CompilationResult`-shaped JSON answer from the last user message.
///
/// When the message holds WikiMind's source markers (`<<<SOURCE` … `SOURCE>>>`) only the
/// source between them is read. The title is its first markdown heading (else its first
/// non-empty line), the summary its first sentence, up to three sentences become `sourced`
/// claims whose `quote` is copied verbatim, and every line of the source holding a
/// `[[wiki link]]` is carried into the body, so links between notes survive compilation.
/// The concepts are what the source itself marks as terms, in order of appearance: its
/// link targets and its `**bold**` phrases (up to eight); the link targets are also the
/// backlink suggestions. A source that marks nothing gives no concepts.
pub fn compilation_answer(user_message: &str) -> String {
    let source = match (
        user_message.find("<<<SOURCE\n"),
        user_message.rfind("\nSOURCE>>>"),
    ) {
        (Some(a), Some(b)) if a + 10 <= b => &user_message[a + 10..b],
        _ => user_message,
    };
    let first_line = |heading_only: bool| {
        source
            .lines()
            .map(str::trim)
            .filter(|l| !heading_only || l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .map(|l| truncate_chars(l, 80))
    };
    let title = first_line(true)
        .or_else(|| first_line(false))
        .unwrap_or_else(|| "Untitled".to_string());
    let sentences: Vec<String> = sentences(source)
        .into_iter()
        .filter(|s| !s.contains("[[") && *s != title)
        .collect();
    let summary = sentences
        .first()
        .map(|s| truncate_chars(s, 300))
        .unwrap_or_else(|| title.clone());
    let claims: Vec<Value> = sentences
        .iter()
        .take(3)
        .map(|s| json!({"claim": s, "confidence": "sourced", "quote": s}))
        .collect();
    let mut body = summary.clone();
    for line in source.lines().filter(|l| l.contains("[[")) {
        body.push_str("\n\n");
        body.push_str(line.trim());
    }
    json!({
        "title": title,
        "summary": summary,
        "key_claims": claims,
        "concepts": terms(source),
        "backlink_suggestions": link_targets(source),
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

/// The targets of the source's `[[wiki links]]` (`[[Target|shown]]` gives `Target`), once
/// each, in order.
fn link_targets(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in source.split("[[").skip(1) {
        if let Some((inside, _)) = piece.split_once("]]") {
            let target = inside.split('|').next().unwrap_or_default().trim();
            if !target.is_empty() && !inside.contains('\n') && !out.iter().any(|t| t == target) {
                out.push(target.to_string());
            }
        }
    }
    out
}

/// The terms a source marks: link targets, then `**bold**` phrases of at most five words,
/// once each (case-insensitively), at most eight.
fn terms(source: &str) -> Vec<String> {
    let mut out = link_targets(source);
    for (i, piece) in source.split("**").enumerate() {
        let phrase = piece.trim();
        let words = phrase.split_whitespace().count();
        if i % 2 == 1
            && (1..=5).contains(&words)
            && !phrase.contains('\n')
            && !out.iter().any(|t| t.eq_ignore_ascii_case(phrase))
        {
            out.push(phrase.to_string());
        }
    }
    out.truncate(8);
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
    fn reads_only_the_source_and_keeps_its_links() {
        let prompt = "Articles already in the wiki:\n- Other\n\nSource:\n<<<SOURCE\n# Espresso\n\nEspresso is brewed under nine bars of pressure. See [[Grind Size]] for more.\nSOURCE>>>\n\nWrite it.";
        let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
        assert_eq!(answer["title"], "Espresso");
        assert!(answer["article_body"]
            .as_str()
            .unwrap()
            .contains("See [[Grind Size]] for more."));
        assert_eq!(
            answer["key_claims"][0]["quote"],
            "Espresso is brewed under nine bars of pressure."
        );
    }

    #[test]
    fn concepts_are_the_terms_the_source_marks() {
        let prompt = "<<<SOURCE\n# Milk\n\nSteamed milk makes **microfoam** for a [[Flat White|flat white]] and a [[Latte]]. **Microfoam** needs **cold milk**.\nSOURCE>>>";
        let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
        assert_eq!(
            answer["concepts"],
            json!(["Flat White", "Latte", "microfoam", "cold milk"])
        );
        assert_eq!(
            answer["backlink_suggestions"],
            json!(["Flat White", "Latte"])
        );
        let plain: Value = serde_json::from_str(&compilation_answer(
            "# Tea\n\nTea is a drink made from leaves.",
        ))
        .unwrap();
        assert_eq!(plain["concepts"], json!([]), "nothing marked, no concepts");
    }

    #[test]
    fn an_empty_prompt_still_gives_a_title() {
        let answer: Value = serde_json::from_str(&compilation_answer("  ")).unwrap();
        assert_eq!(answer["title"], "Untitled");
    }
}
