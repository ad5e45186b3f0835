//! The persistent job queue, shared by every process that opens the data dir.
//!
//! A job row outlives the process that runs it. A running job is *leased*: it names its
//! owner (host and process id) and carries a heartbeat the owner renews while it works
//! ([`Store::heartbeat`]). Another process never takes or resets a job whose owner is
//! alive; [`Store::recover_interrupted`] puts a job back in line only when its owner died
//! (a stale heartbeat, or a process on this host that no longer exists). Any process may
//! take a queued job ([`Store::start_next`]), and a source never has two jobs running.
//!
//! A job works on a source (compile its digest) or on a page (write it from its digests):
//! its [`JobTarget`]. Source jobs are taken first; a page job only once no source job is
//! queued or running anywhere, so a page is written from the digests the run's sources
//! left, and a page is queued once however many of its sources changed
//! ([`Store::pages_to_queue`], [`Store::enqueue_page`]).

use std::time::Duration;

use rusqlite::{params, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use crate::clock::ago;
use crate::json;
use crate::tables::sources::source_exists;
use crate::{
    JobId, JobOwner, JobState, JobTarget, PageId, Result, SourceId, SourceStatus, Store,
    StoreError, NOW,
};

/// What a job was asked with, so whoever runs it runs it as asked. Every field left out
/// means "as the runner is configured".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSettings {
    /// The provider kind of the primary provider (`ollama`, `openai`, `builtin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The primary provider's base URL (for the built-in engine, the model file's path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The model to ask instead of the configured one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobEnd {
    /// The digest was saved (a page job: the page was written, or needed no writing).
    Done,
    /// No digest: why. A source still `compiling` becomes `failed` with this reason. A page
    /// job that failed (or whose answer was refused) is not queued again until the page
    /// becomes stale again.
    Failed(String),
    /// Stopped by a person: the job will not run; its source becomes `pending` (a page
    /// stays stale, not queued again until it changes again).
    Cancelled,
    /// Stopped with the process (Ctrl+C, SIGTERM, the app closing): back in line, so the
    /// next run resumes it; its source becomes `pending`.
    Interrupted,
}

/// A compile job: of a source, or of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Its id.
    pub id: JobId,
    /// What it works on: the source to compile, or the page to write.
    pub target: JobTarget,
    /// The page's title as it is now, for a page job (`None` for a source job).
    pub page_title: Option<String>,
    /// Where it is.
    pub state: JobState,
    /// How many times a worker has taken it.
    pub attempts: u32,
    /// Why it failed, for a `failed` job.
    pub error: Option<String>,
    /// What it was asked with.
    pub settings: JobSettings,
    /// Who runs it (a `running` job), or ran it last.
    pub owner: Option<JobOwner>,
    /// When its owner last said it was alive (UTC, ISO-8601).
    pub heartbeat_at: Option<String>,
    /// Whether someone asked to cancel it while it runs.
    pub cancel_requested: bool,
    /// When it was queued (UTC, ISO-8601).
    pub created_at: String,
    /// When its state last changed (UTC, ISO-8601).
    pub updated_at: String,
}

const JOB_SELECT: &str = "SELECT id, source_id, state, attempts, error, settings, owner_host, \
     owner_pid, heartbeat_at, cancel_requested, created_at, updated_at, page_id, \
     (SELECT title FROM pages WHERE pages.id = jobs.page_id) FROM jobs";

fn job_row(row: &Row<'_>) -> rusqlite::Result<Job> {
    let host: Option<String> = row.get(6)?;
    let pid: Option<u32> = row.get(7)?;
    let source: Option<SourceId> = row.get(1)?;
    let page: Option<PageId> = row.get(12)?;
    // The table's CHECK sets exactly one of the two, as the job's kind says.
    let target = match (source, page) {
        (Some(source), _) => JobTarget::Source(source),
        (None, Some(page)) => JobTarget::Page(page),
        (None, None) => {
            return Err(rusqlite::Error::FromSqlConversionFailure(
                1,
                rusqlite::types::Type::Null,
                "a job with neither a source nor a page".into(),
            ))
        }
    };
    Ok(Job {
        id: row.get(0)?,
        target,
        page_title: row.get(13)?,
        state: row.get(2)?,
        attempts: row.get(3)?,
        error: row.get(4)?,
        settings: json::column(row, 5, "jobs.settings")?,
        owner: match (host, pid) {
            (Some(host), Some(pid)) => Some(JobOwner { host, pid }),
            _ => None,
        },
        heartbeat_at: row.get(8)?,
        cancel_requested: row.get(9)?,
        created_at: row.get(10)?,
        updated_at: row.get(11)?,
    })
}

/// The column a job's target is kept in, and its id.
fn target_column(target: JobTarget) -> (&'static str, i64) {
    match target {
        JobTarget::Source(id) => ("source_id", id.0),
        JobTarget::Page(id) => ("page_id", id.0),
    }
}

/// The queued job of a target, and else its running one.
fn waiting_or_running(
    tx: &rusqlite::Connection,
    target: JobTarget,
) -> Result<(Option<JobId>, Option<JobId>)> {
    let (column, id) = target_column(target);
    let find = |state: &str| {
        tx.query_row(
            &format!("SELECT id FROM jobs WHERE {column} = ?1 AND state = ?2"),
            params![id, state],
            |row| row.get(0),
        )
        .optional()
    };
    Ok((find("queued")?, find("running")?))
}

/// Queues a job on `target` with `settings` (see [`Store::enqueue`]): the queued one
/// takes the settings, a running one is returned, else a new one is queued.
fn enqueue_target(tx: &Transaction<'_>, target: JobTarget, encoded: &str) -> Result<JobId> {
    let (queued, running) = waiting_or_running(tx, target)?;
    if let Some(id) = queued {
        tx.prepare_cached("UPDATE jobs SET settings = ?2 WHERE id = ?1")?
            .execute(params![id, encoded])?;
        return Ok(id);
    }
    // Already running (here or in another process): that job does the work.
    if let Some(id) = running {
        return Ok(id);
    }
    match target {
        JobTarget::Source(source) => tx
            .prepare_cached(
                "INSERT INTO jobs (kind, source_id, settings) VALUES ('source', ?1, ?2)",
            )?
            .execute(params![source, encoded])?,
        JobTarget::Page(page) => tx
            .prepare_cached("INSERT INTO jobs (kind, page_id, settings) VALUES ('page', ?1, ?2)")?
            .execute(params![page, encoded])?,
    };
    Ok(JobId(tx.last_insert_rowid()))
}

fn job_by_id(tx: &rusqlite::Connection, id: JobId) -> Result<Job> {
    tx.query_row(&format!("{JOB_SELECT} WHERE id = ?1"), [id], job_row)
        .optional()?
        .ok_or(StoreError::JobNotFound(id))
}

fn encode_settings(settings: &JobSettings) -> Result<String> {
    json::to_json("jobs.settings", settings)
}

impl Store {
    /// Queues a compile of a source with `settings`. A source has at most one queued job:
    /// queuing it again returns the job already waiting, which from now on runs with the
    /// newest `settings`; a source being compiled returns its running job.
    pub fn enqueue(&self, source_id: SourceId, settings: &JobSettings) -> Result<JobId> {
        let encoded = encode_settings(settings)?;
        self.write(
            || format!("queuing a compile of source {source_id}"),
            |tx| {
                source_exists(tx, source_id)?;
                enqueue_target(tx, JobTarget::Source(source_id), &encoded)
            },
        )
    }

    /// Queues a write of a page with `settings`. A page has at most one queued job: queuing
    /// it again returns the job already waiting, which from now on runs with the newest
    /// `settings`; a page being written returns its running job. The job runs once no
    /// source job is queued or running (see [`Store::start_next`]).
    pub fn enqueue_page(&self, page: PageId, settings: &JobSettings) -> Result<JobId> {
        let encoded = encode_settings(settings)?;
        self.write(
            || format!("queuing a write of page {page}"),
            |tx| {
                let exists: bool = tx
                    .prepare_cached("SELECT EXISTS (SELECT 1 FROM pages WHERE id = ?1)")?
                    .query_row([page], |row| row.get(0))?;
                if !exists {
                    return Err(StoreError::PageNotFound(page));
                }
                enqueue_target(tx, JobTarget::Page(page), &encoded)
            },
        )
    }

    /// The stale pages to queue a write of, oldest first: those with no job queued or
    /// running, and no job that ended (failed or was cancelled) since the page last became
    /// stale — a page whose write failed waits until something changes it again, so a
    /// model that cannot write it is not asked over and over.
    pub fn pages_to_queue(&self) -> Result<Vec<PageId>> {
        self.read(
            || "listing the stale pages to write".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT p.id FROM pages p
                     WHERE p.stale_reason IS NOT NULL AND NOT EXISTS (
                         SELECT 1 FROM jobs j
                         WHERE j.page_id = p.id
                           AND (j.state IN ('queued', 'running')
                                OR (j.state IN ('failed', 'cancelled')
                                    AND j.updated_at >= COALESCE(p.stale_at, '')))
                     )
                     ORDER BY p.id",
                )?;
                let rows = stmt.query_map([], |row| row.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Takes the next job for `owner`: the oldest queued source job whose source has no job
    /// running; else, only when no source job is queued or running anywhere (so a page is
    /// written from its digests as the run's sources left them), the oldest queued page job
    /// whose page has no job running. It becomes `running` (one more attempt, heartbeat
    /// now) and a source job's source `compiling`. `None` when no job can be taken.
    pub fn start_next(&self, owner: &JobOwner) -> Result<Option<Job>> {
        self.write(
            || "taking the next compile job".to_owned(),
            |tx| {
                let source_job: Option<JobId> = tx
                    .prepare_cached(
                        "SELECT q.id FROM jobs q
                         WHERE q.state = 'queued' AND q.kind = 'source' AND NOT EXISTS (
                             SELECT 1 FROM jobs r
                             WHERE r.source_id = q.source_id AND r.state = 'running')
                         ORDER BY q.id LIMIT 1",
                    )?
                    .query_row([], |row| row.get(0))
                    .optional()?;
                let next = match source_job {
                    Some(id) => Some(id),
                    None => tx
                        .prepare_cached(
                            "SELECT q.id FROM jobs q
                             WHERE q.state = 'queued' AND q.kind = 'page'
                               AND NOT EXISTS (
                                   SELECT 1 FROM jobs s
                                   WHERE s.state IN ('queued', 'running') AND s.kind = 'source')
                               AND NOT EXISTS (
                                   SELECT 1 FROM jobs r
                                   WHERE r.page_id = q.page_id AND r.state = 'running')
                             ORDER BY q.id LIMIT 1",
                        )?
                        .query_row([], |row| row.get(0))
                        .optional()?,
                };
                let Some(id) = next else {
                    return Ok(None);
                };
                tx.execute(
                    &format!(
                        "UPDATE jobs SET state = 'running', attempts = attempts + 1,
                             error = NULL, owner_host = ?2, owner_pid = ?3,
                             heartbeat_at = {NOW}, cancel_requested = 0, updated_at = {NOW}
                         WHERE id = ?1"
                    ),
                    params![id, owner.host, owner.pid],
                )?;
                // A page job's page is left as it is: still stale until it is written.
                tx.execute(
                    &format!(
                        "UPDATE sources SET status = ?1, reason = NULL, updated_at = {NOW}
                         WHERE id = (SELECT source_id FROM jobs WHERE id = ?2)"
                    ),
                    params![SourceStatus::Compiling, id],
                )?;
                Ok(Some(job_by_id(tx, id)?))
            },
        )
    }

    /// Renews the heartbeat of every job `owner` runs. Returns the ones someone asked to
    /// cancel since (see [`Store::cancel_job`]).
    pub fn heartbeat(&self, owner: &JobOwner) -> Result<Vec<JobId>> {
        self.write(
            || "renewing the lease of running jobs".to_owned(),
            |tx| {
                tx.execute(
                    &format!(
                        "UPDATE jobs SET heartbeat_at = {NOW}
                         WHERE state = 'running' AND owner_host = ?1 AND owner_pid = ?2"
                    ),
                    params![owner.host, owner.pid],
                )?;
                let mut stmt = tx.prepare_cached(
                    "SELECT id FROM jobs WHERE state = 'running' AND cancel_requested
                       AND owner_host = ?1 AND owner_pid = ?2",
                )?;
                let rows = stmt.query_map(params![owner.host, owner.pid], |row| row.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Ends a job. The digest (or the failure) is recorded by [`Store::save_article`] /
    /// [`Store::record_failure`]; a failed job whose source is still `compiling`
    /// (nothing was recorded, e.g. the provider was unreachable) marks the source `failed`
    /// with the same reason. A cancelled or interrupted job's source becomes `pending`; an
    /// interrupted job goes back in line (unless its source is queued again already). A
    /// page job changes no source: the page itself is written (or not) by the page writer.
    pub fn finish_job(&self, id: JobId, end: &JobEnd) -> Result<()> {
        self.write(
            || format!("finishing job {id}"),
            |tx| {
                let job = job_by_id(tx, id)?;
                let source = match job.target {
                    JobTarget::Source(source) => Some(source),
                    JobTarget::Page(_) => None,
                };
                match end {
                    JobEnd::Done => set_job_state(tx, id, JobState::Done, None)?,
                    JobEnd::Failed(reason) => {
                        set_job_state(tx, id, JobState::Failed, Some(reason))?;
                        if let Some(source) = source {
                            tx.execute(
                                &format!(
                                    "UPDATE sources SET status = 'failed', reason = ?2,
                                         updated_at = {NOW}
                                     WHERE id = ?1 AND status = 'compiling'"
                                ),
                                params![source, reason],
                            )?;
                        }
                    }
                    JobEnd::Cancelled => {
                        set_job_state(tx, id, JobState::Cancelled, None)?;
                        if let Some(source) = source {
                            source_back_to_pending(tx, source)?;
                        }
                    }
                    JobEnd::Interrupted => {
                        requeue(tx, &job)?;
                        if let Some(source) = source {
                            source_back_to_pending(tx, source)?;
                        }
                    }
                }
                Ok(())
            },
        )
    }

    /// Asks for a job to stop. A queued job is cancelled at once; a running one is marked,
    /// and its owner (this process or another) stops it at its next heartbeat. Returns
    /// whether the job was queued or running.
    pub fn cancel_job(&self, id: JobId) -> Result<bool> {
        self.write(
            || format!("cancelling job {id}"),
            |tx| {
                let job = job_by_id(tx, id)?;
                match job.state {
                    JobState::Queued => {
                        set_job_state(tx, id, JobState::Cancelled, None)?;
                        Ok(true)
                    }
                    JobState::Running => {
                        tx.prepare_cached("UPDATE jobs SET cancel_requested = 1 WHERE id = ?1")?
                            .execute([id])?;
                        Ok(true)
                    }
                    _ => Ok(false),
                }
            },
        )
    }

    /// Puts work whose owner died back in line, and returns how many jobs were requeued.
    ///
    /// A running job is recovered when it has no owner (left by an older version), when
    /// its heartbeat is older than `stale_after`, or when its owner ran on this host (`here`)
    /// and `is_dead` says that process is gone. A recovered job becomes `queued` again
    /// (dropped when its source or page is queued already) and a source job's source
    /// `pending`. A source left
    /// `compiling` with no job running is put back to `pending` too. Jobs of live owners,
    /// in this process or another, are left alone, so this is safe to call at every start.
    pub fn recover_interrupted(
        &self,
        stale_after: Duration,
        is_dead: &dyn Fn(&JobOwner) -> bool,
    ) -> Result<usize> {
        let stale = ago(stale_after.as_secs().max(1));
        self.write(
            || "recovering interrupted compile jobs".to_owned(),
            |tx| {
                let running: Vec<(Job, bool)> = {
                    let mut stmt = tx.prepare_cached(&format!(
                        "{JOB_SELECT} WHERE state = 'running' ORDER BY id"
                    ))?;
                    let rows = stmt.query_map([], job_row)?;
                    let jobs = rows.collect::<rusqlite::Result<Vec<Job>>>()?;
                    let mut out = Vec::with_capacity(jobs.len());
                    for job in jobs {
                        let stale_now: bool = tx.query_row(
                            &format!("SELECT COALESCE(?1 < {stale}, 1)"),
                            [&job.heartbeat_at],
                            |row| row.get(0),
                        )?;
                        out.push((job, stale_now));
                    }
                    out
                };
                let mut requeued = 0;
                for (job, stale_now) in running {
                    let dead = match &job.owner {
                        None => true,
                        Some(owner) => stale_now || is_dead(owner),
                    };
                    if !dead {
                        continue;
                    }
                    if requeue(tx, &job)? {
                        requeued += 1;
                    }
                }
                tx.execute(
                    &format!(
                        "UPDATE sources SET status = 'pending', updated_at = {NOW}
                         WHERE status = 'compiling' AND NOT EXISTS (
                             SELECT 1 FROM jobs WHERE jobs.source_id = sources.id
                                                  AND jobs.state = 'running')"
                    ),
                    [],
                )?;
                Ok(requeued)
            },
        )
    }

    /// One job.
    pub fn job(&self, id: JobId) -> Result<Option<Job>> {
        self.read(
            || format!("reading job {id}"),
            |conn| match job_by_id(conn, id) {
                Ok(job) => Ok(Some(job)),
                Err(StoreError::JobNotFound(_)) => Ok(None),
                Err(e) => Err(e),
            },
        )
    }

    /// Every job, newest first.
    pub fn jobs(&self) -> Result<Vec<Job>> {
        self.recent_jobs(u32::MAX)
    }

    /// The newest `limit` jobs, newest first, and every queued or running one.
    pub fn recent_jobs(&self, limit: u32) -> Result<Vec<Job>> {
        self.read(
            || "listing compile jobs".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!(
                    "{JOB_SELECT} WHERE id IN (SELECT id FROM jobs ORDER BY id DESC LIMIT ?1)
                        OR state IN ('queued', 'running')
                     ORDER BY id DESC"
                ))?;
                let rows = stmt.query_map([i64::from(limit)], job_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}

fn set_job_state(
    tx: &Transaction<'_>,
    id: JobId,
    state: JobState,
    error: Option<&str>,
) -> Result<()> {
    tx.execute(
        &format!(
            "UPDATE jobs SET state = ?2, error = ?3, cancel_requested = 0, updated_at = {NOW}
             WHERE id = ?1"
        ),
        params![id, state, error],
    )?;
    Ok(())
}

/// Puts a running job back in line with no owner. When its source (or page) is queued
/// already, the job is marked cancelled instead (the queued one will do the work). Returns
/// whether it was requeued.
fn requeue(tx: &Transaction<'_>, job: &Job) -> Result<bool> {
    let (queued, _) = waiting_or_running(tx, job.target)?;
    if queued.is_some() {
        set_job_state(tx, job.id, JobState::Cancelled, None)?;
        return Ok(false);
    }
    tx.execute(
        &format!(
            "UPDATE jobs SET state = 'queued', owner_host = NULL, owner_pid = NULL,
                 heartbeat_at = NULL, cancel_requested = 0, updated_at = {NOW}
             WHERE id = ?1"
        ),
        [job.id],
    )?;
    Ok(true)
}

fn source_back_to_pending(tx: &Transaction<'_>, source: SourceId) -> Result<()> {
    tx.execute(
        &format!(
            "UPDATE sources SET status = 'pending', reason = NULL, updated_at = {NOW}
             WHERE id = ?1 AND status = 'compiling'"
        ),
        [source],
    )?;
    Ok(())
}
