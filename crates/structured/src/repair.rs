//! The lenient JSON reader: reads what a model meant, records every repair.
//!
//! It is an iterative state machine over bytes with an explicit stack (no recursion, so
//! 100 000 open brackets cannot overflow the stack; nesting is capped like `serde_json`'s),
//! every step moves forward (look-ahead is bounded), so it runs in linear time on any
//! input.

use serde_json::{Map, Number, Value};

use crate::outcome::{push_pointer, Repair, RepairKind};

/// Deepest nesting accepted, the same limit `serde_json` applies in strict mode: its
/// recursion limit of 128 fails on the 128th open bracket, so 127 levels are accepted.
pub(crate) const MAX_DEPTH: usize = 127;

/// How far to look for a key's colon when deciding whether a quote ends a string.
const LOOKAHEAD: usize = 64;

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
    Array(Vec<Value>),
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

/// Reads one JSON value starting at `start` (which must point at `{`, `[`, `"`, `'`, a
/// digit, `-` or a letter), repairing what is broken where the intent is clear.
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

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
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
                Frame::Array(items) => push_pointer(&mut path, &items.len().to_string()),
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

    /// Skips whitespace and comments (recording each comment removed).
    fn skip_ws(&mut self) {
        loop {
            while self.pos < self.b.len() && is_ws(self.b[self.pos]) {
                self.pos += 1;
            }
            if self.pos + 1 < self.b.len() && self.b[self.pos] == b'/' {
                match self.b[self.pos + 1] {
                    b'/' => {
                        self.record(RepairKind::RemovedComment);
                        self.pos = match memchr(b'\n', &self.b[self.pos..]) {
                            Some(i) => self.pos + i + 1,
                            None => self.b.len(),
                        };
                        continue;
                    }
                    b'*' => {
                        self.record(RepairKind::RemovedComment);
                        self.pos = match find(&self.b[self.pos + 2..], b"*/") {
                            Some(i) => self.pos + 2 + i + 2,
                            None => self.b.len(),
                        };
                        continue;
                    }
                    _ => {}
                }
            }
            return;
        }
    }

    fn eof(&self) -> bool {
        self.pos >= self.b.len()
    }

    fn ctx(&self) -> Ctx {
        match self.stack.last() {
            None => Ctx::Root,
            Some(Frame::Object { .. }) => Ctx::ObjectValue,
            Some(Frame::Array(_)) => Ctx::ArrayItem,
        }
    }

    fn run(&mut self) -> Result<Read, SyntaxError> {
        let mut state = State::Value;
        loop {
            let completed: Value = match state {
                State::Value => {
                    self.skip_ws();
                    if self.eof() {
                        if self.stack.is_empty() {
                            return self.err("the answer holds no JSON value");
                        }
                        return self.close_truncated();
                    }
                    match self.b[self.pos] {
                        b'{' => {
                            self.open(Frame::Object {
                                map: Map::new(),
                                key: None,
                            })?;
                            state = State::FirstKey;
                            continue;
                        }
                        b'[' => {
                            self.open(Frame::Array(Vec::new()))?;
                            state = State::FirstItem;
                            continue;
                        }
                        b'"' | b'\'' => {
                            let ctx = self.ctx();
                            match self.string(ctx)? {
                                Some(s) => Value::String(s),
                                None => return self.close_truncated(),
                            }
                        }
                        b'-' | b'+' | b'.' | b'0'..=b'9' => match self.number()? {
                            Some(n) => n,
                            None => return self.close_truncated(),
                        },
                        c if is_word_byte(c) => match self.word()? {
                            Some(v) => v,
                            None => return self.close_truncated(),
                        },
                        b'}' | b']' if !self.stack.is_empty() => {
                            // `"key": }` or `[1, ]`-like holes: a value is missing.
                            return self.err(format!(
                                "expected a value before '{}'",
                                self.b[self.pos] as char
                            ));
                        }
                        c => {
                            return self
                                .err(format!("expected a JSON value, found '{}'", printable(c)))
                        }
                    }
                }
                State::FirstKey | State::NextKey => {
                    self.skip_ws();
                    if self.eof() {
                        return self.close_truncated();
                    }
                    match self.b[self.pos] {
                        b'}' => {
                            if state == State::NextKey {
                                self.record(RepairKind::RemovedTrailingComma);
                            }
                            self.pos += 1;
                            self.pop()
                        }
                        b',' => {
                            self.record(RepairKind::RemovedTrailingComma);
                            self.pos += 1;
                            continue;
                        }
                        b'"' | b'\'' => {
                            let Some(key) = self.string(Ctx::Key)? else {
                                // Cut off inside a key: the key is dropped.
                                return self.close_truncated();
                            };
                            self.colon(key)?;
                            if self.truncated {
                                return self.close_truncated();
                            }
                            state = State::Value;
                            continue;
                        }
                        c if is_word_byte(c) || c == b'-' => {
                            let start = self.pos;
                            while self.pos < self.b.len() {
                                let c = self.b[self.pos];
                                if is_ws(c) || matches!(c, b':' | b',' | b'{' | b'}' | b'[' | b']')
                                {
                                    break;
                                }
                                self.pos += 1;
                            }
                            let key = self.src[start..self.pos].to_string();
                            if self.eof() {
                                return self.close_truncated();
                            }
                            self.record(RepairKind::UnquotedKey);
                            self.colon(key)?;
                            if self.truncated {
                                return self.close_truncated();
                            }
                            state = State::Value;
                            continue;
                        }
                        c => return self.err(format!("expected a key, found '{}'", printable(c))),
                    }
                }
                State::FirstItem | State::NextItem => {
                    self.skip_ws();
                    if self.eof() {
                        return self.close_truncated();
                    }
                    match self.b[self.pos] {
                        b']' => {
                            if state == State::NextItem {
                                self.record(RepairKind::RemovedTrailingComma);
                            }
                            self.pos += 1;
                            self.pop()
                        }
                        b',' => {
                            self.record(RepairKind::RemovedTrailingComma);
                            self.pos += 1;
                            continue;
                        }
                        _ => {
                            state = State::Value;
                            continue;
                        }
                    }
                }
                State::After => {
                    self.skip_ws();
                    if self.eof() {
                        return self.close_truncated();
                    }
                    let c = self.b[self.pos];
                    let in_object = matches!(self.stack.last(), Some(Frame::Object { .. }));
                    match c {
                        b',' => {
                            self.pos += 1;
                            state = if in_object {
                                State::NextKey
                            } else {
                                State::NextItem
                            };
                            continue;
                        }
                        b'}' | b']' => {
                            let matches_top = (c == b'}') == in_object;
                            if matches_top {
                                self.pos += 1;
                                self.pop()
                            } else if self.closer_matches_outer(c) {
                                // `{"a": [1, 2}`: the array was never closed.
                                self.record(RepairKind::InsertedMissingBracket);
                                self.pop()
                            } else {
                                return self.err(format!(
                                    "'{}' does not close the open {}",
                                    c as char,
                                    if in_object { "object" } else { "array" }
                                ));
                            }
                        }
                        b'"' | b'\'' if in_object => {
                            self.record(RepairKind::InsertedMissingComma);
                            state = State::NextKey;
                            continue;
                        }
                        c if in_object && is_word_byte(c) => {
                            self.record(RepairKind::InsertedMissingComma);
                            state = State::NextKey;
                            continue;
                        }
                        b'"' | b'\'' | b'{' | b'[' | b'-' | b'0'..=b'9' if !in_object => {
                            self.record(RepairKind::InsertedMissingComma);
                            state = State::Value;
                            continue;
                        }
                        c if !in_object && is_word_byte(c) => {
                            self.record(RepairKind::InsertedMissingComma);
                            state = State::Value;
                            continue;
                        }
                        c => {
                            return self.err(format!(
                                "expected ',' or '{}' after a value, found '{}'",
                                if in_object { '}' } else { ']' },
                                printable(c)
                            ))
                        }
                    }
                }
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
    /// when the input ends first.
    fn colon(&mut self, key: String) -> Result<(), SyntaxError> {
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
            b'"' | b'\'' | b'{' | b'[' | b'-' | b'0'..=b'9' => {
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
        let want_object = closer == b'}';
        self.stack
            .iter()
            .rev()
            .skip(1)
            .any(|f| matches!(f, Frame::Object { .. }) == want_object)
    }

    /// Pops the top container and returns it as a value.
    fn pop(&mut self) -> Value {
        match self.stack.pop() {
            Some(Frame::Object { map, .. }) => Value::Object(map),
            Some(Frame::Array(items)) => Value::Array(items),
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
            Some(Frame::Array(items)) => {
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

    /// Reads a string starting at the quote at `self.pos`. Returns `None` when the input
    /// ends inside a key (the caller drops it); a value string cut off is returned as far
    /// as it goes, with `truncated` set.
    fn string(&mut self, ctx: Ctx) -> Result<Option<String>, SyntaxError> {
        let quote = self.b[self.pos];
        if quote == b'\'' {
            self.record(RepairKind::SingleQuotedString);
        }
        let mut out = String::new();
        let mut i = self.pos + 1;
        let mut seg = i;
        let mut noted_control = false;
        let mut noted_quote = false;
        let mut noted_escape = false;
        let b = self.b;
        loop {
            // Fast scan to the next byte that needs a decision.
            while i < b.len() {
                let c = b[i];
                if c == quote || c == b'\\' || c < 0x20 {
                    break;
                }
                i += 1;
            }
            if i >= b.len() {
                out.push_str(&self.src[seg..]);
                self.pos = b.len();
                self.truncated = true;
                if ctx == Ctx::Key {
                    return Ok(None);
                }
                return Ok(Some(out));
            }
            let c = b[i];
            if c == quote {
                if self.ends_string(i + 1, ctx) {
                    out.push_str(&self.src[seg..i]);
                    self.pos = i + 1;
                    return Ok(Some(out));
                }
                out.push_str(&self.src[seg..=i]);
                if !noted_quote {
                    noted_quote = true;
                    self.record(RepairKind::EscapedInnerQuote);
                }
                i += 1;
                seg = i;
            } else if c == b'\\' {
                out.push_str(&self.src[seg..i]);
                if i + 1 >= b.len() {
                    // Cut off right after a backslash.
                    self.pos = b.len();
                    self.truncated = true;
                    return Ok(if ctx == Ctx::Key { None } else { Some(out) });
                }
                let e = b[i + 1];
                i += 2;
                match e {
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'/' => out.push('/'),
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{c}'),
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'\'' => {
                        out.push('\'');
                        if quote == b'"' && !noted_escape {
                            noted_escape = true;
                            self.record(RepairKind::FixedInvalidEscape);
                        }
                    }
                    b'u' => {
                        let (ch, used, ok) = unicode_escape(b, i);
                        if !ok && !noted_escape {
                            noted_escape = true;
                            self.record(RepairKind::FixedInvalidEscape);
                        }
                        match ch {
                            Some(ch) => {
                                out.push(ch);
                                i += used;
                            }
                            None => out.push_str("\\u"),
                        }
                    }
                    _ => {
                        // `\d`, `\x`, `C:\Users`: the backslash was meant literally.
                        if !noted_escape {
                            noted_escape = true;
                            self.record(RepairKind::FixedInvalidEscape);
                        }
                        out.push('\\');
                        i -= 1;
                    }
                }
                seg = i;
            } else {
                // A raw control character: keep it as the text the model meant.
                if !noted_control {
                    noted_control = true;
                    self.record(RepairKind::EscapedControlCharacter);
                }
                i += 1;
            }
        }
    }

    /// Decides whether a quote ends the string, from what follows it (`after` is the byte
    /// offset just past the quote). Looks ahead a bounded distance only.
    fn ends_string(&self, after: usize, ctx: Ctx) -> bool {
        let b = self.b;
        let mut j = after;
        let mut newline = false;
        while j < b.len() && is_ws(b[j]) {
            newline |= b[j] == b'\n';
            j += 1;
        }
        if j >= b.len() {
            return true;
        }
        let c = b[j];
        if c == b'/' && j + 1 < b.len() && matches!(b[j + 1], b'/' | b'*') {
            return true;
        }
        match ctx {
            Ctx::Root => true,
            Ctx::Key => c == b':' || (newline && c == b'"'),
            Ctx::ObjectValue => match c {
                b'}' => true,
                b']' => true,
                b',' => self.key_follows(j + 1),
                b'"' => newline,
                _ => false,
            },
            Ctx::ArrayItem => match c {
                b']' | b'}' => true,
                b',' => self.item_follows(j + 1),
                b'"' => newline,
                _ => false,
            },
        }
    }

    /// After a comma in an object: does a key (or the end of the object) follow?
    fn key_follows(&self, from: usize) -> bool {
        let b = self.b;
        let mut j = from;
        while j < b.len() && is_ws(b[j]) {
            j += 1;
        }
        if j >= b.len() {
            return true;
        }
        match b[j] {
            b'"' | b'\'' | b'}' | b'/' => true,
            c if is_word_byte(c) => {
                let limit = (j + LOOKAHEAD).min(b.len());
                let mut k = j;
                while k < limit && is_word_byte(b[k]) {
                    k += 1;
                }
                while k < limit && matches!(b[k], b' ' | b'\t') {
                    k += 1;
                }
                k >= b.len() || (k < limit && b[k] == b':')
            }
            _ => false,
        }
    }

    /// After a comma in an array: does a value (or the end of the array) follow?
    fn item_follows(&self, from: usize) -> bool {
        let b = self.b;
        let mut j = from;
        while j < b.len() && is_ws(b[j]) {
            j += 1;
        }
        if j >= b.len() {
            return true;
        }
        match b[j] {
            b'"' | b'\'' | b'{' | b'[' | b']' | b'-' | b'0'..=b'9' | b'/' => true,
            _ => {
                let rest = &b[j..(j + 6).min(b.len())];
                let word_end = |w: &[u8]| {
                    rest.starts_with(w) && rest.get(w.len()).is_none_or(|c| !is_word_byte(*c))
                };
                word_end(b"true")
                    || word_end(b"false")
                    || word_end(b"null")
                    || word_end(b"True")
                    || word_end(b"False")
                    || word_end(b"None")
            }
        }
    }

    /// Reads a number, normalising non-JSON forms. `None` when cut off with nothing usable.
    fn number(&mut self) -> Result<Option<Value>, SyntaxError> {
        let b = self.b;
        let start = self.pos;
        let mut j = start;
        while j < b.len() && matches!(b[j], b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E') {
            j += 1;
        }
        let raw = &self.src[start..j];
        self.pos = j;
        if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(raw) {
            return Ok(Some(Value::Number(n)));
        }
        let at_end = j >= b.len();
        match normalise_number(raw) {
            Some(fixed) => {
                if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(&fixed) {
                    if at_end {
                        self.truncated = true;
                    } else {
                        self.record(RepairKind::FixedNumber);
                    }
                    return Ok(Some(Value::Number(n)));
                }
                if at_end {
                    return Ok(None);
                }
                self.pos = start;
                self.err(format!("number out of range: {raw}"))
            }
            None if at_end => Ok(None),
            None => {
                self.pos = start;
                self.err(format!("invalid number: {raw}"))
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
        while k < b.len() && !matches!(b[k], b',' | b'}' | b']' | b'\n' | b'\r') {
            k += 1;
        }
        // Trim JSON whitespace only: `trim_end` would also eat Unicode spaces (U+3000,
        // U+2028…) that `is_word_byte` counted as the word, leaving nothing and no
        // progress. The word's own bytes `start..j` are always kept.
        let text = self.src[start..k].trim_end_matches([' ', '\t']);
        debug_assert!(text.len() >= j - start);
        self.record(RepairKind::UnquotedString);
        self.pos = start + text.len();
        Ok(Some(Value::String(text.to_string())))
    }
}

/// Turns `+1`, `.5`, `01`, `1.`, `-.5` into JSON numbers; `None` when it is not a number.
fn normalise_number(raw: &str) -> Option<String> {
    let (sign, rest) = match raw.as_bytes().first()? {
        b'-' => ("-", &raw[1..]),
        b'+' => ("", &raw[1..]),
        _ => ("", raw),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    if !int.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let frac = match frac {
        Some(f) if !f.bytes().all(|c| c.is_ascii_digit()) => return None,
        Some(f) => f,
        None => "",
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let mut out = format!("{sign}{int}");
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if let Some(e) = exp {
        let digits = e.trim_start_matches(['+', '-']);
        if digits.is_empty()
            || !digits.bytes().all(|c| c.is_ascii_digit())
            || e.len() > digits.len() + 1
        {
            return if e.is_empty() { Some(out) } else { None };
        }
        out.push('e');
        out.push_str(e);
    }
    Some(out)
}

/// Decodes `XXXX` (and a following `\uXXXX` low surrogate) at `i`. Returns the char (or
/// `None` when the hex is bad), how many bytes were used after `\u`, and whether it was
/// valid JSON.
fn unicode_escape(b: &[u8], i: usize) -> (Option<char>, usize, bool) {
    let Some(hi) = hex4(b, i) else {
        return (None, 0, false);
    };
    if (0xD800..0xDC00).contains(&hi) {
        if b.get(i + 4) == Some(&b'\\') && b.get(i + 5) == Some(&b'u') {
            if let Some(lo) = hex4(b, i + 6) {
                if (0xDC00..0xE000).contains(&lo) {
                    let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return (char::from_u32(code), 10, true);
                }
            }
        }
        return (Some('\u{FFFD}'), 4, false);
    }
    if (0xDC00..0xE000).contains(&hi) {
        return (Some('\u{FFFD}'), 4, false);
    }
    (char::from_u32(hi), 4, true)
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let s = b.get(i..i + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

fn printable(c: u8) -> String {
    if c.is_ascii_graphic() {
        (c as char).to_string()
    } else {
        format!("\\x{c:02x}")
    }
}

/// The index of the first `needle` byte in `hay`.
pub(crate) fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

/// The index of the first occurrence of `needle` in `hay`.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    let first = needle[0];
    let mut from = 0;
    while let Some(i) = memchr(first, &hay[from..]) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Makes a serde_json number from an i64, for tests and coercion.
pub(crate) fn number_from_f64(v: f64) -> Option<Value> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Some(Value::Number(Number::from(v as i64)))
    } else {
        Number::from_f64(v).map(Value::Number)
    }
}
