//! Ingest: files, folders, URLs and stdin become sources with readable text.
