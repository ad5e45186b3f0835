//! What a [`JobRunner`](super::JobRunner) tells its listener: a [`JobEvent`] for every
//! change of every job, in the core's own terms. Each shell maps it to what it shows (the
//! desktop's wire type `view::JobProgress`, the CLI's progress lines, an MCP client's
//! progress notes); the queue knows none of them.

use crate::compile::{CompileReport, PageReport, Progress};
use crate::store::{Job, JobOwner, JobState, JobTarget};

/// One change of one job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobEvent {
    /// What the job works on.
    pub target: JobTarget,
    /// The provider and model it runs with (`ollama:qwen2.5:3b`; empty when unknown).
    pub provider: String,
    /// A page job's page title (a page job is shown by it, not by the title its answer
    /// streams); `None` for a source job.
    pub page_title: Option<String>,
    /// Where the job is.
    pub phase: JobPhase,
}

/// Where a job is.
#[derive(Debug, Clone, PartialEq)]
pub enum JobPhase {
    /// Waiting in the queue.
    Queued,
    /// Taken by this runner; its first model call is being prepared.
    Started,
    /// Live progress of the compile or page writing this runner runs.
    Working(Progress),
    /// Running, seen in the table: `Some` names another process that runs it, `None` is
    /// this runner with no live progress to tell.
    Running(Option<JobOwner>),
    /// Ended well, seen in the table (no report in this process).
    Done,
    /// A source job ended, with its report (which says whether it compiled).
    Compiled(Box<CompileReport>),
    /// A page job ended, with its report (which says what it did).
    Written(Box<PageReport>),
    /// Ended without a report, for this reason.
    Failed(String),
    /// Stopped with the runner (Ctrl+C, the window closing): back in line for the next run.
    Interrupted,
    /// Stopped by a person.
    Cancelled,
}

impl JobPhase {
    /// Whether the job has ended (an interrupted job has not: it runs again).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            JobPhase::Done
                | JobPhase::Compiled(_)
                | JobPhase::Written(_)
                | JobPhase::Failed(_)
                | JobPhase::Cancelled
        )
    }
}

impl JobEvent {
    /// The event of `job` in `phase`, run with `provider`.
    pub(crate) fn of(job: &Job, provider: String, phase: JobPhase) -> JobEvent {
        JobEvent {
            target: job.target,
            provider,
            page_title: job.page_title.clone(),
            phase,
        }
    }

    /// A job's state as the table tells it, for jobs a runner has no live progress of;
    /// `me` is the runner looking.
    pub(crate) fn from_table(job: &Job, me: &JobOwner) -> JobEvent {
        let provider = match (&job.settings.provider, &job.settings.model) {
            (Some(p), Some(m)) => format!("{p}:{m}"),
            (None, Some(m)) => m.clone(),
            _ => String::new(),
        };
        let phase = match job.state {
            JobState::Queued => JobPhase::Queued,
            JobState::Running => JobPhase::Running(job.owner.clone().filter(|o| o != me)),
            JobState::Done => JobPhase::Done,
            JobState::Failed => JobPhase::Failed(job.error.clone().unwrap_or_default()),
            JobState::Cancelled => JobPhase::Cancelled,
        };
        JobEvent::of(job, provider, phase)
    }
}
