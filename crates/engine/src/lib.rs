//! WikiMind's engine: every model call, from the prompt to the checked answer.
//!
//! - [`call`]: the one call loop — providers, the budget of each call, retries with
//!   feedback and the next provider ([`call::step`], pure), the call log, progress.
//! - [`tasks`]: what the engine asks models for, over the loop: a source's digest (read in
//!   parts when it is large), a topic page, an answer to a question, the judge.
//! - [`prompts`]: the versioned prompt templates and the text each prompt is built from.
//! - [`ground`]: whether a quote is in a text, where it sits, and what each call may quote.
//! - [`topic`]: the wiki's name indexes, shared by every compiler of one wiki.
//!
//! It sits on the providers, the contracts, the text rules and the store's records, and
//! knows nothing of the app above it (settings files, the job queue, the shells).
#![deny(missing_docs)]

use wikimind_contract as contract;
use wikimind_llm as llm;
use wikimind_store as store;
use wikimind_structured as structured;
use wikimind_text as text;
#[cfg(test)]
use wikimind_text::hostile as hostile_text;

pub mod call;
pub mod ground;
pub mod prompts;
pub mod tasks;
pub mod topic;
