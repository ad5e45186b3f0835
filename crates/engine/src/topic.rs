//! The name indexes of one wiki, kept between prompts ([`NameCache`]). The rules of topic
//! names (which spellings name one topic, which names a text speaks of) are the leaf crate's
//! ([`wikimind_text::key`], [`wikimind_text::names`]); they are re-exported here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use wikimind_text::key::topic_key;
pub use wikimind_text::names::{KnownName, NameIndex};

/// The name indexes of one wiki — its titles and its concepts — kept between prompts.
///
/// Every compile and every page write asks which known names matter for its text. Building
/// a [`NameIndex`] costs a key per name and a matcher over all of them, which grows with the
/// wiki; the cache hands out the index it holds when the names and their use counts are as
/// they were, and otherwise brings it up to the names ([`NameIndex::updated`]: keys are
/// computed only for new names, the matcher rebuilt only for a new key). The caller still reads the names from the store for each prompt, so the
/// index is always that of the wiki as it is now: whatever changed the names (this
/// process, another one, a restore) is seen at the next prompt.
///
/// Shared by every compiler of one wiki (the app's `Wiki::compiler` hands it to each); safe to use
/// from concurrent compiles (two may build the same index at once; either result is kept).
#[derive(Default)]
pub struct NameCache {
    titles: Mutex<Option<Arc<NameIndex>>>,
    concepts: Mutex<Option<Arc<NameIndex>>>,
    /// The store's names generations (titles, concepts) each index is over (see
    /// [`NameCache::known`]).
    generation: Mutex<(Option<u64>, Option<u64>)>,
    /// The titles' use counts as last counted, and how many titles there were then.
    title_uses: Mutex<Option<(usize, HashMap<String, u64>)>>,
}

impl std::fmt::Debug for NameCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = |slot: &Mutex<Option<Arc<NameIndex>>>| {
            let index = slot.lock().unwrap_or_else(|p| p.into_inner()).clone();
            index.map_or(0, |i| i.len())
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
    /// ([`NameSource::title_names`]).
    pub fn titles(&self, names: Vec<KnownName>) -> Arc<NameIndex> {
        current(&self.titles, names)
    }

    /// The index over the wiki's concepts, `names` as the store lists them now
    /// ([`NameSource::concept_names`]).
    pub fn concepts(&self, names: Vec<KnownName>) -> Arc<NameIndex> {
        current(&self.concepts, names)
    }

    /// The indexes over the titles and over the concepts of `store`, each read again only
    /// when its own names changed since it was made ([`NameSource::names_generations`]):
    /// the store is not read name by name for every prompt, and a compile that brought a
    /// concept does not make the next one read every title. Use counts, which only rank
    /// the names a prompt lists beyond those its text names, are as of the last change for
    /// concepts; titles' counts (a count of the links to each page, the one read that grows
    /// with the links) are counted again only once the titles grew by an eighth since they
    /// were last counted, each title keeping the count it had then (a new one none), so a
    /// run that adds a page per compile counts them a few dozen times, not once per
    /// compile.
    pub fn known<S: NameSource + ?Sized>(
        &self,
        store: &S,
    ) -> Result<(Arc<NameIndex>, Arc<NameIndex>), S::Error> {
        let (titles_now, concepts_now) = store.names_generations()?;
        let (titles_seen, concepts_seen) =
            *self.generation.lock().unwrap_or_else(|p| p.into_inner());
        let held = |slot: &Mutex<Option<Arc<NameIndex>>>| {
            slot.lock().unwrap_or_else(|p| p.into_inner()).clone()
        };
        let titles = match held(&self.titles) {
            Some(index) if titles_seen == Some(titles_now) => index,
            _ => self.titles(self.title_names(store)?),
        };
        let concepts = match held(&self.concepts) {
            Some(index) if concepts_seen == Some(concepts_now) => index,
            _ => self.concepts(store.concept_names()?),
        };
        *self.generation.lock().unwrap_or_else(|p| p.into_inner()) =
            (Some(titles_now), Some(concepts_now));
        Ok((titles, concepts))
    }
}

impl NameCache {
    /// The titles of `store` with use counts: counted again when none were counted yet or
    /// the titles grew by an eighth since they were, else the titles alone, each with the
    /// count it had then (see [`NameCache::known`]).
    fn title_names<S: NameSource + ?Sized>(&self, store: &S) -> Result<Vec<KnownName>, S::Error> {
        let mut counted = self.title_uses.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, uses)) = counted.as_ref() {
            let names = store.title_names_uncounted()?;
            if names.len() <= at + at / 8 {
                return Ok(names
                    .into_iter()
                    .map(|name| KnownName {
                        uses: uses.get(&name).copied().unwrap_or(0),
                        name,
                    })
                    .collect());
            }
        }
        let names = store.title_names()?;
        let uses = names.iter().map(|n| (n.name.clone(), n.uses)).collect();
        *counted = Some((names.len(), uses));
        Ok(names)
    }
}

/// Where a wiki's names are read from (the store): the one thing a [`NameCache`] asks of it.
pub trait NameSource {
    /// Why a read failed.
    type Error;
    /// Two numbers, `(titles, concepts)`: the first moves whenever a title or alias is
    /// made, renamed or removed, the second whenever a concept is.
    fn names_generations(&self) -> Result<(u64, u64), Self::Error>;
    /// The titles and aliases, with their use counts.
    fn title_names(&self) -> Result<Vec<KnownName>, Self::Error>;
    /// The same names without their use counts (a cheaper read where counting is dear).
    fn title_names_uncounted(&self) -> Result<Vec<String>, Self::Error> {
        Ok(self.title_names()?.into_iter().map(|n| n.name).collect())
    }
    /// The concepts, with their use counts.
    fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error>;
}

impl NameSource for crate::store::Store {
    type Error = crate::store::StoreError;

    fn names_generations(&self) -> Result<(u64, u64), Self::Error> {
        crate::store::Store::names_generations(self)
    }

    fn title_names(&self) -> Result<Vec<KnownName>, Self::Error> {
        crate::store::Store::title_names(self)
    }

    fn title_names_uncounted(&self) -> Result<Vec<String>, Self::Error> {
        crate::store::Store::title_names_uncounted(self)
    }

    fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error> {
        crate::store::Store::concept_names(self)
    }
}

/// The index in `slot` when it is over `names`, else that index brought up to `names` (or
/// one built anew), kept in `slot` for the next caller.
fn current(slot: &Mutex<Option<Arc<NameIndex>>>, names: Vec<KnownName>) -> Arc<NameIndex> {
    // A panic while the lock was held cannot leave a half-made index in the slot.
    let held = slot.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let index = match held {
        Some(index) if index.names() == names.as_slice() => return index,
        Some(index) => index.updated(names),
        None => NameIndex::new(names),
    };
    let index = Arc::new(index);
    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&index));
    index
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_cache_hands_out_the_index_of_the_names_as_they_are_now() {
        let cache = NameCache::new();
        let a = cache.titles(names(&[("Espresso", 1), ("Crema", 0)]));
        let b = cache.titles(names(&[("Espresso", 1), ("Crema", 0)]));
        assert!(Arc::ptr_eq(&a, &b), "the same names: the same index");
        assert!(cache.concepts(Vec::new()).is_empty(), "concepts apart");

        let reranked = cache.titles(names(&[("Espresso", 1), ("Crema", 4)]));
        assert!(a.shares_matcher(&reranked));
        assert_eq!(reranked.relevant("", 1), ["Crema"]);

        // A new page is found at once.
        let grown = cache.titles(names(&[("Espresso", 1), ("Crema", 4), ("Zebra Dun", 0)]));
        assert_eq!(grown.relevant("a zebra dun grazes", 1), ["Zebra Dun"]);
        // A removed page is gone at once.
        let shrunk = cache.titles(names(&[("Espresso", 1)]));
        assert_eq!(shrunk.relevant("a zebra dun and crema", 5), ["Espresso"]);
    }

    /// A store of titles whose counting read is counted.
    struct Titles {
        names: Mutex<Vec<KnownName>>,
        generation: Mutex<u64>,
        counted: Mutex<usize>,
    }

    impl Titles {
        fn add(&self, name: &str, uses: u64) {
            self.names.lock().unwrap().push(KnownName {
                name: name.into(),
                uses,
            });
            *self.generation.lock().unwrap() += 1;
        }
    }

    impl NameSource for Titles {
        type Error = std::convert::Infallible;
        fn names_generations(&self) -> Result<(u64, u64), Self::Error> {
            Ok((*self.generation.lock().unwrap(), 0))
        }
        fn title_names(&self) -> Result<Vec<KnownName>, Self::Error> {
            *self.counted.lock().unwrap() += 1;
            Ok(self.names.lock().unwrap().clone())
        }
        fn title_names_uncounted(&self) -> Result<Vec<String>, Self::Error> {
            Ok(self
                .names
                .lock()
                .unwrap()
                .iter()
                .map(|n| n.name.clone())
                .collect())
        }
        fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error> {
            Ok(Vec::new())
        }
    }

    /// Every new title is in the index at once, but the titles' links are counted again
    /// only once the titles grew by an eighth: until then a new title counts none and the
    /// others keep their counts.
    #[test]
    fn titles_are_counted_again_once_they_grew_by_an_eighth() {
        let store = Titles {
            names: Mutex::new(Vec::new()),
            generation: Mutex::new(0),
            counted: Mutex::new(0),
        };
        for i in 0..16 {
            store.add(&format!("Topic {i}"), 1);
        }
        let cache = NameCache::new();
        cache.known(&store).unwrap();
        assert_eq!(*store.counted.lock().unwrap(), 1);

        // Two more (18 of 16 + 2): in the index, not counted.
        store.add("Zebra Dun", 9);
        store.add("Crema", 9);
        let (titles, _) = cache.known(&store).unwrap();
        assert_eq!(*store.counted.lock().unwrap(), 1);
        assert_eq!(titles.relevant("a zebra dun grazes", 1), ["Zebra Dun"]);
        let uses: Vec<u64> = titles.names().iter().map(|n| n.uses).collect();
        assert_eq!(uses[16..], [0, 0], "not counted yet");
        assert!(uses[..16].iter().all(|&u| u == 1));

        // One more passes an eighth: counted again.
        store.add("Bloom", 9);
        let (titles, _) = cache.known(&store).unwrap();
        assert_eq!(*store.counted.lock().unwrap(), 2);
        let uses: Vec<u64> = titles.names().iter().map(|n| n.uses).collect();
        assert_eq!(uses[16..], [9, 9, 9]);
    }
}
