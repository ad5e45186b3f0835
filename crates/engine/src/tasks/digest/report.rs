//! What a compile reports: to its caller ([`CompileReport`], [`LargeSourceReport`]) and to
//! the compile log ([`LastCall`] → [`CompileRecord`]). Pure: the driver fills these in as
//! calls come back.

use serde::Serialize;

use crate::call::attempt::repair_names;
use crate::llm::ChatResponse;
use crate::store::{ArticleId, CompileRecord, SavedArticle, SourceId};

use crate::call::step::{Accepted, Judged, Judgement};

/// The result of compiling one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompileReport {
    /// Which source.
    pub source_id: SourceId,
    /// Whether an article was stored.
    pub ok: bool,
    /// The stored article.
    pub article_id: Option<ArticleId>,
    /// Its title as stored.
    pub title: Option<String>,
    /// The title the model asked for, when another article already had it.
    pub collision_with: Option<String>,
    /// Why it failed.
    pub reason: Option<String>,
    /// Calls made to models and the tokens reported (`calls`, `tokens_in`, `tokens_out`).
    #[serde(flatten)]
    pub usage: crate::call::usage::Usage,
    /// The provider and model that wrote the article.
    pub provider: Option<String>,
    /// Whether the article was written from a cut-off answer.
    pub truncated: bool,
    /// Repairs applied to the accepted answer (kind names).
    pub repairs: Vec<String>,
    /// Warnings (downgraded quotes, truncation, earlier rejected attempts).
    pub warnings: Vec<String>,
    /// Wall time of the compile.
    pub elapsed_ms: u64,
    /// Every model call made, in order, with how its answer fared.
    pub attempts: Vec<crate::call::attempt::AttemptRecord>,
    /// The prompt template version used.
    pub prompt_version: String,
    /// How a large source was read in parts (absent when it fit in one call).
    pub large: Option<LargeSourceReport>,
    /// Set when the model's title was not a name the source says and the source's own
    /// title was used (see [`crate::tasks::names`]).
    pub title_note: Option<String>,
    /// Names the model proposed that are not pages' names, with why.
    pub rejected_names: Vec<crate::tasks::names::RejectedName>,
}

impl CompileReport {
    /// The report of a compile of `source_id` that has not done anything yet (not ok, no
    /// calls, no reason).
    pub fn nothing_yet(source_id: SourceId) -> CompileReport {
        CompileReport {
            source_id,
            ok: false,
            article_id: None,
            title: None,
            collision_with: None,
            reason: None,
            usage: crate::call::usage::Usage::default(),
            provider: None,
            truncated: false,
            repairs: Vec::new(),
            warnings: Vec::new(),
            elapsed_ms: 0,
            prompt_version: String::new(),
            large: None,
            title_note: None,
            rejected_names: Vec::new(),
            attempts: Vec::new(),
        }
    }

    /// Adds the reading of a large source: its calls, tokens and warnings.
    pub(crate) fn add_reading(&mut self, large: LargeSourceReport) {
        self.warnings.extend(large.warnings());
        self.usage += large.usage;
        self.large = Some(large);
    }

    /// The warnings stored with the article `accepted` is about to become: this compile's
    /// so far, then the answer's own.
    pub(crate) fn warnings_with(&self, accepted: &Accepted) -> Vec<String> {
        let mut warnings = self.warnings.clone();
        warnings.extend(accepted.warnings.iter().cloned());
        warnings
    }

    /// Marks the compile done: `accepted` was stored as `saved`, written by `provider`;
    /// `warnings` are those stored with it ([`Self::warnings_with`]).
    pub(crate) fn saved(
        &mut self,
        accepted: &Accepted,
        saved: SavedArticle,
        provider: &str,
        mut warnings: Vec<String>,
    ) {
        if saved.collision {
            warnings.push(format!(
                "the title \"{}\" was taken by another source's article; stored as \"{}\"",
                saved.requested_title, saved.title
            ));
            self.collision_with = Some(saved.requested_title);
        }
        self.ok = true;
        self.article_id = Some(saved.article_id);
        self.title = Some(saved.title);
        self.provider = Some(provider.to_string());
        self.truncated = accepted.truncated;
        self.repairs = repair_names(&accepted.repairs);
        self.warnings = warnings;
    }
}

/// How a large source was read: chunks, calls, what was found, what could not be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LargeSourceReport {
    /// The context size the chunks were sized for, in tokens.
    pub context_tokens: u64,
    /// How many chunks the source was split into.
    pub chunks: usize,
    /// Extraction calls made (retries included) and the tokens reported over them
    /// (`calls`, `tokens_in`, `tokens_out`).
    #[serde(flatten)]
    pub usage: crate::call::usage::Usage,
    /// Notes kept after merging (duplicates across chunks dropped).
    pub notes: usize,
    /// Claims among them.
    pub claims: usize,
    /// Notes that did not fit in the final compile call.
    pub notes_left_out: usize,
    /// Chunks that could not be read, with where they are and why.
    pub failed_chunks: Vec<FailedChunk>,
    /// Chunks (from 1) whose answer reached the output limit: their notes up to the cut
    /// are kept, what the model would have written after it is missing.
    pub cut_off_chunks: Vec<usize>,
    /// Lines of the kept extraction answers that were not valid notes (skipped).
    pub skipped_lines: usize,
}

impl LargeSourceReport {
    /// What a person should know about the reading: notes left out of the final call,
    /// parts that could not be read or were cut off, lines skipped.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.notes_left_out > 0 {
            warnings.push(format!(
                "{} of {} notes did not fit in the final call (they were spread evenly over the source)",
                self.notes_left_out, self.notes
            ));
        }
        for f in &self.failed_chunks {
            warnings.push(format!(
                "part {} of {} (bytes {}–{}) could not be read: {}",
                f.part, self.chunks, f.start, f.end, f.reason
            ));
        }
        for p in &self.cut_off_chunks {
            warnings.push(format!(
                "part {p} of {}: the notes stopped at the output limit; what came after is missing",
                self.chunks
            ));
        }
        if self.skipped_lines > 0 {
            warnings.push(format!(
                "{} line(s) of the extraction answers were not valid notes and were skipped",
                self.skipped_lines
            ));
        }
        warnings
    }
}

/// A part of a source that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedChunk {
    /// Which part, from 1.
    pub part: usize,
    /// Byte offset where it starts in the source.
    pub start: usize,
    /// Byte offset where it ends.
    pub end: usize,
    /// Why.
    pub reason: String,
}

/// What the last model call returned, for the compile log.
#[derive(Debug, Default)]
pub(crate) struct LastCall {
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The model as the server named it in its answer.
    pub model: String,
    /// The attempt with this provider, from 1.
    pub attempt: u32,
    tokens_in: Option<u64>,
    tokens_out: Option<u64>,
    latency_ms: u64,
    raw: String,
    repairs: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
}

impl LastCall {
    /// The call `attempt` of provider `label` that answered `resp`, judged `judgement`.
    pub fn answered<A: Judged>(
        label: &str,
        attempt: u32,
        resp: &ChatResponse,
        judgement: &Judgement<A>,
        cut_off: bool,
    ) -> LastCall {
        LastCall {
            provider: label.to_string(),
            model: resp.model.clone(),
            attempt,
            tokens_in: resp.prompt_tokens,
            tokens_out: resp.completion_tokens,
            latency_ms: resp.latency.as_millis() as u64,
            raw: resp.text.clone(),
            repairs: repair_names(judgement.repairs()),
            truncated: cut_off,
        }
    }

    /// The compile log's record of this call.
    pub fn record(
        &self,
        prompt_version: &str,
        warnings: Vec<String>,
        truncated: bool,
    ) -> CompileRecord {
        let (provider, model) = match self.provider.split_once(':') {
            Some((p, m)) if self.model.is_empty() => (p.to_string(), m.to_string()),
            Some((p, _)) => (p.to_string(), self.model.clone()),
            None => (self.provider.clone(), self.model.clone()),
        };
        CompileRecord {
            provider,
            model,
            prompt_version: prompt_version.to_string(),
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            latency_ms: self.latency_ms,
            attempt: self.attempt,
            repairs: self.repairs.clone(),
            warnings,
            truncated,
            raw_answer: self.raw.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::usage::Usage;

    #[test]
    fn a_reading_tells_what_is_missing_from_the_article() {
        let large = LargeSourceReport {
            chunks: 4,
            notes: 90,
            notes_left_out: 12,
            failed_chunks: vec![FailedChunk {
                part: 3,
                start: 2_000,
                end: 3_100,
                reason: "timed out".into(),
            }],
            cut_off_chunks: vec![1],
            skipped_lines: 2,
            usage: Usage {
                calls: 6,
                tokens_in: 100,
                tokens_out: 40,
            },
            ..LargeSourceReport::default()
        };
        let mut report = CompileReport::nothing_yet(SourceId(1));
        report.add_reading(large);
        assert_eq!(
            report.warnings,
            vec![
                "12 of 90 notes did not fit in the final call (they were spread evenly over the source)",
                "part 3 of 4 (bytes 2000–3100) could not be read: timed out",
                "part 1 of 4: the notes stopped at the output limit; what came after is missing",
                "2 line(s) of the extraction answers were not valid notes and were skipped",
            ]
        );
        assert_eq!(
            (
                report.usage.calls,
                report.usage.tokens_in,
                report.usage.tokens_out
            ),
            (6, 100, 40)
        );
        assert!(report.large.is_some());
    }

    #[test]
    fn a_clean_reading_warns_of_nothing() {
        let large = LargeSourceReport {
            chunks: 3,
            notes: 10,
            ..LargeSourceReport::default()
        };
        assert!(large.warnings().is_empty());
    }

    #[test]
    fn the_log_names_the_model_that_answered_else_the_one_configured() {
        // (label, model the server named) → (provider, model) in the log
        let table = [
            ("ollama:qwen2.5:3b", "", ("ollama", "qwen2.5:3b")),
            (
                "ollama:qwen2.5:3b",
                "qwen2.5:3b-q4",
                ("ollama", "qwen2.5:3b-q4"),
            ),
            ("builtin", "m", ("builtin", "m")),
        ];
        for (label, model, (provider, want_model)) in table {
            let last = LastCall {
                provider: label.into(),
                model: model.into(),
                ..LastCall::default()
            };
            let record = last.record("v1", Vec::new(), false);
            assert_eq!(
                (record.provider.as_str(), record.model.as_str()),
                (provider, want_model)
            );
        }
    }
}
