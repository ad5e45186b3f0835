//! Where a claim's quote sits in its source, for showing it to a person.
//!
//! Whether a quote is in a source is decided by grounding ([`GroundingIndex::contains`]);
//! this module only finds *where*, under the same normalisation (case, whitespace, curly
//! quotes and dashes, markdown emphasis), so a claim the core grounded is always shown with
//! its quote marked, and the shells never search text themselves.

use std::ops::Range;

use crate::ground::index::GroundingIndex;

/// The byte range of `text` that holds `quote`, or `None` when grounding does not find it.
///
/// An exact match (after normalisation) marks the quote itself; a quote with `...` marks
/// from its first piece to its last; a near match (grounded by its word pairs) marks from
/// the first three quoted words found in the source to the last three found after them
/// ([`wikimind_text::anchor::locate_pieces`]). The range always starts and ends on
/// character boundaries of `text`.
pub fn locate_quote(text: &str, quote: &str) -> Option<Range<usize>> {
    if !GroundingIndex::new(text).contains(quote) {
        return None;
    }
    let pieces = wikimind_text::anchor::locate_pieces(text, quote)?;
    Some(pieces.first()?.start..pieces.last()?.end)
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
