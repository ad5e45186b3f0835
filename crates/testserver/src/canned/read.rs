//! Reading a prompt the way the canned answers need: its source, its blocks, their sentences, terms and links.

use super::*;

/// The line that opens the source of a compile prompt.
pub(super) const SOURCE_OPEN: &str = "<<<SOURCE\n";
/// The line that closes it (with the newline before it).
pub(super) const SOURCE_CLOSE: &str = "\nSOURCE>>>";

/// Where the compile prompt's source markers are: the byte offsets of [`SOURCE_OPEN`] and
/// of [`SOURCE_CLOSE`] (the first opening, the last closing), when both are there in that
/// order.
pub(super) fn source_region(message: &str) -> Option<(usize, usize)> {
    let open = message.find(SOURCE_OPEN)?;
    let close = message.rfind(SOURCE_CLOSE)?;
    (open + SOURCE_OPEN.len() <= close).then_some((open, close))
}

/// The kinds of block a page prompt holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BlockKind {
    /// `<<<PAGE` … `PAGE>>>`: the page as last written, or `(no page yet)`.
    Page,
    /// `<<<DIGEST source N: title` … `DIGEST>>>`: one source's digest as JSON.
    Digest,
    /// `<<<EXCERPT source N` … `EXCERPT>>>`: that source's own text.
    Excerpt,
}

impl BlockKind {
    const ALL: [BlockKind; 3] = [BlockKind::Page, BlockKind::Digest, BlockKind::Excerpt];

    fn marker(self) -> &'static str {
        match self {
            BlockKind::Page => "PAGE",
            BlockKind::Digest => "DIGEST",
            BlockKind::Excerpt => "EXCERPT",
        }
    }
}

/// One block of a page prompt.
#[derive(Debug)]
pub(super) struct Block<'a> {
    pub(super) kind: BlockKind,
    /// What follows the marker on the opening line (`source 12: Title`), trimmed.
    pub(super) header: &'a str,
    /// Everything between the opening line and the closing line, verbatim.
    pub(super) text: &'a str,
}

/// The blocks of a page prompt, in order. A block runs from its opening line to the first
/// line that is exactly its closing marker, so text inside it (JSON strings holding `<<<`
/// or `>>>`, another block's markers in a source's excerpt) never ends it early; a block
/// never closed is left out.
pub(super) fn blocks(message: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(BlockKind, &str, usize)> = None;
    let mut offset = 0;
    for line in message.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let bare = line.trim();
        match open {
            None => {
                open = bare.strip_prefix("<<<").and_then(|rest| {
                    BlockKind::ALL.into_iter().find_map(|kind| {
                        let header = rest.strip_prefix(kind.marker())?;
                        (header.is_empty() || header.starts_with(char::is_whitespace))
                            .then(|| (kind, header.trim(), offset))
                    })
                });
            }
            Some((kind, header, text_start)) => {
                if bare.strip_suffix(">>>") == Some(kind.marker()) {
                    let text = &message[text_start..line_start];
                    let text = text.strip_suffix('\n').unwrap_or(text);
                    let text = text.strip_suffix('\r').unwrap_or(text);
                    out.push(Block { kind, header, text });
                    open = None;
                }
            }
        }
    }
    out
}

/// The source a block header names: `source 12: Title` gives `12`.
pub(super) fn source_id(header: &str) -> &str {
    let rest = header.strip_prefix("source").unwrap_or(header).trim_start();
    let end = rest
        .find(|c: char| c == ':' || c.is_whitespace())
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The block's text parsed as a JSON object (`None` for anything else, `(no page yet)`
/// included).
pub(super) fn json_object(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text.trim())
        .ok()
        .filter(Value::is_object)
}

/// A string field with something in it.
pub(super) fn text_field<'a>(value: &'a Value, field: &str) -> Option<&'a str> {
    value[field].as_str().filter(|s| !s.trim().is_empty())
}

/// An old page's claim as the answer keeps it: its text, its confidence (`inferred` when
/// missing or not a contract name) and its quote; `None` for a claim without text.
pub(super) fn kept_claim(claim: &Value) -> Option<Value> {
    let said = text_field(claim, "claim")?;
    let confidence = claim["confidence"]
        .as_str()
        .filter(|c| matches!(*c, "sourced" | "inferred" | "opinion"))
        .unwrap_or("inferred");
    let quote = claim["quote"].as_str().map_or(Value::Null, Value::from);
    Some(json!({"claim": said, "confidence": confidence, "quote": quote}))
}

/// A quote as quotes are compared: whitespace collapsed, lower case.
pub(super) fn quote_key(quote: &str) -> String {
    quote
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The paragraphs of a markdown body: runs of non-blank lines, each line as written.
pub(super) fn paragraphs(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in body.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n"));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    out
}

/// Sentences of the text: runs ending in `.`, `!` or `?`, trimmed, each a verbatim slice.
pub(super) fn sentences(text: &str) -> Vec<String> {
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

/// [`compilation_answer`] with the source's links copied as written ([`Links::AsWritten`]).
pub fn compilation_answer_as_written(user_message: &str) -> String {
    let mut answer: Value =
        serde_json::from_str(&compilation_answer(user_message)).unwrap_or_else(|_| json!({}));
    let source = match source_region(user_message) {
        Some((open, close)) => &user_message[open + SOURCE_OPEN.len()..close],
        None => user_message,
    };
    let written = links_as_written(source);
    let insides: Vec<String> = written
        .iter()
        .map(|l| {
            l.trim_start_matches('!')
                .trim_start_matches("[[")
                .trim_end_matches("]]")
                .to_owned()
        })
        .collect();
    // A careful model titles a note as its author did, when the prompt says so.
    let given = user_message
        .lines()
        .find_map(|l| l.strip_prefix("Source title: "))
        .map(str::trim)
        .filter(|t| !t.is_empty() && *t != "(untitled)");
    if let Some(title) = given {
        answer["title"] = json!(title);
    }
    answer["backlink_suggestions"] = json!(written);
    answer["concepts"] = json!(insides.into_iter().take(8).collect::<Vec<_>>());
    answer.to_string()
}

/// The source's `[[links]]` and `![[embeds]]` as written, once each, in order.
pub(super) fn links_as_written(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = source;
    while let Some(open) = rest.find("[[") {
        let bang = rest[..open].ends_with('!');
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else { break };
        let inside = &after[..close];
        if !inside.contains('\n') && !inside.trim().is_empty() {
            let link = format!("{}[[{inside}]]", if bang { "!" } else { "" });
            if !out.contains(&link) {
                out.push(link);
            }
        }
        rest = &after[close + 2..];
    }
    out
}

/// The targets of the source's `[[wiki links]]` (`[[Target|shown]]` gives `Target`), once
/// each, in order.
pub(super) fn link_targets(source: &str) -> Vec<String> {
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
pub(super) fn terms(source: &str) -> Vec<String> {
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

pub(super) fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
