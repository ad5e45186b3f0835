-- WikiMind schema, version 16: a person writes in the wiki (notes, and edits to pages that
-- survive the model's rewrites).
-- Append-only: never edit this file once released.
--
-- Notes are sources of kind `note` (allowed since version 12), origin `note:<id>`: the id
-- is stable, so a renamed note keeps its source, digest and pages. Nothing here changes
-- `sources`; every row is kept as it is.
--
-- A page's claims say who wrote them: the model (every claim before this version) or a
-- person. A person's claim is never `sourced` and grounds nothing; it is carried into each
-- version the model writes after it.
ALTER TABLE page_claims ADD COLUMN author TEXT NOT NULL DEFAULT 'model'
    CHECK (author IN ('model', 'person'));

-- Claims a person removed from a page stay removed across rewrites. Row ids change on every
-- rewrite, so a removal is remembered by a hash of the claim's normalised text (its topic
-- key); `claim` is the text as it was, readable.
CREATE TABLE page_claim_removals (
    page_id    INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    claim_hash TEXT NOT NULL,
    claim      TEXT NOT NULL,
    removed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (page_id, claim_hash)
);

-- The model's text for a section of a page that both a person and the model changed, when
-- the two edits conflict: the page keeps the person's text, and the person accepts or
-- dismisses this. `section` is the heading as the person has it ('' for the text before
-- the first heading); `version` the model's version the text comes from.
CREATE TABLE page_suggestions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    page_id    INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    section    TEXT NOT NULL,
    text       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX page_suggestions_page ON page_suggestions(page_id);

-- A page a person renamed keeps its old title as an alias (`former` = 1) marked
-- `renamed` = 1: links to the old title resolve, and a digest still titled by it feeds the
-- renamed page instead of starting a new one.
ALTER TABLE aliases ADD COLUMN renamed INTEGER NOT NULL DEFAULT 0;
