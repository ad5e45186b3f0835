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

/// One character as [`normalise`] writes it: `None` for whitespace (and markdown emphasis
/// marks, read as spaces), else its lowercase with quote characters and dashes unified.
pub fn normalise_char(c: char) -> Option<std::char::ToLowercase> {
    let c = match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' | '`' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '«' | '»' => '"',
        '\u{2010}'..='\u{2015}' => '-',
        '*' | '_' => return None,
        c if c.is_whitespace() => return None,
        c => c,
    };
    Some(c.to_lowercase())
}
