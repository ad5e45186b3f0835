//! What lint keeps while the wiki does not change: the census of links every run starts from
//! and each check's findings, under the store's [`Generation`]. A second look at Health, a
//! dismissal's "screen after" and the safe fixes then cost what the staleness check costs
//! (it reads the disk, so it runs every time) instead of every check again: at 100,000
//! pages, a second of stat calls rather than several of queries.
//!
//! The generation is read before anything is read for it, so what is held is never older
//! than its generation: any commit after it (this process or another) makes the next run
//! read afresh.

use std::sync::{Arc, Mutex};

use crate::store::{Generation, LinkCensus};
use crate::wiki::Result;

use super::{Check, Finding};

/// What one check found: its findings, and for `orphan` how many orphans (the figure the
/// health run stores, dismissed findings included).
#[derive(Debug)]
pub(super) struct Found {
    pub(super) findings: Vec<Finding>,
    pub(super) orphans: Option<u64>,
}

/// One read kept once made. Making it holds the lock, so a second asker at the same
/// generation (a look while the background one after a stored run is under way, or
/// another check's thread) waits for what the first finds rather than reading it all a
/// second time.
#[derive(Debug)]
struct Slot<T>(Mutex<Option<Arc<T>>>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(Mutex::new(None))
    }
}

impl<T> Slot<T> {
    fn get_or(&self, make: impl FnOnce() -> Result<T>) -> Result<Arc<T>> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kept) = slot.as_ref() {
            return Ok(Arc::clone(kept));
        }
        let fresh = Arc::new(make()?);
        *slot = Some(Arc::clone(&fresh));
        Ok(fresh)
    }
}

/// One generation's reads: the link figures and each check's findings, each behind its
/// own lock so that checks run side by side.
#[derive(Debug, Default)]
pub(super) struct Held {
    links: Slot<LinkCensus>,
    found: [Slot<Found>; Check::ALL.len()],
}

impl Held {
    /// The census of links at this generation: kept from an earlier run, else `read` now.
    pub(super) fn links(
        &self,
        read: impl FnOnce() -> Result<LinkCensus>,
    ) -> Result<Arc<LinkCensus>> {
        self.links.get_or(read)
    }

    /// What `check` found at this generation: kept from an earlier run, else `run` now.
    pub(super) fn found(
        &self,
        check: Check,
        run: impl FnOnce() -> Result<Found>,
    ) -> Result<Arc<Found>> {
        let at = Check::ALL.iter().position(|c| *c == check).unwrap_or(0);
        self.found[at].get_or(run)
    }
}

/// The reads of the last generation lint ran at, with that generation (shared by the
/// clones of a `Wiki`).
#[derive(Debug, Default)]
pub(crate) struct LintCache(Mutex<Option<(Generation, Arc<Held>)>>);

impl LintCache {
    /// The reads held for `generation`, else a fresh, empty hold (the old one is let go).
    pub(super) fn at(&self, generation: Generation) -> Arc<Held> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, held)) = slot.as_ref().filter(|(at, _)| *at == generation) {
            return Arc::clone(held);
        }
        let held = Arc::new(Held::default());
        *slot = Some((generation, Arc::clone(&held)));
        held
    }

    /// The generation what is held was read at, if anything is.
    pub(super) fn generation(&self) -> Option<Generation> {
        let slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().map(|(at, _)| *at)
    }

    /// Keeps what was read at `from` under `to`: the store says the one commit between
    /// them changed nothing the checks read (a health run stored). Nothing changes when
    /// what is held is of another generation by now.
    pub(super) fn carry(&self, from: Generation, to: Generation) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, _)) = slot.as_mut().filter(|(at, _)| *at == from) {
            *at = to;
        }
    }

    /// Whether what is held was read at `generation`.
    pub(crate) fn holds(&self, generation: Generation) -> bool {
        self.generation() == Some(generation)
    }
}

/// Runs every check in the background, so that the next look finds what they find held:
/// what a look does after it stored its figures, when the store moved to a generation
/// what the look read is not held under (something else was committed meanwhile).
pub(crate) fn warm(wiki: &crate::wiki::Wiki) {
    // Storing the figures kept what was held (nothing else was committed): nothing to do.
    if wiki
        .store()
        .generation()
        .is_ok_and(|now| wiki.lint_held.holds(now))
    {
        return;
    }
    let wiki = wiki.clone();
    let spawned = std::thread::Builder::new()
        .name("lint-warm".to_owned())
        .spawn(move || {
            let _ = super::lint(&wiki, &super::LintOptions::default());
        });
    // No thread (the system refused one): the next look reads afresh, as without this.
    drop(spawned);
}
