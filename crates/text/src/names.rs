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
/// topic, a removed page, new use counts), and `wikimind::topic::NameCache` keeps an index between
/// prompts.
#[derive(Debug)]
pub struct NameIndex {
    /// The names as given, in order.
    names: Vec<KnownName>,
    /// For each name: the id of its key in `matcher`, `None` for a name with no letter or
    /// digit.
    key_of: Vec<Option<usize>>,
    /// The keys and the matcher over them, shared by updated copies. It may hold keys no
    /// name has any more (of removed names); they are never offered.
    matcher: Arc<KeyMatcher>,
    /// For each key: the index into `names` of the name it is shown as (the most used with
    /// that key; on a tie, the first given), `None` when no name has it.
    shown: Vec<Option<usize>>,
    /// The keys some name has, most used first (ties by key, so the order is stable).
    ranked: Vec<usize>,
    /// For each key: its place in `ranked` (`usize::MAX` when no name has it).
    rank: Vec<usize>,
}

/// Topic keys, and a matcher that finds them in a text.
#[derive(Debug)]
struct KeyMatcher {
    /// The keys; pattern `i` of `automaton` is key `i`.
    keys: Vec<String>,
    /// Each key's id.
    ids: HashMap<String, usize>,
    automaton: Option<AhoCorasick>,
}

impl KeyMatcher {
    /// A matcher over the distinct `keys` (empty keys left out), and each key's id in it.
    fn new<'k>(keys: impl IntoIterator<Item = &'k str>) -> (KeyMatcher, Vec<Option<usize>>) {
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut distinct = Vec::new();
        let key_of = keys
            .into_iter()
            .map(|key| {
                if key.is_empty() {
                    return None;
                }
                Some(*ids.entry(key.to_owned()).or_insert_with_key(|key| {
                    distinct.push(key.clone());
                    distinct.len() - 1
                }))
            })
            .collect();
        // Spaces around each key: a match starts and ends on word boundaries of the text's
        // key, which is padded too.
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(distinct.iter().map(|k| format!(" {k} ")))
            .ok();
        let matcher = KeyMatcher {
            keys: distinct,
            ids,
            automaton,
        };
        (matcher, key_of)
    }
}

impl NameIndex {
    /// Whether `self` and `other` share one matcher: an update that kept it (see
    /// [`NameIndex::updated`]) costs only the ranking.
    pub fn shares_matcher(&self, other: &NameIndex) -> bool {
        Arc::ptr_eq(&self.matcher, &other.matcher)
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
    /// when only use counts changed, only the ranking is redone.
    pub fn updated(&self, names: Vec<KnownName>) -> NameIndex {
        let same_names = names.len() == self.names.len()
            && names.iter().zip(&self.names).all(|(a, b)| a.name == b.name);
        if same_names {
            return NameIndex::ranked(names, self.key_of.clone(), Arc::clone(&self.matcher));
        }
        let known: HashMap<&str, Option<usize>> = self
            .names
            .iter()
            .zip(&self.key_of)
            .map(|(n, &k)| (n.name.as_str(), k))
            .collect();
        // Each name's key: by its id in the matcher when the matcher has it, else spelled
        // out (a key the matcher lacks).
        let keys: Vec<Result<Option<usize>, String>> = names
            .iter()
            .map(|n| match known.get(n.name.as_str()) {
                Some(&k) => Ok(k),
                None => {
                    let key = topic_key(&n.name);
                    if key.is_empty() {
                        Ok(None)
                    } else {
                        self.matcher.ids.get(&key).map(|&k| Some(k)).ok_or(key)
                    }
                }
            })
            .collect();
        if keys.iter().all(Result::is_ok) {
            let key_of = keys.into_iter().flatten().collect();
            return NameIndex::ranked(names, key_of, Arc::clone(&self.matcher));
        }
        let spelled = keys.iter().map(|k| match k {
            Ok(Some(id)) => self.matcher.keys[*id].as_str(),
            Ok(None) => "",
            Err(key) => key.as_str(),
        });
        let (matcher, key_of) = KeyMatcher::new(spelled);
        NameIndex::ranked(names, key_of, Arc::new(matcher))
    }

    /// Orders the keys of `matcher` by how much their names are used; `key_of` gives each
    /// name's key.
    fn ranked(
        names: Vec<KnownName>,
        key_of: Vec<Option<usize>>,
        matcher: Arc<KeyMatcher>,
    ) -> NameIndex {
        let mut shown: Vec<Option<usize>> = vec![None; matcher.keys.len()];
        for (i, key) in key_of.iter().enumerate() {
            if let Some(k) = *key {
                if shown[k].is_none_or(|s| names[i].uses > names[s].uses) {
                    shown[k] = Some(i);
                }
            }
        }
        let uses = |k: usize| shown[k].map_or(0, |i| names[i].uses);
        let mut ranked: Vec<usize> = (0..shown.len()).filter(|&k| shown[k].is_some()).collect();
        ranked.sort_by(|&a, &b| {
            uses(b)
                .cmp(&uses(a))
                .then_with(|| matcher.keys[a].cmp(&matcher.keys[b]))
        });
        let mut rank = vec![usize::MAX; shown.len()];
        for (place, &k) in ranked.iter().enumerate() {
            rank[k] = place;
        }
        NameIndex {
            names,
            key_of,
            matcher,
            shown,
            ranked,
            rank,
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
        let Some(automaton) = &self.matcher.automaton else {
            return Vec::new();
        };
        let haystack = format!(" {} ", topic_key(text));
        let mut found: Vec<usize> = automaton
            .find_overlapping_iter(&haystack)
            .map(|m| m.pattern().as_usize())
            .filter(|&k| self.shown[k].is_some())
            .collect();
        found.sort_unstable_by_key(|&k| self.rank[k]);
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

    fn names(pairs: &[(&str, u64)]) -> Vec<KnownName> {
        pairs
            .iter()
            .map(|&(name, uses)| KnownName {
                name: name.into(),
                uses,
            })
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

    proptest! {
        #[test]
        fn an_updated_index_answers_as_one_built_anew(
            before in proptest::collection::vec((NAME, 0u64..4), 0..12),
            after in proptest::collection::vec((NAME, 0u64..4), 0..12),
            text in "(tea|cups|milk|foam|c\\+\\+|machine|espresso| ){0,8}",
            limit in 0usize..6,
        ) {
            let list = |pairs: &[(String, u64)]| -> Vec<KnownName> {
                pairs.iter().map(|(name, uses)| KnownName { name: name.clone(), uses: *uses }).collect()
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
