//! What lint keeps while the wiki does not change: the link figures every run starts from
//! and each check's findings, under the store's [`Generation`]. A second look at Health, a
//! dismissal's "screen after" and the safe fixes then cost what the staleness check costs
//! (it reads the disk, so it runs every time) instead of every check again: at 100,000
//! pages, a second of stat calls rather than several of queries.
//!
//! The generation is read before anything is read for it, so what is held is never older
//! than its generation: any commit after it (this process or another) makes the next run
//! read afresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::store::{Generation, LinkCounts, UnresolvedLink};
use crate::wiki::Result;

use super::{Check, Finding};

/// What one check found: its findings, and for `orphan` how many orphans (the figure the
/// health run stores, dismissed findings included).
#[derive(Debug)]
pub(super) struct Found {
    pub(super) findings: Vec<Finding>,
    pub(super) orphans: Option<u64>,
}

/// One generation's reads.
#[derive(Debug)]
pub(super) struct Held {
    generation: Generation,
    pub(super) counts: LinkCounts,
    pub(super) unresolved: Vec<UnresolvedLink>,
    found: Mutex<HashMap<Check, Arc<Found>>>,
}

impl Held {
    /// What `check` found at this generation: kept from an earlier run, else `run` now.
    /// Runs hold the lock, so a run at the same generation (a look while the background
    /// one after a stored run is under way) waits for what that one finds rather than
    /// reading it all a second time.
    pub(super) fn found(
        &self,
        check: Check,
        run: impl FnOnce() -> Result<Found>,
    ) -> Result<Arc<Found>> {
        let mut found = self.lock();
        if let Some(found) = found.get(&check) {
            return Ok(Arc::clone(found));
        }
        let fresh = Arc::new(run()?);
        found.insert(check, Arc::clone(&fresh));
        Ok(fresh)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Check, Arc<Found>>> {
        self.found.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The reads of the last generation lint ran at (shared by the clones of a `Wiki`).
#[derive(Debug, Default)]
pub(crate) struct LintCache(Mutex<Option<Arc<Held>>>);

impl LintCache {
    /// The reads held for `generation`, else a fresh hold whose link figures `read` gives
    /// (the old one is let go).
    pub(super) fn at(
        &self,
        generation: Generation,
        read: impl FnOnce() -> Result<(LinkCounts, Vec<UnresolvedLink>)>,
    ) -> Result<Arc<Held>> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(held) = slot.as_ref().filter(|h| h.generation == generation) {
            return Ok(Arc::clone(held));
        }
        let (counts, unresolved) = read()?;
        let held = Arc::new(Held {
            generation,
            counts,
            unresolved,
            found: Mutex::default(),
        });
        *slot = Some(Arc::clone(&held));
        Ok(held)
    }
}

/// Runs every check in the background, so that the next look finds what they find held:
/// what a look does after it stored its figures (the store then moved to another
/// generation, and what the look read is not held under it).
pub(crate) fn warm(wiki: &crate::wiki::Wiki) {
    let wiki = wiki.clone();
    let spawned = std::thread::Builder::new()
        .name("lint-warm".to_owned())
        .spawn(move || {
            let _ = super::lint(&wiki, &super::LintOptions::default());
        });
    // No thread (the system refused one): the next look reads afresh, as without this.
    drop(spawned);
}
