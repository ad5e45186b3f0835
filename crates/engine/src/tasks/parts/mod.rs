//! Reading a text too large for one call in parts: split into chunks ([`chunk`]), one JSONL
//! extraction call per chunk over the [`Caller`](crate::call::Caller) (`read`, the IO;
//! `extract`, the decisions), notes merged across chunks ([`notes`]); what the reading
//! reports (`report`). A digest and a page both read in parts.

pub mod chunk;
pub(crate) mod extract;
pub mod notes;
pub(crate) mod read;
pub(crate) mod report;

pub use report::{FailedChunk, LargeSourceReport};
