-- WikiMind schema, version 13: backfills, the data changes that need today's rules.
-- Append-only: never edit this file once released.
--
-- A migration changes the schema and runs frozen SQL; a data change that needs the
-- current algorithms (grounding, the markdown reader, the name rules) is a backfill: a
-- versioned, idempotent, resumable job that runs after the wiki opens. Each records here
-- how far it got (`cursor`, the last row id it finished) and when it was done; a backfill
-- whose recorded version is older than the build's runs again from the start.

CREATE TABLE backfills (
    name       TEXT PRIMARY KEY,
    version    INTEGER NOT NULL,
    cursor     INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    done_at    TEXT
);
