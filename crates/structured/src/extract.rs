//! Finding the JSON in what models actually send: a BOM, `<think>` blocks, code fences,
//! prose before and after.

use crate::outcome::{Repair, RepairKind};
use crate::repair::find;

/// The answer with the wrapping a model put around it removed, as a slice of the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Body<'a> {
    /// The text in which to look for the JSON.
    pub text: &'a str,
    /// Whether the text came out of a code fence.
    pub fenced: bool,
}

/// Strips a BOM and leading reasoning blocks; returns the rest.
pub(crate) fn strip_preamble<'a>(raw: &'a str, repairs: &mut Vec<Repair>) -> &'a str {
    let mut text = raw;
    if let Some(rest) = text.strip_prefix('\u{FEFF}') {
        repairs.push(Repair::new(RepairKind::StrippedBom, ""));
        text = rest;
    }
    // Reasoning models open with one or more think blocks; an unclosed one means the
    // answer is all reasoning.
    loop {
        let trimmed = text.trim_start();
        let Some((open, close)) = [("<think>", "</think>"), ("<thinking>", "</thinking>")]
            .into_iter()
            .find(|(open, _)| trimmed.starts_with(open))
        else {
            break;
        };
        repairs.push(Repair::new(RepairKind::RemovedThinkBlock, ""));
        let after_open = &trimmed[open.len()..];
        text = match find(after_open.as_bytes(), close.as_bytes()) {
            Some(i) => &after_open[i + close.len()..],
            None => "",
        };
    }
    text
}

/// Takes the content of the first code fence that holds JSON, if the answer has one.
pub(crate) fn unfence<'a>(text: &'a str, repairs: &mut Vec<Repair>) -> Body<'a> {
    // An answer that already starts with JSON is not fenced; fences inside it belong to
    // its markdown strings.
    if matches!(
        text.trim_start().as_bytes().first(),
        Some(b'{' | b'[' | b'"')
    ) {
        return Body {
            text,
            fenced: false,
        };
    }
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = find(&bytes[from..], b"```") {
        let start = from + i;
        // The info string runs to the end of the line.
        let line_end = match crate::repair::memchr(b'\n', &bytes[start..]) {
            Some(j) => start + j,
            None => bytes.len(),
        };
        let info = text[start + 3..line_end].trim();
        let lang_ok = info.is_empty()
            || info.eq_ignore_ascii_case("json")
            || info.eq_ignore_ascii_case("jsonl")
            || info.eq_ignore_ascii_case("json5")
            || info.eq_ignore_ascii_case("javascript")
            || info.eq_ignore_ascii_case("js");
        let content_start = (line_end + 1).min(bytes.len());
        let (content_end, next) = match closing_fence(bytes, content_start) {
            Some(j) => (j, j + 3),
            None => (bytes.len(), bytes.len()),
        };
        let content = &text[content_start..content_end];
        let first = content.trim_start().as_bytes().first().copied();
        if lang_ok && matches!(first, Some(b'{') | Some(b'[')) {
            repairs.push(Repair::new(RepairKind::RemovedCodeFence, ""));
            return Body {
                text: content,
                fenced: true,
            };
        }
        if next >= bytes.len() {
            break;
        }
        from = next;
    }
    Body {
        text,
        fenced: false,
    }
}

/// The offset of the fence that closes a code block whose content starts at `from`: the
/// first "```" that begins a line (after optional spaces). A "```" elsewhere on a line is
/// content: JSON strings holding markdown code blocks write their newlines as `\n`.
fn closing_fence(bytes: &[u8], from: usize) -> Option<usize> {
    // One forward pass: `at_line_start` holds while only spaces follow the last newline.
    let mut at_line_start = true;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => at_line_start = true,
            b' ' | b'\t' => {}
            b'`' if at_line_start && bytes[i..].starts_with(b"```") => return Some(i),
            _ => at_line_start = false,
        }
        i += 1;
    }
    None
}

/// The fenced `content` (a slice of `text`) widened to the last closing fence of `text`
/// (or to its end when there is none); `None` when that is no wider.
pub(crate) fn widen_fence<'a>(text: &'a str, content: &str) -> Option<&'a str> {
    let start = content.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + content.len();
    let bytes = text.as_bytes();
    let mut last = None;
    let mut from = end;
    while let Some(i) = closing_fence(bytes, from) {
        last = Some(i);
        from = i + 3;
    }
    let wider_end = match last {
        Some(i) if i > end => i,
        Some(_) => return None,
        None => text.len(),
    };
    (wider_end > end).then(|| &text[start..wider_end])
}

/// Byte offsets where a JSON object or array may start, in order, at most `limit` of them.
pub(crate) fn candidates(text: &str, limit: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, c) in text.bytes().enumerate() {
        if c == b'{' || c == b'[' {
            out.push(i);
            if out.len() >= limit {
                break;
            }
        }
    }
    out
}
