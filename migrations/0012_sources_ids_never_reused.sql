-- WikiMind schema, version 12: a source id is never given to another source.
-- Append-only: never edit this file once released.
--
-- `sources.id` was a plain INTEGER PRIMARY KEY, so the id of the newest source came back
-- after `rm`, and an old page version's claims (which keep the ids of the sources that held
-- their quotes) could then name an unrelated new source. The table is rebuilt with
-- AUTOINCREMENT (the runner turns foreign keys off around a rebuild and checks them before
-- commit), every row carried with its id, and the sequence is seeded above every source id
-- the wiki still mentions anywhere: live rows, the tables that point at sources, and the
-- claims stored in every page version.
--
-- `kind` also allows 'note' (a note written in the app, origin `note:<id>`), so the writing
-- work does not rebuild this table a second time.

CREATE TABLE sources_v12 (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    origin       TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('file', 'url', 'text', 'stdin', 'note')),
    title_hint   TEXT,
    text         TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'compiling', 'compiled', 'failed', 'stale')),
    reason       TEXT,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    final_url    TEXT
);

INSERT INTO sources_v12 (id, origin, kind, title_hint, text, content_hash, status, reason,
                         created_at, updated_at, final_url)
SELECT id, origin, kind, title_hint, text, content_hash, status, reason,
       created_at, updated_at, final_url
FROM sources;

DROP TABLE sources;
ALTER TABLE sources_v12 RENAME TO sources;
CREATE INDEX sources_status ON sources(status);

INSERT INTO sqlite_sequence (name, seq)
SELECT 'sources', 0
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'sources');

UPDATE sqlite_sequence
SET seq = (
    SELECT MAX(id) FROM (
        SELECT seq AS id FROM sqlite_sequence WHERE name = 'sources'
        UNION ALL SELECT MAX(id) FROM sources
        UNION ALL SELECT MAX(source_id) FROM articles
        UNION ALL SELECT MAX(source_id) FROM compilations
        UNION ALL SELECT MAX(source_id) FROM page_sources
        UNION ALL SELECT MAX(source_id) FROM claim_sources
        UNION ALL SELECT MAX(source_id) FROM digest_names
        UNION ALL SELECT MAX(source_id) FROM jobs
        UNION ALL
        SELECT MAX(s.value)
        FROM page_versions AS v,
             json_each(CASE WHEN json_valid(v.claims) THEN v.claims ELSE '[]' END) AS c,
             json_each(CASE WHEN c.type = 'object' THEN c.value ELSE '{}' END, '$.source_ids') AS s
        WHERE s.type = 'integer'
    ) WHERE id IS NOT NULL
)
WHERE name = 'sources';
