//! The wiki's health: deterministic checks over the store (no model call), their safe
//! fixes, dismissals, and the merge a duplicate proposal asks for. The one home of every
//! rule `wikimind lint` (and, later, the app's Health view) applies; the shells parse,
//! call [`lint`], [`fix`], [`dismiss`] or [`merge`], and print.
//!
//! Checks ([`Check`]): `broken_link`, `wanted`, `orphan`, `stale`, `ungrounded`,
//! `duplicate`, `thin`. Each finding has an id that is a hash of what it is about (page
//! keys, link targets, claim texts, the two titles' keys; never row ids), so a dismissal
//! survives recompiles. The JSON shape of each is documented in `docs/cli.md`.
//!
//! Room is left for a model-assisted check (contradictions) in a later round: it would be
//! one more [`Check`] whose findings come from a driver, merged into the same report.

mod names;
mod want;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use crate::compile::ground::GroundingIndex;
use crate::ingest::FileStamp;
use crate::store::{
    ClaimTable, JobSettings, MergeOutcome, PageId, SourceId, Store, UnresolvedLink,
};
use crate::wiki::{Result, Wiki, WikiError};
use wikimind_text::hash::content_hash;
use wikimind_text::key::page_key;
use wikimind_text::markdown::{body_anchors, wiki_links, Anchor};

pub use names::Likeness;
pub use want::{ask_for_page, Asked};

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

/// Bodies at least this long are not read by the thin check unless the page has no claims
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
}

impl Check {
    /// Every check, in the order findings are listed.
    pub const ALL: [Check; 7] = [
        Check::BrokenLink,
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
            Check::Stale | Check::Ungrounded | Check::Duplicate => Severity::Warning,
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
/// file only when its size or modification time changed (or was never recorded).
pub fn lint(wiki: &Wiki, options: &LintOptions) -> Result<LintReport> {
    let store = wiki.store();
    let counts = store.link_counts()?;
    // One pass over the links that resolve to nothing serves the figures, broken links
    // and wanted pages.
    let unresolved = store.unresolved_links()?;
    let resolved = counts.links.saturating_sub(unresolved.len() as u64);
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
        if !options.runs(check) {
            continue;
        }
        summary.checks.push(check);
        let found = match check {
            Check::BrokenLink => broken_links(store, &unresolved)?,
            Check::Wanted => wanted(store, &unresolved)?,
            Check::Orphan => {
                let (found, orphans) = orphans(store, counts.pages)?;
                summary.orphans = Some(orphans);
                summary.orphan_share = Some(if counts.pages == 0 {
                    0.0
                } else {
                    percent(orphans, counts.pages)
                });
                found
            }
            Check::Stale => stale(wiki)?,
            Check::Ungrounded => ungrounded(store)?,
            Check::Duplicate => duplicates(store)?,
            Check::Thin => thin(store)?,
        };
        let n = Some(found.len() as u64);
        match check {
            Check::BrokenLink => summary.broken_links = n,
            Check::Wanted => summary.wanted = n,
            Check::Orphan => {}
            Check::Stale => summary.stale = n,
            Check::Ungrounded => summary.ungrounded = n,
            Check::Duplicate => summary.duplicates = n,
            Check::Thin => summary.thin = n,
        }
        findings.extend(found);
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

fn broken_links(store: &Store, unresolved: &[UnresolvedLink]) -> Result<Vec<Finding>> {
    let mut found = Vec::new();
    // Links to a section or block a page does not have.
    let bodies = store.bodies_with_anchored_links()?;
    let mut anchored = Vec::new();
    for page in &bodies {
        for link in wiki_links(&page.body) {
            if let Some(anchor) = link.anchor {
                anchored.push((page, page_key(&link.target), link.target, anchor));
            }
        }
    }
    let keys: HashSet<String> = anchored.iter().map(|(_, k, _, _)| k.clone()).collect();
    let targets = store.bodies_by_key(&keys)?;
    let mut offered = HashMap::new();
    let mut seen = HashSet::new();
    for (page, key, target, anchor) in anchored {
        // A link to no page at all is a wanted page (or, written by a person, below).
        let Some(to) = targets.get(&key) else {
            continue;
        };
        let anchors = offered
            .entry(to.id)
            .or_insert_with(|| body_anchors(&to.body));
        if anchors.has(&anchor) {
            continue;
        }
        let (missing, slug) = match &anchor {
            Anchor::Heading(h) => ("section", wikimind_text::markdown::heading_slug(h)),
            Anchor::Block(b) => ("block", format!("^{b}")),
        };
        let about = format!("{}\n{}\n{slug}", page.key, to.key);
        if !seen.insert(about.clone()) {
            continue;
        }
        let written = anchor.written();
        found.push(finding(
            Check::BrokenLink,
            about,
            vec![page.title.clone(), to.title.clone()],
            format!(
                "{:?} links to [[{target}#{written}]], but {:?} has no such {}",
                page.title,
                to.title,
                if missing == "block" {
                    "block"
                } else {
                    "heading"
                }
            ),
            Detail::BrokenLink {
                target,
                anchor: Some(written),
                missing,
            },
            None,
        ));
    }
    // Links a person wrote to a page that has gone.
    for link in unresolved.iter().filter(|l| l.by_person) {
        let about = format!("{}\n{}\n", page_key(&link.page_title), link.target_key);
        found.push(finding(
            Check::BrokenLink,
            about,
            vec![link.page_title.clone()],
            format!(
                "{:?} (written by you) links to {:?}, which no page answers to any more",
                link.page_title, link.target_title
            ),
            Detail::BrokenLink {
                target: link.target_title.clone(),
                anchor: None,
                missing: "page",
            },
            None,
        ));
    }
    Ok(found)
}

fn wanted(store: &Store, unresolved: &[UnresolvedLink]) -> Result<Vec<Finding>> {
    // target key -> (first spelling, linking pages in order)
    let mut by_key: BTreeMap<&str, (&str, Vec<&str>)> = BTreeMap::new();
    for link in unresolved.iter().filter(|l| !l.by_person) {
        let entry = by_key
            .entry(&link.target_key)
            .or_insert_with(|| (&link.target_title, Vec::new()));
        // Links come by page, so a page repeats only right after itself.
        if entry.1.last() != Some(&link.page_title.as_str()) {
            entry.1.push(&link.page_title);
        }
    }
    let keys: Vec<String> = by_key.keys().map(|k| (*k).to_owned()).collect();
    let mut naming = store.sources_naming(&keys, WANTED_SOURCES)?;
    let mut found: Vec<Finding> = by_key
        .into_iter()
        .map(|(key, (target, pages))| {
            let linked_from = pages.len() as u32;
            let sources = naming
                .remove(key)
                .unwrap_or_default()
                .into_iter()
                .map(|(id, origin)| SourceRef { id, origin })
                .collect::<Vec<_>>();
            finding(
                Check::Wanted,
                key.to_owned(),
                pages
                    .into_iter()
                    .take(WANTED_PAGES)
                    .map(str::to_owned)
                    .collect(),
                format!(
                    "{target:?} is wanted: {linked_from} page(s) link to it, {} source(s) name it",
                    sources.len()
                ),
                Detail::Wanted {
                    target: target.to_owned(),
                    linked_from,
                    sources,
                },
                None,
            )
        })
        .collect();
    found.sort_by(|a, b| {
        let n = |f: &Finding| match f.detail {
            Detail::Wanted { linked_from, .. } => linked_from,
            _ => 0,
        };
        n(b).cmp(&n(a))
    });
    Ok(found)
}

fn orphans(store: &Store, pages: u64) -> Result<(Vec<Finding>, u64)> {
    let orphans = store.orphan_pages()?;
    let count = orphans.len() as u64;
    let share = if pages == 0 {
        0.0
    } else {
        count as f64 / pages as f64
    };
    if pages >= ORPHAN_SUMMARY_FROM && share > ORPHAN_SHARE {
        let found = finding(
            Check::Orphan,
            "the wiki barely links".to_owned(),
            Vec::new(),
            format!(
                "{count} of {pages} pages ({:.1}%) have no link to them: the wiki barely \
                 links (not listed one by one)",
                share * 100.0
            ),
            Detail::Orphan {
                share,
                orphans: count,
                listed: false,
            },
            None,
        );
        return Ok((vec![found], count));
    }
    let found = orphans
        .into_iter()
        .map(|page| {
            finding(
                Check::Orphan,
                page.key,
                vec![page.title.clone()],
                format!("no page links to {:?}", page.title),
                Detail::Orphan {
                    share,
                    orphans: count,
                    listed: true,
                },
                None,
            )
        })
        .collect();
    Ok((found, count))
}

/// Where a file source's origin is on disk (`None` for an origin that is not a plain path).
fn origin_path(origin: &str) -> Option<&Path> {
    (!origin.starts_with(crate::ingest::BYTES_ORIGIN_PREFIX)).then(|| Path::new(origin))
}

fn stale(wiki: &Wiki) -> Result<Vec<Finding>> {
    let store = wiki.store();
    let mut found = Vec::new();
    let mut stale_sources = HashSet::new();
    let source_finding = |reason: StaleReason, id: SourceId, origin: &str, hash: &str| {
        let (message, fix) = match reason {
            StaleReason::ChangedOnDisk => (
                format!("{origin} changed on disk since it was read"),
                Some(SafeFix::Reread {
                    source: id,
                    path: origin.to_owned(),
                }),
            ),
            StaleReason::MissingOnDisk => (
                format!("{origin} is gone from disk (remove it with `wikimind rm {id}`)"),
                None,
            ),
            _ => (
                format!("{origin} was ingested again with other text since its digest was made"),
                Some(SafeFix::SourceQueued),
            ),
        };
        finding(
            Check::Stale,
            format!("{origin}\n{hash}"),
            Vec::new(),
            message,
            Detail::Stale {
                reason,
                source: Some(SourceRef {
                    id,
                    origin: origin.to_owned(),
                }),
                detail: None,
            },
            fix,
        )
    };
    for source in store.file_sources()? {
        let Some(path) = origin_path(&source.origin) else {
            continue;
        };
        let metadata = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                found.push(source_finding(
                    StaleReason::MissingOnDisk,
                    source.id,
                    &source.origin,
                    &source.content_hash,
                ));
                stale_sources.insert(source.id);
                continue;
            }
        };
        let now = FileStamp::of(&metadata);
        let unchanged = matches!(
            (now, source.file_size, source.file_mtime_ns),
            (Some(now), Some(size), Some(mtime)) if now.size == size && now.mtime_ns == mtime
        );
        if unchanged {
            continue;
        }
        // Size or time differ (or were never recorded): read it as ingest would.
        let text_now = crate::ingest::ingest_path(path, wiki.ingest_options())
            .ok()
            .and_then(|report| report.sources.into_iter().next())
            .map(|s| content_hash(&s.text));
        if text_now.as_deref() != Some(source.content_hash.as_str()) {
            found.push(source_finding(
                StaleReason::ChangedOnDisk,
                source.id,
                &source.origin,
                &source.content_hash,
            ));
            stale_sources.insert(source.id);
        }
    }
    for source in store.reingested_sources()? {
        if stale_sources.contains(&source.id) {
            continue;
        }
        found.push(source_finding(
            StaleReason::Reingested,
            source.id,
            &source.origin,
            &source.content_hash,
        ));
    }
    for page in store.pages_behind()? {
        found.push(finding(
            Check::Stale,
            page.key.clone(),
            vec![page.title.clone()],
            format!(
                "{:?} is behind its digests ({}){}",
                page.title,
                page.reason,
                if page.queued {
                    "; a write is queued"
                } else {
                    ""
                }
            ),
            Detail::Stale {
                reason: StaleReason::PageBehind,
                source: None,
                detail: Some(page.reason),
            },
            Some(SafeFix::QueuePage(page.id)),
        ));
    }
    Ok(found)
}

fn ungrounded(store: &Store) -> Result<Vec<Finding>> {
    let mut indexes: HashMap<SourceId, Option<GroundingIndex>> = HashMap::new();
    let mut found = Vec::new();
    for claim in store.claims_to_recheck()? {
        let holds = claim.sources.iter().any(|&source| {
            let index = indexes.entry(source).or_insert_with(|| {
                store
                    .source_text(source)
                    .ok()
                    .flatten()
                    .map(|text| GroundingIndex::new(&crate::compile::readable(&text)))
            });
            index.as_ref().is_some_and(|i| i.contains(&claim.quote))
        });
        if holds {
            continue;
        }
        let on = match claim.table {
            ClaimTable::Page => "page",
            ClaimTable::Digest => "digest",
        };
        found.push(finding(
            Check::Ungrounded,
            format!("{on}\n{}\n{}\n{}", claim.page_key, claim.claim, claim.quote),
            vec![claim.page_title.clone()],
            format!(
                "a claim of {:?} quotes text its sources no longer hold: {:?}",
                claim.page_title, claim.quote
            ),
            Detail::Ungrounded {
                claim: claim.claim,
                quote: claim.quote,
                on,
                source_ids: claim.sources,
            },
            Some(SafeFix::Downgrade {
                table: claim.table,
                claim: claim.id,
            }),
        ));
    }
    Ok(found)
}

fn duplicates(store: &Store) -> Result<Vec<Finding>> {
    let pages = store.lint_pages()?;
    let by_id: HashMap<PageId, &crate::store::LintPage> = pages.iter().map(|p| (p.id, p)).collect();
    let mut pairs: BTreeMap<(PageId, PageId), Likeness> = BTreeMap::new();
    let mut propose = |a: PageId, b: PageId, why: Likeness| {
        if a != b {
            let pair = (a.min(b), a.max(b));
            pairs
                .entry(pair)
                .and_modify(|w| *w = (*w).min(why))
                .or_insert(why);
        }
    };
    // Names: a key two pages answer to.
    let mut by_name: HashMap<String, BTreeSet<PageId>> = HashMap::new();
    for page in &pages {
        by_name.entry(page.key.clone()).or_default().insert(page.id);
    }
    for name in store.page_names()? {
        let key = name.key.unwrap_or_else(|| page_key(&name.name));
        by_name.entry(key).or_default().insert(name.page_id);
    }
    let mut group = |map: &HashMap<String, BTreeSet<PageId>>, why: Likeness| {
        for ids in map.values() {
            let mut ids = ids.iter();
            let Some(&first) = ids.next() else { continue };
            for &other in ids {
                propose(first, other, why);
            }
        }
    };
    group(&by_name, Likeness::SharedName);
    let mut by_order: HashMap<String, BTreeSet<PageId>> = HashMap::new();
    let mut by_stem: HashMap<String, BTreeSet<PageId>> = HashMap::new();
    let mut by_initials: HashMap<String, BTreeSet<PageId>> = HashMap::new();
    for page in &pages {
        if let Some(words) = names::sorted_words(&page.key) {
            by_order.entry(words).or_default().insert(page.id);
        }
        by_stem
            .entry(names::stemmed(&page.key))
            .or_default()
            .insert(page.id);
        if let Some(initials) = names::initials(&page.title) {
            by_initials.entry(initials).or_default().insert(page.id);
        }
    }
    group(&by_order, Likeness::WordOrder);
    group(&by_stem, Likeness::CommonStem);
    for page in &pages {
        if let Some(acronym) = names::acronym(&page.title) {
            for &other in by_initials.get(&acronym).into_iter().flatten() {
                propose(page.id, other, Likeness::Acronym);
            }
        }
    }
    let mut found = Vec::new();
    for ((a, b), why) in pairs {
        let (Some(a), Some(b)) = (by_id.get(&a), by_id.get(&b)) else {
            continue;
        };
        // The survivor: more sources; on a tie the expansion of an acronym, else the
        // older page (ids only grow).
        let b_first = match b.sources.cmp(&a.sources) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                why == Likeness::Acronym && names::acronym(&a.title).is_some()
            }
        };
        let (survivor, absorbed) = if b_first { (b, a) } else { (a, b) };
        let mut keys = [a.key.as_str(), b.key.as_str()];
        keys.sort_unstable();
        found.push(finding(
            Check::Duplicate,
            keys.join("\n"),
            vec![survivor.title.clone(), absorbed.title.clone()],
            format!(
                "{:?} and {:?} look like one topic ({}): merge them, or dismiss the proposal",
                survivor.title,
                absorbed.title,
                why.describe()
            ),
            Detail::Duplicate {
                survivor: survivor.title.clone(),
                absorbed: absorbed.title.clone(),
                reason: why,
                accept: format!(
                    "wikimind merge {} {}",
                    shell_word(&survivor.title),
                    shell_word(&absorbed.title)
                ),
            },
            None,
        ));
    }
    Ok(found)
}

/// `text` quoted for a POSIX shell.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// How many sentences a body holds: runs of text ending in `.`, `!` or `?` (or the end)
/// with at least three words, headings and list markers counted as text.
pub fn sentences(body: &str) -> usize {
    let mut count = 0;
    let mut words = 0;
    let mut in_word = false;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() {
            if !in_word {
                words += 1;
            }
            in_word = true;
            continue;
        }
        in_word = false;
        let ends = matches!(c, '.' | '!' | '?')
            && chars.peek().is_none_or(|n| n.is_whitespace() || *n == ')');
        if ends || c == '\n' && chars.peek() == Some(&'\n') {
            if words >= 3 {
                count += 1;
            }
            words = 0;
        }
    }
    if words >= 3 {
        count += 1;
    }
    count
}

fn thin(store: &Store) -> Result<Vec<Finding>> {
    let mut found = Vec::new();
    for page in store.thin_candidates(THIN_READ_BELOW)? {
        let sentences = sentences(&page.body);
        if page.claims > 0 && sentences >= THIN_SENTENCES {
            continue;
        }
        found.push(finding(
            Check::Thin,
            page.key.clone(),
            vec![page.title.clone()],
            format!(
                "{:?} is thin: {} claim(s), {sentences} sentence(s)",
                page.title, page.claims
            ),
            Detail::Thin {
                claims: page.claims,
                sentences,
            },
            None,
        ));
    }
    Ok(found)
}

/// Applies the safe fixes of `report`'s findings (only what needs no judgement): a file
/// that changed on disk is read again (the next compile compiles it), a page behind its
/// digests gets a write queued with `settings`, a claim that no longer grounds is shown
/// `inferred`. Every other finding is a proposal and is left alone. Returns one result per
/// finding acted on.
pub fn fix(wiki: &Wiki, report: &LintReport, settings: &JobSettings) -> Result<Vec<FixResult>> {
    let store = wiki.store();
    let mut results = Vec::new();
    let mut downgrade: BTreeMap<(u8, i64), (&Finding, ClaimTable)> = BTreeMap::new();
    for f in &report.findings {
        let Some(fix) = &f.fix else { continue };
        let result = |action: &'static str, outcome: std::result::Result<String, String>| {
            let ok = outcome.is_ok();
            FixResult {
                id: f.id.clone(),
                check: f.check,
                action,
                ok,
                detail: outcome.unwrap_or_else(|e| e),
            }
        };
        match fix {
            SafeFix::Reread { source, path } => {
                let outcome = match wiki.ingest_path(Path::new(path), wiki.ingest_options()) {
                    Ok(summary) if summary.sources.iter().any(|s| s.source_id == *source) => {
                        Ok(format!("read {path} again; the next compile compiles it"))
                    }
                    Ok(_) => Err(format!("{path} could not be read as source {source}")),
                    Err(e) => Err(format!("reading {path} again failed: {e}")),
                };
                results.push(result("reread", outcome));
            }
            SafeFix::SourceQueued => results.push(result(
                "queued",
                Ok("the source is stale: the next compile compiles it".to_owned()),
            )),
            SafeFix::QueuePage(page) => {
                let outcome = store
                    .mark_page_stale(*page, "a digest is newer than the page")
                    .and_then(|()| store.enqueue_page(*page, settings))
                    .map(|job| format!("queued job {job}: the next compile writes the page"))
                    .map_err(|e| format!("queuing a write of the page failed: {e}"));
                results.push(result("queued", outcome));
            }
            SafeFix::Downgrade { table, claim } => {
                let order = match table {
                    ClaimTable::Digest => 0,
                    ClaimTable::Page => 1,
                };
                downgrade.insert((order, *claim), (f, *table));
            }
        }
    }
    for table in [ClaimTable::Digest, ClaimTable::Page] {
        let batch: Vec<(&Finding, i64)> = downgrade
            .iter()
            .filter(|(_, (_, t))| *t == table)
            .map(|((_, id), (f, _))| (*f, *id))
            .collect();
        if batch.is_empty() {
            continue;
        }
        let ids: Vec<i64> = batch.iter().map(|(_, id)| *id).collect();
        let outcome = store.downgrade_claims(table, &ids);
        for (f, _) in batch {
            results.push(FixResult {
                id: f.id.clone(),
                check: f.check,
                action: "downgraded",
                ok: outcome.is_ok(),
                detail: match &outcome {
                    Ok(()) => "shown inferred, its quote kept".to_owned(),
                    Err(e) => format!("showing the claim inferred failed: {e}"),
                },
            });
        }
    }
    Ok(results)
}

/// What a stored health run was made after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// A compile run.
    Compile,
    /// A `lint` run of every check.
    Lint,
}

impl Trigger {
    fn as_str(self) -> &'static str {
        match self {
            Trigger::Compile => "compile",
            Trigger::Lint => "lint",
        }
    }
}

/// Stores the health figures of `report` for the trend, when it is a run of every check
/// (a `--check` run's figures are partial: it is not stored). Returns whether it stored.
pub fn record_health(wiki: &Wiki, report: &LintReport, trigger: Trigger) -> Result<bool> {
    let s = &report.summary;
    if s.checks.len() < Check::ALL.len() {
        return Ok(false);
    }
    let n = |v: Option<u64>| v.unwrap_or(0);
    wiki.store().record_health(&crate::store::HealthRun {
        at: String::new(),
        trigger: trigger.as_str().to_owned(),
        pages: s.pages,
        links: s.links,
        link_resolution: s.link_resolution,
        orphan_share: s.orphan_share.unwrap_or(0.0),
        wanted: n(s.wanted),
        broken_links: n(s.broken_links),
        stale: n(s.stale),
        ungrounded: n(s.ungrounded),
        duplicates: n(s.duplicates),
        thin: n(s.thin),
    })?;
    Ok(true)
}

/// Runs every check and stores the figures (what a shell calls after a compile run).
pub fn check_and_record(wiki: &Wiki, trigger: Trigger) -> Result<LintReport> {
    let report = lint(wiki, &LintOptions::default())?;
    record_health(wiki, &report, trigger)?;
    Ok(report)
}

/// The last `limit` stored health runs, oldest first: the trend.
pub fn health_trend(wiki: &Wiki, limit: usize) -> Result<Vec<crate::store::HealthRun>> {
    Ok(wiki.store().health_runs(limit)?)
}

/// Why a dismissal could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum DismissError {
    /// No current finding has that id.
    #[error(
        "no finding has the id {0:?} now (see `wikimind lint`; a dismissed one stays dismissed)"
    )]
    NotFound(String),
    /// The wiki failed.
    #[error(transparent)]
    Wiki(#[from] WikiError),
}

/// Dismisses the finding `id` of a fresh lint run: it is remembered by what it is about
/// (its id is that hash), so it is not listed again, after recompiles too. Dismissing a
/// `duplicate` finding rejects the merge proposal. Returns the finding.
pub fn dismiss(wiki: &Wiki, id: &str) -> std::result::Result<Finding, DismissError> {
    let id = id.trim();
    let report = lint(wiki, &LintOptions::default())?;
    let found = report
        .findings
        .into_iter()
        .find(|f| f.id == id)
        .ok_or_else(|| DismissError::NotFound(id.to_owned()))?;
    wiki.store()
        .dismiss_finding(&found.id, found.check.as_str(), &found.about)
        .map_err(WikiError::from)?;
    Ok(found)
}

/// What `wikimind merge` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Merged {
    /// The page that remains.
    pub survivor: String,
    /// The page merged into it (gone; its title now leads to the survivor).
    pub absorbed: String,
    /// `merged`, or `flagged` when the merge was refused (a page into itself).
    pub outcome: &'static str,
    /// Why it was flagged, for `flagged`.
    pub reason: Option<String>,
    /// The job queued to write the merged page (`null` when the page needs no write: one
    /// digest left makes it that digest).
    pub job: Option<i64>,
}

/// Merges the page named `absorbed` into the page named `survivor` (the one merge
/// operation, [`Store::merge_pages`]): the person names the survivor first. The merged
/// page, when it needs writing, gets a page job queued with `settings`, which the next
/// `compile` runs.
pub fn merge(
    wiki: &Wiki,
    survivor: &str,
    absorbed: &str,
    settings: &JobSettings,
) -> Result<Merged> {
    let store = wiki.store();
    let (keep, absorb) = (wiki.page_named(survivor)?, wiki.page_named(absorbed)?);
    let title = |id| -> Result<String> {
        Ok(store
            .page(id)?
            .map(|p| p.title)
            .unwrap_or_else(|| format!("page {id}")))
    };
    let (keep_title, absorb_title) = (title(keep)?, title(absorb)?);
    let outcome = store.merge_pages(keep, absorb, "merged by you", store.min_sources())?;
    Ok(match outcome {
        MergeOutcome::Merged { survivor, .. } => {
            let stale = store
                .page(survivor)?
                .is_some_and(|p| p.stale_reason.is_some());
            let job = if stale {
                Some(store.enqueue_page(survivor, settings)?.0)
            } else {
                None
            };
            Merged {
                survivor: keep_title,
                absorbed: absorb_title,
                outcome: "merged",
                reason: None,
                job,
            }
        }
        MergeOutcome::Flagged { reason } => Merged {
            survivor: keep_title,
            absorbed: absorb_title,
            outcome: "flagged",
            reason: Some(reason),
            job: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_sentences_of_three_words_or_more() {
        let cases: &[(&str, usize)] = &[
            ("", 0),
            ("Espresso.", 0),
            ("Espresso is coffee. It is strong! Is it good?", 3),
            ("# Heading here\n\nOne short line", 1),
            ("Version 1.5 of the tool is out. Done", 1),
        ];
        for &(body, n) in cases {
            assert_eq!(sentences(body), n, "{body:?}");
        }
    }

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
