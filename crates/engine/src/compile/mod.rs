//! Compile: prompts, the pure compile step, grounding, and the driver that does the IO.
//!
//! [`prompt`] builds the versioned prompt; [`step`] judges an answer and decides what to do
//! next (accept, retry with feedback, next provider, fail) with no IO; `plan` decides what
//! fits in a model's context and the answer budget of each call; `extract` reads a large
//! source's parts (their answers, retries and the final notes prompt) with no IO either;
//! [`ground`] checks quotes against the source; [`grounds`] says what each call's quotes
//! may be drawn from; [`driver`] (with `parts` for large sources
//! and `live` for progress) calls providers and the store; `report` is what a compile
//! reports; [`attempt`] classifies each call's answer for reports and evals.

mod answer;
pub mod attempt;
pub mod chunk;
pub mod driver;
mod extract;
pub mod ground;
pub mod grounds;
mod live;
pub mod locate;
pub mod names;
pub mod notes;
mod page;
mod page_job;
mod page_report;
mod parts;
mod plan;
pub mod prompt;
mod report;
pub mod settings;
pub mod step;
pub mod templates;
mod usage;

pub use answer::{fit_question, AnswerRun, QUESTION_SHARE};
pub use attempt::{classify, AnswerClass, AttemptRecord};
pub use driver::{
    estimate_tokens, CompileError, CompileReport, Compiler, FailedChunk, LargeSourceReport,
    Progress, ProgressFn, ProviderSlot, Stage,
};
pub use driver::{readable, readable_source};
pub use ground::{ground_claims, ground_claims_in, GroundingIndex};
pub use locate::locate_quote;
pub use page_report::{PageOutcome, PageReport};
pub use prompt::{build_prompt, build_prompt_with, PromptInput, PROMPT_VERSION};
pub use settings::CompileSettings;
pub use step::{judge, judge_in, Accepted, CompileState, Judgement, Rejection, Step};
pub use templates::{PromptSet, PromptTemplate};
pub use usage::Usage;
