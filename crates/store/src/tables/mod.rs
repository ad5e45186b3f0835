//! One file per table (or per table and the rows that only it owns): its row types and the
//! queries on it. No file here calls another file of `tables/` or anything above it: what
//! spans tables is a transaction of [`crate::tx`] or a read of [`crate::read`], which
//! compose these. `scripts/check-store-layers.py` keeps it so.

pub(crate) mod citations;
pub(crate) mod claims;
pub(crate) mod compilations;
pub(crate) mod digest_names;
pub(crate) mod graph;
pub(crate) mod page_sentences;
pub(crate) mod pages;
pub(crate) mod source_pages;
pub(crate) mod sources;
pub(crate) mod watch;
