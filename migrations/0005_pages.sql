-- WikiMind schema, version 5: the wiki is made of pages (one per topic), fed by digests.
-- Append-only: never edit this file once released.
--
-- Until version 4 each source had one row of `articles`, with a title no other article
-- could have (a second `Coffee` was stored as `Coffee (2)`). Those rows are now the sources'
-- *digests* (what one source says) and keep every column and id. A wiki page is about one
-- topic and may be fed by several digests, so a digest's title need no longer be unique:
-- the UNIQUE constraint on `articles.title_norm` goes (SQLite cannot drop a constraint in
-- place, so the table is rebuilt: the runner turns foreign keys off around it and checks
-- them before commit) and a plain index takes its place. Migration 6 (in Rust) restores the
-- titles the model asked for and fills the tables below from the digests.
--
-- Topic names are compared by their key (`topic::topic_key`, computed in Rust: case,
-- whitespace, punctuation, diacritics and regular plurals do not matter; numbers do).

CREATE TABLE articles_v5 (
    id             INTEGER PRIMARY KEY,
    source_id      INTEGER NOT NULL UNIQUE REFERENCES sources(id) ON DELETE CASCADE,
    title          TEXT NOT NULL,
    title_norm     TEXT NOT NULL,
    summary        TEXT NOT NULL,
    body           TEXT NOT NULL,
    truncated      INTEGER NOT NULL DEFAULT 0,
    provider       TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

INSERT INTO articles_v5 (id, source_id, title, title_norm, summary, body, truncated, provider,
                         model, prompt_version, created_at, updated_at)
SELECT id, source_id, title, title_norm, summary, body, truncated, provider, model,
       prompt_version, created_at, updated_at
FROM articles;

-- Dropping the table drops its full-text triggers; the index itself (`articles_fts`, whose
-- rows are keyed by the ids kept above) stays and is wired to the new table below.
DROP TABLE articles;
ALTER TABLE articles_v5 RENAME TO articles;
CREATE INDEX articles_title_norm ON articles(title_norm);

CREATE TRIGGER articles_fts_insert AFTER INSERT ON articles BEGIN
    INSERT INTO articles_fts(rowid, title, summary, body)
    VALUES (new.id, new.title, new.summary, new.body);
END;

CREATE TRIGGER articles_fts_delete AFTER DELETE ON articles BEGIN
    INSERT INTO articles_fts(articles_fts, rowid, title, summary, body)
    VALUES ('delete', old.id, old.title, old.summary, old.body);
END;

CREATE TRIGGER articles_fts_update AFTER UPDATE OF title, summary, body ON articles BEGIN
    INSERT INTO articles_fts(articles_fts, rowid, title, summary, body)
    VALUES ('delete', old.id, old.title, old.summary, old.body);
    INSERT INTO articles_fts(rowid, title, summary, body)
    VALUES (new.id, new.title, new.summary, new.body);
END;

-- A wiki page: a topic (its title names it) or, later, a saved answer. Its content is that
-- of its current version (`version`, a row of `page_versions`). `stale_reason` is NULL when
-- the page is written from its digests as they are, else why it needs rewriting (a source
-- changed, joined or was removed); `flagged` is NULL when fine, else why its last rewrite
-- was refused and the previous version kept. Concepts and open questions are JSON arrays of
-- strings. The pages of an upgraded wiki keep the ids of the articles they were made from;
-- a page made later gets an id no page ever had (AUTOINCREMENT), so an id never comes to
-- name another topic.
CREATE TABLE pages (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    kind           TEXT NOT NULL DEFAULT 'topic' CHECK (kind IN ('topic', 'answer')),
    title          TEXT NOT NULL,
    title_key      TEXT NOT NULL UNIQUE,
    summary        TEXT NOT NULL,
    body           TEXT NOT NULL,
    concepts       TEXT NOT NULL DEFAULT '[]',
    open_questions TEXT NOT NULL DEFAULT '[]',
    stale_reason   TEXT,
    flagged        TEXT,
    version        INTEGER NOT NULL DEFAULT 1,
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Every version of every page, as it was written: by the model (provider and model named)
-- or by a person (a restore; `restored_from` names the version it copied). Claims (with the
-- sources holding each quote), links, concepts and open questions are JSON.
CREATE TABLE page_versions (
    page_id        INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    version        INTEGER NOT NULL,
    title          TEXT NOT NULL,
    summary        TEXT NOT NULL,
    body           TEXT NOT NULL,
    claims         TEXT NOT NULL DEFAULT '[]',
    concepts       TEXT NOT NULL DEFAULT '[]',
    open_questions TEXT NOT NULL DEFAULT '[]',
    links          TEXT NOT NULL DEFAULT '[]',
    author_kind    TEXT NOT NULL CHECK (author_kind IN ('model', 'person')),
    provider       TEXT,
    model          TEXT,
    restored_from  INTEGER,
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (page_id, version)
);

-- Which sources' digests feed a page: the page its title names (`by_title` = 1), or a page
-- of a concept or link target it names (0).
CREATE TABLE page_sources (
    page_id   INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    by_title  INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (page_id, source_id)
);
CREATE INDEX page_sources_source ON page_sources(source_id);

-- Other names of a page. A spelling of its own topic seen in a digest (`espresso` beside
-- `Espresso`) shares the page's key and is only shown; a former title (`Espresso (2)`,
-- `former` = 1) has a key of its own, unique among former titles and never a page's key,
-- so links and exports that used it still resolve to the page.
CREATE TABLE aliases (
    page_id  INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    name_key TEXT NOT NULL,
    former   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (page_id, name)
);
CREATE UNIQUE INDEX aliases_former_key ON aliases(name_key) WHERE former = 1;

-- The current claims of a page.
CREATE TABLE page_claims (
    id         INTEGER PRIMARY KEY,
    page_id    INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    claim      TEXT NOT NULL,
    confidence TEXT NOT NULL CHECK (confidence IN ('sourced', 'inferred', 'opinion')),
    quote      TEXT,
    grounded   INTEGER NOT NULL DEFAULT 0,
    UNIQUE (page_id, position)
);

-- The sources whose text holds a claim's quote. Where in the text (a byte span) and on
-- which page of a paged document are left NULL until a later version records them.
CREATE TABLE claim_sources (
    claim_id    INTEGER NOT NULL REFERENCES page_claims(id) ON DELETE CASCADE,
    source_id   INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    span_start  INTEGER,
    span_end    INTEGER,
    page_number INTEGER,
    PRIMARY KEY (claim_id, source_id)
);
CREATE INDEX claim_sources_source ON claim_sources(source_id);

-- The links of a page's current version. A link is kept by the key of its target and
-- resolved when read (a page with that key, else a former title with it), so it follows
-- pages as they are made and removed: one that resolves to nothing is a wanted page.
CREATE TABLE page_links (
    page_id      INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    target_title TEXT NOT NULL,
    target_key   TEXT NOT NULL,
    context      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (page_id, position),
    UNIQUE (page_id, target_key)
);
CREATE INDEX page_links_target ON page_links(target_key);

-- Full-text index over pages, kept in sync by triggers like the one over digests.
CREATE VIRTUAL TABLE pages_fts USING fts5(
    title, summary, body,
    content = 'pages', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER pages_fts_insert AFTER INSERT ON pages BEGIN
    INSERT INTO pages_fts(rowid, title, summary, body)
    VALUES (new.id, new.title, new.summary, new.body);
END;

CREATE TRIGGER pages_fts_delete AFTER DELETE ON pages BEGIN
    INSERT INTO pages_fts(pages_fts, rowid, title, summary, body)
    VALUES ('delete', old.id, old.title, old.summary, old.body);
END;

CREATE TRIGGER pages_fts_update AFTER UPDATE OF title, summary, body ON pages BEGIN
    INSERT INTO pages_fts(pages_fts, rowid, title, summary, body)
    VALUES ('delete', old.id, old.title, old.summary, old.body);
    INSERT INTO pages_fts(rowid, title, summary, body)
    VALUES (new.id, new.title, new.summary, new.body);
END;
