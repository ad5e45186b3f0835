//! Migration 20: one title key.
//!
//! Up to schema version 19 digests, their concepts and their links were matched by a key of
//! their own (`*_norm`: trimmed, lowercased, white space collapsed) while pages were found
//! by the page key (spellings of one topic share it: `Espresso`, `espressos`, `Café` and
//! `Cafe`). Two keys meant two answers to "is this the same name": a digest linking
//! `[[espressos]]` did not find the `Espresso` digest that its page found. [`one_title_key`]
//! re-keys the stored columns to the page key, so every title, concept name and link target
//! is matched by one rule:
//!
//! 1. `articles.title_norm` becomes the page key of the digest's title.
//! 2. `concepts.name_norm` becomes the page key of the concept's name. Concepts whose names
//!    now share a key are one concept: the oldest (lowest id) keeps its name, and every
//!    digest that named another names it instead (once, at the first position it had).
//! 3. `links.target_norm` becomes the page key of the target as written. Two links of one
//!    digest whose targets now share a key are one link (the first kept, its context filled
//!    from the other when it had none), and a link to the digest's own title under the new
//!    key is dropped, as the digest writer never stores one. Every link is then resolved
//!    again: to the oldest digest with that key, else a wanted page.
//!
//! The key is the frozen copy `frozen::v13::page_key` (the rule pages have used since
//! migration 6, unchanged since): nothing here follows today's code.

use std::collections::HashMap;

use rusqlite::{params, Transaction};

use crate::migrate::frozen::v13::page_key;

/// Re-keys digest titles, concept names and link targets to the page key (see the module
/// documentation).
pub(crate) fn one_title_key(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    rekey_titles(tx)?;
    rekey_concepts(tx)?;
    rekey_links(tx)
}

fn rekey_titles(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, title FROM articles")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut update = tx.prepare("UPDATE articles SET title_norm = ?2 WHERE id = ?1")?;
    for (id, title) in rows {
        update.execute(params![id, page_key(&title)])?;
    }
    Ok(())
}

fn rekey_concepts(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, name FROM concepts ORDER BY id")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    // Keys are unique: each row first gets a key no name can have, so that no update
    // collides with a row not re-keyed yet.
    tx.execute("UPDATE concepts SET name_norm = char(1) || id", [])?;
    let mut kept: HashMap<String, i64> = HashMap::new();
    for (id, name) in rows {
        let key = page_key(&name);
        match kept.get(&key) {
            Some(&keeper) => {
                // Each digest naming both keeps the first position it named either at.
                tx.execute(
                    "UPDATE article_concepts SET position = MIN(position,
                         (SELECT o.position FROM article_concepts o
                          WHERE o.article_id = article_concepts.article_id
                            AND o.concept_id = ?2)),
                         named = MAX(named,
                         (SELECT o.named FROM article_concepts o
                          WHERE o.article_id = article_concepts.article_id
                            AND o.concept_id = ?2))
                     WHERE concept_id = ?1 AND article_id IN
                         (SELECT article_id FROM article_concepts WHERE concept_id = ?2)",
                    params![keeper, id],
                )?;
                tx.execute(
                    "UPDATE OR IGNORE article_concepts SET concept_id = ?1 WHERE concept_id = ?2",
                    params![keeper, id],
                )?;
                tx.execute("DELETE FROM article_concepts WHERE concept_id = ?1", [id])?;
                tx.execute("DELETE FROM concepts WHERE id = ?1", [id])?;
            }
            None => {
                tx.execute(
                    "UPDATE concepts SET name_norm = ?2 WHERE id = ?1",
                    params![id, key],
                )?;
                kept.insert(key, id);
            }
        }
    }
    Ok(())
}

fn rekey_links(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, i64, String, String, String)> = {
        let mut stmt = tx.prepare(
            "SELECT l.id, l.from_article, l.target_title, l.context, a.title_norm
             FROM links l JOIN articles a ON a.id = l.from_article
             ORDER BY l.from_article, l.position, l.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    tx.execute("UPDATE links SET target_norm = char(1) || id", [])?;
    // The link kept for each digest and key, and its context.
    let mut kept: HashMap<(i64, String), (i64, String)> = HashMap::new();
    for (id, from, target, context, own) in rows {
        let key = page_key(&target);
        if key.is_empty() || key == own {
            tx.execute("DELETE FROM links WHERE id = ?1", [id])?;
            continue;
        }
        match kept.get_mut(&(from, key.clone())) {
            Some((keeper, kept_context)) => {
                if kept_context.trim().is_empty() && !context.trim().is_empty() {
                    tx.execute(
                        "UPDATE links SET context = ?2 WHERE id = ?1",
                        params![*keeper, context],
                    )?;
                    *kept_context = context;
                }
                tx.execute("DELETE FROM links WHERE id = ?1", [id])?;
            }
            None => {
                tx.execute(
                    "UPDATE links SET target_norm = ?2 WHERE id = ?1",
                    params![id, key],
                )?;
                kept.insert((from, key), (id, context));
            }
        }
    }
    tx.execute(
        "UPDATE links SET to_article =
             (SELECT a.id FROM articles a WHERE a.title_norm = links.target_norm
              ORDER BY a.id LIMIT 1)",
        [],
    )?;
    Ok(())
}
