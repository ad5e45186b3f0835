-- WikiMind schema, version 24: the library of a large wiki reads from indexes.
-- Append-only: never edit this file once released.
--
-- Opening the library lists every page with how many sources feed it, its tags and the
-- mix of its claims' confidence, and counts pages, stale pages and wanted pages. Each of
-- those read the large rows of `sources`, `page_claims` and `pages` (texts, bodies) to find
-- a small column; these indexes hold the small columns, so each is a pass over an index:
--
-- - `sources_tagged`: the tags of the sources that have any (a page's tags are those of
--   the notes whose titles name it);
-- - `page_claims_confidence`: each page's claims with their confidence, in the order of
--   the page's own index (by position), so a read of one page's claims that names no order
--   gets them in the order it always did;
-- - `pages_stale`: the pages waiting to be rewritten.

CREATE INDEX sources_tagged ON sources(id, tags) WHERE tags <> '[]';
CREATE INDEX page_claims_confidence ON page_claims(page_id, position, confidence);
CREATE INDEX pages_stale ON pages(id) WHERE stale_reason IS NOT NULL;
