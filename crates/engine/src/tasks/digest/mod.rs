//! A source's digest: one call over the whole source, or over the notes of reading it in
//! [`super::parts`] ([`mod@write`]); what the compile reports (`report`).

pub(crate) mod report;
pub mod write;

pub use report::CompileReport;
pub use write::{note_title, write_digest, Digest, DigestInput, FailedDigest, WrittenDigest};
