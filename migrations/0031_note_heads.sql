-- What the index of notes reads of every note, each launch of a large vault's wiki and each
-- lint: its id, origin, title hint, root and aliases (`sources_notes`), and its digest's
-- title (`articles_titles`), from indexes alone. The table rows hold each note's whole text
-- before its root and aliases, so reading them walked every note's text (and, for a long
-- note, its overflow pages); and each digest's title was read from a row holding its body.
CREATE INDEX sources_notes ON sources(id, origin, title_hint, root, aliases)
    WHERE kind = 'file';
CREATE INDEX articles_titles ON articles(source_id, title);
