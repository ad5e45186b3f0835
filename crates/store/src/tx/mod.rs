//! The cross-table transactions: saving a digest and feeding the pages it names, removing a
//! source, writing a page (a model's version, a person's edit, a restore, a merge), saving
//! an answer, the job queue (which moves a source's status with its job), the writes of
//! `lint`, and the bulk seed the benches and tests write a whole wiki with. Each is one
//! `Store::write`, so a crash leaves all of it or none; they compose [`crate::tables`] and
//! [`crate::read`] and apply the pure page policy ([`crate::policy`]). The files here form
//! no circle (`scripts/check-store-layers.py`).

pub(crate) mod answer;
pub(crate) mod bulk;
pub(crate) mod cite;
pub(crate) mod digest;
pub(crate) mod feed;
pub(crate) mod identity;
pub(crate) mod ingest;
pub(crate) mod jobs;
pub(crate) mod lint;
pub(crate) mod lint_links;
pub(crate) mod merge;
pub(crate) mod page_write;
pub(crate) mod remove_source;
pub(crate) mod versions;
pub(crate) mod writing;
