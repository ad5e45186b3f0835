//! The `llm_judge` evaluator, pure: the rubric's contract (a type, its schema generated with
//! schemars and checked in as `schemas/judge_verdict.schema.json`), the judge prompt, the
//! reading of an answer, and the decision to accept it, retry with feedback or give up. No
//! IO, no async: [`super::run`] sends the calls these decide.
//!
//! One strict-JSON call per case scores the compiled article against its source:
//! `faithfulness` (says only what the source supports) and `coverage` (keeps the source's
//! important points), each an integer from 1 to 5 with a one-line reason.

use serde_json::Value;

use wikimind::compile::step::Feedback;
use wikimind::compile::templates::{Prompt, PromptTemplate};
use wikimind::store::ArticleDetail;
use wikimind::structured::{self, Mode, RepairKind, Schema};

/// The lowest score of the rubric.
pub const MIN_SCORE: u8 = 1;
/// The highest score of the rubric.
pub const MAX_SCORE: u8 = 5;

/// The most characters of source a judge prompt holds; a longer source is cut there (and
/// the result says so).
pub const MAX_JUDGE_SOURCE_CHARS: usize = 60_000;

pub use wikimind::contract::judge::{
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
}

/// Reads a judge answer: lenient extraction, repair and validation against `schema` (the
/// structured engine, as every model answer), then the rubric's own rules. A score outside
/// 1 to 5 is refused, never bent into range: the engine's coercion would clamp it, so a
/// clamped score is refused with the value the model wrote. A reason is made one line; an
/// empty one is refused.
pub fn read_verdict(raw: &str, cut_off: bool, schema: &Schema) -> Result<JudgeVerdict, Unusable> {
    let outcome = structured::parse_json(raw, schema, Mode::Lenient).map_err(|e| Unusable {
        problems: e.lines(),
        truncated: e.truncated || cut_off,
    })?;
    let truncated = outcome.truncated || cut_off;
    let refuse = |problems: Vec<String>| Unusable {
        problems,
        truncated,
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
        ));
    }
    let mut verdict: JudgeVerdict = serde_json::from_value(outcome.value)
        .map_err(|e| refuse(vec![format!("the answer does not fit the rubric: {e}")]))?;
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
        Ok(verdict)
    } else {
        Err(refuse(problems))
    }
}

fn out_of_range(path: &str, value: &str) -> String {
    format!(
        "{path}: {value} is out of range — a score is an integer from {MIN_SCORE} to {MAX_SCORE}"
    )
}

/// What the judge's driver does next.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeStep {
    /// Ask the judge; `feedback` carries the previous answer and its problems.
    Ask {
        /// The attempt, from 1.
        attempt: u32,
        /// The previous answer's problems, to send back.
        feedback: Option<Feedback>,
    },
    /// The article is scored.
    Scored(JudgeVerdict),
    /// The judge gave no usable answer: record the case's judge as failed, for `reason`.
    Failed {
        /// Why, for a person.
        reason: String,
    },
}

/// The judging of one article across attempts: the first call, then at most `retries`
/// retries with feedback after an unusable answer.
#[derive(Debug, Clone)]
pub struct JudgeState {
    retries: u32,
    attempt: u32,
    rejected: Vec<String>,
}

impl JudgeState {
    /// Judging that retries at most `retries` times.
    pub fn new(retries: u32) -> JudgeState {
        JudgeState {
            retries,
            attempt: 1,
            rejected: Vec::new(),
        }
    }

    /// The first step.
    pub fn start(&self) -> JudgeStep {
        JudgeStep::Ask {
            attempt: 1,
            feedback: None,
        }
    }

    /// The judge answered `raw` (`cut_off` when it stopped at the length limit).
    pub fn on_answer(&mut self, raw: &str, cut_off: bool, schema: &Schema) -> JudgeStep {
        match read_verdict(raw, cut_off, schema) {
            Ok(verdict) => JudgeStep::Scored(verdict),
            Err(unusable) => {
                self.rejected.push(format!(
                    "attempt {}: {}",
                    self.attempt,
                    unusable.problems.join("; ")
                ));
                if self.attempt <= self.retries {
                    self.attempt += 1;
                    return JudgeStep::Ask {
                        attempt: self.attempt,
                        feedback: Some(Feedback {
                            problems: unusable.problems,
                            truncated: unusable.truncated,
                            previous_answer: raw.to_string(),
                        }),
                    };
                }
                JudgeStep::Failed {
                    reason: format!(
                        "the judge's answer could not be used after {} attempt(s): {}",
                        self.attempt,
                        unusable.problems.join("; ")
                    ),
                }
            }
        }
    }

    /// The judge's provider failed (down, timed out, refused the request): no retry.
    pub fn on_provider_error(&mut self, error: String) -> JudgeStep {
        JudgeStep::Failed {
            reason: format!("the judge did not answer: {error}"),
        }
    }

    /// Every rejected answer so far, one line each (`attempt 1: …`).
    pub fn rejected(&self) -> &[String] {
        &self.rejected
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wikimind::compile::templates::{PromptSet, JUDGE};
    use wikimind::contract::{CheckedClaim, Confidence};
    use wikimind::store::ArticleId;

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
    fn an_unusable_answer_is_retried_with_its_problems_then_the_judge_fails() {
        let mut s = JudgeState::new(2);
        assert_eq!(
            s.start(),
            JudgeStep::Ask {
                attempt: 1,
                feedback: None
            }
        );
        let bad = verdict_json(7, 4);
        for attempt in 2..=3 {
            match s.on_answer(&bad, false, verdict_contract()) {
                JudgeStep::Ask {
                    attempt: a,
                    feedback: Some(f),
                } => {
                    assert_eq!(a, attempt);
                    assert_eq!(f.previous_answer, bad);
                    assert!(f.problems[0].contains("7 is out of range"), "{f:?}");
                }
                other => panic!("{other:?}"),
            }
        }
        match s.on_answer(&bad, false, verdict_contract()) {
            JudgeStep::Failed { reason } => {
                assert!(reason.contains("after 3 attempt(s)"), "{reason}");
                assert!(reason.contains("7 is out of range"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.rejected().len(), 3);
        assert!(s.rejected()[0].starts_with("attempt 1: /faithfulness/score: 7"));
        // A good answer on a retry is taken.
        let mut s = JudgeState::new(1);
        assert!(matches!(
            s.on_answer(&bad, false, verdict_contract()),
            JudgeStep::Ask { .. }
        ));
        match s.on_answer(&verdict_json(5, 2), false, verdict_contract()) {
            JudgeStep::Scored(v) => assert_eq!((v.faithfulness.score, v.coverage.score), (5, 2)),
            other => panic!("{other:?}"),
        }
        // A provider that fails is not retried here (its client retries transport errors).
        let mut s = JudgeState::new(2);
        assert!(matches!(
            s.on_provider_error("connection refused".into()),
            JudgeStep::Failed { reason } if reason == "the judge did not answer: connection refused"
        ));
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
