//! The names a digest gives besides its title — its concepts and link targets — kept by
//! key in `digest_names`, so the sources naming a topic are one indexed query away (a
//! concept named by enough sources gets a page of its own; see `pages`).

use std::collections::BTreeMap;

use rusqlite::{params, Connection, Transaction};

use super::pages::page_key;
use super::{ArticleId, Result, SourceId};

/// The names `article` gives besides its title, one per key (the first spelling seen):
/// its concepts (not the chips no source says), then its link targets. The title's own key
/// is left out.
pub(crate) fn names_of(conn: &Connection, article: ArticleId) -> Result<BTreeMap<String, String>> {
    names_keyed_by(conn, article, page_key, NAMES_SQL)
}

/// The names a digest gives: its named concepts, then its link targets.
const NAMES_SQL: &str =
    "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
     WHERE ac.article_id = ?1 AND ac.named = 1
     UNION ALL
     SELECT target_title FROM links WHERE from_article = ?1";

/// [`NAMES_SQL`] as migration 8 ran it, before concepts could be chips (schema 14).
const NAMES_SQL_V8: &str =
    "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
     WHERE ac.article_id = ?1
     UNION ALL
     SELECT target_title FROM links WHERE from_article = ?1";

/// [`names_of`] with the names keyed by `key` and read by `sql` (migration 8 passes the
/// rule and the query it applied).
fn names_keyed_by(
    conn: &Connection,
    article: ArticleId,
    page_key: fn(&str) -> String,
    sql: &str,
) -> Result<BTreeMap<String, String>> {
    let title: String = conn.query_row(
        "SELECT title FROM articles WHERE id = ?1",
        [article],
        |row| row.get(0),
    )?;
    let own = page_key(&title);
    let mut stmt = conn.prepare(sql)?;
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
pub(crate) fn record_names(
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

/// Migration 8: records the names of every digest of an upgraded wiki, and marks each page
/// as written from the digests it was made from (every digest of a current page; for a
/// stale page, the digest that is its version 1, whose article id is the page's id).
pub(crate) fn names_and_written_marks(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    fill(tx).map_err(|error| match error {
        super::StoreError::Database { source, .. } => source,
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
        let names = names_keyed_by(tx, article, super::frozen::v13::page_key, NAMES_SQL_V8)?;
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
