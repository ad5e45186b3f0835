-- WikiMind schema, version 25: a page's history says which claims left a full page.
-- Append-only: never edit this file once released.
--
-- When a page is full, its least supported claims (fewest sources, then oldest) give way
-- to what new sources add. The version the model wrote records each claim that left, as a
-- JSON array of {claim, quote, source_ids, why}; '[]' for every other version (and for
-- every version written before this one). Each such claim stays in its sources' digests.
ALTER TABLE page_versions ADD COLUMN claims_left TEXT NOT NULL DEFAULT '[]';
