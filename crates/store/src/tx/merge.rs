//! The one merge operation: two pages of one topic become one, losing nothing.
//!
//! Everything that merges pages (the names backfill, `wikimind merge A B`, later edits)
//! calls [`Store::merge_pages`]:
//!
//! - the survivor keeps its id, title and versions; the absorbed page's sources feed it
//!   (as new sources: its next rewrite reads them), and the absorbed page's aliases and
//!   title become its names, so links to either title resolve to it;
//! - the absorbed page's versions stay readable (`merged_pages`, `merged_page_versions`,
//!   see [`Store::merged_into`]);
//! - the survivor is refreshed: one digest left makes it that digest, else it is marked
//!   stale and a page job writes it (nothing here calls a model);
//! - the person's work on either page survives: the absorbed page's sections a person wrote
//!   or changed end the survivor's body (one whose heading the survivor has becomes a
//!   suggestion for it), its claims a person wrote or removed stay so, its suggestions
//!   move; the survivor's own edits stay as they are.

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::tx::feed::refresh_page;
use crate::{PageId, Result, Store, StoreError};

/// What a merge did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum MergeOutcome {
    /// The absorbed page is now part of the survivor.
    Merged {
        /// The page that remains.
        survivor: PageId,
        /// The page merged into it (its id is kept in `merged_pages`).
        absorbed: PageId,
    },
    /// Nothing was merged (a page cannot be merged into itself); the reason says so.
    Flagged {
        /// Why, for a person.
        reason: String,
    },
}

/// A page merged into another, with its versions as they were.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergedPage {
    /// The absorbed page's id.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// Why it was merged.
    pub reason: String,
    /// When (UTC, ISO-8601).
    pub merged_at: String,
    /// How many versions it had (readable in `merged_page_versions`).
    pub versions: u32,
}

impl Store {
    /// Merges page `absorbed` into page `survivor` (see the module documentation), for
    /// `reason` (shown on the survivor until its rewrite and kept with the absorbed page).
    pub fn merge_pages(
        &self,
        survivor: PageId,
        absorbed: PageId,
        reason: &str,
        min_sources: u32,
    ) -> Result<MergeOutcome> {
        self.write(
            || format!("merging page {absorbed} into page {survivor}"),
            |tx| merge_pages(tx, survivor, absorbed, reason, min_sources),
        )
    }

    /// The pages merged into `page`, oldest first.
    pub fn merged_into(&self, page: PageId) -> Result<Vec<MergedPage>> {
        self.read(
            || format!("listing the pages merged into page {page}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT m.page_id, m.title, m.reason, m.merged_at,
                            (SELECT COUNT(*) FROM merged_page_versions v
                             WHERE v.page_id = m.page_id)
                     FROM merged_pages m WHERE m.into_page = ?1 ORDER BY m.merged_at, m.page_id",
                )?;
                let rows = stmt.query_map([page], |row| {
                    Ok(MergedPage {
                        page_id: row.get(0)?,
                        title: row.get(1)?,
                        reason: row.get(2)?,
                        merged_at: row.get(3)?,
                        versions: row.get(4)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}

/// [`Store::merge_pages`] inside a transaction the caller holds.
pub(crate) fn merge_pages(
    conn: &Connection,
    survivor: PageId,
    absorbed: PageId,
    reason: &str,
    min_sources: u32,
) -> Result<MergeOutcome> {
    let title_of = |page: PageId| -> Result<String> {
        conn.prepare_cached("SELECT title FROM pages WHERE id = ?1")?
            .query_row([page], |row| row.get(0))
            .optional()?
            .ok_or(StoreError::PageNotFound(page))
    };
    let (survivor_title, absorbed_title) = (title_of(survivor)?, title_of(absorbed)?);
    if survivor == absorbed {
        return Ok(MergeOutcome::Flagged {
            reason: format!("{survivor_title} cannot be merged into itself"),
        });
    }
    // The person's work on the absorbed page comes along: their sections end the
    // survivor's body (a heading it has already: a suggestion), their claims and removals
    // move. The survivor's next rewrite keeps them as it keeps any edit.
    crate::tx::writing::carry_into(conn, absorbed, survivor)?;

    // The absorbed page and its versions, kept readable.
    conn.prepare_cached(
        "INSERT INTO merged_pages (page_id, into_page, title, reason) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![absorbed, survivor, absorbed_title, reason])?;
    conn.prepare_cached(
        "INSERT INTO merged_page_versions (page_id, version, title, summary, body, claims,
             concepts, open_questions, links, author_kind, provider, model, restored_from,
             created_at)
         SELECT page_id, version, title, summary, body, claims, concepts, open_questions,
                links, author_kind, provider, model, restored_from, created_at
         FROM page_versions WHERE page_id = ?1",
    )?
    .execute([absorbed])?;
    // Pages merged into the absorbed one are now the survivor's.
    conn.prepare_cached("UPDATE merged_pages SET into_page = ?1 WHERE into_page = ?2")?
        .execute(params![survivor, absorbed])?;

    // Its sources feed the survivor, as new ones (not written into it yet).
    conn.prepare_cached("INSERT INTO page_sources (page_id, source_id, by_title)
         SELECT ?1, source_id, by_title FROM page_sources WHERE page_id = ?2
         ON CONFLICT (page_id, source_id) DO UPDATE SET by_title = max(by_title, excluded.by_title)")?.execute(params![survivor, absorbed],
    )?;

    // Its names are the survivor's: aliases move, its title becomes a name that resolves.
    let (absorbed_key, survivor_key): (String, String) =
        (key_of(conn, absorbed)?, key_of(conn, survivor)?);
    conn.prepare_cached(
        "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former, source_id)
         SELECT ?1, name, name_key, former, source_id FROM aliases
         WHERE page_id = ?2 AND name_key <> ?3",
    )?
    .execute(params![survivor, absorbed, survivor_key])?;
    crate::tx::cite::delete_page(conn, absorbed)?;
    if absorbed_key != survivor_key {
        keep_former_title(conn, survivor, &absorbed_title, &absorbed_key)?;
    } else {
        conn.prepare_cached(
            "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former)
             VALUES (?1, ?2, ?3, 0)",
        )?
        .execute(params![survivor, absorbed_title, absorbed_key])?;
    }
    refresh_page(
        conn,
        survivor,
        &format!("merged with '{absorbed_title}' ({reason})"),
        min_sources,
    )?;
    Ok(MergeOutcome::Merged { survivor, absorbed })
}

/// Makes `title` (key `key`), a title `page` or a page merged into it had, a name of `page`
/// that resolves to it, taking it from any other page that had it as a former title.
pub(crate) fn keep_former_title(
    conn: &Connection,
    page: PageId,
    title: &str,
    key: &str,
) -> Result<()> {
    conn.prepare_cached(
        "DELETE FROM aliases WHERE former = 1 AND name_key = ?1 AND page_id <> ?2",
    )?
    .execute(params![key, page])?;
    conn.prepare_cached(
        "INSERT INTO aliases (page_id, name, name_key, former) VALUES (?1, ?2, ?3, 1)
         ON CONFLICT (page_id, name) DO UPDATE SET former = 1, name_key = excluded.name_key",
    )?
    .execute(params![page, title, key])?;
    Ok(())
}

fn key_of(conn: &Connection, page: PageId) -> Result<String> {
    Ok(conn
        .prepare_cached("SELECT title_key FROM pages WHERE id = ?1")?
        .query_row([page], |row| row.get(0))?)
}
