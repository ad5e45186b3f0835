//! The wiki's health: deterministic checks over the store (no model call), their safe
//! fixes, dismissals, and the merge a duplicate proposal asks for. The one home of every
//! rule `wikimind lint` (and, later, the app's Health view) applies; the shells parse,
//! call [`lint`], [`fix`], [`dismiss`] or [`merge`], and print.
//!
//! Checks ([`Check`]): `broken_link`, `ambiguous_link`, `wanted`, `orphan`, `stale`,
//! `ungrounded`, `duplicate`, `thin`. Each finding has an id that is a hash of what it is about (page
//! keys, link targets, claim texts, the two titles' keys; never row ids), so a dismissal
//! survives recompiles. The JSON shape of each is documented in `docs/cli.md`.
//!
//! Room is left for a model-assisted check (contradictions) in a later round: it would be
//! one more [`Check`] whose findings come from a driver, merged into the same report.

mod actions;
mod checks;
mod held;
mod names;
mod want;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::Serialize;

use crate::ingest::FileStamp;
use crate::store::{
    ClaimTable, JobSettings, MergeOutcome, PageId, SourceId, Store, UnresolvedLink,
};
use crate::wiki::{Result, Wiki, WikiError};
use wikimind_text::hash::content_hash;
use wikimind_text::key::page_key;
use wikimind_text::markdown::{body_anchors, wiki_links, Anchor};

pub use actions::{
    check_and_record, dismiss, fix, health_trend, merge, record_health, DismissError, Merged,
    Trigger,
};
use checks::{ambiguous_links, broken_links, duplicates, orphans, stale, thin, ungrounded, wanted};
pub(crate) use held::{warm, LintCache};
pub use names::Likeness;
pub use want::{ask_for_page, Asked};
pub use wikimind_text::prose::sentences;

/// How many sources a `wanted` finding names at most.
const WANTED_SOURCES: usize = 10;

/// How many linking pages a `wanted` finding names at most.
const WANTED_PAGES: usize = 20;

/// From this many topic pages on, a wiki where more than [`ORPHAN_SHARE`] of the pages
/// are orphans gets one `orphan` finding instead of one per page.
const ORPHAN_SUMMARY_FROM: u64 = 10;

/// See [`ORPHAN_SUMMARY_FROM`].
const ORPHAN_SHARE: f64 = 0.5;

/// A page with fewer sentences than this in its body is thin.
pub const THIN_SENTENCES: usize = 3;

/// A body at least this long (in characters) is not thin unless the page has no claims
/// (no body of 1,200 characters holds fewer than three sentences in practice; one that
/// does is not thin).
const THIN_READ_BELOW: usize = 1_200;

/// One deterministic check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// A link to a section or block a page does not have, or a link a person wrote to a
    /// page that has gone.
    BrokenLink,
    /// A link target the model wrote that no page answers to.
    Wanted,
    /// A page no other page links to.
    Orphan,
    /// A source changed on disk or since its digest; a page behind its digests.
    Stale,
    /// A claim shown grounded whose quote is no longer in its sources' current text.
    Ungrounded,
    /// Two pages that look like one topic: a merge proposal.
    Duplicate,
    /// A page with no claims, or a body of fewer than [`THIN_SENTENCES`] sentences.
    Thin,
    /// A note's link by a bare name that several notes of its root share as their title
    /// (`[[constructor]]` with `Parser/constructor.md` and `Lexer/constructor.md`): it goes
    /// to the note beside the linking note, else the shortest path, else the first in byte
    /// order, which may not be the one meant.
    AmbiguousLink,
}

impl Check {
    /// Every check, in the order findings are listed.
    pub const ALL: [Check; 8] = [
        Check::BrokenLink,
        Check::AmbiguousLink,
        Check::Stale,
        Check::Ungrounded,
        Check::Duplicate,
        Check::Wanted,
        Check::Orphan,
        Check::Thin,
    ];

    /// Its name on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::BrokenLink => "broken_link",
            Check::Wanted => "wanted",
            Check::Orphan => "orphan",
            Check::Stale => "stale",
            Check::Ungrounded => "ungrounded",
            Check::Duplicate => "duplicate",
            Check::Thin => "thin",
            Check::AmbiguousLink => "ambiguous_link",
        }
    }

    /// The check named `name` (as [`Check::as_str`] writes it; `-` for `_` accepted).
    pub fn parse(name: &str) -> Option<Check> {
        let name = name.trim().replace('-', "_");
        Check::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// How much its findings matter.
    pub fn severity(self) -> Severity {
        match self {
            Check::BrokenLink => Severity::Error,
            Check::Stale | Check::Ungrounded | Check::Duplicate | Check::AmbiguousLink => {
                Severity::Warning
            }
            Check::Wanted | Check::Orphan | Check::Thin => Severity::Info,
        }
    }
}

/// How much a finding matters; ordered, so `--fail-on warning` counts errors too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// Should be looked at.
    Warning,
    /// Something is wrong.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The severity named `name`.
    pub fn parse(name: &str) -> Option<Severity> {
        [Severity::Info, Severity::Warning, Severity::Error]
            .into_iter()
            .find(|s| s.as_str() == name.trim())
    }
}

/// A source a finding names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceRef {
    /// Its id.
    pub id: SourceId,
    /// Its origin (path, URL, `text:<hash>`).
    pub origin: String,
}

/// Why a source or page is stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StaleReason {
    /// The source's file now holds other text than the source.
    ChangedOnDisk,
    /// The source's file is gone (a proposal: `wikimind rm`, never done by `--fix`).
    MissingOnDisk,
    /// The source was ingested again with other text since its digest was made.
    Reingested,
    /// The page is older than one of its digests (or marked stale).
    PageBehind,
}

/// What a finding holds besides what every finding has: the keys its check needs (see
/// `docs/cli.md` for each shape).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Detail {
    /// `broken_link`.
    BrokenLink {
        /// The link's target as written.
        target: String,
        /// The heading or block as written after `#` (`null`: the link names a page that
        /// has gone).
        anchor: Option<String>,
        /// `section`, `block` or `page`.
        missing: &'static str,
    },
    /// `wanted`.
    Wanted {
        /// The name as first written.
        target: String,
        /// How many pages link to it.
        linked_from: u32,
        /// Sources whose digests name it (at most 10), oldest first.
        sources: Vec<SourceRef>,
    },
    /// `orphan`.
    Orphan {
        /// The share of topic pages that are orphans (0 to 1).
        share: f64,
        /// How many orphans there are.
        orphans: u64,
        /// `false` for the one finding that stands for all of them in a wiki where almost
        /// nothing links (`pages` is then empty).
        listed: bool,
    },
    /// `stale`.
    Stale {
        /// Why.
        reason: StaleReason,
        /// The source, for a stale source (`null` for a page).
        source: Option<SourceRef>,
        /// For a page: why it is behind, as the wiki recorded it.
        detail: Option<String>,
    },
    /// `ungrounded`.
    Ungrounded {
        /// The claim.
        claim: String,
        /// Its quote, no longer found.
        quote: String,
        /// Where the claim is: `page` (a digest's own claims are made again when its
        /// stale source is compiled, so they are not reported).
        on: &'static str,
        /// The sources it was looked for in.
        source_ids: Vec<SourceId>,
    },
    /// `duplicate`.
    Duplicate {
        /// The page a merge keeps (the one more sources feed; on a tie an acronym's
        /// expansion, else the older page).
        survivor: String,
        /// The page merged into it.
        absorbed: String,
        /// Why they look like one topic.
        reason: Likeness,
        /// The command that accepts the proposal.
        accept: String,
    },
    /// `ambiguous_link`.
    AmbiguousLink {
        /// The link's target as written (`constructor`).
        target: String,
        /// The note that writes it.
        source: SourceRef,
        /// The title of the note it goes to.
        resolved: String,
        /// The titles of the notes it may mean (at most 10), the one it goes to first.
        candidates: Vec<String>,
        /// How many notes share the name.
        notes: usize,
    },
    /// `thin`.
    Thin {
        /// How many claims the page has.
        claims: u32,
        /// How many sentences its body has.
        sentences: usize,
    },
}

/// One thing lint found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable: a hash of what it is about (see [`Finding::about`]); `--dismiss` takes it.
    pub id: String,
    /// Which check found it.
    pub check: Check,
    /// How much it matters.
    pub severity: Severity,
    /// The titles of the pages involved.
    pub pages: Vec<String>,
    /// One line for a person.
    pub message: String,
    /// What the id hashes, readable (kept with a dismissal).
    #[serde(skip)]
    pub about: String,
    /// The keys the check needs.
    #[serde(flatten)]
    pub detail: Detail,
    /// Where `--fix` may act (not serialised).
    #[serde(skip)]
    fix: Option<SafeFix>,
}

impl Finding {
    /// Whether `--fix` ([`fix`]) acts on this finding (the others are proposals).
    pub fn has_safe_fix(&self) -> bool {
        self.fix.is_some()
    }
}

/// What `--fix` may do for a finding: only what needs no judgement.
#[derive(Debug, Clone, PartialEq)]
enum SafeFix {
    /// Read a file source again (its status becomes stale: the next compile compiles it).
    Reread { source: SourceId, path: String },
    /// Queue a write of a page.
    QueuePage(PageId),
    /// The source is stale already: the next compile compiles it.
    SourceQueued,
    /// Show a claim as no longer grounded.
    Downgrade { table: ClaimTable, claim: i64 },
}

/// The health figures of a run (a `null` figure belongs to a check that was not run).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Topic pages.
    pub pages: u64,
    /// Links on topic pages.
    pub links: u64,
    /// The share of links that resolve to a page, in percent (100 with no links).
    pub link_resolution: f64,
    /// Orphan pages.
    pub orphans: Option<u64>,
    /// The share of topic pages that are orphans, in percent.
    pub orphan_share: Option<f64>,
    /// Wanted pages (distinct targets).
    pub wanted: Option<u64>,
    /// Broken links.
    pub broken_links: Option<u64>,
    /// Stale sources and pages.
    pub stale: Option<u64>,
    /// Claims that no longer ground.
    pub ungrounded: Option<u64>,
    /// Merge proposals.
    pub duplicates: Option<u64>,
    /// Thin pages.
    pub thin: Option<u64>,
    /// Links by a name several notes share.
    pub ambiguous_links: Option<u64>,
    /// Findings listed (dismissed ones left out), by severity.
    pub errors: u64,
    /// See [`Summary::errors`].
    pub warnings: u64,
    /// See [`Summary::errors`].
    pub infos: u64,
    /// Findings left out because a person dismissed them.
    pub dismissed: u64,
    /// The checks that ran.
    pub checks: Vec<Check>,
}

/// What a lint run found: `{summary, findings}` on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LintReport {
    /// The health figures.
    pub summary: Summary,
    /// The findings, by check (in [`Check::ALL`] order), then as each check orders them.
    pub findings: Vec<Finding>,
}

impl LintReport {
    /// Whether a finding at or above `severity` was found.
    pub fn has_at_least(&self, severity: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= severity)
    }
}

/// What `--fix` did for one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FixResult {
    /// The finding.
    pub id: String,
    /// Its check.
    pub check: Check,
    /// What was done (`reread`, `queued`, `downgraded`).
    pub action: &'static str,
    /// Whether it worked.
    pub ok: bool,
    /// What happened, for a person.
    pub detail: String,
}

/// The checks by how long they take at 100,000 pages, longest first (`cargo bench -p
/// wikimind --bench lint`): the order [`lint`] starts them in, so that its threads end
/// together.
const BY_COST: [Check; 8] = [
    Check::Duplicate,
    Check::Thin,
    Check::Wanted,
    Check::AmbiguousLink,
    Check::Stale,
    Check::Orphan,
    Check::BrokenLink,
    Check::Ungrounded,
];

/// At most this many threads run lint's checks: each reads on a connection of its own, as
/// many as the store keeps idle.
const MAX_THREADS: usize = crate::store::MAX_IDLE_READERS;

/// Runs `work` on each of `tasks` on as many threads as the machine has cores, up to
/// [`MAX_THREADS`] (the calling thread among them), each thread taking the next task none
/// has taken; the results come back in the tasks' order. A system that refuses a thread
/// gets fewer.
fn side_by_side<T: Sync, R: Send>(tasks: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS)
        .min(tasks.len());
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(task) = tasks.get(at) else {
                return done;
            };
            done.push((at, work(task)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map_while(|_| {
                std::thread::Builder::new()
                    .name("lint".to_owned())
                    .spawn_scoped(scope, worker)
                    .ok()
            })
            .collect();
        let mut done = worker();
        for other in others {
            match other.join() {
                Ok(theirs) => done.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    });
    done.sort_unstable_by_key(|(at, _)| *at);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Which checks a run does: all of them when `checks` is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintOptions {
    /// The checks to run (empty: all).
    pub checks: Vec<Check>,
}

impl LintOptions {
    fn runs(&self, check: Check) -> bool {
        self.checks.is_empty() || self.checks.contains(&check)
    }
}

/// The id of a finding of `check` about `about`: 16 hex digits of its SHA-256.
fn finding_id(check: Check, about: &str) -> String {
    let mut id = content_hash(&format!("{}\n{about}", check.as_str()));
    id.truncate(16);
    id
}

fn finding(
    check: Check,
    about: String,
    pages: Vec<String>,
    message: String,
    detail: Detail,
    fix: Option<SafeFix>,
) -> Finding {
    Finding {
        id: finding_id(check, &about),
        check,
        severity: check.severity(),
        pages,
        message,
        about,
        detail,
        fix,
    }
}

/// Runs the checks `options` asks for over `wiki` and returns what they found, leaving
/// out the findings a person dismissed. Reads the store and stats file sources; reads a
/// file only when its size or modification time changed (or was never recorded). What the
/// checks that read only the store found is kept while the wiki does not change (`held`),
/// so only the staleness check runs again then. The checks run side by side on the
/// machine's cores, after one census of the links ([`Store::link_census`]) that the link
/// checks share.
pub fn lint(wiki: &Wiki, options: &LintOptions) -> Result<LintReport> {
    let store = wiki.store();
    // Read before anything else, so what is held under it is never older than it.
    let generation = store.generation()?;
    let held = wiki.lint_held.at(generation);
    // One census of the links serves the figures, broken links, wanted pages and orphans.
    let links = || held.links(|| Ok(store.link_census()?));
    // The links' read goes first, so that a check needing it finds it made or under way;
    // then the checks that read most, so that the threads end together.
    let mut tasks = vec![None];
    tasks.extend(BY_COST.into_iter().filter(|c| options.runs(*c)).map(Some));
    let done = side_by_side(
        &tasks,
        |task| -> Result<Option<(Check, Arc<held::Found>)>> {
            let Some(check) = *task else {
                links()?;
                return Ok(None);
            };
            let found = |findings| held::Found {
                findings,
                orphans: None,
            };
            let run = || -> Result<held::Found> {
                Ok(match check {
                    Check::BrokenLink => found(broken_links(store, &links()?.unresolved)?),
                    Check::Wanted => found(wanted(store, &links()?.unresolved)?),
                    Check::Orphan => {
                        let links = links()?;
                        let (findings, orphans) = orphans(&links.orphans, links.counts.pages);
                        held::Found {
                            findings,
                            orphans: Some(orphans),
                        }
                    }
                    Check::Stale => found(stale(wiki)?),
                    Check::Ungrounded => found(ungrounded(store)?),
                    Check::Duplicate => found(duplicates(store)?),
                    Check::Thin => found(thin(store)?),
                    Check::AmbiguousLink => found(ambiguous_links(store)?),
                })
            };
            // Staleness reads the disk (a note edited in place changes no row): never held.
            let found = if check == Check::Stale {
                Arc::new(run()?)
            } else {
                held.found(check, run)?
            };
            Ok(Some((check, found)))
        },
    );
    let mut by_check = HashMap::new();
    for done in done {
        if let Some((check, found)) = done? {
            by_check.insert(check, found);
        }
    }
    let counts = links()?.counts;
    let resolved = counts
        .links
        .saturating_sub(links()?.unresolved.len() as u64);
    let mut summary = Summary {
        pages: counts.pages,
        links: counts.links,
        link_resolution: if counts.links == 0 {
            100.0
        } else {
            percent(resolved, counts.links)
        },
        ..Summary::default()
    };
    let mut findings = Vec::new();
    for check in Check::ALL {
        let Some(found) = by_check.remove(&check) else {
            continue;
        };
        summary.checks.push(check);
        if let Some(orphans) = found.orphans {
            summary.orphans = Some(orphans);
            summary.orphan_share = Some(if counts.pages == 0 {
                0.0
            } else {
                percent(orphans, counts.pages)
            });
        }
        let n = Some(found.findings.len() as u64);
        match check {
            Check::BrokenLink => summary.broken_links = n,
            Check::Wanted => summary.wanted = n,
            Check::Orphan => {}
            Check::Stale => summary.stale = n,
            Check::Ungrounded => summary.ungrounded = n,
            Check::Duplicate => summary.duplicates = n,
            Check::Thin => summary.thin = n,
            Check::AmbiguousLink => summary.ambiguous_links = n,
        }
        findings.extend(found.findings.iter().cloned());
    }
    let dismissed = store.dismissed_findings()?;
    let before = findings.len();
    findings.retain(|f| !dismissed.contains(&f.id));
    summary.dismissed = (before - findings.len()) as u64;
    for f in &findings {
        match f.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => summary.infos += 1,
        }
    }
    Ok(LintReport { summary, findings })
}

fn percent(part: u64, whole: u64) -> f64 {
    (part as f64 * 1000.0 / whole as f64).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_depend_on_what_a_finding_is_about_only() {
        let a = finding_id(Check::Duplicate, "coffee\nkaffee");
        assert_eq!(a, finding_id(Check::Duplicate, "coffee\nkaffee"));
        assert_ne!(a, finding_id(Check::Thin, "coffee\nkaffee"));
        assert_eq!(a.len(), 16);
    }

    #[test]
    fn checks_and_severities_parse_as_written() {
        for check in Check::ALL {
            assert_eq!(Check::parse(check.as_str()), Some(check));
        }
        assert_eq!(Check::parse("broken-link"), Some(Check::BrokenLink));
        assert_eq!(Check::parse("nope"), None);
        assert!(Severity::Error > Severity::Warning && Severity::Warning > Severity::Info);
        assert_eq!(Severity::parse("warning"), Some(Severity::Warning));
    }
}
