-- WikiMind schema, version 7: pages are written from their digests by the model.
-- Append-only: never edit this file once released.
--
-- A page fed by several digests (or a concept page) is written by one model call from the
-- digests that are new or changed since it was last written. To tell which those are, each
-- row of `page_sources` records the digest it was last written from (`written_digest`: the
-- digest's `updated_at` then; NULL = never written in) and how long the source's text was
-- then (`written_chars`), so a rewrite may shrink the page when a source's text shrank.
-- `pages.sources_lost` counts the sources that left since the page was last written (a
-- removed source, a digest whose title moved to another topic): the page may shrink then
-- too. `pages.stale_at` says when the page last became stale, so a page job that failed
-- after that is not queued again until something changes.
--
-- Concept pages: a concept or link target that the digests of `pages.min_sources` sources
-- name gets a page. `digest_names` holds the names each digest gives besides its title (its
-- concepts and link targets), by key (`topic::topic_key`, computed in Rust), so counting the
-- sources that name a topic is one indexed query. Migration 8 (in Rust) fills it for the
-- digests of an upgraded wiki.

ALTER TABLE page_sources ADD COLUMN written_digest TEXT;
ALTER TABLE page_sources ADD COLUMN written_chars INTEGER;
ALTER TABLE pages ADD COLUMN sources_lost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN stale_at TEXT;

UPDATE pages SET stale_at = updated_at WHERE stale_reason IS NOT NULL;

CREATE TABLE digest_names (
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    name_key  TEXT NOT NULL,
    name      TEXT NOT NULL,
    PRIMARY KEY (source_id, name_key)
);
CREATE INDEX digest_names_key ON digest_names(name_key);
