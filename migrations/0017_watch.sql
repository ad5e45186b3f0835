-- WikiMind schema, version 17: watched folders (`wikimind watch`, the app's Settings).
-- Append-only: never edit this file once released.
--
-- `watched_folders` is the list a person saved: the folders `wikimind watch` with no folder
-- named, and the app while it is open, keep the wiki in step with. A path is the folder's
-- canonical path when it was saved; a folder that is gone (an unmounted drive) stays listed.
--
-- `watch_lease` makes one watcher per data dir at a time, leased as jobs are (migration 2):
-- at most one row, naming its owner (host and process id) and a heartbeat the owner renews
-- while it watches. Another process takes the lease only when its owner is gone (a stale
-- heartbeat, or a process of the same host that no longer exists), so the app and a
-- `wikimind watch` never both react to one change.
--
-- `source_moves` records each origin change of a source: a watched file renamed or moved
-- keeps its source (identity stays the origin; a rename is an origin change, recorded).

CREATE TABLE watched_folders (
    path     TEXT PRIMARY KEY,
    added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE watch_lease (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    owner_host   TEXT NOT NULL,
    owner_pid    INTEGER NOT NULL,
    heartbeat_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE source_moves (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    from_origin TEXT NOT NULL,
    to_origin   TEXT NOT NULL,
    moved_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX source_moves_source ON source_moves(source_id, id);
