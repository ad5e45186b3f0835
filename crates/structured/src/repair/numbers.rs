//! Reading numbers: non-JSON forms (`+1`, `.5`, `007`, `1_000`), thousands separators,
//! and tokens that start with digits but are words (`2notanumber`).

use serde_json::{Number, Value};

use super::bytes::{is_word_byte, is_ws};
use super::{Ctx, Reader, SyntaxError};
use crate::outcome::RepairKind;

/// What a token that starts like a number turned out to be.
pub(super) enum NumberToken {
    /// A number (or, at the end of the answer, as much of one as was there).
    Number(Value),
    /// Cut off with nothing usable.
    CutOff,
    /// Digits run into letters (`2notanumber`): a word, to be read as one.
    Word,
}

impl Reader<'_> {
    /// Reads a number, normalising non-JSON forms.
    pub(super) fn number(&mut self) -> Result<NumberToken, SyntaxError> {
        let b = self.b;
        let start = self.pos;
        let mut j = start;
        while j < b.len() && matches!(b[j], b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E' | b'_') {
            j += 1;
        }
        // A number is delimited like any token: letters right after it make it a word.
        if j < b.len() && is_word_byte(b[j]) {
            return Ok(NumberToken::Word);
        }
        let raw = &self.src[start..j];
        self.pos = j;
        if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(raw) {
            if let Some(joined) = self.digit_groups(start, raw) {
                return Ok(NumberToken::Number(joined));
            }
            return Ok(NumberToken::Number(Value::Number(n)));
        }
        let at_end = j >= b.len();
        match normalise_number(raw) {
            Some(fixed) => {
                if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(&fixed) {
                    // `1.` or `2e` at the end may be the start of a longer number.
                    if at_end && !raw.ends_with(|c: char| c.is_ascii_digit()) {
                        self.truncated = true;
                    } else {
                        self.record(RepairKind::FixedNumber);
                    }
                    return Ok(NumberToken::Number(Value::Number(n)));
                }
                if at_end {
                    return Ok(NumberToken::CutOff);
                }
                self.pos = start;
                self.err(format!("number out of range: {raw}"))
            }
            None if at_end => Ok(NumberToken::CutOff),
            None => {
                self.pos = start;
                self.err(format!("invalid number: {raw}"))
            }
        }
    }

    /// `12,111` or `-2,000.00`: an integer of one to three digits followed by groups of
    /// exactly three digits after commas, where reading each group as a value of its own
    /// is not valid: in an object a group is not followed by `:` (so it is no key), in an
    /// array some group has a leading zero (so it is no number), at the root the groups
    /// run to the end. Returns the joined number, recorded as `joined_digit_groups` for
    /// the engine to confirm that the schema asks for a number there (else it refuses).
    fn digit_groups(&mut self, start: usize, head: &str) -> Option<Value> {
        let b = self.b;
        let digits = head.strip_prefix('-').unwrap_or(head);
        if digits.is_empty()
            || digits.len() > 3
            || !digits.bytes().all(|c| c.is_ascii_digit())
            || (digits.len() > 1 && digits.starts_with('0'))
        {
            return None;
        }
        let mut j = self.pos;
        let mut groups = 0;
        let mut zero_led = false;
        while b.get(j) == Some(&b',')
            && b.len() >= j + 4
            && b[j + 1..j + 4].iter().all(u8::is_ascii_digit)
            && b.get(j + 4).is_none_or(|c| !c.is_ascii_digit())
        {
            zero_led |= b[j + 1] == b'0';
            groups += 1;
            j += 4;
        }
        if groups == 0 {
            return None;
        }
        let mut end = j;
        if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
        if b.get(end).is_some_and(|&c| is_word_byte(c) || c == b'.') {
            return None;
        }
        let mut k = end;
        while k < b.len() && is_ws(b[k]) {
            k += 1;
        }
        let not_values = match self.ctx() {
            Ctx::ObjectValue => b.get(k) != Some(&b':'),
            Ctx::ArrayItem => zero_led,
            Ctx::Root => k >= b.len(),
            Ctx::Key => false,
        };
        if !not_values || (end >= b.len() && self.ctx() != Ctx::Root) {
            return None;
        }
        let text: String = self.src[start..end].chars().filter(|&c| c != ',').collect();
        let Ok(Value::Number(n)) = serde_json::from_str::<Value>(&text) else {
            return None;
        };
        self.pos = end;
        self.record(RepairKind::JoinedDigitGroups);
        Some(Value::Number(n))
    }
}

/// Turns `+1`, `.5`, `01`, `1.`, `-.5`, `1_000` into JSON numbers; `None` when it is not
/// a number.
pub(super) fn normalise_number(raw: &str) -> Option<String> {
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
    let int = without_digit_separators(int)?;
    let frac = match frac {
        Some(f) => without_digit_separators(f)?,
        None => String::new(),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let mut out = format!("{sign}{int}");
    if !frac.is_empty() {
        out.push('.');
        out.push_str(&frac);
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

/// Digits with `_` only between two digits (`1_000`, as Python and Rust write them);
/// `None` when anything else is there.
fn without_digit_separators(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let ok = b.iter().enumerate().all(|(i, &c)| {
        c.is_ascii_digit()
            || (c == b'_'
                && i > 0
                && b[i - 1].is_ascii_digit()
                && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    ok.then(|| s.replace('_', ""))
}

/// Makes a serde_json number from an f64: an integer when it is one.
pub(crate) fn number_from_f64(v: f64) -> Option<Value> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Some(Value::Number(Number::from(v as i64)))
    } else {
        Number::from_f64(v).map(Value::Number)
    }
}
