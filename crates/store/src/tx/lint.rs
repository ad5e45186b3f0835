//! The SQL behind `wikimind lint` (the checks themselves are the core's `lint` module):
//! what each deterministic check reads from the wiki, in one query each, and the few
//! writes its safe fixes and dismissals make.
//!
//! A page link resolves as everywhere else (see the `pages` module): to the page with its
//! target's key, else to the page that had it as a title before (a former title, or an
//! alias a note declares).

use std::collections::{HashMap, HashSet};

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use crate::tables::claims::{downgrade_claims, page_claim_sources};
use crate::tables::page_sentences::{counted_pages, counted_thin, uncounted_topics, BodyCount};
use crate::tx::feed::mark_stale;
use crate::{ClaimTable, FileSourceRow, Generation, PageId, Result, SourceId, Store};

/// Sizes of the wiki's link graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LinkCounts {
    /// Topic pages.
    pub pages: u64,
    /// Links of topic pages (of them, [`Store::link_census`]'s `unresolved` resolve to no
    /// page).
    pub links: u64,
}

/// A page link that resolves to no page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedLink {
    /// The page the link is on.
    pub page_id: PageId,
    /// Its title.
    pub page_title: String,
    /// The target as written.
    pub target_title: String,
    /// The target's key.
    pub target_key: String,
    /// Whether the page's current version was written by a person (a link a person wrote
    /// to a page that has gone is broken; one the model wrote is a wanted page).
    pub by_person: bool,
}

/// A page, by its title and key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintPage {
    /// The page.
    pub id: PageId,
    /// Its title.
    pub title: String,
    /// Its key.
    pub key: String,
    /// How many sources feed it.
    pub sources: u32,
}

/// A topic page's names ([`Store::lint_pages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicName {
    /// The page.
    pub id: PageId,
    /// Its title.
    pub title: String,
    /// Its title's key.
    pub key: String,
}

/// A thin topic page ([`Store::thin_pages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinPage {
    /// The page.
    pub id: PageId,
    /// Its title.
    pub title: String,
    /// Its key.
    pub key: String,
    /// How many claims it has.
    pub claims: u32,
    /// How many sentences its body holds ([`wikimind_text::prose::sentences`]).
    pub sentences: usize,
}

/// A page's body, for the checks that read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintBody {
    /// The page.
    pub id: PageId,
    /// Its title.
    pub title: String,
    /// Its key.
    pub key: String,
    /// Its body (markdown).
    pub body: String,
    /// How many claims it has.
    pub claims: u32,
}

/// A source whose text changed since its digest was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReingestedSource {
    /// The source.
    pub id: SourceId,
    /// Its origin.
    pub origin: String,
    /// The hash of its current text.
    pub content_hash: String,
}

/// A page that is behind its digests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehindPage {
    /// The page.
    pub id: PageId,
    /// Its title.
    pub title: String,
    /// Its key.
    pub key: String,
    /// Why: its stale reason, or that a digest is newer than the version written from it.
    pub reason: String,
    /// Whether a job to write it is queued or running.
    pub queued: bool,
}

/// A claim shown grounded whose sources changed since it was grounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecheckClaim {
    /// Which table it is in.
    pub table: ClaimTable,
    /// Its row id (only to downgrade it; findings name claims by their text).
    pub id: i64,
    /// The title of its page (or of its digest).
    pub page_title: String,
    /// The key of that title.
    pub page_key: String,
    /// The claim.
    pub claim: String,
    /// Its quote.
    pub quote: String,
    /// The sources to look for the quote in.
    pub sources: Vec<SourceId>,
}

/// A name a page answers to besides its title: an alias row, or an alias a note whose
/// title names the page declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageName {
    /// The page.
    pub page_id: PageId,
    /// The name as written.
    pub name: String,
    /// Its key, when stored (aliases declared in notes are keyed by the caller).
    pub key: Option<String>,
}

/// The health figures of one run, as stored for the trend.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthRun {
    /// When (UTC, ISO-8601).
    pub at: String,
    /// `compile` or `lint`: what ran.
    pub trigger: String,
    /// Topic pages.
    pub pages: u64,
    /// Links on topic pages.
    pub links: u64,
    /// The share of links that resolve, in percent.
    pub link_resolution: f64,
    /// The share of topic pages no page links to, in percent.
    pub orphan_share: f64,
    /// Wanted pages.
    pub wanted: u64,
    /// Broken links.
    pub broken_links: u64,
    /// Stale sources and pages.
    pub stale: u64,
    /// Claims that no longer ground.
    pub ungrounded: u64,
    /// Merge proposals.
    pub duplicates: u64,
    /// Thin pages.
    pub thin: u64,
}

impl Store {
    /// Stores the health figures of a run (`at` is ignored: the time is now).
    ///
    /// With `kept`, the generation what lint holds was read at: the generation after this
    /// write when it was the only commit since (no check reads the stored runs, so what
    /// lint holds stays true under it), else `None`.
    pub fn record_health(
        &self,
        run: &HealthRun,
        kept: Option<Generation>,
    ) -> Result<Option<Generation>> {
        let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let action = || "recording the wiki's health".to_owned();
        let insert = |tx: &rusqlite::Transaction<'_>| -> Result<()> {
            tx.prepare_cached(
                "INSERT INTO health_runs (trigger, pages, links, link_resolution,
                         orphan_share, wanted, broken_links, stale, ungrounded, duplicates, thin)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
                run.trigger,
                n(run.pages),
                n(run.links),
                run.link_resolution,
                run.orphan_share,
                n(run.wanted),
                n(run.broken_links),
                n(run.stale),
                n(run.ungrounded),
                n(run.duplicates),
                n(run.thin)
            ])?;
            Ok(())
        };
        match kept {
            Some(since) => Ok(self.write_keeping(since, action, insert)?.1),
            None => self.write(action, insert).map(|()| None),
        }
    }

    /// The last `limit` stored runs, oldest first.
    pub fn health_runs(&self, limit: usize) -> Result<Vec<HealthRun>> {
        self.read(
            || "reading the wiki's health over time".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT at, trigger, pages, links, link_resolution, orphan_share, wanted,
                            broken_links, stale, ungrounded, duplicates, thin
                     FROM (SELECT * FROM health_runs ORDER BY id DESC LIMIT ?1)
                     ORDER BY id",
                )?;
                let n = |v: i64| u64::try_from(v).unwrap_or(0);
                let rows = stmt.query_map([limit as i64], |row| {
                    Ok(HealthRun {
                        at: row.get(0)?,
                        trigger: row.get(1)?,
                        pages: n(row.get(2)?),
                        links: n(row.get(3)?),
                        link_resolution: row.get(4)?,
                        orphan_share: row.get(5)?,
                        wanted: n(row.get(6)?),
                        broken_links: n(row.get(7)?),
                        stale: n(row.get(8)?),
                        ungrounded: n(row.get(9)?),
                        duplicates: n(row.get(10)?),
                        thin: n(row.get(11)?),
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// For each key of `keys`, up to `limit` sources whose digests name it (as a concept,
    /// a link target or their title), oldest first, with their origins.
    pub fn sources_naming(
        &self,
        keys: &[String],
        limit: usize,
    ) -> Result<HashMap<String, Vec<(SourceId, String)>>> {
        self.read(
            || "listing the sources that name wanted pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT s.id, s.origin FROM digest_names d JOIN sources s ON s.id = d.source_id
                     WHERE d.name_key = ?1 ORDER BY d.source_id LIMIT ?2",
                )?;
                let mut found = HashMap::new();
                for key in keys {
                    let rows = stmt.query_map(params![key, limit as i64], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })?;
                    found.insert(key.clone(), rows.collect::<rusqlite::Result<Vec<_>>>()?);
                }
                Ok(found)
            },
        )
    }

    /// Every topic page's id, title and key, by title key (a pass over the columns before
    /// the body).
    pub fn lint_pages(&self) -> Result<Vec<TopicName>> {
        self.read(
            || "listing pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, title, title_key FROM pages NOT INDEXED WHERE kind = 'topic'",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(TopicName {
                        id: row.get(0)?,
                        title: row.get(1)?,
                        key: row.get(2)?,
                    })
                })?;
                let mut pages: Vec<TopicName> = rows.collect::<rusqlite::Result<_>>()?;
                // In SQLite's `BINARY` order (bytes, as `str` compares), sorted here:
                // `ORDER BY title_key` walks the key's index and reads every row at random.
                pages.sort_unstable_by(|a, b| a.key.cmp(&b.key));
                Ok(pages)
            },
        )
    }

    /// How many sources feed each of `pages`.
    pub fn sources_feeding(&self, pages: &[PageId]) -> Result<HashMap<PageId, u32>> {
        self.read(
            || "counting the sources of pages".to_owned(),
            |conn| sources_feeding(conn, pages.iter().copied()),
        )
    }

    /// The other names of topic pages: their alias rows (keyed) and the aliases declared
    /// by the notes whose titles name them (unkeyed: the caller keys them).
    pub fn page_names(&self) -> Result<Vec<PageName>> {
        self.read(
            || "listing the other names of pages".to_owned(),
            |conn| {
                let mut names = Vec::new();
                let mut stmt = conn.prepare_cached(
                    "SELECT a.page_id, a.name, a.name_key FROM aliases a
                     JOIN pages p ON p.id = a.page_id WHERE p.kind = 'topic'
                     ORDER BY a.page_id, a.name",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(PageName {
                        page_id: row.get(0)?,
                        name: row.get(1)?,
                        key: Some(row.get(2)?),
                    })
                })?;
                names.extend(rows.collect::<rusqlite::Result<Vec<_>>>()?);
                // From the sources that have aliases (`CROSS JOIN` keeps that order: the
                // partial index `sources_aliased`, migration 28), not every row of
                // `page_sources` with its source read at random.
                let mut stmt = conn.prepare_cached(
                    "SELECT ps.page_id, j.value FROM sources s INDEXED BY sources_aliased
                     CROSS JOIN page_sources ps INDEXED BY page_sources_by_title
                                ON ps.source_id = s.id AND ps.by_title = 1
                     JOIN pages p ON p.id = ps.page_id AND p.kind = 'topic',
                     json_each(CASE WHEN json_valid(s.aliases) THEN s.aliases ELSE '[]' END) j
                     WHERE s.aliases <> '[]' AND j.type = 'text'
                     ORDER BY ps.page_id, j.value",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(PageName {
                        page_id: row.get(0)?,
                        name: row.get(1)?,
                        key: None,
                    })
                })?;
                names.extend(rows.collect::<rusqlite::Result<Vec<_>>>()?);
                Ok(names)
            },
        )
    }

    /// The bodies of topic pages that hold a link with an anchor (`[[T#…]]`), by title key.
    pub fn bodies_with_anchored_links(&self) -> Result<Vec<LintBody>> {
        self.lint_bodies("p.kind = 'topic' AND wm_anchored_wikilink(p.body)", [])
    }

    /// The topic pages with no claims, or with a body of fewer than `max_chars` characters
    /// and fewer than `few` sentences, by key, with their claims and sentences.
    ///
    /// A body is counted when it is written (`page_sentences`), so this reads the counts
    /// and the candidates' titles; only a body not counted by today's rule (written by an
    /// older build, before the `page-sentences` backfill reached it) is read and counted.
    pub fn thin_pages(&self, max_chars: usize, few: usize) -> Result<Vec<ThinPage>> {
        self.read(
            || "finding thin pages".to_owned(),
            |conn| {
                let mut candidates: Vec<(PageId, Option<usize>)> =
                    counted_thin(conn, max_chars, few)?
                        .into_iter()
                        .map(|(page, sentences)| (page, Some(sentences)))
                        .collect();
                // Rows are only of pages (a page's row goes with it), one each: as many
                // counted as there are pages means none is left to read.
                let pages: i64 = conn
                    .prepare_cached("SELECT COUNT(*) FROM pages")?
                    .query_row([], |row| row.get(0))?;
                if counted_pages(conn)? < pages {
                    candidates.extend(uncounted_topics(conn)?.into_iter().map(|p| (p, None)));
                }
                let mut stmt = conn.prepare_cached(
                    "SELECT p.kind = 'topic', p.title, p.title_key,
                            (SELECT COUNT(*) FROM page_claims c WHERE c.page_id = p.id),
                            CASE WHEN ?2 THEN p.body END
                     FROM pages p WHERE p.id = ?1",
                )?;
                let mut thin = Vec::new();
                for (page, counted) in candidates {
                    let row = stmt
                        .query_row(params![page, counted.is_none()], |row| {
                            Ok((
                                row.get::<_, bool>(0)?,
                                row.get::<_, String>(1)?,
                                row.get::<_, String>(2)?,
                                row.get::<_, u32>(3)?,
                                row.get::<_, Option<String>>(4)?,
                            ))
                        })
                        .optional()?;
                    let Some((true, title, key, claims, body)) = row else {
                        continue;
                    };
                    let sentences = match (counted, body) {
                        (Some(sentences), _) => sentences,
                        (None, body) => {
                            let count = BodyCount::of(body.as_deref().unwrap_or_default());
                            // The rule `counted_thin` applies to counted bodies.
                            if claims > 0 && (count.chars >= max_chars || count.sentences >= few) {
                                continue;
                            }
                            count.sentences
                        }
                    };
                    thin.push(ThinPage {
                        id: page,
                        title,
                        key,
                        claims,
                        sentences,
                    });
                }
                thin.sort_unstable_by(|a, b| a.key.cmp(&b.key));
                Ok(thin)
            },
        )
    }

    fn lint_bodies<P: rusqlite::Params>(&self, filter: &str, params: P) -> Result<Vec<LintBody>> {
        self.read(
            || "reading page bodies".to_owned(),
            |conn| {
                // One pass over the table, sorted here by key as `by_key` sorts (keys are
                // unique): `ORDER BY p.title_key` walked the key's index and read each page
                // and its body at random.
                let mut stmt = conn.prepare_cached(&format!(
                    "SELECT p.id, p.title, p.title_key, p.body,
                            (SELECT COUNT(*) FROM page_claims c WHERE c.page_id = p.id)
                     FROM pages p NOT INDEXED WHERE {filter}"
                ))?;
                let rows = stmt.query_map(params, |row| {
                    Ok(LintBody {
                        id: row.get(0)?,
                        title: row.get(1)?,
                        key: row.get(2)?,
                        body: row.get(3)?,
                        claims: row.get(4)?,
                    })
                })?;
                let mut bodies: Vec<LintBody> = rows.collect::<rusqlite::Result<_>>()?;
                bodies.sort_unstable_by(|a, b| a.key.cmp(&b.key));
                Ok(bodies)
            },
        )
    }

    /// The pages the keys `keys` resolve to (a page with that key, else the page that had
    /// it as a former title), with their bodies; keys that resolve to none are missing.
    pub fn bodies_by_key(&self, keys: &HashSet<String>) -> Result<HashMap<String, LintBody>> {
        self.read(
            || "reading the pages links point at".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT p.id, p.title, p.title_key, p.body,
                            (SELECT COUNT(*) FROM page_claims c WHERE c.page_id = p.id)
                     FROM pages p WHERE p.id = COALESCE(
                         (SELECT id FROM pages WHERE title_key = ?1),
                         (SELECT page_id FROM aliases WHERE name_key = ?1 AND former = 1))",
                )?;
                let mut found = HashMap::new();
                for key in keys {
                    let body = stmt
                        .query_row([key], |row| {
                            Ok(LintBody {
                                id: row.get(0)?,
                                title: row.get(1)?,
                                key: row.get(2)?,
                                body: row.get(3)?,
                                claims: row.get(4)?,
                            })
                        })
                        .optional()?;
                    if let Some(body) = body {
                        found.insert(key.clone(), body);
                    }
                }
                Ok(found)
            },
        )
    }

    /// Every file source, by id, with the size and time its file had when last read.
    pub fn file_sources(&self) -> Result<Vec<FileSourceRow>> {
        self.read(
            || "listing file sources".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, origin, content_hash, file_size, file_mtime_ns
                     FROM sources INDEXED BY sources_notes WHERE kind = 'file' ORDER BY id",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(FileSourceRow {
                        id: row.get(0)?,
                        origin: row.get(1)?,
                        content_hash: row.get(2)?,
                        file_size: row
                            .get::<_, Option<i64>>(3)?
                            .and_then(|n| u64::try_from(n).ok()),
                        file_mtime_ns: row.get(4)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Records the size and modification time source `id`'s file had when it was read.
    pub fn record_file_stamp(&self, id: SourceId, size: u64, mtime_ns: i64) -> Result<()> {
        self.write(
            || format!("recording the file stamp of source {id}"),
            |tx| {
                tx.prepare_cached(
                    "UPDATE sources SET file_size = ?2, file_mtime_ns = ?3 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    i64::try_from(size).unwrap_or(i64::MAX),
                    mtime_ns
                ])?;
                Ok(())
            },
        )
    }

    /// Sources re-ingested with other text since their digest was made (status `stale`
    /// with a digest), by id.
    pub fn reingested_sources(&self) -> Result<Vec<ReingestedSource>> {
        self.read(
            || "listing sources changed since their digest".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT s.id, s.origin, s.content_hash FROM sources s
                     WHERE s.status = 'stale'
                       AND EXISTS (SELECT 1 FROM articles a WHERE a.source_id = s.id)
                     ORDER BY s.id",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(ReingestedSource {
                        id: row.get(0)?,
                        origin: row.get(1)?,
                        content_hash: row.get(2)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Topic pages behind their digests: marked stale, or written from a digest older than
    /// the one their source has now. By title key.
    pub fn pages_behind(&self) -> Result<Vec<BehindPage>> {
        self.read(
            || "listing pages behind their digests".to_owned(),
            |conn| {
                // The two ways a page falls behind, each found as a set (the stale ones by
                // the partial index `pages_stale`; the ones with a newer digest by one pass
                // over the digests in source order, each one's pages read with the digest
                // they were written from in `page_sources_written`), and only those pages
                // read, by id. Testing page by page (and SQLite's merge of a `UNION`, which
                // walks `page_sources` in page order) took 1.4 to 2.7 s at 100,000 pages;
                // a pass over `page_sources` looking each row up in `articles`, 0.17 s.
                let mut stmt = conn.prepare_cached(
                    "WITH behind(id) AS (
                         SELECT id FROM pages WHERE stale_reason IS NOT NULL
                         UNION ALL
                         SELECT ps.page_id FROM articles a INDEXED BY articles_titles
                         CROSS JOIN page_sources ps INDEXED BY page_sources_written
                             ON ps.source_id = a.source_id
                         WHERE ps.written_digest IS NOT NULL
                           AND ps.written_digest < a.updated_at
                     )
                     SELECT p.id, p.title, p.title_key,
                            COALESCE(p.stale_reason, 'a digest is newer than the page'),
                            EXISTS (SELECT 1 FROM jobs j WHERE j.page_id = p.id
                                    AND j.state IN ('queued', 'running'))
                     FROM pages p
                     WHERE p.id IN (SELECT id FROM behind) AND p.kind = 'topic'
                     ORDER BY p.title_key",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(BehindPage {
                        id: row.get(0)?,
                        title: row.get(1)?,
                        key: row.get(2)?,
                        reason: row.get(3)?,
                        queued: row.get(4)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Marks a page stale for `reason` (so the next compile queues a write of it), unless
    /// it is already.
    pub fn mark_page_stale(&self, page: PageId, reason: &str) -> Result<()> {
        self.write(
            || format!("marking page {page} stale"),
            |tx| {
                let stale: Option<Option<String>> = tx
                    .prepare_cached("SELECT stale_reason FROM pages WHERE id = ?1")?
                    .query_row([page], |row| row.get(0))
                    .optional()?;
                match stale {
                    None => Err(crate::StoreError::PageNotFound(page)),
                    Some(Some(_)) => Ok(()),
                    Some(None) => mark_stale(tx, page, reason),
                }
            },
        )
    }

    /// The page claims shown grounded whose sources may have changed since they were
    /// grounded: the claims of pages that are stale or that quote a source re-ingested with
    /// other text since its digest. (A digest's own claims are made again when its stale
    /// source is compiled.) Each with the sources to look for its quote in
    /// (a page claim: the sources recorded as holding it, else the page's sources).
    pub fn claims_to_recheck(&self) -> Result<Vec<RecheckClaim>> {
        self.read(
            || "listing claims whose sources changed".to_owned(),
            |conn| {
                let mut claims = Vec::new();
                let mut stmt = conn.prepare_cached(
                    "SELECT c.id, p.title, p.title_key, c.claim, c.quote FROM page_claims c
                     JOIN pages p ON p.id = c.page_id
                     WHERE c.grounded = 1 AND c.quote IS NOT NULL AND c.cited_page IS NULL
                       AND (p.stale_reason IS NOT NULL OR EXISTS (
                           SELECT 1 FROM claim_sources cs JOIN sources s ON s.id = cs.source_id
                           WHERE cs.claim_id = c.id AND s.status = 'stale'))
                     ORDER BY c.id",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(RecheckClaim {
                        table: ClaimTable::Page,
                        id: row.get(0)?,
                        page_title: row.get(1)?,
                        page_key: row.get(2)?,
                        claim: row.get(3)?,
                        quote: row.get(4)?,
                        sources: Vec::new(),
                    })
                })?;
                let mut page_claims = rows.collect::<rusqlite::Result<Vec<_>>>()?;
                for claim in &mut page_claims {
                    claim.sources = page_claim_sources(conn, claim.id)?;
                }
                claims.extend(page_claims);
                Ok(claims)
            },
        )
    }

    /// Shows the claims `ids` of `table` as no longer grounded (a `sourced` one becomes
    /// `inferred`, its quote kept; a page claim no longer names sources), in one
    /// transaction.
    pub fn downgrade_claims(&self, table: ClaimTable, ids: &[i64]) -> Result<()> {
        self.write(
            || "showing claims that no longer ground as inferred".to_owned(),
            |tx| {
                let unlinked = downgrade_claims(tx, table, ids)?;
                crate::tx::cite::prune_citations_in(tx, &unlinked)?;
                Ok(())
            },
        )
    }

    /// The ids of the findings a person dismissed.
    pub fn dismissed_findings(&self) -> Result<HashSet<String>> {
        self.read(
            || "reading dismissed findings".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached("SELECT id FROM lint_dismissals")?;
                let rows = stmt.query_map([], |row| row.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Remembers that a person dismissed the finding `id` of check `check`, about `about`
    /// (what its id hashes). Dismissing it again changes nothing.
    pub fn dismiss_finding(&self, id: &str, check: &str, about: &str) -> Result<()> {
        self.write(
            || format!("dismissing the finding {id}"),
            |tx| {
                tx.prepare_cached(
                    "INSERT OR IGNORE INTO lint_dismissals (id, check_name, about)
                     VALUES (?1, ?2, ?3)",
                )?
                .execute(params![id, check, about])?;
                Ok(())
            },
        )
    }
}

/// How many sources feed each of `pages`, read on `conn`.
pub(crate) fn sources_feeding(
    conn: &rusqlite::Connection,
    pages: impl IntoIterator<Item = PageId>,
) -> Result<HashMap<PageId, u32>> {
    let mut stmt = conn.prepare_cached("SELECT COUNT(*) FROM page_sources WHERE page_id = ?1")?;
    let mut counts = HashMap::new();
    for page in pages {
        counts.insert(page, stmt.query_row([page], |row| row.get(0))?);
    }
    Ok(counts)
}
