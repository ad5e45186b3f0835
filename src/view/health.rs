//! The Health screen: what one lint run found, grouped by check, with the actions a person
//! takes on a finding (dismiss, accept or reject a merge proposal, the safe fixes, asking
//! for a wanted page) and the health figures over time. Every rule is the lint module's
//! ([`crate::lint`]); this only shapes its report for the screen.
//!
//! The findings are mirrored here rather than sent as [`crate::lint::Finding`]: the screen
//! links pages by id (the CLI's JSON names them by title) and needs to know which findings
//! a safe fix acts on, which the CLI's shape leaves out.

use serde::{Deserialize, Serialize};

use crate::lint::{self, Check, Detail, Finding, LintOptions, LintReport, Trigger};
use crate::store::{HealthRun, JobSettings, PageId};
use crate::wiki::{Result, Wiki, WikiError};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// How many stored runs the trend chart shows.
pub const TREND_POINTS: usize = 30;

/// How many findings of each check the Health screen is sent at first; the rest come by
/// window ([`Wiki::health_findings`]), so a wiki with 30,000 wanted pages opens the screen
/// with a hundred of them, not a message of megabytes.
pub const HEALTH_FINDINGS_SHOWN: usize = 100;

/// The most findings one window of [`Wiki::health_findings`] holds.
pub const HEALTH_FINDINGS_WINDOW_MAX: u32 = 500;

/// The health figures of one stored run (after a compile run or a lint).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HealthPointView {
    /// When (UTC, ISO-8601).
    pub at: String,
    /// `compile` or `lint`.
    pub trigger: String,
    /// Topic pages.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub pages: u64,
    /// The share of links that resolve, in percent.
    pub link_resolution: f64,
    /// The share of topic pages no page links to, in percent.
    pub orphan_share: f64,
    /// Wanted pages.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub wanted: u64,
    /// Broken links.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub broken_links: u64,
    /// Stale sources and pages.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub stale: u64,
    /// Claims that no longer ground.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub ungrounded: u64,
    /// Merge proposals.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub duplicates: u64,
    /// Thin pages.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub thin: u64,
}

impl From<HealthRun> for HealthPointView {
    fn from(r: HealthRun) -> Self {
        HealthPointView {
            at: r.at,
            trigger: r.trigger,
            pages: r.pages,
            link_resolution: r.link_resolution,
            orphan_share: r.orphan_share,
            wanted: r.wanted,
            broken_links: r.broken_links,
            stale: r.stale,
            ungrounded: r.ungrounded,
            duplicates: r.duplicates,
            thin: r.thin,
        }
    }
}

/// A page a finding involves: a link when the page exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HealthPageView {
    /// Its title as the finding names it.
    pub title: String,
    /// The page it leads to (`null`: no page answers to it).
    pub page_id: Option<PageId>,
}

/// A merge proposal (a `duplicate` finding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct MergeProposalView {
    /// The page a merge keeps.
    pub survivor: String,
    /// The page merged into it.
    pub absorbed: String,
    /// Why they look like one topic, for a person.
    pub reason: String,
}

/// One finding as the Health screen lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FindingView {
    /// Its stable id (what dismissing it remembers).
    pub id: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// One line for a person.
    pub message: String,
    /// The pages involved.
    pub pages: Vec<HealthPageView>,
    /// For a `duplicate`: the merge it proposes.
    pub merge: Option<MergeProposalView>,
    /// For a `wanted` finding: the name to ask a page for.
    pub wanted: Option<String>,
    /// Whether the safe fixes act on it.
    pub fixable: bool,
}

/// The findings of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CheckGroupView {
    /// The check's name as `lint --check` takes it (`broken_link`, `wanted`, …).
    pub check: String,
    /// Its name for a person.
    pub label: String,
    /// How much its findings matter: `error`, `warning` or `info`.
    pub severity: String,
    /// How many findings it has.
    pub total: u32,
    /// Its first findings as lint orders them (at most [`HEALTH_FINDINGS_SHOWN`]; the rest
    /// by [`Wiki::health_findings`]).
    pub findings: Vec<FindingView>,
}

/// The Health screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HealthView {
    /// The figures of this run.
    pub now: HealthPointView,
    /// The checks that found something, in a fixed order.
    pub groups: Vec<CheckGroupView>,
    /// How many findings a person dismissed (not listed).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub dismissed: u64,
    /// How many findings the safe fixes act on.
    pub fixable: u32,
    /// The stored runs, oldest first (at most [`TREND_POINTS`]).
    pub trend: Vec<HealthPointView>,
    /// What the action that returned this view did, for a person (`null` for a plain look).
    pub notice: Option<String>,
}

/// A check's name for a person.
fn label(check: Check) -> &'static str {
    match check {
        Check::BrokenLink => "Broken links",
        Check::Wanted => "Wanted pages",
        Check::Orphan => "Orphans",
        Check::Stale => "Stale",
        Check::Ungrounded => "Claims that no longer ground",
        Check::Duplicate => "Merge proposals",
        Check::Thin => "Thin pages",
        Check::AmbiguousLink => "Links to a name several notes share",
    }
}

impl Wiki {
    /// Runs every check (a lint run: its figures are stored for the trend) and shapes the
    /// report for the Health screen.
    pub fn health_view(&self) -> Result<HealthView> {
        let report = lint::lint(self, &LintOptions::default())?;
        if lint::record_health(self, &report, Trigger::Lint)? {
            // Storing the run moved the store on: what this look read is read again in
            // the background, so the next look finds it held.
            lint::warm(self);
        }
        self.shape_health(&report, None)
    }

    /// The Health screen as it is now, after an action (not stored as a run).
    fn health_after(&self, notice: String) -> Result<HealthView> {
        let report = lint::lint(self, &LintOptions::default())?;
        self.shape_health(&report, Some(notice))
    }

    /// Dismisses the finding `id` (a merge proposal: rejects it); it is remembered, so it
    /// is not listed again, after recompiles too. The screen after.
    pub fn dismiss_finding_view(&self, id: &str) -> Result<HealthView> {
        let notice = match lint::dismiss(self, id) {
            Ok(found) => match found.detail {
                Detail::Duplicate { .. } => format!("rejected: {}", found.message),
                _ => format!("dismissed: {}", found.message),
            },
            Err(lint::DismissError::NotFound(_)) => {
                "that finding is gone already (the wiki changed)".to_owned()
            }
            Err(lint::DismissError::Wiki(e)) => return Err(e),
        };
        self.health_after(notice)
    }

    /// Accepts the merge proposal `id`: the one merge operation, the merged page's job
    /// queued (the app's runner writes it). The screen after.
    pub fn accept_merge_view(&self, id: &str) -> Result<HealthView> {
        let report = lint::lint(
            self,
            &LintOptions {
                checks: vec![Check::Duplicate],
            },
        )?;
        let proposal = report.findings.iter().find_map(|f| match &f.detail {
            Detail::Duplicate {
                survivor, absorbed, ..
            } if f.id == id.trim() => Some((survivor.clone(), absorbed.clone())),
            _ => None,
        });
        let notice = match proposal {
            None => "that merge proposal is gone already (the wiki changed)".to_owned(),
            Some((survivor, absorbed)) => {
                let merged = lint::merge(self, &survivor, &absorbed, &JobSettings::default())?;
                match merged.reason {
                    Some(reason) => format!("not merged: {reason}"),
                    None => format!("merged {:?} into {:?}", merged.absorbed, merged.survivor),
                }
            }
        };
        self.health_after(notice)
    }

    /// Applies the safe fixes (what `lint --fix` does). The screen after.
    pub fn fix_health_view(&self) -> Result<HealthView> {
        let report = lint::lint(self, &LintOptions::default())?;
        let fixes = lint::fix(self, &report, &JobSettings::default())?;
        let failed = fixes.iter().filter(|f| !f.ok).count();
        let notice = format!(
            "{} fix(es) applied or queued, {failed} failed",
            fixes.len() - failed
        );
        self.health_after(notice)
    }

    /// The findings of `check` (as `lint --check` names it) from the `offset`-th, at most
    /// `limit` of them (and [`HEALTH_FINDINGS_WINDOW_MAX`]), in the order the Health
    /// screen lists them: what the screen shows past the first ones of a group. Reads
    /// what lint holds while the wiki does not change.
    pub fn health_findings(
        &self,
        check: &str,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<FindingView>> {
        let check = Check::parse(check).ok_or_else(|| {
            WikiError::Refused(format!(
                "no lint check is named {check:?} (see `wikimind lint --help`)"
            ))
        })?;
        let report = lint::lint(
            self,
            &LintOptions {
                checks: vec![check],
            },
        )?;
        let limit = limit.min(HEALTH_FINDINGS_WINDOW_MAX) as usize;
        report
            .findings
            .iter()
            .skip(offset as usize)
            .take(limit)
            .map(|f| self.finding_view(f))
            .collect()
    }

    /// A person asks for the wanted page `name` ([`lint::ask_for_page`]); what it did.
    pub fn ask_for_page_view(&self, name: &str) -> Result<lint::Asked> {
        lint::ask_for_page(self, name, &JobSettings::default())
    }

    fn shape_health(&self, report: &LintReport, notice: Option<String>) -> Result<HealthView> {
        let now = HealthPointView::from(report.health_run(Trigger::Lint));
        let mut groups = Vec::new();
        for check in Check::ALL {
            let all = || report.findings.iter().filter(|f| f.check == check);
            let total = all().count();
            if total == 0 {
                continue;
            }
            let findings = all()
                .take(HEALTH_FINDINGS_SHOWN)
                .map(|f| self.finding_view(f))
                .collect::<Result<Vec<_>>>()?;
            groups.push(CheckGroupView {
                check: check.as_str().to_owned(),
                label: label(check).to_owned(),
                severity: check.severity().as_str().to_owned(),
                total: u32::try_from(total).unwrap_or(u32::MAX),
                findings,
            });
        }
        let fixable = report.findings.iter().filter(|f| f.has_safe_fix()).count();
        Ok(HealthView {
            now,
            groups,
            dismissed: report.summary.dismissed,
            fixable: u32::try_from(fixable).unwrap_or(u32::MAX),
            trend: lint::health_trend(self, TREND_POINTS)?
                .into_iter()
                .map(HealthPointView::from)
                .collect(),
            notice,
        })
    }

    fn finding_view(&self, f: &Finding) -> Result<FindingView> {
        let pages = f
            .pages
            .iter()
            .map(|title| {
                Ok(HealthPageView {
                    title: title.clone(),
                    page_id: self.find_page(title)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FindingView {
            id: f.id.clone(),
            severity: f.severity.as_str().to_owned(),
            message: f.message.clone(),
            pages,
            merge: match &f.detail {
                Detail::Duplicate {
                    survivor,
                    absorbed,
                    reason,
                    ..
                } => Some(MergeProposalView {
                    survivor: survivor.clone(),
                    absorbed: absorbed.clone(),
                    reason: reason.describe().to_owned(),
                }),
                _ => None,
            },
            wanted: match &f.detail {
                Detail::Wanted { target, .. } => Some(target.clone()),
                _ => None,
            },
            fixable: f.has_safe_fix(),
        })
    }
}
