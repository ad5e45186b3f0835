-- WikiMind schema, version 22: the graph view's layout, stored.
-- Append-only: never edit this file once released.
--
-- The graph of the wiki (pages and wanted pages as nodes, resolved links as edges) is laid
-- out in the core and its positions and communities kept here, so the window only draws and
-- the same database always shows the same picture. A node is named by `node`: `p` and a
-- page id, or `w` and the key of a wanted page's name. `links_hash` is a hash of the node's
-- neighbours when it was laid out: a node whose links changed since is moved a little by
-- the next incremental layout, the others stay where they are.
CREATE TABLE graph_nodes (
    node       TEXT PRIMARY KEY,
    x          REAL NOT NULL,
    y          REAL NOT NULL,
    community  INTEGER NOT NULL,
    links_hash INTEGER NOT NULL
) WITHOUT ROWID;

-- One row. `changes` counts every change of pages, links and former titles (the triggers
-- below); the stored layout is of the wiki as it was at `laid_out` changes (NULL: never laid
-- out), so a layout is due when the two differ. A running layout is leased to its process
-- as a job is (migration 2): `owner_host`, `owner_pid`, `heartbeat_at`.
CREATE TABLE graph_state (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    changes      INTEGER NOT NULL DEFAULT 0,
    laid_out     INTEGER,
    laid_out_at  TEXT,
    nodes        INTEGER NOT NULL DEFAULT 0,
    edges        INTEGER NOT NULL DEFAULT 0,
    took_ms      INTEGER NOT NULL DEFAULT 0,
    owner_host   TEXT,
    owner_pid    INTEGER,
    heartbeat_at TEXT,
    started_at   TEXT
);
INSERT INTO graph_state (id) VALUES (1);

CREATE TRIGGER graph_page_added AFTER INSERT ON pages BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_page_removed AFTER DELETE ON pages BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_page_renamed AFTER UPDATE OF title_key, kind ON pages BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_link_added AFTER INSERT ON page_links BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_link_removed AFTER DELETE ON page_links BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_link_retargeted AFTER UPDATE OF target_key, page_id ON page_links BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_alias_added AFTER INSERT ON aliases WHEN new.former = 1 BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
CREATE TRIGGER graph_alias_removed AFTER DELETE ON aliases WHEN old.former = 1 BEGIN
    UPDATE graph_state SET changes = changes + 1 WHERE id = 1;
END;
