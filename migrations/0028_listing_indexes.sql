-- Indexes for the first screen of a large wiki (100,000 pages), read at every launch:
--
-- - `pages_listing`: every page's title, kind and last change (with its id, the rowid), so
--   the library's order is read from an index of small columns instead of passing over
--   every page's summary and body, and the pages of a kind are counted on it. It is led by
--   the title, which no query looks up: led by the kind, it drew every query that keeps
--   the topics (nearly every page) from one pass over the table to a lookup per page, and
--   made `lint` at 100,000 pages half as fast again;
-- - `sources_files`: the sources read from files (the notes), so the index of notes that
--   names each note and tells apart notes sharing a name reads them alone, not every
--   pasted text and web page.
CREATE INDEX pages_listing ON pages(title, kind, updated_at);
CREATE INDEX sources_files ON sources(id) WHERE kind = 'file';
