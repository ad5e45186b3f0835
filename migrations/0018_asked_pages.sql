-- WikiMind schema, version 18: pages a person asked for.
-- Append-only: never edit this file once released.
--
-- A wanted name gets a page of its own when the digests of `pages.min_sources` sources name
-- it, or when a person asks for it (the app's "Ask for this page", `wikimind want`). A page
-- asked for stays while one source still names it: the request stands in for the
-- threshold, for that one page. Every page before this version was made by the threshold.
ALTER TABLE pages ADD COLUMN asked INTEGER NOT NULL DEFAULT 0 CHECK (asked IN (0, 1));
