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
}
