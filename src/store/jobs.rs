//! The persistent compile queue. A job row outlives the process: a crash leaves it
//! `running`, and [`Store::recover_interrupted`] puts it back in the queue.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use super::sources::source_exists;
use super::{JobId, JobState, Result, SourceId, SourceStatus, Store, StoreError, NOW};

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
    /// When it was queued (UTC, ISO-8601).
    pub created_at: String,
    /// When its state last changed (UTC, ISO-8601).
    pub updated_at: String,
}

const JOB_SELECT: &str =
    "SELECT id, source_id, state, attempts, error, created_at, updated_at FROM jobs";

fn job_row(row: &Row<'_>) -> rusqlite::Result<Job> {
    Ok(Job {
        id: row.get(0)?,
        source_id: row.get(1)?,
        state: row.get(2)?,
        attempts: row.get(3)?,
        error: row.get(4)?,
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
    })
}

impl Store {
    /// Queues a compile of a source. A source has at most one queued job: queuing it
    /// again returns the job already waiting.
    pub fn enqueue(&self, source_id: SourceId) -> Result<JobId> {
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
                    return Ok(id);
                }
                tx.execute("INSERT INTO jobs (source_id) VALUES (?1)", [source_id])?;
                Ok(JobId(tx.last_insert_rowid()))
            },
        )
    }

    /// Takes the oldest queued job: it becomes `running` (one more attempt) and its
    /// source `compiling`. `None` when the queue is empty.
    pub fn start_next(&self) -> Result<Option<Job>> {
        self.write(
            || "taking the next compile job".to_owned(),
            |tx| {
                let next: Option<JobId> = tx
                    .query_row(
                        "SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1",
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
                             error = NULL, updated_at = {NOW}
                         WHERE id = ?1"
                    ),
                    [id],
                )?;
                tx.execute(
                    &format!(
                        "UPDATE sources SET status = ?1, reason = NULL, updated_at = {NOW}
                         WHERE id = (SELECT source_id FROM jobs WHERE id = ?2)"
                    ),
                    params![SourceStatus::Compiling, id],
                )?;
                Ok(Some(tx.query_row(
                    &format!("{JOB_SELECT} WHERE id = ?1"),
                    [id],
                    job_row,
                )?))
            },
        )
    }

    /// Finishes a job: `done` when `ok`, else `failed` with the error. The article (or
    /// the failure) is recorded by [`Store::save_article`] / [`Store::record_failure`];
    /// a failed job whose source is still `compiling` (nothing was recorded, e.g. the
    /// provider was unreachable) marks the source `failed` with the same error.
    pub fn finish_job(&self, id: JobId, ok: bool, error: Option<&str>) -> Result<()> {
        let (state, error) = if ok {
            (JobState::Done, None)
        } else {
            (
                JobState::Failed,
                Some(error.unwrap_or("the compile failed")),
            )
        };
        self.write(
            || format!("finishing job {id}"),
            |tx| {
                let changed = tx.execute(
                    &format!(
                        "UPDATE jobs SET state = ?2, error = ?3, updated_at = {NOW} WHERE id = ?1"
                    ),
                    params![id, state, error],
                )?;
                if changed == 0 {
                    return Err(StoreError::JobNotFound(id));
                }
                if !ok {
                    tx.execute(
                        &format!(
                            "UPDATE sources SET status = 'failed', reason = ?2, updated_at = {NOW}
                             WHERE id = (SELECT source_id FROM jobs WHERE id = ?1)
                               AND status = 'compiling'"
                        ),
                        params![id, error],
                    )?;
                }
                Ok(())
            },
        )
    }

    /// Puts work interrupted by a crash back in line: `running` jobs become `queued`
    /// again (unless the source already has a queued job, then they are dropped as
    /// duplicates) and `compiling` sources become `pending`. Returns how many jobs were
    /// requeued. Call it once at start-up of the process that runs the queue, not while
    /// another process may be compiling.
    pub fn recover_interrupted(&self) -> Result<usize> {
        self.write(
            || "recovering interrupted compile jobs".to_owned(),
            |tx| {
                tx.execute(
                    "DELETE FROM jobs WHERE state = 'running' AND EXISTS (
                         SELECT 1 FROM jobs q WHERE q.source_id = jobs.source_id
                                                AND q.state = 'queued')",
                    [],
                )?;
                // Two running jobs for one source would collide on the queued index.
                tx.execute(
                    "DELETE FROM jobs WHERE state = 'running' AND id NOT IN (
                         SELECT MIN(id) FROM jobs WHERE state = 'running' GROUP BY source_id)",
                    [],
                )?;
                let requeued = tx.execute(
                    &format!(
                        "UPDATE jobs SET state = 'queued', updated_at = {NOW}
                         WHERE state = 'running'"
                    ),
                    [],
                )?;
                tx.execute(
                    &format!(
                        "UPDATE sources SET status = 'pending', updated_at = {NOW}
                         WHERE status = 'compiling'"
                    ),
                    [],
                )?;
                Ok(requeued)
            },
        )
    }

    /// Every job, newest first.
    pub fn jobs(&self) -> Result<Vec<Job>> {
        self.read(
            || "listing compile jobs".to_owned(),
            |conn| {
                let mut stmt = conn.prepare(&format!("{JOB_SELECT} ORDER BY id DESC"))?;
                let rows = stmt.query_map([], job_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}
