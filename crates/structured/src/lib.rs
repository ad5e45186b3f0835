//! Structured output engine: every model answer becomes valid data or a clear reason.
//!
//! It takes a JSON Schema and a raw answer and does no IO. Three response types:
//!
//! - `text`: the answer as is ([`parse_text`]);
//! - `json`: one value, validated against the schema ([`parse_json`]);
//! - `jsonl`: one object per line, each validated against a per-object schema, bad lines
//!   skipped with a warning ([`parse_jsonl`]).
//!
//! In [`Mode::Lenient`] (the default for model output) the engine finds the JSON in what
//! models actually send (a BOM, `<think>` blocks, code fences, prose around it), repairs
//! what is broken where the intent is clear, and coerces the value toward the schema; every
//! change is recorded as a [`Repair`]. [`Mode::Strict`] accepts only RFC 8259 JSON that
//! validates. Neither mode invents a required field that has no declared default.
//!
//! ```
//! use wikimind_structured::{parse_json, Mode, Schema};
//! let schema = Schema::from_json(r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#).unwrap();
//! let out = parse_json("Sure! ```json\n{'ok': True,}\n```", &schema, Mode::Lenient).unwrap();
//! assert_eq!(out.value, serde_json::json!({"ok": true}));
//! assert!(out.was_repaired());
//! ```
#![deny(missing_docs)]

mod extract;
mod outcome;
mod repair;
mod schema;
mod stream;

use serde_json::Value;

pub use outcome::{JsonlOutcome, LineWarning, Outcome, Repair, RepairKind};
pub use schema::{Schema, SchemaError, Violation};
pub use stream::{JsonStream, JsonlEvent, JsonlStream};

/// How forgiving the engine is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Only valid JSON (RFC 8259) that validates; nothing repaired or coerced.
    Strict,
    /// Extract, repair and coerce where the intent is clear, recording every change.
    #[default]
    Lenient,
}

/// What shape of answer a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResponseType {
    /// The answer as is.
    Text,
    /// One JSON value.
    #[default]
    Json,
    /// One JSON object per line.
    Jsonl,
}

impl std::str::FromStr for ResponseType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(ResponseType::Text),
            "json" => Ok(ResponseType::Json),
            "jsonl" => Ok(ResponseType::Jsonl),
            other => Err(format!(
                "unknown response type {other:?} (expected text, json or jsonl)"
            )),
        }
    }
}

/// Why an answer could not be turned into valid data.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// The answer is empty (or only whitespace, or only a reasoning block).
    Empty,
    /// No JSON value could be found in the answer.
    NoJson {
        /// The first characters of the answer, to say what was there instead.
        begins: String,
    },
    /// The JSON is broken in a way that cannot be repaired (or, in strict mode, at all).
    Syntax {
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1, in characters.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The value does not match the schema.
    Invalid(Vec<Violation>),
}

/// An answer that could not be made valid: the reason, and what was done before giving up.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// Why the answer was rejected.
    pub reason: Reason,
    /// Repairs applied before the engine gave up.
    pub repairs: Vec<Repair>,
    /// Whether the answer was cut off.
    pub truncated: bool,
}

impl Error {
    fn new(reason: Reason, repairs: Vec<Repair>, truncated: bool) -> Error {
        Error {
            reason,
            repairs,
            truncated,
        }
    }

    /// The schema violations, when that is the reason.
    pub fn violations(&self) -> &[Violation] {
        match &self.reason {
            Reason::Invalid(v) => v,
            _ => &[],
        }
    }

    /// One line per problem, for a person (and for feeding back to a model).
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.truncated {
            out.push("the answer was cut off before it was complete".to_string());
        }
        match &self.reason {
            Reason::Empty => out.push("the answer is empty".into()),
            Reason::NoJson { begins } => out.push(format!(
                "no JSON value found in the answer (it begins: {begins:?})"
            )),
            Reason::Syntax {
                line,
                column,
                message,
            } => out.push(format!(
                "invalid JSON at line {line}, column {column}: {message}"
            )),
            Reason::Invalid(violations) => out.extend(violations.iter().map(ToString::to_string)),
        }
        out
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.lines().join("\n"))
    }
}

impl std::error::Error for Error {}

/// The result of [`parse`] for any response type.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A `text` answer.
    Text(String),
    /// A `json` answer.
    Json(Outcome),
    /// A `jsonl` answer.
    Jsonl(JsonlOutcome),
}

/// Parses an answer of any response type. Only `json` can fail; `jsonl` reports bad lines
/// as warnings and `text` is taken as is.
pub fn parse(
    raw: &str,
    response: ResponseType,
    schema: &Schema,
    mode: Mode,
) -> Result<Parsed, Error> {
    match response {
        ResponseType::Text => Ok(Parsed::Text(parse_text(raw))),
        ResponseType::Json => parse_json(raw, schema, mode).map(Parsed::Json),
        ResponseType::Jsonl => Ok(Parsed::Jsonl(parse_jsonl(raw, schema, mode))),
    }
}

/// Parses raw bytes: in strict mode bytes that are not UTF-8 are an error; in lenient mode
/// they are replaced (and the repair recorded).
pub fn decode(bytes: &[u8], mode: Mode) -> Result<(std::borrow::Cow<'_, str>, Vec<Repair>), Error> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok((std::borrow::Cow::Borrowed(s), Vec::new())),
        Err(e) if mode == Mode::Strict => {
            let (line, column) = line_col(
                &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
                e.valid_up_to(),
            );
            Err(Error::new(
                Reason::Syntax {
                    line,
                    column,
                    message: "the answer is not valid UTF-8".into(),
                },
                Vec::new(),
                false,
            ))
        }
        Err(_) => Ok((
            String::from_utf8_lossy(bytes),
            vec![Repair::new(RepairKind::ReplacedInvalidUtf8, "")],
        )),
    }
}

/// A `text` answer: the answer as is.
pub fn parse_text(raw: &str) -> String {
    raw.to_string()
}

/// Turns one answer into one value valid against `schema`, or a clear reason why not.
pub fn parse_json(raw: &str, schema: &Schema, mode: Mode) -> Result<Outcome, Error> {
    let mut repairs = Vec::new();
    let (mut value, truncated) = match mode {
        Mode::Strict => match serde_json::from_str::<Value>(raw) {
            Ok(v) => (v, false),
            Err(e) => return Err(Error::new(serde_reason(raw, &e), repairs, false)),
        },
        Mode::Lenient => match read_lenient(raw, schema, &mut repairs) {
            Ok(read) => read,
            Err(reason) => return Err(Error::new(reason, repairs, false)),
        },
    };
    if mode == Mode::Lenient {
        schema.coerce(&mut value, &mut repairs);
        let unsure = unconfirmed(schema, &value, &repairs);
        if !unsure.is_empty() {
            return Err(Error::new(Reason::Invalid(unsure), repairs, truncated));
        }
    }
    let violations = schema.validate(&value);
    if !violations.is_empty() {
        return Err(Error::new(Reason::Invalid(violations), repairs, truncated));
    }
    let mut warnings = Vec::new();
    if truncated {
        warnings.push(
            "the answer was cut off; it was closed where it ended, so its last field may be incomplete"
                .to_string(),
        );
    }
    if repairs
        .iter()
        .any(|r| r.kind == RepairKind::DroppedRepeatedValue)
    {
        warnings.push(
            "more than one JSON value was sent; only the first that fits the schema was kept"
                .to_string(),
        );
    }
    if repairs
        .iter()
        .any(|r| r.kind == RepairKind::RemovedEllipsis)
    {
        warnings.push(
            "the answer elided items with an ellipsis (...); only the items written out are in the value"
                .to_string(),
        );
    }
    Ok(Outcome {
        value,
        repairs,
        warnings,
        truncated,
    })
}

/// Readings the reader could only make tentatively, that the schema does not confirm.
fn unconfirmed(schema: &Schema, value: &Value, repairs: &[Repair]) -> Vec<Violation> {
    let mut out = unconfirmed_digit_groups(schema, repairs);
    out.extend(unconfirmed_words(schema, value, repairs));
    out
}

/// `12,111` read as one number is only sure where the schema asks for a number: anywhere
/// else the digits may be several values, and the answer is refused, naming where.
fn unconfirmed_digit_groups(schema: &Schema, repairs: &[Repair]) -> Vec<Violation> {
    repairs
        .iter()
        .filter(|r| r.kind == RepairKind::JoinedDigitGroups && !schema.expects_number_at(&r.path))
        .map(|r| Violation {
            path: r.path.clone(),
            message: "digits with commas between them may be one number written with thousands separators or several values, and the schema does not say a number is expected here".into(),
        })
        .collect()
}

/// A bare word that may be a misspelt literal (`fals`, `none`, `TRUE`, `undefined`) is
/// only sure to be text where the schema asks for text (or turned it into the boolean
/// asked for): anywhere else the answer is refused, naming where.
fn unconfirmed_words(schema: &Schema, value: &Value, repairs: &[Repair]) -> Vec<Violation> {
    repairs
        .iter()
        .filter(|r| r.kind == RepairKind::UnquotedString)
        .filter_map(|r| {
            let word = value.pointer(&r.path)?.as_str()?;
            (literal_like(word) && !schema.expects_text_at(&r.path)).then(|| Violation {
                path: r.path.clone(),
                message: format!(
                    "the bare word {word:?} may be a misspelt literal (true, false, null) or text, and the schema does not say text is expected here"
                ),
            })
        })
        .collect()
}

/// Spellings of literals from other languages, other cases, or cut short.
fn literal_like(word: &str) -> bool {
    let w = word.trim().to_ascii_lowercase();
    let w = w.trim_start_matches(['+', '-']);
    let spelled = [
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "nan",
        "infinity",
        "inf",
    ]
    .contains(&w);
    let cut = w.len() >= 3
        && w.len() < 5
        && ["true", "false", "null"]
            .iter()
            .any(|l| l.starts_with(w) && *l != w);
    spelled || cut
}

/// Reads the value in a lenient answer (no schema coercion yet): the fast path first, then
/// extraction and repair. Returns the value and whether it was cut off.
fn read_lenient(
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
fn note_trailing(text: &str, end: usize, repairs: &mut Vec<Repair>) {
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

fn serde_reason(raw: &str, e: &serde_json::Error) -> Reason {
    if raw.trim().is_empty() {
        return Reason::Empty;
    }
    let message = e.to_string();
    // serde_json appends " at line L column C"; we report those separately.
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    Reason::Syntax {
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// Line and column (both from 1, column in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Parses a `jsonl` answer: every line that parses and validates against `schema` (the
/// schema of one object), in order. Bad lines are skipped with a warning; a last line cut
/// off mid-object is dropped; an answer that is a JSON array of objects is taken as its
/// elements; an empty answer is an empty list.
pub fn parse_jsonl(raw: &str, schema: &Schema, mode: Mode) -> JsonlOutcome {
    let mut whole = Vec::new();
    let text = match mode {
        Mode::Lenient => extract::strip_preamble(raw, &mut whole),
        Mode::Strict => raw,
    };
    if text.trim_start().starts_with('[') {
        if let Some(out) = jsonl_from_array(text, schema, mode, &whole) {
            return out;
        }
    }
    let mut stream = JsonlStream::new(schema.clone(), mode);
    stream.push(text);
    stream.finish();
    let mut out = stream.into_outcome();
    whole.append(&mut out.repairs);
    out.repairs = whole;
    out
}

/// A `jsonl` answer written as one JSON array of objects.
fn jsonl_from_array(
    text: &str,
    schema: &Schema,
    mode: Mode,
    whole: &[Repair],
) -> Option<JsonlOutcome> {
    let mut repairs = whole.to_vec();
    let items = match mode {
        Mode::Strict => serde_json::from_str::<Value>(text).ok()?,
        Mode::Lenient => {
            let (v, _) = read_lenient(text, &Schema::any(), &mut repairs).ok()?;
            v
        }
    };
    let Value::Array(items) = items else {
        return None;
    };
    if items.is_empty() || !items.iter().all(Value::is_object) {
        return None;
    }
    let mut out = JsonlOutcome {
        values: Vec::new(),
        repairs,
        warnings: Vec::new(),
        truncated: false,
    };
    for (i, mut item) in items.into_iter().enumerate() {
        let mut local = Vec::new();
        let mut violations = Vec::new();
        if mode == Mode::Lenient {
            schema.coerce(&mut item, &mut local);
            let mut item_repairs: Vec<Repair> = out
                .repairs
                .iter()
                .filter_map(|r| {
                    let rest = r.path.strip_prefix(&format!("/{i}"))?;
                    (rest.is_empty() || rest.starts_with('/')).then(|| Repair::new(r.kind, rest))
                })
                .collect();
            item_repairs.extend(local.iter().cloned());
            violations = unconfirmed(schema, &item, &item_repairs);
        }
        violations.extend(schema.validate(&item));
        if violations.is_empty() {
            let index = out.values.len();
            out.repairs.extend(
                local
                    .into_iter()
                    .map(|r| Repair::new(r.kind, format!("/{index}{}", r.path))),
            );
            out.values.push(item);
        } else {
            out.warnings.push(LineWarning {
                line: i + 1,
                reason: format!("array item {}: {}", i + 1, join_violations(&violations)),
            });
        }
    }
    Some(out)
}

pub(crate) fn join_violations(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// One line of a `jsonl` answer. `complete` is false for a last line that did not end with
/// a newline (it may have been cut off).
pub(crate) fn jsonl_line(
    line: &str,
    complete: bool,
    schema: &Schema,
    mode: Mode,
) -> Result<(Value, Vec<Repair>), LineFailure> {
    let t = line.trim();
    let mut repairs = Vec::new();
    let value = match serde_json::from_str::<Value>(t) {
        Ok(v) => v,
        Err(e) if mode == Mode::Strict => {
            return Err(if complete {
                LineFailure::Bad(format!("not valid JSON: {}", strip_at(&e.to_string())))
            } else {
                LineFailure::CutOff
            })
        }
        Err(_) => {
            let starts = extract::candidates(t, 4);
            let Some(&start) = starts
                .iter()
                .find(|&&s| t.as_bytes()[s] == b'{')
                .or(starts.first())
            else {
                return Err(if complete {
                    LineFailure::Bad("not JSON".into())
                } else {
                    LineFailure::CutOff
                });
            };
            match repair::read_value(t, start, &mut repairs) {
                Ok(read) if read.truncated => {
                    return Err(if complete {
                        LineFailure::Bad("incomplete JSON object".into())
                    } else {
                        LineFailure::CutOff
                    })
                }
                Ok(read) => {
                    if !t[..start].trim().is_empty() {
                        repairs.insert(0, Repair::new(RepairKind::SkippedLeadingText, ""));
                    }
                    note_trailing(t, read.end, &mut repairs);
                    read.value
                }
                Err(e) => {
                    return Err(if complete {
                        LineFailure::Bad(format!("not valid JSON: {}", e.message))
                    } else {
                        LineFailure::CutOff
                    })
                }
            }
        }
    };
    let mut value = value;
    if !value.is_object() {
        return Err(LineFailure::Bad(format!(
            "expected a JSON object, found {}",
            outcome::brief(&value)
        )));
    }
    let mut violations = Vec::new();
    if mode == Mode::Lenient {
        schema.coerce(&mut value, &mut repairs);
        violations = unconfirmed(schema, &value, &repairs);
    }
    violations.extend(schema.validate(&value));
    if !violations.is_empty() {
        return Err(LineFailure::Bad(join_violations(&violations)));
    }
    Ok((value, repairs))
}

/// Why a `jsonl` line was not kept.
pub(crate) enum LineFailure {
    /// The line is bad (skipped with a warning).
    Bad(String),
    /// The last line was cut off (dropped).
    CutOff,
}

fn strip_at(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}
