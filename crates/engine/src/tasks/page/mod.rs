//! Writing a topic page from the digests that feed it: `plan` decides (room, batches,
//! prompt, the rewrite guard), [`mod@write`] does the calls over the
//! [`Caller`](crate::call::Caller), `report` is what it reports.

pub(crate) mod plan;
pub(crate) mod report;
pub mod write;

pub use plan::adds_nothing;
pub use report::{PageOutcome, PageReport};
pub use write::{write_page, PageFailure, PageSave, PageWrite};
