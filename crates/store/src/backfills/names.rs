//! Names made by an older build's rules, brought to today's: the store side of the
//! `names` backfill (the rules themselves are the caller's).
//!
//! Link targets, concepts, aliases and page titles written with link syntax
//! (`Core plugins|core plugin`, `Basic formatting syntax#External images`) are reduced to the
//! name they give; names that are no names (`{`, `1:16`, `photo.jpg`) are dropped. A page
//! whose reduced title is another page's is merged into it by the one merge operation; a
//! page whose title is no name is removed (its digests and their claims stay), unless a
//! person wrote a version of it, which is flagged instead.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::tables::digest_names::{names_of, record_names};
use crate::tx::merge::{merge_pages, MergeOutcome};
use crate::{page_key, PageId, Result, SourceId, Store};

/// The rules a cleanup applies: `reduce` gives the name a written name gives (`None`: it
/// names no page), `is_name` whether a name may be a page's.
pub struct NameRules<'a> {
    /// A written name to the name it gives.
    pub reduce: &'a dyn Fn(&str) -> Option<String>,
    /// Whether a name may name a page.
    pub is_name: &'a dyn Fn(&str) -> bool,
}

impl NameRules<'_> {
    /// The name `written` gives, when it is a name.
    fn name(&self, written: &str) -> Option<String> {
        (self.reduce)(written).filter(|n| (self.is_name)(n))
    }
}

/// What a cleanup changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NamesCleanup {
    /// Links, concepts and aliases given the name they give.
    pub names_fixed: usize,
    /// Links, concepts and aliases that named no page, removed.
    pub names_dropped: usize,
    /// Pages given the title their old title gives.
    pub pages_retitled: usize,
    /// Pages merged into a page of the same name.
    pub pages_merged: usize,
    /// Pages whose title is no name, removed.
    pub pages_removed: usize,
    /// Pages that would have been merged or removed but have a version a person wrote.
    pub pages_flagged: usize,
}

impl NamesCleanup {
    /// How many things changed.
    pub fn total(&self) -> usize {
        self.names_fixed
            + self.names_dropped
            + self.pages_retitled
            + self.pages_merged
            + self.pages_removed
            + self.pages_flagged
    }
}

impl Store {
    /// Runs the names cleanup (see the module documentation) in one transaction and marks
    /// the backfill `name` at `version` done; `None` when it was done already (by another
    /// process meanwhile).
    pub fn clean_names(
        &self,
        name: &str,
        version: u32,
        rules: &NameRules<'_>,
        min_sources: u32,
    ) -> Result<Option<NamesCleanup>> {
        self.write(
            || format!("running backfill {name}"),
            |tx| {
                if !crate::backfills::advance(tx, name, version, 0, 0, true)? {
                    return Ok(None);
                }
                let mut done = NamesCleanup::default();
                clean_pages(tx, rules, min_sources, &mut done)?;
                clean_links(tx, rules, &mut done)?;
                clean_concepts(tx, rules, &mut done)?;
                clean_aliases(tx, rules, &mut done)?;
                // The names each digest gives, from its cleaned links and concepts.
                let digests: Vec<(i64, SourceId)> = {
                    let mut stmt = tx.prepare_cached("SELECT id, source_id FROM articles")?;
                    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                    rows.collect::<rusqlite::Result<_>>()?
                };
                for (article, source) in digests {
                    let names: BTreeMap<String, String> = names_of(tx, crate::ArticleId(article))?;
                    record_names(tx, source, &names)?;
                }
                Ok(Some(done))
            },
        )
    }
}

/// Digest links and page links.
fn clean_links(conn: &Connection, rules: &NameRules<'_>, done: &mut NamesCleanup) -> Result<()> {
    for (table, id_cols, key_col, key_fn) in [
        ("links", "id", "target_norm", page_key as fn(&str) -> String),
        ("page_links", "page_id, position", "target_key", page_key),
    ] {
        let rows: Vec<(i64, i64, String)> = {
            let select = if table == "links" {
                format!("SELECT {id_cols}, 0, target_title FROM {table}")
            } else {
                format!("SELECT {id_cols}, target_title FROM {table}")
            };
            let mut stmt = conn.prepare_cached(&select)?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let where_row = if table == "links" {
            "id = ?1"
        } else {
            "page_id = ?1 AND position = ?2"
        };
        for (a, b, target) in rows {
            match rules.name(&target) {
                Some(name) if name == target => {}
                Some(name) => {
                    let key = key_fn(&name);
                    let changed = conn.execute(
                        &format!(
                            "UPDATE OR IGNORE {table} SET target_title = ?3, {key_col} = ?4
                             WHERE {where_row} AND ?2 = ?2"
                        ),
                        params![a, b, name, key],
                    )?;
                    if changed == 0 {
                        // The same page already links that name: this row goes.
                        conn.execute(
                            &format!("DELETE FROM {table} WHERE {where_row} AND ?2 = ?2"),
                            params![a, b],
                        )?;
                        done.names_dropped += 1;
                    } else {
                        done.names_fixed += 1;
                    }
                }
                // A link to a page that exists (a daily note `2024-01-15`) stays.
                None if page_exists(conn, &target)? => {}
                None => {
                    conn.execute(
                        &format!("DELETE FROM {table} WHERE {where_row} AND ?2 = ?2"),
                        params![a, b],
                    )?;
                    done.names_dropped += 1;
                }
            }
        }
    }
    Ok(())
}

/// Whether a page has `name` as its title.
fn page_exists(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM pages WHERE title_key = ?1)")?
        .query_row([page_key(name)], |r| r.get(0))?)
}

/// Concepts (shared by the digests that name them).
fn clean_concepts(conn: &Connection, rules: &NameRules<'_>, done: &mut NamesCleanup) -> Result<()> {
    let rows: Vec<(i64, String)> = {
        let mut stmt = conn.prepare_cached("SELECT id, name FROM concepts")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (id, written) in rows {
        match rules.name(&written) {
            Some(name) if name == written => {}
            Some(name) => {
                let norm = page_key(&name);
                let same: Option<i64> = conn
                    .prepare_cached("SELECT id FROM concepts WHERE name_norm = ?1 AND id <> ?2")?
                    .query_row(params![norm, id], |r| r.get(0))
                    .optional()?;
                match same {
                    Some(other) => {
                        conn.prepare_cached(
                            "UPDATE OR IGNORE article_concepts SET concept_id = ?1
                             WHERE concept_id = ?2",
                        )?
                        .execute(params![other, id])?;
                        conn.prepare_cached("DELETE FROM concepts WHERE id = ?1")?
                            .execute([id])?;
                    }
                    None => {
                        conn.prepare_cached(
                            "UPDATE concepts SET name = ?2, name_norm = ?3 WHERE id = ?1",
                        )?
                        .execute(params![id, name, norm])?;
                    }
                }
                done.names_fixed += 1;
            }
            None => {
                conn.prepare_cached("DELETE FROM concepts WHERE id = ?1")?
                    .execute([id])?;
                done.names_dropped += 1;
            }
        }
    }
    Ok(())
}

/// Aliases of pages.
fn clean_aliases(conn: &Connection, rules: &NameRules<'_>, done: &mut NamesCleanup) -> Result<()> {
    let rows: Vec<(PageId, String)> = {
        let mut stmt = conn.prepare_cached("SELECT page_id, name FROM aliases")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (page, written) in rows {
        match rules.name(&written) {
            Some(name) if name == written => {}
            Some(name) => {
                let changed = conn
                    .prepare_cached(
                        "UPDATE OR IGNORE aliases SET name = ?3, name_key = ?4
                     WHERE page_id = ?1 AND name = ?2",
                    )?
                    .execute(params![page, written, name, page_key(&name)])?;
                if changed == 0 {
                    conn.prepare_cached("DELETE FROM aliases WHERE page_id = ?1 AND name = ?2")?
                        .execute(params![page, written])?;
                    done.names_dropped += 1;
                } else {
                    done.names_fixed += 1;
                }
            }
            None => {
                conn.prepare_cached("DELETE FROM aliases WHERE page_id = ?1 AND name = ?2")?
                    .execute(params![page, written])?;
                done.names_dropped += 1;
            }
        }
    }
    Ok(())
}

/// Topic pages: retitled, merged or removed.
fn clean_pages(
    conn: &Connection,
    rules: &NameRules<'_>,
    min_sources: u32,
    done: &mut NamesCleanup,
) -> Result<()> {
    let rows: Vec<(PageId, String, String)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT id, title, title_key FROM pages WHERE kind = 'topic' ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (page, title, key) in rows {
        let exists: bool = conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM pages WHERE id = ?1)")?
            .query_row([page], |r| r.get(0))?;
        if !exists || is_own_title(conn, page, &key)? {
            continue;
        }
        match rules.name(&title) {
            Some(name) if page_key(&name) == key => {}
            Some(name) => {
                let name_key = page_key(&name);
                let other: Option<(PageId, i64)> = conn
                    .prepare_cached("SELECT p.id, (SELECT COUNT(*) FROM page_sources ps WHERE ps.page_id = p.id)
                         FROM pages p WHERE p.title_key = ?1")?.query_row([&name_key],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                match other {
                    Some((other, other_sources)) => {
                        let mine: i64 = conn
                            .prepare_cached("SELECT COUNT(*) FROM page_sources WHERE page_id = ?1")?
                            .query_row([page], |r| r.get(0))?;
                        // The page with more sources survives (the older one on a tie).
                        let (survivor, absorbed) = if mine > other_sources
                            || (mine == other_sources && page.0 < other.0)
                        {
                            (page, other)
                        } else {
                            (other, page)
                        };
                        let why = format!("'{title}' names '{name}'");
                        match merge_pages(conn, survivor, absorbed, &why, min_sources)? {
                            MergeOutcome::Merged { .. } => {
                                if survivor == page {
                                    retitle(conn, page, &name, &name_key)?;
                                }
                                done.pages_merged += 1;
                            }
                            MergeOutcome::Flagged { .. } => done.pages_flagged += 1,
                        }
                    }
                    None => {
                        retitle(conn, page, &name, &name_key)?;
                        done.pages_retitled += 1;
                    }
                }
            }
            None => {
                let edited: bool = conn
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM page_versions
                                    WHERE page_id = ?1 AND author_kind = 'person')",
                    )?
                    .query_row([page], |r| r.get(0))?;
                if edited {
                    conn.prepare_cached("UPDATE pages SET flagged = ?2 WHERE id = ?1")?
                        .execute(params![
                            page,
                            format!(
                                "'{title}' is not a name a page can have; a person wrote a \
                                 version of it, so it is kept"
                            )
                        ])?;
                    done.pages_flagged += 1;
                } else {
                    crate::tx::cite::delete_page(conn, page)?;
                    done.pages_removed += 1;
                }
            }
        }
    }
    Ok(())
}

/// Whether `key` is the key of the own title of a source whose title names `page`: a
/// source's own title is always a name (a daily note `2024-01-15`).
fn is_own_title(conn: &Connection, page: PageId, key: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.title_hint FROM page_sources ps JOIN sources s ON s.id = ps.source_id
         WHERE ps.page_id = ?1 AND ps.by_title = 1 AND s.title_hint IS NOT NULL",
    )?;
    let titles = stmt.query_map([page], |r| r.get::<_, String>(0))?;
    for title in titles {
        if page_key(&title?) == key {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Gives `page` the title `name` (its key `key`); the old title, written with link
/// syntax, is no name worth keeping.
fn retitle(conn: &Connection, page: PageId, name: &str, key: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM aliases WHERE former = 1 AND name_key = ?1")?
        .execute([key])?;
    conn.prepare_cached("UPDATE pages SET title = ?2, title_key = ?3 WHERE id = ?1")?
        .execute(params![page, name, key])?;
    Ok(())
}
