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
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
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
/// (its cost grows with the text, not with the wiki). The expensive part — a key for every
/// name and a matcher over the keys — depends only on which names there are, not on how
/// much each is used, so [`NameIndex::with_uses`] re-ranks the same names for new counts
/// without rebuilding it, and [`NameCache`] keeps an index between prompts.
#[derive(Debug)]
pub struct NameIndex {
    /// The names as given, in order.
    names: Vec<KnownName>,
    /// The keys of the names and the matcher over them, shared by re-ranked copies.
    matcher: Arc<KeyMatcher>,
    /// For each key: the index into `names` of the name it is shown as (the most used
    /// with that key; on a tie, the first given).
    shown: Vec<usize>,
    /// The keys, most used first (ties by key, so the order is stable).
    ranked: Vec<usize>,
    /// For each key: its place in `ranked`.
    rank: Vec<usize>,
}

/// The topic keys of a list of names, and a matcher that finds them in a text.
#[derive(Debug)]
struct KeyMatcher {
    /// The distinct keys; pattern `i` of `automaton` is key `i`.
    keys: Vec<String>,
    /// For each name given: its key, `None` for a name with no letter or digit.
    key_of: Vec<Option<usize>>,
    automaton: Option<AhoCorasick>,
}

impl KeyMatcher {
    fn new(names: &[KnownName]) -> KeyMatcher {
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut keys = Vec::new();
        let key_of = names
            .iter()
            .map(|n| {
                let key = topic_key(&n.name);
                if key.is_empty() {
                    return None;
                }
                Some(*ids.entry(key).or_insert_with_key(|key| {
                    keys.push(key.clone());
                    keys.len() - 1
                }))
            })
            .collect();
        // Spaces around each key: a match starts and ends on word boundaries of the text's
        // key, which is padded too.
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(keys.iter().map(|k| format!(" {k} ")))
            .ok();
        KeyMatcher {
            keys,
            key_of,
            automaton,
        }
    }
}

impl NameIndex {
    /// An index over `names` (names without a letter or digit are left out).
    pub fn new(names: Vec<KnownName>) -> NameIndex {
        let matcher = Arc::new(KeyMatcher::new(&names));
        NameIndex::ranked(names, matcher)
    }

    /// Orders the keys of `matcher` (built over `names`) by how much their names are used.
    fn ranked(names: Vec<KnownName>, matcher: Arc<KeyMatcher>) -> NameIndex {
        let mut shown: Vec<Option<usize>> = vec![None; matcher.keys.len()];
        for (i, key) in matcher.key_of.iter().enumerate() {
            if let Some(k) = *key {
                if shown[k].is_none_or(|s| names[i].uses > names[s].uses) {
                    shown[k] = Some(i);
                }
            }
        }
        let shown: Vec<usize> = shown.into_iter().flatten().collect();
        let mut ranked: Vec<usize> = (0..shown.len()).collect();
        ranked.sort_by(|&a, &b| {
            names[shown[b]]
                .uses
                .cmp(&names[shown[a]].uses)
                .then_with(|| matcher.keys[a].cmp(&matcher.keys[b]))
        });
        let mut rank = vec![0; ranked.len()];
        for (place, &k) in ranked.iter().enumerate() {
            rank[k] = place;
        }
        NameIndex {
            names,
            matcher,
            shown,
            ranked,
            rank,
        }
    }

    /// This index for `names` with new use counts: `Ok` when they are the names of this
    /// index in the same order (no key is computed and no matcher built, only the ranking
    /// is redone), `Err` with `names` given back when they are other names.
    pub fn with_uses(&self, names: Vec<KnownName>) -> Result<NameIndex, Vec<KnownName>> {
        let same = names.len() == self.names.len()
            && names.iter().zip(&self.names).all(|(a, b)| a.name == b.name);
        if !same {
            return Err(names);
        }
        Ok(NameIndex::ranked(names, Arc::clone(&self.matcher)))
    }

    /// How many names the index holds.
    pub fn len(&self) -> usize {
        self.matcher.key_of.iter().flatten().count()
    }

    /// Whether the index holds no name.
    pub fn is_empty(&self) -> bool {
        self.matcher.keys.is_empty()
    }

    /// At most `limit` names for `text`: those that occur in it (the most used first),
    /// then the most used of the rest. A topic is listed once, under its most used
    /// spelling.
    pub fn relevant(&self, text: &str, limit: usize) -> Vec<String> {
        let mut chosen: Vec<usize> = Vec::new();
        let mut taken = vec![false; self.shown.len()];
        if let Some(automaton) = &self.matcher.automaton {
            let haystack = format!(" {} ", topic_key(text));
            let mut found: Vec<usize> = automaton
                .find_overlapping_iter(&haystack)
                .map(|m| m.pattern().as_usize())
                .collect();
            found.sort_unstable_by_key(|&k| self.rank[k]);
            found.dedup();
            found.truncate(limit);
            for &k in &found {
                taken[k] = true;
            }
            chosen = found;
        }
        for &k in &self.ranked {
            if chosen.len() >= limit {
                break;
            }
            if !taken[k] {
                taken[k] = true;
                chosen.push(k);
            }
        }
        chosen
            .into_iter()
            .map(|k| self.names[self.shown[k]].name.clone())
            .collect()
    }
}

/// The name indexes of one wiki — its titles and its concepts — kept between prompts.
///
/// Every compile and every page write asks which known names matter for its text. Building
/// a [`NameIndex`] costs a key per name and a matcher over all of them, which grows with the
/// wiki; the cache builds one only when the names differ from those of the index it holds,
/// re-ranks the index it holds when only the use counts changed, and otherwise hands it
/// out as it is. The caller still reads the names from the store for each prompt, so the
/// index is always that of the wiki as it is now: whatever changed the names (this
/// process, another one, a restore) is seen at the next prompt.
///
/// Shared by every compiler of one wiki (see [`crate::wiki::Wiki::compiler`]); safe to use
/// from concurrent compiles (two may build the same index at once; either result is kept).
#[derive(Default)]
pub struct NameCache {
    titles: Mutex<Option<Arc<NameIndex>>>,
    concepts: Mutex<Option<Arc<NameIndex>>>,
}

impl std::fmt::Debug for NameCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = |slot: &Mutex<Option<Arc<NameIndex>>>| {
            let index = slot.lock().unwrap_or_else(|p| p.into_inner()).clone();
            index.map_or(0, |i| i.names.len())
        };
        f.debug_struct("NameCache")
            .field("titles", &held(&self.titles))
            .field("concepts", &held(&self.concepts))
            .finish()
    }
}

impl NameCache {
    /// An empty cache.
    pub fn new() -> NameCache {
        NameCache::default()
    }

    /// The index over the wiki's titles and aliases, `names` as the store lists them now
    /// ([`crate::store::Store::title_names`]).
    pub fn titles(&self, names: Vec<KnownName>) -> Arc<NameIndex> {
        current(&self.titles, names)
    }

    /// The index over the wiki's concepts, `names` as the store lists them now
    /// ([`crate::store::Store::concept_names`]).
    pub fn concepts(&self, names: Vec<KnownName>) -> Arc<NameIndex> {
        current(&self.concepts, names)
    }
}

/// The index in `slot` when it is over `names`, else one made from it (re-ranked) or
/// built anew, kept in `slot` for the next caller.
fn current(slot: &Mutex<Option<Arc<NameIndex>>>, names: Vec<KnownName>) -> Arc<NameIndex> {
    // A panic while the lock was held cannot leave a half-made index in the slot.
    let held = slot.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let index = match held {
        Some(index) if index.names == names => return index,
        Some(index) => index.with_uses(names).unwrap_or_else(NameIndex::new),
        None => NameIndex::new(names),
    };
    let index = Arc::new(index);
    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&index));
    index
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

    #[test]
    fn new_use_counts_rerank_the_same_names_without_a_rebuild() {
        let first = known(&[("Espresso", 1), ("Tea", 5), ("espressos", 0)]);
        assert_eq!(first.relevant("nothing here", 2), ["Tea", "Espresso"]);
        let counts = |pairs: &[(&str, u64)]| -> Vec<KnownName> {
            pairs
                .iter()
                .map(|&(name, uses)| KnownName {
                    name: name.into(),
                    uses,
                })
                .collect()
        };
        let again = first
            .with_uses(counts(&[("Espresso", 1), ("Tea", 0), ("espressos", 9)]))
            .expect("the same names");
        assert!(
            Arc::ptr_eq(&first.matcher, &again.matcher),
            "no new matcher"
        );
        assert_eq!(again.relevant("nothing here", 2), ["espressos", "Tea"]);
        assert_eq!(again.relevant("a cup of tea", 1), ["Tea"]);
        // Other names (one more, or one spelled otherwise) are no re-ranking.
        assert!(first
            .with_uses(counts(&[("Espresso", 1), ("Tea", 5)]))
            .is_err());
        assert!(first
            .with_uses(counts(&[("Espresso", 1), ("Teas", 5), ("espressos", 0)]))
            .is_err());
    }

    #[test]
    fn the_cache_hands_out_the_index_of_the_names_as_they_are_now() {
        let cache = NameCache::new();
        let names = |pairs: &[(&str, u64)]| -> Vec<KnownName> {
            pairs
                .iter()
                .map(|&(name, uses)| KnownName {
                    name: name.into(),
                    uses,
                })
                .collect()
        };
        let a = cache.titles(names(&[("Espresso", 1), ("Crema", 0)]));
        let b = cache.titles(names(&[("Espresso", 1), ("Crema", 0)]));
        assert!(Arc::ptr_eq(&a, &b), "the same names: the same index");
        assert!(cache.concepts(Vec::new()).is_empty(), "concepts apart");

        let reranked = cache.titles(names(&[("Espresso", 1), ("Crema", 4)]));
        assert!(Arc::ptr_eq(&a.matcher, &reranked.matcher));
        assert_eq!(reranked.relevant("", 1), ["Crema"]);

        // A new page is found at once.
        let grown = cache.titles(names(&[("Espresso", 1), ("Crema", 4), ("Zebra Dun", 0)]));
        assert_eq!(grown.relevant("a zebra dun grazes", 1), ["Zebra Dun"]);
        // A removed page is gone at once.
        let shrunk = cache.titles(names(&[("Espresso", 1)]));
        assert_eq!(shrunk.relevant("a zebra dun and crema", 5), ["Espresso"]);
    }

    proptest! {
        #[test]
        fn a_reranked_index_answers_as_one_built_anew(
            names in proptest::collection::vec(
                ("(tea|teas|Tea|cup|cups|milk foam|Milk-Foam|c\\+\\+|!!)", 0u64..4, 0u64..4),
                0..12,
            ),
            text in "(tea|cups|milk|foam|c\\+\\+| ){0,8}",
            limit in 0usize..6,
        ) {
            let before: Vec<KnownName> = names
                .iter()
                .map(|(name, uses, _)| KnownName { name: name.clone(), uses: *uses })
                .collect();
            let after: Vec<KnownName> = names
                .iter()
                .map(|(name, _, uses)| KnownName { name: name.clone(), uses: *uses })
                .collect();
            let reranked = NameIndex::new(before).with_uses(after.clone()).expect("same names");
            let fresh = NameIndex::new(after);
            prop_assert_eq!(reranked.relevant(&text, limit), fresh.relevant(&text, limit));
            prop_assert_eq!(reranked.len(), fresh.len());
        }

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
