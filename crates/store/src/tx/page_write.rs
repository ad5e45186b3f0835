//! What a page job reads and writes: the material a page is written from
//! ([`Store::page_material`]) and the three ways a job ends in the store — a new version
//! written by the model ([`Store::save_page_rewrite`]), the page only gaining sources whose
//! digests add nothing ([`Store::page_gains_sources`]), or a refused rewrite
//! ([`Store::flag_page`]).
//!
//! A page is written from the digests as they were read: a digest that changes while the
//! model writes is not marked as written in, so the page stays stale and its next job takes
//! the change.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::tables::pages::{current_content, digest_content, PageContent};
use crate::tx::cite::{cite_page, SourceTexts};
use crate::tx::versions::{last_compiled_in, write_version, Author};
use crate::tx::writing::carry_person_layer;
use crate::{ArticleId, PageId, PageKind, Result, SourceId, Store, StoreError};

/// A digest feeding a page, with its source's text, as a page job reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedingDigest {
    /// The source.
    pub source_id: SourceId,
    /// The digest.
    pub article_id: ArticleId,
    /// Whether its title names the page (else it names the page's topic as a concept or
    /// link target).
    pub by_title: bool,
    /// Whether it is new or changed since the page was last written from it.
    pub changed: bool,
    /// Whether the source's text is shorter than when the page was last written from it.
    pub shrank: bool,
    /// When the digest was written (marks it as written into the page once saved).
    pub digest_at: String,
    /// What the digest says (its claims name its source when grounded).
    pub content: PageContent,
    /// The source's text.
    pub text: String,
}

/// Everything a page job needs to write a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageMaterial {
    /// The page.
    pub page_id: PageId,
    /// What it is.
    pub kind: PageKind,
    /// Its title (the topic's name).
    pub title: String,
    /// Its other names.
    pub aliases: Vec<String>,
    /// Its current version's number (0: never written).
    pub version: u32,
    /// Why it needs rewriting (`None`: it is current).
    pub stale_reason: Option<String>,
    /// What the page says now.
    pub current: PageContent,
    /// The last version a model wrote (never a person's edit), when there is one.
    pub last_compiled: Option<PageContent>,
    /// How many sources left the page since it was last written.
    pub sources_lost: u32,
    /// The digests feeding it, oldest first.
    pub digests: Vec<FeedingDigest>,
}

impl PageMaterial {
    /// Whether the page may be shorter than before: a source left it, or a source's text
    /// shrank.
    pub fn may_shrink(&self) -> bool {
        self.sources_lost > 0 || self.digests.iter().any(|d| d.shrank)
    }

    /// The digests new or changed since the page was last written.
    pub fn changed(&self) -> impl Iterator<Item = &FeedingDigest> {
        self.digests.iter().filter(|d| d.changed)
    }
}

/// Marks the digests of `material` as written into its page, each as it was read (a
/// digest that changed since stays unwritten). The page is current again when every digest
/// feeding it now is written in.
pub(crate) fn mark_written_from(conn: &Connection, material: &PageMaterial) -> Result<()> {
    let page = material.page_id;
    let mut mark = conn.prepare_cached(
        "UPDATE page_sources SET written_digest = ?3,
             written_chars = (SELECT length(text) FROM sources WHERE id = ?2)
         WHERE page_id = ?1 AND source_id = ?2
           AND ?3 = (SELECT updated_at FROM articles WHERE source_id = ?2)",
    )?;
    for digest in &material.digests {
        mark.execute(params![page, digest.source_id, digest.digest_at])?;
    }
    let unwritten: bool = conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM page_sources ps JOIN articles a ON a.source_id = ps.source_id
                        WHERE ps.page_id = ?1
                          AND (ps.written_digest IS NULL OR ps.written_digest <> a.updated_at))")?.query_row([page],
        |row| row.get(0),
    )?;
    let lost_since: u32 = conn
        .prepare_cached("SELECT sources_lost FROM pages WHERE id = ?1")?
        .query_row([page], |row| row.get(0))?;
    if !unwritten && lost_since <= material.sources_lost {
        conn.prepare_cached(
            "UPDATE pages SET sources_lost = 0, stale_reason = NULL, stale_at = NULL
             WHERE id = ?1",
        )?
        .execute([page])?;
    }
    Ok(())
}

fn material_in(conn: &Connection, id: PageId) -> Result<Option<PageMaterial>> {
    let head: Option<(PageKind, String, u32, Option<String>, u32)> = conn
        .prepare_cached(
            "SELECT kind, title, version, stale_reason, sources_lost FROM pages WHERE id = ?1",
        )?
        .query_row([id], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .optional()?;
    let Some((kind, title, version, stale_reason, sources_lost)) = head else {
        return Ok(None);
    };
    let current = current_content(conn, id)?.ok_or(StoreError::PageNotFound(id))?;
    let mut stmt =
        conn.prepare_cached("SELECT name FROM aliases WHERE page_id = ?1 ORDER BY former, name")?;
    let aliases = stmt
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let last_compiled = last_compiled_in(conn, id)?;
    let rows: Vec<(SourceId, ArticleId, bool, bool, bool, String, String)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT ps.source_id, a.id, ps.by_title,
                    ps.written_digest IS NULL OR ps.written_digest <> a.updated_at,
                    COALESCE(ps.written_chars > length(s.text), 0),
                    a.updated_at, s.text
             FROM page_sources ps
             JOIN articles a ON a.source_id = ps.source_id
             JOIN sources s ON s.id = ps.source_id
             WHERE ps.page_id = ?1
             ORDER BY a.created_at, a.id",
        )?;
        let rows = stmt.query_map([id], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
                row.get(6)?,
            ))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut digests = Vec::with_capacity(rows.len());
    for (source_id, article_id, by_title, changed, shrank, digest_at, text) in rows {
        digests.push(FeedingDigest {
            source_id,
            article_id,
            by_title,
            changed,
            shrank,
            digest_at,
            content: digest_content(conn, article_id)?,
            text,
        });
    }
    Ok(Some(PageMaterial {
        page_id: id,
        kind,
        title,
        aliases,
        version,
        stale_reason,
        current,
        last_compiled,
        sources_lost,
        digests,
    }))
}

impl Store {
    /// What a page job writes a page from: the page now and as a model last wrote it, and
    /// every digest feeding it with its source's text (`None`: no such page).
    pub fn page_material(&self, id: PageId) -> Result<Option<PageMaterial>> {
        self.read(
            || format!("reading what page {id} is written from"),
            |conn| material_in(conn, id),
        )
    }

    /// Saves a page the model wrote from `material` as its next version (authored by
    /// `provider`/`model`), and marks the digests it was written from as written in. The
    /// page is current again (not stale, not flagged) unless a digest changed meanwhile.
    /// When the page holds a person's work, it is carried over the model's version as a
    /// further version (see [`Store::edit_page`] for how edits merge). `claims_left` (the
    /// claims that left the full page, and why) is recorded on the model's version.
    /// Returns the page's version now.
    pub fn save_page_rewrite(
        &self,
        material: &PageMaterial,
        content: &PageContent,
        provider: &str,
        model: &str,
        claims_left: &[crate::ClaimLeft],
    ) -> Result<u32> {
        let page = material.page_id;
        self.write(
            || format!("saving the new version of page {page}"),
            |tx| {
                let exists: bool = tx
                    .prepare_cached("SELECT EXISTS (SELECT 1 FROM pages WHERE id = ?1)")?
                    .query_row([page], |row| row.get(0))?;
                if !exists {
                    return Err(StoreError::PageNotFound(page));
                }
                // The person's work, read as it is now (an edit may have landed while the
                // model wrote), is carried over the model's version.
                let mine = current_content(tx, page)?.ok_or(StoreError::PageNotFound(page))?;
                let base = last_compiled_in(tx, page)?;
                let version =
                    write_version(tx, page, content, Author::Model { provider, model }, None)?;
                if !claims_left.is_empty() {
                    tx.prepare_cached(
                        "UPDATE page_versions SET claims_left = ?3
                         WHERE page_id = ?1 AND version = ?2",
                    )?
                    .execute(params![
                        page,
                        version,
                        crate::json::to_json("page_versions.claims_left", claims_left)?
                    ])?;
                }
                let version = carry_person_layer(tx, page, version, content, base.as_ref(), &mine)?
                    .unwrap_or(version);
                tx.prepare_cached("UPDATE pages SET flagged = NULL WHERE id = ?1")?
                    .execute([page])?;
                mark_written_from(tx, material)?;
                Ok(version)
            },
        )
    }

    /// Ends a page job whose new digests add nothing the page does not say: no new
    /// version; the digests are marked as written in, and the page's claims whose quote
    /// a new source's text holds also name that source (`holders`: claim position →
    /// sources).
    pub fn page_gains_sources(
        &self,
        material: &PageMaterial,
        holders: &[(usize, SourceId)],
    ) -> Result<()> {
        let page = material.page_id;
        self.write(
            || format!("adding sources to page {page}"),
            |tx| {
                let mut attach = tx.prepare_cached(
                    "INSERT OR IGNORE INTO claim_sources (claim_id, source_id)
                     SELECT c.id, s.id FROM page_claims c, sources s
                     WHERE c.page_id = ?1 AND c.position = ?2 AND s.id = ?3",
                )?;
                for (position, source) in holders {
                    attach.execute(params![page, *position as i64, source])?;
                }
                drop(attach);
                cite_page(tx, &mut SourceTexts::default(), page)?;
                mark_written_from(tx, material)?;
                Ok(())
            },
        )
    }

    /// Keeps a page's current version after its rewrite was refused, flagged with
    /// `reason`. It stays stale: its digests are not written in.
    pub fn flag_page(&self, id: PageId, reason: &str) -> Result<()> {
        self.write(
            || format!("flagging page {id}"),
            |tx| {
                tx.prepare_cached("UPDATE pages SET flagged = ?2 WHERE id = ?1")?
                    .execute(params![id, reason])?;
                Ok(())
            },
        )
    }
}
