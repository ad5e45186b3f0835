//! Source pages (`source_pages`): where each page of a paged source (a PDF) lies in the
//! source's stored text, so a citation can say which page its quote is on, and say it again
//! when the text changes.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::{Result, SourceId, Store};

/// One page of a paged source and where it lies in the source's stored text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePage {
    /// The 1-based physical page number (what `file.pdf#page=N` opens).
    pub number: u32,
    /// The label printed on the page where the file defines page labels (`iv`, `12`).
    pub label: Option<String>,
    /// The UTF-8 byte offset in the text where the page starts.
    pub start: usize,
    /// The UTF-8 byte offset just past the page's text.
    pub end: usize,
}

/// The page holding byte `at` of a text cut into `pages` (in order): an offset between two
/// pages belongs to the page after it, one past the last page to the last. `None` for a
/// source without pages.
pub fn page_at(pages: &[SourcePage], at: usize) -> Option<&SourcePage> {
    let i = pages.partition_point(|page| page.end <= at);
    pages.get(i).or_else(|| pages.last())
}

/// The pages of `source`, in order (empty for a source without pages).
pub(crate) fn pages_of(conn: &Connection, source: SourceId) -> Result<Vec<SourcePage>> {
    let mut stmt = conn.prepare_cached(
        "SELECT number, label, start, \"end\" FROM source_pages
         WHERE source_id = ?1 ORDER BY number",
    )?;
    let rows = stmt.query_map([source], |row| {
        Ok(SourcePage {
            number: row.get(0)?,
            label: row.get(1)?,
            start: row.get::<_, i64>(2)?.max(0) as usize,
            end: row.get::<_, i64>(3)?.max(0) as usize,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

impl Store {
    /// The pages of `source` and where each lies in its stored text, in order (empty for a
    /// source without pages, or a PDF ingested before pages were kept).
    pub fn pages_of_source(&self, source: SourceId) -> Result<Vec<SourcePage>> {
        self.read(
            || format!("reading the pages of source {source}"),
            |conn| pages_of(conn, source),
        )
    }
}

/// Makes `pages` the pages of `source` (none: it has no pages).
pub(crate) fn replace_pages(
    conn: &Connection,
    source: SourceId,
    pages: &[SourcePage],
) -> Result<()> {
    conn.prepare_cached("DELETE FROM source_pages WHERE source_id = ?1")?
        .execute([source])?;
    let mut insert = conn.prepare_cached(
        "INSERT OR REPLACE INTO source_pages (source_id, number, label, start, \"end\")
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for page in pages {
        insert.execute(params![
            source,
            page.number,
            page.label,
            page.start as i64,
            page.end as i64
        ])?;
    }
    Ok(())
}
