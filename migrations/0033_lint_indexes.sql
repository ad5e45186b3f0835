-- Two indexes that answer lint's lookups from the index alone, each replacing an index it
-- extends (so a write keeps as many indexes up to date as before).
--
-- - `digest_names_by_key`: the sources that name a key, in source order. `digest_names_key`
--   held each key with its row id, so every lookup (lint's wanted pages: one per name no
--   page has, 30,000 at 100,000 pages; a page's feeding sources; a wanted page asked for)
--   read the row for its source and sorted the matches.
-- - `page_sources_written`: the pages each source feeds, with the digest each was last
--   written from. Finding the pages behind a newer digest walked all of `page_sources`
--   (370,000 rows at 100,000 pages) and looked each up in `articles`; it now walks the
--   digests in source order and reads each one's pages from this index.
CREATE INDEX digest_names_by_key ON digest_names(name_key, source_id);
DROP INDEX digest_names_key;
CREATE INDEX page_sources_written ON page_sources(source_id, written_digest, page_id);
DROP INDEX page_sources_source;
