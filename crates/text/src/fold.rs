//! The quote fold: how two texts are compared when a quote is looked for in a source.
//! Case, whitespace, quote characters and dashes do not count, and markdown emphasis marks
//! read as spaces. Grounding (the engine), the quote marked on a page (the app) and every
//! other comparison of quoted text use this one rule.

/// Lowercases, unifies quote characters and dashes, and collapses whitespace.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = true;
    for c in text.chars() {
        // The common case first: an ASCII letter or digit only changes case.
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
            space = false;
            continue;
        }
        match normalise_char(c) {
            None => {
                if !space {
                    out.push(' ');
                }
                space = true;
            }
            Some(lower) => {
                out.extend(lower);
                space = false;
            }
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// The characters the fold writes as another, with what it writes: curly quotes, primes and
/// the backtick as a straight quote, double ones and guillemets as a double quote, dashes
/// and the minus sign as a hyphen. The desktop app's quote marking reads this table (it is
/// generated into the UI's bindings), so both sides fold alike.
pub const EQUIVALENTS: &[(char, char)] = &[
    ('\u{2018}', '\''),
    ('\u{2019}', '\''),
    ('\u{201A}', '\''),
    ('\u{201B}', '\''),
    ('\u{2032}', '\''),
    ('`', '\''),
    ('\u{201C}', '"'),
    ('\u{201D}', '"'),
    ('\u{201E}', '"'),
    ('\u{201F}', '"'),
    ('\u{2033}', '"'),
    ('\u{AB}', '"'),
    ('\u{BB}', '"'),
    ('\u{2010}', '-'),
    ('\u{2011}', '-'),
    ('\u{2012}', '-'),
    ('\u{2013}', '-'),
    ('\u{2014}', '-'),
    ('\u{2015}', '-'),
    ('\u{2212}', '-'),
];

/// Characters read as a space besides white space: markdown emphasis marks, which a quote
/// may carry and a rendered page does not show.
pub const READ_AS_SPACE: &[char] = &['*', '_'];

/// One character as [`normalise`] writes it: `None` for white space and
/// [`READ_AS_SPACE`], else its lowercase, [`EQUIVALENTS`] applied first.
pub fn normalise_char(c: char) -> Option<std::char::ToLowercase> {
    if c.is_whitespace() || READ_AS_SPACE.contains(&c) {
        return None;
    }
    let c = EQUIVALENTS
        .iter()
        .find(|(from, _)| *from == c)
        .map_or(c, |(_, to)| *to);
    Some(c.to_lowercase())
}

/// Part of one piece of a text read in pieces: bytes `start..end` of piece `piece`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Which piece.
    pub piece: usize,
    /// Where the part starts in it (a byte offset on a character boundary).
    pub start: usize,
    /// Where the part ends in it (a byte offset on a character boundary).
    pub end: usize,
}

/// Where `quote` is in a text read as `pieces` in order (the text runs of a rendered page,
/// say), compared by the fold as a person reads rendered text: as [`normalise`] does, and
/// with backticks unseen (a rendered code span does not show its marks; the fold writes a
/// backtick as a quote only to compare markdown with markdown). White space may fall
/// between pieces only where a piece holds it, so a caller puts a piece of white space
/// between blocks. Returns the part of each piece the first match covers, in order (white
/// space included), or `None` when the quote is not there or reads as nothing.
pub fn find_as_read(pieces: &[&str], quote: &str) -> Option<Vec<Span>> {
    let mut text = String::new();
    // For each byte of `text`, the piece and the bytes of the character it was folded from.
    let mut from: Vec<Span> = Vec::new();
    let mut space = true;
    for (piece, part) in pieces.iter().enumerate() {
        for (start, c) in part.char_indices() {
            let span = Span {
                piece,
                start,
                end: start + c.len_utf8(),
            };
            if c == '`' {
                continue;
            }
            match normalise_char(c) {
                None if space => {}
                None => {
                    space = true;
                    text.push(' ');
                    from.push(span);
                }
                Some(lower) => {
                    space = false;
                    for folded in lower {
                        text.push(folded);
                        from.extend(std::iter::repeat_n(span, folded.len_utf8()));
                    }
                }
            }
        }
    }
    let wanted = normalise(&quote.replace('`', ""));
    if wanted.is_empty() {
        return None;
    }
    let at = text.find(&wanted)?;
    let (first, last) = (from[at], from[at + wanted.len() - 1]);
    let spans = (first.piece..=last.piece)
        .map(|piece| Span {
            piece,
            start: if piece == first.piece { first.start } else { 0 },
            end: if piece == last.piece {
                last.end
            } else {
                pieces[piece].len()
            },
        })
        .filter(|s| s.end > s.start)
        .collect();
    Some(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_marks_dashes_and_emphasis_fold_alike() {
        let cases = [
            ("It\u{2019}s \u{201C}fine\u{201D}", "it's \"fine\""),
            (
                "\u{AB}Bonjour\u{BB} \u{2014} dit-il",
                "\"bonjour\" - dit-il",
            ),
            ("\u{201B}odd\u{201F} marks", "'odd\" marks"),
            ("x \u{2212} y", "x - y"),
            ("`code`", "'code'"),
            ("*bold* and _em_", "bold and em"),
            ("a\u{A0}b\u{3000}c", "a b c"),
            ("  MIXED   Case\n", "mixed case"),
        ];
        for (text, want) in cases {
            assert_eq!(normalise(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_quote_is_found_across_pieces_as_read() {
        let pieces = [
            "It\u{2019}s the ",
            "base",
            " of a cappuccino \u{2014} with ",
            "Milk Foam",
            " on top.",
        ];
        let spans = find_as_read(
            &pieces,
            "it's the *base* of a cappuccino - with `Milk Foam` on",
        )
        .unwrap();
        let marked: Vec<&str> = spans
            .iter()
            .map(|s| &pieces[s.piece][s.start..s.end])
            .collect();
        assert_eq!(
            marked,
            [
                "It\u{2019}s the ",
                "base",
                " of a cappuccino \u{2014} with ",
                "Milk Foam",
                " on"
            ]
        );
        // Multibyte characters keep their byte bounds; case folds.
        let cafe = ["\u{1F600} caf\u{e9} cr\u{e8}me"];
        assert_eq!(
            find_as_read(&cafe, "CR\u{c8}ME"),
            Some(vec![Span {
                piece: 0,
                start: 11,
                end: 17
            }])
        );
        assert_eq!(
            find_as_read(&["Espresso is brewed."], "Tea is brewed."),
            None
        );
        assert_eq!(find_as_read(&["anything"], "  * _ ` "), None);
        // No space is read between pieces that hold none.
        assert_eq!(find_as_read(&["end.", "Next"], "end. Next"), None);
        assert!(find_as_read(&["end.", " ", "Next"], "end. Next").is_some());
    }
}
