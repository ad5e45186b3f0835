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

-- A concept a digest gives that no source says is kept on the digest as a chip (`named` = 0)
-- but names no page: it feeds no page, makes no wanted page and is not offered to prompts.
ALTER TABLE article_concepts ADD COLUMN named INTEGER NOT NULL DEFAULT 1;
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

-- A page's tags (those of the notes its title names) are searched with its other names: the
-- full-text index's `aliases` column holds both (`page_search_names`), kept in step by the
-- triggers below.
CREATE VIEW page_search_names AS
SELECT p.id AS page_id,
       COALESCE((SELECT group_concat(a.name, ' ') FROM aliases a WHERE a.page_id = p.id), '')
       || ' ' ||
       COALESCE((SELECT group_concat(j.value, ' ') FROM page_sources ps
                 JOIN sources s ON s.id = ps.source_id, json_each(s.tags) j
                 WHERE ps.page_id = p.id AND ps.by_title = 1), '') AS names
FROM pages p;

DROP TRIGGER pages_fts_alias_insert;
DROP TRIGGER pages_fts_alias_delete;

CREATE TRIGGER pages_fts_alias_insert AFTER INSERT ON aliases BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = new.page_id)
    WHERE rowid = new.page_id;
END;

CREATE TRIGGER pages_fts_alias_delete AFTER DELETE ON aliases BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = old.page_id)
    WHERE rowid = old.page_id;
END;

CREATE TRIGGER pages_fts_alias_update AFTER UPDATE ON aliases BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = pages_fts.rowid)
    WHERE rowid IN (new.page_id, old.page_id);
END;

CREATE TRIGGER pages_fts_tags_source AFTER UPDATE OF tags ON sources BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = pages_fts.rowid)
    WHERE rowid IN (SELECT page_id FROM page_sources
                    WHERE source_id = new.id AND by_title = 1);
END;

CREATE TRIGGER pages_fts_tags_feed_insert AFTER INSERT ON page_sources WHEN new.by_title = 1 BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = new.page_id)
    WHERE rowid = new.page_id;
END;

CREATE TRIGGER pages_fts_tags_feed_update AFTER UPDATE OF by_title ON page_sources BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = new.page_id)
    WHERE rowid = new.page_id;
END;

CREATE TRIGGER pages_fts_tags_feed_delete AFTER DELETE ON page_sources WHEN old.by_title = 1 BEGIN
    UPDATE pages_fts SET aliases = (SELECT names FROM page_search_names WHERE page_id = old.page_id)
    WHERE rowid = old.page_id;
END;
