//! Ingesting a source: its row added or its text replaced, its pages recorded, and, when
//! its text changed, every citation of it anchored again in the new text — one
//! transaction, so a citation never points into a text it was not placed in.

use crate::tables::source_pages::{pages_of, replace_pages, SourcePage};
use crate::tables::sources::ingest_in;
use crate::tx::cite::reanchor_source;
use crate::{IngestOutcome, NewSource, Result, Store};

impl Store {
    /// Adds a source, or updates the one with the same origin. Identity is the origin;
    /// the content hash only tells whether the text changed. Re-ingesting the same text
    /// changes nothing. New text replaces the old; the kind is updated, and the title hint
    /// too unless the new one is `None`.
    pub fn ingest_source(&self, new: &NewSource) -> Result<IngestOutcome> {
        self.ingest_source_from(new, None)
    }

    /// [`Store::ingest_source`] for a web page, also recording the URL it was finally read
    /// from after redirects (`None`: it did not redirect). The origin stays the identity;
    /// the final URL is replaced by each ingest, even when the text did not change.
    pub fn ingest_source_from(
        &self,
        new: &NewSource,
        final_url: Option<&str>,
    ) -> Result<IngestOutcome> {
        self.ingest_paged_source(new, final_url, &[])
    }

    /// [`Store::ingest_source_from`] for a paged source (a PDF), also recording where each
    /// of its `pages` lies in its text (none for other sources). When the text changed (or
    /// the same text now comes with other pages), the citations of the source are anchored
    /// again: each quote still in the text keeps or moves its place, page and heading; one
    /// that is not is kept as lost, so the claim citing it no longer grounds.
    pub fn ingest_paged_source(
        &self,
        new: &NewSource,
        final_url: Option<&str>,
        pages: &[SourcePage],
    ) -> Result<IngestOutcome> {
        self.write(
            || format!("ingesting the source {}", new.origin),
            |tx| {
                let outcome = ingest_in(tx, new, final_url)?;
                match outcome {
                    IngestOutcome::Added(id) => {
                        if !pages.is_empty() {
                            replace_pages(tx, id, pages)?;
                        }
                    }
                    IngestOutcome::Changed(id) => {
                        replace_pages(tx, id, pages)?;
                        reanchor_source(tx, id)?;
                    }
                    IngestOutcome::Unchanged(id) => {
                        if !pages.is_empty() && pages_of(tx, id)? != pages {
                            replace_pages(tx, id, pages)?;
                            reanchor_source(tx, id)?;
                        }
                    }
                }
                Ok(outcome)
            },
        )
    }
}
