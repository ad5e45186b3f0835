//! The one call loop: asks the providers for one answer — the budget of each call
//! (`budget`, pure), the judging of the answer and the decision to accept it, retry with
//! feedback or move to the next provider ([`step`], pure) — and logs every call
//! ([`attempt`], `usage`) and its progress (`live`). [`caller`] does the IO.

pub mod attempt;
pub(crate) mod budget;
pub mod caller;
pub(crate) mod live;
pub mod settings;
pub mod step;
pub(crate) mod usage;

pub use attempt::{classify, AnswerClass, AttemptRecord};
pub use budget::estimate_tokens;
pub use caller::{CompileError, Compiler, ProviderSlot};
pub use live::{Progress, ProgressFn, Stage};
pub use settings::CompileSettings;
pub use step::{judge, judge_in, Accepted, CompileState, Judgement, Rejection, Step};
pub use usage::Usage;
