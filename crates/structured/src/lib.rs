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
//! change is recorded as a [`Repair`]. Where more than one reading is plausible (`2 or 3`
//! for a number, `12,111` with no schema asking for a number, a word between members) it
//! refuses with a reason that says where: a refusal is honest, a different value that
//! succeeds is not. [`Mode::Strict`] accepts only RFC 8259 JSON that validates. Neither
//! mode invents a required field that has no declared default.
//!
//! Modules: `extract` and `locate` find the value in an answer, `repair` reads it,
//! `confirm` keeps tentative readings only where the schema confirms them, `schema`
//! validates and coerces, `jsonl` and `stream` handle line-wise and streamed answers,
//! `outcome` is what every parse reports.
//!
//! ```
//! use wikimind_structured::{parse_json, Mode, Schema};
//! let schema = Schema::from_json(r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#).unwrap();
//! let out = parse_json("Sure! ```json\n{'ok': True,}\n```", &schema, Mode::Lenient).unwrap();
//! assert_eq!(out.value, serde_json::json!({"ok": true}));
//! assert!(out.was_repaired());
//! ```
#![deny(missing_docs)]

mod confirm;
mod extract;
mod jsonl;
mod locate;
mod outcome;
mod repair;
mod schema;
mod stream;

use serde_json::Value;

use confirm::unconfirmed;

pub use jsonl::parse_jsonl;
pub use outcome::{JsonlOutcome, LineWarning, Outcome, Repair, RepairKind};
pub use schema::{Schema, SchemaError, Violation};
pub use stream::{JsonStream, JsonlEvent, JsonlStream};

pub(crate) use jsonl::{jsonl_line, LineFailure};
pub(crate) use locate::{read_lenient, read_lenient_value};

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

/// Decodes raw bytes ([`decode`]) and parses them ([`parse`]): an answer as it arrives from
/// a file or a pipe. Repairs made while decoding come first in the outcome's repairs.
pub fn parse_bytes(
    bytes: &[u8],
    response: ResponseType,
    schema: &Schema,
    mode: Mode,
) -> Result<Parsed, Error> {
    let (text, mut repairs) = decode(bytes, mode)?;
    let mut parsed = parse(&text, response, schema, mode)?;
    match &mut parsed {
        Parsed::Text(_) => {}
        Parsed::Json(outcome) => {
            repairs.append(&mut outcome.repairs);
            outcome.repairs = repairs;
        }
        Parsed::Jsonl(outcome) => {
            repairs.append(&mut outcome.repairs);
            outcome.repairs = repairs;
        }
    }
    Ok(parsed)
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
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_are_repaired_first_then_the_json() {
        let parsed = parse_bytes(
            b"{'name': 'caf\xe9'}",
            ResponseType::Json,
            &Schema::any(),
            Mode::Lenient,
        )
        .expect("repaired");
        let Parsed::Json(outcome) = parsed else {
            panic!("a json outcome");
        };
        assert_eq!(outcome.value["name"], "caf\u{fffd}");
        assert_eq!(outcome.repairs[0].kind, RepairKind::ReplacedInvalidUtf8);
        assert!(outcome.repairs.len() > 1, "the quotes were repaired too");
    }

    #[test]
    fn bytes_that_are_not_utf8_fail_in_strict_mode() {
        let err = parse_bytes(
            b"{\"a\": \"\xe9\"}",
            ResponseType::Json,
            &Schema::any(),
            Mode::Strict,
        )
        .expect_err("strict");
        assert!(err.lines()[0].contains("not valid UTF-8"), "{err}");
    }

    #[test]
    fn a_jsonl_answer_fails_only_when_it_had_lines_and_none_was_valid() {
        let jsonl = |text: &str| match parse_bytes(
            text.as_bytes(),
            ResponseType::Jsonl,
            &Schema::any(),
            Mode::Lenient,
        ) {
            Ok(Parsed::Jsonl(outcome)) => outcome,
            other => panic!("a jsonl outcome: {other:?}"),
        };
        assert!(jsonl("not json\nnor this\n").no_line_valid());
        assert!(
            !jsonl("").no_line_valid(),
            "an empty answer is an empty list"
        );
        assert!(!jsonl("{\"a\": 1}\nnot json\n").no_line_valid());
    }
}
