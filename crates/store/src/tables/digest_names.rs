//! The names a digest gives besides its title — its concepts and link targets — kept by
//! key in `digest_names`, so the sources naming a topic are one indexed query away (a
//! concept named by enough sources gets a page of its own; see `pages`).

use std::collections::BTreeMap;

use rusqlite::{params, Connection};

use crate::{ArticleId, Result, SourceId};
use wikimind_text::key::page_key;

/// The names `article` gives besides its title, one per key (the first spelling seen):
/// its concepts (not the chips no source says), then its link targets. The title's own key
/// is left out.
pub(crate) fn names_of(conn: &Connection, article: ArticleId) -> Result<BTreeMap<String, String>> {
    let title: String = conn
        .prepare_cached("SELECT title FROM articles WHERE id = ?1")?
        .query_row([article], |row| row.get(0))?;
    let own = page_key(&title);
    let mut stmt = conn.prepare_cached(NAMES_SQL)?;
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

/// The names a digest gives: its named concepts, then its link targets.
const NAMES_SQL: &str =
    "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
     WHERE ac.article_id = ?1 AND ac.named = 1
     UNION ALL
     SELECT target_title FROM links WHERE from_article = ?1";

/// Replaces the names recorded for `source` with `names` (key → spelling).
pub(crate) fn record_names(
    conn: &Connection,
    source: SourceId,
    names: &BTreeMap<String, String>,
) -> Result<()> {
    conn.prepare_cached("DELETE FROM digest_names WHERE source_id = ?1")?
        .execute([source])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO digest_names (source_id, name_key, name) VALUES (?1, ?2, ?3)",
    )?;
    for (key, name) in names {
        insert.execute(params![source, key, name])?;
    }
    Ok(())
}
