//! Which digests feed which pages, kept in step inside the transaction that saves a digest
//! ([`feed_pages`]) or removes a source ([`pages_fed_by`] then [`refresh_page`]).
//!
//! A digest feeds the page its title names (`by_title` = 1; the page is made when there is
//! none) and the page of each concept or link target it names (`by_title` = 0) that has a
//! page — or that gets one now, because the digests of `min_sources` sources name it. A
//! page whose digests change is refreshed: a topic page fed by a single digest whose title
//! names it *is* that digest (copied as a new version, no model call); any other page is
//! marked stale, to be written by a page job. A page left with no digest is removed.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension};

use crate::json;
use crate::policy::{page_fate, PageFacts, PageFate};
use crate::tables::digest_names::{names_of, record_names};
use crate::tables::pages::{current_content, digest_content, page_key, tidy_links};
use crate::tx::versions::last_compiled_in;
use crate::tx::versions::{write_version, Author};
use crate::tx::writing::carry_person_layer;
use crate::{ArticleId, PageId, PageKind, Result, SourceId, NOW};

/// Marks a page stale, adding `reason` to the reasons it already has.
pub(crate) fn mark_stale(conn: &Connection, page: PageId, reason: &str) -> Result<()> {
    conn.execute(
        &format!(
            "UPDATE pages SET stale_at = {NOW}, stale_reason = CASE
                 WHEN stale_reason IS NULL THEN ?2
                 WHEN instr(stale_reason, ?2) > 0 THEN stale_reason
                 ELSE stale_reason || '; ' || ?2 END
             WHERE id = ?1"
        ),
        params![page, reason],
    )?;
    Ok(())
}

/// Records that `page` is now written from the digests feeding it as they stand.
pub(crate) fn mark_written(conn: &Connection, page: PageId) -> Result<()> {
    conn.prepare_cached(
        "UPDATE page_sources SET
             written_digest = (SELECT a.updated_at FROM articles a
                               WHERE a.source_id = page_sources.source_id),
             written_chars = (SELECT length(s.text) FROM sources s
                              WHERE s.id = page_sources.source_id)
         WHERE page_id = ?1",
    )?
    .execute([page])?;
    conn.prepare_cached(
        "UPDATE pages SET sources_lost = 0, stale_reason = NULL, stale_at = NULL
         WHERE id = ?1",
    )?
    .execute([page])?;
    Ok(())
}

/// Brings a page in step with the digests feeding it, after one joined, changed, left or
/// was removed (`reason` says which, for a page that becomes stale): the page policy
/// ([`page_fate`]) decides whether it goes, is its one digest (copied as a new version when
/// it differs, a person's work carried over) or is stale.
pub(crate) fn refresh_page(
    conn: &Connection,
    page: PageId,
    reason: &str,
    min_sources: u32,
) -> Result<()> {
    let head: Option<(PageKind, String, String, bool)> = conn
        .prepare_cached("SELECT kind, title_key, title, asked FROM pages WHERE id = ?1")?
        .query_row([page], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?;
    let Some((kind, key, title, asked)) = head else {
        return Ok(());
    };
    let feeding: Vec<(ArticleId, String, String, String)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT a.id, a.title, a.provider, a.model FROM page_sources ps
             JOIN articles a ON a.source_id = ps.source_id
             WHERE ps.page_id = ?1",
        )?;
        let rows = stmt.query_map([page], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let sources: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM page_sources WHERE page_id = ?1")?
        .query_row([page], |row| row.get(0))?;
    let by_title: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM page_sources WHERE page_id = ?1 AND by_title = 1")?
        .query_row([page], |row| row.get(0))?;
    let digest_keys: Vec<String> = feeding.iter().map(|(_, t, _, _)| page_key(t)).collect();
    let fate = page_fate(&PageFacts {
        kind,
        key: &key,
        asked,
        sources: usize::try_from(sources).unwrap_or(0),
        by_title: usize::try_from(by_title).unwrap_or(0),
        digest_keys: &digest_keys,
        min_sources,
    });
    match (fate, feeding.as_slice()) {
        (PageFate::Removed, _) => {
            crate::tx::cite::delete_page(conn, page)?;
        }
        (PageFate::IsItsDigest, [(article, _, provider, model)]) => {
            let mut content = digest_content(conn, *article)?;
            content.title = title;
            content.links = tidy_links(conn, page, &content.links)?;
            // Compared with what the model wrote last (a person's edit is no change of the
            // digest); the person's work is carried over a new version, as for a rewrite.
            let base = last_compiled_in(conn, page)?;
            let mine = current_content(conn, page)?;
            let unchanged = match &base {
                Some(base) => *base == content,
                None => mine.as_ref() == Some(&content),
            };
            if !unchanged {
                let version = write_version(
                    conn,
                    page,
                    &content,
                    Author::Model { provider, model },
                    None,
                )?;
                if let Some(mine) = &mine {
                    carry_person_layer(conn, page, version, &content, base.as_ref(), mine)?;
                }
            }
            mark_written(conn, page)?;
            conn.prepare_cached("UPDATE pages SET flagged = NULL WHERE id = ?1")?
                .execute([page])?;
        }
        _ => {
            first_version(conn, page, &title)?;
            mark_stale(conn, page, reason)?;
        }
    }
    Ok(())
}

/// Gives a page that was never written a first version while it waits for its page job:
/// the oldest digest whose title names it, as it is (marked as written into the page).
/// A concept page, which no digest's title names, waits with no content.
fn first_version(conn: &Connection, page: PageId, title: &str) -> Result<()> {
    let version: u32 = conn
        .prepare_cached("SELECT version FROM pages WHERE id = ?1")?
        .query_row([page], |row| row.get(0))?;
    if version > 0 {
        return Ok(());
    }
    let oldest: Option<(ArticleId, SourceId, String, String)> = conn
        .prepare_cached(
            "SELECT a.id, a.source_id, a.provider, a.model FROM page_sources ps
             JOIN articles a ON a.source_id = ps.source_id
             WHERE ps.page_id = ?1 AND ps.by_title = 1
             ORDER BY a.created_at, a.id LIMIT 1",
        )?
        .query_row([page], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?;
    let Some((article, source, provider, model)) = oldest else {
        return Ok(());
    };
    let mut content = digest_content(conn, article)?;
    content.title = title.to_owned();
    write_version(
        conn,
        page,
        &content,
        Author::Model {
            provider: &provider,
            model: &model,
        },
        None,
    )?;
    conn.prepare_cached(
        "UPDATE page_sources SET
             written_digest = (SELECT updated_at FROM articles WHERE source_id = ?2),
             written_chars = (SELECT length(text) FROM sources WHERE id = ?2)
         WHERE page_id = ?1 AND source_id = ?2",
    )?
    .execute(params![page, source])?;
    Ok(())
}

/// Makes an empty page for a topic (version 0, no content yet) titled `title`; a former
/// title with its key gives way, as the topic now has a page of its own.
fn create_page(conn: &Connection, title: &str, key: &str) -> Result<PageId> {
    conn.prepare_cached("DELETE FROM aliases WHERE former = 1 AND name_key = ?1")?
        .execute([key])?;
    conn.prepare_cached(
        "INSERT INTO pages (kind, title, title_key, summary, body, version)
         VALUES ('topic', ?1, ?2, '', '', 0)",
    )?
    .execute(params![title, key])?;
    let page = PageId(conn.last_insert_rowid());
    // Its empty body counted, as every body written is.
    crate::tables::page_sentences::record_count(conn, page, "")?;
    Ok(page)
}

/// The page a name with key `key` names: the page with that title key, else the page one
/// of whose notes declares it as an alias, or a person renamed from it. (Another former
/// title gives way instead: a new topic of that name gets a page of its own, see
/// `create_page`.)
fn page_named(conn: &Connection, key: &str) -> Result<Option<(PageId, String)>> {
    if let Some(page) = page_with_key(conn, key)? {
        return Ok(Some(page));
    }
    Ok(conn
        .prepare_cached(
            "SELECT p.id, p.title FROM aliases a JOIN pages p ON p.id = a.page_id
             WHERE a.name_key = ?1 AND a.former = 1
               AND (a.source_id IS NOT NULL OR a.renamed = 1)",
        )?
        .query_row([key], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

fn page_with_key(conn: &Connection, key: &str) -> Result<Option<(PageId, String)>> {
    Ok(conn
        .prepare_cached("SELECT id, title FROM pages WHERE title_key = ?1")?
        .query_row([key], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

/// Keeps pages in step with the digest `article` of `source` just saved, titled `title`
/// (see the module documentation): the source leaves the pages it no longer names, feeds
/// the page its title names and the pages of the concepts and link targets it names (a
/// concept named by the digests of `min_sources` sources gets a page now), and each page
/// it joined, changed or left is refreshed. Returns the page its title names; `title` is
/// `None` for a digest whose title names no page (it feeds only the pages of its names).
pub(crate) fn feed_pages(
    conn: &Connection,
    source: SourceId,
    article: ArticleId,
    title: Option<&str>,
    min_sources: u32,
) -> Result<Option<PageId>> {
    let key = title.map(page_key).unwrap_or_default();
    let names: BTreeMap<String, String> = names_of(conn, article)?;
    record_names(conn, source, &names)?;

    // Pages this source fed and no longer names at all: it leaves them.
    let fed: Vec<(PageId, String, bool)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT ps.page_id, p.title_key, ps.by_title FROM page_sources ps
             JOIN pages p ON p.id = ps.page_id WHERE ps.source_id = ?1",
        )?;
        let rows = stmt.query_map([source], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    // The page its title names now (by title or by another name of that page).
    let title_page = match title {
        Some(_) => page_named(conn, &key)?.map(|(page, _)| page),
        None => None,
    };
    for (page, page_key_now, by_title) in &fed {
        if title.is_some() && (*page_key_now == key || Some(*page) == title_page) {
            continue;
        }
        if names.contains_key(page_key_now) {
            if *by_title {
                conn.prepare_cached(
                    "UPDATE page_sources SET by_title = 0 WHERE page_id = ?1 AND source_id = ?2",
                )?
                .execute(params![page, source])?;
            }
            continue;
        }
        conn.prepare_cached("DELETE FROM page_sources WHERE page_id = ?1 AND source_id = ?2")?
            .execute(params![page, source])?;
        conn.prepare_cached("UPDATE pages SET sources_lost = sources_lost + 1 WHERE id = ?1")?
            .execute([page])?;
        refresh_page(
            conn,
            *page,
            &format!("source {source} no longer speaks of this topic"),
            min_sources,
        )?;
    }

    let Some(title) = title else {
        feed_named_pages(conn, source, &names, min_sources)?;
        return Ok(None);
    };
    // The page its title names.
    let (page, joined) = match page_named(conn, &key)? {
        Some((page, page_title)) => {
            if page_title != title {
                conn.prepare_cached(
                    "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former)
                     VALUES (?1, ?2, ?3, 0)",
                )?
                .execute(params![page, title, key])?;
            }
            let added = conn
                .prepare_cached(
                    "INSERT INTO page_sources (page_id, source_id, by_title) VALUES (?1, ?2, 1)
                 ON CONFLICT (page_id, source_id) DO UPDATE SET by_title = 1
                 WHERE by_title = 0",
                )?
                .execute(params![page, source])?;
            (page, added > 0)
        }
        None => {
            let page = create_page(conn, title, &key)?;
            conn.prepare_cached(
                "INSERT INTO page_sources (page_id, source_id, by_title) VALUES (?1, ?2, 1)",
            )?
            .execute(params![page, source])?;
            // The digests that named the topic before it had a page feed it now.
            conn.prepare_cached(
                "INSERT OR IGNORE INTO page_sources (page_id, source_id, by_title)
                 SELECT ?1, source_id, 0 FROM digest_names WHERE name_key = ?2",
            )?
            .execute(params![page, key])?;
            (page, true)
        }
    };
    refresh_page(conn, page, &joined_or_changed(source, joined), min_sources)?;
    declare_aliases(conn, source, page, &key)?;
    feed_named_pages(conn, source, &names, min_sources)?;
    Ok(Some(page))
}

/// Feeds `source` into the pages of the concepts and link targets it names (`names`, key
/// to spelling); a name the digests of `min_sources` sources give gets a page now.
fn feed_named_pages(
    conn: &Connection,
    source: SourceId,
    names: &BTreeMap<String, String>,
    min_sources: u32,
) -> Result<()> {
    for (name_key, name) in names {
        match page_named(conn, name_key)? {
            Some((other, _)) => {
                let added = conn
                    .prepare_cached(
                        "INSERT OR IGNORE INTO page_sources (page_id, source_id, by_title)
                     VALUES (?1, ?2, 0)",
                    )?
                    .execute(params![other, source])?;
                refresh_page(
                    conn,
                    other,
                    &joined_or_changed(source, added > 0),
                    min_sources,
                )?;
            }
            None => {
                let naming: i64 = conn
                    .prepare_cached("SELECT COUNT(*) FROM digest_names WHERE name_key = ?1")?
                    .query_row([name_key], |row| row.get(0))?;
                if naming < i64::from(min_sources.max(1)) {
                    continue;
                }
                let why = format!("the digests of {naming} sources name this topic");
                create_named_page(conn, name_key, name, &why)?;
            }
        }
    }
    Ok(())
}

/// Makes the page of the name `name_key` (spelled `name` when no digest spells it), fed by
/// every source whose digest names it, with the digests' other spellings as aliases, and
/// stale with `reason` so a page job writes it.
fn create_named_page(
    conn: &Connection,
    name_key: &str,
    name: &str,
    reason: &str,
) -> Result<PageId> {
    // Titled as the oldest digest naming it spells it.
    let spelling: String = conn
        .prepare_cached(
            "SELECT dn.name FROM digest_names dn
             JOIN articles a ON a.source_id = dn.source_id
             WHERE dn.name_key = ?1 ORDER BY a.created_at, a.id LIMIT 1",
        )?
        .query_row([name_key], |row| row.get(0))
        .optional()?
        .unwrap_or_else(|| name.to_owned());
    let page = create_page(conn, &spelling, name_key)?;
    conn.prepare_cached(
        "INSERT INTO page_sources (page_id, source_id, by_title)
         SELECT ?1, source_id, 0 FROM digest_names WHERE name_key = ?2",
    )?
    .execute(params![page, name_key])?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former)
         SELECT ?1, name, name_key, 0 FROM digest_names
         WHERE name_key = ?2 AND name <> ?3",
    )?
    .execute(params![page, name_key, spelling])?;
    mark_stale(conn, page, reason)?;
    Ok(page)
}

/// What asking for a wanted page did ([`crate::Store::ask_for_page`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskedPage {
    /// The page was made, fed by this many sources whose digests name it; it waits for
    /// its page job.
    Made {
        /// The new page.
        page: PageId,
        /// How many sources feed it.
        sources: u32,
    },
    /// The name already leads to this page.
    Exists(PageId),
    /// No source's digest names it: there is nothing to write the page from.
    Unnamed,
}

impl crate::Store {
    /// A person asks for the page of the wanted name `name`: it becomes a topic page fed by
    /// every source whose digest names it (however few: the request stands in for
    /// `pages.min_sources`, for this one name), stale so its page job writes it from those
    /// digests. Nothing is made when the name already leads to a page or no digest names it.
    pub fn ask_for_page(&self, name: &str) -> Result<AskedPage> {
        let key = page_key(name);
        self.write(
            || format!("making the page {name:?} a person asked for"),
            |tx| {
                if key.is_empty() {
                    return Ok(AskedPage::Unnamed);
                }
                if let Some((page, _)) = page_named(tx, &key)? {
                    return Ok(AskedPage::Exists(page));
                }
                let naming: i64 = tx
                    .prepare_cached("SELECT COUNT(*) FROM digest_names WHERE name_key = ?1")?
                    .query_row([&key], |row| row.get(0))?;
                if naming == 0 {
                    return Ok(AskedPage::Unnamed);
                }
                let page = create_named_page(tx, &key, name.trim(), "asked for by you")?;
                tx.prepare_cached("UPDATE pages SET asked = 1 WHERE id = ?1")?
                    .execute([page])?;
                Ok(AskedPage::Made {
                    page,
                    sources: u32::try_from(naming).unwrap_or(u32::MAX),
                })
            },
        )
    }
}

/// Makes the aliases `source` declares (a note's front matter) names of `page`, the page its
/// title names, in place of those it declared before. An alias that is a page's own title
/// (or this page's) or already another page's alias is left out: the first name wins.
pub(crate) fn declare_aliases(
    conn: &Connection,
    source: SourceId,
    page: PageId,
    key: &str,
) -> Result<()> {
    conn.prepare_cached("DELETE FROM aliases WHERE source_id = ?1")?
        .execute([source])?;
    let declared: Vec<String> = conn
        .prepare_cached("SELECT aliases FROM sources WHERE id = ?1")?
        .query_row([source], |row| json::column(row, 0, "sources.aliases"))?;
    for alias in declared {
        let alias_key = page_key(&alias);
        if alias_key.is_empty() || alias_key == key || page_with_key(conn, &alias_key)?.is_some() {
            continue;
        }
        conn.prepare_cached(
            "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former, source_id)
             VALUES (?1, ?2, ?3, 1, ?4)",
        )?
        .execute(params![page, alias, alias_key, source])?;
    }
    Ok(())
}

fn joined_or_changed(source: SourceId, joined: bool) -> String {
    if joined {
        format!("source {source} now feeds this page")
    } else {
        format!("source {source} changed since this page was written")
    }
}

/// The pages `source` feeds, to refresh once it is removed.
pub(crate) fn pages_fed_by(conn: &Connection, source: SourceId) -> Result<Vec<PageId>> {
    let mut stmt = conn
        .prepare_cached("SELECT page_id FROM page_sources WHERE source_id = ?1 ORDER BY page_id")?;
    let rows = stmt.query_map([source], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
