-- Indexes that hold what a pass over every note or digest reads, so the pass reads them
-- alone. A source row holds the note's whole text before its root, aliases, hash and file
-- stamp, and a digest row its whole body before its last change: reading those columns
-- walked every note's text and every digest's body (for a long one, its overflow pages).
--
-- - `sources_notes`: what names each note (the index of notes, read at each launch of a
--   vault's wiki, each compile run and each lint) and what lint's staleness check compares
--   with the file on disk;
-- - `articles_titles`: each digest's title (the index of notes) and last change (lint's
--   pages behind their digests).
CREATE INDEX sources_notes ON sources(
    id, origin, title_hint, root, aliases, content_hash, file_size, file_mtime_ns
) WHERE kind = 'file';
CREATE INDEX articles_titles ON articles(source_id, title, updated_at);
