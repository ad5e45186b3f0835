//! Which known names a text speaks of: [`NameIndex`] over the wiki's titles, aliases or
//! concepts, matched by [`topic_key`] on word boundaries.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::collections::HashMap;
use std::sync::Arc;

use crate::key::topic_key;

/// A known name (a page title, an alias or a concept) and how much the wiki uses it (how
/// many links point to it): what [`NameIndex`] chooses from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownName {
    /// The name as the wiki shows it.
    pub name: String,
    /// How many links point to it; the most used names fill the room left in a prompt.
    pub uses: u64,
    /// Whether it is another name of its page (an alias or a former title) rather than a
    /// title or a concept: of the names of one topic used as much, a title is shown first.
    pub alias: bool,
}

impl KnownName {
    /// A title or a concept used `uses` times.
    pub fn new(name: impl Into<String>, uses: u64) -> KnownName {
        KnownName {
            name: name.into(),
            uses,
            alias: false,
        }
    }

    /// Whether this name is shown rather than `other` when both spell one topic: the more
    /// used; of two used as much, a title before an alias, then the first in byte order.
    /// A rule over the names alone, so that an index answers the same whatever the order
    /// its names were given or added in.
    fn shown_before(&self, other: &KnownName) -> bool {
        (std::cmp::Reverse(self.uses), self.alias, &self.name)
            < (std::cmp::Reverse(other.uses), other.alias, &other.name)
    }
}

/// The names a text should be offered: every known name that occurs in it (by
/// [`topic_key`], on word boundaries, so `espressos` in a source finds the page
/// `Espresso`), then the most used names, up to a limit.
///
/// Built once over the wiki's names (its cost grows with them) and asked once per text
/// (its cost grows with the text, not with the wiki). Most of the building is a key for
/// every name and a matcher over the keys, which depend only on which names there are:
/// [`NameIndex::updated`] brings an index to a new list of names reusing the key of every
/// name it knew, and its matcher while no name brings a new key (a new spelling of a known
/// topic, a removed page, new use counts); [`NameIndex::add`] adds names made since at a
/// cost that grows with them, not with the index; and `wikimind::topic::NameCache` keeps an
/// index between prompts.
///
/// What an index answers depends on its names alone, not on their order: a topic is shown
/// by its most used spelling (of those used as much, a title before an alias, then the
/// first in byte order), and keys are ranked by use, then by key.
#[derive(Debug, Clone)]
pub struct NameIndex {
    /// The names as given, in order.
    names: Vec<KnownName>,
    /// For each name: the id of its key in `matcher`, `None` for a name with no letter or
    /// digit.
    key_of: Vec<Option<usize>>,
    /// The keys and the matcher over them, shared by updated copies. It may hold keys no
    /// name has any more (of removed names); they are never offered.
    matcher: Arc<KeyMatcher>,
    /// For each key: the index into `names` of the name it is shown as (see
    /// [`KnownName::shown_before`]), `None` when no name has it.
    shown: Vec<Option<usize>>,
    /// The keys some name has, most used first (ties by key, so the order is stable): see
    /// [`NameIndex::place`].
    ranked: Vec<usize>,
}

/// Topic keys, and a matcher that finds them in a text: the keys of its last whole build
/// (`base`, shared by the matchers grown from it) and those added since (`recent`), so that
/// a wiki gaining a few names per compile builds a matcher over those few, not over every
/// name, until they outgrow [`recent_room`] and are folded into a new whole build.
#[derive(Debug)]
struct KeyMatcher {
    /// Keys `0..base.keys.len()`.
    base: Arc<Layer>,
    /// The keys after the base's, in id order.
    recent: Layer,
}

/// Some distinct keys, numbered from `first`, and a matcher over them.
#[derive(Debug)]
struct Layer {
    /// The id of `keys[0]`.
    first: usize,
    /// The keys; pattern `i` of `automaton` is key `first + i`.
    keys: Vec<String>,
    /// Each key's id.
    ids: HashMap<String, usize>,
    automaton: Option<AhoCorasick>,
}

impl Layer {
    /// A layer of the distinct, non-empty `keys`, numbered from `first`.
    fn new(first: usize, keys: Vec<String>) -> Layer {
        let ids = keys
            .iter()
            .enumerate()
            .map(|(i, key)| (key.clone(), first + i))
            .collect();
        // Spaces around each key: a match starts and ends on word boundaries of the text's
        // key, which is padded too.
        let automaton = if keys.is_empty() {
            None
        } else {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .build(keys.iter().map(|k| format!(" {k} ")))
                .ok()
        };
        Layer {
            first,
            keys,
            ids,
            automaton,
        }
    }

    /// Adds the id of every key of this layer found in `haystack` (a padded key) to `found`.
    fn find(&self, haystack: &str, found: &mut Vec<usize>) {
        if let Some(automaton) = &self.automaton {
            found.extend(
                automaton
                    .find_overlapping_iter(haystack)
                    .map(|m| self.first + m.pattern().as_usize()),
            );
        }
    }
}

/// How many keys may wait in a matcher's recent layer over a base of `base` keys before
/// the next new key brings a whole build: the recent layer is built again with each new
/// key, the whole matcher once per this many, so each costs about the square root of the
/// wiki's names per new key rather than all of them.
fn recent_room(base: usize) -> usize {
    64usize.max(2 * base.isqrt())
}

impl KeyMatcher {
    /// A matcher over the distinct `keys` (empty keys left out), and each key's id in it.
    fn new<'k>(keys: impl IntoIterator<Item = &'k str>) -> (KeyMatcher, Vec<Option<usize>>) {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut distinct: Vec<String> = Vec::new();
        let key_of = keys
            .into_iter()
            .map(|key| {
                if key.is_empty() {
                    return None;
                }
                Some(*ids.entry(key).or_insert_with(|| {
                    distinct.push(key.to_owned());
                    distinct.len() - 1
                }))
            })
            .collect();
        let base = Layer::new(0, distinct);
        let recent = Layer::new(base.keys.len(), Vec::new());
        (
            KeyMatcher {
                base: Arc::new(base),
                recent,
            },
            key_of,
        )
    }

    /// How many keys the matcher knows.
    fn len(&self) -> usize {
        self.recent.first + self.recent.keys.len()
    }

    /// The key numbered `id`.
    fn key(&self, id: usize) -> &str {
        match id.checked_sub(self.recent.first) {
            Some(i) => &self.recent.keys[i],
            None => &self.base.keys[id],
        }
    }

    /// The id of `key`, when the matcher knows it.
    fn id(&self, key: &str) -> Option<usize> {
        self.base
            .ids
            .get(key)
            .or_else(|| self.recent.ids.get(key))
            .copied()
    }

    /// This matcher with the distinct `added` keys (none of which it knows) after its own,
    /// sharing its base; `None` when they would outgrow the recent layer's room.
    fn grown(&self, added: Vec<String>) -> Option<KeyMatcher> {
        let waiting = self.recent.keys.len() + added.len();
        if waiting > recent_room(self.base.keys.len()) {
            return None;
        }
        let mut keys = self.recent.keys.clone();
        keys.extend(added);
        Some(KeyMatcher {
            base: Arc::clone(&self.base),
            recent: Layer::new(self.recent.first, keys),
        })
    }

    /// The ids of every key found in `haystack` (a padded key), in no order.
    fn find(&self, haystack: &str) -> Vec<usize> {
        let mut found = Vec::new();
        self.base.find(haystack, &mut found);
        self.recent.find(haystack, &mut found);
        found
    }
}

impl NameIndex {
    /// Whether `self` and `other` share one matcher: an update that kept it (see
    /// [`NameIndex::updated`]) costs only the ranking.
    pub fn shares_matcher(&self, other: &NameIndex) -> bool {
        Arc::ptr_eq(&self.matcher, &other.matcher)
    }

    /// Whether `self` and `other` share the whole build their matchers grew from: an update
    /// that brought a few new keys built a matcher over those alone.
    pub fn shares_base(&self, other: &NameIndex) -> bool {
        Arc::ptr_eq(&self.matcher.base, &other.matcher.base)
    }

    /// The names this index is over, as given.
    pub fn names(&self) -> &[KnownName] {
        &self.names
    }

    /// An index over `names` (names without a letter or digit are left out).
    pub fn new(names: Vec<KnownName>) -> NameIndex {
        let keys: Vec<String> = names.iter().map(|n| topic_key(&n.name)).collect();
        let (matcher, key_of) = KeyMatcher::new(keys.iter().map(String::as_str));
        NameIndex::ranked(names, key_of, Arc::new(matcher))
    }

    /// This index brought up to `names` (the wiki's names as they are now): it answers as
    /// [`NameIndex::new`] over `names` would, but the key of a name this index knew is not
    /// computed again, and the matcher is kept unless some name brings a key it lacks —
    /// when only use counts changed, only the ranking is redone. New keys are matched by a
    /// small matcher beside the kept one until there are more than twice the square root
    /// of the keys it was built over.
    pub fn updated(&self, names: Vec<KnownName>) -> NameIndex {
        let keys = self.keys_of(&names);
        let mut added: HashMap<&str, usize> = HashMap::new();
        let mut new_keys: Vec<String> = Vec::new();
        for key in keys.iter().filter_map(|k| k.as_ref().err()) {
            added.entry(key.as_str()).or_insert_with(|| {
                new_keys.push(key.clone());
                self.matcher.len() + new_keys.len() - 1
            });
        }
        if new_keys.is_empty() {
            let key_of = keys.into_iter().flatten().collect();
            return NameIndex::ranked(names, key_of, Arc::clone(&self.matcher));
        }
        if let Some(matcher) = self.matcher.grown(new_keys) {
            let key_of = keys
                .iter()
                .map(|k| match k {
                    Ok(id) => *id,
                    Err(key) => added.get(key.as_str()).copied(),
                })
                .collect();
            return NameIndex::ranked(names, key_of, Arc::new(matcher));
        }
        let spelled = keys.iter().map(|k| match k {
            Ok(Some(id)) => self.matcher.key(*id),
            Ok(None) => "",
            Err(key) => key.as_str(),
        });
        let (matcher, key_of) = KeyMatcher::new(spelled);
        NameIndex::ranked(names, key_of, Arc::new(matcher))
    }

    /// Each of `names`' keys: its id in the matcher when the matcher has it (`None` for a
    /// name with no key), else spelled out. The key of a name this index holds is not
    /// computed again; lists that differ by a few names in the middle (the store lists its
    /// names oldest first, so a new one comes after the old ones of its kind) are compared
    /// in one pass, without hashing every name.
    fn keys_of(&self, names: &[KnownName]) -> Vec<Result<Option<usize>, String>> {
        let old = &self.names;
        let prefix = old
            .iter()
            .zip(names)
            .take_while(|(a, b)| a.name == b.name)
            .count();
        let room = old.len().min(names.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(names.iter().rev())
            .take(room)
            .take_while(|(a, b)| a.name == b.name)
            .count();
        let old_middle = prefix..old.len() - suffix;
        let moved: HashMap<&str, Option<usize>> = old[old_middle.clone()]
            .iter()
            .zip(&self.key_of[old_middle])
            .map(|(n, &k)| (n.name.as_str(), k))
            .collect();
        names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if i < prefix {
                    return Ok(self.key_of[i]);
                }
                if i >= names.len() - suffix {
                    return Ok(self.key_of[old.len() + i - names.len()]);
                }
                if let Some(&k) = moved.get(n.name.as_str()) {
                    return Ok(k);
                }
                let key = topic_key(&n.name);
                if key.is_empty() {
                    Ok(None)
                } else {
                    self.matcher.id(&key).map(Some).ok_or(key)
                }
            })
            .collect()
    }

    /// Orders the keys of `matcher` by how much their names are used; `key_of` gives each
    /// name's key.
    fn ranked(
        names: Vec<KnownName>,
        key_of: Vec<Option<usize>>,
        matcher: Arc<KeyMatcher>,
    ) -> NameIndex {
        let mut shown: Vec<Option<usize>> = vec![None; matcher.len()];
        for (i, key) in key_of.iter().enumerate() {
            if let Some(k) = *key {
                if shown[k].is_none_or(|s| names[i].shown_before(&names[s])) {
                    shown[k] = Some(i);
                }
            }
        }
        // Each key with its use count and spelling beside it, so that the sort compares
        // neighbours in memory; keys are distinct, so an unstable sort orders them fully.
        let mut order: Vec<(std::cmp::Reverse<u64>, &str, usize)> = (0..shown.len())
            .filter_map(|k| shown[k].map(|i| (std::cmp::Reverse(names[i].uses), matcher.key(k), k)))
            .collect();
        order.sort_unstable();
        let ranked: Vec<usize> = order.into_iter().map(|(_, _, k)| k).collect();
        NameIndex {
            names,
            key_of,
            matcher,
            shown,
            ranked,
        }
    }

    /// Where key `k` (which some name has) stands among the ranked keys: the uses of the
    /// name it is shown as, most first, then the key. Distinct keys never stand level.
    fn place(&self, k: usize) -> (std::cmp::Reverse<u64>, &str) {
        let uses = self.shown[k].map_or(0, |i| self.names[i].uses);
        (std::cmp::Reverse(uses), self.matcher.key(k))
    }

    /// Adds `added` (names made since this index was built: new pages, new aliases) to the
    /// index, which then answers as [`NameIndex::new`] over all its names would. A name's key
    /// is computed only for the names added; a key the matcher lacks goes to its small
    /// recent layer (the whole matcher is built again only once that outgrows its room, as
    /// in [`NameIndex::updated`]); each new key is placed among the ranked ones by a binary
    /// search. So a wiki that gains a page per compile pays for that page, not for the wiki.
    pub fn add(&mut self, added: Vec<KnownName>) {
        let mut new_keys: Vec<String> = Vec::new();
        let mut new_ids: HashMap<String, usize> = HashMap::new();
        let keys: Vec<Option<usize>> = added
            .iter()
            .map(|n| {
                let key = topic_key(&n.name);
                if key.is_empty() {
                    return None;
                }
                if let Some(id) = self.matcher.id(&key) {
                    return Some(id);
                }
                let next = self.matcher.len() + new_keys.len();
                Some(*new_ids.entry(key).or_insert_with_key(|key| {
                    new_keys.push(key.clone());
                    next
                }))
            })
            .collect();
        if !new_keys.is_empty() {
            let matcher = match self.matcher.grown(new_keys.clone()) {
                Some(matcher) => matcher,
                // The ids stay: every key the matcher had, in its order, then the new ones.
                None => {
                    let known = (0..self.matcher.len()).map(|k| self.matcher.key(k));
                    KeyMatcher::new(known.chain(new_keys.iter().map(String::as_str))).0
                }
            };
            self.matcher = Arc::new(matcher);
            self.shown.resize(self.matcher.len(), None);
        }
        for (name, key) in added.into_iter().zip(keys) {
            let i = self.names.len();
            self.names.push(name);
            self.key_of.push(key);
            let Some(k) = key else { continue };
            if let Some(s) = self.shown[k] {
                if !self.names[i].shown_before(&self.names[s]) {
                    continue;
                }
                let at = self
                    .ranked
                    .binary_search_by(|&r| self.place(r).cmp(&self.place(k)));
                if let Ok(at) = at {
                    self.ranked.remove(at);
                }
            }
            self.shown[k] = Some(i);
            let at = self
                .ranked
                .binary_search_by(|&r| self.place(r).cmp(&self.place(k)))
                .unwrap_or_else(|at| at);
            self.ranked.insert(at, k);
        }
    }

    /// How many names the index holds.
    pub fn len(&self) -> usize {
        self.key_of.iter().flatten().count()
    }

    /// Whether the index holds no name.
    pub fn is_empty(&self) -> bool {
        self.ranked.is_empty()
    }

    /// At most `limit` names for `text`: those that occur in it (the most used first),
    /// then the most used of the rest. A topic is listed once, under its most used
    /// spelling.
    pub fn relevant(&self, text: &str, limit: usize) -> Vec<String> {
        let mut taken = vec![false; self.shown.len()];
        let mut chosen = self.found_in(text, limit);
        for &k in &chosen {
            taken[k] = true;
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
            .filter_map(|k| self.shown[k])
            .map(|i| self.names[i].name.clone())
            .collect()
    }
}

impl NameIndex {
    /// The keys (indexes into `shown`) of at most `limit` names occurring in `text`, the
    /// most used first.
    fn found_in(&self, text: &str, limit: usize) -> Vec<usize> {
        if self.ranked.is_empty() {
            return Vec::new();
        }
        let haystack = format!(" {} ", topic_key(text));
        let mut found = self.matcher.find(&haystack);
        found.retain(|&k| self.shown[k].is_some());
        found.sort_unstable_by(|&a, &b| self.place(a).cmp(&self.place(b)));
        found.dedup();
        found.truncate(limit);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NAME: &str =
        "(tea|teas|Tea|cup|cups|milk foam|Milk-Foam|c\\+\\+|!!|espresso machine|machine|Espressos)";

    fn known(names: &[(&str, u64)]) -> NameIndex {
        NameIndex::new(
            names
                .iter()
                .map(|&(name, uses)| KnownName::new(name, uses))
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

    fn names(pairs: &[(&str, u64)]) -> Vec<KnownName> {
        pairs
            .iter()
            .map(|&(name, uses)| KnownName::new(name, uses))
            .collect()
    }

    #[test]
    fn an_update_keeps_the_matcher_until_a_name_brings_a_new_key() {
        let first = known(&[("Espresso", 1), ("Tea", 5), ("espressos", 0)]);
        assert_eq!(first.relevant("nothing here", 2), ["Tea", "Espresso"]);
        let same_matcher = |index: &NameIndex| Arc::ptr_eq(&first.matcher, &index.matcher);

        // New counts: re-ranked.
        let counts = first.updated(names(&[("Espresso", 1), ("Tea", 0), ("espressos", 9)]));
        assert!(same_matcher(&counts));
        assert_eq!(counts.relevant("nothing here", 2), ["espressos", "Tea"]);
        assert_eq!(counts.relevant("a cup of tea", 1), ["Tea"]);

        // A new spelling of a known topic, and a name gone: no new key.
        let spelled = first.updated(names(&[("ESPRESSO", 7), ("Espresso", 1)]));
        assert!(same_matcher(&spelled));
        assert_eq!(spelled.relevant("tea and espressos", 5), ["ESPRESSO"]);
        assert_eq!(spelled.len(), 2);

        // A name with a key the matcher lacks: a new matcher, which finds it.
        let grown = first.updated(names(&[("Espresso", 1), ("Tea", 5), ("Milk foam", 0)]));
        assert!(!same_matcher(&grown));
        assert_eq!(grown.relevant("milk-foam", 1), ["Milk foam"]);

        let emptied = first.updated(Vec::new());
        assert!(emptied.is_empty() && emptied.relevant("tea", 3).is_empty());
    }

    #[test]
    fn names_added_one_by_one_are_matched_beside_the_kept_matcher_until_there_are_many() {
        let name = |i: usize| KnownName::new(format!("Site {i}"), (i % 3) as u64);
        let first = NameIndex::new((0..100).map(name).collect());
        let mut index = NameIndex::new((0..100).map(name).collect());
        let mut added = NameIndex::new((0..100).map(name).collect());
        let mut rebuilt_at = None;
        let mut rebuilt_adding_at = None;
        for n in 101..=400 {
            let next = index.updated((0..n).map(name).collect());
            if !next.shares_base(&index) {
                rebuilt_at.get_or_insert(n);
            }
            index = next;
            let before = added.clone();
            added.add(vec![name(n - 1)]);
            if !added.shares_base(&before) {
                rebuilt_adding_at.get_or_insert(n);
            }
            // The newest name and the oldest are found.
            for index in [&index, &added] {
                let newest = format!("Site {}", n - 1);
                assert_eq!(index.relevant(&format!("at site {}.", n - 1), 1), [newest]);
                assert_eq!(index.relevant("the site 0 of it", 1), ["Site 0"]);
            }
        }
        // The first 64 new keys waited beside the first build; the 65th brought a whole one.
        assert_eq!(rebuilt_at, Some(165));
        assert_eq!(rebuilt_adding_at, Some(165));
        assert!(!first.shares_base(&index));
        let fresh = NameIndex::new((0..400).map(name).collect());
        for index in [&index, &added] {
            assert_eq!(index.len(), 400);
            assert_eq!(index.relevant("", 400), fresh.relevant("", 400));
        }
    }

    #[test]
    fn of_one_topic_used_as_much_a_title_is_shown_before_an_alias_whatever_the_order() {
        let alias = |name: &str, uses| KnownName {
            alias: true,
            ..KnownName::new(name, uses)
        };
        // A page renamed from "espresso" to "Espresso": its former title is an alias.
        for names in [
            vec![alias("espresso", 2), KnownName::new("Espresso", 2)],
            vec![KnownName::new("Espresso", 2), alias("espresso", 2)],
        ] {
            assert_eq!(NameIndex::new(names).relevant("espresso", 1), ["Espresso"]);
        }
        // Used more, the alias is shown; two titles used as much: the first in byte order.
        let index = known(&[("Espresso", 1)]);
        let mut more = index.clone();
        more.add(vec![alias("ESPRESSO", 3)]);
        assert_eq!(more.relevant("", 1), ["ESPRESSO"]);
        let mut level = index;
        level.add(vec![KnownName::new("EsPresso", 1)]);
        assert_eq!(level.relevant("", 1), ["EsPresso"]);
    }

    #[test]
    fn names_added_are_found_and_ranked_as_in_an_index_built_anew() {
        let mut index = known(&[("Espresso", 2), ("Tea", 5)]);
        let matcher = Arc::clone(&index.matcher);
        index.add(vec![
            KnownName::new("espressos", 9),
            KnownName::new("Milk foam", 3),
        ]);
        assert!(
            Arc::ptr_eq(&matcher.base, &index.matcher.base),
            "the base kept"
        );
        assert_eq!(index.relevant("", 3), ["espressos", "Tea", "Milk foam"]);
        assert_eq!(
            index.relevant("milk-foam and tea", 5)[..2],
            ["Tea", "Milk foam"]
        );
        assert_eq!(index.len(), 4);
        // Names with no key are kept and never offered.
        index.add(vec![KnownName::new("!!", 7)]);
        assert_eq!(index.relevant("!!", 1), ["espressos"]);
    }

    proptest! {
        #[test]
        fn an_index_added_to_again_and_again_answers_as_one_built_anew(
            batches in proptest::collection::vec(
                proptest::collection::vec(
                    ("[a-fA-F]{1,2}( [a-f]{1,2})?|!", 0u64..3, proptest::bool::ANY),
                    0..40,
                ),
                1..6,
            ),
            text in "([a-f]{1,2}[ .]){0,12}",
            limit in 0usize..8,
        ) {
            let mut index = NameIndex::new(Vec::new());
            let mut all: Vec<KnownName> = Vec::new();
            for batch in &batches {
                let names: Vec<KnownName> = batch
                    .iter()
                    .map(|(name, uses, alias)| KnownName { alias: *alias, ..KnownName::new(name.clone(), *uses) })
                    .collect();
                all.extend(names.iter().cloned());
                index.add(names);
                // Built anew over the same names in another order: the same answers.
                let mut reversed = all.clone();
                reversed.reverse();
                let fresh = NameIndex::new(reversed);
                prop_assert_eq!(index.relevant(&text, limit), fresh.relevant(&text, limit));
                prop_assert_eq!(index.relevant("", 200), fresh.relevant("", 200));
                prop_assert_eq!(index.len(), fresh.len());
            }
        }
    }

    proptest! {
        #[test]
        fn an_index_updated_again_and_again_answers_as_one_built_anew(
            lists in proptest::collection::vec(
                proptest::collection::vec(("[a-f]{1,2}( [a-f]{1,2})?", 0u64..3), 0..90),
                1..6,
            ),
            text in "([a-f]{1,2}[ .]){0,12}",
            limit in 0usize..8,
        ) {
            let list = |pairs: &[(String, u64)]| -> Vec<KnownName> {
                pairs.iter().map(|(name, uses)| KnownName::new(name.clone(), *uses)).collect()
            };
            let mut index = NameIndex::new(Vec::new());
            for names in &lists {
                index = index.updated(list(names));
                let fresh = NameIndex::new(list(names));
                prop_assert_eq!(index.relevant(&text, limit), fresh.relevant(&text, limit));
                prop_assert_eq!(index.relevant("", 100), fresh.relevant("", 100));
                prop_assert_eq!(index.len(), fresh.len());
            }
        }
    }

    proptest! {
        #[test]
        fn an_updated_index_answers_as_one_built_anew(
            before in proptest::collection::vec((NAME, 0u64..4), 0..12),
            after in proptest::collection::vec((NAME, 0u64..4), 0..12),
            text in "(tea|cups|milk|foam|c\\+\\+|machine|espresso| ){0,8}",
            limit in 0usize..6,
        ) {
            let list = |pairs: &[(String, u64)]| -> Vec<KnownName> {
                pairs.iter().map(|(name, uses)| KnownName::new(name.clone(), *uses)).collect()
            };
            let old = NameIndex::new(list(&before));
            let fresh = NameIndex::new(list(&after));
            // Whatever came before: other names, the same names in another order or with
            // other counts.
            for updated in [old.updated(list(&after)), fresh.updated(list(&after))] {
                prop_assert_eq!(updated.relevant(&text, limit), fresh.relevant(&text, limit));
                prop_assert_eq!(updated.len(), fresh.len());
                prop_assert_eq!(updated.is_empty(), fresh.is_empty());
            }
        }
    }
}
