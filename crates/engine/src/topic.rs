//! The name indexes of one wiki, kept between prompts ([`NameCache`]). The rules of topic
//! names (which spellings name one topic, which names a text speaks of) are the leaf crate's
//! ([`wikimind_text::key`], [`wikimind_text::names`]); they are re-exported here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::store::{TitleNames, TitlesMark};

pub use wikimind_text::key::topic_key;
pub use wikimind_text::names::{KnownName, NameIndex};

/// The name indexes of one wiki — its titles and its concepts — kept between prompts.
///
/// Every compile and every page write asks which known names matter for its text. Building
/// a [`NameIndex`] costs a key per name and a matcher over all of them, which grows with the
/// wiki; the cache hands out the index it holds when the names and their use counts are as
/// they were, adds the titles made since when that is all that changed
/// ([`NameSource::title_names_since`], [`NameIndex::add`]: a cost that grows with the new
/// names, not with the wiki), and otherwise brings it up to the names read again
/// ([`NameIndex::updated`]: keys are computed only for new names, the matcher rebuilt only
/// for a new key). The store is asked at every prompt, so the index is always that of the
/// wiki as it is now: whatever changed the names (this process, another one, a restore) is
/// seen at the next prompt.
///
/// Shared by every compiler of one wiki (the app's `Wiki::compiler` hands it to each); safe to use
/// from concurrent compiles (two may build the same index at once; either result is kept).
#[derive(Default)]
pub struct NameCache {
    titles: Mutex<Option<Arc<NameIndex>>>,
    concepts: Mutex<Option<Arc<NameIndex>>>,
    /// The store's concepts generation the concepts' index is over (see
    /// [`NameCache::known`]).
    concepts_seen: Mutex<Option<u64>>,
    /// Where the titles' index stands in the store, and the titles' use counts.
    titles_read: Mutex<TitlesRead>,
}

/// Where the titles' index of a [`NameCache`] stands in the store.
#[derive(Default)]
struct TitlesRead {
    /// Where the titles' list stood when the index was last brought up to it; `None` when
    /// the index was handed its names ([`NameCache::titles`]) rather than read.
    mark: Option<TitlesMark>,
    /// The titles' use counts as last counted, and how many titles there were then.
    counted: Option<(usize, HashMap<String, u64>)>,
}

impl TitlesRead {
    /// The counts held, when `names` titles are few enough since the last count to go on
    /// with them: up to an eighth more than were counted.
    fn room_for(&self, names: usize) -> Option<&HashMap<String, u64>> {
        match &self.counted {
            Some((at, uses)) if names <= at + at / 8 => Some(uses),
            _ => None,
        }
    }
}

/// `names` each with the use count `uses` holds for it (none for a name not counted).
fn with_uses(names: Vec<KnownName>, uses: &HashMap<String, u64>) -> Vec<KnownName> {
    names
        .into_iter()
        .map(|name| KnownName {
            uses: uses.get(&name.name).copied().unwrap_or(0),
            ..name
        })
        .collect()
}

impl std::fmt::Debug for NameCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held =
            |slot: &Mutex<Option<Arc<NameIndex>>>| lock(slot).as_ref().map_or(0, |i| i.len());
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
    /// ([`NameSource::title_names`]). The next [`NameCache::known`] reads the titles again.
    pub fn titles(&self, names: Vec<KnownName>) -> Arc<NameIndex> {
        lock(&self.titles_read).mark = None;
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
    /// concept does not make the next one read every title. When only new titles were made
    /// since (the common case: a compile adds a page), those alone are read and added.
    /// Use counts, which only rank the names a prompt lists beyond those its text names, are
    /// as of the last change for concepts; titles' counts (a count of the links to each
    /// page, the one read that grows with the links) are counted again only once the titles
    /// grew by an eighth since they were last counted, each title keeping the count it had
    /// then (a new one none), so a run that adds a page per compile counts them a few dozen
    /// times, not once per compile.
    pub fn known<S: NameSource + ?Sized>(
        &self,
        store: &S,
    ) -> Result<(Arc<NameIndex>, Arc<NameIndex>), S::Error> {
        let (titles_now, concepts_now) = store.names_generations()?;
        let titles = self.titles_at(store, titles_now)?;
        let concepts_seen = *lock(&self.concepts_seen);
        let held = lock(&self.concepts).clone();
        let concepts = match held {
            Some(index) if concepts_seen == Some(concepts_now) => index,
            _ => self.concepts(store.concept_names()?),
        };
        *lock(&self.concepts_seen) = Some(concepts_now);
        Ok((titles, concepts))
    }
}

/// Locks `mutex`; a panic while it was held cannot leave a half-made value in it (each is
/// replaced whole), so a poisoned lock is taken over.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl NameCache {
    /// The titles' index of `store`, whose titles' generation is `now`: the one held when
    /// its mark is at `now`; the one held with the titles made since added, when that is all
    /// that changed and the counts held still serve; else one over the titles read again.
    fn titles_at<S: NameSource + ?Sized>(
        &self,
        store: &S,
        now: u64,
    ) -> Result<Arc<NameIndex>, S::Error> {
        let mut read = lock(&self.titles_read);
        if let Some(mark) = read.mark {
            let mut slot = lock(&self.titles);
            if let Some(mut held) = slot.take() {
                if mark.generation == now {
                    *slot = Some(Arc::clone(&held));
                    return Ok(held);
                }
                // A failed read leaves the held index in its slot for the next prompt.
                let since = match store.title_names_since(&mark) {
                    Ok(since) => since,
                    Err(e) => {
                        *slot = Some(held);
                        return Err(e);
                    }
                };
                if let Some(made) = since {
                    if let Some(uses) = read.room_for(held.names().len() + made.names.len()) {
                        // In place when no prompt holds the index still, else on a copy.
                        Arc::make_mut(&mut held).add(with_uses(made.names, uses));
                        read.mark = Some(made.mark);
                        *slot = Some(Arc::clone(&held));
                        return Ok(held);
                    }
                }
                *slot = Some(held);
            }
        }
        let names = self.title_names(store, &mut read)?;
        read.mark = Some(names.mark);
        Ok(current(&self.titles, names.names))
    }

    /// The titles of `store` with use counts: counted again when none were counted yet or
    /// the titles grew by an eighth since they were, else the titles alone, each with the
    /// count it had then (see [`NameCache::known`]).
    fn title_names<S: NameSource + ?Sized>(
        &self,
        store: &S,
        read: &mut TitlesRead,
    ) -> Result<TitleNames, S::Error> {
        if read.counted.is_some() {
            let names = store.title_names_uncounted()?;
            if let Some(uses) = read.room_for(names.names.len()) {
                return Ok(TitleNames {
                    names: with_uses(names.names, uses),
                    mark: names.mark,
                });
            }
        }
        let names = store.title_names()?;
        let uses = names
            .names
            .iter()
            .map(|n| (n.name.clone(), n.uses))
            .collect();
        read.counted = Some((names.names.len(), uses));
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
    /// The titles and aliases, with their use counts, and where the list stood.
    fn title_names(&self) -> Result<TitleNames, Self::Error>;
    /// The same names without their use counts (a cheaper read where counting is dear).
    fn title_names_uncounted(&self) -> Result<TitleNames, Self::Error> {
        let mut names = self.title_names()?;
        for name in &mut names.names {
            name.uses = 0;
        }
        Ok(names)
    }
    /// The titles and aliases made since `mark` (uncounted), when nothing else changed;
    /// `None` when the list must be read again (the default: a source that cannot tell).
    fn title_names_since(&self, mark: &TitlesMark) -> Result<Option<TitleNames>, Self::Error> {
        let _ = mark;
        Ok(None)
    }
    /// The concepts, with their use counts.
    fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error>;
}

impl NameSource for crate::store::Store {
    type Error = crate::store::StoreError;

    fn names_generations(&self) -> Result<(u64, u64), Self::Error> {
        crate::store::Store::names_generations(self)
    }

    fn title_names(&self) -> Result<TitleNames, Self::Error> {
        crate::store::Store::title_names(self)
    }

    fn title_names_uncounted(&self) -> Result<TitleNames, Self::Error> {
        crate::store::Store::title_names_uncounted(self)
    }

    fn title_names_since(&self, mark: &TitlesMark) -> Result<Option<TitleNames>, Self::Error> {
        crate::store::Store::title_names_since(self, mark)
    }

    fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error> {
        crate::store::Store::concept_names(self)
    }
}

/// The index in `slot` when it is over `names`, else that index brought up to `names` (or
/// one built anew), kept in `slot` for the next caller.
fn current(slot: &Mutex<Option<Arc<NameIndex>>>, names: Vec<KnownName>) -> Arc<NameIndex> {
    let held = lock(slot).clone();
    let index = match held {
        Some(index) if index.names() == names.as_slice() => return index,
        Some(index) => index.updated(names),
        None => NameIndex::new(names),
    };
    let index = Arc::new(index);
    *lock(slot) = Some(Arc::clone(&index));
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pairs: &[(&str, u64)]) -> Vec<KnownName> {
        pairs
            .iter()
            .map(|&(name, uses)| KnownName::new(name, uses))
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

    /// A store of titles whose reads are counted: its mark is how many names it held.
    #[derive(Default)]
    struct Titles {
        names: Mutex<Vec<KnownName>>,
        generation: Mutex<u64>,
        counted: Mutex<usize>,
        /// Reads of the whole list, counted or not.
        whole: Mutex<usize>,
        /// Whether a read of the titles made since a mark fails.
        failing: Mutex<bool>,
    }

    impl Titles {
        fn add(&self, name: &str, uses: u64) {
            self.names.lock().unwrap().push(KnownName::new(name, uses));
            *self.generation.lock().unwrap() += 1;
        }

        fn remove(&self, name: &str) {
            self.names.lock().unwrap().retain(|n| n.name != name);
            *self.generation.lock().unwrap() += 1;
        }

        fn read(&self, counted: bool) -> TitleNames {
            *self.whole.lock().unwrap() += 1;
            let names = self.names.lock().unwrap();
            TitleNames {
                names: names
                    .iter()
                    .map(|n| KnownName {
                        uses: if counted { n.uses } else { 0 },
                        ..n.clone()
                    })
                    .collect(),
                mark: self.mark(names.len()),
            }
        }

        fn mark(&self, held: usize) -> TitlesMark {
            TitlesMark {
                generation: *self.generation.lock().unwrap(),
                last_page: held as i64,
                last_alias: 0,
            }
        }
    }

    impl NameSource for Titles {
        type Error = &'static str;
        fn names_generations(&self) -> Result<(u64, u64), Self::Error> {
            Ok((*self.generation.lock().unwrap(), 0))
        }
        fn title_names(&self) -> Result<TitleNames, Self::Error> {
            *self.counted.lock().unwrap() += 1;
            Ok(self.read(true))
        }
        fn title_names_uncounted(&self) -> Result<TitleNames, Self::Error> {
            Ok(self.read(false))
        }
        fn title_names_since(&self, mark: &TitlesMark) -> Result<Option<TitleNames>, Self::Error> {
            if *self.failing.lock().unwrap() {
                return Err("the disk is gone");
            }
            let names = self.names.lock().unwrap();
            let from = mark.last_page as usize;
            let made = names.len().checked_sub(from);
            let moved = *self.generation.lock().unwrap() - mark.generation;
            if made.map(|m| m as u64) != Some(moved) {
                return Ok(None);
            }
            Ok(Some(TitleNames {
                names: names[from..]
                    .iter()
                    .map(|n| KnownName::new(n.name.clone(), 0))
                    .collect(),
                mark: self.mark(names.len()),
            }))
        }
        fn concept_names(&self) -> Result<Vec<KnownName>, Self::Error> {
            Ok(Vec::new())
        }
    }

    /// A store of forty titles, and a cache that has read them once.
    fn forty_titles_read() -> (Titles, NameCache) {
        let store = Titles::default();
        for i in 0..40 {
            store.add(&format!("Topic {i}"), 1);
        }
        let cache = NameCache::new();
        cache.known(&store).unwrap();
        (store, cache)
    }

    /// Titles made since the last read are read alone and added; anything else (a title
    /// removed) reads them all again; either way the index answers as one built anew.
    #[test]
    fn new_titles_are_added_and_anything_else_reads_all_again() {
        let (store, cache) = forty_titles_read();
        assert_eq!(*store.whole.lock().unwrap(), 1);
        store.add("Zebra Dun", 0);
        store.add("Crema", 0);
        let (titles, _) = cache.known(&store).unwrap();
        assert_eq!(
            *store.whole.lock().unwrap(),
            1,
            "only the two new ones were read"
        );
        assert_eq!(
            titles.relevant("a zebra dun on crema", 2),
            ["Crema", "Zebra Dun"]
        );
        drop(titles);

        store.remove("Crema");
        let (titles, _) = cache.known(&store).unwrap();
        assert_eq!(*store.whole.lock().unwrap(), 2, "a removal reads them all");
        assert_eq!(titles.relevant("a zebra dun on crema", 1), ["Zebra Dun"]);
        let fresh = NameIndex::new(store.names.lock().unwrap().clone());
        assert_eq!(titles.relevant("", 100).len(), 41);
        let mut both = (titles.relevant("", 100), fresh.relevant("", 100));
        both.0.sort();
        both.1.sort();
        assert_eq!(both.0, both.1);

        // Held by a prompt still: the one held is not changed under it.
        store.add("Bloom", 0);
        let (with_bloom, _) = cache.known(&store).unwrap();
        store.add("Grind", 0);
        let (with_grind, _) = cache.known(&store).unwrap();
        assert_eq!(*store.whole.lock().unwrap(), 2);
        assert!(with_bloom.relevant("grind", 1) != ["Grind"]);
        assert_eq!(with_grind.relevant("grind", 1), ["Grind"]);
    }

    /// A read that fails loses nothing held: once the store answers again, the index held
    /// before is added to, not read anew.
    #[test]
    fn a_failed_read_keeps_the_index_held() {
        let (store, cache) = forty_titles_read();
        store.add("Crema", 0);
        *store.failing.lock().unwrap() = true;
        assert!(cache.known(&store).is_err());
        *store.failing.lock().unwrap() = false;
        store.add("Bloom", 0);
        let (titles, _) = cache.known(&store).unwrap();
        assert_eq!(
            *store.whole.lock().unwrap(),
            1,
            "the two new ones alone were read"
        );
        assert_eq!(titles.relevant("crema bloom", 2), ["Bloom", "Crema"]);
    }

    /// Every new title is in the index at once, but the titles' links are counted again
    /// only once the titles grew by an eighth: until then a new title counts none and the
    /// others keep their counts.
    #[test]
    fn titles_are_counted_again_once_they_grew_by_an_eighth() {
        let store = Titles::default();
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
