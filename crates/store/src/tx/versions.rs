//! Every version of a page: how one is written (and made current), read, listed and
//! restored. A version is the page as it was shown, written by a model (provider and model
//! named) or by a person (an edit, a restore, a claim they wrote).

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::json::{from_json, to_json};
use crate::tables::pages::{current_content, page_key, tidy_links, PageClaim, PageContent};
use crate::tx::cite::{cite_page, prune_citations_in, sources_of_page_claims, SourceTexts};
use crate::{AuthorKind, PageId, PersonChange, Result, SourceId, Store, StoreError, NOW};

/// What grounds a page's claims again against its sources as they are now (id and text):
/// the engine's rule, handed to [`Store::restore_page_version`].
pub type Reground<'a> = &'a dyn Fn(&mut [PageClaim], &[(SourceId, String)]);

/// One version of a page as listed in its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageVersionInfo {
    /// Its number (1 for the first).
    pub version: u32,
    /// The title it showed.
    pub title: String,
    /// Who wrote it.
    pub author_kind: AuthorKind,
    /// The provider, when a model wrote it.
    pub provider: Option<String>,
    /// The model, when a model wrote it.
    pub model: Option<String>,
    /// The version it copies, when it is a restore.
    pub restored_from: Option<u32>,
    /// When it was written (UTC, ISO-8601).
    pub created_at: String,
    /// What a person's version did (`None` for a model's, and for a person's version
    /// written before version 19 of the schema).
    #[serde(default)]
    pub change: Option<PersonChange>,
    /// The claims that left the page when the model wrote this version because the page
    /// was full, and why (empty for other versions, and for versions written before
    /// version 21 of the schema).
    #[serde(default)]
    pub claims_left: Vec<ClaimLeft>,
}

/// A claim that left a full page to make room for what new sources add. It stays in its
/// sources' digests and in search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaimLeft {
    /// The claim's text.
    pub claim: String,
    /// Its quote.
    pub quote: Option<String>,
    /// The sources that held it.
    pub source_ids: Vec<SourceId>,
    /// Why it left, for a person.
    pub why: String,
}

/// One version of a page with its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageVersion {
    /// Who wrote it, and when.
    #[serde(flatten)]
    pub info: PageVersionInfo,
    /// What it says.
    pub content: PageContent,
}

/// Who writes a version.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Author<'a> {
    /// A model, named.
    Model { provider: &'a str, model: &'a str },
    /// A person, doing this.
    Person(PersonChange),
}

/// Makes `content` the page's current content (title, text, claims with their sources,
/// links). Sources named by a claim that no longer exist are left out.
fn set_current(conn: &Connection, page: PageId, content: &PageContent) -> Result<()> {
    conn.execute(
        &format!(
            "UPDATE pages SET title = ?2, summary = ?3, body = ?4, concepts = ?5,
                 open_questions = ?6, updated_at = {NOW}
             WHERE id = ?1"
        ),
        params![
            page,
            content.title,
            content.summary,
            content.body,
            to_json("pages.concepts", &content.concepts)?,
            to_json("pages.open_questions", &content.open_questions)?,
        ],
    )?;
    crate::tables::page_sentences::record_count(conn, page, &content.body)?;
    // The sources the old claims cite: a quote no claim cites any more lets its citations go.
    let cited_before = sources_of_page_claims(conn, page)?;
    conn.prepare_cached("DELETE FROM page_claims WHERE page_id = ?1")?
        .execute([page])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO page_claims (page_id, position, claim, confidence, quote, grounded,
                                  cited_page, author)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut attach = conn.prepare_cached(
        "INSERT OR IGNORE INTO claim_sources (claim_id, source_id)
         SELECT ?1, id FROM sources WHERE id = ?2",
    )?;
    for (position, claim) in content.claims.iter().enumerate() {
        insert.execute(params![
            page,
            position as i64,
            claim.claim.claim,
            claim.claim.confidence.as_str(),
            claim.claim.quote,
            claim.claim.grounded,
            claim.cited_page,
            claim.author,
        ])?;
        let claim_id = conn.last_insert_rowid();
        for source in &claim.source_ids {
            attach.execute(params![claim_id, source])?;
        }
    }
    conn.prepare_cached("DELETE FROM page_links WHERE page_id = ?1")?
        .execute([page])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO page_links (page_id, position, target_title, target_key, context)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (position, link) in tidy_links(conn, page, &content.links)?.iter().enumerate() {
        insert.execute(params![
            page,
            position as i64,
            link.target,
            page_key(&link.target),
            link.context
        ])?;
    }
    // Where each claim's quote stands in the sources that hold it.
    cite_page(conn, &mut SourceTexts::default(), page)?;
    prune_citations_in(conn, &cited_before)?;
    Ok(())
}

/// Records `content` as the page's next version, written by `author`, and makes it
/// current. Returns the new version's number.
pub(crate) fn write_version(
    conn: &Connection,
    page: PageId,
    content: &PageContent,
    author: Author<'_>,
    restored_from: Option<u32>,
) -> Result<u32> {
    set_current(conn, page, content)?;
    // The links as the page keeps them, so a version shows what the page showed.
    let stored = current_content(conn, page)?.ok_or(StoreError::PageNotFound(page))?;
    let version: u32 = conn
        .prepare_cached(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM page_versions WHERE page_id = ?1",
        )?
        .query_row([page], |row| row.get(0))?;
    let (kind, provider, model, change) = match author {
        Author::Model { provider, model } => (AuthorKind::Model, Some(provider), Some(model), None),
        Author::Person(change) => (AuthorKind::Person, None, None, Some(change)),
    };
    conn.prepare_cached(
        "INSERT INTO page_versions (page_id, version, title, summary, body, claims, concepts,
             open_questions, links, author_kind, provider, model, restored_from, change)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        page,
        version,
        stored.title,
        stored.summary,
        stored.body,
        to_json("page_versions.claims", &stored.claims)?,
        to_json("page_versions.concepts", &stored.concepts)?,
        to_json("page_versions.open_questions", &stored.open_questions)?,
        to_json("page_versions.links", &stored.links)?,
        kind,
        provider,
        model,
        restored_from,
        change,
    ])?;
    conn.prepare_cached("UPDATE pages SET version = ?2 WHERE id = ?1")?
        .execute(params![page, version])?;
    Ok(version)
}

fn version_info(row: &Row<'_>) -> rusqlite::Result<PageVersionInfo> {
    Ok(PageVersionInfo {
        version: row.get(0)?,
        title: row.get(1)?,
        author_kind: row.get(2)?,
        provider: row.get(3)?,
        model: row.get(4)?,
        restored_from: row.get(5)?,
        created_at: row.get(6)?,
        change: row.get(7)?,
        claims_left: {
            let text: String = row.get(8)?;
            // A record that cannot be read is shown as none rather than failing the history.
            serde_json::from_str(&text).unwrap_or_default()
        },
    })
}

impl Store {
    /// Every version of a page, oldest first (empty when there is no such page).
    pub fn page_history(&self, id: PageId) -> Result<Vec<PageVersionInfo>> {
        self.read(
            || format!("reading the history of page {id}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT version, title, author_kind, provider, model, restored_from,
                            created_at, change, claims_left
                     FROM page_versions WHERE page_id = ?1 ORDER BY version",
                )?;
                let rows = stmt.query_map([id], version_info)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// One version of a page with what it said.
    pub fn page_version(&self, id: PageId, version: u32) -> Result<Option<PageVersion>> {
        self.read(
            || format!("reading version {version} of page {id}"),
            |conn| version_in(conn, id, version),
        )
    }

    /// Restores an earlier version of a page: its content becomes a new version, written
    /// by the person (history keeps every version in between). The page keeps its title
    /// when the version's title names another topic, and stays stale if it was. The
    /// version's claims are first handed to `reground` with the page's sources as they are
    /// now (id and text), in the same transaction: the sources a claim named then may have
    /// left or changed. Returns the new version's number.
    pub fn restore_page_version(
        &self,
        id: PageId,
        version: u32,
        reground: Reground<'_>,
    ) -> Result<u32> {
        self.write(
            || format!("restoring version {version} of page {id}"),
            |tx| {
                let head: Option<(String, String)> = tx
                    .prepare_cached("SELECT title, title_key FROM pages WHERE id = ?1")?
                    .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()?;
                let (title, key) = head.ok_or(StoreError::PageNotFound(id))?;
                let mut old = version_in(tx, id, version)?
                    .ok_or(StoreError::PageVersionNotFound { page: id, version })?
                    .content;
                if page_key(&old.title) != key {
                    old.title = title;
                }
                let sources = crate::read::ask::source_texts_of(tx, id)?;
                reground(&mut old.claims, &sources);
                write_version(
                    tx,
                    id,
                    &old,
                    Author::Person(PersonChange::Restored),
                    Some(version),
                )
            },
        )
    }
}

pub(crate) fn version_in(
    conn: &Connection,
    id: PageId,
    version: u32,
) -> Result<Option<PageVersion>> {
    let row = conn
        .prepare_cached(
            "SELECT version, title, author_kind, provider, model, restored_from, created_at,
                    change, claims_left, summary, body, claims, concepts, open_questions, links
             FROM page_versions WHERE page_id = ?1 AND version = ?2",
        )?
        .query_row(params![id, version], |row| {
            let info = version_info(row)?;
            let texts: [String; 6] = [
                row.get(9)?,
                row.get(10)?,
                row.get(11)?,
                row.get(12)?,
                row.get(13)?,
                row.get(14)?,
            ];
            Ok((info, texts))
        })
        .optional()?;
    let Some((info, [summary, body, claims, concepts, questions, links])) = row else {
        return Ok(None);
    };
    let content = PageContent {
        title: info.title.clone(),
        summary,
        body,
        claims: from_json("page_versions.claims", &claims)?,
        concepts: from_json("page_versions.concepts", &concepts)?,
        open_questions: from_json("page_versions.open_questions", &questions)?,
        links: from_json("page_versions.links", &links)?,
    };
    Ok(Some(PageVersion { info, content }))
}

/// The last version of page `id` a model wrote (never a person's edit).
pub(crate) fn last_compiled_in(conn: &Connection, id: PageId) -> Result<Option<PageContent>> {
    Ok(last_compiled_version(conn, id)?.map(|(_, content)| content))
}

/// [`last_compiled_in`] with the version's number.
pub(crate) fn last_compiled_version(
    conn: &Connection,
    id: PageId,
) -> Result<Option<(u32, PageContent)>> {
    let last: Option<u32> = conn
        .prepare_cached(
            "SELECT MAX(version) FROM page_versions WHERE page_id = ?1 AND author_kind = 'model'",
        )?
        .query_row([id], |row| row.get(0))?;
    Ok(match last {
        Some(version) => version_in(conn, id, version)?.map(|v| (version, v.content)),
        None => None,
    })
}
