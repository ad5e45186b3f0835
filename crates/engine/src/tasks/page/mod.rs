//! Writing a topic page from the digests that feed it: `plan` decides (room, batches,
//! prompt, the rewrite guard), `write` does the calls, `report` is what it reports.

pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod write;

pub use report::{PageOutcome, PageReport};
