//! The compile log (`compilations`): one row per model call that compiled a source, with
//! its provider, model, tokens, latency, repairs and raw answer, kept whether it succeeded
//! or not.

use rusqlite::{params, Transaction};
use serde::{Deserialize, Serialize};

use crate::json::{from_json, to_json};
use crate::{Result, SourceId, Store};

/// How one compile call went, for the compile log.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CompileRecord {
    /// The provider name, e.g. `ollama`.
    pub provider: String,
    /// The model name.
    pub model: String,
    /// The version of the prompt that was sent.
    pub prompt_version: String,
    /// Prompt tokens, when the provider reported them.
    pub tokens_in: Option<u64>,
    /// Answer tokens, when the provider reported them.
    pub tokens_out: Option<u64>,
    /// Wall time of the call.
    pub latency_ms: u64,
    /// Which attempt this was (1 for the first).
    pub attempt: u32,
    /// Repairs the lenient parser made.
    pub repairs: Vec<String>,
    /// Warnings raised while judging the answer.
    pub warnings: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
    /// The model's raw answer, kept as it came.
    pub raw_answer: String,
}

/// The outcome of one logged compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompileOutcome {
    /// An article was saved.
    Compiled,
    /// No article; see the reason.
    Failed,
}

/// One row of the compile log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompilationRow {
    /// The row id (increasing).
    pub id: i64,
    /// The compiled source.
    pub source_id: SourceId,
    /// The call as recorded.
    #[serde(flatten)]
    pub record: CompileRecord,
    /// Whether an article came of it.
    pub outcome: CompileOutcome,
    /// Why it failed.
    pub reason: Option<String>,
    /// When it was logged (UTC, ISO-8601).
    pub created_at: String,
}

/// SQLite integers are signed; token counts and latencies never get near the limit, and
/// saturating is better than failing a compile over a log field.
fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(crate) fn log_compilation(
    tx: &Transaction<'_>,
    source_id: SourceId,
    record: &CompileRecord,
    outcome: CompileOutcome,
    reason: Option<&str>,
) -> Result<()> {
    let outcome = match outcome {
        CompileOutcome::Compiled => "compiled",
        CompileOutcome::Failed => "failed",
    };
    tx.prepare_cached(
        "INSERT INTO compilations (source_id, provider, model, prompt_version, tokens_in,
             tokens_out, latency_ms, attempt, repairs, warnings, truncated, raw_answer,
             outcome, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        source_id,
        record.provider,
        record.model,
        record.prompt_version,
        record.tokens_in.map(to_i64),
        record.tokens_out.map(to_i64),
        to_i64(record.latency_ms),
        record.attempt,
        to_json("compilations.repairs", &record.repairs)?,
        to_json("compilations.warnings", &record.warnings)?,
        record.truncated,
        record.raw_answer,
        outcome,
        reason,
    ])?;
    Ok(())
}

impl Store {
    /// The compile log of a source, oldest first.
    pub fn compilations(&self, source_id: SourceId) -> Result<Vec<CompilationRow>> {
        self.read(
            || format!("reading the compile log of source {source_id}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, source_id, provider, model, prompt_version, tokens_in, tokens_out,
                            latency_ms, attempt, repairs, warnings, truncated, raw_answer,
                            outcome, reason, created_at
                     FROM compilations WHERE source_id = ?1 ORDER BY id",
                )?;
                let mut rows = stmt.query([source_id])?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    let repairs: String = row.get(9)?;
                    let warnings: String = row.get(10)?;
                    let outcome: String = row.get(13)?;
                    let tokens = |i: usize| -> rusqlite::Result<Option<u64>> {
                        Ok(row
                            .get::<_, Option<i64>>(i)?
                            .map(|v| u64::try_from(v).unwrap_or(0)))
                    };
                    out.push(CompilationRow {
                        id: row.get(0)?,
                        source_id: row.get(1)?,
                        record: CompileRecord {
                            provider: row.get(2)?,
                            model: row.get(3)?,
                            prompt_version: row.get(4)?,
                            tokens_in: tokens(5)?,
                            tokens_out: tokens(6)?,
                            latency_ms: u64::try_from(row.get::<_, i64>(7)?).unwrap_or(0),
                            attempt: row.get(8)?,
                            repairs: from_json("compilations.repairs", &repairs)?,
                            warnings: from_json("compilations.warnings", &warnings)?,
                            truncated: row.get(11)?,
                            raw_answer: row.get(12)?,
                        },
                        outcome: if outcome == "compiled" {
                            CompileOutcome::Compiled
                        } else {
                            CompileOutcome::Failed
                        },
                        reason: row.get(14)?,
                        created_at: row.get(15)?,
                    });
                }
                Ok(out)
            },
        )
    }
}
