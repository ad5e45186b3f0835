-- How many sentences and characters each page's body holds, counted when the body is
-- written (`wikimind_text::prose::sentences`), so lint's thin check reads this narrow
-- table instead of every body: at 100,000 pages that read was the check's whole cost.
--
-- - `rule` is the version of the rule that counted. A row of another version is not used
--   (the body is read and counted again), and the `page-sentences` backfill counts again.
-- - A body that changes drops its row (the trigger), so a write that does not count leaves
--   the body to be read: a count is missing, never wrong.
-- - Pages written before this version have no row until the backfill counts them; their
--   bodies are read meanwhile, as before.
CREATE TABLE page_sentences (
    page_id   INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
    rule      INTEGER NOT NULL,
    sentences INTEGER NOT NULL,
    chars     INTEGER NOT NULL
);

CREATE TRIGGER page_sentences_body AFTER UPDATE OF body ON pages
WHEN NEW.body IS NOT OLD.body
BEGIN
    DELETE FROM page_sentences WHERE page_id = NEW.id;
END;
