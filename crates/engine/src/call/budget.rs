//! Budget and fit decisions of a compile, pure: whether a source fits in one call or is
//! read in parts, how much of the source one extraction call holds, how many notes the
//! final call holds, and what one call (a retry above all) sends and may answer. No IO, no
//! async; the driver sends what these decide.
//!
//! Token counts are estimates (about three characters a token, on the safe side): the
//! servers do not say how they count before they are asked.

use crate::llm::Message;

use crate::call::step::Feedback;
use crate::prompts::prompt::{feedback_message_within, shorten, MAX_PROBLEM_CHARS};
use crate::prompts::templates::{Prompt, PromptTemplate};
use crate::text::line::one_line;

/// Tokens kept free in every call's context, beyond the prompt and the answer budget.
pub(crate) const CONTEXT_MARGIN: u64 = 256;

/// The largest context a server's report is believed up to (16 Mi tokens).
pub(crate) const MAX_CONTEXT_TOKENS: u64 = 1 << 24;

/// The fewest tokens of source an extraction call must hold for reading in parts to be
/// worth it.
const MIN_PART_TOKENS: u64 = 256;

/// Estimated tokens of a text: about three characters a token, on the safe side.
pub fn estimate_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(3)
}

/// About how many characters `tokens` tokens hold (three a token), without overflow.
pub(crate) fn chars_for(tokens: u64) -> usize {
    usize::try_from(tokens.saturating_mul(3)).unwrap_or(usize::MAX)
}

/// The context size to work with: what the server reported (believed up to
/// [`MAX_CONTEXT_TOKENS`]), else the configured default when it reported nothing usable.
pub(crate) fn context_from_report(reported: Option<u64>, configured: u64) -> u64 {
    match reported {
        Some(n) if n > 0 => n.min(MAX_CONTEXT_TOKENS),
        _ => configured,
    }
}

/// Ollama's `num_ctx` for a call: the prompt and the answer budget with a margin, rounded
/// up to 1024, never beyond the model's context.
pub(crate) fn ollama_context(prompt_tokens: u64, budget: u64, context: u64) -> u32 {
    let want = (prompt_tokens + budget + CONTEXT_MARGIN).div_ceil(1024) * 1024;
    u32::try_from(want.clamp(2048, context.max(2048))).unwrap_or(u32::MAX)
}

/// The model's context and the configured answer budget, both in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The context of the model that is asked first.
    pub context: u64,
    /// The answer budget of every call (`max_tokens`).
    pub max_tokens: u64,
}

/// How a source is compiled, given the limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// The whole source fits beside a full answer: one call writes the article.
    Direct,
    /// Too large for one call: read it in parts that each hold `room` tokens of source,
    /// then write the article from the notes.
    InParts {
        /// Tokens of source one extraction call holds.
        room: u64,
    },
    /// Too large for one call, and the context is too small to read it in parts: the
    /// source fails with this reason, which says what to change.
    TooSmall(String),
}

impl Limits {
    /// How to compile a source whose one-call prompt is `direct`; `extract` is the template
    /// of the extraction calls and `title` the source's title, both sent with every part.
    pub fn route(&self, direct: &Prompt, extract: &PromptTemplate, title: &str) -> Route {
        let direct_tokens = estimate_tokens(direct.system.len() + direct.user.len());
        if direct_tokens + self.max_tokens + CONTEXT_MARGIN <= self.context {
            return Route::Direct;
        }
        let overhead =
            estimate_tokens(extract.system.len() + extract.user.len() + title.len() + 128);
        let room = self
            .context
            .saturating_sub(self.max_tokens + overhead + CONTEXT_MARGIN);
        if room < MIN_PART_TOKENS {
            let (context, answer) = (self.context, self.max_tokens);
            return Route::TooSmall(format!(
                "the model's context of {context} tokens leaves no room for the source next to an answer budget of {answer} tokens: lower max_tokens or use a model with a larger context"
            ));
        }
        Route::InParts { room }
    }

    /// Characters of notes the final call of a large source holds beside `fixed_chars` of
    /// template, outline, known titles and coverage, and a full answer.
    pub fn notes_room(&self, fixed_chars: usize) -> usize {
        let room = self
            .context
            .saturating_sub(self.max_tokens + estimate_tokens(fixed_chars) + CONTEXT_MARGIN);
        chars_for(room)
    }
}

/// What one compile call sends beyond the prompt, and what it may answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallPlan {
    /// The previous answer, sent back as the model's turn (only when it fits).
    pub previous_answer: Option<String>,
    /// What was wrong with the previous answer, sent as the person's turn.
    pub feedback: Option<String>,
    /// The answer budget of this call.
    pub max_tokens: u32,
    /// The context to ask Ollama for: holds everything sent and a full answer.
    pub num_ctx: u32,
    /// For the report: which earlier attempt was rejected, and why.
    pub warning: Option<String>,
}

impl CallPlan {
    /// The messages to send after the prompt's system and user messages.
    pub fn extra_messages(&self) -> Vec<Message> {
        use crate::llm::Role;
        let answer = self
            .previous_answer
            .iter()
            .map(|a| Message::new(Role::Assistant, a.clone()));
        let feedback = self
            .feedback
            .iter()
            .map(|f| Message::new(Role::User, f.clone()));
        answer.chain(feedback).collect()
    }
}

/// The answer budget across the calls of one source: it starts at `max_tokens` and doubles
/// after an answer cut off at it, as far as the context allows.
#[derive(Debug, Clone)]
pub(crate) struct CallBudget {
    context: u64,
    prompt_chars: usize,
    budget: u64,
}

impl CallBudget {
    /// The budget for calls sending `prompt` within `limits`.
    pub fn new(limits: Limits, prompt: &Prompt) -> CallBudget {
        CallBudget {
            context: limits.context,
            prompt_chars: prompt.system.len() + prompt.user.len(),
            budget: limits.max_tokens,
        }
    }

    /// The plan of the call `attempt` with provider `label`, after `feedback` on the
    /// previous answer when there is one.
    ///
    /// The problems always go back, cut to the room the prompt and a full answer leave
    /// ([`feedback_message_within`]); the previous answer only when it fits beside them.
    /// An answer cut off at the budget gets twice the budget, capped at what the context
    /// leaves beside what is sent (never less than before).
    pub fn plan(&mut self, label: &str, attempt: u32, feedback: Option<&Feedback>) -> CallPlan {
        let prompt_tokens = estimate_tokens(self.prompt_chars);
        let mut plan = CallPlan {
            previous_answer: None,
            feedback: None,
            max_tokens: 0,
            num_ctx: 0,
            warning: None,
        };
        let mut sent_chars = self.prompt_chars;
        if let Some(f) = feedback {
            // The room the prompt and a full answer leave: the problems always go, cut to
            // fit it; the rejected answer only when it fits beside them.
            let room = self
                .context
                .saturating_sub(prompt_tokens + self.budget + CONTEXT_MARGIN);
            let message = feedback_message_within(&f.problems, f.truncated, chars_for(room));
            let with_answer = estimate_tokens(message.len() + f.previous_answer.len()) <= room;
            if with_answer {
                sent_chars += f.previous_answer.len();
                plan.previous_answer = Some(f.previous_answer.clone());
            }
            sent_chars += message.len();
            plan.feedback = Some(message);
            let first = f.problems.first().map(String::as_str).unwrap_or_default();
            let mut warning = format!(
                "{label} attempt {} rejected: {}",
                attempt.saturating_sub(1),
                one_line(&shorten(first, MAX_PROBLEM_CHARS))
            );
            if !with_answer {
                warning.push_str(
                    " (the rejected answer was too long to send back beside the prompt: \
                     the retry has the problems only)",
                );
            }
            plan.warning = Some(warning);
        }
        // The context is sized for everything sent, so Ollama drops nothing.
        let sent_tokens = estimate_tokens(sent_chars).max(prompt_tokens);
        if feedback.is_some_and(|f| f.truncated) {
            let left = self
                .context
                .saturating_sub(sent_tokens + CONTEXT_MARGIN)
                .max(self.budget);
            self.budget = self.budget.saturating_mul(2).min(left);
        }
        plan.max_tokens = u32::try_from(self.budget).unwrap_or(u32::MAX);
        plan.num_ctx = ollama_context(sent_tokens, self.budget, self.context);
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompts::templates::{PromptSet, EXTRACT};

    fn prompt(chars: usize) -> Prompt {
        Prompt {
            system: String::new(),
            user: "x".repeat(chars),
        }
    }

    fn feedback(answer_chars: usize, truncated: bool) -> Feedback {
        Feedback {
            problems: vec!["/title: missing".into()],
            truncated,
            previous_answer: "a".repeat(answer_chars),
        }
    }

    #[test]
    fn a_source_is_sent_whole_only_when_it_fits_beside_a_full_answer() {
        let prompts = PromptSet::builtin();
        let extract = prompts.get(EXTRACT);
        // (prompt chars, context, max_tokens) → the route's kind.
        let table: [(usize, u64, u64, &str); 5] = [
            (3_000, 8_192, 2_048, "direct"),
            // 1,000 + 2,048 + 256 is exactly the context: still fits.
            (3_000, 3_304, 2_048, "direct"),
            (3_003, 3_304, 2_048, "parts"),
            (300_000, 32_768, 4_096, "parts"),
            (300_000, 4_096, 4_096, "too small"),
        ];
        for (chars, context, max_tokens, want) in table {
            let limits = Limits {
                context,
                max_tokens,
            };
            let got = match limits.route(&prompt(chars), extract, "T") {
                Route::Direct => "direct",
                Route::InParts { room } => {
                    assert!(room >= MIN_PART_TOKENS && room < context, "{room}");
                    "parts"
                }
                Route::TooSmall(_) => "too small",
            };
            assert_eq!(got, want, "{chars} chars in {context}/{max_tokens}");
        }
    }

    #[test]
    fn a_context_too_small_to_read_in_parts_says_what_to_change() {
        let prompts = PromptSet::builtin();
        let limits = Limits {
            context: 2_048,
            max_tokens: 2_048,
        };
        match limits.route(&prompt(100_000), prompts.get(EXTRACT), "T") {
            Route::TooSmall(reason) => {
                assert!(reason.contains("context of 2048 tokens"), "{reason}");
                assert!(reason.contains("answer budget of 2048 tokens"), "{reason}");
                assert!(reason.contains("lower max_tokens"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_part_holds_what_the_context_leaves_beside_the_extraction_prompt_and_an_answer() {
        let prompts = PromptSet::builtin();
        let extract = prompts.get(EXTRACT);
        let small = Limits {
            context: 8_192,
            max_tokens: 1_024,
        };
        let large = Limits {
            context: 32_768,
            ..small
        };
        let room = |l: Limits| match l.route(&prompt(1_000_000), extract, "T") {
            Route::InParts { room } => room,
            other => panic!("{other:?}"),
        };
        // Every token more of context is a token more of source in each part.
        assert_eq!(room(large) - room(small), 32_768 - 8_192);
        assert!(room(small) + 1_024 + CONTEXT_MARGIN < 8_192);
    }

    #[test]
    fn the_notes_of_a_large_source_fill_what_the_final_call_leaves() {
        let limits = Limits {
            context: 10_000,
            max_tokens: 2_000,
        };
        // (fixed chars, chars of notes that fit)
        let table = [
            (0, (10_000 - 2_000 - 256) * 3),
            (3_000, (10_000 - 2_000 - 1_000 - 256) * 3),
            (1_000_000, 0),
        ];
        for (fixed, want) in table {
            assert_eq!(limits.notes_room(fixed), want, "{fixed}");
        }
    }

    #[test]
    fn a_cut_off_answer_is_retried_with_twice_the_budget_capped_at_the_context() {
        // (context, max_tokens, cut-offs in a row) → budget of each retry.
        let table: [(u64, u64, &[u64]); 3] = [
            (100_000, 1_000, &[2_000, 4_000, 8_000]),
            // 10,000 − 366 tokens sent − 256 margin leaves 9,378.
            (10_000, 4_000, &[8_000, 9_378, 9_378]),
            // No room to grow: the budget never shrinks.
            (5_000, 4_800, &[4_800, 4_800]),
        ];
        for (context, max_tokens, budgets) in table {
            let limits = Limits {
                context,
                max_tokens,
            };
            let mut budget = CallBudget::new(limits, &prompt(900));
            let first = budget.plan("p", 1, None);
            assert_eq!(u64::from(first.max_tokens), max_tokens);
            let mut got = Vec::new();
            for attempt in 2..=budgets.len() as u32 + 1 {
                // The prompt, 3 chars of previous answer and the feedback message.
                got.push(u64::from(
                    budget
                        .plan("p", attempt, Some(&feedback(3, true)))
                        .max_tokens,
                ));
            }
            assert_eq!(got, budgets, "context {context}, max_tokens {max_tokens}");
        }
    }

    #[test]
    fn an_answer_rejected_for_other_reasons_keeps_the_budget() {
        let limits = Limits {
            context: 100_000,
            max_tokens: 1_000,
        };
        let mut budget = CallBudget::new(limits, &prompt(900));
        for attempt in 2..5 {
            let plan = budget.plan("p", attempt, Some(&feedback(30, false)));
            assert_eq!(plan.max_tokens, 1_000);
        }
    }

    #[test]
    fn the_previous_answer_goes_back_only_when_it_fits_and_the_problems_always_do() {
        let limits = Limits {
            context: 10_000,
            max_tokens: 2_000,
        };
        // 300 prompt tokens + 2,000 + 256: 7,444 tokens (22,332 chars) left for the
        // problems and the answer together (the problems go first).
        let problems = crate::prompts::prompt::feedback_message(&["/title: missing".into()], false);
        let left = 22_332 - problems.len();
        let table = [(0, true), (left, true), (left + 1, false), (100_000, false)];
        for (answer_chars, sent_back) in table {
            let mut budget = CallBudget::new(limits, &prompt(900));
            let plan = budget.plan("ollama:m", 2, Some(&feedback(answer_chars, false)));
            assert_eq!(
                plan.previous_answer.is_some(),
                sent_back,
                "{answer_chars} chars"
            );
            let problems = plan.feedback.clone().expect("the problems are always sent");
            assert!(problems.contains("/title: missing"), "{problems}");
            let want = if sent_back { 2 } else { 1 };
            assert_eq!(plan.extra_messages().len(), want);
            // The report says when the model did not see its own answer again.
            let warning = plan.warning.expect("a retry is noted");
            assert_eq!(
                warning.contains("too long to send back"),
                !sent_back,
                "{warning}"
            );
        }
    }

    /// Regression: with 2,000 sources on one page the retry sent one problem of ~52,000
    /// characters (about 17k tokens) at a context of 8,192, so the server dropped the start
    /// of the prompt. Whatever the problems, a retry fits the context.
    #[test]
    fn a_retry_fits_the_context_whatever_the_problems() {
        let sources: Vec<String> = (1..=2_000)
            .map(|i| format!("source {i} (Espresso)"))
            .collect();
        let huge = format!(
            "the page lost every sourced claim of {}: keep at least one claim from each",
            sources.join(", ")
        );
        assert!(huge.len() > 40_000);
        for (context, max_tokens, prompt_chars) in [
            (8_192, 2_048, 15_000),
            (8_192, 1_024, 3_000),
            (4_096, 2_048, 5_000),
        ] {
            let limits = Limits {
                context,
                max_tokens,
            };
            for problems in [vec![huge.clone()], vec![huge.clone(); 40]] {
                let mut budget = CallBudget::new(limits, &prompt(prompt_chars));
                let f = Feedback {
                    problems,
                    truncated: false,
                    previous_answer: "a".repeat(4_000),
                };
                let plan = budget.plan("ollama:m", 2, Some(&f));
                let sent: usize = prompt_chars
                    + plan
                        .extra_messages()
                        .iter()
                        .map(|m| m.content.len())
                        .sum::<usize>();
                assert!(
                    estimate_tokens(sent) + u64::from(plan.max_tokens) + CONTEXT_MARGIN <= context,
                    "{sent} chars sent at context {context}"
                );
                let message = plan.feedback.unwrap();
                assert!(message.contains("source 1 (Espresso)"), "{message}");
                let warning = plan.warning.unwrap();
                assert!(warning.len() < 700 && !warning.contains('\n'), "{warning}");
            }
        }
    }

    #[test]
    fn a_retry_notes_which_attempt_was_rejected_and_why() {
        let limits = Limits {
            context: 10_000,
            max_tokens: 2_000,
        };
        let mut budget = CallBudget::new(limits, &prompt(900));
        assert_eq!(budget.plan("ollama:m", 1, None).warning, None);
        assert_eq!(
            budget
                .plan("ollama:m", 3, Some(&feedback(10, false)))
                .warning
                .as_deref(),
            Some("ollama:m attempt 2 rejected: /title: missing")
        );
    }

    #[test]
    fn a_retry_asks_for_a_context_that_holds_what_is_sent_and_a_full_answer() {
        let limits = Limits {
            context: 32_768,
            max_tokens: 2_000,
        };
        let mut budget = CallBudget::new(limits, &prompt(3_000));
        let first = budget.plan("p", 1, None);
        // 1,000 + 2,000 + 256 rounds up to 4,096.
        assert_eq!(first.num_ctx, 4_096);
        let retry = budget.plan("p", 2, Some(&feedback(9_000, false)));
        let sent = estimate_tokens(3_000 + 9_000 + retry.feedback.as_ref().map_or(0, |f| f.len()));
        assert!(u64::from(retry.num_ctx) >= sent + 2_000 + CONTEXT_MARGIN);
        assert!(retry.num_ctx > first.num_ctx);
    }

    #[test]
    fn ollama_is_asked_for_whole_kibitokens_within_the_model() {
        // (prompt, budget, context) → num_ctx
        let table = [
            (100, 100, 8_192, 2_048),
            (1_000, 2_000, 8_192, 4_096),
            (10_000, 2_000, 8_192, 8_192),
            (10, 10, 1_000, 2_048),
        ];
        for (prompt, budget, context, want) in table {
            assert_eq!(ollama_context(prompt, budget, context), want);
        }
    }

    #[test]
    fn a_reported_context_is_believed_up_to_16_mi_tokens() {
        let table = [
            (Some(8_192), 8_192),
            (Some(0), 4_096),
            (None, 4_096),
            (Some(u64::MAX), MAX_CONTEXT_TOKENS),
        ];
        for (reported, want) in table {
            assert_eq!(context_from_report(reported, 4_096), want, "{reported:?}");
        }
    }
}
