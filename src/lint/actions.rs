//! What acting on findings does: the safe fixes, health records and their trend,
//! dismissals, and the merge a duplicate proposal asks for.

use super::*;

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
/// (a `--check` run's figures are partial: it is not stored) and it tells something new: a
/// lint run that finds exactly the figures the last stored lint run found adds no point (a
/// person opening the Health view ten times is not ten runs). A compile run is always
/// stored. Returns whether it stored.
pub fn record_health(wiki: &Wiki, report: &LintReport, trigger: Trigger) -> Result<bool> {
    let s = &report.summary;
    if s.checks.len() < Check::ALL.len() {
        return Ok(false);
    }
    let run = report.health_run(trigger);
    if trigger == Trigger::Lint {
        let last = wiki.store().health_runs(1)?.pop();
        if last.is_some_and(|last| {
            last.trigger == run.trigger
                && crate::store::HealthRun {
                    at: String::new(),
                    ..last
                } == run
        }) {
            return Ok(false);
        }
    }
    let held = wiki.lint_held.generation();
    if let (Some(from), Some(to)) = (held, wiki.store().record_health(&run, held)?) {
        wiki.lint_held.carry(from, to);
    }
    Ok(true)
}

impl LintReport {
    /// The report's figures as a run of the trend, stored after `trigger` (its time is the
    /// store's to set).
    pub fn health_run(&self, trigger: Trigger) -> crate::store::HealthRun {
        let s = &self.summary;
        let n = |v: Option<u64>| v.unwrap_or(0);
        crate::store::HealthRun {
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
        }
    }
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
