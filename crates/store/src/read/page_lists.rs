//! Pages listed: every page by title, their heads for a long list, the summaries of the
//! rows shown, the pages of sources and the stale pages. Each row counts the sources that
//! feed its page and carries the tags of the notes whose titles name it, so these reads
//! join `pages`, `page_sources` and `sources`.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row};

use crate::json;
use crate::tables::pages::{count, page_tags, tags_of_page, PageHead, PageSummary};
use crate::{PageId, Result, SourceId, Store};

/// The columns of page `p` that [`summary_row`] reads, in its order.
macro_rules! summary_columns {
    () => {
        concat!(
            "p.id, p.kind, p.title, p.summary,
        (SELECT COUNT(*) FROM page_sources ps WHERE ps.page_id = p.id),
        p.stale_reason IS NOT NULL, p.updated_at, p.flagged, ",
            tags_of_page!()
        )
    };
}

const SUMMARY_SELECT: &str = concat!("SELECT ", summary_columns!(), " FROM pages p");

fn summary_row(row: &Row<'_>) -> rusqlite::Result<PageSummary> {
    Ok(PageSummary {
        id: row.get(0)?,
        kind: row.get(1)?,
        title: row.get(2)?,
        summary: row.get(3)?,
        source_count: count(row.get(4)?),
        stale: row.get(5)?,
        updated_at: row.get(6)?,
        flagged: row.get(7)?,
        tags: page_tags(json::column(row, 8, "sources.tags")?),
    })
}

/// The tags of each page: those of the notes whose titles name it, read only from the
/// sources that have tags (the partial index `sources_tagged`, migration 24) and the page
/// each names by its title (the partial index `page_sources_by_title`, migration 34), in
/// the order the per-page read gives them (by source, then as listed), not yet made unique.
fn tags_by_page(conn: &Connection) -> Result<HashMap<PageId, Vec<String>>> {
    // The tagged sources first (`CROSS JOIN` keeps that order: a few thousand rows of an
    // index, not every row of `page_sources`), sorted here by page, source and place in
    // the list.
    let mut stmt = conn.prepare_cached(
        "SELECT ps.page_id, ps.source_id, j.key, json_quote(j.value)
         FROM sources s INDEXED BY sources_tagged
         CROSS JOIN page_sources ps INDEXED BY page_sources_by_title
                    ON ps.source_id = s.id AND ps.by_title = 1,
              json_each(s.tags) j
         WHERE s.tags <> '[]'",
    )?;
    // Each tag as JSON, read as the column is read: a tag that is not a string is an
    // error naming `sources.tags`.
    let rows = stmt.query_map([], |row| {
        Ok((
            (row.get(0)?, row.get(1)?, row.get(2)?),
            json::column::<String>(row, 3, "sources.tags")?,
        ))
    })?;
    let mut listed: Vec<((PageId, SourceId, i64), String)> =
        rows.collect::<rusqlite::Result<_>>()?;
    listed.sort_by_key(|(at, _)| *at);
    let mut tags: HashMap<PageId, Vec<String>> = HashMap::new();
    for ((page, _, _), tag) in listed {
        tags.entry(page).or_default().push(tag);
    }
    Ok(tags)
}

/// Sorts pages by title as a person reads it (case-insensitively, then by id).
fn sorted_by_title(mut pages: Vec<PageSummary>) -> Vec<PageSummary> {
    pages.sort_by_cached_key(|p| (p.title.to_lowercase(), p.id));
    pages
}

impl Store {
    /// Every page, by title.
    ///
    /// The same rows as reading each page with its source count and tags gives, read in
    /// three passes over indexes rather than two lookups per page (a large wiki's
    /// library): the pages; how many sources feed each (the primary key of `page_sources`); and the tags of the notes whose
    /// titles name a page, read only from the sources that have tags (the partial index
    /// `sources_tagged`, migration 24), in the order the per-page read gives them (by
    /// source, then as listed).
    pub fn pages(&self) -> Result<Vec<PageSummary>> {
        self.read(
            || "listing pages".to_owned(),
            |conn| {
                let mut feeding: HashMap<PageId, i64> = HashMap::new();
                let mut stmt = conn.prepare_cached(
                    "SELECT page_id, COUNT(*) FROM page_sources GROUP BY page_id",
                )?;
                for row in stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))? {
                    let (page, n): (PageId, i64) = row?;
                    feeding.insert(page, n);
                }
                let mut tags = tags_by_page(conn)?;
                let mut stmt = conn.prepare_cached(
                    "SELECT p.id, p.kind, p.title, p.summary, p.stale_reason IS NOT NULL,
                            p.updated_at, p.flagged
                     FROM pages p",
                )?;
                let rows = stmt.query_map([], |row| {
                    let id: PageId = row.get(0)?;
                    Ok(PageSummary {
                        id,
                        kind: row.get(1)?,
                        title: row.get(2)?,
                        summary: row.get(3)?,
                        source_count: count(feeding.get(&id).copied().unwrap_or(0)),
                        stale: row.get(4)?,
                        updated_at: row.get(5)?,
                        flagged: row.get(6)?,
                        tags: page_tags(tags.remove(&id).unwrap_or_default()),
                    })
                })?;
                Ok(sorted_by_title(rows.collect::<rusqlite::Result<_>>()?))
            },
        )
    }

    /// Every page's id, kind, title, last change and tags, in the order of
    /// [`Store::pages`]: what a long list is ordered and narrowed by, read from the index
    /// `pages_listing` (migration 28) and the tagged sources, without the pages' summaries
    /// and counts ([`Store::page_summaries`] reads those for the rows shown).
    pub fn page_heads(&self) -> Result<Vec<PageHead>> {
        self.read(
            || "listing pages".to_owned(),
            |conn| {
                let mut tags = tags_by_page(conn)?;
                let mut stmt = conn.prepare_cached(
                    "SELECT id, kind, title, updated_at FROM pages INDEXED BY pages_listing",
                )?;
                let rows = stmt.query_map([], |row| {
                    let id: PageId = row.get(0)?;
                    Ok(PageHead {
                        id,
                        kind: row.get(1)?,
                        title: row.get(2)?,
                        updated_at: row.get(3)?,
                        tags: page_tags(tags.remove(&id).unwrap_or_default()),
                    })
                })?;
                let mut heads: Vec<PageHead> = rows.collect::<rusqlite::Result<_>>()?;
                heads.sort_by_cached_key(|p| (p.title.to_lowercase(), p.id));
                Ok(heads)
            },
        )
    }

    /// [`Store::pages`] read page by page, as it was read before migration 24: what the
    /// passes over indexes must give.
    #[cfg(test)]
    pub(crate) fn pages_one_by_one(&self) -> Result<Vec<PageSummary>> {
        self.read(
            || "listing pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(SUMMARY_SELECT)?;
                let rows = stmt.query_map([], summary_row)?;
                Ok(sorted_by_title(rows.collect::<rusqlite::Result<_>>()?))
            },
        )
    }

    /// The pages `ids` as [`Store::pages`] lists them, in the order given (an id with no
    /// page is left out): a window of a long list read page by page.
    pub fn page_summaries(&self, ids: &[PageId]) -> Result<Vec<PageSummary>> {
        self.read(
            || format!("reading {} pages", ids.len()),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!("{SUMMARY_SELECT} WHERE p.id = ?1"))?;
                let mut out = Vec::with_capacity(ids.len());
                for &id in ids {
                    if let Some(page) = stmt.query_row([id], summary_row).optional()? {
                        out.push(page);
                    }
                }
                Ok(out)
            },
        )
    }

    /// The pages each of `sources` feeds, sorted by title, in the order of `sources`:
    /// what a window of the sources list shows beside each source, read in one snapshot.
    pub fn pages_of_sources(&self, sources: &[SourceId]) -> Result<Vec<Vec<PageSummary>>> {
        self.read(
            || format!("listing the pages of {} sources", sources.len()),
            |conn| {
                // One query for the whole window: the sources go in as one JSON array.
                let ids: Vec<String> = sources.iter().map(|s| s.0.to_string()).collect();
                let ids = format!("[{}]", ids.join(","));
                let mut stmt = conn.prepare_cached(concat!(
                    "SELECT ",
                    summary_columns!(),
                    ", fed.source_id FROM page_sources fed JOIN pages p ON p.id = fed.page_id
                     WHERE fed.source_id IN (SELECT value FROM json_each(?1))"
                ))?;
                let mut fed: HashMap<SourceId, Vec<PageSummary>> = HashMap::new();
                let mut rows = stmt.query([ids])?;
                while let Some(row) = rows.next()? {
                    let source: SourceId = row.get(9)?;
                    fed.entry(source).or_default().push(summary_row(row)?);
                }
                let fed: HashMap<SourceId, Vec<PageSummary>> = fed
                    .into_iter()
                    .map(|(source, pages)| (source, sorted_by_title(pages)))
                    .collect();
                Ok(sources
                    .iter()
                    .map(|source| fed.get(source).cloned().unwrap_or_default())
                    .collect())
            },
        )
    }

    /// The pages that need rewriting from their digests, by id.
    pub fn stale_pages(&self) -> Result<Vec<PageSummary>> {
        self.read(
            || "listing stale pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!(
                    "{SUMMARY_SELECT} WHERE p.stale_reason IS NOT NULL ORDER BY p.id"
                ))?;
                let rows = stmt.query_map([], summary_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// The pages a source's digest feeds, by title.
    pub fn source_pages(&self, source: SourceId) -> Result<Vec<PageSummary>> {
        Ok(self.pages_of_sources(&[source])?.pop().unwrap_or_default())
    }
}
