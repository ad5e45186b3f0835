-- WikiMind schema, version 11: the wiki is asked questions.
-- Append-only: never edit this file once released.
--
-- Finding the pages a question is about searches more of a page than its title, summary
-- and body: its other names (aliases) and its claims (with their quotes) too. The full-text
-- index becomes a table of its own (not an index over `pages`, whose rows hold neither),
-- one row per page with the page's id as rowid, kept by triggers on pages, aliases and
-- claims. Columns, in the order ranking weighs them: title, aliases, summary, claims, body.
--
-- A saved answer is a page of kind 'answer', titled by its question. Its key is
-- 'answer:' followed by the question's page key, a key no topic can have (topic keys hold
-- no ':'), so an answer never takes a topic's name and no digest ever feeds it. Each of its
-- claims names the page it cites (`page_claims.cited_page`, the title as the answer wrote
-- it; NULL for a topic page's claims); `pages.flagged` on an answer page says which of its
-- claims did not ground in the page they cite.

DROP TRIGGER pages_fts_insert;
DROP TRIGGER pages_fts_delete;
DROP TRIGGER pages_fts_update;
DROP TABLE pages_fts;

CREATE VIRTUAL TABLE pages_fts USING fts5(
    title, aliases, summary, claims, body,
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO pages_fts (rowid, title, aliases, summary, claims, body)
SELECT p.id, p.title,
       COALESCE((SELECT group_concat(a.name, ' ') FROM aliases a WHERE a.page_id = p.id), ''),
       p.summary,
       COALESCE((SELECT group_concat(c.claim || ' ' || COALESCE(c.quote, ''), ' ')
                 FROM page_claims c WHERE c.page_id = p.id), ''),
       p.body
FROM pages p;

CREATE TRIGGER pages_fts_insert AFTER INSERT ON pages BEGIN
    INSERT INTO pages_fts (rowid, title, aliases, summary, claims, body)
    VALUES (new.id, new.title, '', new.summary, '', new.body);
END;

CREATE TRIGGER pages_fts_delete AFTER DELETE ON pages BEGIN
    DELETE FROM pages_fts WHERE rowid = old.id;
END;

CREATE TRIGGER pages_fts_update AFTER UPDATE OF title, summary, body ON pages BEGIN
    UPDATE pages_fts SET title = new.title, summary = new.summary, body = new.body
    WHERE rowid = new.id;
END;

CREATE TRIGGER pages_fts_alias_insert AFTER INSERT ON aliases BEGIN
    UPDATE pages_fts SET aliases = COALESCE(
        (SELECT group_concat(name, ' ') FROM aliases WHERE page_id = new.page_id), '')
    WHERE rowid = new.page_id;
END;

CREATE TRIGGER pages_fts_alias_delete AFTER DELETE ON aliases BEGIN
    UPDATE pages_fts SET aliases = COALESCE(
        (SELECT group_concat(name, ' ') FROM aliases WHERE page_id = old.page_id), '')
    WHERE rowid = old.page_id;
END;

CREATE TRIGGER pages_fts_claim_insert AFTER INSERT ON page_claims BEGIN
    UPDATE pages_fts SET claims = COALESCE(
        (SELECT group_concat(claim || ' ' || COALESCE(quote, ''), ' ')
         FROM page_claims WHERE page_id = new.page_id), '')
    WHERE rowid = new.page_id;
END;

CREATE TRIGGER pages_fts_claim_delete AFTER DELETE ON page_claims BEGIN
    UPDATE pages_fts SET claims = COALESCE(
        (SELECT group_concat(claim || ' ' || COALESCE(quote, ''), ' ')
         FROM page_claims WHERE page_id = old.page_id), '')
    WHERE rowid = old.page_id;
END;

ALTER TABLE page_claims ADD COLUMN cited_page TEXT;
