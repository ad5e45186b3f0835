//! How much prose a text holds: its sentences, the measure lint's thin check applies to a
//! page's body. The store counts every body it writes with [`sentences`] and records the
//! count under [`SENTENCES_RULE`], so the check reads a count instead of every body.

/// The version of [`sentences`]'s rule. Counts recorded under another version are not
/// used (the body is read again), so a change to the rule raises this number.
pub const SENTENCES_RULE: u32 = 1;

/// How many sentences `body` holds: runs of text ending in `.`, `!` or `?` (or the end)
/// with at least three words, headings and list markers counted as text. A word is a run
/// of alphanumeric characters; a `.`, `!` or `?` ends a sentence when whitespace, `)` or
/// the end follows it; a blank line (`\n\n`) ends one too.
///
/// Read byte by byte, a character decoded only where a byte is not ASCII: every body a
/// wiki writes is counted, 100,000 of them when a large wiki's counts are made again.
pub fn sentences(body: &str) -> usize {
    let bytes = body.as_bytes();
    // The character at `at` (a character boundary), and its length.
    let char_at = |at: usize| {
        body.get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or(('\0', 1), |c| (c, c.len_utf8()))
    };
    let (mut count, mut words, mut in_word) = (0, 0, false);
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let (alphanumeric, len) = if byte.is_ascii() {
            (byte.is_ascii_alphanumeric(), 1)
        } else {
            let (c, len) = char_at(at);
            (c.is_alphanumeric(), len)
        };
        at += len;
        if alphanumeric {
            if !in_word {
                words += 1;
            }
            in_word = true;
            continue;
        }
        in_word = false;
        let ends = matches!(byte, b'.' | b'!' | b'?')
            && match bytes.get(at) {
                None => true,
                Some(&next) if next.is_ascii() => char::from(next).is_whitespace() || next == b')',
                Some(_) => char_at(at).0.is_whitespace(),
            };
        if ends || byte == b'\n' && bytes.get(at) == Some(&b'\n') {
            if words >= 3 {
                count += 1;
            }
            words = 0;
        }
    }
    if words >= 3 {
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn counts_sentences_of_three_words_or_more() {
        let cases: &[(&str, usize)] = &[
            ("", 0),
            ("Espresso.", 0),
            ("Espresso is coffee. It is strong! Is it good?", 3),
            ("# Heading here\n\nOne short line", 1),
            ("Version 1.5 of the tool is out. Done", 1),
        ];
        for &(body, n) in cases {
            assert_eq!(sentences(body), n, "{body:?}");
        }
    }

    /// The rule as first written, a character at a time: what the byte loop must count.
    fn sentences_by_chars(body: &str) -> usize {
        let (mut count, mut words, mut in_word) = (0, 0, false);
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_alphanumeric() {
                if !in_word {
                    words += 1;
                }
                in_word = true;
                continue;
            }
            in_word = false;
            let ends = matches!(c, '.' | '!' | '?')
                && chars.peek().is_none_or(|n| n.is_whitespace() || *n == ')');
            if ends || c == '\n' && chars.peek() == Some(&'\n') {
                if words >= 3 {
                    count += 1;
                }
                words = 0;
            }
        }
        if words >= 3 {
            count += 1;
        }
        count
    }

    proptest::proptest! {
        #[test]
        fn sentences_are_counted_as_character_by_character(
            body in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::string::string_regex("[a-zA-Z0-9]{1,6}").unwrap(),
                    proptest::sample::select(vec![
                        " ", ".", "!", "?", ")", "\n", "\n\n", "\t", "\u{b}", "\u{a0}",
                        "\u{2003}", "é", "日本", "\u{301}", "-", "# ", "1.5", "…", "\u{1F600}",
                        "٣", "Ⅻ",
                    ])
                    .prop_map(|piece: &str| piece.to_owned()),
                ],
                0..60,
            ).prop_map(|pieces| pieces.concat())
        ) {
            proptest::prop_assert_eq!(sentences(&body), sentences_by_chars(&body));
        }
    }
}
