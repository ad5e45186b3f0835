//! Topic names: when two spellings name one topic.
//!
//! A wiki page is about one topic, and sources spell topics many ways: `Espresso`,
//! `espresso`, `Espressos`, `Café crème` and `Cafe Creme`, `Newton's laws` and `Newtons
//! Laws`. [`topic_key`] maps every spelling of a topic to one key; pages are found by it, and
//! the spellings seen become aliases. Its rules, in order:
//!
//! 1. Compatibility decomposition (NFKD), then diacritics (combining marks) dropped and the
//!    text lowercased: `Café` is `cafe`, `ﬁle` is `file`.
//! 2. Apostrophes are dropped (`Newton's` is `newtons`); `+` and `#` stay part of the word
//!    they follow (`C`, `C++` and `C#` are three topics); every other character that is not
//!    a letter or a digit separates words, as does a change between letters and digits
//!    (`Python3` is `python 3`). Runs of separators are one space.
//! 3. Regular English plurals: a word of plain ASCII letters loses its plural ending, and
//!    its singular is brought to the same form (`espressos` and `espresso`, `boxes` and
//!    `box`, `berries` and `berry`, `buses` and `bus`). The key is for matching only and is
//!    never shown: `horse` and `horses` both become `hors`.
//!
//! Numbers never merge: `Model 2` and `Model 3` keep different keys. Nothing else is merged
//! automatically; two names that differ in a word are two topics.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The key every spelling of one topic shares (see the module documentation): lowercase
/// words separated by single spaces, empty when `name` has no letter or digit.
pub fn topic_key(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut last: Option<char> = None;
    for c in name.nfkd().filter(|c| !is_combining_mark(*c)) {
        if is_apostrophe(c) {
            continue;
        }
        let joins = match c {
            '+' | '#' => last.is_some_and(|l| l.is_alphanumeric() || l == '+' || l == '#'),
            c if c.is_alphanumeric() => {
                !last.is_some_and(|l| l.is_alphanumeric() && l.is_numeric() != c.is_numeric())
            }
            _ => false,
        };
        if !joins || c == ' ' {
            end_word(&mut word, &mut words);
        }
        if c.is_alphanumeric() || (joins && (c == '+' || c == '#')) {
            // Final sigma is a lowercase sigma at the end of a word: one letter for keys.
            word.extend(c.to_lowercase().map(|l| if l == 'ς' { 'σ' } else { l }));
            last = Some(c);
        } else {
            last = None;
        }
    }
    end_word(&mut word, &mut words);
    words.join(" ")
}

fn end_word(word: &mut String, words: &mut Vec<String>) {
    if !word.is_empty() {
        words.push(singular(word));
        word.clear();
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{02BC}')
}

/// One form for a word and its regular English plural. Only words of plain ASCII letters
/// are touched: a plural `s` goes (not from `ss`, `us` or `is`, nor from a word of three
/// letters or fewer), then `ie` becomes `y`, then an `e` after `s`, `x`, `z`, `ch` or `sh`
/// goes — applied to singulars too, so both forms meet.
fn singular(word: &str) -> String {
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut w = word;
    if w.len() > 3
        && w.ends_with('s')
        && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
    {
        w = &w[..w.len() - 1];
    }
    if let Some(stem) = w.strip_suffix("ie") {
        if !stem.is_empty() {
            return format!("{stem}y");
        }
    }
    if let Some(stem) = w.strip_suffix('e') {
        if ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|end| stem.ends_with(end))
        {
            return stem.to_string();
        }
    }
    w.to_string()
}

/// The one title key: pages, digests, concepts and link targets are all found by it. The
/// [`topic_key`] of a name, or — for a name with no letter or digit, which has no topic
/// key — the name trimmed, lowercased and with runs of white space as one space (which no
/// topic key can equal, as topic keys hold only letters, digits, `+`, `#` and spaces).
pub fn page_key(name: &str) -> String {
    let key = topic_key(name);
    if key.is_empty() {
        normalize_title(name)
    } else {
        key
    }
}

/// The fallback of [`page_key`] for a name with no letter or digit (`+`, `???`): trimmed,
/// lowercased, inner runs of whitespace collapsed to one space. Never a key on its own:
/// every title, concept name and link target is matched by [`page_key`].
fn normalize_title(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spellings_of_one_topic_share_a_key() {
        let same = [
            &[
                "Espresso",
                "espresso",
                "Espressos",
                "  ESPRESSO\n",
                "espresso.",
            ][..],
            &["Café crème", "Cafe Creme", "CAFÉ-CRÈME", "cafe  creme"],
            &["Newton's laws", "Newtons Laws", "Newton’s law"],
            &["Box", "boxes"],
            &["Church", "churches"],
            &["Berry", "berries"],
            &["Bus", "buses"],
            &["Glass", "glasses"],
            &["Horse", "horses"],
            &["Movie", "movies"],
            &["Library", "Libraries"],
            &["Status", "statuses"],
            &["Cold brew", "cold-brew", "Cold_Brew", "cold brews"],
            &["Python 3", "Python3", "python-3"],
            &["ﬁle system", "File systems"],
        ];
        for group in same {
            let key = topic_key(group[0]);
            assert!(!key.is_empty(), "{group:?}");
            for name in group {
                assert_eq!(topic_key(name), key, "{name:?} and {:?}", group[0]);
            }
        }
    }

    #[test]
    fn different_topics_keep_different_keys() {
        let apart = [
            ("Model 2", "Model 3"),
            ("GPT-4", "GPT-3"),
            ("C", "C++"),
            ("C", "C#"),
            ("C++", "C#"),
            ("Espresso", "Espresso machine"),
            ("Gas", "Ga"),
            ("Rust", "Rusty"),
            ("Tea", "Team"),
            ("2", "22"),
        ];
        for (a, b) in apart {
            assert_ne!(topic_key(a), topic_key(b), "{a:?} and {b:?}");
        }
    }

    #[test]
    fn keys_are_plain_words() {
        assert_eq!(topic_key("  Milk   Foam  "), "milk foam");
        assert_eq!(topic_key("C++ templates"), "c++ template");
        assert_eq!(topic_key("F# (language)"), "f# language");
        assert_eq!(topic_key("東京 タワー"), "東京 タワー");
        assert_eq!(topic_key("Ωμέγα"), "ωμεγα");
        assert_eq!(topic_key("ΟΔΟΣ"), topic_key("οδος"));
        assert_eq!(topic_key("--- !!! ---"), "");
        assert_eq!(topic_key(""), "");
        assert_eq!(topic_key("+#"), "", "a symbol is part of a word, never one");
    }

    proptest! {
        #[test]
        fn any_name_gives_a_tidy_key(name in prop_oneof!["\\PC{0,40}", crate::hostile::text(12)]) {
            let key = topic_key(&name);
            prop_assert!(!key.starts_with(' ') && !key.ends_with(' '));
            prop_assert!(!key.contains("  "));
            prop_assert_eq!(key.to_lowercase(), key.clone());
            prop_assert!(!key.chars().any(char::is_control));
            // Case and surrounding space never change the topic.
            prop_assert_eq!(topic_key(&name.to_lowercase()), key.clone());
            prop_assert_eq!(topic_key(&format!(" \t{name}. ")), key);
        }
    }
}
