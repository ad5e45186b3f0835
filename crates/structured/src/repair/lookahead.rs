//! Bounded look-ahead: the reader's decisions about what comes next (does this quote end
//! the string, is this word a key, do these closers end the answer). Each looks at most
//! [`LOOKAHEAD`] bytes ahead, so reading stays linear.

use super::bytes::{is_closer, is_word_byte, is_ws};
use super::{Ctx, Frame, Reader};

/// How far to look for a key's colon when deciding what a quote or a word is.
const LOOKAHEAD: usize = 64;

/// What a quote inside a string is, from what follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum QuoteEnds {
    /// It ends the string.
    Yes,
    /// It is text.
    No,
}

impl Reader<'_> {
    /// Decides whether a quote ends the string, from what follows it (`after` is the byte
    /// offset just past the quote).
    pub(super) fn ends_string(&self, after: usize, ctx: Ctx) -> QuoteEnds {
        let b = self.b;
        let mut j = after;
        let mut newline = false;
        while j < b.len() && is_ws(b[j]) {
            newline |= b[j] == b'\n';
            j += 1;
        }
        let spaced = j > after;
        if j >= b.len() || self.comment_at(j) {
            return QuoteEnds::Yes;
        }
        if ctx != Ctx::Key && self.plus_then_quote(after).is_some() {
            return QuoteEnds::Yes;
        }
        let c = b[j];
        let yes = match ctx {
            Ctx::Root => true,
            Ctx::Key => {
                // After a key only its colon may come; a comma or a brace ends it too, so
                // that a key without a value (`{"a": 1, "b"}`) is refused rather than
                // swallowing the next member, and a set's element (`{'a', 'b'}`) ends.
                matches!(c, b':' | b',' | b'}') || (newline && c == b'"')
            }
            Ctx::ObjectValue => match c {
                b'}' | b']' => true,
                b',' => self.key_follows(j + 1),
                // `"X" "summary": …`: a member follows without its comma (and `"x" "b"}`
                // is a key without its value, refused after, not text).
                b'"' | b'\'' => newline || spaced || self.quoted_key_at(j),
                _ => false,
            },
            Ctx::ArrayItem => match c {
                b']' | b'}' => true,
                b')' => self.top_closer() == Some(b')'),
                b',' => self.item_follows(j + 1),
                // `["a" "b"]`: items without their commas.
                b'"' | b'\'' => newline || spaced,
                _ => false,
            },
        };
        if yes {
            QuoteEnds::Yes
        } else {
            QuoteEnds::No
        }
    }

    /// `+` then a quote (spaces around it allowed) from `j`: the quote's offset.
    pub(super) fn plus_then_quote(&self, j: usize) -> Option<usize> {
        let b = self.b;
        let skip = |mut k: usize| {
            while k < b.len() && is_ws(b[k]) {
                k += 1;
            }
            k
        };
        let k = skip(j);
        if b.get(k) != Some(&b'+') {
            return None;
        }
        let q = skip(k + 1);
        matches!(b.get(q), Some(b'"' | b'\'')).then_some(q)
    }

    /// Whether a comment starts at `j`: `//`, `/*`, or `#` followed by a space or the end
    /// of a line (`#tag` is a word, not a comment).
    pub(super) fn comment_at(&self, j: usize) -> bool {
        let b = self.b;
        match b.get(j) {
            Some(b'/') => matches!(b.get(j + 1), Some(b'/' | b'*')),
            Some(b'#') => b.get(j + 1).is_none_or(|&c| is_ws(c) || c == b'#'),
            _ => false,
        }
    }

    /// After a comma in an object: does a key (or the end of the object) follow?
    pub(super) fn key_follows(&self, from: usize) -> bool {
        let b = self.b;
        let mut j = from;
        // Doubled commas (`"b",,, "c"`) are removed later: look past them.
        while j < b.len() && (is_ws(b[j]) || b[j] == b',') {
            j += 1;
        }
        if j >= b.len() {
            return true;
        }
        match b[j] {
            b'"' | b'\'' | b'}' => true,
            _ if self.comment_at(j) || self.ellipsis_then_end(j) => true,
            _ => self.bare_key_at(j) || self.stray_then_key_at(j).is_some(),
        }
    }

    /// After a comma in an array: does a value (or the end of the array) follow?
    pub(super) fn item_follows(&self, from: usize) -> bool {
        let b = self.b;
        let mut j = from;
        while j < b.len() && (is_ws(b[j]) || b[j] == b',') {
            j += 1;
        }
        if j >= b.len() {
            return true;
        }
        match b[j] {
            b'"' | b'\'' | b'{' | b'[' | b'(' | b']' | b'-' | b'0'..=b'9' => true,
            _ if self.comment_at(j) || self.ellipsis_then_end(j) => true,
            _ => literal_at(b, j).is_some() || self.bare_item_at(j),
        }
    }

    /// A bare word item at `j`, ended by `,` or the array's closer (`['a', b, c]`).
    fn bare_item_at(&self, j: usize) -> bool {
        let b = self.b;
        let limit = (j + LOOKAHEAD).min(b.len());
        let mut k = j;
        while k < limit && is_word_byte(b[k]) {
            k += 1;
        }
        if k == j {
            return false;
        }
        while k < limit && matches!(b[k], b' ' | b'\t') {
            k += 1;
        }
        k < limit && (b[k] == b',' || Some(b[k]) == self.top_closer())
    }

    /// A quoted key at `j`: a quoted string followed by `:` (the end of the answer within
    /// the look-ahead counts, as the answer may have been cut off there).
    pub(super) fn quoted_key_at(&self, j: usize) -> bool {
        self.key_in_quotes_at(j, true)
    }

    /// A quoted key at `j` that is there in full: its closing quote and its colon.
    pub(super) fn complete_key_at(&self, j: usize) -> bool {
        self.key_in_quotes_at(j, false)
    }

    fn key_in_quotes_at(&self, j: usize, cut_counts: bool) -> bool {
        let b = self.b;
        let Some(&quote) = b.get(j).filter(|&&c| c == b'"' || c == b'\'') else {
            return false;
        };
        let limit = (j + LOOKAHEAD).min(b.len());
        let mut k = j + 1;
        while k < limit && b[k] != quote && b[k] != b'\n' {
            k += if b[k] == b'\\' { 2 } else { 1 };
        }
        if k >= b.len() {
            return cut_counts;
        }
        if k >= limit || b[k] != quote {
            return false;
        }
        k += 1;
        while k < b.len() && matches!(b[k], b' ' | b'\t') {
            k += 1;
        }
        if k >= b.len() {
            return cut_counts;
        }
        b[k] == b':'
    }

    /// A bare key at `j`: a word (letters, digits, `_`, `-`, `.`) followed by `:`.
    pub(super) fn bare_key_at(&self, j: usize) -> bool {
        let b = self.b;
        let limit = (j + LOOKAHEAD).min(b.len());
        let mut k = j;
        while k < limit && (is_word_byte(b[k]) || matches!(b[k], b'-' | b'.' | b'+')) {
            k += 1;
        }
        if k == j {
            return false;
        }
        while k < limit && matches!(b[k], b' ' | b'\t') {
            k += 1;
        }
        k >= b.len() || (k < limit && b[k] == b':')
    }

    /// Words that are neither a key nor a value, then a quoted key on the same line
    /// (`NOTE "b": 2`): the offset of the key's quote.
    pub(super) fn stray_then_key_at(&self, j: usize) -> Option<usize> {
        let b = self.b;
        let limit = (j + LOOKAHEAD).min(b.len());
        let mut k = j;
        if !b.get(j).copied().is_some_and(is_word_byte) {
            return None;
        }
        while k < limit && (is_word_byte(b[k]) || matches!(b[k], b' ' | b'\t')) {
            k += 1;
        }
        // A space before the key's quote: `a": 1` is a key that lost its opening quote.
        let spaced = matches!(b[k - 1], b' ' | b'\t');
        (k < limit && spaced && matches!(b[k], b'"' | b'\'') && self.quoted_key_at(k)).then_some(k)
    }

    /// An ellipsis at `j` standing for elided items: followed by `,`, a closer or the end.
    pub(super) fn ellipsis_then_end(&self, j: usize) -> bool {
        let b = self.b;
        let Some(len) = super::bytes::ellipsis_at(b, j) else {
            return false;
        };
        let mut k = j + len;
        while k < b.len() && is_ws(b[k]) {
            k += 1;
        }
        k >= b.len() || b[k] == b',' || is_closer(b[k])
    }

    /// The closer of the innermost open container.
    pub(super) fn top_closer(&self) -> Option<u8> {
        self.stack.last().map(Frame::closer)
    }

    /// Text that runs from `start` to the end of the answer (a string never closed, a
    /// line comment) and ends with closers that close exactly what is open: where those
    /// closers begin (with the space before them). The closers are then the answer's own
    /// end, not text: `["espresso]}` lost its closing quote, it was not cut off.
    ///
    /// Not when the text itself opens a bracket the closers could close (`"f(x) {y}`).
    pub(super) fn closing_tail(&self, start: usize) -> Option<usize> {
        let b = self.b;
        if self.stack.is_empty() {
            return None;
        }
        let mut k = b.len();
        let mut want = self.stack.iter().map(Frame::closer);
        while k > start {
            let c = b[k - 1];
            if is_ws(c) {
                k -= 1;
            } else if is_closer(c) {
                // Closers read from the end close the outermost container first.
                if want.next() != Some(c) {
                    return None;
                }
                k -= 1;
            } else {
                break;
            }
        }
        if want.next().is_some() {
            return None;
        }
        let mut depth = 0i64;
        for &c in &b[start..k] {
            match c {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth -= 1,
                _ => {}
            }
        }
        (depth <= 0).then_some(k)
    }
}

/// A JSON or Python literal (`true`, `None`, …) as a whole word at `j`: its length.
pub(super) fn literal_at(b: &[u8], j: usize) -> Option<usize> {
    let rest = &b[j..(j + 6).min(b.len())];
    ["true", "false", "null", "True", "False", "None"]
        .into_iter()
        .map(str::as_bytes)
        .find(|w| rest.starts_with(w) && rest.get(w.len()).is_none_or(|c| !is_word_byte(*c)))
        .map(<[u8]>::len)
}
