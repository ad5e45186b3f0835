//! What asking the wiki reads and writes: the pages a question's words find (full-text,
//! BM25 over titles, aliases, summaries, claims and bodies), the pages one link away from
//! them, the text a cited page's claims are checked against, and saved answers (pages of
//! kind `answer`, see migration 11).

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use crate::{PageId, Result, SourceId, Store};

/// How many pages a question's word may match before it counts as common
/// ([`Store::match_pages_bounded`]): ranking this many pages takes a few milliseconds
/// (measured by the `ask_retrieval` bench at 100,000 pages).
pub const COMMON_PAGES: usize = 1_000;

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

/// The FTS5 query matching any of `terms`, or `None` when no term has a word.
pub(crate) fn any_of(terms: &[QueryTerm]) -> Option<String> {
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
    ///
    /// The work is bounded by [`COMMON_PAGES`]: see [`Store::match_pages_bounded`].
    pub fn match_pages(&self, terms: &[QueryTerm], limit: usize) -> Result<Vec<FoundPage>> {
        self.match_pages_bounded(terms, limit, COMMON_PAGES)
    }

    /// [`Store::match_pages`] with the bound on the pages a word may match before it
    /// counts as *common* given: a word (as itself, not as a prefix) found in more than
    /// `common` pages says little about what a question is about (BM25 weighs it near
    /// nothing), yet ranking every page it matches is what makes a question slow in a
    /// large wiki. So when some of the words are common:
    ///
    /// 1. the pages matching the other words (the rarer ones) are ranked as usual, the
    ///    common words left out of the query (dynamic stop words);
    /// 2. when those are fewer than `limit` (or every word is common), the rest are the
    ///    best by BM25 among the `common` most recent pages (highest ids) matching a
    ///    common word, each common word searched as itself.
    ///
    /// When no word is common the query is exactly that of a small wiki: any of the
    /// words, every match ranked. Counting a word's pages stops at `common + 1`, so the
    /// whole is bounded by `common` and the rarer words' matches, not by the wiki's size.
    pub fn match_pages_bounded(
        &self,
        terms: &[QueryTerm],
        limit: usize,
        common: usize,
    ) -> Result<Vec<FoundPage>> {
        let Some(query) = any_of(terms) else {
            return Ok(Vec::new());
        };
        self.read(
            || format!("finding the pages of {query:?}"),
            |conn| {
                let mut rare: Vec<QueryTerm> = Vec::new();
                let mut frequent: Vec<QueryTerm> = Vec::new();
                for term in terms {
                    let Some(word) = any_of(&[QueryTerm {
                        word: term.word.clone(),
                        prefix: false,
                    }]) else {
                        continue;
                    };
                    if pages_matching_up_to(conn, &word, common + 1)? > common {
                        frequent.push(QueryTerm {
                            word: term.word.clone(),
                            prefix: false,
                        });
                    } else {
                        rare.push(term.clone());
                    }
                }
                if frequent.is_empty() {
                    return ranked_topic_pages(conn, &query, i64::MIN, limit);
                }
                let mut found = match any_of(&rare) {
                    Some(rare) => ranked_topic_pages(conn, &rare, i64::MIN, limit)?,
                    None => Vec::new(),
                };
                if found.len() < limit {
                    let Some(frequent) = any_of(&frequent) else {
                        return Ok(found);
                    };
                    let since = crate::read::pages::ranked_since(conn, &frequent, common)?;
                    let more = ranked_topic_pages(conn, &frequent, since, limit + found.len())?;
                    for page in more {
                        if found.len() >= limit {
                            break;
                        }
                        if !found.iter().any(|f| f.page_id == page.page_id) {
                            found.push(page);
                        }
                    }
                }
                Ok(found)
            },
        )
    }

    /// The topic pages (written at least once) whose title or other name has one of
    /// `keys` ([`page_key`](crate::page_key)s), in the order of `keys`, each once.
    pub fn topic_pages_named(&self, keys: &[String]) -> Result<Vec<FoundPage>> {
        self.read(
            || "finding the pages a question names".to_owned(),
            |conn| {
                let mut found: Vec<FoundPage> = Vec::new();
                for key in keys {
                    let Some(id) = crate::tables::pages::resolve_key(conn, key)? else {
                        continue;
                    };
                    if found.iter().any(|f| f.page_id == id) {
                        continue;
                    }
                    let title: Option<String> = conn
                        .prepare_cached(
                            "SELECT title FROM pages
                             WHERE id = ?1 AND kind = 'topic' AND version > 0",
                        )?
                        .query_row([id], |row| row.get(0))
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
}

/// How many pages match the FTS5 query `query`, counting no further than `cap`.
fn pages_matching_up_to(conn: &Connection, query: &str, cap: usize) -> Result<usize> {
    let n: i64 = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM (SELECT 1 FROM pages_fts WHERE pages_fts MATCH ?1 LIMIT ?2)",
        )?
        .query_row(params![query, cap as i64], |row| row.get(0))?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// The topic pages (written at least once) matching the FTS5 query `query`, best first
/// by BM25 (title, aliases, summary, claims, body, weighed in that order; ties by id),
/// at most `limit`; only those with an id of at least `since`. The matches drive the
/// join (`CROSS JOIN`): with an index on `pages.kind` the planner may otherwise walk every
/// topic page and run the full-text query once per page.
fn ranked_topic_pages(
    conn: &Connection,
    query: &str,
    since: i64,
    limit: usize,
) -> Result<Vec<FoundPage>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.id, p.title, bm25(pages_fts, 10.0, 6.0, 4.0, 2.0, 1.0) AS rank
         FROM pages_fts CROSS JOIN pages p ON p.id = pages_fts.rowid
         WHERE pages_fts MATCH ?1 AND pages_fts.rowid >= ?2
           AND p.kind = 'topic' AND p.version > 0
         ORDER BY rank, p.id
         LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![query, since, limit as i64], |row| {
        Ok(FoundPage {
            page_id: row.get(0)?,
            title: row.get(1)?,
            rank: Some(row.get(2)?),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The topic pages `page` links to (resolved now) and that link to it, with their titles.
fn linked_with(conn: &Connection, page: PageId) -> Result<Vec<(PageId, String)>> {
    let mut stmt = conn.prepare_cached(
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
    let mut stmt = conn.prepare_cached(
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
