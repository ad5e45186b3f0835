-- WikiMind schema, version 23: search as you type stays fast in a large wiki.
-- Append-only: never edit this file once released.
--
-- Search as you type searches the last word typed as a prefix (`e`, `ex`, `ext`, …). Without
-- a prefix index, FTS5 answers a prefix by merging the lists of every word that starts with
-- it, so the first letter or two of a word read most of the index of a large wiki (about
-- 100 ms at 100,000 pages). The full-text table is rebuilt with indexes of the first one and
-- two letters of every word (`prefix = '1 2'`); longer prefixes match few enough words to
-- merge. Columns, tokenizer and rows are as before: the rows are copied from the old table,
-- so its triggers (kept as they are, by name) write to the new one. The rename runs with
-- `legacy_alter_table` on, which leaves those triggers' text alone (they name
-- `pages_fts`, as the new table is then called).

CREATE VIRTUAL TABLE pages_fts_prefixed USING fts5(
    title, aliases, summary, claims, body,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2'
);

INSERT INTO pages_fts_prefixed (rowid, title, aliases, summary, claims, body)
SELECT rowid, title, aliases, summary, claims, body FROM pages_fts;

DROP TABLE pages_fts;

PRAGMA legacy_alter_table = ON;
ALTER TABLE pages_fts_prefixed RENAME TO pages_fts;
PRAGMA legacy_alter_table = OFF;
