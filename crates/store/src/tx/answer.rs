//! Saving an answer as a page of its own kind: a new page, or the next version of the page
//! the same question was saved as before.

use rusqlite::{params, OptionalExtension};

use crate::tables::pages::{answer_key, PageContent};
use crate::tx::versions::{write_version, Author};
use crate::{PageId, Result, Store};

/// An answer to keep as a page.
#[derive(Debug, Clone)]
pub struct AnswerPage<'a> {
    /// The question (the page's title).
    pub question: &'a str,
    /// What the page says: the answer, its claims (each naming the page it cites) and
    /// links to the pages it cites.
    pub content: &'a PageContent,
    /// Why it is marked (claims that did not ground), or `None`.
    pub marked: Option<&'a str>,
    /// The provider that answered.
    pub provider: &'a str,
    /// The model that answered.
    pub model: &'a str,
}

/// A saved answer page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedAnswer {
    /// The page.
    pub page_id: PageId,
    /// Its title (the question).
    pub title: String,
    /// The version just written (2 or more when the question was saved before).
    pub version: u32,
}

impl Store {
    /// Keeps `answer` as the page of its question: a new page of kind `answer`, or the
    /// next version of the page the same question was saved as before. An answer page
    /// has no sources: no digest feeds it and it feeds no topic.
    pub fn save_answer(&self, answer: &AnswerPage<'_>) -> Result<SavedAnswer> {
        let key = answer_key(answer.question);
        self.write(
            || format!("saving the answer to {:?}", answer.question),
            |tx| {
                let existing: Option<PageId> = tx
                    .prepare_cached("SELECT id FROM pages WHERE title_key = ?1")?
                    .query_row([&key], |row| row.get(0))
                    .optional()?;
                let page = match existing {
                    Some(page) => page,
                    None => {
                        tx.prepare_cached(
                            "INSERT INTO pages (kind, title, title_key, summary, body, version)
                             VALUES ('answer', ?1, ?2, '', '', 0)",
                        )?
                        .execute(params![answer.content.title, key])?;
                        PageId(tx.last_insert_rowid())
                    }
                };
                let version = write_version(
                    tx,
                    page,
                    answer.content,
                    Author::Model {
                        provider: answer.provider,
                        model: answer.model,
                    },
                    None,
                )?;
                tx.prepare_cached("UPDATE pages SET flagged = ?2 WHERE id = ?1")?
                    .execute(params![page, answer.marked])?;
                Ok(SavedAnswer {
                    page_id: page,
                    title: answer.content.title.clone(),
                    version,
                })
            },
        )
    }
}
