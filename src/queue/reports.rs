//! What a run reports for the jobs asked of it: this runner's own reports, and what the
//! queue's table says of the jobs another process ran.

use std::collections::HashMap;

use crate::compile::CompileReport;
use crate::store::{JobId, JobState, JobTarget, SourceId};
use crate::wiki::Result;

use super::{failed_report, JobRunner};

impl JobRunner {
    /// One report per job asked for, in order: this runner's own report where it ran the
    /// job (from `own`), else what the table says of it (another process ran it).
    pub fn reports(&self, jobs: &[JobId], own: Vec<CompileReport>) -> Result<Vec<CompileReport>> {
        let mut own: HashMap<SourceId, CompileReport> =
            own.into_iter().map(|r| (r.source_id, r)).collect();
        let mut out = Vec::with_capacity(jobs.len());
        for id in jobs {
            let Some(job) = self.store().job(*id)? else {
                continue;
            };
            let JobTarget::Source(source_id) = job.target else {
                continue;
            };
            if let Some(report) = own.remove(&source_id) {
                out.push(report);
                continue;
            }
            let source = self.store().find_source(&source_id.to_string())?;
            let mut report = failed_report(
                source_id,
                match job.state {
                    JobState::Cancelled => "cancelled".to_owned(),
                    _ => job
                        .error
                        .clone()
                        .or_else(|| source.as_ref().and_then(|s| s.reason.clone()))
                        .unwrap_or_else(|| "unknown reason".to_owned()),
                },
            );
            if job.state == JobState::Done {
                report.ok = true;
                report.reason = None;
                report.usage.calls = job.attempts;
                report
                    .warnings
                    .push("compiled by another WikiMind process".to_owned());
                if let Some(source) = source {
                    report.article_id = source.article_id;
                    report.title = source.article_title;
                }
            }
            out.push(report);
        }
        // Jobs this runner ran that nobody here asked for (left queued by an earlier run).
        let mut rest: Vec<CompileReport> = own.into_values().collect();
        rest.sort_by_key(|r| r.source_id);
        out.extend(rest);
        Ok(out)
    }
}
