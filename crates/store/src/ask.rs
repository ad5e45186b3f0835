//! What asking the wiki reads and writes: the pages a question's words find (full-text,
//! BM25 over titles, aliases, summaries, claims and bodies), the pages one link away from
//! them, the text a cited page's claims are checked against, and saved answers (pages of
//! kind `answer`, see migration 11).

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use super::pages::{answer_key, PageContent};
use super::versions::{write_version, Author};
use super::{PageId, Result, SourceId, Store};

/// One word of a question to search for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    /// The word (only its letters and digits are searched).
    pub word: String,
    /// Whether longer words starting with it match too (`grinder` finds `grinders`).
    pub prefix: bool,
}

/// A page a question's words found, or one linked with such a page.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundPage {
    /// The page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// Its BM25 rank (lower is better; neighbours have none).
    pub rank: Option<f64>,
}

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

/// The FTS5 query matching any of `terms`, or `None` when no term has a word.
pub(super) fn any_of(terms: &[QueryTerm]) -> Option<String> {
    let parts: Vec<String> = terms
        .iter()
        .filter_map(|t| {
            let word: String = t.word.chars().filter(|c| c.is_alphanumeric()).collect();
            if word.is_empty() {
                return None;
            }
            Some(if t.prefix {
                format!("\"{word}\"*")
            } else {
                format!("\"{word}\"")
            })
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(" OR "))
}

impl Store {
    /// The topic pages matching any of `terms`, best first by BM25 (title, aliases,
    /// summary, claims, body, weighed in that order), at most `limit`. Saved answers are
    /// never found: an answer is read from the pages, not from earlier answers.
    pub fn match_pages(&self, terms: &[QueryTerm], limit: usize) -> Result<Vec<FoundPage>> {
        let Some(query) = any_of(terms) else {
            return Ok(Vec::new());
        };
        self.read(
            || format!("finding the pages of {query:?}"),
            |conn| {
                let mut stmt = conn.prepare(
                    "SELECT p.id, p.title, bm25(pages_fts, 10.0, 6.0, 4.0, 2.0, 1.0) AS rank
                     FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid
                     WHERE pages_fts MATCH ?1 AND p.kind = 'topic' AND p.version > 0
                     ORDER BY rank, p.id
                     LIMIT ?2",
                )?;
                let rows = stmt.query_map(params![query, limit as i64], |row| {
                    Ok(FoundPage {
                        page_id: row.get(0)?,
                        title: row.get(1)?,
                        rank: Some(row.get(2)?),
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// The topic pages (written at least once) whose title or other name has one of
    /// `keys` ([`page_key`](super::page_key)s), in the order of `keys`, each once.
    pub fn topic_pages_named(&self, keys: &[String]) -> Result<Vec<FoundPage>> {
        self.read(
            || "finding the pages a question names".to_owned(),
            |conn| {
                let mut found: Vec<FoundPage> = Vec::new();
                for key in keys {
                    let Some(id) = super::pages::resolve_key(conn, key)? else {
                        continue;
                    };
                    if found.iter().any(|f| f.page_id == id) {
                        continue;
                    }
                    let title: Option<String> = conn
                        .query_row(
                            "SELECT title FROM pages
                             WHERE id = ?1 AND kind = 'topic' AND version > 0",
                            [id],
                            |row| row.get(0),
                        )
                        .optional()?;
                    if let Some(title) = title {
                        found.push(FoundPage {
                            page_id: id,
                            title,
                            rank: None,
                        });
                    }
                }
                Ok(found)
            },
        )
    }

    /// The topic pages one link away from `pages` (links out, resolved now, and links
    /// in), not among them: first those linked with the most of `pages`, then those linked
    /// with the better ranked (earlier) ones, at most `limit`.
    pub fn neighbour_pages(&self, pages: &[PageId], limit: usize) -> Result<Vec<FoundPage>> {
        if pages.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        self.read(
            || "finding the pages linked with the best matches".to_owned(),
            |conn| {
                let mut found: HashMap<PageId, (usize, usize, String)> = HashMap::new();
                for (position, page) in pages.iter().enumerate() {
                    for (id, title) in linked_with(conn, *page)? {
                        if pages.contains(&id) {
                            continue;
                        }
                        let entry = found.entry(id).or_insert((0, position, title));
                        entry.0 += 1;
                    }
                }
                let mut found: Vec<(PageId, (usize, usize, String))> = found.into_iter().collect();
                found.sort_by(|a, b| {
                    b.1 .0
                        .cmp(&a.1 .0)
                        .then(a.1 .1.cmp(&b.1 .1))
                        .then(a.0.cmp(&b.0))
                });
                Ok(found
                    .into_iter()
                    .take(limit)
                    .map(|(page_id, (_, _, title))| FoundPage {
                        page_id,
                        title,
                        rank: None,
                    })
                    .collect())
            },
        )
    }

    /// The text of every source feeding `page`, by source id: what a claim citing the
    /// page may quote besides the page itself.
    pub fn page_source_texts(&self, page: PageId) -> Result<Vec<(SourceId, String)>> {
        self.read(
            || format!("reading the sources of page {page}"),
            |conn| source_texts_of(conn, page),
        )
    }

    /// Keeps `answer` as the page of its question: a new page of kind `answer`, or the
    /// next version of the page the same question was saved as before. An answer page
    /// has no sources: no digest feeds it and it feeds no topic.
    pub fn save_answer(&self, answer: &AnswerPage<'_>) -> Result<SavedAnswer> {
        let key = answer_key(answer.question);
        self.write(
            || format!("saving the answer to {:?}", answer.question),
            |tx| {
                let existing: Option<PageId> = tx
                    .query_row("SELECT id FROM pages WHERE title_key = ?1", [&key], |row| {
                        row.get(0)
                    })
                    .optional()?;
                let page = match existing {
                    Some(page) => page,
                    None => {
                        tx.execute(
                            "INSERT INTO pages (kind, title, title_key, summary, body, version)
                             VALUES ('answer', ?1, ?2, '', '', 0)",
                            params![answer.content.title, key],
                        )?;
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
                tx.execute(
                    "UPDATE pages SET flagged = ?2 WHERE id = ?1",
                    params![page, answer.marked],
                )?;
                Ok(SavedAnswer {
                    page_id: page,
                    title: answer.content.title.clone(),
                    version,
                })
            },
        )
    }
}

/// The topic pages `page` links to (resolved now) and that link to it, with their titles.
fn linked_with(conn: &Connection, page: PageId) -> Result<Vec<(PageId, String)>> {
    let mut stmt = conn.prepare(
        "SELECT p.id, p.title FROM page_links l
         JOIN pages p ON p.id = COALESCE(
             (SELECT id FROM pages WHERE title_key = l.target_key),
             (SELECT page_id FROM aliases WHERE name_key = l.target_key AND former = 1))
         WHERE l.page_id = ?1 AND p.kind = 'topic' AND p.version > 0
         UNION
         SELECT p.id, p.title FROM page_links l JOIN pages p ON p.id = l.page_id
         WHERE p.kind = 'topic' AND p.version > 0 AND l.page_id <> ?1
           AND (l.target_key = (SELECT title_key FROM pages WHERE id = ?1)
                OR l.target_key IN (SELECT name_key FROM aliases
                                    WHERE page_id = ?1 AND former = 1))",
    )?;
    let rows = stmt.query_map([page], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The id and text of every source of `page`, by id.
pub(crate) fn source_texts_of(
    conn: &rusqlite::Connection,
    page: PageId,
) -> Result<Vec<(SourceId, String)>> {
    let mut stmt = conn.prepare(
        "SELECT s.id, s.text FROM page_sources ps JOIN sources s ON s.id = ps.source_id
         WHERE ps.page_id = ?1 ORDER BY s.id",
    )?;
    let rows = stmt.query_map([page], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_any_of_the_words_and_never_passes_operators_through() {
        let terms = [
            QueryTerm {
                word: "grinder".into(),
                prefix: true,
            },
            QueryTerm {
                word: "\"NEAR(".into(),
                prefix: false,
            },
            QueryTerm {
                word: "***".into(),
                prefix: true,
            },
        ];
        assert_eq!(any_of(&terms).as_deref(), Some("\"grinder\"* OR \"NEAR\""));
        assert_eq!(any_of(&terms[2..]), None);
    }
}
