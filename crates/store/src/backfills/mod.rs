//! Backfills: data changes that need today's rules, run after the wiki opens.
//!
//! A migration changes the schema with frozen SQL; a change that needs the current
//! algorithms (grounding, the markdown reader, the name rules) cannot be frozen, so it is a
//! *backfill*: versioned (a newer version runs again from the start), idempotent, and
//! resumable (it works in batches of rows by id, and each batch's writes and the cursor
//! that records it are one transaction, so a crash or a second process loses or repeats
//! nothing). The store keeps the bookkeeping and the queries; the rules are the caller's.

mod names;
pub use names::{NameRules, NamesCleanup};

use rusqlite::{params, OptionalExtension, Transaction};

use crate::json;
use crate::tables::claims::{downgrade_claims, page_claim_sources, ClaimTable};
use crate::tables::page_sentences::record_count;
use crate::tx::cite::{cite_quote, Cited, SourceTexts};
use crate::{PageId, Result, SourceId, SourceKind, Store, NOW};

/// A source as a backfill reads it: enough to derive what the markdown reader says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// Its id.
    pub id: SourceId,
    /// Its origin.
    pub origin: String,
    /// Its kind.
    pub kind: SourceKind,
    /// Its raw text.
    pub text: String,
}

/// What the markdown reader says of a source, to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMetadata {
    /// The source.
    pub source: SourceId,
    /// Its own title; `None` keeps the one stored.
    pub title: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its aliases.
    pub aliases: Vec<String>,
}

/// A claim shown as grounded, and the sources whose text may hold its quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroundedClaim {
    /// Its row id in its table.
    pub id: i64,
    /// Its quote.
    pub quote: String,
    /// The sources to look for the quote in.
    pub sources: Vec<SourceId>,
}

impl Store {
    /// Where the backfill `name` at `version` stands: `None` when it is done at this
    /// version (or a newer one), else the id of the last row it finished (0 to start; a
    /// backfill recorded at an older version starts again).
    pub fn backfill_cursor(&self, name: &str, version: u32) -> Result<Option<i64>> {
        self.read(
            || format!("reading the progress of backfill {name}"),
            |conn| {
                let row: Option<(u32, i64, Option<String>)> = conn
                    .prepare_cached(
                        "SELECT version, cursor, done_at FROM backfills WHERE name = ?1",
                    )?
                    .query_row([name], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
                    .optional()?;
                Ok(match row {
                    None => Some(0),
                    Some((recorded, _, _)) if recorded < version => Some(0),
                    Some((_, _, Some(_))) => None,
                    Some((_, cursor, None)) => Some(cursor),
                })
            },
        )
    }

    /// The backfills recorded as done on this wiki, by name and the version that ran.
    pub fn backfills_done(&self) -> Result<Vec<(String, u32)>> {
        self.read(
            || "listing the backfills done".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT name, version FROM backfills WHERE done_at IS NOT NULL ORDER BY name",
                )?;
                let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Records the backfill `name` at `version` as done (a backfill whose work is checked
    /// again from the data itself, so it keeps no cursor).
    pub fn finish_backfill(&self, name: &str, version: u32) -> Result<()> {
        self.write(
            || format!("recording the end of backfill {name}"),
            |tx| {
                let at: i64 = tx
                    .prepare_cached(
                        "SELECT CASE WHEN version < ?2 THEN 0 ELSE cursor END
                         FROM backfills WHERE name = ?1",
                    )?
                    .query_row(params![name, version], |row| row.get(0))
                    .optional()?
                    .unwrap_or(0);
                advance(tx, name, version, at, at, true)?;
                Ok(())
            },
        )
    }

    /// Up to `limit` claims of `table` shown as grounded with a quote, with ids above
    /// `after`, in id order, each with the sources to look for its quote in.
    pub fn grounded_claims_after(
        &self,
        table: ClaimTable,
        after: i64,
        limit: usize,
    ) -> Result<Vec<GroundedClaim>> {
        let sql = match table {
            ClaimTable::Digest => {
                "SELECT c.id, c.quote, a.source_id FROM claims c
                 JOIN articles a ON a.id = c.article_id
                 WHERE c.id > ?1 AND c.grounded = 1 AND c.quote IS NOT NULL
                 ORDER BY c.id LIMIT ?2"
            }
            ClaimTable::Page => {
                "SELECT c.id, c.quote, NULL FROM page_claims c
                 WHERE c.id > ?1 AND c.grounded = 1 AND c.quote IS NOT NULL
                   AND c.cited_page IS NULL
                 ORDER BY c.id LIMIT ?2"
            }
        };
        self.read(
            || "reading claims to check again".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(sql)?;
                let rows = stmt.query_map(params![after, limit as i64], |row| {
                    Ok(GroundedClaim {
                        id: row.get(0)?,
                        quote: row.get(1)?,
                        sources: row.get::<_, Option<SourceId>>(2)?.into_iter().collect(),
                    })
                })?;
                let mut claims: Vec<GroundedClaim> = rows.collect::<rusqlite::Result<_>>()?;
                if table == ClaimTable::Page {
                    for claim in &mut claims {
                        claim.sources = page_claim_sources(conn, claim.id)?;
                    }
                }
                Ok(claims)
            },
        )
    }

    /// The text of source `id`, if it exists.
    pub fn source_text(&self, id: SourceId) -> Result<Option<String>> {
        self.read(
            || format!("reading the text of source {id}"),
            |conn| {
                Ok(conn
                    .prepare_cached("SELECT text FROM sources WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))
                    .optional()?)
            },
        )
    }

    /// Up to `limit` sources with ids above `after`, in id order.
    pub fn sources_after(&self, after: i64, limit: usize) -> Result<Vec<SourceRow>> {
        self.read(
            || format!("reading sources after {after}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, origin, kind, text FROM sources WHERE id > ?1 ORDER BY id LIMIT ?2",
                )?;
                let rows = stmt.query_map(params![after, limit as i64], |row| {
                    Ok(SourceRow {
                        id: row.get(0)?,
                        origin: row.get(1)?,
                        kind: row.get(2)?,
                        text: row.get(3)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Records one batch of the backfill `name` at `version`, in one transaction: each
    /// source's own title (when given), tags and aliases, and the aliases as names of the
    /// page its title names; the cursor moves from `from` to `to`, `done` marks it
    /// finished. Returns how many sources changed, or `None` when another process moved
    /// the cursor meanwhile (nothing is written).
    pub fn record_metadata_batch(
        &self,
        name: &str,
        version: u32,
        (from, to): (i64, i64),
        rows: &[SourceMetadata],
        done: bool,
    ) -> Result<Option<usize>> {
        self.backfill_batch(name, version, (from, to), done, |tx| {
            let mut changed = 0;
            for row in rows {
                let (tags, aliases) = (
                    json::to_json("sources.tags", &row.tags)?,
                    json::to_json("sources.aliases", &row.aliases)?,
                );
                changed += tx
                    .prepare_cached(
                        "UPDATE sources SET title_hint = COALESCE(?2, title_hint), tags = ?3,
                             aliases = ?4
                         WHERE id = ?1 AND (title_hint IS NOT COALESCE(?2, title_hint)
                             OR tags IS NOT ?3 OR aliases IS NOT ?4)",
                    )?
                    .execute(params![row.source, row.title, tags, aliases])?;
                let page: Option<(crate::PageId, String)> = tx
                    .prepare_cached(
                        "SELECT p.id, p.title_key FROM page_sources ps
                             JOIN pages p ON p.id = ps.page_id
                             WHERE ps.source_id = ?1 AND ps.by_title = 1",
                    )?
                    .query_row([row.source], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()?;
                if let Some((page, key)) = page {
                    crate::tx::feed::declare_aliases(tx, row.source, page, &key)?;
                }
            }
            Ok(changed)
        })
    }

    /// Records one batch of the backfill `name` at `version`, in one transaction: the
    /// claims of `table` in `downgrade` are no longer shown as grounded (a `sourced` one
    /// becomes `inferred`, its quote kept; a page claim no longer names sources), the
    /// cursor moves from `from` to `to`, and `done` marks it finished. When another process
    /// moved the cursor meanwhile, nothing is written and `false` is returned.
    pub fn record_reground_batch(
        &self,
        name: &str,
        version: u32,
        table: ClaimTable,
        (from, to): (i64, i64),
        downgrade: &[i64],
        done: bool,
    ) -> Result<bool> {
        self.backfill_batch(name, version, (from, to), done, |tx| {
            let unlinked = downgrade_claims(tx, table, downgrade)?;
            crate::tx::cite::prune_citations_in(tx, &unlinked)?;
            Ok(())
        })
        .map(|batch| batch.is_some())
    }

    /// Records one batch of a citations backfill `name` at `version`, in one transaction:
    /// where the quote of each of `claims` stands in the sources given with it (a quote
    /// already cited there is left as it is), the cursor moving from `from` to `to`, `done`
    /// marking it finished. Every claim is kept, placed or not. Returns what it did, or
    /// `None` when another process moved the cursor meanwhile (nothing is written).
    pub fn record_citation_batch(
        &self,
        name: &str,
        version: u32,
        (from, to): (i64, i64),
        claims: &[GroundedClaim],
        done: bool,
    ) -> Result<Option<CitedBatch>> {
        self.backfill_batch(name, version, (from, to), done, |tx| {
            let mut batch = CitedBatch::default();
            let mut texts = SourceTexts::default();
            for claim in claims {
                let mut placed = false;
                let mut new = false;
                for &source in &claim.sources {
                    match cite_quote(tx, &mut texts, source, &claim.quote)? {
                        Cited::Already => placed = true,
                        Cited::Placed => (placed, new) = (true, true),
                        Cited::NotFound => {}
                    }
                }
                if new {
                    batch.placed += 1;
                }
                if !placed {
                    batch.unplaced.push(claim.quote.clone());
                }
            }
            Ok(batch)
        })
    }
}

impl Store {
    /// Up to `limit` sources with citations, with ids above `after`, in id order: what the
    /// backfill that lets go of stale citations reads.
    pub fn cited_sources_after(&self, after: i64, limit: usize) -> Result<Vec<SourceId>> {
        self.read(
            || format!("reading cited sources after {after}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT DISTINCT source_id FROM citations WHERE source_id > ?1
                     ORDER BY source_id LIMIT ?2",
                )?;
                let rows = stmt.query_map(params![after, limit as i64], |row| row.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Records one batch of the backfill `name` at `version`, in one transaction: the
    /// citations in `sources` of quotes no claim cites any more go (older builds kept them
    /// until the source's digest was saved again), the cursor moving from `from` to `to`,
    /// `done` marking it finished. Returns how many citation rows went, or `None` when
    /// another process moved the cursor meanwhile (nothing is written).
    pub fn record_citation_prune_batch(
        &self,
        name: &str,
        version: u32,
        (from, to): (i64, i64),
        sources: &[SourceId],
        done: bool,
    ) -> Result<Option<usize>> {
        self.backfill_batch(name, version, (from, to), done, |tx| {
            crate::tx::cite::prune_citations_in(tx, sources)
        })
    }
}

/// A PDF file source an older build stored without its pages: what the backfill that
/// records them reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagelessPdf {
    /// The source.
    pub id: SourceId,
    /// Its origin (the PDF's path).
    pub origin: String,
    /// Its stored text, which the pages read again must fit.
    pub text: String,
}

impl Store {
    /// Up to `limit` file sources read from a PDF (an origin ending in `.pdf`) that have
    /// no pages stored, with ids above `after`, in id order.
    pub fn pageless_pdfs_after(&self, after: i64, limit: usize) -> Result<Vec<PagelessPdf>> {
        self.read(
            || format!("reading PDF sources without pages after {after}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, origin, text FROM sources s
                     WHERE id > ?1 AND kind = 'file' AND lower(origin) LIKE '%.pdf'
                       AND NOT EXISTS (SELECT 1 FROM source_pages p WHERE p.source_id = s.id)
                     ORDER BY id LIMIT ?2",
                )?;
                let rows = stmt.query_map(params![after, limit as i64], |row| {
                    Ok(PagelessPdf {
                        id: row.get(0)?,
                        origin: row.get(1)?,
                        text: row.get(2)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Records one batch of the backfill `name` at `version`, in one transaction: each
    /// source's pages, and its citations anchored again so they say their page (a source
    /// whose text changed meanwhile is left as it is: its pages were read for the old
    /// text), the cursor moving from `from` to `to`, `done` marking it finished. Returns
    /// how many sources got their pages, or `None` when another process moved the cursor
    /// meanwhile (nothing is written).
    pub fn record_pages_batch(
        &self,
        name: &str,
        version: u32,
        (from, to): (i64, i64),
        read: &[(PagelessPdf, Vec<crate::SourcePage>)],
        done: bool,
    ) -> Result<Option<usize>> {
        self.backfill_batch(name, version, (from, to), done, |tx| {
            let mut recorded = 0;
            for (source, pages) in read {
                let same: bool = tx
                    .prepare_cached("SELECT text = ?2 FROM sources WHERE id = ?1")?
                    .query_row(params![source.id, source.text], |row| row.get(0))
                    .optional()?
                    .unwrap_or(false);
                if !same || pages.is_empty() {
                    continue;
                }
                crate::tables::source_pages::replace_pages(tx, source.id, pages)?;
                crate::tx::cite::reanchor_source(tx, source.id)?;
                recorded += 1;
            }
            Ok(recorded)
        })
    }
}

/// What one batch of a citations backfill did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CitedBatch {
    /// Claims whose quote got citations in this batch.
    pub placed: usize,
    /// The quotes of claims that could not be placed in any of their sources (the claims
    /// are kept as they are).
    pub unplaced: Vec<String>,
}

impl Store {
    /// One batch of backfill `name` at `version`, in one transaction: the cursor moves
    /// from `from` to `to` (`done` marks it finished) and `record` writes the batch. `None`,
    /// with nothing written, when another process moved the cursor meanwhile.
    fn backfill_batch<T>(
        &self,
        name: &str,
        version: u32,
        (from, to): (i64, i64),
        done: bool,
        record: impl FnOnce(&Transaction<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        self.write(
            || format!("recording a batch of backfill {name}"),
            |tx| {
                if !advance(tx, name, version, from, to, done)? {
                    return Ok(None);
                }
                record(tx).map(Some)
            },
        )
    }
}

/// Moves the cursor of backfill `name` from `from` to `to` (creating its row at the first
/// batch, or resetting one of an older version); `false` when it is not at `from`.
pub(crate) fn advance(
    tx: &Transaction<'_>,
    name: &str,
    version: u32,
    from: i64,
    to: i64,
    done: bool,
) -> Result<bool> {
    let row: Option<(u32, i64, Option<String>)> = tx
        .prepare_cached("SELECT version, cursor, done_at FROM backfills WHERE name = ?1")?
        .query_row([name], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .optional()?;
    let at = match row {
        None => 0,
        Some((recorded, _, _)) if recorded < version => 0,
        Some((_, _, Some(_))) => return Ok(false),
        Some((_, cursor, None)) => cursor,
    };
    if at != from {
        return Ok(false);
    }
    tx.execute(
        &format!(
            "INSERT INTO backfills (name, version, cursor, started_at, done_at)
             VALUES (?1, ?2, ?3, {NOW}, CASE WHEN ?4 THEN {NOW} END)
             ON CONFLICT (name) DO UPDATE SET
                 version = excluded.version,
                 cursor = excluded.cursor,
                 started_at = CASE WHEN backfills.version < excluded.version
                              THEN excluded.started_at ELSE backfills.started_at END,
                 done_at = excluded.done_at"
        ),
        params![name, version, to, done],
    )?;
    Ok(true)
}

/// One batch of a backfill that counts bodies ([`Store::count_sentences_batch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountedBatch {
    /// The pages it looked at.
    pub looked: usize,
    /// Those it counted (the others were counted already).
    pub counted: usize,
}

impl Store {
    /// One batch of the backfill `name` at `version`, which counts the sentences of every
    /// page's body by today's rule (`page_sentences`): the next `limit` pages after the
    /// cursor, in id order, those not yet counted by it counted, and the cursor moved past
    /// them, in one transaction (so each count is of the body as it stands). `None` when
    /// it is done at this version; a batch that looked at nothing when another process
    /// moved the cursor meanwhile (ask again).
    pub fn count_sentences_batch(
        &self,
        name: &str,
        version: u32,
        limit: usize,
    ) -> Result<Option<CountedBatch>> {
        let Some(from) = self.backfill_cursor(name, version)? else {
            return Ok(None);
        };
        self.write(
            || format!("recording a batch of backfill {name}"),
            |tx| {
                let pages: Vec<(PageId, bool)> = {
                    let mut stmt = tx.prepare_cached(
                        "SELECT p.id, EXISTS (SELECT 1 FROM page_sentences s
                                              WHERE s.page_id = p.id AND s.rule = ?3)
                         FROM pages p WHERE p.id > ?1 ORDER BY p.id LIMIT ?2",
                    )?;
                    let rows = stmt.query_map(
                        params![from, limit as i64, wikimind_text::prose::SENTENCES_RULE],
                        |row| Ok((row.get(0)?, row.get(1)?)),
                    )?;
                    rows.collect::<rusqlite::Result<_>>()?
                };
                let to = pages.last().map_or(from, |p| p.0 .0);
                if !advance(tx, name, version, from, to, pages.len() < limit)? {
                    return Ok(Some(CountedBatch {
                        looked: 0,
                        counted: 0,
                    }));
                }
                let mut counted = 0;
                let mut body = tx.prepare_cached("SELECT body FROM pages WHERE id = ?1")?;
                for &(page, done) in &pages {
                    if done {
                        continue;
                    }
                    let text: String = body.query_row([page], |row| row.get(0))?;
                    record_count(tx, page, &text)?;
                    counted += 1;
                }
                Ok(Some(CountedBatch {
                    looked: pages.len(),
                    counted,
                }))
            },
        )
    }
}
