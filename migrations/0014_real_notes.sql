-- WikiMind schema, version 14: real notes — what a note's front matter says, and page merges.
-- Append-only: never edit this file once released.
--
-- The markdown reader (`wikimind_text::markdown`) reads a note's front matter: its `tags`
-- (with the note's inline `#tags`) and `aliases` are kept on the source as JSON arrays of
-- strings, so they can be shown, searched and filtered without reading the text again.
-- Sources ingested before this version get theirs from the backfill `note-metadata`.
--
-- A note's aliases become other names of the page its title names: rows of `aliases` with
-- `former` = 1 (a name of its own that resolves to the page: a former title, or now an
-- alias a note declares) and `source_id` the note declaring it, so a note that changes or
-- leaves takes its aliases with it.

ALTER TABLE sources ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE sources ADD COLUMN aliases TEXT NOT NULL DEFAULT '[]';
ALTER TABLE aliases ADD COLUMN source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE;
CREATE INDEX aliases_source ON aliases(source_id) WHERE source_id IS NOT NULL;

-- One merge operation joins two pages of one topic (the names backfill, a person's
-- `merge`): the absorbed page's id, title and versions are kept here, readable, and its
-- title becomes a name of the page it was merged into. A page's ids are never reused
-- (AUTOINCREMENT), so `page_id` names one absorbed page for good.
CREATE TABLE merged_pages (
    page_id    INTEGER PRIMARY KEY,
    into_page  INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    title      TEXT NOT NULL,
    reason     TEXT NOT NULL,
    merged_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX merged_pages_into ON merged_pages(into_page);

CREATE TABLE merged_page_versions (
    page_id        INTEGER NOT NULL REFERENCES merged_pages(page_id) ON DELETE CASCADE,
    version        INTEGER NOT NULL,
    title          TEXT NOT NULL,
    summary        TEXT NOT NULL,
    body           TEXT NOT NULL,
    claims         TEXT NOT NULL DEFAULT '[]',
    concepts       TEXT NOT NULL DEFAULT '[]',
    open_questions TEXT NOT NULL DEFAULT '[]',
    links          TEXT NOT NULL DEFAULT '[]',
    author_kind    TEXT NOT NULL,
    provider       TEXT,
    model          TEXT,
    restored_from  INTEGER,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (page_id, version)
);
