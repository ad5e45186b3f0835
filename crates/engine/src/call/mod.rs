//! The one call loop: the [`Caller`] asks the providers for one answer — the budget of each
//! call (`budget`, pure), the judging of the answer and the decision to accept it, retry
//! with feedback or move to the next provider ([`step`], pure) — and logs every call
//! ([`log`], [`attempt`], `usage`) and its progress (`live`). It holds no store.

pub mod attempt;
pub(crate) mod budget;
pub mod caller;
pub(crate) mod live;
pub mod log;
pub mod settings;
pub mod step;
pub(crate) mod usage;

pub use attempt::{classify, AnswerClass, AttemptRecord};
pub use budget::estimate_tokens;
pub use caller::{CallError, Caller, ProviderSlot};
pub use live::{Live, Progress, ProgressFn, Stage};
pub use log::{CallLog, LastCall};
pub use settings::CompileSettings;
pub use step::{CompileState, Judgement, Rejection, Step};
pub use usage::Usage;
