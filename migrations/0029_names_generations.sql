-- WikiMind schema, version 29: the names generation counted apart for titles and concepts.
-- Append-only: never edit this file once released.
--
-- A compile prompt keeps two name indexes, one over the wiki's titles and aliases and one
-- over its concepts, and read both again whenever `names_generation.n` moved. Nearly every
-- compile brings a new concept, so the titles, which a compile rarely changes, were read
-- again for every note: at 10,000 pages that read was a seventh of a compile's time in
-- WikiMind. `titles` now moves with every page title and alias made, renamed or removed,
-- `concepts` with every concept; `n` moves with both, as before.

ALTER TABLE names_generation ADD COLUMN titles INTEGER NOT NULL DEFAULT 0;
ALTER TABLE names_generation ADD COLUMN concepts INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER names_page_insert;
DROP TRIGGER names_page_delete;
DROP TRIGGER names_page_title;
DROP TRIGGER names_alias_insert;
DROP TRIGGER names_alias_delete;
DROP TRIGGER names_alias_update;
DROP TRIGGER names_concept_insert;
DROP TRIGGER names_concept_delete;
DROP TRIGGER names_concept_name;

CREATE TRIGGER names_page_insert AFTER INSERT ON pages BEGIN
    UPDATE names_generation SET n = n + 1, titles = titles + 1;
END;
CREATE TRIGGER names_page_delete AFTER DELETE ON pages BEGIN
    UPDATE names_generation SET n = n + 1, titles = titles + 1;
END;
CREATE TRIGGER names_page_title AFTER UPDATE OF title ON pages
WHEN old.title IS NOT new.title BEGIN
    UPDATE names_generation SET n = n + 1, titles = titles + 1;
END;
CREATE TRIGGER names_alias_insert AFTER INSERT ON aliases BEGIN
    UPDATE names_generation SET n = n + 1, titles = titles + 1;
END;
CREATE TRIGGER names_alias_delete AFTER DELETE ON aliases BEGIN
    UPDATE names_generation SET n = n + 1, titles = titles + 1;
END;
CREATE TRIGGER names_alias_update AFTER UPDATE ON aliases BEGIN
    UPDATE names_generation SET n = n + 1, titles = titles + 1;
END;
CREATE TRIGGER names_concept_insert AFTER INSERT ON concepts BEGIN
    UPDATE names_generation SET n = n + 1, concepts = concepts + 1;
END;
CREATE TRIGGER names_concept_delete AFTER DELETE ON concepts BEGIN
    UPDATE names_generation SET n = n + 1, concepts = concepts + 1;
END;
CREATE TRIGGER names_concept_name AFTER UPDATE OF name ON concepts
WHEN old.name IS NOT new.name BEGIN
    UPDATE names_generation SET n = n + 1, concepts = concepts + 1;
END;
