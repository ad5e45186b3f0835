-- WikiMind schema, version 27: what changed in the graph since its layout, so an update
-- reads the links of the changed nodes only.
-- Append-only: never edit this file once released.
--
-- Every change the triggers of migration 22 count also writes, here, the page it touched and
-- the names (keys) whose meaning it may have changed: a link added or removed names its page
-- and its target's key; a page added, removed or renamed names itself and its keys, old and
-- new; a former title added or removed names its page and its key. The nodes of the graph
-- whose links may differ are then those pages, the pages and wanted pages those keys name,
-- and the pages linking to those keys. `id` orders the rows: a layout handles the rows up
-- to the last it read and deletes those, so a change made while it runs waits for the next.
CREATE TABLE graph_changes (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    page_id INTEGER,
    key     TEXT
);

-- How many links each stored node had when it was laid out (its mass in the layout and its
-- weight in the communities); NULL for nodes laid out before this migration.
ALTER TABLE graph_nodes ADD COLUMN degree INTEGER;

-- The changes count from which `graph_changes` holds every change: a stored layout of an
-- earlier count (made before this migration, and not current then) is brought up to date
-- from every link once, not from the rows here.
ALTER TABLE graph_state ADD COLUMN tracked_from INTEGER NOT NULL DEFAULT 0;
UPDATE graph_state SET tracked_from = changes WHERE id = 1;

CREATE TRIGGER graph_changes_page_added AFTER INSERT ON pages BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (new.id, new.title_key);
END;
CREATE TRIGGER graph_changes_page_removed AFTER DELETE ON pages BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (old.id, old.title_key);
END;
CREATE TRIGGER graph_changes_page_renamed AFTER UPDATE OF title_key, kind ON pages BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (old.id, old.title_key);
    INSERT INTO graph_changes (page_id, key) VALUES (new.id, new.title_key);
END;
CREATE TRIGGER graph_changes_link_added AFTER INSERT ON page_links BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (new.page_id, new.target_key);
END;
CREATE TRIGGER graph_changes_link_removed AFTER DELETE ON page_links BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (old.page_id, old.target_key);
END;
CREATE TRIGGER graph_changes_link_retargeted AFTER UPDATE OF target_key, page_id ON page_links BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (old.page_id, old.target_key);
    INSERT INTO graph_changes (page_id, key) VALUES (new.page_id, new.target_key);
END;
CREATE TRIGGER graph_changes_alias_added AFTER INSERT ON aliases WHEN new.former = 1 BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (new.page_id, new.name_key);
END;
CREATE TRIGGER graph_changes_alias_removed AFTER DELETE ON aliases WHEN old.former = 1 BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (old.page_id, old.name_key);
END;
CREATE TRIGGER graph_changes_alias_changed AFTER UPDATE OF former, name_key, page_id ON aliases
WHEN old.former = 1 OR new.former = 1 BEGIN
    INSERT INTO graph_changes (page_id, key) VALUES (old.page_id, old.name_key);
    INSERT INTO graph_changes (page_id, key) VALUES (new.page_id, new.name_key);
END;
