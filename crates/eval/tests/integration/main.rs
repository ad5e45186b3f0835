//! The eval harness end to end, through a local server speaking the Ollama protocol: article
//! datasets compiled and scored, question datasets asked of a wiki and of its raw sources.

mod eval;
mod questions;
