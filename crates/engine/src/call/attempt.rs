//! What each model call of a compile produced, for evaluation and diagnostics.
//!
//! The driver records one [`AttemptRecord`] per call; [`classify`] says how far the
//! structured output engine had to go to make the raw answer valid (nowhere, lenient
//! repair, coercion toward the schema) or why it could not. Pure: no IO, no async.

use std::time::Duration;

use serde::Serialize;

use crate::llm::ChatResponse;
use crate::structured::{self, Mode, Schema};

use crate::call::step::{Judged, Judgement};

/// How a raw answer fared, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerClass {
    /// Valid as sent: strict JSON that validates against the contract, nothing changed.
    StrictValid,
    /// Valid after lenient extraction and repair (fences, prose, broken syntax), with no
    /// coercion toward the schema.
    Repaired,
    /// Valid only after coercion toward the schema (enum case, wrapped values, defaults…).
    Coerced,
    /// Could not be made valid.
    Invalid,
    /// No answer: the provider failed (down, timed out, refused the request).
    ProviderError,
}

impl AnswerClass {
    /// The snake_case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerClass::StrictValid => "strict_valid",
            AnswerClass::Repaired => "repaired",
            AnswerClass::Coerced => "coerced",
            AnswerClass::Invalid => "invalid",
            AnswerClass::ProviderError => "provider_error",
        }
    }

    /// Whether the answer became an article.
    pub fn is_valid(self) -> bool {
        matches!(
            self,
            AnswerClass::StrictValid | AnswerClass::Repaired | AnswerClass::Coerced
        )
    }
}

/// One model call of a compile and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptRecord {
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The attempt with this provider, from 1.
    pub attempt: u32,
    /// How the answer fared.
    pub class: AnswerClass,
    /// Why it failed, as a fixed category: `empty`, `no_json`, `syntax`, `schema`,
    /// `contract`, `empty_title` for an invalid answer; `provider` for a provider error.
    pub failure: Option<String>,
    /// The first problem, for a person.
    pub problem: Option<String>,
    /// Repairs and coercions applied (kind names).
    pub repairs: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
    /// Prompt tokens, when reported.
    pub tokens_in: Option<u64>,
    /// Answer tokens, when reported.
    pub tokens_out: Option<u64>,
    /// Time of the call.
    pub latency_ms: u64,
    /// Claims the model labelled `sourced` (valid answers only).
    pub sourced_claims: u32,
    /// Of those, claims whose quote was found in the source.
    pub grounded_claims: u32,
}

impl AttemptRecord {
    /// The record of the call `attempt` of provider `label` that answered `resp`, judged
    /// `judgement` against `schema`.
    pub(crate) fn answered<A: Judged>(
        label: &str,
        attempt: u32,
        resp: &ChatResponse,
        judgement: &Judgement<A>,
        schema: &Schema,
    ) -> AttemptRecord {
        let (class, failure) = classify(&resp.text, schema, judgement);
        let (sourced_claims, grounded_claims) = grounding_tally(judgement);
        let (truncated, problem) = match judgement {
            Judgement::Accept(a) => (a.truncated(), None),
            Judgement::Reject {
                truncated,
                problems,
                ..
            } => (*truncated, problems.first().cloned()),
        };
        AttemptRecord {
            provider: label.to_string(),
            attempt,
            class,
            failure: failure.map(str::to_string),
            problem,
            repairs: repair_names(judgement.repairs()),
            truncated,
            tokens_in: resp.prompt_tokens,
            tokens_out: resp.completion_tokens,
            latency_ms: resp.latency.as_millis() as u64,
            sourced_claims,
            grounded_claims,
        }
    }

    /// The record of the call `attempt` of provider `label` that got no answer: `error`
    /// after `latency`.
    pub(crate) fn provider_error(
        label: &str,
        attempt: u32,
        error: String,
        latency: Duration,
    ) -> AttemptRecord {
        AttemptRecord {
            provider: label.to_string(),
            attempt,
            class: AnswerClass::ProviderError,
            failure: Some("provider".into()),
            problem: Some(error),
            repairs: Vec::new(),
            truncated: false,
            tokens_in: None,
            tokens_out: None,
            latency_ms: latency.as_millis() as u64,
            sourced_claims: 0,
            grounded_claims: 0,
        }
    }
}

/// Classifies a judged answer: `raw` is the answer as sent, `judgement` what
/// [`judge`](crate::tasks::article::judge) made of it. Returns the class and, for an invalid answer, the
/// failure category.
pub fn classify<A>(
    raw: &str,
    schema: &Schema,
    judgement: &Judgement<A>,
) -> (AnswerClass, Option<&'static str>) {
    match judgement {
        Judgement::Accept(_) => {
            let class = if structured::parse_json(raw, schema, Mode::Strict).is_ok() {
                AnswerClass::StrictValid
            } else if repaired_is_valid(raw, schema) {
                AnswerClass::Repaired
            } else {
                AnswerClass::Coerced
            };
            (class, None)
        }
        Judgement::Reject { why, .. } => (AnswerClass::Invalid, Some(why.as_str())),
    }
}

/// Whether the answer, extracted and repaired but not coerced toward the schema, is valid.
/// (Filling an omitted field that has a default is not a coercion: strict mode accepts the
/// omission too.)
fn repaired_is_valid(raw: &str, schema: &Schema) -> bool {
    // With no schema the engine extracts and repairs but has nothing to coerce toward.
    match structured::parse_json(raw, &Schema::any(), Mode::Lenient) {
        Ok(outcome) => schema.is_valid(&outcome.value),
        Err(_) => false,
    }
}

/// Counts the claims of an accepted answer the model labelled `sourced`, and how many of
/// those grounding confirmed.
pub fn grounding_tally<A: Judged>(judgement: &Judgement<A>) -> (u32, u32) {
    match judgement {
        Judgement::Accept(a) => a.grounding(),
        Judgement::Reject { .. } => (0, 0),
    }
}

/// The kind names of repairs, as reports list them.
pub(crate) fn repair_names(repairs: &[crate::structured::Repair]) -> Vec<String> {
    repairs
        .iter()
        .map(|r| r.kind.as_str().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::compilation_schema;
    use crate::tasks::article::judge;

    const SOURCE: &str = "Ownership is Rust's most unique feature. Each value has an owner.";

    fn schema() -> Schema {
        Schema::new(compilation_schema()).unwrap()
    }

    fn class_of(raw: &str) -> (AnswerClass, Option<&'static str>) {
        let schema = schema();
        classify(raw, &schema, &judge(raw, false, SOURCE, &schema))
    }

    #[test]
    fn answers_are_classified_by_how_far_the_engine_went() {
        let clean = r#"{"title":"Ownership","summary":"S","key_claims":[{"claim":"c","confidence":"sourced","quote":"Each value has an owner."}],"article_body":"B"}"#;
        let cases: Vec<(String, (AnswerClass, Option<&str>))> = vec![
            (clean.to_string(), (AnswerClass::StrictValid, None)),
            (
                format!("Here it is:\n```json\n{clean}\n```"),
                (AnswerClass::Repaired, None),
            ),
            (
                clean.replace("\"sourced\"", "\"Sourced\""),
                (AnswerClass::Coerced, None),
            ),
            (
                "I cannot help with that.".into(),
                (AnswerClass::Invalid, Some("no_json")),
            ),
            ("".into(), (AnswerClass::Invalid, Some("empty"))),
            (
                r#"{"title":"T"}"#.into(),
                (AnswerClass::Invalid, Some("schema")),
            ),
            (
                r#"{"title":" ","summary":"S","key_claims":[],"article_body":"B"}"#.into(),
                (AnswerClass::Invalid, Some("empty_title")),
            ),
        ];
        for (raw, want) in cases {
            assert_eq!(class_of(&raw), want, "{raw}");
        }
    }

    #[test]
    fn grounding_counts_only_sourced_claims() {
        let raw = r#"{"title":"T","summary":"S","key_claims":[
            {"claim":"a","confidence":"sourced","quote":"Each value has an owner."},
            {"claim":"b","confidence":"sourced","quote":"Values are immortal"},
            {"claim":"c","confidence":"opinion"}],"article_body":"B"}"#;
        let schema = schema();
        assert_eq!(grounding_tally(&judge(raw, false, SOURCE, &schema)), (2, 1));
    }
}
