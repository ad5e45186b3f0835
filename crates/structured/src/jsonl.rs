//! `jsonl` answers: one object per line, or a JSON array of objects.

use serde_json::Value;

use crate::confirm::unconfirmed;
use crate::locate::{note_trailing, read_lenient};
use crate::outcome::{self, JsonlOutcome, LineWarning, Repair, RepairKind};
use crate::schema::{Schema, Violation};
use crate::{extract, repair, JsonlStream, Mode};

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
