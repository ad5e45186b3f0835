//! Finding the value in a lenient answer: the fast path, extraction, the candidates where
//! a value may start, and which of the values read is the answer.

use serde_json::Value;

use crate::outcome::{self, Repair, RepairKind};
use crate::schema::Schema;
use crate::{extract, line_col, repair, Reason};

/// Reads the value in a lenient answer (no schema coercion yet): the fast path first, then
/// extraction and repair. Returns the value and whether it was cut off.
pub(crate) fn read_lenient(
    raw: &str,
    schema: &Schema,
    repairs: &mut Vec<Repair>,
) -> Result<(Value, bool), Reason> {
    if let Ok(v) = serde_json::from_str::<Value>(raw) {
        return Ok((v, false));
    }
    let text = extract::strip_preamble(raw, repairs);
    if text.trim().is_empty() {
        return Err(Reason::Empty);
    }
    let body = extract::unfence(text, repairs);
    if body.fenced || text.len() != raw.len() {
        if let Ok(v) = serde_json::from_str::<Value>(body.text) {
            return Ok((v, false));
        }
    }
    if let Some(text) = schema
        .root_accepts_text()
        .then(|| plain_text(body.text))
        .flatten()
    {
        repairs.push(Repair::new(RepairKind::UnquotedString, ""));
        return Ok((Value::String(text.to_string()), false));
    }
    let before = repairs.len();
    let found = find_value(raw, body.text, schema, repairs);
    // A fence closed too early: a raw newline in a string put a code block's closing
    // fence at the start of a line. When the value was cut off there, read on to the last
    // closing fence instead.
    if body.fenced && matches!(found, Ok((_, true))) {
        if let Some(wider) = extract::widen_fence(text, body.text) {
            let mut again = repairs[..before].to_vec();
            if let Ok((v, false)) = find_value(raw, wider, schema, &mut again) {
                *repairs = again;
                return Ok((v, false));
            }
        }
    }
    found
}

/// An answer of plain text, with nothing in it that reads as JSON (no bracket, no double
/// quote, not a single-quoted string): where the schema asks for text, the text is the
/// answer (`2 or 3`, `hello`).
fn plain_text(text: &str) -> Option<&str> {
    let t = text.trim();
    (!t.is_empty() && !t.contains(['{', '[', '"']) && !t.starts_with('\'')).then_some(t)
}

/// Whether `rest` holds nothing but whitespace and comments.
fn only_comments(rest: &str) -> bool {
    let mut rest = rest.trim_start();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            match after.find("*/") {
                Some(i) => rest = after[i + 2..].trim_start(),
                None => return true,
            }
        } else if rest.starts_with("//") || rest.starts_with("# ") || rest == "#" {
            match rest.find('\n') {
                Some(i) => rest = rest[i + 1..].trim_start(),
                None => return true,
            }
        } else {
            return false;
        }
    }
    true
}

/// Finds and reads the JSON value in `text` (a slice of `raw`).
fn find_value(
    raw: &str,
    text: &str,
    schema: &Schema,
    repairs: &mut Vec<Repair>,
) -> Result<(Value, bool), Reason> {
    let base = text.as_ptr() as usize - raw.as_ptr() as usize;
    let trimmed_at = text.len() - text.trim_start().len();
    let first = text.as_bytes().get(trimmed_at).copied();
    let mut starts: Vec<usize> = Vec::new();
    // An answer that starts with a scalar (or a string holding the JSON) is read from there.
    if matches!(first, Some(b'"' | b'\'' | b'-' | b'(' | b'0'..=b'9')) {
        starts.push(trimmed_at);
    }
    if starts.is_empty() && !text.contains(['{', '[']) {
        // `true`, `None`… on their own.
        if text[trimmed_at..].starts_with(['t', 'f', 'n', 'T', 'F', 'N']) {
            let mut local = Vec::new();
            if let Ok(read) = repair::read_value(text, trimmed_at, &mut local) {
                if text[read.end..].trim().is_empty() {
                    repairs.extend(local);
                    return Ok((read.value, read.truncated));
                }
            }
        }
        return Err(Reason::NoJson {
            begins: text.trim().chars().take(40).collect(),
        });
    }
    let wanted = schema.root_types();
    let mut first_error: Option<repair::SyntaxError> = None;
    // The best value read so far: (penalty, start, read, its repairs). Candidates are read
    // one after another without overlapping (brackets inside a value read are not
    // candidates of their own), at most `CANDIDATES` of them, so prose such as "the
    // article on [[Espresso]]" before the real object cannot take its place.
    let mut best: Option<(u8, usize, repair::Read, Vec<Repair>)> = None;
    // Where a complete object or array was read that is not the best value so far.
    let mut values_read: Vec<usize> = Vec::new();
    let mut from = 0;
    let mut tried = 0;
    while tried < CANDIDATES {
        let Some(start) = next_candidate(text, &starts, from) else {
            break;
        };
        tried += 1;
        let mut local = Vec::new();
        match repair::read_value(text, start, &mut local) {
            Ok(read) => {
                let penalty = penalty(text, start, &read, &local, wanted.as_deref(), trimmed_at);
                from = read.end.max(start + 1);
                if (read.value.is_object() || read.value.is_array())
                    && !read.truncated
                    && !local.iter().any(|r| r.kind == RepairKind::UnquotedString)
                {
                    values_read.push(start);
                }
                if best.as_ref().is_none_or(|b| penalty < b.0) {
                    let done = penalty == 0;
                    best = Some((penalty, start, read, local));
                    if done {
                        break;
                    }
                }
            }
            Err(e) => {
                // What starts inside a value that failed is a fragment of it, not the
                // answer (`{"value": [1,2,3]4}` is not `[1,2,3]`).
                from = (start + 1).max(e.offset);
                let stop = e.too_deep;
                if first_error.is_none() {
                    first_error = Some(e);
                }
                if stop {
                    break;
                }
            }
        }
    }
    if let Some((_, start, read, local)) =
        best.filter(|_| !first_error.as_ref().is_some_and(|e| e.too_deep))
    {
        // A scalar with more text after it (`1/5`, `2 or 3`, `"yes" or "no"`, `"a": 1`):
        // the text may change what it means, so no reading is sure.
        let scalar = !matches!(read.value, Value::Object(_) | Value::Array(_));
        if scalar && !only_comments(&text[read.end.min(text.len())..]) {
            let (line, column) = line_col(raw, base + read.end);
            return Err(Reason::Syntax {
                line,
                column,
                message: format!(
                    "{} is followed by more text, which may change what it means",
                    outcome::brief(&read.value)
                ),
            });
        }
        if values_read.iter().any(|&s| s < start) {
            repairs.push(Repair::new(RepairKind::DroppedRepeatedValue, ""));
        }
        finish_read(text, start, &read, repairs, local);
        return Ok((read.value, read.truncated));
    }
    let e = first_error.unwrap_or(repair::SyntaxError {
        offset: 0,
        message: "no JSON value found".into(),
        too_deep: false,
    });
    let (line, column) = line_col(raw, base + e.offset);
    Err(Reason::Syntax {
        line,
        column,
        message: e.message,
    })
}

/// How many values `find_value` reads at most before it takes the best one.
const CANDIDATES: usize = 8;

/// The next place a value may start at or after `from`: the answer's own start when it
/// begins with a scalar, else the next `{` or `[`.
fn next_candidate(text: &str, starts: &[usize], from: usize) -> Option<usize> {
    if let Some(&s) = starts.first() {
        if s >= from {
            return Some(s);
        }
    }
    let rest = text.get(from..)?;
    rest.find(['{', '[']).map(|i| from + i)
}

/// How poorly a value read at `start` fits as the answer (0 = take it at once): a value of
/// another shape than the schema asks for, a bracketed phrase of prose (`[[Espresso]]`,
/// `[see below]`: unquoted words), or a scalar followed by more prose ranks below a value
/// that is what was asked for.
fn penalty(
    text: &str,
    start: usize,
    read: &repair::Read,
    local: &[Repair],
    wanted: Option<&[&str]>,
    trimmed_at: usize,
) -> u8 {
    let v = &read.value;
    let shape = match wanted {
        Some(ts) if holds(v, ts, 0) => 0,
        Some(_) => 4,
        None if v.is_object() || v.is_array() => 0,
        None if start == trimmed_at => 0,
        None => 4,
    };
    let prose = local.iter().any(|r| r.kind == RepairKind::UnquotedString)
        || (!v.is_object() && !v.is_array() && !text[read.end.min(text.len())..].trim().is_empty());
    shape + u8::from(prose)
}

/// Whether `v` is of one of the `types`, or can become one: an array holding such a value
/// (a wrapped answer), or a string holding JSON (a double-encoded answer).
fn holds(v: &Value, types: &[&str], depth: u8) -> bool {
    if types.iter().any(|t| json_type_fits(v, t)) {
        return true;
    }
    match v {
        Value::Array(items) if depth < 4 => items.iter().any(|i| holds(i, types, depth + 1)),
        Value::String(s) => s.trim_start().starts_with(['{', '[']),
        _ => false,
    }
}

fn finish_read(
    text: &str,
    start: usize,
    read: &repair::Read,
    repairs: &mut Vec<Repair>,
    local: Vec<Repair>,
) {
    if !text[..start].trim().is_empty() {
        repairs.push(Repair::new(RepairKind::SkippedLeadingText, ""));
    }
    repairs.extend(local);
    note_trailing(text, read.end, repairs);
}

/// Records what follows the value, if anything does.
pub(crate) fn note_trailing(text: &str, end: usize, repairs: &mut Vec<Repair>) {
    let rest = text[end.min(text.len())..].trim();
    if !rest.is_empty() {
        let kind = if rest.starts_with(['{', '[']) {
            RepairKind::DroppedRepeatedValue
        } else {
            RepairKind::SkippedTrailingText
        };
        repairs.push(Repair::new(kind, ""));
    }
}

fn json_type_fits(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" | "integer" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// Reads any JSON value leniently with no schema: used to decode a string holding JSON.
pub(crate) fn read_lenient_value(text: &str) -> Option<Value> {
    let mut repairs = Vec::new();
    read_lenient(text, &Schema::any(), &mut repairs)
        .ok()
        .map(|(v, _)| v)
}
