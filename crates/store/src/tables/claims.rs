//! The claims of digests (`claims`) and of pages (`page_claims`, with `claim_sources`):
//! the few writes and reads that concern claims alone — showing a claim as no longer
//! grounded, and which sources may hold a page claim's quote.

use crate::{Result, SourceId};

/// The claims one backfill batch reads and may downgrade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimTable {
    /// A digest's claims (`claims`), checked against its source's text.
    Digest,
    /// A page's current claims (`page_claims`), checked against the sources recorded as
    /// holding each quote, else the page's sources. Claims of saved answers (which cite a
    /// page) are not read.
    Page,
}

/// Shows the claims `ids` of `table` as no longer grounded: a `sourced` one becomes
/// `inferred` (its quote kept), a page claim no longer names sources. Returns the sources
/// page claims no longer name (whose citations the caller may let go).
pub(crate) fn downgrade_claims(
    conn: &rusqlite::Connection,
    table: ClaimTable,
    ids: &[i64],
) -> Result<Vec<SourceId>> {
    let mut unlinked = Vec::new();
    let (update, unlink) = match table {
        ClaimTable::Digest => (
            "UPDATE claims SET grounded = 0,
                 confidence = CASE confidence WHEN 'sourced' THEN 'inferred'
                              ELSE confidence END
             WHERE id = ?1",
            None,
        ),
        ClaimTable::Page => (
            "UPDATE page_claims SET grounded = 0,
                 confidence = CASE confidence WHEN 'sourced' THEN 'inferred'
                              ELSE confidence END
             WHERE id = ?1",
            Some("DELETE FROM claim_sources WHERE claim_id = ?1"),
        ),
    };
    for id in ids {
        conn.execute(update, [id])?;
        if let Some(unlink) = unlink {
            let mut held =
                conn.prepare_cached("SELECT source_id FROM claim_sources WHERE claim_id = ?1")?;
            let sources = held.query_map([id], |row| row.get::<_, SourceId>(0))?;
            for source in sources {
                unlinked.push(source?);
            }
            conn.execute(unlink, [id])?;
        }
    }
    unlinked.sort_unstable();
    unlinked.dedup();
    Ok(unlinked)
}

/// The sources whose text may hold page claim `id`'s quote: those recorded as holding it,
/// else every source of its page.
pub(crate) fn page_claim_sources(conn: &rusqlite::Connection, id: i64) -> Result<Vec<SourceId>> {
    let mut held = conn.prepare_cached(
        "SELECT source_id FROM claim_sources WHERE claim_id = ?1 ORDER BY source_id",
    )?;
    let sources = held
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<SourceId>>>()?;
    if !sources.is_empty() {
        return Ok(sources);
    }
    let mut of_page = conn.prepare_cached(
        "SELECT ps.source_id FROM page_claims c
         JOIN page_sources ps ON ps.page_id = c.page_id
         WHERE c.id = ?1 ORDER BY ps.source_id",
    )?;
    let sources = of_page
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<SourceId>>>()?;
    Ok(sources)
}
