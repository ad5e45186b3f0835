-- WikiMind schema, version 10: a counter of changes to the wiki's names.
-- Append-only: never edit this file once released.
--
-- Every compile and page prompt lists the titles, aliases and concepts that matter for its
-- text, chosen by a matcher over every name in the wiki. Building that matcher costs time
-- that grows with the wiki, so a process keeps it and rebuilds it only when a name changed:
-- `names_generation.n` goes up with every page, alias or concept made, renamed or removed,
-- by whichever process (triggers, so no writer can forget it). How often names are linked or
-- used only ranks the extra names a prompt lists; it does not move the counter.

CREATE TABLE names_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO names_generation (id, n) VALUES (1, 0);

CREATE TRIGGER names_page_insert AFTER INSERT ON pages BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_page_delete AFTER DELETE ON pages BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_page_title AFTER UPDATE OF title ON pages
WHEN old.title IS NOT new.title BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_alias_insert AFTER INSERT ON aliases BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_alias_delete AFTER DELETE ON aliases BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_alias_update AFTER UPDATE ON aliases BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_concept_insert AFTER INSERT ON concepts BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_concept_delete AFTER DELETE ON concepts BEGIN
    UPDATE names_generation SET n = n + 1;
END;
CREATE TRIGGER names_concept_name AFTER UPDATE OF name ON concepts
WHEN old.name IS NOT new.name BEGIN
    UPDATE names_generation SET n = n + 1;
END;
