//! Reading the wiki as pages: search, wanted pages, sizes, the pages each source feeds,
//! claim counts per page.
//!
//! A page link resolves when read (see the `pages` module): to the page with its target's
//! key, else to the page that had it as a title before. A target that resolves to neither
//! is a *wanted* page.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::read::digests::{fts_query, ClaimCounts, WantedPage};
use crate::{PageId, Result, SourceId, Store, SEARCH_LIMIT};

/// The link targets that resolve to no page (`k`, each once, in key order): neither a
/// page's title key nor a former title's. Three index scans in key order merged (a compound
/// `EXCEPT … ORDER BY`), rather than two index probes for each of the targets (a tenth of
/// a second at 300,000 links).
const UNRESOLVED_KEYS: &str = "SELECT target_key AS k FROM page_links
     EXCEPT SELECT title_key FROM pages
     EXCEPT SELECT name_key FROM aliases WHERE former = 1
     ORDER BY 1";

/// One page found by [`Store::search_pages`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageHit {
    /// The page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// A short excerpt of the best matching field, each matched word between
    /// [`MATCH_START`](crate::MATCH_START) and [`MATCH_END`](crate::MATCH_END); for a page
    /// found by one of its other names, its summary.
    pub snippet: String,
}

/// Sizes of the wiki as pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCounts {
    /// Sources.
    pub sources: u64,
    /// Topic pages.
    pub pages: u64,
    /// Saved answers (pages of kind `answer`).
    #[serde(default)]
    pub answers: u64,
    /// Pages waiting to be rewritten from their digests.
    pub stale: u64,
    /// Distinct link targets no page answers to.
    pub wanted: u64,
}

fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// How many of the pages a search matches are ranked at most: the most recent ones (the
/// highest ids). A query that matches more, such as the first letter or two of a word
/// typed into the search box of a large wiki, ranks these rather than every page of the
/// wiki, so each keystroke costs the same at 100,000 pages as at 1,000; in a wiki of up
/// to this many pages every match is ranked.
pub const SEARCH_CANDIDATES: usize = 1_000;

/// The lowest id among the `candidates` most recent pages matching the FTS5 query
/// `query` when it matches more than that many, else the lowest id there is: rank only
/// the pages with an id of at least this. Counting stops after `candidates + 1` matches.
pub(crate) fn ranked_since(
    conn: &rusqlite::Connection,
    query: &str,
    candidates: usize,
) -> Result<i64> {
    let since: Option<i64> = conn
        .prepare_cached(
            "SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?1
             ORDER BY rowid DESC LIMIT 1 OFFSET ?2",
        )?
        .query_row(params![query, candidates as i64], |row| row.get(0))
        .optional()?;
    // The (candidates + 1)th most recent match exists: rank those above it.
    Ok(since.map_or(i64::MIN, |id| id + 1))
}

/// The longest query [`Store::search_pages`] also looks up as a page's name, in bytes.
const MAX_NAME_QUERY_BYTES: usize = 2_000;

impl Store {
    /// Full-text search over page titles, aliases, summaries, claims and bodies, best
    /// first (bm25, titles weigh most), at most [`SEARCH_LIMIT`] hits, ranked among the
    /// [`SEARCH_CANDIDATES`] most recent matching pages when more match. A query that is one of a page's names
    /// (an alias, a plural, a former title; at most 2,000 bytes) puts that page first.
    /// Any text is a valid query: only its first [`MAX_QUERY_TERMS`](crate::MAX_QUERY_TERMS)
    /// distinct words are searched, each required, the last as a prefix so results follow
    /// typing; no words, no hits.
    pub fn search_pages(&self, query: &str) -> Result<Vec<PageHit>> {
        self.search_pages_among(query, SEARCH_CANDIDATES)
    }

    /// [`Store::search_pages`], ranking at most `candidates` matching pages.
    pub(crate) fn search_pages_among(
        &self,
        query: &str,
        candidates: usize,
    ) -> Result<Vec<PageHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
        // No page has a name this long: a 10 MB query is not normalised as one.
        let named = if query.len() <= MAX_NAME_QUERY_BYTES {
            self.find_page(query)?
        } else {
            None
        };
        self.read(
            || format!("searching pages for {query:?}"),
            |conn| {
                let mut hits: Vec<PageHit> = Vec::new();
                if let Some(id) = named {
                    let hit = conn
                        .prepare_cached("SELECT title, summary FROM pages WHERE id = ?1")?
                        .query_row([id], |row| {
                            Ok(PageHit {
                                page_id: id,
                                title: row.get(0)?,
                                snippet: row.get(1)?,
                            })
                        })?;
                    hits.push(hit);
                }
                let since = ranked_since(conn, &fts, candidates)?;
                // Ordered by FTS5's own `rank` (set to the same bm25 weights), FTS5 sorts
                // the matches itself and hands them out best first: the excerpt is made
                // for the rows shown alone. `ORDER BY bm25(…)` made one for every
                // candidate before SQLite sorted them (a third of a search's time).
                let mut stmt = conn.prepare_cached(
                    "SELECT p.id, p.title,
                            snippet(pages_fts, -1, char(57344), char(57345), '…', 16)
                     FROM pages_fts CROSS JOIN pages p ON p.id = pages_fts.rowid
                     WHERE pages_fts MATCH ?1 AND pages_fts.rowid >= ?2
                       AND pages_fts.rank MATCH 'bm25(10.0, 6.0, 4.0, 2.0, 1.0)'
                     ORDER BY pages_fts.rank
                     LIMIT ?3",
                )?;
                let rows = stmt.query_map(params![fts, since, SEARCH_LIMIT as i64], |row| {
                    Ok(PageHit {
                        page_id: row.get(0)?,
                        title: row.get(1)?,
                        snippet: row.get(2)?,
                    })
                })?;
                for hit in rows {
                    let hit = hit?;
                    if Some(hit.page_id) == named {
                        // Keep the excerpt with its matched words.
                        hits[0].snippet = hit.snippet;
                    } else if hits.len() < SEARCH_LIMIT {
                        hits.push(hit);
                    }
                }
                Ok(hits)
            },
        )
    }

    /// Link targets of pages that no page answers to, most linked first (by how many
    /// pages link to each), each in the spelling of its first link.
    pub fn wanted_page_links(&self) -> Result<Vec<WantedPage>> {
        Ok(self.wanted_pages_first(usize::MAX)?.0)
    }

    /// The first `n` of [`Store::wanted_page_links`] and how many there are in all: the
    /// targets that resolve to no page are found by one merge of the indexes in key order,
    /// only those are counted, and only the `n` shown are spelled (the library's list of
    /// the most wanted pages). A page links to a key at most once (`UNIQUE (page_id,
    /// target_key)`), so the links to a key are the pages that link to it.
    pub fn wanted_pages_first(&self, n: usize) -> Result<(Vec<WantedPage>, u64)> {
        self.read(
            || "listing the most wanted pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!(
                    "WITH wanted(k) AS ({UNRESOLVED_KEYS})
                     SELECT (SELECT l2.target_title FROM page_links l2
                             WHERE l2.target_key = w.k
                             ORDER BY l2.page_id, l2.position LIMIT 1),
                            w.mentions, w.wanted
                     FROM (SELECT c.k, c.mentions, COUNT(*) OVER () AS wanted
                           FROM (SELECT k, (SELECT COUNT(*) FROM page_links l
                                            WHERE l.target_key = wanted.k) AS mentions
                                 FROM wanted) c
                           ORDER BY c.mentions DESC, c.k
                           LIMIT ?1) w
                     ORDER BY w.mentions DESC, w.k"
                ))?;
                // Each row carries the count: at least one is read, even when none is asked
                // for.
                let asked = i64::try_from(n.max(1)).unwrap_or(i64::MAX);
                let mut wanted = 0;
                let rows = stmt.query_map([asked], |row| {
                    wanted = row.get::<_, i64>(2)?.unsigned_abs();
                    Ok(WantedPage {
                        title: row.get(0)?,
                        mentions: count(row.get(1)?),
                    })
                })?;
                let mut first = rows.collect::<rusqlite::Result<Vec<_>>>()?;
                first.truncate(n);
                Ok((first, wanted))
            },
        )
    }

    /// Whether the wiki holds no source and no page: what a first run is told by, read
    /// from the first row of each table rather than by counting them (counting the wanted
    /// pages alone takes a tenth of a second at 100,000 pages).
    pub fn holds_nothing(&self) -> Result<bool> {
        self.read(
            || "asking whether the wiki is empty".to_owned(),
            |conn| {
                Ok(conn.query_row(
                    "SELECT NOT EXISTS (SELECT 1 FROM sources) AND NOT EXISTS (SELECT 1 FROM pages)",
                    [],
                    |row| row.get(0),
                )?)
            },
        )
    }

    /// How many sources, topic pages, stale pages, wanted pages and saved answers there
    /// are.
    pub fn page_counts(&self) -> Result<PageCounts> {
        self.counts(true)
    }

    /// [`Store::page_counts`] but for the wanted pages, left at 0: for a caller that lists
    /// the wanted pages anyway ([`Store::wanted_page_links`], each once) and counts them
    /// there, rather than resolving every link target twice.
    pub fn page_counts_but_wanted(&self) -> Result<PageCounts> {
        self.counts(false)
    }

    fn counts(&self, wanted: bool) -> Result<PageCounts> {
        let wanted = if wanted {
            format!("(SELECT COUNT(*) FROM ({UNRESOLVED_KEYS}))")
        } else {
            "0".to_owned()
        };
        self.read(
            || "counting pages".to_owned(),
            |conn| {
                Ok(conn.query_row(
                    &format!(
                        "SELECT (SELECT COUNT(*) FROM sources),
                                (SELECT COUNT(*) FROM pages WHERE kind = 'topic'),
                                (SELECT COUNT(*) FROM pages WHERE stale_reason IS NOT NULL),
                                {wanted},
                                (SELECT COUNT(*) FROM pages WHERE kind = 'answer')"
                    ),
                    [],
                    |row| {
                        let n = |i: usize| -> rusqlite::Result<u64> {
                            Ok(u64::try_from(row.get::<_, i64>(i)?).unwrap_or(0))
                        };
                        Ok(PageCounts {
                            sources: n(0)?,
                            pages: n(1)?,
                            stale: n(2)?,
                            wanted: n(3)?,
                            answers: n(4)?,
                        })
                    },
                )?)
            },
        )
    }

    /// The titles of the pages each source feeds, by title (sources that feed none are
    /// missing).
    pub fn pages_by_source(&self) -> Result<HashMap<SourceId, Vec<String>>> {
        self.read(
            || "listing the pages of every source".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT ps.source_id, p.title FROM page_sources ps
                     JOIN pages p ON p.id = ps.page_id
                     ORDER BY ps.source_id, p.title_key, p.id",
                )?;
                let mut map: HashMap<SourceId, Vec<String>> = HashMap::new();
                let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
                for row in rows {
                    let (source, title): (SourceId, String) = row?;
                    map.entry(source).or_default().push(title);
                }
                Ok(map)
            },
        )
    }

    /// The file sources feeding `pages`, each as its origin and the title of its digest
    /// (the title the note goes by), oldest source first: what a path written in a page's
    /// body (`[t](../Parser/constructor.md)`, `![[paper.pdf]]`) is matched against to find
    /// the page of the note or document it names, among the pages the page links.
    pub fn file_digests_of_pages(&self, pages: &[PageId]) -> Result<Vec<(String, String)>> {
        self.read(
            || "listing the file sources of linked pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT s.id, s.origin, a.title FROM page_sources ps
                     JOIN sources s ON s.id = ps.source_id AND s.kind = 'file'
                     JOIN articles a ON a.source_id = s.id
                     WHERE ps.page_id = ?1",
                )?;
                let mut found: Vec<(i64, String, String)> = Vec::new();
                for page in pages {
                    let rows =
                        stmt.query_map([page], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
                    for row in rows {
                        found.push(row?);
                    }
                }
                found.sort();
                found.dedup();
                Ok(found.into_iter().map(|(_, o, t)| (o, t)).collect())
            },
        )
    }

    /// How many claims of each confidence every page has (pages with none are missing).
    pub fn page_claim_counts(&self) -> Result<HashMap<PageId, ClaimCounts>> {
        self.read(
            || "counting the claims of pages".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT page_id, confidence, COUNT(*) FROM page_claims
                     GROUP BY page_id, confidence",
                )?;
                let mut map: HashMap<PageId, ClaimCounts> = HashMap::new();
                let rows = stmt.query_map([], |row| {
                    Ok((row.get(0)?, row.get::<_, String>(1)?, row.get(2)?))
                })?;
                for row in rows {
                    let (page, confidence, n): (PageId, String, i64) = row?;
                    add_count(map.entry(page).or_default(), &confidence, n);
                }
                Ok(map)
            },
        )
    }

    /// [`Store::page_claim_counts`] of the pages `ids` only, each read through the index of
    /// its claims: what a window of a long list costs, whatever the wiki's size.
    pub fn page_claim_counts_of(&self, ids: &[PageId]) -> Result<HashMap<PageId, ClaimCounts>> {
        self.read(
            || format!("counting the claims of {} pages", ids.len()),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT confidence, COUNT(*) FROM page_claims WHERE page_id = ?1
                     GROUP BY confidence",
                )?;
                let mut map: HashMap<PageId, ClaimCounts> = HashMap::new();
                for &id in ids {
                    let rows =
                        stmt.query_map([id], |row| Ok((row.get::<_, String>(0)?, row.get(1)?)))?;
                    for row in rows {
                        let (confidence, n): (String, i64) = row?;
                        add_count(map.entry(id).or_default(), &confidence, n);
                    }
                }
                Ok(map)
            },
        )
    }
}

/// Adds `n` claims of `confidence` (as stored) to `counts`.
fn add_count(counts: &mut ClaimCounts, confidence: &str, n: i64) {
    match confidence {
        "sourced" => counts.sourced = count(n),
        "inferred" => counts.inferred = count(n),
        _ => counts.opinion = count(n),
    }
}
