//! The tasks over the call loop: a source's digest ([`digest`], read in [`parts`] when it is
//! large), a topic page ([`page`]), an answer to a question ([`answer`]); the name rules
//! every digest and page keeps ([`names`]).

pub mod answer;
pub mod digest;
pub mod names;
pub mod page;
pub mod parts;

pub use answer::{fit_question, AnswerRun, QUESTION_SHARE};
pub use digest::{CompileReport, FailedChunk, LargeSourceReport};
pub use page::{PageOutcome, PageReport};
