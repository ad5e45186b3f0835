//! Reading a text too large for one call in parts: split into chunks ([`chunk`]), one JSONL
//! extraction call per chunk (`read`, the IO; `extract`, the decisions), notes merged
//! across chunks ([`notes`]).

pub mod chunk;
pub(crate) mod extract;
pub mod notes;
pub(crate) mod read;
