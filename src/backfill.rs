//! The backfills this build runs after a wiki opens: data changes that need today's rules
//! (see [`crate::store::Store::backfill_cursor`] for the bookkeeping). Each is versioned:
//! raising a version runs it again from the start on every wiki; each works in batches, so
//! an interrupted run picks up where it stopped.
//!
//! - `reground-digest-claims` and `reground-page-claims` (version 1): claims shown grounded
//!   are checked again by the current grounding rule (an ellipsis quote's pieces of three
//!   words or more, in order, near each other) against the sources that held them; one no
//!   source holds is shown `inferred`, its quote kept. Saved answers' claims, grounded
//!   against the page they cite, are not read.

use std::collections::HashMap;

use crate::compile::ground::GroundingIndex;
use crate::store::{ClaimTable, Result, SourceId, Store};

/// How many claims one batch (one transaction) checks.
const BATCH: usize = 500;

/// Every backfill of this build: name, version, the claims it checks.
const REGROUND: &[(&str, u32, ClaimTable)] = &[
    ("reground-digest-claims", 1, ClaimTable::Digest),
    ("reground-page-claims", 1, ClaimTable::Page),
];

/// What one backfill did in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackfillReport {
    /// The backfill's name.
    pub name: &'static str,
    /// The rows it checked in this run.
    pub checked: usize,
    /// The claims it no longer shows as grounded.
    pub downgraded: usize,
}

/// Runs every pending backfill to its end; reports the ones that checked anything.
pub fn run_backfills(store: &Store) -> Result<Vec<BackfillReport>> {
    let mut reports = Vec::new();
    for &(name, version, table) in REGROUND {
        let mut report = BackfillReport {
            name,
            checked: 0,
            downgraded: 0,
        };
        while let Some(from) = store.backfill_cursor(name, version)? {
            let claims = store.grounded_claims_after(table, from, BATCH)?;
            let mut indexes: HashMap<SourceId, Option<GroundingIndex>> = HashMap::new();
            let mut downgrade = Vec::new();
            for claim in &claims {
                let found = claim.sources.iter().any(|&source| {
                    let index = indexes.entry(source).or_insert_with(|| {
                        store
                            .source_text(source)
                            .ok()
                            .flatten()
                            .map(|text| GroundingIndex::new(&text))
                    });
                    index.as_ref().is_some_and(|i| i.contains(&claim.quote))
                });
                if !found {
                    downgrade.push(claim.id);
                }
            }
            let to = claims.last().map_or(from, |c| c.id);
            let done = claims.len() < BATCH;
            // Another process recording the same batch first is fine: the loop reads
            // the cursor again.
            if store.record_reground_batch(name, version, table, (from, to), &downgrade, done)? {
                report.checked += claims.len();
                report.downgraded += downgrade.len();
            }
        }
        if report.checked > 0 {
            reports.push(report);
        }
    }
    Ok(reports)
}
