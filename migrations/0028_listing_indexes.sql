-- Indexes for the first screen of a large wiki (100,000 pages), read at every launch, and
-- for `lint`:
--
-- - `pages_listing`: every page's title, kind and last change (with its id, the rowid), so
--   the library's order is read from an index of small columns instead of passing over
--   every page's summary and body, and the pages of a kind are counted on it. It is led by
--   the title, which no query looks up: led by the kind, it drew every query that keeps
--   the topics (nearly every page) from one pass over the table to a lookup per page
--   (`lint` at 100,000 pages took 7.6 s instead of 4.9 s);
-- - `sources_files`: the sources read from files (the notes), so the index of notes that
--   names each note and tells apart notes sharing a name reads them alone, not every
--   pasted text and web page;
-- - `sources_aliased`: the aliases of the sources that have any, so the names a page also
--   answers to (lint's duplicate check) are read from those few sources rather than from
--   every page's sources, each read at random (0.6 s at 100,000 pages).
CREATE INDEX pages_listing ON pages(title, kind, updated_at);
CREATE INDEX sources_files ON sources(id) WHERE kind = 'file';
CREATE INDEX sources_aliased ON sources(id, aliases) WHERE aliases <> '[]';
