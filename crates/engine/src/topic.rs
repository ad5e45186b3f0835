//! The name indexes of one wiki, kept between prompts ([`NameCache`]). The rules of topic
//! names (which spellings name one topic, which names a text speaks of) are the leaf crate's
//! ([`wikimind_text::key`], [`wikimind_text::names`]); they are re-exported here.

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
    /// The store's names generation both indexes are over (see [`NameCache::known`]).
    generation: Mutex<Option<u64>>,
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

    /// The indexes over the titles and over the concepts of `store`, read again only when
    /// its names changed since they were made ([`NameSource::names_generation`]): the store
    /// is not read name by name for every prompt. Use counts, which only rank the names a
    /// prompt lists beyond those its text names, are as of the last change.
    pub fn known<S: NameSource + ?Sized>(
        &self,
        store: &S,
    ) -> Result<(Arc<NameIndex>, Arc<NameIndex>), S::Error> {
        let generation = store.names_generation()?;
        let seen = *self.generation.lock().unwrap_or_else(|p| p.into_inner());
        let held = |slot: &Mutex<Option<Arc<NameIndex>>>| {
            slot.lock().unwrap_or_else(|p| p.into_inner()).clone()
        };
        if seen == Some(generation) {
            if let (Some(titles), Some(concepts)) = (held(&self.titles), held(&self.concepts)) {
                return Ok((titles, concepts));
            }
        }
        let titles = self.titles(store.title_names()?);
        let concepts = self.concepts(store.concept_names()?);
        *self.generation.lock().unwrap_or_else(|p| p.into_inner()) = Some(generation);
        Ok((titles, concepts))
    }
}

/// Where a wiki's names are read from (the store): the one thing a [`NameCache`] asks of it.
pub trait NameSource {
    /// Why a read failed.
    type Error;
    /// A number that moves whenever a name is made or removed.
    fn names_generation(&self) -> Result<u64, Self::Error>;
    /// The titles and aliases, with their use counts.
    fn title_names(&self) -> Result<Vec<KnownName>, Self::Error>;
    /// The concepts, with their use counts.
    fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error>;
}

impl NameSource for crate::store::Store {
    type Error = crate::store::StoreError;

    fn names_generation(&self) -> Result<u64, Self::Error> {
        crate::store::Store::names_generation(self)
    }

    fn title_names(&self) -> Result<Vec<KnownName>, Self::Error> {
        crate::store::Store::title_names(self)
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
}
