//! Where a claim's quote sits in its source, for showing it to a person.
//!
//! Whether a quote is in a source is decided by grounding ([`GroundingIndex::contains`]);
//! this module only finds *where*, under the same normalisation (case, whitespace, curly
//! quotes and dashes, markdown emphasis), so a claim the core grounded is always shown with
//! its quote marked, and the shells never search text themselves.

use std::ops::Range;

use crate::ground::index::{normalise_char, GroundingIndex};

/// The byte range of `text` that holds `quote`, or `None` when grounding does not find it.
///
/// An exact match (after normalisation) marks the quote itself; a quote with `...` marks
/// from its first piece to its last; a near match (grounded by its word pairs) marks from
/// the first three quoted words found in the source to the last three found after them.
/// The range always starts and ends on character boundaries of `text`.
pub fn locate_quote(text: &str, quote: &str) -> Option<Range<usize>> {
    if !GroundingIndex::new(text).contains(quote) {
        return None;
    }
    let mapped = Mapped::new(text);
    let pieces: Vec<String> = quote
        .split("...")
        .flat_map(|p| p.split('…'))
        .map(|p| Mapped::new(p).text)
        .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    let exact = (|| {
        let mut from = 0;
        let mut range: Option<Range<usize>> = None;
        for piece in &pieces {
            let at = find_words(&mapped.text, piece, from)?;
            from = at + piece.len();
            range = Some(match range {
                None => at..from,
                Some(r) => r.start..from,
            });
        }
        range
    })();
    let found = exact.or_else(|| near(&mapped.text, &pieces))?;
    Some(mapped.original(found))
}

/// Normalised text with, for each of its bytes, where its character starts in the original.
struct Mapped {
    text: String,
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl Mapped {
    fn new(original: &str) -> Mapped {
        let mut text = String::with_capacity(original.len());
        let mut starts = Vec::with_capacity(original.len());
        let mut ends = Vec::with_capacity(original.len());
        let mut space = true;
        for (at, c) in original.char_indices() {
            let end = at + c.len_utf8();
            match normalise_char(c) {
                None => {
                    if !space {
                        text.push(' ');
                        starts.push(at);
                        ends.push(end);
                    }
                    space = true;
                }
                Some(lower) => {
                    for l in lower {
                        let before = text.len();
                        text.push(l);
                        starts.extend(std::iter::repeat_n(at, text.len() - before));
                        ends.extend(std::iter::repeat_n(end, text.len() - before));
                    }
                    space = false;
                }
            }
        }
        if text.ends_with(' ') {
            text.pop();
            starts.pop();
            ends.pop();
        }
        Mapped { text, starts, ends }
    }

    /// The original byte range of the normalised range `r` (not empty, within the text).
    fn original(&self, r: Range<usize>) -> Range<usize> {
        let last = r.end.saturating_sub(1).max(r.start);
        self.starts[r.start]..self.ends[last]
    }
}

/// The first match of `piece` in `text` at or after `from`, starting and ending at word
/// boundaries (the rule grounding uses).
fn find_words(text: &str, piece: &str, from: usize) -> Option<usize> {
    let edge_ok = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
    let starts_word = piece.chars().next().is_some_and(char::is_alphanumeric);
    let ends_word = piece.chars().next_back().is_some_and(char::is_alphanumeric);
    let rest = text.get(from..)?;
    rest.match_indices(piece)
        .map(|(at, _)| from + at)
        .find(|&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + piece.len()..].chars().next();
            (!starts_word || edge_ok(before)) && (!ends_word || edge_ok(after))
        })
}

/// Three words of a near-match quote found in the source, and the last three found after
/// them: the part of the source the quote was grounded in.
fn near(text: &str, pieces: &[String]) -> Option<Range<usize>> {
    let words: Vec<&str> = pieces
        .iter()
        .flat_map(|p| p.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let window = words.len().min(3);
    if window == 0 {
        return None;
    }
    let phrases: Vec<String> = words.windows(window).map(|w| w.join(" ")).collect();
    let (first, start) = phrases
        .iter()
        .enumerate()
        .find_map(|(i, p)| find_words(text, p, 0).map(|at| (i, at)))?;
    let end = phrases[first..]
        .iter()
        .rev()
        .find_map(|p| find_words(text, p, start).map(|at| at + p.len()))?;
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked<'a>(text: &'a str, quote: &str) -> Option<&'a str> {
        locate_quote(text, quote).map(|r| &text[r])
    }

    #[test]
    fn an_exact_quote_is_marked_in_the_original_spelling() {
        let text = "Rust’s ownership model guarantees memory   safety without a garbage collector.";
        assert_eq!(
            marked(text, "rust's OWNERSHIP model"),
            Some("Rust’s ownership model")
        );
        assert_eq!(
            marked(text, "memory safety without"),
            Some("memory   safety without")
        );
        assert_eq!(marked(text, "no such words here"), None);
        assert_eq!(marked(text, "ownership"), None, "one word is not a quote");
    }

    #[test]
    fn markdown_emphasis_and_line_breaks_do_not_hide_a_quote() {
        let text =
            "Each value has a variable called its *owner*.\nThere can only be one owner at a time.";
        assert_eq!(
            marked(text, "called its owner. There can only"),
            Some("called its *owner*.\nThere can only")
        );
    }

    #[test]
    fn a_quote_with_an_ellipsis_spans_its_pieces() {
        let text = "Espresso is brewed at nine bars. Crema forms on top. It is served at once.";
        assert_eq!(
            marked(text, "brewed at nine bars ... served at once"),
            Some("brewed at nine bars. Crema forms on top. It is served at once")
        );
    }

    #[test]
    fn a_near_quote_marks_the_part_it_was_grounded_in() {
        let text = "Before. The grinder must be set finer when the shot runs too fast and coarser when it chokes the machine. After.";
        let quote = "the grinder should be set finer when the shot runs too fast and coarser when it chokes the machine";
        let got = marked(text, quote).expect("grounded, so located");
        assert!(got.starts_with("be set finer when"), "{got}");
        assert!(got.ends_with("chokes the machine"), "{got}");
    }

    #[test]
    fn multibyte_text_keeps_character_boundaries() {
        let text = "Ｃａｆé\u{00A0}crème: le café\u{3000}est servi très chaud 🔥 ici.";
        let got = marked(text, "le café est servi très chaud").expect("found");
        assert_eq!(got, "le café\u{3000}est servi très chaud");
        // A letter whose lowercase is longer than itself (İ lowercases to i and a dot).
        let text = "İstanbul has two shores, one in Europe.";
        assert_eq!(marked(text, "İSTANBUL has two"), Some("İstanbul has two"));
        assert_eq!(marked(text, "two shores, one"), Some("two shores, one"));
    }
}
