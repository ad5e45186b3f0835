//! What a compile reports to its caller ([`CompileReport`]). Pure: the digest task and the
//! app that saves it fill it in as calls come back.

use serde::Serialize;

use crate::call::attempt::repair_names;
use crate::store::{ArticleId, SavedArticle, SourceId};
use crate::tasks::article::Accepted;
use crate::tasks::parts::LargeSourceReport;

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
    /// `warnings` are those stored with it (the compile's, then the answer's own).
    pub fn saved(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::usage::Usage;
    use crate::tasks::parts::FailedChunk;

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
}
