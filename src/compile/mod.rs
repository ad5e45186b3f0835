//! Compile: prompts, the pure compile step, grounding, and the driver that does the IO.
//!
//! [`prompt`] builds the versioned prompt; [`step`] judges an answer and decides what to do
//! next (accept, retry with feedback, next provider, fail) with no IO; [`ground`] checks
//! quotes against the source; [`driver`] calls providers and the store and runs the job
//! queue concurrently; [`attempt`] classifies each call's answer for reports and evals.

pub mod attempt;
pub mod driver;
pub mod ground;
pub mod prompt;
pub mod step;

pub use attempt::{classify, AnswerClass, AttemptRecord};
pub use driver::{
    providers_from_settings, CompileError, CompileReport, Compiler, Progress, ProgressFn,
    ProviderSlot, Stage,
};
pub use ground::{ground_claims, GroundingIndex};
pub use prompt::{build_prompt, PromptInput, PROMPT_VERSION};
pub use step::{judge, Accepted, CompileState, Judgement, Step};
