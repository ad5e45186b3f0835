//! The `llm_judge` evaluator's rubric and prompt, as the engine's judge task has them
//! ([`mod@wikimind::compile::judge`]): the verdict's contract (a type, its schema generated with
//! schemars and checked in as `schemas/judge_verdict.schema.json`), the judge prompt and
//! the reading of an answer. The calls go through the wiki's
//! [`Caller`](wikimind::compile::Caller) like every other ([`super::run`]).
//!
//! One strict-JSON call per case scores the compiled article against its source:
//! `faithfulness` (says only what the source supports) and `coverage` (keeps the source's
//! important points), each an integer from 1 to 5 with a one-line reason.

pub use wikimind::compile::judge::{
    article_text, judge_prompt, read_verdict, verdict_contract, verdict_schema, JudgeVerdict,
    RubricScore, Unusable, MAX_JUDGE_SOURCE_CHARS, MAX_SCORE, MIN_SCORE, VERDICT_SCHEMA_GOLDEN,
};
