//! Incremental parsing while a model is still writing.
//!
//! [`JsonlStream`] emits each complete `jsonl` object as soon as its line ends;
//! [`JsonStream`] exposes the fields of a JSON object known so far (the title, the first
//! part of the body) so a UI can show progress.

use serde_json::Value;

use crate::outcome::{JsonlOutcome, LineWarning, Outcome, Repair};
use crate::{jsonl_line, LineFailure, Mode, Schema};

/// Something a [`JsonlStream`] learned from a chunk.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonlEvent {
    /// A complete object that validated.
    Object(Value),
    /// A line that was skipped, and why.
    Skipped(LineWarning),
}

/// A `jsonl` parser fed chunks as they arrive.
#[derive(Debug, Clone)]
pub struct JsonlStream {
    schema: Schema,
    mode: Mode,
    buf: String,
    /// Start of the unfinished line in `buf`.
    line_start: usize,
    /// Where to resume looking for a newline.
    scanned: usize,
    line_no: usize,
    out: JsonlOutcome,
    finished: bool,
}

impl JsonlStream {
    /// A stream validating each object against `schema`.
    pub fn new(schema: Schema, mode: Mode) -> JsonlStream {
        JsonlStream {
            schema,
            mode,
            buf: String::new(),
            line_start: 0,
            scanned: 0,
            line_no: 0,
            out: JsonlOutcome {
                values: Vec::new(),
                repairs: Vec::new(),
                warnings: Vec::new(),
                truncated: false,
            },
            finished: false,
        }
    }

    /// Feeds a chunk; returns what every line completed by it yielded.
    pub fn push(&mut self, chunk: &str) -> Vec<JsonlEvent> {
        let mut events = Vec::new();
        if self.finished {
            return events;
        }
        self.buf.push_str(chunk);
        while let Some(i) = crate::repair::memchr(b'\n', &self.buf.as_bytes()[self.scanned..]) {
            let end = self.scanned + i;
            let line = self.buf[self.line_start..end].to_string();
            self.line_start = end + 1;
            self.scanned = end + 1;
            self.line(&line, true, &mut events);
        }
        self.scanned = self.buf.len();
        // Keep the buffer to the unfinished line.
        if self.line_start > 4096 && self.line_start * 2 > self.buf.len() {
            self.buf.drain(..self.line_start);
            self.scanned -= self.line_start;
            self.line_start = 0;
        }
        events
    }

    /// Ends the stream: a last line without a final newline is kept when it is complete
    /// JSON and dropped (with a warning) when it was cut off.
    pub fn finish(&mut self) -> Vec<JsonlEvent> {
        let mut events = Vec::new();
        if self.finished {
            return events;
        }
        self.finished = true;
        let rest = self.buf[self.line_start..].to_string();
        self.buf.clear();
        self.line_start = 0;
        self.scanned = 0;
        if !rest.trim().is_empty() {
            self.line(&rest, false, &mut events);
        }
        events
    }

    /// Everything kept and skipped so far.
    pub fn outcome(&self) -> &JsonlOutcome {
        &self.out
    }

    /// The final outcome.
    pub fn into_outcome(self) -> JsonlOutcome {
        self.out
    }

    fn line(&mut self, line: &str, complete: bool, events: &mut Vec<JsonlEvent>) {
        self.line_no += 1;
        let t = line.trim();
        if t.is_empty() || t.starts_with("```") {
            return;
        }
        match jsonl_line(t, complete, &self.schema, self.mode) {
            Ok((value, repairs)) => {
                let index = self.out.values.len();
                self.out.repairs.extend(
                    repairs
                        .into_iter()
                        .map(|r| Repair::new(r.kind, format!("/{index}{}", r.path))),
                );
                self.out.values.push(value.clone());
                events.push(JsonlEvent::Object(value));
            }
            Err(LineFailure::Bad(reason)) => {
                let w = LineWarning {
                    line: self.line_no,
                    reason,
                };
                self.out.warnings.push(w.clone());
                events.push(JsonlEvent::Skipped(w));
            }
            Err(LineFailure::CutOff) => {
                self.out.truncated = true;
                let w = LineWarning {
                    line: self.line_no,
                    reason: "cut off before the object was complete; dropped".into(),
                };
                self.out.warnings.push(w.clone());
                events.push(JsonlEvent::Skipped(w));
            }
        }
    }
}

/// A JSON answer fed chunks as they arrive, exposing the fields known so far.
#[derive(Debug, Clone, Default)]
pub struct JsonStream {
    buf: String,
    parsed_len: usize,
    partial: Option<Value>,
    /// Whether the partial value was closed by the engine (the last field may be unfinished).
    open: bool,
}

impl JsonStream {
    /// An empty stream.
    pub fn new() -> JsonStream {
        JsonStream::default()
    }

    /// Feeds a chunk. Returns true when the partial value was refreshed. Re-reading is
    /// spaced out geometrically, so the total work stays linear in the answer's length.
    pub fn push(&mut self, chunk: &str) -> bool {
        self.buf.push_str(chunk);
        let step = (self.parsed_len / 8).max(32);
        if self.buf.len() < self.parsed_len + step {
            return false;
        }
        self.refresh();
        true
    }

    /// Re-reads the answer so far now.
    pub fn refresh(&mut self) {
        self.parsed_len = self.buf.len();
        let mut repairs = Vec::new();
        if let Ok((value, truncated)) = crate::read_lenient(&self.buf, &Schema::any(), &mut repairs)
        {
            self.partial = Some(value);
            self.open = truncated;
        }
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.buf
    }

    /// The value as far as it is known (strings being written are cut where they stand).
    pub fn partial(&self) -> Option<&Value> {
        self.partial.as_ref()
    }

    /// A top-level field whose value is complete (not the one still being written).
    pub fn complete_field(&self, key: &str) -> Option<&Value> {
        let obj = self.partial.as_ref()?.as_object()?;
        let value = obj.get(key)?;
        if self.open && obj.keys().next_back().map(String::as_str) == Some(key) {
            return None;
        }
        Some(value)
    }

    /// Parses the whole answer once it is complete.
    pub fn finish(&self, schema: &Schema, mode: Mode) -> Result<Outcome, crate::Error> {
        crate::parse_json(&self.buf, schema, mode)
    }
}
