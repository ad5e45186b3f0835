//! The persistent job queue, shared by every process that opens the data dir.
//!
//! A job row outlives the process that runs it. A running job is *leased*: it names its
//! owner (host and process id) and carries a heartbeat the owner renews while it works
//! ([`Store::heartbeat`]). Another process never takes or resets a job whose owner is
//! alive; [`Store::recover_interrupted`] puts a job back in line only when its owner died
//! (a stale heartbeat, or a process on this host that no longer exists). Any process may
//! take a queued job ([`Store::start_next`]), and a source never has two jobs running.

use std::time::Duration;

use rusqlite::{params, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::sources::source_exists;
use super::{JobId, JobState, Result, SourceId, SourceStatus, Store, StoreError, NOW};

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

/// Who runs a job: a process on a host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JobOwner {
    /// The host name.
    pub host: String,
    /// The process id on that host.
    pub pid: u32,
}

impl JobOwner {
    /// This process on this host.
    pub fn this_process() -> JobOwner {
        JobOwner {
            host: host_name(),
            pid: std::process::id(),
        }
    }

    /// Whether this owner is certainly gone: a process of this host that no longer exists.
    /// An owner on another host is never called dead here (its heartbeat tells).
    pub fn is_dead_here(&self, here: &str) -> bool {
        self.host == here && !process_exists(self.pid)
    }
}

/// The name of this host, as recorded in a job's lease.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// Whether a process with this id runs on this host. Where that cannot be told (no
/// `/proc`), it is assumed alive, and only a stale heartbeat frees its jobs.
fn process_exists(pid: u32) -> bool {
    let proc_root = std::path::Path::new("/proc");
    if !proc_root.join("self").exists() {
        return true;
    }
    proc_root.join(pid.to_string()).exists()
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobEnd {
    /// The digest was saved.
    Done,
    /// No digest: why. A source still `compiling` becomes `failed` with this reason.
    Failed(String),
    /// Stopped by a person: the job will not run; its source becomes `pending`.
    Cancelled,
    /// Stopped with the process (Ctrl+C, SIGTERM, the app closing): back in line, so the
    /// next run resumes it; its source becomes `pending`.
    Interrupted,
}

/// A compile job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Its id.
    pub id: JobId,
    /// The source to compile.
    pub source_id: SourceId,
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
     owner_pid, heartbeat_at, cancel_requested, created_at, updated_at FROM jobs";

fn job_row(row: &Row<'_>) -> rusqlite::Result<Job> {
    let settings: String = row.get(5)?;
    let host: Option<String> = row.get(6)?;
    let pid: Option<u32> = row.get(7)?;
    Ok(Job {
        id: row.get(0)?,
        source_id: row.get(1)?,
        state: row.get(2)?,
        attempts: row.get(3)?,
        error: row.get(4)?,
        // A job written by hand with settings this build cannot read runs as configured.
        settings: serde_json::from_str(&settings).unwrap_or_default(),
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

fn job_by_id(tx: &rusqlite::Connection, id: JobId) -> Result<Job> {
    tx.query_row(&format!("{JOB_SELECT} WHERE id = ?1"), [id], job_row)
        .optional()?
        .ok_or(StoreError::JobNotFound(id))
}

fn encode_settings(settings: &JobSettings) -> Result<String> {
    serde_json::to_string(settings).map_err(|source| StoreError::Json {
        column: "jobs.settings",
        source,
    })
}

/// The SQL time `seconds` ago, in the format of every timestamp column.
fn ago(seconds: u64) -> String {
    format!("strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-{seconds} seconds')")
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
                let queued: Option<JobId> = tx
                    .query_row(
                        "SELECT id FROM jobs WHERE source_id = ?1 AND state = 'queued'",
                        [source_id],
                        |row| row.get(0),
                    )
                    .optional()?;
                if let Some(id) = queued {
                    tx.execute(
                        "UPDATE jobs SET settings = ?2 WHERE id = ?1",
                        params![id, encoded],
                    )?;
                    return Ok(id);
                }
                // Already compiling (here or in another process): that job does the work.
                let running: Option<JobId> = tx
                    .query_row(
                        "SELECT id FROM jobs WHERE source_id = ?1 AND state = 'running'",
                        [source_id],
                        |row| row.get(0),
                    )
                    .optional()?;
                if let Some(id) = running {
                    return Ok(id);
                }
                tx.execute(
                    "INSERT INTO jobs (source_id, settings) VALUES (?1, ?2)",
                    params![source_id, encoded],
                )?;
                Ok(JobId(tx.last_insert_rowid()))
            },
        )
    }

    /// Takes the oldest queued job whose source has no job running, for `owner`: it
    /// becomes `running` (one more attempt, heartbeat now) and its source `compiling`.
    /// `None` when no job can be taken.
    pub fn start_next(&self, owner: &JobOwner) -> Result<Option<Job>> {
        self.write(
            || "taking the next compile job".to_owned(),
            |tx| {
                let next: Option<JobId> = tx
                    .query_row(
                        "SELECT q.id FROM jobs q
                         WHERE q.state = 'queued' AND NOT EXISTS (
                             SELECT 1 FROM jobs r
                             WHERE r.source_id = q.source_id AND r.state = 'running')
                         ORDER BY q.id LIMIT 1",
                        [],
                        |row| row.get(0),
                    )
                    .optional()?;
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
                let mut stmt = tx.prepare(
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
    /// interrupted job goes back in line (unless its source is queued again already).
    pub fn finish_job(&self, id: JobId, end: &JobEnd) -> Result<()> {
        self.write(
            || format!("finishing job {id}"),
            |tx| {
                let job = job_by_id(tx, id)?;
                match end {
                    JobEnd::Done => set_job_state(tx, id, JobState::Done, None)?,
                    JobEnd::Failed(reason) => {
                        set_job_state(tx, id, JobState::Failed, Some(reason))?;
                        tx.execute(
                            &format!(
                                "UPDATE sources SET status = 'failed', reason = ?2,
                                     updated_at = {NOW}
                                 WHERE id = ?1 AND status = 'compiling'"
                            ),
                            params![job.source_id, reason],
                        )?;
                    }
                    JobEnd::Cancelled => {
                        set_job_state(tx, id, JobState::Cancelled, None)?;
                        source_back_to_pending(tx, job.source_id)?;
                    }
                    JobEnd::Interrupted => {
                        requeue(tx, &job)?;
                        source_back_to_pending(tx, job.source_id)?;
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
                        tx.execute("UPDATE jobs SET cancel_requested = 1 WHERE id = ?1", [id])?;
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
    /// (dropped when its source is queued already) and its source `pending`. A source left
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
                    let mut stmt =
                        tx.prepare(&format!("{JOB_SELECT} WHERE state = 'running' ORDER BY id"))?;
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
                let mut stmt = conn.prepare(&format!(
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

/// Puts a running job back in line with no owner. When its source is queued already, the
/// job is marked cancelled instead (the queued one will do the work). Returns whether it
/// was requeued.
fn requeue(tx: &Transaction<'_>, job: &Job) -> Result<bool> {
    let queued: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM jobs WHERE source_id = ?1 AND state = 'queued')",
        [job.source_id],
        |row| row.get(0),
    )?;
    if queued {
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
