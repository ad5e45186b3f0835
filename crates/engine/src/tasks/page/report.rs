//! What writing one page reports to its caller: the queue, the CLI and the app.

use serde::Serialize;

use crate::store::{ClaimLeft, PageId};

use crate::call::attempt::AttemptRecord;

/// How a page job ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum PageOutcome {
    /// The model wrote a new version of the page.
    Written {
        /// Its number.
        version: u32,
    },
    /// Every new or changed digest only repeats what the page says: the page gained the
    /// sources in its list, with no model call.
    NoNewInformation,
    /// Nothing to write: the page is current, is one digest, or no longer exists.
    UpToDate,
    /// Every answer was refused by the rewrite guard (it lost a source's claims or shrank
    /// the page): the previous version stays and the page is flagged with this reason.
    Flagged {
        /// Why, for a person.
        reason: String,
    },
    /// No answer could be had or made valid: the page stays as it was, still stale.
    Failed {
        /// Why, for a person.
        reason: String,
    },
}

/// The result of writing one page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageReport {
    /// Which page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// How it ended.
    #[serde(flatten)]
    pub outcome: PageOutcome,
    /// How many sources feed the page.
    pub sources: usize,
    /// How many of them were new or changed since it was last written.
    pub changed: usize,
    /// How many of the new or changed ones the page only lists, with their summaries, with
    /// no call: they add nothing it lacks, or the job had no room left for them.
    pub listed: usize,
    /// Calls made to models (0 for a page that needed none) and the tokens reported over
    /// them (`calls`, `tokens_in`, `tokens_out`).
    #[serde(flatten)]
    pub usage: crate::call::usage::Usage,
    /// The provider and model that wrote it.
    pub provider: Option<String>,
    /// Warnings (downgraded quotes, material read in parts, refused answers).
    pub warnings: Vec<String>,
    /// Wall time of the job.
    pub elapsed_ms: u64,
    /// Every model call made, in order, with how its answer fared.
    pub attempts: Vec<AttemptRecord>,
    /// The prompt template version used.
    pub prompt_version: String,
    /// The claims that left the page because it was full, and why (each stays in its
    /// sources' digests and in search).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims_left: Vec<ClaimLeft>,
}

impl PageReport {
    /// The report of a job on `page_id` that has not done anything yet.
    pub fn nothing_yet(page_id: PageId, title: String) -> PageReport {
        PageReport {
            page_id,
            title,
            outcome: PageOutcome::UpToDate,
            sources: 0,
            changed: 0,
            listed: 0,
            usage: crate::call::usage::Usage::default(),
            provider: None,
            claims_left: Vec::new(),
            warnings: Vec::new(),
            elapsed_ms: 0,
            attempts: Vec::new(),
            prompt_version: String::new(),
        }
    }

    /// Whether the page is as its digests say: written, current, or only gaining sources.
    /// A flagged or failed page is not.
    pub fn ok(&self) -> bool {
        !matches!(
            self.outcome,
            PageOutcome::Flagged { .. } | PageOutcome::Failed { .. }
        )
    }

    /// Why the job did not succeed, for a person (`None` when it did).
    pub fn reason(&self) -> Option<&str> {
        match &self.outcome {
            PageOutcome::Flagged { reason } | PageOutcome::Failed { reason } => Some(reason),
            _ => None,
        }
    }
}
