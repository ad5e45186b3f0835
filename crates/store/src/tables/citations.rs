//! Citations (`citations`): where a quote stands in a source, one row per piece of the
//! quote, keyed by the source and the quote as written (a quote's place does not depend on
//! the claim that carries it). Rows are written when a claim grounds, anchored again when
//! the source's text changes, and read beside the claims they cite.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::json;
use crate::{Result, SourceId, Store};

/// Where a claim's quote (or one piece of it) stands in a source: what `show --json`,
/// `read_page` and exports give beside a sourced claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Citation {
    /// The source.
    pub source_id: SourceId,
    /// Where the quote starts: a UTF-8 byte offset into the source's stored text.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub start: usize,
    /// Just past its end.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub end: usize,
    /// The 1-based physical page of a paged source (a PDF) it is on; `None` otherwise.
    pub page: Option<u32>,
    /// The label printed on that page, where the file defines one.
    pub page_label: Option<String>,
    /// The markdown headings above it, outermost first (empty when none).
    pub heading: Vec<String>,
    /// The text at `start..end`.
    pub quote: String,
}

/// A citation row as re-anchoring reads and writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CitationRow {
    pub source_id: SourceId,
    /// The claim's quote as written (the key).
    pub quote: String,
    /// Which piece of the quote.
    pub piece: u32,
    /// Where it stands; `None` when it was lost.
    pub range: Option<(usize, usize)>,
    pub exact: String,
    pub prefix: String,
    pub suffix: String,
    pub page: Option<u32>,
    pub page_label: Option<String>,
    pub heading: Vec<String>,
}

const ROW_SELECT: &str = "SELECT source_id, quote, piece, start, \"end\", exact, prefix, suffix,
        page, page_label, heading FROM citations";

fn row_of(row: &Row<'_>) -> rusqlite::Result<CitationRow> {
    let start: Option<i64> = row.get(3)?;
    let end: Option<i64> = row.get(4)?;
    Ok(CitationRow {
        source_id: row.get(0)?,
        quote: row.get(1)?,
        piece: row.get(2)?,
        range: start
            .zip(end)
            .map(|(s, e)| (s.max(0) as usize, e.max(0) as usize)),
        exact: row.get(5)?,
        prefix: row.get(6)?,
        suffix: row.get(7)?,
        page: row.get(8)?,
        page_label: row.get(9)?,
        heading: json::column(row, 10, "citations.heading")?,
    })
}

impl CitationRow {
    fn citation(self) -> Option<Citation> {
        let (start, end) = self.range?;
        Some(Citation {
            source_id: self.source_id,
            start,
            end,
            page: self.page,
            page_label: self.page_label,
            heading: self.heading,
            quote: self.exact,
        })
    }
}

/// Whether `quote` has citation rows in `source`: `None` when it has none, `Some(true)`
/// when they are placed, `Some(false)` when one was lost (its quote was not found when the
/// source changed).
pub(crate) fn citation_state(
    conn: &Connection,
    source: SourceId,
    quote: &str,
) -> Result<Option<bool>> {
    let state: Option<Option<bool>> = conn
        .prepare_cached(
            "SELECT MIN(start IS NOT NULL) FROM citations WHERE source_id = ?1 AND quote = ?2",
        )?
        .query_row(params![source, quote], |row| row.get(0))
        .optional()?;
    Ok(state.flatten())
}

/// Removes the citation rows of `quote` in `source`.
pub(crate) fn drop_citations(conn: &Connection, source: SourceId, quote: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM citations WHERE source_id = ?1 AND quote = ?2")?
        .execute(params![source, quote])?;
    Ok(())
}

/// Writes `row` (a new one, or the same source, quote and piece again).
pub(crate) fn put_citation(conn: &Connection, row: &CitationRow) -> Result<()> {
    let heading = json::to_json("citations.heading", &row.heading)?;
    conn.prepare_cached(
        "INSERT OR REPLACE INTO citations (source_id, quote, piece, start, \"end\", exact,
             prefix, suffix, page, page_label, heading)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        row.source_id,
        row.quote,
        row.piece,
        row.range.map(|r| r.0 as i64),
        row.range.map(|r| r.1 as i64),
        row.exact,
        row.prefix,
        row.suffix,
        row.page,
        row.page_label,
        heading,
    ])?;
    Ok(())
}

/// Every citation row of `source`.
pub(crate) fn citations_of_source(conn: &Connection, source: SourceId) -> Result<Vec<CitationRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{ROW_SELECT} WHERE source_id = ?1 ORDER BY quote, piece"
    ))?;
    let rows = stmt.query_map([source], row_of)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The placed citations of `quote` in `source`, piece by piece (none when it has none or
/// was lost).
pub(crate) fn citations_of(
    conn: &Connection,
    source: SourceId,
    quote: &str,
) -> Result<Vec<Citation>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{ROW_SELECT} WHERE source_id = ?1 AND quote = ?2 ORDER BY piece"
    ))?;
    let rows = stmt.query_map(params![source, quote], row_of)?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows.into_iter().filter_map(CitationRow::citation).collect())
}

impl Store {
    /// The citations of claims, each given as the sources that hold its quote and the
    /// quote: for each, the placed citations of the quote in each of those sources, in the
    /// order given, piece by piece. A claim without a quote, or whose quote has no placed
    /// citation, gets none.
    pub fn citations(
        &self,
        claims: &[(Vec<SourceId>, Option<String>)],
    ) -> Result<Vec<Vec<Citation>>> {
        self.read(
            || "reading the citations of claims".to_owned(),
            |conn| {
                claims
                    .iter()
                    .map(|(sources, quote)| {
                        let Some(quote) = quote else {
                            return Ok(Vec::new());
                        };
                        let mut all = Vec::new();
                        for &source in sources {
                            all.extend(citations_of(conn, source, quote)?);
                        }
                        Ok(all)
                    })
                    .collect()
            },
        )
    }

    /// The quotes whose citation in a source was lost when the source's text changed (the
    /// quote is not in it any more), as (source, quote): a claim citing only those no
    /// longer grounds.
    pub fn lost_citations(&self) -> Result<Vec<(SourceId, String)>> {
        self.read(
            || "reading the citations lost".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT DISTINCT source_id, quote FROM citations WHERE start IS NULL
                     ORDER BY source_id, quote",
                )?;
                let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}
