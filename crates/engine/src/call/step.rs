//! The compile step as a pure state transition: judge an answer, decide whether to accept
//! it, retry with feedback, move to the next provider, or give up. No IO, no async; the
//! driver performs the effects this returns.

use serde::Serialize;

use crate::structured::{Reason, Repair};
use crate::text::line::one_line;

use crate::prompts::prompt::{shorten, MAX_PROBLEM_CHARS};

/// Why an answer was rejected: a fixed category, recorded with every attempt and counted
/// by the eval (its `as_str` names are the `failure` values of `results.jsonl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// The answer was empty, or only a reasoning block.
    Empty,
    /// No JSON value in the answer.
    NoJson,
    /// JSON too broken to repair.
    Syntax,
    /// A value that breaks the schema and could not be coerced.
    Schema,
    /// Valid against the schema but not a `CompilationResult`.
    Contract,
    /// Everything fine but an empty title.
    EmptyTitle,
    /// A page rewrite that would lose content: a source's claims, or much of the body.
    LostContent,
}

impl Rejection {
    /// Its name, as written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Rejection::Empty => "empty",
            Rejection::NoJson => "no_json",
            Rejection::Syntax => "syntax",
            Rejection::Schema => "schema",
            Rejection::Contract => "contract",
            Rejection::EmptyTitle => "empty_title",
            Rejection::LostContent => "lost_content",
        }
    }

    pub(crate) fn of(reason: &Reason) -> Rejection {
        match reason {
            Reason::Empty => Rejection::Empty,
            Reason::NoJson { .. } => Rejection::NoJson,
            Reason::Syntax { .. } => Rejection::Syntax,
            Reason::Invalid(_) => Rejection::Schema,
        }
    }
}

/// What an accepted answer tells the call log, whatever it answers (an article, a
/// page, an answer to a question).
pub trait Judged {
    /// The repairs and coercions applied to the answer.
    fn repairs(&self) -> &[Repair];
    /// Whether the answer was cut off.
    fn truncated(&self) -> bool;
    /// How many claims the model labelled `sourced`, and how many of those grounded.
    fn grounding(&self) -> (u32, u32);
}

/// What the engine made of one answer: `A` is what an accepted answer becomes (an
/// [`Accepted`](crate::tasks::article::Accepted) article, an answer to a question, a
/// verdict).
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement<A> {
    /// The answer is valid.
    Accept(Box<A>),
    /// The answer cannot be made valid.
    Reject {
        /// Why, as a category.
        why: Rejection,
        /// One line per problem.
        problems: Vec<String>,
        /// Repairs tried before giving up.
        repairs: Vec<Repair>,
        /// Whether the answer was cut off.
        truncated: bool,
    },
}

impl<A: Judged> Judgement<A> {
    /// The repairs and coercions applied to the answer, accepted or not.
    pub(crate) fn repairs(&self) -> &[Repair] {
        match self {
            Judgement::Accept(a) => a.repairs(),
            Judgement::Reject { repairs, .. } => repairs,
        }
    }
}

/// What the driver should do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<A> {
    /// Ask `provider` (an index into the configured list); `feedback` carries the problems
    /// of the previous answer from the same provider, to send back to the model.
    Call {
        /// Which provider.
        provider: usize,
        /// The attempt with this provider, from 1.
        attempt: u32,
        /// Problems with the previous answer, to feed back.
        feedback: Option<Feedback>,
    },
    /// Keep the answer (store the article).
    Save(Box<A>),
    /// Give up: mark the source failed with this reason.
    Fail {
        /// Why, for a person.
        reason: String,
    },
}

/// The previous answer's problems, for the retry prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feedback {
    /// One line per problem.
    pub problems: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
    /// The previous answer, to show the model what it wrote.
    pub previous_answer: String,
}

/// The most characters of problems a failure reason lists.
const REASON_PROBLEM_CHARS: usize = 1_000;

/// `problems` as one readable line for a failure reason: joined with `; `, each cut at
/// [`MAX_PROBLEM_CHARS`], as many as fit [`REASON_PROBLEM_CHARS`], then how many more.
fn problems_line(problems: &[String]) -> String {
    let mut line = String::new();
    let mut listed = 0;
    for p in problems {
        let p = one_line(&shorten(p, MAX_PROBLEM_CHARS));
        if listed > 0 && line.len() + p.len() + 2 > REASON_PROBLEM_CHARS {
            break;
        }
        if listed > 0 {
            line.push_str("; ");
        }
        line.push_str(&p);
        listed += 1;
    }
    if listed < problems.len() {
        line.push_str(&format!(" (and {} more)", problems.len() - listed));
    }
    line
}

/// The state of one source's compile across attempts and providers.
#[derive(Debug, Clone)]
pub struct CompileState {
    providers: usize,
    retries: u32,
    provider: usize,
    attempt: u32,
    failures: Vec<String>,
}

impl CompileState {
    /// A compile over `providers` providers (at least one), retrying each `retries` times
    /// after an invalid answer.
    pub fn new(providers: usize, retries: u32) -> CompileState {
        CompileState {
            providers: providers.max(1),
            retries,
            provider: 0,
            attempt: 1,
            failures: Vec::new(),
        }
    }

    /// The first step.
    pub fn start<A>(&self) -> Step<A> {
        Step::Call {
            provider: 0,
            attempt: 1,
            feedback: None,
        }
    }

    /// The provider answered; `judgement` is what the engine made of it.
    pub fn on_answer<A>(&mut self, judgement: Judgement<A>, raw: &str) -> Step<A> {
        match judgement {
            Judgement::Accept(a) => Step::Save(a),
            Judgement::Reject {
                problems,
                truncated,
                ..
            } => {
                let summary = problems
                    .first()
                    .map(|p| one_line(&shorten(p, MAX_PROBLEM_CHARS)))
                    .unwrap_or_else(|| "invalid answer".into());
                self.failures.push(format!(
                    "provider {} attempt {}: {summary}",
                    self.provider + 1,
                    self.attempt
                ));
                if self.attempt <= self.retries {
                    self.attempt += 1;
                    return Step::Call {
                        provider: self.provider,
                        attempt: self.attempt,
                        feedback: Some(Feedback {
                            problems,
                            truncated,
                            previous_answer: raw.to_string(),
                        }),
                    };
                }
                self.next_provider(format!(
                    "the answer could not be made valid: {}",
                    problems_line(&problems)
                ))
            }
        }
    }

    /// The provider failed (down, timed out, refused the request).
    pub fn on_provider_error<A>(&mut self, error: String) -> Step<A> {
        self.failures
            .push(format!("provider {}: {error}", self.provider + 1));
        self.next_provider(error)
    }

    fn next_provider<A>(&mut self, last: String) -> Step<A> {
        if self.provider + 1 < self.providers {
            self.provider += 1;
            self.attempt = 1;
            return Step::Call {
                provider: self.provider,
                attempt: 1,
                feedback: None,
            };
        }
        let reason = if self.providers == 1 && self.failures.len() <= 1 {
            last
        } else {
            format!("{last} (tried: {})", self.failures.join(" | "))
        };
        Step::Fail { reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::compilation_schema;
    use crate::structured::Schema;
    use crate::tasks::article::{judge, Accepted};

    const SOURCE: &str = "Ownership is Rust's most unique feature. Each value has an owner.";

    fn schema() -> Schema {
        Schema::new(compilation_schema()).unwrap()
    }

    fn valid() -> String {
        serde_json::json!({
            "title": "Ownership",
            "summary": "Rust's ownership.",
            "key_claims": [
                {"claim": "Values have owners", "confidence": "sourced", "quote": "Each value has an owner."},
                {"claim": "Ownership is magic", "confidence": "sourced", "quote": "Ownership is pure magic"}
            ],
            "article_body": "See [[Borrowing]]."
        })
        .to_string()
    }

    fn reject() -> Judgement<Accepted> {
        Judgement::Reject {
            why: Rejection::Schema,
            problems: vec!["/title: missing".into()],
            repairs: vec![],
            truncated: false,
        }
    }

    #[test]
    fn retries_with_feedback_then_falls_back_then_fails() {
        let mut s = CompileState::new(2, 2);
        assert_eq!(
            s.start::<Accepted>(),
            Step::Call {
                provider: 0,
                attempt: 1,
                feedback: None
            }
        );
        for attempt in 2..=3 {
            match s.on_answer(reject(), "bad") {
                Step::Call {
                    provider: 0,
                    attempt: a,
                    feedback: Some(f),
                } => {
                    assert_eq!(a, attempt);
                    assert_eq!(f.problems, vec!["/title: missing"]);
                    assert_eq!(f.previous_answer, "bad");
                }
                other => panic!("{other:?}"),
            }
        }
        // Three invalid answers from provider 1: on to provider 2, fresh.
        assert_eq!(
            s.on_answer(reject(), "bad"),
            Step::Call {
                provider: 1,
                attempt: 1,
                feedback: None
            }
        );
        // Provider 2 is down: nothing left.
        match s.on_provider_error::<Accepted>("Ollama is not running at http://x".into()) {
            Step::Fail { reason } => {
                assert!(reason.starts_with("Ollama is not running"), "{reason}");
                assert!(reason.contains("provider 1 attempt 3"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn transport_error_falls_back_immediately() {
        let mut s = CompileState::new(2, 2);
        assert_eq!(
            s.on_provider_error::<Accepted>("down".into()),
            Step::Call {
                provider: 1,
                attempt: 1,
                feedback: None
            }
        );
        let accepted = match judge(&valid(), false, SOURCE, &schema()) {
            Judgement::Accept(a) => a,
            other => panic!("{other:?}"),
        };
        assert!(matches!(
            s.on_answer(Judgement::Accept(accepted), "raw"),
            Step::Save(_)
        ));
    }

    /// Regression: the failure reason joined every problem whole, so a page that lost 2,000
    /// sources failed with a reason of tens of thousands of characters.
    #[test]
    fn the_failure_reason_is_one_readable_line_whatever_the_problems() {
        let sources: Vec<String> = (1..=2_000)
            .map(|i| format!("source {i} (Espresso)"))
            .collect();
        let huge = format!(
            "the page lost every sourced claim of {}",
            sources.join(", ")
        );
        let mut problems = vec![
            huge,
            "/article_body: the page shrank\nto 3 characters".into(),
        ];
        problems.extend((0..100).map(|i| format!("/claims/{i}: bad")));
        let mut s = CompileState::new(2, 0);
        let rejected = || Judgement::<Accepted>::Reject {
            why: Rejection::Schema,
            problems: problems.clone(),
            repairs: vec![],
            truncated: false,
        };
        assert!(matches!(
            s.on_answer(rejected(), "raw"),
            Step::Call { provider: 1, .. }
        ));
        match s.on_answer(rejected(), "raw") {
            Step::Fail { reason } => {
                assert!(!reason.contains('\n'), "{reason}");
                assert!(reason.len() < 3_000, "{} characters", reason.len());
                assert!(reason.starts_with("the answer could not be made valid: the page lost"));
                assert!(reason.contains("source 1 (Espresso)"), "{reason}");
                assert!(reason.contains("more)"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn single_provider_failure_reason_is_plain() {
        let mut s = CompileState::new(1, 0);
        match s.on_provider_error::<Accepted>(
            "Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`".into(),
        ) {
            Step::Fail { reason } => assert_eq!(
                reason,
                "Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`"
            ),
            other => panic!("{other:?}"),
        }
    }
}
