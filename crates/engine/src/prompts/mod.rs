//! The prompts: versioned templates a person may override ([`templates`]) and the text a
//! prompt is built from — the source, the names the wiki knows, feedback on a rejected
//! answer ([`prompt`]).

pub mod prompt;
pub mod templates;

pub use prompt::{build_prompt, build_prompt_with, PromptInput, PROMPT_VERSION};
pub use templates::{PromptSet, PromptTemplate};
