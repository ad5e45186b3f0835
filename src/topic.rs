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

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::collections::HashSet;
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

/// A known name (a page title, an alias or a concept) and how much the wiki uses it (how
/// many links point to it): what [`NameIndex`] chooses from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownName {
    /// The name as the wiki shows it.
    pub name: String,
    /// How many links point to it; the most used names fill the room left in a prompt.
    pub uses: u64,
}

/// The names a text should be offered: every known name that occurs in it (by
/// [`topic_key`], on word boundaries, so `espressos` in a source finds the page
/// `Espresso`), then the most used names, up to a limit.
///
/// Built once over the wiki's names (its cost grows with them) and asked once per text
/// (its cost grows with the text, not with the wiki).
#[derive(Debug)]
pub struct NameIndex {
    /// The names with a key, most used first (ties by key, so the order is stable).
    names: Vec<(String, String)>,
    /// For each pattern of `matcher`: the index into `names` of the most used name with
    /// that key.
    patterns: Vec<usize>,
    matcher: Option<AhoCorasick>,
}

impl NameIndex {
    /// An index over `names` (names without a letter or digit are left out).
    pub fn new(names: Vec<KnownName>) -> NameIndex {
        let mut keyed: Vec<(u64, String, String)> = names
            .into_iter()
            .map(|n| (n.uses, topic_key(&n.name), n.name))
            .filter(|(_, key, _)| !key.is_empty())
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let names: Vec<(String, String)> = keyed
            .into_iter()
            .map(|(_, key, name)| (key, name))
            .collect();
        let mut seen = HashSet::new();
        let mut patterns = Vec::new();
        let mut texts = Vec::new();
        for (i, (key, _)) in names.iter().enumerate() {
            if seen.insert(key.as_str()) {
                patterns.push(i);
                // Spaces around the key: a match starts and ends on word boundaries of the
                // text's key, which is padded too.
                texts.push(format!(" {key} "));
            }
        }
        let matcher = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(&texts)
            .ok();
        NameIndex {
            names,
            patterns,
            matcher,
        }
    }

    /// How many names the index holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the index holds no name.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// At most `limit` names for `text`: those that occur in it (the most used first),
    /// then the most used of the rest. A topic is listed once, under its most used
    /// spelling.
    pub fn relevant(&self, text: &str, limit: usize) -> Vec<String> {
        let mut chosen: Vec<usize> = Vec::new();
        let mut taken = HashSet::new();
        if let Some(matcher) = &self.matcher {
            let haystack = format!(" {} ", topic_key(text));
            let mut found: Vec<usize> = matcher
                .find_overlapping_iter(&haystack)
                .map(|m| self.patterns[m.pattern().as_usize()])
                .collect();
            found.sort_unstable();
            found.dedup();
            chosen.extend(found.into_iter().take(limit));
            taken.extend(chosen.iter().map(|&i| self.names[i].0.as_str()));
        }
        for (i, (key, _)) in self.names.iter().enumerate() {
            if chosen.len() >= limit {
                break;
            }
            if taken.insert(key.as_str()) {
                chosen.push(i);
            }
        }
        chosen
            .into_iter()
            .map(|i| self.names[i].1.clone())
            .collect()
    }
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

    fn known(names: &[(&str, u64)]) -> NameIndex {
        NameIndex::new(
            names
                .iter()
                .map(|&(name, uses)| KnownName {
                    name: name.into(),
                    uses,
                })
                .collect(),
        )
    }

    #[test]
    fn names_in_the_text_come_first_then_the_most_used() {
        let index = known(&[
            ("Aeropress", 1),
            ("Espresso", 2),
            ("Milk Foam", 0),
            ("Coffee", 9),
            ("Tea", 5),
            ("Team", 0),
            ("Zebra Crossing", 0),
        ]);
        let text = "Pulling two espressos, then steaming milk-foam; a zebra crossing nearby.";
        assert_eq!(
            index.relevant(text, 5),
            ["Espresso", "Milk Foam", "Zebra Crossing", "Coffee", "Tea"]
        );
        // Whole words only: "team" is no "Tea", "steaming" no "Team".
        assert_eq!(index.relevant("a team of two", 1), ["Team"]);
        assert_eq!(index.relevant("steaming", 1), ["Coffee"]);
        // The limit holds even when more names occur than fit.
        assert_eq!(index.relevant(text, 2), ["Espresso", "Milk Foam"]);
        assert!(index.relevant(text, 0).is_empty());
    }

    #[test]
    fn one_topic_is_listed_once_under_its_most_used_spelling() {
        let index = known(&[("espresso", 1), ("Espresso", 4), ("Espressos", 0)]);
        assert_eq!(index.relevant("Espresso!", 10), ["Espresso"]);
        assert!(known(&[]).relevant("anything", 10).is_empty());
        assert!(known(&[("!!!", 3)]).relevant("!!!", 10).is_empty());
    }

    #[test]
    fn overlapping_names_are_all_found() {
        let index = known(&[("Espresso", 0), ("Espresso machine", 0), ("Machine", 0)]);
        let mut found = index.relevant("An espresso machine.", 10);
        found.sort();
        assert_eq!(found, ["Espresso", "Espresso machine", "Machine"]);
    }

    proptest! {
        #[test]
        fn any_name_gives_a_tidy_key(name in prop_oneof!["\\PC{0,40}", crate::hostile_text::text(12)]) {
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
