//! Reading strings: double, single and Python triple quotes, escapes, inner quotes, and
//! a string left open at the end of the answer.

use super::lookahead::QuoteEnds;
use super::{Ctx, Reader, SyntaxError};
use crate::outcome::RepairKind;

/// Which repairs a string has recorded (each is recorded once per string).
#[derive(Default)]
struct Noted {
    control: bool,
    quote: bool,
    escape: bool,
}

impl Reader<'_> {
    /// Reads a string starting at the quote at `self.pos`. Returns `None` when the input
    /// ends inside a key (the caller drops it); a value string cut off is returned as far
    /// as it goes, with `truncated` set.
    pub(super) fn string(&mut self, ctx: Ctx) -> Result<Option<String>, SyntaxError> {
        let quote = self.b[self.pos];
        if self.b[self.pos..].starts_with(&[quote; 3]) {
            return Ok(self.triple_quoted(quote, ctx));
        }
        if quote == b'\'' {
            self.record(RepairKind::SingleQuotedString);
        }
        let start = self.pos + 1;
        let mut out = String::new();
        let mut i = start;
        let mut seg = i;
        let mut noted = Noted::default();
        let mut first_inner_quote = None;
        // How many quotes of this string were taken for text so far.
        let mut inner_quotes = 0usize;
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
                return self.string_left_open(out, start, quote, ctx, first_inner_quote);
            }
            let c = b[i];
            if c == quote {
                if self.ends_string(i + 1, ctx) == QuoteEnds::Yes {
                    // `"He said "hi" "there": 1`: this quote ends the string only if a
                    // comma is missing after it, and it may as well close the quote left
                    // open inside it (with the string's own closing quote missing). Two
                    // readings, each needing a repair: neither is sure.
                    if inner_quotes % 2 == 1 && self.quote_follows(i + 1) {
                        self.pos = i;
                        return self.err(
                            "this quote may end the string or close the quote opened inside it, and either way a comma or a quote is missing after it: no reading is sure",
                        );
                    }
                    out.push_str(&self.src[seg..i]);
                    self.pos = i + 1;
                    return Ok(Some(out));
                }
                // `{"a": "b, "c": 1}`: this quote opens the next key; the string lost its
                // closing quote before the comma.
                if ctx == Ctx::ObjectValue {
                    if let Some(comma) = self.comma_before(seg, i) {
                        if self.quoted_key_at(i) {
                            out.push_str(&self.src[seg..comma]);
                            self.pos = comma;
                            self.record(RepairKind::InsertedMissingQuote);
                            return Ok(Some(out));
                        }
                    }
                }
                out.push_str(&self.src[seg..=i]);
                inner_quotes += 1;
                if !noted.quote {
                    noted.quote = true;
                    first_inner_quote = Some(i);
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
                i = self.escape(i, quote, &mut out, &mut noted);
                seg = i;
            } else {
                // A raw control character: keep it as the text the model meant.
                if !noted.control {
                    noted.control = true;
                    self.record(RepairKind::EscapedControlCharacter);
                }
                i += 1;
            }
        }
    }

    /// Whether the next byte after `from` that is not white space is a quote: what ends
    /// there is followed by another string without the comma (or colon) between them.
    fn quote_follows(&self, from: usize) -> bool {
        let b = self.b;
        let mut j = from;
        while j < b.len() && super::bytes::is_ws(b[j]) {
            j += 1;
        }
        matches!(b.get(j), Some(b'"' | b'\''))
    }

    /// A comma at or after `from` with only spaces between it and `i`.
    fn comma_before(&self, from: usize, i: usize) -> Option<usize> {
        let mut k = i;
        while k > from && matches!(self.b[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        (k > from && self.b[k - 1] == b',').then(|| k - 1)
    }

    /// `"a" + "b"`: strings joined with `+` are one string.
    pub(super) fn concatenated(&mut self, mut s: String, ctx: Ctx) -> Result<String, SyntaxError> {
        while let Some(quote) = self.plus_then_quote(self.pos) {
            self.record(RepairKind::ConcatenatedStrings);
            self.pos = quote;
            match self.string(ctx)? {
                Some(more) => s.push_str(&more),
                None => break,
            }
        }
        Ok(s)
    }

    /// A string in typographic quotes (`“a”`, `‘a’`) at `self.pos`. Its closing quote is
    /// the first one followed by what may follow a string (`,`, `:`, a closer, the end),
    /// so an apostrophe (`‘it’s’`) is text. `None` when cut off inside a key.
    pub(super) fn curly_string(&mut self, ctx: Ctx) -> Option<String> {
        let (open_len, close) = curly_quote_at(self.b, self.pos)?;
        self.record(RepairKind::TypographicQuotes);
        let start = self.pos + open_len;
        let b = self.b;
        let mut i = start;
        while let Some(at) = super::bytes::find(&b[i..], close.as_bytes()) {
            let end = i + at;
            let mut k = end + close.len();
            while k < b.len() && super::bytes::is_ws(b[k]) {
                k += 1;
            }
            if k >= b.len() || matches!(b[k], b',' | b':' | b'}' | b']' | b')') {
                self.pos = end + close.len();
                return Some(self.src[start..end].to_string());
            }
            i = end + close.len();
        }
        self.pos = b.len();
        self.truncated = true;
        (ctx != Ctx::Key).then(|| self.src[start..].to_string())
    }

    /// A string that runs to the end of the answer. When the answer ends with the closers
    /// of everything open, only the closing quote was missing; otherwise it was cut off.
    ///
    /// When the string also held a quote taken for text, the two guesses contradict each
    /// other (`"value" extra}`: is the first quote the end, or is a quote missing?), so the
    /// answer is refused there.
    fn string_left_open(
        &mut self,
        mut out: String,
        start: usize,
        quote: u8,
        ctx: Ctx,
        inner_quote: Option<usize>,
    ) -> Result<Option<String>, SyntaxError> {
        if ctx != Ctx::Key {
            if let Some(k) = self.closing_tail(start) {
                if let Some(at) = inner_quote {
                    self.pos = at;
                    return self.err(
                        "this quote may end the string or be part of it, and the string has no closing quote: no reading is sure",
                    );
                }
                // The tail is closers and whitespace only, copied as they were: cut it off.
                out.truncate(out.len() - (self.b.len() - k));
                // `"2'}`: closed with the other quote.
                let other = if quote == b'"' { '\'' } else { '"' };
                if out.len() > 1 && out.ends_with(other) && !out[..out.len() - 1].contains(other) {
                    out.pop();
                }
                self.pos = k;
                self.record(RepairKind::InsertedMissingQuote);
                return Ok(Some(out));
            }
        }
        self.pos = self.b.len();
        self.truncated = true;
        Ok((ctx != Ctx::Key).then_some(out))
    }

    /// Decodes the escape sequence whose backslash is at `i`; returns where reading goes on.
    fn escape(&mut self, i: usize, quote: u8, out: &mut String, noted: &mut Noted) -> usize {
        let b = self.b;
        let e = b[i + 1];
        let mut next = i + 2;
        let mut bad = false;
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
                bad = quote == b'"';
            }
            b'u' => {
                let (ch, used, ok) = unicode_escape(b, next);
                bad = !ok;
                match ch {
                    Some(ch) => {
                        out.push(ch);
                        next += used;
                    }
                    None => out.push_str("\\u"),
                }
            }
            _ => {
                // `\d`, `\x`, `C:\Users`: the backslash was meant literally.
                bad = true;
                out.push('\\');
                next = i + 1;
            }
        }
        if bad && !noted.escape {
            noted.escape = true;
            self.record(RepairKind::FixedInvalidEscape);
        }
        next
    }

    /// A Python triple-quoted string: its text runs to the next three quotes (the last
    /// three of a longer run, so a quote may end the text); escapes are decoded.
    fn triple_quoted(&mut self, quote: u8, ctx: Ctx) -> Option<String> {
        self.record(RepairKind::TripleQuotedString);
        let b = self.b;
        let start = self.pos + 3;
        let mut out = String::new();
        let mut noted = Noted::default();
        let mut i = start;
        let mut seg = i;
        while i < b.len() {
            let c = b[i];
            if c == quote && b[i..].starts_with(&[quote; 3]) {
                let run = b[i..].iter().take_while(|&&q| q == quote).count();
                out.push_str(&self.src[seg..i + run - 3]);
                self.pos = i + run;
                return Some(out);
            }
            if c == b'\\' && i + 1 < b.len() {
                out.push_str(&self.src[seg..i]);
                i = self.escape(i, quote, &mut out, &mut noted);
                seg = i;
            } else {
                i += 1;
            }
        }
        out.push_str(&self.src[seg..]);
        self.pos = b.len();
        self.truncated = true;
        (ctx != Ctx::Key).then_some(out)
    }
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

/// A typographic opening quote at `i`: its length and the closing quote it wants.
pub(super) fn curly_quote_at(b: &[u8], i: usize) -> Option<(usize, &'static str)> {
    let rest = b.get(i..)?;
    if rest.starts_with("“".as_bytes()) {
        Some(("“".len(), "”"))
    } else if rest.starts_with("‘".as_bytes()) {
        Some(("‘".len(), "’"))
    } else {
        None
    }
}
