-- WikiMind schema, version 15: keeping the wiki healthy (`wikimind lint`).
-- Append-only: never edit this file once released.
--
-- A file source records the size and modification time (nanoseconds since the Unix epoch)
-- its file had when it was last read, so the staleness check stats 100,000 files without
-- reading them: only a file whose size or time differs is read again and its text hash
-- compared. Sources ingested before this version (and web pages, pasted text) have NULL
-- here; the check reads a file source with no record each time, until an ingest records
-- it. Every row is kept as it is.
--
-- A finding a person dismissed (`lint --dismiss ID`), or a merge proposal they rejected, is
-- remembered by its id: a hash of what the finding is about (the page keys, the claim
-- texts, the two titles' keys), never a row id, so a recompile that renumbers rows does
-- not bring it back. `about` is what the hash was made of, readable.
--
-- The health figures of each run are kept in `health_runs` (below), for the trend.

ALTER TABLE sources ADD COLUMN file_size INTEGER;
ALTER TABLE sources ADD COLUMN file_mtime_ns INTEGER;

CREATE TABLE lint_dismissals (
    id           TEXT PRIMARY KEY,
    check_name   TEXT NOT NULL,
    about        TEXT NOT NULL,
    dismissed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- The wiki's health figures, stored after each compile run and each full `lint`, so a
-- trend can be shown: one row per run, `trigger` saying which. Percentages are stored as
-- `lint` reports them (0 to 100, one decimal).
CREATE TABLE health_runs (
    id              INTEGER PRIMARY KEY,
    at              TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    trigger         TEXT NOT NULL CHECK (trigger IN ('compile', 'lint')),
    pages           INTEGER NOT NULL,
    links           INTEGER NOT NULL,
    link_resolution REAL NOT NULL,
    orphan_share    REAL NOT NULL,
    wanted          INTEGER NOT NULL,
    broken_links    INTEGER NOT NULL,
    stale           INTEGER NOT NULL,
    ungrounded      INTEGER NOT NULL,
    duplicates      INTEGER NOT NULL,
    thin            INTEGER NOT NULL
);
