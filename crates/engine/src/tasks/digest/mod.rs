//! A source's digest: one call over the whole source, or over the notes of reading it in
//! [`super::parts`]; what the compile reports (`report`).

pub(crate) mod report;

pub use report::{CompileReport, FailedChunk, LargeSourceReport};
