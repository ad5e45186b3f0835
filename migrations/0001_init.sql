-- WikiMind schema, version 1.
-- Append-only: never edit this file once released; add 0002_*.sql instead.
-- Timestamps are UTC ISO-8601 text with milliseconds, so they sort as text.
-- Titles, concept names and link targets carry a `*_norm` column (trimmed, lowercased,
-- inner whitespace collapsed) computed in Rust: SQLite's lower() only knows ASCII.

CREATE TABLE sources (
    id           INTEGER PRIMARY KEY,
    origin       TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('file', 'url', 'text', 'stdin')),
    title_hint   TEXT,
    text         TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'compiling', 'compiled', 'failed', 'stale')),
    reason       TEXT,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX sources_status ON sources(status);

CREATE TABLE articles (
    id             INTEGER PRIMARY KEY,
    source_id      INTEGER NOT NULL UNIQUE REFERENCES sources(id) ON DELETE CASCADE,
    title          TEXT NOT NULL,
    title_norm     TEXT NOT NULL UNIQUE,
    summary        TEXT NOT NULL,
    body           TEXT NOT NULL,
    truncated      INTEGER NOT NULL DEFAULT 0,
    provider       TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE claims (
    id         INTEGER PRIMARY KEY,
    article_id INTEGER NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    claim      TEXT NOT NULL,
    confidence TEXT NOT NULL CHECK (confidence IN ('sourced', 'inferred', 'opinion')),
    quote      TEXT,
    grounded   INTEGER NOT NULL DEFAULT 0,
    UNIQUE (article_id, position)
);

CREATE TABLE concepts (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,
    name_norm TEXT NOT NULL UNIQUE
);

CREATE TABLE article_concepts (
    article_id INTEGER NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
    concept_id INTEGER NOT NULL REFERENCES concepts(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    PRIMARY KEY (article_id, concept_id)
);
CREATE INDEX article_concepts_concept ON article_concepts(concept_id);

-- A link with to_article NULL is a wanted page.
CREATE TABLE links (
    id           INTEGER PRIMARY KEY,
    from_article INTEGER NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    target_title TEXT NOT NULL,
    target_norm  TEXT NOT NULL,
    to_article   INTEGER REFERENCES articles(id) ON DELETE SET NULL,
    context      TEXT NOT NULL DEFAULT '',
    UNIQUE (from_article, target_norm)
);
CREATE INDEX links_target_norm ON links(target_norm);
CREATE INDEX links_to_article ON links(to_article);

CREATE TABLE open_questions (
    article_id INTEGER NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    question   TEXT NOT NULL,
    PRIMARY KEY (article_id, position)
);

CREATE TABLE compilations (
    id             INTEGER PRIMARY KEY,
    source_id      INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    provider       TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    latency_ms     INTEGER NOT NULL,
    attempt        INTEGER NOT NULL,
    repairs        TEXT NOT NULL DEFAULT '[]',
    warnings       TEXT NOT NULL DEFAULT '[]',
    truncated      INTEGER NOT NULL DEFAULT 0,
    raw_answer     TEXT NOT NULL,
    outcome        TEXT NOT NULL CHECK (outcome IN ('compiled', 'failed')),
    reason         TEXT,
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX compilations_source ON compilations(source_id, id);

CREATE TABLE jobs (
    id         INTEGER PRIMARY KEY,
    source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    state      TEXT NOT NULL DEFAULT 'queued'
               CHECK (state IN ('queued', 'running', 'done', 'failed')),
    attempts   INTEGER NOT NULL DEFAULT 0,
    error      TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- At most one queued job per source.
CREATE UNIQUE INDEX jobs_one_queued ON jobs(source_id) WHERE state = 'queued';
CREATE INDEX jobs_state ON jobs(state, id);

-- Full-text index over articles, an external-content table kept in sync by triggers.
CREATE VIRTUAL TABLE articles_fts USING fts5(
    title, summary, body,
    content = 'articles', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

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
