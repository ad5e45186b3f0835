//! Sources: ingest, listing, lookup, status, removal.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::json;
use crate::{
    content_hash, page_key, ArticleId, Result, SourceId, SourceKind, SourceStatus, Store,
    StoreError, NOW,
};

/// A source to ingest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewSource {
    /// Its identity: a canonical path, a URL, or `text:<sha256>` for pasted text.
    pub origin: String,
    /// Where it came from.
    pub kind: SourceKind,
    /// A title hint (file name, page title), if any.
    pub title: Option<String>,
    /// The extracted text.
    pub text: String,
    /// Tags the source gives itself (a note's front matter and inline `#tags`).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Other names the source gives its topic (a note's front matter `aliases`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// For a file, the folder it was ingested or watched from (a file ingested alone: its
    /// own folder); a note's identity is its path relative to it. `None` for other sources,
    /// and for a file ingested again keeps the root it had when that one holds the new one.
    #[serde(default)]
    pub root: Option<String>,
}

/// What an ingest did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "source_id", rename_all = "snake_case")]
pub enum IngestOutcome {
    /// A new source.
    Added(SourceId),
    /// Same origin, same text: nothing changed.
    Unchanged(SourceId),
    /// Same origin, new text: the text was replaced and the source needs a compile
    /// (`stale` if it had an article, else `pending`).
    Changed(SourceId),
}

/// What an ingest did to one source, without the source: `added`, `unchanged` or
/// `changed` on the wire and in human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Landed {
    /// A new source.
    Added,
    /// Same origin, same text.
    Unchanged,
    /// Same origin, new text.
    Changed,
}

impl Landed {
    /// `added`, `unchanged` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Landed::Added => "added",
            Landed::Unchanged => "unchanged",
            Landed::Changed => "changed",
        }
    }
}

impl std::fmt::Display for Landed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl IngestOutcome {
    /// What happened, without the source.
    pub fn landed(self) -> Landed {
        match self {
            IngestOutcome::Added(_) => Landed::Added,
            IngestOutcome::Unchanged(_) => Landed::Unchanged,
            IngestOutcome::Changed(_) => Landed::Changed,
        }
    }

    /// The source the ingest is about.
    pub fn source_id(self) -> SourceId {
        match self {
            IngestOutcome::Added(id)
            | IngestOutcome::Unchanged(id)
            | IngestOutcome::Changed(id) => id,
        }
    }
}

/// A source with its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// Its id.
    pub id: SourceId,
    /// Its identity (path, URL, `text:<hash>`).
    pub origin: String,
    /// Where it came from.
    pub kind: SourceKind,
    /// The title hint given at ingest.
    pub title: Option<String>,
    /// The text.
    pub text: String,
    /// Its tags (see [`NewSource::tags`]).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Its aliases (see [`NewSource::aliases`]).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// For a web page that redirected, the URL it was finally read from (`null` otherwise).
    #[serde(default)]
    pub final_url: Option<String>,
    /// For a file, the folder it was ingested or watched from (see [`NewSource::root`]).
    #[serde(default)]
    pub root: Option<String>,
    /// SHA-256 of the text, lowercase hex.
    pub content_hash: String,
    /// Its status.
    pub status: SourceStatus,
    /// Why the last compile failed, when `status` is `failed`.
    pub reason: Option<String>,
    /// When it was first ingested (UTC, ISO-8601).
    pub created_at: String,
    /// When its text or status last changed (UTC, ISO-8601).
    pub updated_at: String,
}

/// A source as listed (no text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSummary {
    /// Its id.
    pub id: SourceId,
    /// Its identity (path, URL, `text:<hash>`).
    pub origin: String,
    /// Where it came from.
    pub kind: SourceKind,
    /// The title hint given at ingest.
    pub title: Option<String>,
    /// Its status.
    pub status: SourceStatus,
    /// Why the last compile failed, when `status` is `failed`.
    pub reason: Option<String>,
    /// Its article, if it has one.
    pub article_id: Option<ArticleId>,
    /// The title of its article, if it has one.
    pub article_title: Option<String>,
    /// When its text or status last changed (UTC, ISO-8601).
    pub updated_at: String,
    /// For a web page that redirected, the URL it was finally read from (`null` otherwise).
    #[serde(default)]
    pub final_url: Option<String>,
    /// Its tags (see [`NewSource::tags`]).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Its aliases (see [`NewSource::aliases`]).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// For a file, the folder it was ingested or watched from (see [`NewSource::root`]).
    #[serde(default)]
    pub root: Option<String>,
}

/// What names a note ([`Store::note_sources`]): a file source's fields the index of notes
/// reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteHead {
    /// Its id.
    pub id: SourceId,
    /// Its path.
    pub origin: String,
    /// The title hint given at ingest.
    pub title: Option<String>,
    /// The folder it was ingested or watched from.
    pub root: Option<String>,
    /// Its aliases.
    pub aliases: Vec<String>,
    /// The title of its digest, if it has one.
    pub article_title: Option<String>,
}

impl From<&SourceSummary> for NoteHead {
    fn from(s: &SourceSummary) -> NoteHead {
        NoteHead {
            id: s.id,
            origin: s.origin.clone(),
            title: s.title.clone(),
            root: s.root.clone(),
            aliases: s.aliases.clone(),
            article_title: s.article_title.clone(),
        }
    }
}

const SUMMARY_SELECT: &str = "SELECT s.id, s.origin, s.kind, s.title_hint, s.status, s.reason,
        a.id, a.title, s.updated_at, s.final_url, s.tags, s.aliases, s.root
    FROM sources s LEFT JOIN articles a ON a.source_id = s.id";

fn summary_row(row: &Row<'_>) -> rusqlite::Result<SourceSummary> {
    Ok(SourceSummary {
        id: row.get(0)?,
        origin: row.get(1)?,
        kind: row.get(2)?,
        title: row.get(3)?,
        status: row.get(4)?,
        reason: row.get(5)?,
        article_id: row.get(6)?,
        article_title: row.get(7)?,
        updated_at: row.get(8)?,
        final_url: row.get(9)?,
        tags: json::column(row, 10, "sources.tags")?,
        aliases: json::column(row, 11, "sources.aliases")?,
        root: row.get(12)?,
    })
}

pub(crate) fn source_exists(conn: &Connection, id: SourceId) -> Result<()> {
    let found: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM sources WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?;
    found.map(|_| ()).ok_or(StoreError::SourceNotFound(id))
}

/// Removes the concepts among `ids` that no digest uses any more.
pub(crate) fn drop_orphan_concepts_among(conn: &Connection, ids: &[i64]) -> Result<()> {
    let mut drop = conn.prepare_cached(
        "DELETE FROM concepts WHERE id = ?1
         AND NOT EXISTS (SELECT 1 FROM article_concepts ac WHERE ac.concept_id = ?1)",
    )?;
    for id in ids {
        drop.execute([id])?;
    }
    Ok(())
}

/// Removes every concept no digest uses (after a source, and its digest, is removed).
pub(crate) fn drop_orphan_concepts(conn: &Connection) -> Result<()> {
    conn.prepare_cached(
        "DELETE FROM concepts
         WHERE NOT EXISTS (SELECT 1 FROM article_concepts ac WHERE ac.concept_id = concepts.id)",
    )?
    .execute([])?;
    Ok(())
}

/// Adds a source, or updates the one with the same origin (see
/// [`Store::ingest_source`]): what it did.
pub(crate) fn ingest_in(
    tx: &Connection,
    new: &NewSource,
    final_url: Option<&str>,
) -> Result<IngestOutcome> {
    let hash = content_hash(&new.text);
    let (tags, aliases) = (
        json::to_json("sources.tags", &new.tags)?,
        json::to_json("sources.aliases", &new.aliases)?,
    );
    let existing: Option<(SourceId, String, SourceStatus)> = tx
        .prepare_cached("SELECT id, content_hash, status FROM sources WHERE origin = ?1")?
        .query_row([&new.origin], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .optional()?;
    if let Some((id, _, _)) = &existing {
        // A file ingested again from another folder: the root that holds the
        // other is kept (a note of a vault ingested alone stays in its vault).
        tx.prepare_cached(
            "UPDATE sources SET root = ?2 WHERE id = ?1 AND ?2 IS NOT NULL
                     AND (root IS NULL OR (root <> ?2 AND NOT
                          substr(?2, 1, length(rtrim(root, '/')) + 1)
                              = rtrim(root, '/') || '/'))",
        )?
        .execute(params![id, new.root])?;
    }
    match existing {
        None => {
            tx.prepare_cached(
                "INSERT INTO sources (origin, kind, title_hint, text, content_hash,
                                          final_url, tags, aliases, root)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                new.origin, new.kind, new.title, new.text, hash, final_url, tags, aliases, new.root
            ])?;
            Ok(IngestOutcome::Added(SourceId(tx.last_insert_rowid())))
        }
        Some((id, old_hash, _)) if old_hash == hash => {
            // The same text read by a newer reader may give another title, tags
            // or aliases: those are kept up to date, the text is not compiled
            // again.
            tx.prepare_cached(
                "UPDATE sources SET final_url = ?2,
                         title_hint = COALESCE(?3, title_hint), tags = ?4, aliases = ?5
                     WHERE id = ?1 AND (final_url IS NOT ?2
                         OR title_hint IS NOT COALESCE(?3, title_hint)
                         OR tags IS NOT ?4 OR aliases IS NOT ?5)",
            )?
            .execute(params![id, final_url, new.title, tags, aliases])?;
            Ok(IngestOutcome::Unchanged(id))
        }
        Some((id, _, status)) => {
            let next = match status {
                SourceStatus::Compiled | SourceStatus::Stale => SourceStatus::Stale,
                _ => SourceStatus::Pending,
            };
            tx.execute(
                &format!(
                    "UPDATE sources SET kind = ?2, title_hint = COALESCE(?3, title_hint),
                             text = ?4, content_hash = ?5, status = ?6, reason = NULL,
                             final_url = ?7, tags = ?8, aliases = ?9, updated_at = {NOW}
                         WHERE id = ?1"
                ),
                params![id, new.kind, new.title, new.text, hash, next, final_url, tags, aliases],
            )?;
            Ok(IngestOutcome::Changed(id))
        }
    }
}

impl Store {
    /// Every source, oldest first.
    pub fn sources(&self) -> Result<Vec<SourceSummary>> {
        self.read(
            || "listing sources".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!("{SUMMARY_SELECT} ORDER BY s.id"))?;
                let rows = stmt.query_map([], summary_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// What the index of notes needs of every source read from a file, oldest first:
    /// [`Store::sources`] narrowed to the notes and to what names them, read from the
    /// partial index `sources_notes` and the digests' titles from `articles_titles`
    /// (migration 31) rather than from rows holding every note's text and digest's body.
    pub fn note_sources(&self) -> Result<Vec<NoteHead>> {
        self.read(
            || "listing the notes".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT s.id, s.origin, s.title_hint, s.root, s.aliases, a.title
                     FROM sources s INDEXED BY sources_notes
                     LEFT JOIN articles a INDEXED BY articles_titles ON a.source_id = s.id
                     WHERE s.kind = 'file' ORDER BY s.id",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(NoteHead {
                        id: row.get(0)?,
                        origin: row.get(1)?,
                        title: row.get(2)?,
                        root: row.get(3)?,
                        aliases: json::column(row, 4, "sources.aliases")?,
                        article_title: row.get(5)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// How many sources have each status, statuses with none left out. Counted on the
    /// status index, so it costs a few milliseconds at 100,000 sources.
    pub fn source_status_counts(&self) -> Result<Vec<(SourceStatus, u64)>> {
        self.read(
            || "counting sources by status".to_owned(),
            |conn| {
                let mut stmt =
                    conn.prepare_cached("SELECT status, COUNT(*) FROM sources GROUP BY status")?;
                let rows = stmt.query_map([], |row| {
                    Ok((row.get(0)?, row.get::<_, i64>(1)?.unsigned_abs()))
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// The sources from the `offset`-th, at most `limit` of them, oldest first (newest
    /// first when `newest_first`); only those with `status` when one is given. Read by id
    /// (or by the status index), so a window far down a list of 100,000 costs what the
    /// first does, give or take the rows skipped.
    pub fn sources_window(
        &self,
        status: Option<SourceStatus>,
        newest_first: bool,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<SourceSummary>> {
        self.read(
            || format!("listing sources from the {offset}th"),
            |conn| {
                let order = if newest_first { "DESC" } else { "ASC" };
                // Two statements rather than `?1 IS NULL OR …`, which no index serves: with
                // a status, the status index holds its sources in id order.
                let filter = if status.is_some() {
                    "WHERE s.status = ?3"
                } else {
                    ""
                };
                let mut stmt = conn.prepare_cached(&format!(
                    "{SUMMARY_SELECT} {filter} ORDER BY s.id {order} LIMIT ?1 OFFSET ?2"
                ))?;
                let rows = match status {
                    Some(status) => stmt.query_map(params![limit, offset, status], summary_row)?,
                    None => stmt.query_map(params![limit, offset], summary_row)?,
                };
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// A stamp of the set of sources: how many there are and the highest id. Ids are never
    /// reused, so a source added and kept raises the highest id, and a source removed
    /// otherwise lowers the count: while the stamp stays the same, so does the set. Each
    /// part is read apart, so that SQLite counts the rows of the smallest index page by
    /// page and finds the highest id at the end of the table, costing next to nothing
    /// however large the wiki (read together with a sum of the ids, as before, they walked
    /// every row). A source changed in place does not change it. What a process that
    /// keeps the wiki's note index checks before it uses it again.
    pub fn sources_stamp(&self) -> Result<(i64, i64)> {
        self.read(
            || "reading the sources' stamp".to_owned(),
            |conn| {
                let count = conn
                    .prepare_cached("SELECT COUNT(*) FROM sources")?
                    .query_row([], |row| row.get(0))?;
                let last = conn
                    .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM sources")?
                    .query_row([], |row| row.get(0))?;
                Ok((count, last))
            },
        )
    }

    /// One source with its text.
    pub fn source(&self, id: SourceId) -> Result<Option<Source>> {
        self.read(
            || format!("reading source {id}"),
            |conn| {
                Ok(conn
                    .prepare_cached(
                        "SELECT id, origin, kind, title_hint, text, content_hash, status, reason,
                                created_at, updated_at, final_url, tags, aliases, root
                         FROM sources WHERE id = ?1",
                    )?
                    .query_row([id], |row| {
                        Ok(Source {
                            id: row.get(0)?,
                            origin: row.get(1)?,
                            kind: row.get(2)?,
                            title: row.get(3)?,
                            text: row.get(4)?,
                            content_hash: row.get(5)?,
                            status: row.get(6)?,
                            reason: row.get(7)?,
                            created_at: row.get(8)?,
                            updated_at: row.get(9)?,
                            final_url: row.get(10)?,
                            tags: json::column(row, 11, "sources.tags")?,
                            aliases: json::column(row, 12, "sources.aliases")?,
                            root: row.get(13)?,
                        })
                    })
                    .optional()?)
            },
        )
    }

    /// One source as [`Store::sources`] lists it, read by its id (`None`: no such source).
    pub fn source_summary(&self, id: SourceId) -> Result<Option<SourceSummary>> {
        self.read(
            || format!("reading source {id}"),
            |conn| {
                Ok(conn
                    .query_row(
                        &format!("{SUMMARY_SELECT} WHERE s.id = ?1"),
                        [id],
                        summary_row,
                    )
                    .optional()?)
            },
        )
    }

    /// Finds a source by what a person would type: its id number, its exact origin, or
    /// the exact title of its article (case-insensitive; the first article when several
    /// have it), tried in that order.
    pub fn find_source(&self, key: &str) -> Result<Option<SourceSummary>> {
        let key = key.trim();
        self.read(
            || format!("looking up the source {key:?}"),
            |conn| {
                if let Ok(number) = key.parse::<i64>() {
                    let found = conn
                        .query_row(
                            &format!("{SUMMARY_SELECT} WHERE s.id = ?1"),
                            [number],
                            summary_row,
                        )
                        .optional()?;
                    if found.is_some() {
                        return Ok(found);
                    }
                }
                let by_origin = conn
                    .query_row(
                        &format!("{SUMMARY_SELECT} WHERE s.origin = ?1"),
                        [key],
                        summary_row,
                    )
                    .optional()?;
                if by_origin.is_some() {
                    return Ok(by_origin);
                }
                Ok(conn
                    .query_row(
                        &format!("{SUMMARY_SELECT} WHERE a.title_norm = ?1 ORDER BY a.id LIMIT 1"),
                        [page_key(key)],
                        summary_row,
                    )
                    .optional()?)
            },
        )
    }

    /// Gives source `id` the title `title` (a note renamed): a compiled source becomes
    /// stale, as its digest was compiled under the old title. Returns whether it changed.
    pub fn retitle_source(&self, id: SourceId, title: &str) -> Result<bool> {
        self.write(
            || format!("renaming source {id}"),
            |tx| {
                source_exists(tx, id)?;
                let changed = tx.execute(
                    &format!(
                        "UPDATE sources SET title_hint = ?2, updated_at = {NOW},
                             status = CASE status WHEN 'compiled' THEN 'stale' ELSE status END
                         WHERE id = ?1 AND title_hint IS NOT ?2"
                    ),
                    params![id, title],
                )?;
                Ok(changed > 0)
            },
        )
    }

    /// Sets a source's status and failure reason (the reason is kept only for `failed`).
    pub fn set_status(
        &self,
        id: SourceId,
        status: SourceStatus,
        reason: Option<&str>,
    ) -> Result<()> {
        let reason = reason.filter(|_| status == SourceStatus::Failed);
        self.write(
            || format!("setting the status of source {id}"),
            |tx| {
                let changed = tx.execute(
                    &format!(
                        "UPDATE sources SET status = ?2, reason = ?3, updated_at = {NOW}
                         WHERE id = ?1"
                    ),
                    params![id, status, reason],
                )?;
                if changed == 0 {
                    return Err(StoreError::SourceNotFound(id));
                }
                Ok(())
            },
        )
    }

    /// The sources a compile run should take: `pending`, `failed`, `stale`, and those
    /// left `compiling` by an interrupted run; with `force`, `compiled` ones too. Oldest
    /// first.
    pub fn sources_to_compile(&self, force: bool) -> Result<Vec<SourceSummary>> {
        self.read(
            || "listing sources to compile".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!(
                    "{SUMMARY_SELECT}
                     WHERE s.status IN ('pending', 'failed', 'stale', 'compiling')
                        OR (?1 AND s.status = 'compiled')
                     ORDER BY s.id"
                ))?;
                let rows = stmt.query_map([force], summary_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}
