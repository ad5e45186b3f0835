//! The eval judge's contract: the rubric a judge model scores an article by, its schema
//! generated with schemars and checked in as `schemas/judge_verdict.schema.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wikimind_structured::Schema;

/// One criterion's score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RubricScore {
    /// From 1 (worst) to 5 (best).
    #[schemars(range(min = 1, max = 5), transform = plain_integer)]
    pub score: u8,
    /// One line saying what decided the score.
    pub reason: String,
}

/// Leaves a score's schema `type`, `minimum` and `maximum` only: the `uint8` format
/// schemars adds is not one every constrained decoder knows.
fn plain_integer(schema: &mut schemars::Schema) {
    schema.remove("format");
}

/// The judge's answer: the article scored against its source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JudgeVerdict {
    /// Whether the article says only what the source supports.
    pub faithfulness: RubricScore,
    /// Whether the article keeps the source's important points.
    pub coverage: RubricScore,
}

/// The JSON Schema of [`JudgeVerdict`], generated from the type.
///
/// The checked-in golden copy is `schemas/judge_verdict.schema.json`.
pub fn verdict_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(JudgeVerdict))
        .expect("a generated JSON Schema is plain JSON")
}

/// [`verdict_schema`] compiled for the structured engine, once per process (no fallback: a
/// unit test pins that it compiles).
pub fn verdict_contract() -> &'static Schema {
    static CONTRACT: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(|| {
        Schema::new(verdict_schema())
            .expect("the JudgeVerdict schema is a schema the engine can use")
    });
    &CONTRACT
}

/// The golden copy of the schema, as checked in.
pub const VERDICT_SCHEMA_GOLDEN: &str = include_str!("../../../schemas/judge_verdict.schema.json");

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema sent to judges is a visible, reviewed diff: the generated schema must
    /// equal the golden file. Regenerate with `UPDATE_GOLDEN=1 cargo test -p wikimind-contract judge`.
    #[test]
    fn verdict_schema_matches_golden_file() {
        let generated = serde_json::to_string_pretty(&verdict_schema()).unwrap() + "\n";
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../schemas/judge_verdict.schema.json"
            );
            std::fs::write(path, &generated).unwrap();
            return;
        }
        assert_eq!(
            generated, VERDICT_SCHEMA_GOLDEN,
            "the JudgeVerdict type and schemas/judge_verdict.schema.json disagree; \
             rerun with UPDATE_GOLDEN=1 and review the diff"
        );
    }
}
