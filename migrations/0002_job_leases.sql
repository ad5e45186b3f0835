-- WikiMind schema, version 2: the job queue is shared by every process on a data dir.
-- Append-only: never edit this file once released.
--
-- A running job is leased: it records its owner (host and process id) and a heartbeat the
-- owner renews while it works, so another process never takes or resets a job whose owner
-- is alive, and recovers one whose owner died. A job carries what it was asked with
-- (`settings`, JSON: the provider, server and model the asker chose), so whoever runs it
-- runs it as asked. A job can be cancelled, also by another process (`cancel_requested`,
-- which the owner sees at its next heartbeat).
--
-- The state check gains 'cancelled', which SQLite cannot alter in place: the table is
-- rebuilt (the runner turns foreign keys off around a rebuild and checks them before
-- commit). Every job is carried over; running jobs keep no owner, so the next start
-- recovers them as interrupted.

CREATE TABLE jobs_v2 (
    id               INTEGER PRIMARY KEY,
    source_id        INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    state            TEXT NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    error            TEXT,
    settings         TEXT NOT NULL DEFAULT '{}',
    owner_host       TEXT,
    owner_pid        INTEGER,
    heartbeat_at     TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

INSERT INTO jobs_v2 (id, source_id, state, attempts, error, created_at, updated_at)
SELECT id, source_id, state, attempts, error, created_at, updated_at FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_v2 RENAME TO jobs;

-- At most one queued job per source. (A version 1 queue could hold two running jobs for
-- one source; the store never starts a job whose source already has one running.)
CREATE UNIQUE INDEX jobs_one_queued ON jobs(source_id) WHERE state = 'queued';
CREATE INDEX jobs_state ON jobs(state, id);
