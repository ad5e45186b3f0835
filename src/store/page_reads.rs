//! Reads over pages that the app's screens need and [`pages`](super::pages) does not offer:
//! full-text search over pages, the wanted pages of the page graph, and the pages every
//! source feeds in one query (a list of thousands of sources is not thousands of queries).
//!
//! Kept apart from `pages.rs` (which owns writing pages) so the two can change on their
//! own; both read the tables of migration 5.

use rusqlite::params;

use super::read::fts_query;
use super::{PageId, PageSummary, Result, SourceId, Store, SEARCH_LIMIT};

/// One page found by [`Store::search_pages`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageHit {
    /// The page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// A short excerpt of the best matching field, each matched word between
    /// [`MATCH_START`](super::MATCH_START) and [`MATCH_END`](super::MATCH_END).
    pub snippet: String,
}

/// A name pages link to that leads to no page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WantedName {
    /// The name as first written.
    pub title: String,
    /// How many pages link to it.
    pub mentions: u32,
}

impl Store {
    /// Full-text search over pages (title weighs most, then summary, then body), best
    /// first, at most [`SEARCH_LIMIT`] hits; the query is read like [`Store::search`]'s.
    pub fn search_pages(&self, query: &str) -> Result<Vec<PageHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
        self.read(
            || format!("searching pages for {query:?}"),
            |conn| {
                let mut stmt = conn.prepare(
                    "SELECT p.id, p.title,
                            snippet(pages_fts, -1, char(57344), char(57345), '…', 16)
                     FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid
                     WHERE pages_fts MATCH ?1
                     ORDER BY bm25(pages_fts, 10.0, 4.0, 1.0)
                     LIMIT ?2",
                )?;
                let rows = stmt.query_map(params![fts, SEARCH_LIMIT as i64], |row| {
                    Ok(PageHit {
                        page_id: row.get(0)?,
                        title: row.get(1)?,
                        snippet: row.get(2)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Names pages link to that lead to no page (neither a page's key nor a former title),
    /// most linked first.
    pub fn wanted_names(&self) -> Result<Vec<WantedName>> {
        self.read(
            || "listing the wanted pages of pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare(
                    "SELECT (SELECT l2.target_title FROM page_links l2
                             WHERE l2.target_key = l.target_key
                             ORDER BY l2.page_id, l2.position LIMIT 1),
                            COUNT(DISTINCT l.page_id) AS mentions
                     FROM page_links l
                     WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.title_key = l.target_key)
                       AND NOT EXISTS (SELECT 1 FROM aliases a
                                       WHERE a.name_key = l.target_key AND a.former = 1)
                     GROUP BY l.target_key
                     ORDER BY mentions DESC, l.target_key",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(WantedName {
                        title: row.get(0)?,
                        mentions: u32::try_from(row.get::<_, i64>(1)?).unwrap_or(u32::MAX),
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Every source that feeds a page, with that page: by source id, then by page title
    /// as a person reads it (case-insensitively, then by id).
    pub fn pages_by_source(&self) -> Result<Vec<(SourceId, PageSummary)>> {
        self.read(
            || "listing the pages of every source".to_owned(),
            |conn| {
                let mut stmt = conn.prepare(
                    "SELECT ps.source_id, p.id, p.kind, p.title, p.summary,
                            (SELECT COUNT(*) FROM page_sources x WHERE x.page_id = p.id),
                            p.stale_reason IS NOT NULL, p.updated_at
                     FROM page_sources ps JOIN pages p ON p.id = ps.page_id",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok((
                        row.get::<_, SourceId>(0)?,
                        PageSummary {
                            id: row.get(1)?,
                            kind: row.get(2)?,
                            title: row.get(3)?,
                            summary: row.get(4)?,
                            source_count: u32::try_from(row.get::<_, i64>(5)?).unwrap_or(u32::MAX),
                            stale: row.get(6)?,
                            updated_at: row.get(7)?,
                        },
                    ))
                })?;
                let mut pairs: Vec<(SourceId, PageSummary)> =
                    rows.collect::<rusqlite::Result<_>>()?;
                pairs.sort_by_cached_key(|(s, p)| (s.0, p.title.to_lowercase(), p.id.0));
                Ok(pairs)
            },
        )
    }
}
