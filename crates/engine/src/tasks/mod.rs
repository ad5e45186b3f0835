//! The tasks over the call loop, each a function of a [`Caller`](crate::call::Caller) and
//! plain inputs that hands back what the store is to keep: a source's digest ([`digest`],
//! read in [`parts`] when it is large), a topic page ([`page`]), an answer to a question
//! ([`answer`]), the judge's scores of an article ([`mod@judge`]). An answer in the compilation
//! contract is judged by [`article`]; every digest and page keeps the name rules
//! ([`names`]).

pub mod answer;
pub mod article;
pub mod digest;
pub mod judge;
pub mod names;
pub mod page;
pub mod parts;

pub use answer::{answer_question, fit_question, AnswerRun, QUESTION_SHARE};
pub use article::Accepted;
pub use digest::{CompileReport, Digest, DigestInput};
pub use page::{PageOutcome, PageReport, PageWrite};
pub use parts::{FailedChunk, LargeSourceReport};
