//! A person writes in the wiki: notes (sources written here), and edits to pages that
//! survive the model's rewrites (the rules live in [`crate::store`]'s writing module and
//! the section merge in [`wikimind_text::markdown::merge_sections`]).
//!
//! A **note** is a source of kind `note` whose origin is `note:<id>`, an id made when the
//! note is created and never changed, so a renamed note keeps its source, digest and pages.
//! Its title is the one the person gives (else its front matter `title` or first H1, else
//! `Untitled note`), and its digest is compiled under that title. Saving changed text marks
//! a compiled note stale, like a file edited on disk.

use serde::Serialize;

use crate::ingest::IngestError;
use crate::store::{
    EditSaved, Landed, NewSource, PageId, SourceId, SourceKind, SourceStatus, Suggestion,
    WhichClaim,
};
use crate::wiki::{PageKey, Result, Wiki, WikiError};

/// The origin prefix of notes.
pub const NOTE_PREFIX: &str = "note:";

/// The title of a note given none.
pub const UNTITLED_NOTE: &str = "Untitled note";

/// A note as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteSummary {
    /// Its stable id (`note:<id>` without the prefix).
    pub note_id: String,
    /// Its source's id.
    pub source_id: SourceId,
    /// Its title.
    pub title: String,
    /// Its source's status (`pending`, `stale`, `compiled`, …).
    pub status: SourceStatus,
    /// When its text or status last changed (UTC, ISO-8601).
    pub updated_at: String,
}

/// A note with its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// What the list shows of it.
    #[serde(flatten)]
    pub summary: NoteSummary,
    /// Its markdown.
    pub text: String,
}

/// What saving a note did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteSaved {
    /// The note as saved.
    #[serde(flatten)]
    pub note: NoteSummary,
    /// `added`, `changed` or `unchanged`.
    pub outcome: Landed,
}

/// A new note id: 16 hex digits from the time, the process and a counter.
fn new_note_id(text: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!(
        "{now}:{}:{}:{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        text.len()
    );
    wikimind_text::hash::content_hash(&seed)[..16].to_owned()
}

/// The title a note of `text` has when the person gives `given`.
fn note_title(given: Option<&str>, text: &str) -> String {
    given
        .and_then(wikimind_text::markdown::clean_title)
        .or_else(|| wikimind_text::markdown::read_note(text, None).title)
        .unwrap_or_else(|| UNTITLED_NOTE.to_owned())
}

impl Wiki {
    /// Writes a new note titled `title` (see the module documentation for a missing one)
    /// holding `text`; it waits to be compiled.
    pub fn new_note(&self, title: Option<&str>, text: &str) -> Result<NoteSaved> {
        let text = crate::ingest::normalise_text(text);
        self.check_note_size(&text)?;
        let origin = format!("{NOTE_PREFIX}{}", new_note_id(&text));
        let outcome = self.store().ingest_source(&NewSource {
            origin,
            kind: SourceKind::Note,
            title: Some(note_title(title, &text)),
            text: text.clone(),
            tags: wikimind_text::markdown::read_note(&text, None).tags,
            aliases: wikimind_text::markdown::read_note(&text, None).aliases,
            root: None,
        })?;
        Ok(NoteSaved {
            note: self.note_summary(outcome.source_id())?,
            outcome: outcome.landed(),
        })
    }

    /// Saves `text` as the text of note `key` (its id, `note:<id>`, source id or title):
    /// changed text marks a compiled note stale.
    pub fn save_note(&self, key: &str, text: &str) -> Result<NoteSaved> {
        let id = self.note_named(key)?;
        let source = self
            .store()
            .source(id)?
            .ok_or(WikiError::NoSuchNote(key.to_owned()))?;
        let text = crate::ingest::normalise_text(text);
        self.check_note_size(&text)?;
        let read = wikimind_text::markdown::read_note(&text, None);
        let outcome = self.store().ingest_source(&NewSource {
            origin: source.origin,
            kind: SourceKind::Note,
            title: source.title,
            text,
            tags: read.tags,
            aliases: read.aliases,
            root: None,
        })?;
        Ok(NoteSaved {
            note: self.note_summary(id)?,
            outcome: outcome.landed(),
        })
    }

    /// Renames note `key`: its source, digest and pages stay; its next compile uses the new
    /// title (a compiled note becomes stale).
    pub fn rename_note(&self, key: &str, title: &str) -> Result<NoteSaved> {
        let id = self.note_named(key)?;
        let title = wikimind_text::markdown::clean_title(title).ok_or_else(|| {
            WikiError::Refused(format!(
                "'{title}' is no title: it has no letters or digits"
            ))
        })?;
        let changed = self.store().retitle_source(id, &title)?;
        Ok(NoteSaved {
            note: self.note_summary(id)?,
            outcome: if changed {
                Landed::Changed
            } else {
                Landed::Unchanged
            },
        })
    }

    /// Removes note `key`: its source goes, and its contributions leave the pages it fed.
    pub fn remove_note(&self, key: &str) -> Result<NoteSummary> {
        let id = self.note_named(key)?;
        let summary = self.note_summary(id)?;
        self.remove_source(id)?;
        Ok(summary)
    }

    /// Every note, by title.
    pub fn notes(&self) -> Result<Vec<NoteSummary>> {
        let mut notes: Vec<NoteSummary> = self
            .store()
            .sources()?
            .into_iter()
            .filter(|s| s.kind == SourceKind::Note)
            .map(|s| NoteSummary {
                note_id: s.origin.trim_start_matches(NOTE_PREFIX).to_owned(),
                source_id: s.id,
                title: s.title.unwrap_or_else(|| UNTITLED_NOTE.to_owned()),
                status: s.status,
                updated_at: s.updated_at,
            })
            .collect();
        notes.sort_by(|a, b| {
            a.title
                .to_lowercase()
                .cmp(&b.title.to_lowercase())
                .then(a.source_id.0.cmp(&b.source_id.0))
        });
        Ok(notes)
    }

    /// Note `key` with its text.
    pub fn note(&self, key: &str) -> Result<Note> {
        let id = self.note_named(key)?;
        let source = self
            .store()
            .source(id)?
            .ok_or(WikiError::NoSuchNote(key.to_owned()))?;
        Ok(Note {
            summary: self.note_summary(id)?,
            text: source.text,
        })
    }

    /// The note a person means by `key`: its id (with or without `note:`), its source id,
    /// or its title (any case; the first by title when two share one).
    pub fn note_named(&self, key: &str) -> Result<SourceId> {
        let key = key.trim();
        let notes = self.notes()?;
        let bare = key.strip_prefix(NOTE_PREFIX).unwrap_or(key);
        let found = notes
            .iter()
            .find(|n| n.note_id == bare)
            .or_else(|| {
                key.parse::<i64>()
                    .ok()
                    .and_then(|n| notes.iter().find(|note| note.source_id.0 == n))
            })
            .or_else(|| {
                notes
                    .iter()
                    .find(|n| n.title.to_lowercase() == key.to_lowercase())
            });
        found
            .map(|n| n.source_id)
            .ok_or_else(|| WikiError::NoSuchNote(key.to_owned()))
    }

    fn note_summary(&self, id: SourceId) -> Result<NoteSummary> {
        let s = self
            .store()
            .source(id)?
            .ok_or_else(|| WikiError::NoSuchNote(id.to_string()))?;
        Ok(NoteSummary {
            note_id: s.origin.trim_start_matches(NOTE_PREFIX).to_owned(),
            source_id: s.id,
            title: s.title.unwrap_or_else(|| UNTITLED_NOTE.to_owned()),
            status: s.status,
            updated_at: s.updated_at,
        })
    }

    fn check_note_size(&self, text: &str) -> Result<()> {
        let limit = self.ingest_options().max_bytes;
        if text.len() as u64 > limit {
            return Err(IngestError::FileTooLarge {
                path: std::path::PathBuf::from("the note"),
                size: text.len() as u64,
                limit,
            }
            .into());
        }
        Ok(())
    }

    /// Saves `body` as the body of page `page`, an edit made on version `on_version`
    /// (`None`: the current one). See [`crate::store::Store::edit_page`].
    pub fn edit_page<'k>(
        &self,
        page: impl Into<PageKey<'k>>,
        on_version: Option<u32>,
        body: &str,
    ) -> Result<EditSaved> {
        let id = self.page_id(page)?;
        let on = match on_version {
            Some(v) => v,
            None => self.page_version(id)?,
        };
        let body = crate::ingest::normalise_text(body);
        Ok(self.store().edit_page(id, on, &body)?)
    }

    /// The suggestions waiting on page `page`.
    pub fn suggestions<'k>(&self, page: impl Into<PageKey<'k>>) -> Result<Vec<Suggestion>> {
        Ok(self.store().page_suggestions(self.page_id(page)?)?)
    }

    /// Accepts suggestion `id` of page `page`; returns the page's new version.
    pub fn accept_suggestion<'k>(&self, page: impl Into<PageKey<'k>>, id: i64) -> Result<u32> {
        Ok(self.store().accept_suggestion(self.page_id(page)?, id)?)
    }

    /// Dismisses suggestion `id` of page `page`.
    pub fn dismiss_suggestion<'k>(&self, page: impl Into<PageKey<'k>>, id: i64) -> Result<()> {
        Ok(self.store().dismiss_suggestion(self.page_id(page)?, id)?)
    }

    /// Adds a claim the person wrote to page `page`; returns the page's new version.
    pub fn add_claim<'k>(&self, page: impl Into<PageKey<'k>>, text: &str) -> Result<u32> {
        Ok(self.store().add_person_claim(self.page_id(page)?, text)?)
    }

    /// Removes claim `which` of page `page` (by its number from 1, as `claim rm` takes it,
    /// or by its hash, as the window sends it); returns the page's new version and the
    /// claim's text.
    pub fn remove_claim<'k>(
        &self,
        page: impl Into<PageKey<'k>>,
        which: WhichClaim<'_>,
    ) -> Result<(u32, String)> {
        Ok(self.store().remove_page_claim(self.page_id(page)?, which)?)
    }

    /// Renames page `page` to `title` (the old title stays an alias); returns the page.
    pub fn rename_page<'k>(&self, page: impl Into<PageKey<'k>>, title: &str) -> Result<PageId> {
        let id = self.page_id(page)?;
        self.store().rename_page(id, title)?;
        Ok(id)
    }

    /// Drops the person's work on page `page` (see
    /// [`crate::store::Store::revert_to_compiled`]); returns the new version, `None` when
    /// no model wrote the page yet.
    pub fn revert_to_compiled<'k>(&self, page: impl Into<PageKey<'k>>) -> Result<Option<u32>> {
        Ok(self.store().revert_to_compiled(self.page_id(page)?)?)
    }

    fn page_version(&self, id: PageId) -> Result<u32> {
        Ok(self
            .store()
            .page(id)?
            .ok_or_else(|| WikiError::NoSuchPage(id.to_string()))?
            .version)
    }
}

#[cfg(test)]
#[path = "writing_tests.rs"]
mod tests;
