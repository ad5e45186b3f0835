//! WikiMind's engine: every model call, from the prompt to the checked answer.
//!
//! - [`compile`]: the versioned prompts and their contracts ([`compile::templates`]), the
//!   one call loop and its pure step ([`compile::step`]: judge, retry with feedback, next
//!   provider), the budget of each call, grounding ([`compile::ground`]), and the tasks
//!   over them: a source's digest (read in parts when it is large), a topic page, an
//!   answer, the judge. The [`compile::Compiler`] does the IO those decide: providers and
//!   the store.
//! - [`ask`]: how an answer's claims are checked against the pages it read, and how the
//!   pages read are fitted into its prompt.
//! - [`topic`]: the wiki's name indexes, shared by every compiler of one wiki.
//!
//! It sits on the store, the providers, the contracts and the text rules, and knows
//! nothing of the app above it (settings files, the job queue, the shells).
#![deny(missing_docs)]

use wikimind_contract as contract;
use wikimind_llm as llm;
use wikimind_store as store;
use wikimind_structured as structured;
use wikimind_text as text;
#[cfg(test)]
use wikimind_text::hostile as hostile_text;

pub mod compile;
pub mod topic;

/// Checking an answer against the pages it read, and fitting those pages into its prompt.
pub mod ask {
    pub mod check;
    pub mod material;
}
