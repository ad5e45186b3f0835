-- WikiMind schema, version 9: page jobs share the one queue with source jobs.
-- Append-only: never edit this file once released.
--
-- A job now works on a source (`kind` 'source': compile its digest) or on a page (`kind`
-- 'page': write it from its digests); exactly one of `source_id` and `page_id` is set, as
-- its kind says, and a job goes with the source or page it works on. The queue keeps one
-- queued job per source and one per page, however many of a page's sources changed. Page
-- jobs are taken only when no source job is queued or running, so a page is written from
-- its digests as the run's sources left them (the store's `start_next` decides that).
--
-- `source_id` becomes nullable, which SQLite cannot alter in place: the table is rebuilt
-- (the runner turns foreign keys off around a rebuild and checks them before commit).
-- Every job is carried over as a source job with its id, lease, settings and times.

CREATE TABLE jobs_v9 (
    id               INTEGER PRIMARY KEY,
    kind             TEXT NOT NULL DEFAULT 'source' CHECK (kind IN ('source', 'page')),
    source_id        INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    page_id          INTEGER REFERENCES pages(id) ON DELETE CASCADE,
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
    updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK ((kind = 'source' AND source_id IS NOT NULL AND page_id IS NULL)
        OR (kind = 'page' AND page_id IS NOT NULL AND source_id IS NULL))
);

INSERT INTO jobs_v9 (id, kind, source_id, page_id, state, attempts, error, settings,
                     owner_host, owner_pid, heartbeat_at, cancel_requested, created_at,
                     updated_at)
SELECT id, 'source', source_id, NULL, state, attempts, error, settings, owner_host, owner_pid,
       heartbeat_at, cancel_requested, created_at, updated_at
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_v9 RENAME TO jobs;

-- At most one queued job per source, and one per page.
CREATE UNIQUE INDEX jobs_one_queued ON jobs(source_id)
    WHERE state = 'queued' AND source_id IS NOT NULL;
CREATE UNIQUE INDEX jobs_one_queued_page ON jobs(page_id)
    WHERE state = 'queued' AND page_id IS NOT NULL;
CREATE INDEX jobs_state ON jobs(state, id);
-- A page's jobs, to tell whether one ended since the page last became stale (and so that
-- removing a page finds its jobs without reading the whole table).
CREATE INDEX jobs_page ON jobs(page_id, updated_at) WHERE page_id IS NOT NULL;
