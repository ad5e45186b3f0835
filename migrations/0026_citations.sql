-- WikiMind schema, version 26: citations that say where a quote stands.
-- Append-only: never edit this file once released.
--
-- `source_pages`: where each page of a paged source (a PDF) lies in the source's stored
-- text (`sources.text`), with its 1-based physical number and the label printed on it
-- (NULL where the file defines none). Replaced whenever the source's text is.
CREATE TABLE source_pages (
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    number    INTEGER NOT NULL,
    label     TEXT,
    start     INTEGER NOT NULL,
    "end"     INTEGER NOT NULL,
    PRIMARY KEY (source_id, number)
);

-- `citations`: where a quote stands in a source, one row per piece of the quote (a quote
-- cut by `...` has several). A quote's place in a source does not depend on the claim
-- that carries it, so a row is keyed by the source and the quote as written: a digest's
-- claim (its article's source) and a page's claim (each source in `claim_sources`) find
-- their citations by their quote, and a page rewritten or restored keeps them. `start` and
-- `end` are UTF-8 byte offsets into `sources.text`; `exact` is the text there, `prefix`
-- and `suffix` about 32 characters on each side; `page` and `page_label` the page of a
-- paged source; `heading` the markdown heading path above it (a JSON array). When the
-- source's text changes the row is anchored again; a quote that cannot be found any more
-- keeps its row with `start` and `end` NULL (lost), so its claim is no longer grounded.
CREATE TABLE citations (
    source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    quote      TEXT NOT NULL,
    piece      INTEGER NOT NULL,
    start      INTEGER,
    "end"      INTEGER,
    exact      TEXT NOT NULL,
    prefix     TEXT NOT NULL,
    suffix     TEXT NOT NULL,
    page       INTEGER,
    page_label TEXT,
    heading    TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (source_id, quote, piece)
);

-- The span columns of `claim_sources` were never written: `citations` records where.
ALTER TABLE claim_sources DROP COLUMN span_start;
ALTER TABLE claim_sources DROP COLUMN span_end;
ALTER TABLE claim_sources DROP COLUMN page_number;
