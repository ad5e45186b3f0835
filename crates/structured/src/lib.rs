//! Structured output engine: every model answer becomes valid data or a clear reason.
#![deny(missing_docs)]
