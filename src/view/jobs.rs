//! A compile job as the desktop's queue shows it: [`JobProgress`], the wire form of the
//! runner's [`JobEvent`].

use serde::{Deserialize, Serialize};

use crate::compile::{CompileReport, PageOutcome, PageReport, Stage};
use crate::queue::{JobEvent, JobPhase, JobRunner};
use crate::store::{ArticleId, JobTarget, PageId, SourceId};
use crate::wiki::Result;

#[cfg(feature = "ts")]
use ts_rs::TS;

/// Where a compile job is (see [`Stage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum StageView {
    /// Waiting in the queue.
    Queued,
    /// Reading a large source in parts before the article is written.
    Reading,
    /// Sending the prompt, waiting for the first token.
    Prompting,
    /// The answer is streaming in.
    Receiving,
    /// Checking the answer.
    Parsing,
    /// Writing the article.
    Saving,
    /// Finished: the digest is stored (a page job: the page is written, or needed no
    /// writing).
    Compiled,
    /// Finished: the source failed (a page job: the page could not be written, or its
    /// rewrite was refused).
    Failed,
    /// Stopped by the person; the source is pending again (a page stays stale).
    Cancelled,
}

impl From<Stage> for StageView {
    fn from(stage: Stage) -> Self {
        match stage {
            Stage::Reading => StageView::Reading,
            Stage::Prompting => StageView::Prompting,
            Stage::Receiving => StageView::Receiving,
            Stage::Parsing => StageView::Parsing,
            Stage::Saving => StageView::Saving,
            Stage::Compiled => StageView::Compiled,
            Stage::Failed => StageView::Failed,
        }
    }
}

/// What a job works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum JobKindView {
    /// A source, compiled into its digest.
    Source,
    /// A page, written from the digests that feed it.
    Page,
}

/// Live state of one job, sent as an event each time it changes. A source job names its
/// source; a page job its page (and carries the page's title).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct JobProgress {
    /// What the job works on.
    pub kind: JobKindView,
    /// Which source, for a source job (`null` for a page job).
    pub source_id: Option<SourceId>,
    /// Which page, for a page job (`null` for a source job).
    pub page_id: Option<PageId>,
    /// Where it is.
    pub stage: StageView,
    /// Which provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The attempt with this provider, from 1 (0 while queued, or when another process
    /// runs the job and this one cannot see it).
    pub attempt: u32,
    /// Pieces of the answer streaming in now (about one token each); 0 when no answer is
    /// streaming.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub received: u64,
    /// Model calls the job made, once it has ended (`null` before).
    pub calls: Option<u32>,
    /// Answer tokens the servers reported over all its calls, once the job has ended
    /// (`null` before, and when no server reported them).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub tokens_out: Option<u64>,
    /// A source job: the digest's title as soon as the model has written it. A page job:
    /// the page's title.
    pub title: Option<String>,
    /// A note for people: why a retry happens, why it failed, what a page job did.
    pub message: Option<String>,
    /// The digest, once stored (source jobs only).
    pub article_id: Option<ArticleId>,
}

impl JobProgress {
    /// What the job works on, as the store names it (`None` for a view whose kind and ids
    /// disagree, which the core never makes).
    pub fn target(&self) -> Option<JobTarget> {
        match (self.kind, self.source_id, self.page_id) {
            (JobKindView::Source, Some(id), _) => Some(JobTarget::Source(id)),
            (JobKindView::Page, _, Some(id)) => Some(JobTarget::Page(id)),
            _ => None,
        }
    }
}

/// The queue as the desktop shows it: [`JobRunner::jobs`], newest first.
pub fn job_list(runner: &JobRunner) -> Result<Vec<JobProgress>> {
    Ok(runner.jobs()?.iter().map(JobProgress::from).collect())
}

impl From<&JobEvent> for JobProgress {
    fn from(event: &JobEvent) -> JobProgress {
        let (kind, source_id, page_id) = match event.target {
            JobTarget::Source(id) => (JobKindView::Source, Some(id), None),
            JobTarget::Page(id) => (JobKindView::Page, None, Some(id)),
        };
        let base = JobProgress {
            kind,
            source_id,
            page_id,
            stage: StageView::Queued,
            provider: event.provider.clone(),
            attempt: 0,
            received: 0,
            calls: None,
            tokens_out: None,
            title: event.page_title.clone(),
            message: None,
            article_id: None,
        };
        match &event.phase {
            JobPhase::Queued => base,
            JobPhase::Started => JobProgress {
                stage: StageView::Prompting,
                ..base
            },
            JobPhase::Working(p) => JobProgress {
                stage: p.stage.into(),
                attempt: p.attempt,
                received: match p.stage {
                    Stage::Receiving => u64::try_from(p.chunks).unwrap_or(u64::MAX),
                    _ => 0,
                },
                // A page job is shown by its page's title, not by the title its answer
                // streams.
                title: match event.target {
                    JobTarget::Source(_) => p.title.clone(),
                    JobTarget::Page(_) => base.title.clone(),
                },
                message: p.message.clone(),
                ..base
            },
            JobPhase::Running(elsewhere) => JobProgress {
                stage: StageView::Prompting,
                message: elsewhere.as_ref().map(|o| {
                    let doing = match event.target {
                        JobTarget::Source(_) => "compiling",
                        JobTarget::Page(_) => "writing",
                    };
                    format!("{doing} in another process (pid {} on {})", o.pid, o.host)
                }),
                ..base
            },
            JobPhase::Done => JobProgress {
                stage: StageView::Compiled,
                ..base
            },
            JobPhase::Compiled(report) => finished(report, base),
            JobPhase::Written(report) => page_finished(report, base),
            JobPhase::Failed(reason) => JobProgress {
                stage: StageView::Failed,
                message: (!reason.is_empty()).then(|| reason.clone()),
                ..base
            },
            JobPhase::Interrupted => JobProgress {
                message: Some("interrupted; it resumes with the next run".into()),
                ..base
            },
            JobPhase::Cancelled => JobProgress {
                stage: StageView::Cancelled,
                provider: String::new(),
                message: Some(
                    match event.target {
                        JobTarget::Source(_) => "cancelled; the source is pending again",
                        JobTarget::Page(_) => {
                            "cancelled; the page stays as it is until one of its sources changes"
                        }
                    }
                    .into(),
                ),
                ..base
            },
        }
    }
}

/// The final state from a compile report.
fn finished(report: &CompileReport, base: JobProgress) -> JobProgress {
    JobProgress {
        stage: if report.ok {
            StageView::Compiled
        } else {
            StageView::Failed
        },
        provider: report.provider.clone().unwrap_or_default(),
        attempt: report.attempts.last().map_or(0, |a| a.attempt),
        calls: Some(report.usage.calls),
        tokens_out: (report.usage.tokens_out > 0).then_some(report.usage.tokens_out),
        title: report.title.clone(),
        message: report.reason.clone(),
        article_id: report.article_id,
        ..base
    }
}

/// The final state from a page report: its title, and what the job did in words.
fn page_finished(report: &PageReport, base: JobProgress) -> JobProgress {
    JobProgress {
        stage: if report.ok() {
            StageView::Compiled
        } else {
            StageView::Failed
        },
        provider: report.provider.clone().unwrap_or_default(),
        attempt: report.attempts.last().map_or(0, |a| a.attempt),
        calls: Some(report.usage.calls),
        tokens_out: (report.usage.tokens_out > 0).then_some(report.usage.tokens_out),
        title: Some(report.title.clone()),
        message: Some(page_outcome_text(report)),
        ..base
    }
}

/// What a page job did, in words: `written from 3 sources (version 2)`, `no new
/// information (gained 1 source)`, `flagged: …`, or why it failed.
pub fn page_outcome_text(report: &PageReport) -> String {
    let sources = |n: usize| format!("{n} source{}", if n == 1 { "" } else { "s" });
    match &report.outcome {
        PageOutcome::Written { version } => format!(
            "written from {} (version {version})",
            sources(report.sources)
        ),
        PageOutcome::NoNewInformation => {
            format!("no new information (gained {})", sources(report.changed))
        }
        PageOutcome::UpToDate => "already up to date".to_owned(),
        PageOutcome::Flagged { reason } => format!("flagged: {reason}"),
        PageOutcome::Failed { reason } => reason.clone(),
    }
}
