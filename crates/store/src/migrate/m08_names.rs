//! Migration 8: the names of every digest, and which digests each page was written from.
//!
//! Frozen: the query, the key (`frozen::v13::page_key`) and the write are this step's own
//! copies as it ran, so a later change to how the live store records names
//! (`tables::digest_names`) cannot change what this step did to a wiki.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, Transaction};

use crate::migrate::frozen::v13::page_key;
use crate::{ArticleId, Result, SourceId};

/// The names a digest gave as migration 8 read them, before concepts could be chips
/// (schema 14): its concepts, then its link targets.
const NAMES_SQL_V8: &str =
    "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
     WHERE ac.article_id = ?1
     UNION ALL
     SELECT target_title FROM links WHERE from_article = ?1";

/// Migration 8: records the names of every digest of an upgraded wiki, and marks each page
/// as written from the digests it was made from (every digest of a current page; for a
/// stale page, the digest that is its version 1, whose article id is the page's id).
pub(crate) fn names_and_written_marks(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    fill(tx).map_err(|error| match error {
        crate::StoreError::Database { source, .. } => source,
        other => rusqlite::Error::ToSqlConversionFailure(Box::new(other)),
    })
}

fn fill(tx: &Transaction<'_>) -> Result<()> {
    let digests: Vec<(ArticleId, SourceId)> = {
        let mut stmt = tx.prepare("SELECT id, source_id FROM articles ORDER BY id")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (article, source) in digests {
        let names = names_of(tx, article)?;
        record_names(tx, source, &names)?;
    }
    tx.execute(
        "UPDATE page_sources SET
             written_digest = (SELECT a.updated_at FROM articles a
                               WHERE a.source_id = page_sources.source_id),
             written_chars = (SELECT length(s.text) FROM sources s
                              WHERE s.id = page_sources.source_id)
         WHERE page_id IN (SELECT id FROM pages WHERE stale_reason IS NULL)
            OR EXISTS (SELECT 1 FROM articles a
                       WHERE a.source_id = page_sources.source_id
                         AND a.id = page_sources.page_id)",
        [],
    )?;
    Ok(())
}

/// The names `article` gives besides its title, one per key (the first spelling seen).
fn names_of(conn: &Connection, article: ArticleId) -> Result<BTreeMap<String, String>> {
    let title: String = conn.query_row(
        "SELECT title FROM articles WHERE id = ?1",
        [article],
        |row| row.get(0),
    )?;
    let own = page_key(&title);
    let mut stmt = conn.prepare(NAMES_SQL_V8)?;
    let names: Vec<String> = stmt
        .query_map([article], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = BTreeMap::new();
    for name in names {
        let name = name.trim();
        let key = page_key(name);
        if key.is_empty() || key == own {
            continue;
        }
        out.entry(key).or_insert_with(|| name.to_owned());
    }
    Ok(out)
}

/// Replaces the names recorded for `source` with `names` (key → spelling).
fn record_names(
    conn: &Connection,
    source: SourceId,
    names: &BTreeMap<String, String>,
) -> Result<()> {
    conn.execute("DELETE FROM digest_names WHERE source_id = ?1", [source])?;
    let mut insert =
        conn.prepare("INSERT INTO digest_names (source_id, name_key, name) VALUES (?1, ?2, ?3)")?;
    for (key, name) in names {
        insert.execute(params![source, key, name])?;
    }
    Ok(())
}
