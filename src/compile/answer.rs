//! Answering a question, the IO half: fits the blocks found (wiki pages, or passages of raw
//! sources) into the model's context, asks for a
//! [`QuestionAnswer`](crate::contract::QuestionAnswer) with the `ask` template and the same
//! engine, retries and fallbacks as a compile, and checks each claim's citation with the
//! grounding function the caller gives (the page a claim cites, or the source). The
//! decisions are [`crate::ask`]'s.

use crate::ask::check::{judge_answer, CheckedAnswer, GroundsFn};
use crate::ask::material::{fit_blocks, Block};
use crate::llm::CancellationToken;

use super::attempt::AttemptRecord;
use super::driver::{Answer, Asking, CallLog, CompileError, Compiler};
use super::live::ProgressFn;
use super::plan::Limits;
use super::report::LastCall;
use super::templates::ASK;

/// How answering went: the answer (or why there is none), what was read and what it
/// cost.
#[derive(Debug)]
pub struct AnswerRun {
    /// The answer with its citations checked, or why no answer could be made valid.
    pub answer: Result<CheckedAnswer, String>,
    /// The blocks sent to the model, in order, by their index in the blocks given.
    pub read: Vec<usize>,
    /// The blocks sent only in part, by index.
    pub cut: Vec<usize>,
    /// Calls made.
    pub calls: u32,
    /// Prompt tokens the servers reported.
    pub tokens_in: u64,
    /// Answer tokens the servers reported.
    pub tokens_out: u64,
    /// Every call, in order: how its answer fared, its tokens and time.
    pub attempts: Vec<AttemptRecord>,
    /// The provider and model that answered last (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The model as the server named it.
    pub model: String,
    /// The prompt template's version.
    pub prompt_version: String,
    /// Notes for people: retries, claims marked inferred.
    pub warnings: Vec<String>,
}

impl Compiler {
    /// Answers `question` from `blocks` (best first): as many as fit beside a full answer
    /// are sent; every claim of the answer is checked with `grounds` (the cited name and
    /// the quote in, where the quote was found out), whether or not what it cites was sent.
    pub async fn answer_question(
        &self,
        question: &str,
        blocks: &[Block],
        grounds: &GroundsFn<'_>,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<AnswerRun, CompileError> {
        let template = self.prompts.get(ASK);
        let limits = Limits {
            context: self.context_tokens(0).await,
            max_tokens: u64::from(self.settings.max_tokens),
        };
        let fixed = template.render(&[("question", question), ("pages", "")]);
        let room = limits.notes_room(fixed.system.len() + fixed.user.len());
        let fitted = fit_blocks(blocks, room);
        let prompt = template.render(&[("question", question), ("pages", &fitted.text)]);
        let schema = template.schema();
        let judge = |raw: &str, cut_off: bool| judge_answer(raw, cut_off, &schema, grounds);
        let asking = Asking {
            target: None,
            events,
            cancel,
            prompt: &prompt,
            schema: &schema,
            judge: &judge,
            shows: Some("answer"),
        };
        let mut log = CallLog::default();
        let mut last = LastCall::default();
        let answer = self
            .ask_until_done(&asking, limits, &mut log, &mut last)
            .await?;
        let mut warnings = log.warnings;
        let answer = match answer {
            Answer::Accepted(accepted) => {
                warnings.extend(accepted.warnings.iter().cloned());
                Ok(*accepted)
            }
            Answer::GaveUp { reason, .. } => Err(reason),
        };
        Ok(AnswerRun {
            answer,
            read: fitted.read,
            cut: fitted.cut,
            calls: log.calls,
            tokens_in: log.tokens_in,
            tokens_out: log.tokens_out,
            attempts: log.attempts,
            provider: last.provider.clone(),
            model: last.model.clone(),
            prompt_version: template.version.clone(),
            warnings,
        })
    }
}
