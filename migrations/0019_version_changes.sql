-- WikiMind schema, version 19: what a person's version of a page did.
-- Append-only: never edit this file once released.
--
-- A version written by a person was only "you": an edit, the person's work kept over a
-- model's rewrite, a suggestion accepted, a claim added or removed, a rename, a merge of
-- two pages and a revert all looked alike in the history. `change` names which
-- (`edited`, `kept`, `merged`, `accepted`, `claim_added`, `claim_removed`, `renamed`,
-- `reverted`, `restored`); NULL for a model's version and for a person's version written
-- before this column (the history says "you" for those, as before).

ALTER TABLE page_versions ADD COLUMN change TEXT;
