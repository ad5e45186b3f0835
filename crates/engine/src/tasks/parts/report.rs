//! What reading a large text in parts reports: chunks, calls, notes, what could not be read.

use serde::Serialize;

use crate::call::Usage;

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
    pub usage: Usage,
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
