//! What the app shows of a person's writing: notes, and a page's edits, suggestions and
//! claims (the rules are [`crate::writing`]'s and the store's).

use serde::{Deserialize, Serialize};

use crate::render::{render_article, LinkTarget};
use crate::store::{PageId, SourceId, SourceStatus, WhichClaim};
use crate::wiki::{Result, Wiki};
use crate::writing::NoteSummary;

use super::PageView;

#[cfg(feature = "ts")]
use ts_rs::TS;

/// A note as the Notes screen lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct NoteItemView {
    /// Its stable id (the `<id>` of its origin `note:<id>`).
    pub note_id: String,
    /// Its source's id.
    pub source_id: SourceId,
    /// Its title.
    pub title: String,
    /// Its source's status: `pending` and `stale` wait for a compile.
    pub status: SourceStatus,
    /// When its text or status last changed (UTC, ISO-8601).
    pub updated_at: String,
}

/// A note opened in the editor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct NoteView {
    /// What the list shows of it.
    pub item: NoteItemView,
    /// Its markdown.
    pub text: String,
}

/// The model's text for a section a person edited, waiting on the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SuggestionView {
    /// Its id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// The section's heading as the person has it (`""`: the text before the first heading).
    pub section: String,
    /// The model's whole section as sanitised HTML (the core's renderer).
    pub html: String,
}

/// What saving an edit of a page did, and the page now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct EditedView {
    /// Whether anything changed.
    pub changed: bool,
    /// Whether the edit was made on an older version and merged into the newer one.
    pub merged: bool,
    /// How many sections of the newer version conflicted: the edit's text was kept and
    /// the newer text became a suggestion.
    pub suggestions: u32,
    /// The page as it is now.
    pub page: PageView,
}

/// A name a `[[` completion offers: a page's title or one of its aliases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LinkNameView {
    /// The name to write in the link.
    pub name: String,
    /// The page's title (the name itself, unless it is an alias).
    pub title: String,
}

fn item(n: NoteSummary) -> NoteItemView {
    NoteItemView {
        note_id: n.note_id,
        source_id: n.source_id,
        title: n.title,
        status: n.status,
        updated_at: n.updated_at,
    }
}

impl Wiki {
    /// Every note, by title.
    pub fn notes_view(&self) -> Result<Vec<NoteItemView>> {
        Ok(self.notes()?.into_iter().map(item).collect())
    }

    /// Note `note_id` with its text.
    pub fn note_view(&self, note_id: &str) -> Result<NoteView> {
        let note = self.note(note_id)?;
        Ok(NoteView {
            item: item(note.summary),
            text: note.text,
        })
    }

    /// Writes a new note (see [`Wiki::new_note`]).
    pub fn new_note_view(&self, title: Option<&str>, text: &str) -> Result<NoteItemView> {
        Ok(item(self.new_note(title, text)?.note))
    }

    /// Saves a note's text (see [`Wiki::save_note`]).
    pub fn save_note_view(&self, note_id: &str, text: &str) -> Result<NoteItemView> {
        Ok(item(self.save_note(note_id, text)?.note))
    }

    /// Renames a note (see [`Wiki::rename_note`]).
    pub fn rename_note_view(&self, note_id: &str, title: &str) -> Result<NoteItemView> {
        Ok(item(self.rename_note(note_id, title)?.note))
    }

    /// Removes a note (see [`Wiki::remove_note`]).
    pub fn remove_note_view(&self, note_id: &str) -> Result<bool> {
        self.remove_note(note_id)?;
        Ok(true)
    }

    /// `markdown` as the app previews it: sanitised HTML from the renderer pages use, its
    /// wiki links resolved to the pages they name now.
    pub fn preview_view(&self, markdown: &str) -> String {
        render_article(markdown, &|target: &str| match self.find_page(target) {
            Ok(Some(id)) => LinkTarget::Page {
                id: id.0,
                title: target.trim().to_owned(),
            },
            _ => LinkTarget::Wanted,
        })
        .into_string()
    }

    /// Every page title and alias a link may name, for `[[` completion.
    pub fn link_names_view(&self) -> Result<Vec<LinkNameView>> {
        let mut names = Vec::new();
        for summary in self.store().pages()? {
            if summary.kind != crate::store::PageKind::Topic {
                continue;
            }
            let Some(page) = self.store().page(summary.id)? else {
                continue;
            };
            names.push(LinkNameView {
                name: page.title.clone(),
                title: page.title.clone(),
            });
            for alias in page.aliases {
                names.push(LinkNameView {
                    name: alias,
                    title: page.title.clone(),
                });
            }
        }
        Ok(names)
    }

    /// Saves `body` as page `id`'s body, an edit made on version `on_version`.
    pub fn edit_page_view(&self, id: PageId, on_version: u32, body: &str) -> Result<EditedView> {
        let saved = self.edit_page(id, Some(on_version), body)?;
        Ok(EditedView {
            changed: saved.changed,
            merged: saved.merged,
            suggestions: saved.suggestions as u32,
            page: self.page_view_or_gone(id)?,
        })
    }

    /// Accepts suggestion `suggestion` of page `id` ([`Wiki::accept_suggestion`]); the
    /// page as it is now.
    pub fn accept_suggestion_view(&self, id: PageId, suggestion: i64) -> Result<PageView> {
        self.accept_suggestion(id, suggestion)?;
        self.page_view_or_gone(id)
    }

    /// Dismisses suggestion `suggestion` of page `id` ([`Wiki::dismiss_suggestion`]); the
    /// page as it is now.
    pub fn dismiss_suggestion_view(&self, id: PageId, suggestion: i64) -> Result<PageView> {
        self.dismiss_suggestion(id, suggestion)?;
        self.page_view_or_gone(id)
    }

    /// Adds a claim the person wrote to page `id` ([`Wiki::add_claim`]); the page as it is
    /// now.
    pub fn add_claim_view(&self, id: PageId, text: &str) -> Result<PageView> {
        self.add_claim(id, text)?;
        self.page_view_or_gone(id)
    }

    /// Removes the claim of page `id` whose [`ClaimView::hash`](super::ClaimView::hash) is
    /// `hash` ([`Wiki::remove_claim`]); the page as it is now. A claim a rewrite dropped
    /// since the page was shown is refused, and nothing else is removed.
    pub fn remove_claim_view(&self, id: PageId, hash: &str) -> Result<PageView> {
        self.remove_claim(id, WhichClaim::Hash(hash))?;
        self.page_view_or_gone(id)
    }

    /// Renames page `id` to `title` ([`Wiki::rename_page`]: the old title stays as an
    /// alias); the page now.
    pub fn rename_page_view(&self, id: PageId, title: &str) -> Result<PageView> {
        self.rename_page(id, title)?;
        self.page_view_or_gone(id)
    }

    /// Drops the person's work on page `id` ([`Wiki::revert_to_compiled`]); the page now.
    pub fn revert_page_view(&self, id: PageId) -> Result<PageView> {
        self.revert_to_compiled(id)?;
        self.page_view_or_gone(id)
    }

    fn page_view_or_gone(&self, id: PageId) -> Result<PageView> {
        self.page_view(id)?
            .ok_or_else(|| crate::wiki::WikiError::NoSuchPage(id.to_string()))
    }

    /// A suggestion as the page shows it.
    pub(super) fn suggestion_view(&self, s: crate::store::Suggestion) -> SuggestionView {
        SuggestionView {
            id: s.id,
            section: s.section,
            html: self.preview_view(&s.text),
        }
    }
}
