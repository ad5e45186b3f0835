//! The judge: scores a compiled article against its source with the `judge` template and
//! the rubric's contract ([`verdict_contract`], a type whose schema is generated with
//! schemars and checked in as `schemas/judge_verdict.schema.json`) — one strict-JSON call,
//! asked over the [`Caller`] like every other (retries with feedback after an unusable
//! answer, the call log, usage).
//!
//! `faithfulness` (says only what the source supports) and `coverage` (keeps the source's
//! important points), each an integer from 1 to 5 with a one-line reason. A score outside
//! 1 to 5 is refused, never bent into range.

use std::sync::Mutex;

use serde_json::Value;

use crate::call::attempt::AttemptRecord;
use crate::call::caller::{Answer, Asking};
use crate::call::log::CallLog;
use crate::call::step::{Judged, Judgement, Rejection};
use crate::call::{CallError, Caller, Usage};
use crate::llm::CancellationToken;
use crate::prompts::templates::{Prompt, PromptSet, PromptTemplate, JUDGE};
use crate::store::ArticleDetail;
use crate::structured::{self, Mode, Repair, RepairKind, Schema};

/// The lowest score of the rubric.
pub const MIN_SCORE: u8 = 1;
/// The highest score of the rubric.
pub const MAX_SCORE: u8 = 5;

/// The most characters of source a judge prompt holds; a longer source is cut there (and
/// the result says so).
pub const MAX_JUDGE_SOURCE_CHARS: usize = 60_000;

pub use crate::contract::judge::{
    verdict_contract, verdict_schema, JudgeVerdict, RubricScore, VERDICT_SCHEMA_GOLDEN,
};

/// The judge prompt for one article: `template` (the `judge` template) filled with the
/// source (cut at [`MAX_JUDGE_SOURCE_CHARS`]) and the article as the judge reads it
/// ([`article_text`]). Returns the prompt and whether the source was cut.
pub fn judge_prompt(
    template: &PromptTemplate,
    source_title: Option<&str>,
    source_text: &str,
    article: &ArticleDetail,
) -> (Prompt, bool) {
    let source = source_text.trim_end();
    let (shown, cut) = match source.char_indices().nth(MAX_JUDGE_SOURCE_CHARS) {
        Some((at, _)) => (
            format!(
                "{}\n[… the rest of the source, {} more characters, is not shown]",
                &source[..at],
                source[at..].chars().count()
            ),
            true,
        ),
        None => (source.to_string(), false),
    };
    let prompt = template.render(&[
        ("source_title", source_title.unwrap_or("(untitled)")),
        ("source", &shown),
        ("article", &article_text(article)),
    ]);
    (prompt, cut)
}

/// The article as the judge reads it: title, summary, key claims (each with its label and
/// quote), concepts and body.
pub fn article_text(article: &ArticleDetail) -> String {
    let mut out = format!(
        "Title: {}\nSummary: {}\nKey claims:\n",
        article.title.trim(),
        article.summary.trim()
    );
    if article.claims.is_empty() {
        out.push_str("(none)\n");
    }
    for c in &article.claims {
        out.push_str(&format!("- [{}] {}", c.confidence.as_str(), c.claim.trim()));
        if let Some(q) = c.quote.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            out.push_str(&format!(" — quote: \"{q}\""));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "Concepts: {}\nBody:\n{}",
        if article.concepts.is_empty() {
            "(none)".to_string()
        } else {
            article.concepts.join(", ")
        },
        article.body.trim()
    ));
    out
}

/// A judge answer that cannot be used: one line per problem, for the person and for the
/// retry's feedback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unusable {
    /// One line per problem.
    pub problems: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
    /// Why, as the category every refused answer is recorded with.
    pub why: Rejection,
    /// The repairs tried before it was refused.
    pub repairs: Vec<Repair>,
}

/// A judge answer that could be used: the verdict, and what it took to read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The scores.
    pub verdict: JudgeVerdict,
    /// Repairs and coercions applied to the answer.
    pub repairs: Vec<Repair>,
    /// Whether the answer was cut off.
    pub truncated: bool,
}

impl Judged for Verdict {
    fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    fn truncated(&self) -> bool {
        self.truncated
    }

    fn grounding(&self) -> (u32, u32) {
        (0, 0)
    }
}

/// Reads a judge answer: lenient extraction, repair and validation against `schema` (the
/// structured engine, as every model answer), then the rubric's own rules. A score outside
/// 1 to 5 is refused, never bent into range: the engine's coercion would clamp it, so a
/// clamped score is refused with the value the model wrote. A reason is made one line; an
/// empty one is refused.
pub fn read_verdict(raw: &str, cut_off: bool, schema: &Schema) -> Result<JudgeVerdict, Unusable> {
    read_scored(raw, cut_off, schema).map(|v| v.verdict)
}

/// [`read_verdict`], with what it took to read the answer.
pub fn read_scored(raw: &str, cut_off: bool, schema: &Schema) -> Result<Verdict, Unusable> {
    let outcome = structured::parse_json(raw, schema, Mode::Lenient).map_err(|e| Unusable {
        problems: e.lines(),
        truncated: e.truncated || cut_off,
        why: Rejection::of(&e.reason),
        repairs: e.repairs.clone(),
    })?;
    let truncated = outcome.truncated || cut_off;
    let repairs = outcome.repairs.clone();
    let refuse = |problems: Vec<String>, why: Rejection| Unusable {
        problems,
        truncated,
        why,
        repairs: repairs.clone(),
    };
    let clamped: Vec<&str> = outcome
        .repairs
        .iter()
        .filter(|r| r.kind == RepairKind::ClampedNumber)
        .map(|r| r.path.as_str())
        .collect();
    if !clamped.is_empty() {
        // What the model wrote, before coercion.
        let written = structured::parse_json(raw, &Schema::any(), Mode::Lenient)
            .map(|o| o.value)
            .unwrap_or(Value::Null);
        return Err(refuse(
            clamped
                .iter()
                .map(|path| {
                    let value = written
                        .pointer(path)
                        .map_or_else(|| "the value".to_string(), Value::to_string);
                    out_of_range(path, &value)
                })
                .collect(),
            Rejection::Schema,
        ));
    }
    let mut verdict: JudgeVerdict = serde_json::from_value(outcome.value).map_err(|e| {
        refuse(
            vec![format!("the answer does not fit the rubric: {e}")],
            Rejection::Contract,
        )
    })?;
    let mut problems = Vec::new();
    for (name, s) in [
        ("faithfulness", &mut verdict.faithfulness),
        ("coverage", &mut verdict.coverage),
    ] {
        if !(MIN_SCORE..=MAX_SCORE).contains(&s.score) {
            problems.push(out_of_range(
                &format!("/{name}/score"),
                &s.score.to_string(),
            ));
        }
        s.reason = s.reason.split_whitespace().collect::<Vec<_>>().join(" ");
        if s.reason.is_empty() {
            problems.push(format!(
                "/{name}/reason: the reason is empty — say in one line what decided the score"
            ));
        }
    }
    if problems.is_empty() {
        Ok(Verdict {
            verdict,
            repairs,
            truncated,
        })
    } else {
        Err(refuse(problems, Rejection::Schema))
    }
}

fn out_of_range(path: &str, value: &str) -> String {
    format!(
        "{path}: {value} is out of range — a score is an integer from {MIN_SCORE} to {MAX_SCORE}"
    )
}

/// How judging one article went: the verdict (or why there is none), what was rejected on
/// the way and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRun {
    /// The scores, or why the judge gave none (`the judge's answer could not be used after
    /// 2 attempt(s): …`, `the judge did not answer: …`).
    pub verdict: Result<JudgeVerdict, String>,
    /// Every refused answer, one line each (`attempt 1: …`).
    pub rejected: Vec<String>,
    /// Whether the source was cut to fit the prompt.
    pub source_cut: bool,
    /// Calls made and the tokens the servers reported.
    pub usage: Usage,
    /// Every call, in order.
    pub attempts: Vec<AttemptRecord>,
    /// The judge template's version (`judge-v1`).
    pub prompt_version: String,
}

/// Asks `caller` to score `article` against its source with the `judge` template of
/// `prompts`: an unusable answer is asked again with its problems (as many times as the
/// caller's retries allow); a provider that fails is not (its client retries transport
/// errors).
pub async fn judge_article(
    caller: &Caller,
    prompts: &PromptSet,
    source_title: Option<&str>,
    source_text: &str,
    article: &ArticleDetail,
    cancel: &CancellationToken,
) -> Result<JudgeRun, CallError> {
    let template = prompts.get(JUDGE);
    let schema = template.schema();
    let (prompt, source_cut) = judge_prompt(template, source_title, source_text, article);
    // The judge's own account of refused answers: all their problems, by attempt.
    let refused: Mutex<Vec<Vec<String>>> = Mutex::new(Vec::new());
    let judge = |raw: &str, cut_off: bool| match read_scored(raw, cut_off, &schema) {
        Ok(verdict) => Judgement::Accept(Box::new(verdict)),
        Err(unusable) => {
            refused
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(unusable.problems.clone());
            Judgement::Reject {
                why: unusable.why,
                problems: unusable.problems,
                repairs: unusable.repairs,
                truncated: unusable.truncated,
            }
        }
    };
    let asking = Asking {
        target: None,
        events: &|_| {},
        cancel,
        prompt: &prompt,
        schema: &schema,
        judge: &judge,
        shows: None,
        grounds: None,
    };
    let mut log = CallLog::default();
    let limits = caller.limits().await;
    let answer = caller.ask_until_done(&asking, limits, &mut log).await?;
    let refused = refused.into_inner().unwrap_or_else(|p| p.into_inner());
    let rejected = refused
        .iter()
        .enumerate()
        .map(|(i, problems)| format!("attempt {}: {}", i + 1, problems.join("; ")))
        .collect();
    let verdict = match answer {
        Answer::Accepted(v) => Ok(v.verdict),
        Answer::GaveUp {
            rejection: Some(_), ..
        } => Err(format!(
            "the judge's answer could not be used after {} attempt(s): {}",
            refused.len(),
            refused.last().map(|p| p.join("; ")).unwrap_or_default()
        )),
        Answer::GaveUp { reason, .. } => {
            let error = log
                .attempts
                .last()
                .and_then(|a| a.problem.clone())
                .unwrap_or(reason);
            Err(format!("the judge did not answer: {error}"))
        }
    };
    Ok(JudgeRun {
        verdict,
        rejected,
        source_cut,
        usage: log.usage,
        attempts: log.attempts,
        prompt_version: template.version.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{CheckedClaim, Confidence};
    use crate::store::ArticleId;

    fn verdict_json(faithfulness: i64, coverage: i64) -> String {
        serde_json::json!({
            "faithfulness": {"score": faithfulness, "reason": "Every claim is in the source."},
            "coverage": {"score": coverage, "reason": "The main steps are kept."}
        })
        .to_string()
    }

    fn article() -> ArticleDetail {
        ArticleDetail {
            id: ArticleId(1),
            title: "Green tea".into(),
            summary: "How to steep green tea.".into(),
            body: "Steep it at 80 degrees.".into(),
            truncated: false,
            created_at: String::new(),
            updated_at: String::new(),
            claims: vec![CheckedClaim {
                claim: "Green tea is steeped at 80 degrees".into(),
                confidence: Confidence::Sourced,
                quote: Some("Steep it at 80 degrees.".into()),
                grounded: true,
            }],
            concepts: vec!["green tea".into()],
            open_questions: vec![],
            links: vec![],
            backlinks: vec![],
            sources: vec![],
        }
    }

    #[test]
    fn a_clean_verdict_is_read_and_its_reasons_made_one_line() {
        let raw = "```json\n{\"faithfulness\": {\"score\": 4, \"reason\": \"One claim\\n  goes beyond the source.\"}, \"coverage\": {\"score\": \"5\", \"reason\": \"All steps.\"}}\n```";
        let v = read_verdict(raw, false, verdict_contract()).unwrap();
        assert_eq!(v.faithfulness.score, 4);
        assert_eq!(v.faithfulness.reason, "One claim goes beyond the source.");
        assert_eq!(v.coverage.score, 5);
    }

    #[test]
    fn scores_out_of_range_are_refused_with_the_value_written() {
        let e = read_verdict(&verdict_json(7, 3), false, verdict_contract()).unwrap_err();
        assert_eq!(
            e.problems,
            vec!["/faithfulness/score: 7 is out of range — a score is an integer from 1 to 5"]
        );
        let e = read_verdict(&verdict_json(3, 0), false, verdict_contract()).unwrap_err();
        assert!(
            e.problems[0].starts_with("/coverage/score: 0 is out of range"),
            "{e:?}"
        );
        // Without the schema's range (a person's own schema), the rubric still refuses it.
        let loose = Schema::any();
        let e = read_verdict(&verdict_json(6, 3), false, &loose).unwrap_err();
        assert!(
            e.problems[0].starts_with("/faithfulness/score: 6 is out of range"),
            "{e:?}"
        );
    }

    #[test]
    fn unusable_answers_say_why() {
        let e = read_verdict("I think it is good.", false, verdict_contract()).unwrap_err();
        assert!(e.problems[0].contains("no JSON value"), "{e:?}");
        let e = read_verdict(
            r#"{"faithfulness": {"score": 4, "reason": "ok"}}"#,
            false,
            verdict_contract(),
        )
        .unwrap_err();
        assert!(e.problems.join(" ").contains("coverage"), "{e:?}");
        let raw = r#"{"faithfulness": {"score": 4, "reason": "  "}, "coverage": {"score": 4, "reason": "ok"}}"#;
        let e = read_verdict(raw, false, verdict_contract()).unwrap_err();
        assert!(
            e.problems[0].starts_with("/faithfulness/reason: the reason is empty"),
            "{e:?}"
        );
    }

    #[test]
    fn the_prompt_holds_the_source_and_the_article_with_its_quotes() {
        let prompts = PromptSet::builtin();
        let t = prompts.get(JUDGE);
        assert_eq!(t.version, "judge-v1");
        let (p, cut) = judge_prompt(t, Some("tea.md"), "Steep it at 80 degrees.\n", &article());
        assert!(!cut);
        assert!(p.user.contains("Source title: tea.md"));
        assert!(p
            .user
            .contains("<<<SOURCE\nSteep it at 80 degrees.\nSOURCE>>>"));
        assert!(p.user.contains(
            "<<<ARTICLE\nTitle: Green tea\nSummary: How to steep green tea.\nKey claims:\n- [sourced] Green tea is steeped at 80 degrees — quote: \"Steep it at 80 degrees.\"\n"
        ));
        assert!(p.system.contains("faithfulness") && p.system.contains("coverage"));
        let long = "word ".repeat(MAX_JUDGE_SOURCE_CHARS);
        let (p, cut) = judge_prompt(t, None, &long, &article());
        assert!(cut);
        assert!(p.user.contains("more characters, is not shown]"));
        assert!(p.user.len() < long.len());
    }
}
