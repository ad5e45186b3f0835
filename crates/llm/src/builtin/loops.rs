//! Where a JSON answer starts saying again what it said: [`AnswerLoops`] reads the answer
//! as the model writes it and tells the decode loop where to take it back to and how to
//! close what was open there. Two loops, as a small model writes them:
//!
//! - **An item said again.** SmolLM2-135M wrote one claim eight times in one digest. An
//!   item is known by its *lead*: a string item by its text, an object item by its first
//!   member when that is a string (a claim by its `claim`, since the contract's objects
//!   lead with what they say); other items have no lead and never count as repeats. Two
//!   leads are the same when their topic keys are ([`wikimind_text::key::topic_key`], the
//!   key the engine's own `drop_repeats` compares claims and questions by), so `Coffee is
//!   hot.` and `coffee is HOT` are one claim, and an empty or punctuation-only lead is
//!   none. The answer goes back to the end of the item before the repeat and the array
//!   closes there: what it held is kept, the repeat and what would have followed it in
//!   that array are not.
//! - **A phrase said again and again.** SmolLM2-135M wrote a digest's body as `… is not
//!   only a [Brewing] but also a [Brewing] that is not only a [Brewing] but also …` to
//!   the end of its budget. When a string ends with one phrase written three times in a
//!   row (of [`MIN_PHRASE`] to [`MAX_PHRASE`] bytes, holding at least [`MIN_PHRASE_WORDS`]
//!   words with a letter, so `0, 0, 0, ` and a table's `|---|---|---|` are not phrases),
//!   the answer goes back to the end of its first saying and the string closes there.
//!
//! The decode loop (`generate.rs`) takes the tokens back only when the grammar allows the
//! close there (an array may have to hold more items, a string may have to be a quote
//! from the source); else the answer goes on as written, and the judge's `drop_repeats`
//! still drops a repeated claim.

use std::collections::HashSet;

use wikimind_text::key::topic_key;

/// The shortest phrase, in bytes, whose saying three times in a row is a loop.
pub(super) const MIN_PHRASE: usize = 8;
/// The longest phrase, in bytes, looked for.
pub(super) const MAX_PHRASE: usize = 256;
/// The fewest words with a letter a phrase holds.
pub(super) const MIN_PHRASE_WORDS: usize = 3;
/// The most arrays and objects deep whose items are watched.
const MAX_DEPTH: usize = 64;
/// The longest lead kept, in bytes (a lead is a claim or a name: a few hundred bytes).
const MAX_LEAD_BYTES: usize = 4096;

/// Where the answer should be taken back to, and what closes it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loop {
    /// A byte offset into the answer: the end of the item before a repeated item, or of
    /// the first saying of a phrase.
    pub(super) back_to: usize,
    /// What closes the answer there: `]` for an array, `"` for a string.
    pub(super) close: char,
}

/// Reads a JSON answer (or JSONL) piece by piece (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct AnswerLoops {
    /// Bytes of the answer read so far.
    at: usize,
    stack: Vec<Frame>,
    string: Option<Str>,
    /// A scalar (number, `true`, …) being read.
    in_scalar: bool,
}

#[derive(Debug)]
enum Frame {
    Array(Items),
    Object(Members),
}

/// An array being read.
#[derive(Debug, Default)]
struct Items {
    /// The keys of the items' leads so far.
    leads: HashSet<String>,
    /// Where the last whole item ended.
    last_end: Option<usize>,
}

/// An object being read.
#[derive(Debug)]
struct Members {
    /// The next string is a member's name.
    want_name: bool,
    /// Members whose value has begun.
    values: usize,
    /// This object is an item of the array below it, and its lead is its first member.
    item: bool,
}

/// A string being read.
#[derive(Debug)]
struct Str {
    /// Where its text starts in the answer.
    start: usize,
    /// Its text as written (escapes as written).
    raw: String,
    /// Its text read (escapes as what they say), when it is an item's lead.
    lead: Option<String>,
    /// After a backslash: how many characters of the escape are still to come (1, or 4
    /// after `\u`), with the hex digits read so far.
    escape: Option<(u8, String)>,
    /// It is a member's name.
    name: bool,
    /// Watched for a phrase said again (not once the caller let its loop be).
    watched: bool,
}

impl AnswerLoops {
    /// Reads the answer's next `piece`; the first loop it completes, if any.
    pub(super) fn push(&mut self, piece: &str) -> Option<Loop> {
        let mut first = None;
        for (i, c) in piece.char_indices() {
            let found = self.char(c, self.at + i);
            first = first.or(found);
        }
        self.at += piece.len();
        first
    }

    /// The string being written keeps its loop (the grammar would not close it there):
    /// it is no longer watched for one.
    pub(super) fn let_string_be(&mut self) {
        if let Some(s) = self.string.as_mut() {
            s.watched = false;
        }
    }

    fn char(&mut self, c: char, at: usize) -> Option<Loop> {
        if let Some(s) = self.string.as_mut() {
            return match s.read(c) {
                Read::Closed => {
                    let s = self.string.take()?;
                    self.string_ended(s, at + c.len_utf8())
                }
                Read::Text => s.phrase_loop(),
                Read::Escape => None,
            };
        }
        if self.in_scalar {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-') {
                return None;
            }
            self.in_scalar = false;
            self.value_ended(at);
        }
        match c {
            '"' => {
                let name = matches!(self.stack.last(), Some(Frame::Object(m)) if m.want_name);
                let lead = !name && self.value_begins(Kind::String);
                self.string = Some(Str {
                    start: at + 1,
                    raw: String::new(),
                    lead: lead.then(String::new),
                    escape: None,
                    name,
                    watched: !name,
                });
            }
            '{' => {
                let item = self.value_begins(Kind::Object);
                self.stack.push(Frame::Object(Members {
                    want_name: true,
                    values: 0,
                    item,
                }));
            }
            '[' => {
                self.value_begins(Kind::Other);
                self.stack.push(Frame::Array(Items::default()));
            }
            '}' | ']' => {
                self.stack.pop();
                self.value_ended(at + 1);
            }
            ',' => {
                if let Some(Frame::Object(m)) = self.stack.last_mut() {
                    m.want_name = true;
                }
            }
            ':' => {}
            c if c.is_whitespace() => {}
            _ => {
                self.value_begins(Kind::Other);
                self.in_scalar = true;
            }
        }
        None
    }

    /// A value of `kind` begins in the innermost container. Whether it carries an item's
    /// lead: a string that is an item or an item object's first member (its text is the
    /// lead), or an object that is an item (its first member will be).
    fn value_begins(&mut self, kind: Kind) -> bool {
        let watched = self.stack.len() <= MAX_DEPTH;
        match self.stack.last_mut() {
            Some(Frame::Array(_)) => watched && kind != Kind::Other,
            Some(Frame::Object(m)) => {
                m.values += 1;
                m.item && m.values == 1 && kind == Kind::String
            }
            None => false,
        }
    }

    /// A value that ended at `end` (a byte offset): when it was an item, the item ended.
    fn value_ended(&mut self, end: usize) {
        if let Some(Frame::Array(items)) = self.stack.last_mut() {
            items.last_end = Some(end);
        }
    }

    fn string_ended(&mut self, s: Str, end: usize) -> Option<Loop> {
        if s.name {
            if let Some(Frame::Object(m)) = self.stack.last_mut() {
                m.want_name = false;
            }
            return None;
        }
        let repeat = s.lead.and_then(|lead| self.lead_known(&lead));
        self.value_ended(end);
        repeat
    }

    /// The current item of the array that owns the lead just read says `lead`.
    fn lead_known(&mut self, lead: &str) -> Option<Loop> {
        let owner = match self.stack.last() {
            Some(Frame::Array(_)) => self.stack.len().checked_sub(1)?,
            Some(Frame::Object(m)) if m.item => self.stack.len().checked_sub(2)?,
            _ => return None,
        };
        let Some(Frame::Array(items)) = self.stack.get_mut(owner) else {
            return None;
        };
        let key = topic_key(lead);
        if key.is_empty() || items.leads.insert(key) {
            return None;
        }
        items.last_end.map(|back_to| Loop {
            back_to,
            close: ']',
        })
    }
}

/// What kind of value begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Object,
    Other,
}

/// What one character of a string was.
enum Read {
    Closed,
    /// Text, or the end of an escape.
    Text,
    /// Inside an escape.
    Escape,
}

impl Str {
    /// Reads one character of the string.
    fn read(&mut self, c: char) -> Read {
        if c == '"' && self.escape.is_none() {
            return Read::Closed;
        }
        if self.raw.len() < MAX_PHRASE * 64 {
            self.raw.push(c);
        } else {
            self.watched = false;
        }
        if let Some((left, hex)) = self.escape.as_mut() {
            if hex.is_empty() && *left == 1 && c == 'u' {
                *left = 4;
                hex.push('u');
                return Read::Escape;
            }
            if hex.starts_with('u') {
                hex.push(c);
                *left -= 1;
                if *left > 0 {
                    return Read::Escape;
                }
                let code = u32::from_str_radix(&hex[1..], 16).ok();
                self.keep(code.and_then(char::from_u32).unwrap_or(' '));
                self.escape = None;
                return Read::Text;
            }
            self.escape = None;
            self.keep(match c {
                'n' | 'r' | 't' | 'b' | 'f' => ' ',
                c => c,
            });
            return Read::Text;
        }
        if c == '\\' {
            self.escape = Some((1, String::new()));
            return Read::Escape;
        }
        self.keep(c);
        Read::Text
    }

    fn keep(&mut self, c: char) {
        if let Some(lead) = self.lead.as_mut() {
            if lead.len() < MAX_LEAD_BYTES {
                lead.push(c);
            }
        }
    }

    /// When the string's text ends with a phrase said three times in a row: where its
    /// first saying ends.
    fn phrase_loop(&self) -> Option<Loop> {
        if !self.watched {
            return None;
        }
        let keep = phrase_loop(&self.raw)?;
        Some(Loop {
            back_to: self.start + keep,
            close: '"',
        })
    }
}

/// When `raw` (a JSON string's text as written) ends with one phrase written three times
/// in a row, the length of `raw` up to the end of its first saying (see the module
/// documentation for what a phrase is). A phrase holds no backslash, so the cut is never
/// inside an escape.
pub(super) fn phrase_loop(raw: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    let n = bytes.len();
    for p in MIN_PHRASE..=MAX_PHRASE.min(n / 3) {
        let (third, second, first) = (
            &bytes[n - p..],
            &bytes[n - 2 * p..n - p],
            &bytes[n - 3 * p..n - 2 * p],
        );
        if third != second || second != first || !raw.is_char_boundary(n - p) {
            continue;
        }
        let phrase = &raw[n - p..];
        if phrase.contains('\\') || cyclic_words(phrase) < MIN_PHRASE_WORDS {
            continue;
        }
        return Some(n - 2 * p);
    }
    None
}

/// The words with a letter in `phrase` read as a loop reads it, its end joined to its
/// start: `ery very v` is two words (`very`, `vvery` read round), not three.
fn cyclic_words(phrase: &str) -> usize {
    let chars: Vec<char> = phrase.chars().collect();
    let n = chars.len();
    (0..n)
        .filter(|&i| chars[i].is_alphanumeric() && !chars[(i + n - 1) % n].is_alphanumeric())
        .filter(|&i| {
            (0..n)
                .map(|k| chars[(i + k) % n])
                .take_while(|c| c.is_alphanumeric())
                .any(char::is_alphabetic)
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `answer` in pieces of about `size` bytes (at character boundaries); the
    /// first loop.
    fn first_loop(answer: &str, size: usize) -> Option<Loop> {
        let mut loops = AnswerLoops::default();
        let mut rest = answer;
        while !rest.is_empty() {
            let mut cut = size.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (piece, after) = rest.split_at(cut);
            if let Some(found) = loops.push(piece) {
                return Some(found);
            }
            rest = after;
        }
        None
    }

    /// What the answer keeps when it is closed where the first loop says.
    fn closed(answer: &str, size: usize) -> Option<String> {
        let found = first_loop(answer, size)?;
        Some(format!("{}{}", &answer[..found.back_to], found.close))
    }

    /// As SmolLM2-135M wrote a digest of one note: one claim, then the same claim again
    /// until the 8-item bound.
    #[test]
    fn a_claim_said_again_closes_the_claims_after_the_first() {
        let claim = r#"{"claim": "The 100% Natural Coffee", "confidence": "sourced", "quote": "100% natural coffee"}"#;
        let answer = format!(
            r#"{{"title": "Coffee", "key_claims": [{}], "concepts": []}}"#,
            [claim; 8].join(", ")
        );
        for size in [1, 3, 7, 64, 10_000] {
            let kept = closed(&answer, size).expect("the second claim repeats the first");
            assert_eq!(
                kept,
                format!(r#"{{"title": "Coffee", "key_claims": [{claim}]"#),
                "pieces of {size}"
            );
        }
        // The same claim in other words' case, spacing and punctuation is the same claim;
        // an item is known by its claim, whatever its quote.
        let answer = r#"{"key_claims": [{"claim": "Coffee is hot.", "quote": "a b"}, {"claim": "Tea is green", "quote": "c d"}, {"claim": "  coffee IS hot", "quote": "e f"}]}"#;
        assert_eq!(
            closed(answer, 5).unwrap(),
            r#"{"key_claims": [{"claim": "Coffee is hot.", "quote": "a b"}, {"claim": "Tea is green", "quote": "c d"}]"#
        );
    }

    #[test]
    fn names_and_questions_said_again_close_their_array() {
        let answer = r#"{"concepts": ["Espresso", "Crema", "espressos"], "open_questions": []}"#;
        assert_eq!(
            closed(answer, 4).unwrap(),
            r#"{"concepts": ["Espresso", "Crema"]"#
        );
        // Escapes are read as what they say.
        let answer = r#"["Caf\u00e9 \"noir\"", "café noir"]"#;
        assert_eq!(closed(answer, 2).unwrap(), r#"["Caf\u00e9 \"noir\""]"#);
    }

    #[test]
    fn distinct_items_and_items_without_a_lead_never_repeat() {
        for answer in [
            // Distinct claims, and the same quote under two claims.
            r#"{"key_claims": [{"claim": "A is b", "quote": "x y"}, {"claim": "C is d", "quote": "x y"}]}"#,
            // Equal items in different arrays.
            r#"{"concepts": ["Milk"], "backlink_suggestions": ["Milk"], "open_questions": ["Milk"]}"#,
            // Objects that do not lead with a string, numbers, booleans, nulls.
            r#"[{"n": 1, "claim": "x"}, {"n": 1, "claim": "x"}, 3, 3, true, true, null, null]"#,
            // Leads with no letter or digit.
            r#"["...", "...", "", ""]"#,
            // Arrays as items have no lead.
            r#"[["a", "b"], ["a", "b"]]"#,
            // A string holding JSON's punctuation is text.
            r#"["a, \"b\"] {", "a, b] {c"]"#,
            "",
            // Objects that are not items.
            r#"{"claim": "x"} {"claim": "x"}"#,
            // Member names are not leads.
            r#"[{"claim": "x"}, {"claim": "y"}]"#,
        ] {
            assert_eq!(first_loop(answer, 3), None, "{answer}");
        }
        // An array's items are watched in their own array.
        assert_eq!(
            first_loop(r#"[["a", "a"]]"#, 1),
            Some(Loop {
                back_to: 5,
                close: ']'
            })
        );
    }

    /// As SmolLM2-135M wrote a digest's body, to the end of its budget.
    #[test]
    fn a_phrase_said_three_times_in_a_row_closes_its_string_after_the_first() {
        let phrase = "that is not only a [Brewing] but also a [Brewing] ";
        let body = format!("The [Brewing] is a [Brewing] {}", phrase.repeat(20));
        let answer = format!(r#"{{"title": "Brew Ratio", "article_body": "{body}"}}"#);
        for size in [1, 5, 64] {
            assert_eq!(
                closed(&answer, size).unwrap(),
                // The text repeats from `a [Brewing] that …` on; it is cut as soon as it
                // has said that once and then twice more, after the first saying.
                r#"{"title": "Brew Ratio", "article_body": "The [Brewing] is a [Brewing] that is not only a [Brewing] but also""#,
                "pieces of {size}"
            );
        }
        // Said twice is not a loop; nor are a table's rule, numbers, or one word said
        // fewer than nine times.
        for text in [
            phrase.repeat(2),
            "|---------|---------|---------|---------|".into(),
            "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ".into(),
            "very very very very very very very very ".into(),
        ] {
            assert_eq!(phrase_loop(&text), None, "{text:?}");
            assert_eq!(first_loop(&format!("[\"{text}\"]"), 3), None, "{text:?}");
        }
        // A phrase with an escape is not cut.
        assert_eq!(phrase_loop(&"a \\\"b\\\" c d ".repeat(3)), None);
        // Three words, three times; one word nine times.
        assert_eq!(phrase_loop(&"one two three ".repeat(3)), Some(14));
        assert_eq!(phrase_loop(&"very ".repeat(9)), Some(15));
        assert_eq!(cyclic_words("ery very v"), 2);
        assert_eq!(cyclic_words("one two three "), 3);
        assert_eq!(cyclic_words("12 34 a"), 1);
        // A loop in a member name is not a loop of the answer.
        assert_eq!(
            first_loop(&format!("{{\"{}\": 1}}", "one two three ".repeat(3)), 4),
            None
        );
    }

    #[test]
    fn a_string_let_be_is_no_longer_watched() {
        let mut loops = AnswerLoops::default();
        let looped = "one two three ".repeat(3);
        let found = loops.push(&format!("[\"{looped}"));
        assert_eq!(
            found,
            Some(Loop {
                back_to: 2 + 14,
                close: '"'
            })
        );
        loops.let_string_be();
        assert_eq!(loops.push(&looped), None);
        // The next string is watched again.
        assert!(loops.push(&format!("\", \"{looped}")).is_some());
    }

    /// Hostile answers: anything a model may write, cut anywhere, never panics, and a
    /// loop always goes back to a place the answer has reached, at a character boundary.
    #[test]
    fn any_text_is_read_without_panicking() {
        let texts = [
            "]]]]}}}}".to_string(),
            "[[[[[[\"\\".into(),
            "[\"\\u12\", \"\\u12\"]".into(),
            "[\"\\uZZZZ\", \"\\uZZZZ\"]".into(),
            "[\"\\ud800\", \"\\ud800\"]".into(),
            "[1e5, 1e5, -0.5, \"\u{0}\", \"\u{0}\"]".into(),
            "{\"a\": [\"x\", \"x\"]]]]".into(),
            format!("[\"{}\"]", "é ü ß ".repeat(40)),
            format!("[\"{}\"]", "日本語 の 文 ".repeat(40)),
        ];
        for text in &texts {
            for size in 1..5 {
                if let Some(found) = first_loop(text, size) {
                    assert!(found.back_to <= text.len(), "{text}");
                    assert!(text.is_char_boundary(found.back_to), "{text}");
                }
            }
        }
        let deep = "[".repeat(10_000) + &"\"a\", ".repeat(3);
        assert_eq!(first_loop(&deep, 100), None);
    }
}
