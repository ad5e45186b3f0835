//! Answering a question over a [`Caller`]: fits the blocks found (wiki pages, or passages of
//! raw sources) into the model's context, asks for a
//! [`QuestionAnswer`](crate::contract::QuestionAnswer) with the `ask` template and the same
//! loop, retries and fallbacks as a digest, and checks each claim's citation with the
//! grounding function the caller gives (the page a claim cites, or the source). The
//! decisions are [`crate::tasks::answer`]'s.

use crate::llm::CancellationToken;
use crate::tasks::answer::check::{judge_answer, CheckedAnswer, GroundsFn};
use crate::tasks::answer::material::{fit_blocks, Block};

use crate::call::attempt::AttemptRecord;
use crate::call::budget::chars_for;
use crate::call::caller::{Answer, Asking};
use crate::call::log::CallLog;
use crate::call::{CallError, Caller, ProgressFn};
use crate::prompts::templates::{PromptSet, ASK};

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
    /// Calls made and the tokens the servers reported.
    pub usage: crate::call::usage::Usage,
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

/// A question takes at most one part in this many of the model's context: the pages it is
/// answered from and the answer need the rest.
pub const QUESTION_SHARE: u64 = 4;

/// `question` as it is sent to a model of `context` tokens: whole when it fills at most
/// [`QUESTION_SHARE`] of the context, else its start (cut at a space when there is one
/// near the end), with the warning that says so.
pub fn fit_question(question: &str, context: u64) -> (&str, Option<String>) {
    let room = chars_for(context / QUESTION_SHARE).max(1);
    if question.len() <= room {
        return (question, None);
    }
    let mut end = room;
    while !question.is_char_boundary(end) {
        end -= 1;
    }
    // A cut between words, unless that loses more than a tenth.
    if let Some(space) = question[..end].rfind(char::is_whitespace) {
        if space >= end - end / 10 {
            end = space;
        }
    }
    let sent = question[..end].trim_end();
    let warning = format!(
        "the question was cut to its first {} characters of {}: a question may fill at most \
         a quarter of the model's context ({context} tokens) — ask a shorter question",
        sent.chars().count(),
        question.chars().count()
    );
    (sent, Some(warning))
}

/// Answers `question` from `blocks` (best first) with `caller` and the `ask` template of
/// `prompts`: a question longer than its share of the context is cut ([`fit_question`],
/// with a warning); as many blocks as fit beside a full answer are sent; every claim of the
/// answer is checked with `grounds` (the cited name and the quote in, where the quote was
/// found out), whether or not what it cites was sent.
pub async fn answer_question(
    caller: &Caller,
    prompts: &PromptSet,
    question: &str,
    blocks: &[Block],
    grounds_fn: &GroundsFn<'_>,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<AnswerRun, CallError> {
    let template = prompts.get(ASK);
    let limits = caller.limits().await;
    let (question, question_cut) = fit_question(question, limits.context);
    let fixed = template.render(&[("question", question), ("pages", "")]);
    let room = limits.notes_room(fixed.system.len() + fixed.user.len());
    let fitted = fit_blocks(blocks, room);
    let prompt = template.render(&[("question", question), ("pages", &fitted.text)]);
    let schema = template.schema();
    let read: Vec<(String, String)> = fitted
        .read
        .iter()
        .filter_map(|&i| blocks.get(i))
        .map(|b| (b.title.clone(), b.quotable.clone()))
        .collect();
    let grounds = crate::ground::grounds::answer_grounds(&read);
    let judge = |raw: &str, cut_off: bool| judge_answer(raw, cut_off, &schema, grounds_fn);
    let asking = Asking {
        target: None,
        events,
        cancel,
        prompt: &prompt,
        schema: &schema,
        judge: &judge,
        shows: Some("answer"),
        grounds: Some(&grounds),
    };
    let mut log = CallLog::default();
    let answer = caller.ask_until_done(&asking, limits, &mut log).await?;
    let mut warnings: Vec<String> = question_cut.into_iter().collect();
    warnings.extend(log.warnings);
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
        usage: log.usage,
        attempts: log.attempts,
        provider: log.last.provider.clone(),
        model: log.last.model.clone(),
        prompt_version: template.version.clone(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_fills_at_most_a_quarter_of_the_context() {
        // 8,192 tokens: a quarter is 2,048 tokens, about 6,144 characters.
        let short = "How much pressure does espresso need?";
        assert_eq!(fit_question(short, 8_192), (short, None));
        let long = "word ".repeat(200_000);
        let (sent, warning) = fit_question(&long, 8_192);
        assert!(sent.len() <= 6_144 && sent.len() > 5_000, "{}", sent.len());
        assert!(sent.ends_with("word"), "cut between words");
        let warning = warning.unwrap();
        assert!(warning.contains("cut to its first"), "{warning}");
        assert!(warning.contains("of 1000000"), "{warning}");
        // No space to cut at, and letters of several bytes: still a char boundary.
        let dense = "é".repeat(100_000);
        let (sent, _) = fit_question(&dense, 1_000);
        assert!(sent.len() <= 750 && sent.chars().all(|c| c == 'é'));
    }
}
