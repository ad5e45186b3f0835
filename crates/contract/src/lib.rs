//! The compilation contract: what one model answer must contain to become an article.
//!
//! Field names are the contract the model sees (snake_case). The JSON Schema sent to
//! providers is generated from these types with schemars and checked in as
//! `schemas/compilation_result.schema.json`; a test fails when the two disagree.

#![deny(missing_docs)]

pub mod judge;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a claim is supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// A short verbatim `quote` from the source backs the claim.
    Sourced,
    /// Follows from the source but is not stated in it. The default: a claim without a
    /// stated confidence is not sourced.
    #[default]
    Inferred,
    /// A judgement, the source's or the model's.
    Opinion,
}

impl Confidence {
    /// The contract name (`sourced`, `inferred`, `opinion`).
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Sourced => "sourced",
            Confidence::Inferred => "inferred",
            Confidence::Opinion => "opinion",
        }
    }

    /// Parses a contract name exactly.
    pub fn parse(name: &str) -> Option<Confidence> {
        match name {
            "sourced" => Some(Confidence::Sourced),
            "inferred" => Some(Confidence::Inferred),
            "opinion" => Some(Confidence::Opinion),
            _ => None,
        }
    }
}

/// One key claim of an article as the model states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Claim {
    /// The claim in one sentence.
    pub claim: String,
    /// How the claim is supported.
    #[serde(default)]
    pub confidence: Confidence,
    /// A short verbatim quote from the source (required in spirit for `sourced`).
    #[serde(default)]
    pub quote: Option<String>,
}

/// The most key claims an answer may hold: the ceiling of every page's room. The schema
/// says it (`maxItems`), and each page call sends a copy narrowed to that page's room.
pub const MAX_KEY_CLAIMS: usize = 50;

/// The longest `article_body` an answer may have, in characters: the ceiling of every
/// page's room. The schema says it (`maxLength`), and each page call sends a copy narrowed
/// to that page's room.
pub const MAX_ARTICLE_BODY_CHARS: usize = 16_000;

/// The answer of one compile call: everything needed to write one wiki article.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompilationResult {
    /// The article title; links from other articles use it.
    pub title: String,
    /// Two or three sentences that say what the article is about.
    pub summary: String,
    /// The key claims, each tagged with its confidence. May be empty.
    #[schemars(length(max = MAX_KEY_CLAIMS))]
    pub key_claims: Vec<Claim>,
    /// Concept names, reusing names the wiki already has.
    #[serde(default)]
    pub concepts: Vec<String>,
    /// Titles of other articles this one should link to.
    #[serde(default)]
    pub backlink_suggestions: Vec<String>,
    /// Questions the source leaves open.
    #[serde(default)]
    pub open_questions: Vec<String>,
    /// The article in markdown, with `[[wiki links]]`.
    #[schemars(length(max = MAX_ARTICLE_BODY_CHARS))]
    pub article_body: String,
}

/// A claim after the grounding check against the source text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckedClaim {
    /// The claim text.
    pub claim: String,
    /// The confidence after grounding: a `sourced` claim whose quote was not found in the
    /// source reads `inferred`.
    pub confidence: Confidence,
    /// The quote as the model gave it (kept even when not found).
    pub quote: Option<String>,
    /// Whether the quote was found in the source text. `false` for a claim that was
    /// downgraded; `false` as well for claims without a quote.
    pub grounded: bool,
}

/// The JSON Schema of [`CompilationResult`], generated from the type.
///
/// The checked-in golden copy is `schemas/compilation_result.schema.json`.
pub fn compilation_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(CompilationResult))
        .expect("a generated JSON Schema is plain JSON")
}

/// [`compilation_schema`] compiled for the structured engine, once per process.
///
/// There is no fallback: were the generated schema ever one the engine cannot use, this
/// would fail loudly (and `the_contract_compiles_and_means_what_it_says` fails first)
/// rather than let every answer through unchecked.
pub fn compilation_contract() -> &'static wikimind_structured::Schema {
    static CONTRACT: std::sync::LazyLock<wikimind_structured::Schema> =
        std::sync::LazyLock::new(|| {
            wikimind_structured::Schema::new(compilation_schema())
                .expect("the CompilationResult schema is a schema the engine can use")
        });
    &CONTRACT
}

/// The golden copy of the schema, as checked in.
pub const COMPILATION_SCHEMA_GOLDEN: &str =
    include_str!("../../../schemas/compilation_result.schema.json");

/// One claim of an answer to a question, as the model states it: the page it rests on is
/// named, so the claim can be checked against that page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AnswerClaim {
    /// The claim in one sentence.
    pub claim: String,
    /// How the claim is supported.
    #[serde(default)]
    pub confidence: Confidence,
    /// A short verbatim quote from the cited page (required in spirit for `sourced`).
    #[serde(default)]
    pub quote: Option<String>,
    /// The exact title of the wiki page the claim rests on.
    #[serde(default)]
    pub page: String,
}

/// The answer of one ask call: an answer to a question from the wiki's pages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionAnswer {
    /// The answer in markdown, linking the pages it uses with `[[Exact Title]]`.
    pub answer: String,
    /// The claims the answer makes, each citing one page. May be empty.
    #[serde(default)]
    pub claims: Vec<AnswerClaim>,
    /// Questions worth asking next.
    #[serde(default)]
    pub follow_up_questions: Vec<String>,
}

/// The JSON Schema of [`QuestionAnswer`], generated from the type.
///
/// The checked-in golden copy is `schemas/question_answer.schema.json`.
pub fn answer_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(QuestionAnswer))
        .expect("a generated JSON Schema is plain JSON")
}

/// [`answer_schema`] compiled for the structured engine, once per process (no fallback,
/// as for [`compilation_contract`]).
pub fn answer_contract() -> &'static wikimind_structured::Schema {
    static CONTRACT: std::sync::LazyLock<wikimind_structured::Schema> =
        std::sync::LazyLock::new(|| {
            wikimind_structured::Schema::new(answer_schema())
                .expect("the QuestionAnswer schema is a schema the engine can use")
        });
    &CONTRACT
}

/// The golden copy of the answer schema, as checked in.
pub const ANSWER_SCHEMA_GOLDEN: &str = include_str!("../../../schemas/question_answer.schema.json");

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer schema is a reviewed diff too. Regenerate with
    /// `UPDATE_GOLDEN=1 cargo test -p wikimind-contract`.
    #[test]
    fn answer_schema_matches_golden_file() {
        let generated = serde_json::to_string_pretty(&answer_schema()).unwrap() + "\n";
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../schemas/question_answer.schema.json"
            );
            std::fs::write(path, &generated).unwrap();
            return;
        }
        assert_eq!(
            generated, ANSWER_SCHEMA_GOLDEN,
            "the QuestionAnswer type and schemas/question_answer.schema.json disagree; \
             regenerate with UPDATE_GOLDEN=1 cargo test -p wikimind-contract"
        );
        let contract = answer_contract();
        assert!(contract.is_valid(&serde_json::json!({
            "answer": "Espresso is [[Espresso|strong]].",
            "claims": [{"claim": "c", "confidence": "sourced", "quote": "q", "page": "Espresso"}],
            "follow_up_questions": []
        })));
        assert!(
            !contract.is_valid(&serde_json::json!({"claims": []})),
            "answer is required"
        );
    }

    /// The schema sent to models is a visible, reviewed diff: the generated schema must
    /// equal the golden file. Regenerate with `UPDATE_GOLDEN=1 cargo test -p wikimind-contract`.
    #[test]
    fn schema_matches_golden_file() {
        let generated = serde_json::to_string_pretty(&compilation_schema()).unwrap() + "\n";
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../schemas/compilation_result.schema.json"
            );
            std::fs::write(path, &generated).unwrap();
            return;
        }
        assert_eq!(
            generated, COMPILATION_SCHEMA_GOLDEN,
            "the CompilationResult type and schemas/compilation_result.schema.json disagree; \
             rerun with UPDATE_GOLDEN=1 and review the diff"
        );
    }

    #[test]
    fn the_contract_compiles_and_means_what_it_says() {
        let contract = compilation_contract();
        let ok = serde_json::json!({
            "title": "Espresso", "summary": "Coffee under pressure.",
            "key_claims": [{"claim": "It uses nine bars.", "confidence": "sourced", "quote": "nine bars"}],
            "article_body": "Espresso is brewed under pressure."
        });
        assert!(contract.is_valid(&ok));
        for broken in [
            serde_json::json!({}),
            serde_json::json!("Espresso"),
            serde_json::json!({"title": "T", "summary": "S", "key_claims": "none", "article_body": "B"}),
            serde_json::json!({"title": "T", "summary": "S", "key_claims": [{"claim": "c", "confidence": "certain"}], "article_body": "B"}),
        ] {
            assert!(!contract.is_valid(&broken), "accepted {broken}");
        }
        assert!(
            std::ptr::eq(contract, compilation_contract()),
            "compiled once"
        );
    }

    #[test]
    fn defaults_follow_the_contract() {
        let r: CompilationResult = serde_json::from_str(
            r#"{"title":"T","summary":"S","key_claims":[{"claim":"c"}],"article_body":"B"}"#,
        )
        .unwrap();
        assert_eq!(r.key_claims[0].confidence, Confidence::Inferred);
        assert_eq!(r.key_claims[0].quote, None);
        assert!(
            r.concepts.is_empty()
                && r.backlink_suggestions.is_empty()
                && r.open_questions.is_empty()
        );
    }
}
