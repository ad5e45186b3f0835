//! The lenient JSON reader: reads what a model meant, records every repair.
//!
//! It is an iterative state machine over bytes with an explicit stack (no recursion, so
//! 100 000 open brackets cannot overflow the stack; nesting is capped like `serde_json`'s),
//! every step moves forward (look-ahead is bounded), so it runs in linear time on any
//! input.
//!
//! A repair is made only where one reading is plausible; where two are (`2 or 3` after a
//! value, a word that is neither a key nor a value) the reader stops with an error that
//! says where. This module holds the state machine and its containers; strings, numbers
//! and look-ahead decisions live in the submodules.

mod bytes;
mod lookahead;
mod numbers;
mod strings;

use serde_json::{Map, Value};

use crate::outcome::{push_pointer, Repair, RepairKind};
use bytes::{ellipsis_at, is_closer, is_word_byte, is_ws, printable, unicode_space_at};
pub(crate) use bytes::{find, memchr};
use lookahead::literal_at;
pub(crate) use numbers::number_from_f64;
use numbers::NumberToken;
use strings::curly_quote_at;

/// Deepest nesting accepted, the same limit `serde_json` applies in strict mode: its
/// recursion limit of 128 fails on the 128th open bracket, so 127 levels are accepted.
pub(crate) const MAX_DEPTH: usize = 127;

/// A value read by [`read_value`], with where it ended in the input.
#[derive(Debug)]
pub(crate) struct Read {
    pub value: Value,
    /// Byte offset just after the value.
    pub end: usize,
    /// Whether the input ended inside the value and the engine closed it.
    pub truncated: bool,
}

/// Why the lenient reader gave up, with the byte offset where it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub offset: usize,
    pub message: String,
    /// The value nests deeper than the limit: no other reading of the text is tried (a
    /// fragment from inside it would not be what the model meant).
    pub too_deep: bool,
}

enum Frame {
    Object {
        map: Map<String, Value>,
        key: Option<String>,
    },
    /// An array, or a Python tuple (closed by `)`) or set (closed by `}`) read as one.
    Array { items: Vec<Value>, closer: u8 },
}

impl Frame {
    fn closer(&self) -> u8 {
        match self {
            Frame::Object { .. } => b'}',
            Frame::Array { closer, .. } => *closer,
        }
    }

    fn array(closer: u8) -> Frame {
        Frame::Array {
            items: Vec::new(),
            closer,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// A value is expected.
    Value,
    /// Just after `{`: a key or `}`.
    FirstKey,
    /// After a comma in an object: a key (or `}` after a trailing comma).
    NextKey,
    /// Just after `[`: a value or `]`.
    FirstItem,
    /// After a comma in an array: a value (or `]` after a trailing comma).
    NextItem,
    /// After a complete value inside a container: `,` or the closer.
    After,
}

/// Where a string stands, which decides what may follow its closing quote.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    Key,
    ObjectValue,
    ArrayItem,
}

struct Reader<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    stack: Vec<Frame>,
    repairs: &'a mut Vec<Repair>,
    truncated: bool,
}

/// Reads one JSON value starting at `start` (which must point at `{`, `[`, `(`, `"`,
/// `'`, a digit, `-` or a letter), repairing what is broken where the intent is clear.
pub(crate) fn read_value(
    src: &str,
    start: usize,
    repairs: &mut Vec<Repair>,
) -> Result<Read, SyntaxError> {
    let mut reader = Reader {
        src,
        b: src.as_bytes(),
        pos: start,
        stack: Vec::new(),
        repairs,
        truncated: false,
    };
    reader.run()
}

/// What to do after a step of the state machine.
enum Step {
    /// Go on in this state.
    Go(State),
    /// A value is complete.
    Done(Value),
    /// The answer ends here: close what is open.
    CutOff,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            offset: self.pos,
            message: message.into(),
            too_deep: false,
        })
    }

    /// The JSON Pointer of the place being read.
    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Object { key: Some(k), .. } => push_pointer(&mut path, k),
                Frame::Object { key: None, .. } => {}
                Frame::Array { items, .. } => push_pointer(&mut path, &items.len().to_string()),
            }
        }
        path
    }

    /// Records a repair; the same repair repeated at the same place is recorded once
    /// (`[,,,,…]` is one `removed_trailing_comma`, not a million).
    fn record(&mut self, kind: RepairKind) {
        let path = self.path();
        if self
            .repairs
            .last()
            .is_some_and(|r| r.kind == kind && r.path == path)
        {
            return;
        }
        self.repairs.push(Repair::new(kind, path));
    }

    /// Skips whitespace and comments (recording each comment removed). A line comment
    /// that runs to the end of the answer stops before closers that close everything
    /// open (`{"a": 1 # note }`).
    fn skip_ws(&mut self) {
        loop {
            while self.pos < self.b.len() && is_ws(self.b[self.pos]) {
                self.pos += 1;
            }
            if let Some(len) = unicode_space_at(self.src, self.pos) {
                self.record(RepairKind::UnicodeWhitespace);
                self.pos += len;
                continue;
            }
            if !self.comment_at(self.pos) {
                return;
            }
            self.record(RepairKind::RemovedComment);
            let block = self.b[self.pos..].starts_with(b"/*");
            if block {
                self.pos = match find(&self.b[self.pos + 2..], b"*/") {
                    Some(i) => self.pos + 2 + i + 2,
                    None => self.b.len(),
                };
                continue;
            }
            self.pos = match memchr(b'\n', &self.b[self.pos..]) {
                Some(i) => self.pos + i + 1,
                None => self.closing_tail(self.pos).unwrap_or(self.b.len()),
            };
        }
    }

    fn eof(&self) -> bool {
        self.pos >= self.b.len()
    }

    fn ctx(&self) -> Ctx {
        match self.stack.last() {
            None => Ctx::Root,
            Some(Frame::Object { .. }) => Ctx::ObjectValue,
            Some(Frame::Array { .. }) => Ctx::ArrayItem,
        }
    }

    fn run(&mut self) -> Result<Read, SyntaxError> {
        let mut state = State::Value;
        loop {
            let step = match state {
                State::Value => self.value()?,
                State::FirstKey | State::NextKey => self.key(state)?,
                State::FirstItem | State::NextItem => self.item(state)?,
                State::After => self.after()?,
            };
            let completed = match step {
                Step::Go(next) => {
                    state = next;
                    continue;
                }
                Step::CutOff => return self.close_truncated(),
                Step::Done(v) => v,
            };
            // A value is complete: attach it to its container, or finish at the root.
            match self.attach(completed) {
                Some(root) => {
                    return Ok(Read {
                        value: root,
                        end: self.pos,
                        truncated: self.truncated,
                    })
                }
                None => state = State::After,
            }
        }
    }

    /// A value is expected.
    fn value(&mut self) -> Result<Step, SyntaxError> {
        self.skip_ws();
        if self.eof() {
            if self.stack.is_empty() {
                return self.err("the answer holds no JSON value");
            }
            return Ok(Step::CutOff);
        }
        let step = match self.b[self.pos] {
            b'{' => {
                self.open(Frame::Object {
                    map: Map::new(),
                    key: None,
                })?;
                Step::Go(State::FirstKey)
            }
            b'[' => {
                self.open(Frame::array(b']'))?;
                Step::Go(State::FirstItem)
            }
            b'(' => {
                self.open(Frame::array(b')'))?;
                self.record(RepairKind::PythonCollection);
                Step::Go(State::FirstItem)
            }
            b'"' | b'\'' => {
                let ctx = self.ctx();
                match self.string(ctx)? {
                    Some(s) => Step::Done(Value::String(self.concatenated(s, ctx)?)),
                    None => Step::CutOff,
                }
            }
            _ if curly_quote_at(self.b, self.pos).is_some() => {
                let ctx = self.ctx();
                match self.curly_string(ctx) {
                    Some(s) => Step::Done(Value::String(s)),
                    None => Step::CutOff,
                }
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => match self.number()? {
                NumberToken::Number(n) => Step::Done(n),
                NumberToken::CutOff => Step::CutOff,
                NumberToken::Word => match self.word()? {
                    Some(v) => Step::Done(v),
                    None => Step::CutOff,
                },
            },
            c if is_word_byte(c) => match self.word()? {
                Some(v) => Step::Done(v),
                None => Step::CutOff,
            },
            c if is_closer(c) && !self.stack.is_empty() => {
                // `"key": }` or `[1, ]`-like holes: a value is missing.
                return self.err(format!("expected a value before '{}'", c as char));
            }
            c => return self.err(format!("expected a JSON value, found '{}'", printable(c))),
        };
        Ok(step)
    }

    /// Skips an ellipsis standing for elided items or members, and the comma after it.
    /// Returns whether there was one.
    fn skip_ellipsis(&mut self) -> bool {
        if !self.ellipsis_then_end(self.pos) {
            return false;
        }
        self.record(RepairKind::RemovedEllipsis);
        self.pos += ellipsis_at(self.b, self.pos).unwrap_or(1);
        self.skip_ws();
        if !self.eof() && self.b[self.pos] == b',' {
            self.pos += 1;
        }
        true
    }

    /// A key (or the end of the object) is expected.
    fn key(&mut self, state: State) -> Result<Step, SyntaxError> {
        self.skip_ws();
        if self.eof() {
            return Ok(Step::CutOff);
        }
        if self.skip_ellipsis() {
            return Ok(Step::Go(State::FirstKey));
        }
        let key_start = self.pos;
        let repairs_before = self.repairs.len();
        let key = match self.b[self.pos] {
            b'}' => {
                if state == State::NextKey {
                    self.record(RepairKind::RemovedTrailingComma);
                }
                self.pos += 1;
                return Ok(Step::Done(self.pop()));
            }
            b',' => {
                self.record(RepairKind::RemovedTrailingComma);
                self.pos += 1;
                return Ok(Step::Go(state));
            }
            b'"' | b'\'' => match self.string(Ctx::Key)? {
                Some(key) => key,
                // Cut off inside a key: the key is dropped.
                None => return Ok(Step::CutOff),
            },
            _ if curly_quote_at(self.b, self.pos).is_some() => match self.curly_string(Ctx::Key) {
                Some(key) => key,
                None => return Ok(Step::CutOff),
            },
            c if is_word_byte(c) || c == b'-' || c == b'.' => {
                if let Some(quote) = self.stray_then_key_at(self.pos) {
                    // `NOTE "b": 2`: words that are neither a key nor a value.
                    self.record(RepairKind::SkippedStrayText);
                    self.pos = quote;
                    return Ok(Step::Go(state));
                }
                while self.pos < self.b.len() {
                    let c = self.b[self.pos];
                    if is_ws(c) || matches!(c, b':' | b',' | b'{' | b'}' | b'[' | b']' | b'=') {
                        break;
                    }
                    self.pos += 1;
                }
                let mut key = &self.src[key_start..self.pos];
                if self.eof() {
                    return Ok(Step::CutOff);
                }
                // `{a": 1}`: the key's opening quote is missing.
                if let Some(k) = key.strip_suffix(['"', '\'']) {
                    if !k.is_empty() && !k.contains(['"', '\'']) && self.b[self.pos] == b':' {
                        key = k;
                    }
                }
                let key = key.to_string();
                self.record(RepairKind::UnquotedKey);
                key
            }
            c => return self.err(format!("expected a key, found '{}'", printable(c))),
        };
        // `{'a', 'b'}`: a Python set, read again as an array.
        if state == State::FirstKey && self.is_set_element() {
            self.repairs.truncate(repairs_before);
            self.stack.pop();
            self.stack.push(Frame::array(b'}'));
            self.record(RepairKind::PythonCollection);
            self.pos = key_start;
            return Ok(Step::Go(State::FirstItem));
        }
        let bare = !matches!(self.b[key_start], b'"' | b'\'');
        self.colon(key, bare)?;
        if self.truncated {
            return Ok(Step::CutOff);
        }
        Ok(Step::Go(State::Value))
    }

    /// Whether what was just read as the first key of an object is followed by a comma:
    /// the object is a Python set.
    fn is_set_element(&self) -> bool {
        let b = self.b;
        let mut j = self.pos;
        while j < b.len() && is_ws(b[j]) {
            j += 1;
        }
        b.get(j) == Some(&b',')
            && matches!(self.stack.last(), Some(Frame::Object { map, key: None }) if map.is_empty())
    }

    /// A value (or the end of the array) is expected.
    fn item(&mut self, state: State) -> Result<Step, SyntaxError> {
        self.skip_ws();
        if self.eof() {
            return Ok(Step::CutOff);
        }
        if self.skip_ellipsis() {
            return Ok(Step::Go(State::FirstItem));
        }
        let c = self.b[self.pos];
        if c == b',' {
            self.record(RepairKind::RemovedTrailingComma);
            self.pos += 1;
            return Ok(Step::Go(state));
        }
        if Some(c) == self.top_closer() {
            if state == State::NextItem {
                self.record(RepairKind::RemovedTrailingComma);
            }
            self.pos += 1;
            return Ok(Step::Done(self.pop()));
        }
        Ok(Step::Go(State::Value))
    }

    /// After a value inside a container: `,`, the closer, or a repair.
    fn after(&mut self) -> Result<Step, SyntaxError> {
        self.skip_ws();
        if self.eof() {
            return Ok(Step::CutOff);
        }
        let c = self.b[self.pos];
        let in_object = matches!(self.stack.last(), Some(Frame::Object { .. }));
        if c == b',' {
            self.pos += 1;
            return Ok(Step::Go(if in_object {
                State::NextKey
            } else {
                State::NextItem
            }));
        }
        if is_closer(c) {
            if Some(c) == self.top_closer() {
                self.pos += 1;
                return Ok(Step::Done(self.pop()));
            }
            if self.closer_matches_outer(c) {
                // `{"a": [1, 2}`: the array was never closed.
                self.record(RepairKind::InsertedMissingBracket);
                return Ok(Step::Done(self.pop()));
            }
            return self.err(format!(
                "'{}' does not close the open {}",
                c as char,
                if in_object { "object" } else { "array" }
            ));
        }
        // A comma is missing only when what follows is clearly the next member or item;
        // a bare word straight after a value (`2 or 3`) may belong to it, so no reading
        // is sure.
        let next_member = if in_object {
            matches!(c, b'"' | b'\'')
                || self.bare_key_at(self.pos)
                || self.stray_then_key_at(self.pos).is_some()
        } else {
            matches!(c, b'"' | b'\'' | b'{' | b'[' | b'(' | b'-' | b'0'..=b'9')
                || literal_at(self.b, self.pos).is_some()
        };
        if next_member {
            self.record(RepairKind::InsertedMissingComma);
            return Ok(Step::Go(if in_object {
                State::NextKey
            } else {
                State::Value
            }));
        }
        self.err(format!(
            "expected ',' or '{}' after a value, found '{}'",
            self.top_closer().unwrap_or(b']') as char,
            printable(c)
        ))
    }

    fn open(&mut self, frame: Frame) -> Result<(), SyntaxError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(SyntaxError {
                offset: self.pos,
                message: format!("nesting deeper than {MAX_DEPTH} levels"),
                too_deep: true,
            });
        }
        self.stack.push(frame);
        self.pos += 1;
        Ok(())
    }

    /// Reads the `:` after a key and sets the key on the open object. Sets `truncated`
    /// when the input ends first. A quoted key may lack its colon before a value; a bare
    /// word must have one (else it is not a key).
    fn colon(&mut self, key: String, bare: bool) -> Result<(), SyntaxError> {
        self.skip_ws();
        if self.eof() {
            self.truncated = true;
            return Ok(());
        }
        match self.b[self.pos] {
            b':' => self.pos += 1,
            b'=' => {
                self.record(RepairKind::InsertedMissingColon);
                self.pos += 1;
            }
            b'"' | b'\'' | b'{' | b'[' | b'-' | b'0'..=b'9' if !bare => {
                self.record(RepairKind::InsertedMissingColon)
            }
            c => {
                return self.err(format!(
                    "expected ':' after the key \"{key}\", found '{}'",
                    printable(c)
                ))
            }
        }
        if let Some(Frame::Object { key: slot, .. }) = self.stack.last_mut() {
            *slot = Some(key);
        }
        Ok(())
    }

    fn closer_matches_outer(&self, closer: u8) -> bool {
        self.stack
            .iter()
            .rev()
            .skip(1)
            .any(|f| f.closer() == closer)
    }

    /// Pops the top container and returns it as a value.
    fn pop(&mut self) -> Value {
        match self.stack.pop() {
            Some(Frame::Object { map, .. }) => Value::Object(map),
            Some(Frame::Array { items, .. }) => Value::Array(items),
            None => Value::Null,
        }
    }

    /// Attaches a complete value to the open container; returns it when it is the root.
    fn attach(&mut self, value: Value) -> Option<Value> {
        match self.stack.last_mut() {
            None => Some(value),
            Some(Frame::Object { map, key }) => {
                if let Some(k) = key.take() {
                    map.insert(k, value);
                }
                None
            }
            Some(Frame::Array { items, .. }) => {
                items.push(value);
                None
            }
        }
    }

    /// The input ended inside a value: close everything that is open.
    fn close_truncated(&mut self) -> Result<Read, SyntaxError> {
        self.truncated = true;
        self.record(RepairKind::ClosedTruncated);
        if self.stack.is_empty() {
            return self.err("the answer was cut off before any value was complete");
        }
        // A key whose value never came is dropped.
        if let Some(Frame::Object { key, .. }) = self.stack.last_mut() {
            *key = None;
        }
        loop {
            let value = self.pop();
            if let Some(root) = self.attach(value) {
                return Ok(Read {
                    value: root,
                    end: self.b.len(),
                    truncated: true,
                });
            }
        }
    }

    /// Reads a bare word: a literal, a Python literal, or (inside a container) a string
    /// written without quotes.
    fn word(&mut self) -> Result<Option<Value>, SyntaxError> {
        let b = self.b;
        let start = self.pos;
        let mut j = start;
        while j < b.len() && is_word_byte(b[j]) {
            j += 1;
        }
        let w = &self.src[start..j];
        let at_end = j >= b.len();
        let literal = match w {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            "null" => Some(Value::Null),
            "True" | "False" | "None" => {
                self.record(RepairKind::PythonLiteral);
                Some(match w {
                    "True" => Value::Bool(true),
                    "False" => Value::Bool(false),
                    _ => Value::Null,
                })
            }
            _ => None,
        };
        if let Some(v) = literal {
            self.pos = j;
            return Ok(Some(v));
        }
        if at_end {
            // Cut off inside a literal: complete it when it can only be one.
            self.pos = j;
            for (lit, v) in [
                ("true", Value::Bool(true)),
                ("false", Value::Bool(false)),
                ("null", Value::Null),
            ] {
                if lit.starts_with(w) {
                    self.truncated = true;
                    return Ok(Some(v));
                }
            }
            return Ok(None);
        }
        if self.stack.is_empty() {
            return self.err(format!("expected a JSON value, found the word '{w}'"));
        }
        // An unquoted string value: read to the end of the line or the next delimiter.
        let mut k = j;
        let tuple = self.top_closer() == Some(b')');
        while k < b.len() {
            let ends = match b[k] {
                b',' | b'}' | b']' | b'\n' | b'\r' => true,
                b')' => tuple,
                // `v1 "b": 2`: a member follows without its comma.
                b'"' | b'\'' => self.complete_key_at(k),
                _ => false,
            };
            if ends {
                break;
            }
            k += 1;
        }
        // Trim JSON whitespace only: `trim_end` would also eat Unicode spaces (U+3000,
        // U+2028…) that `is_word_byte` counted as the word, leaving nothing and no
        // progress. The word's own bytes `start..j` are always kept.
        let text = self.src[start..k].trim_end_matches([' ', '\t']);
        debug_assert!(text.len() >= j - start);
        self.record(RepairKind::UnquotedString);
        self.pos = start + text.len();
        // `b"`: the string's opening quote is missing.
        let text = match text.strip_suffix(['"', '\'']) {
            Some(t) if !t.is_empty() && !t.contains(['"', '\'']) => t,
            _ => text,
        };
        // `NumberLong("2")`, `He said "hi"`: quotes in a bare value say it is not plain
        // text, and what else it is cannot be told.
        if text.contains('"') {
            self.pos = start;
            return self.err(format!(
                "the bare value {text:?} holds quotes: it is neither a string nor a JSON value"
            ));
        }
        Ok(Some(Value::String(text.to_string())))
    }
}
