//! Answering a question: [`material`] fits the pages read into the prompt, `ask` asks,
//! [`check`] checks every claim's citation.

pub(crate) mod ask;
pub mod check;
pub mod material;

pub use ask::{answer_question, fit_question, AnswerRun, QUESTION_SHARE};
