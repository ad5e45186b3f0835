//! Reading the wiki: article lists and pages, backlinks, wanted pages, search.

use rusqlite::{Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::{page_key, ArticleId, Result, SourceId, SourceKind, Store};
use wikimind_contract::{CheckedClaim, Confidence};

/// How many hits [`Store::search_pages`] returns at most.
pub const SEARCH_LIMIT: usize = 50;

/// How many claims of each confidence an article has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaimCounts {
    /// Claims backed by a quote found in the source.
    pub sourced: u32,
    /// Claims that follow from the source.
    pub inferred: u32,
    /// Judgements.
    pub opinion: u32,
}

/// An article as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArticleSummary {
    /// Its id.
    pub id: ArticleId,
    /// The source it was compiled from.
    pub source_id: SourceId,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// When it was last compiled (UTC, ISO-8601).
    pub updated_at: String,
    /// Its claims by confidence.
    pub claims: ClaimCounts,
}

/// The order of [`Store::articles_sorted`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArticleSort {
    /// By title, case-insensitively.
    #[default]
    Title,
    /// Most recently compiled first.
    Updated,
}

/// A link going out of an article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutgoingLink {
    /// The target title as written.
    pub target: String,
    /// The article it resolves to; `None` is a wanted page.
    pub article_id: Option<ArticleId>,
    /// The sentence around the link.
    pub context: String,
}

/// An article that links to this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backlink {
    /// The linking article.
    pub article_id: ArticleId,
    /// Its title.
    pub title: String,
    /// The sentence around the link.
    pub context: String,
}

/// The source an article was compiled from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArticleSource {
    /// The source.
    pub source_id: SourceId,
    /// Its origin.
    pub origin: String,
    /// Its kind.
    pub kind: SourceKind,
    /// When the article was compiled from it (UTC, ISO-8601).
    pub compiled_at: String,
    /// The provider that compiled it.
    pub provider: String,
    /// The model that compiled it.
    pub model: String,
    /// The prompt version used.
    pub prompt_version: String,
    /// For a web page that redirected, the URL it was finally read from (`null` otherwise).
    #[serde(default)]
    pub final_url: Option<String>,
}

/// An article page with everything around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArticleDetail {
    /// Its id.
    pub id: ArticleId,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Its body (markdown with `[[wiki links]]`).
    pub body: String,
    /// Whether the source was truncated to fit the model.
    pub truncated: bool,
    /// When it was first compiled (UTC, ISO-8601).
    pub created_at: String,
    /// When it was last compiled (UTC, ISO-8601).
    pub updated_at: String,
    /// Its claims in order.
    pub claims: Vec<CheckedClaim>,
    /// Its concepts in order.
    pub concepts: Vec<String>,
    /// The questions the source leaves open.
    pub open_questions: Vec<String>,
    /// Links going out, in order.
    pub links: Vec<OutgoingLink>,
    /// Articles linking here, by title.
    pub backlinks: Vec<Backlink>,
    /// The sources it was compiled from (one today).
    pub sources: Vec<ArticleSource>,
}

/// Marks the start of a matched word in [`PageHit::snippet`](crate::PageHit::snippet) (U+E000).
pub const MATCH_START: char = '\u{E000}';
/// Marks the end of a matched word in [`PageHit::snippet`](crate::PageHit::snippet) (U+E001).
pub const MATCH_END: char = '\u{E001}';

/// A title some article links to that no article has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WantedPage {
    /// The title as first written.
    pub title: String,
    /// How many articles link to it.
    pub mentions: u32,
}

/// The most words one full-text query searches for: a search takes its first distinct
/// words, a question its first distinct content words. FTS5's query parser takes time
/// quadratic in the number of terms, so a 10 MB query must not reach it whole.
pub const MAX_QUERY_TERMS: usize = 32;

/// Turns arbitrary user text into a safe FTS5 query: the words (letters and digits) of
/// the input, each quoted, all required, the last one as a prefix so results follow
/// typing. Operators, quotes and parentheses in the input are never passed through.
/// Only the first [`MAX_QUERY_TERMS`] distinct words (ignoring case) are searched; the
/// input is read only as far as it takes to find them. `None` when the input has no words.
pub(crate) fn fts_query(input: &str) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    let words: Vec<&str> = input
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && seen.insert(w.to_lowercase()))
        .take(MAX_QUERY_TERMS)
        .collect();
    let (last, rest) = words.split_last()?;
    let mut query = String::new();
    for word in rest {
        query.push('"');
        query.push_str(word);
        query.push_str("\" ");
    }
    query.push('"');
    query.push_str(last);
    query.push_str("\"*");
    Some(query)
}

fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

const SUMMARY_SELECT: &str = "SELECT a.id, a.source_id, a.title, a.summary, a.updated_at,
        (SELECT COUNT(*) FROM claims c WHERE c.article_id = a.id AND c.confidence = 'sourced'),
        (SELECT COUNT(*) FROM claims c WHERE c.article_id = a.id AND c.confidence = 'inferred'),
        (SELECT COUNT(*) FROM claims c WHERE c.article_id = a.id AND c.confidence = 'opinion')
    FROM articles a";

fn summary_row(row: &Row<'_>) -> rusqlite::Result<ArticleSummary> {
    Ok(ArticleSummary {
        id: row.get(0)?,
        source_id: row.get(1)?,
        title: row.get(2)?,
        summary: row.get(3)?,
        updated_at: row.get(4)?,
        claims: ClaimCounts {
            sourced: count(row.get(5)?),
            inferred: count(row.get(6)?),
            opinion: count(row.get(7)?),
        },
    })
}

fn article_in(conn: &Connection, id: ArticleId) -> Result<Option<ArticleDetail>> {
    let head = conn
        .prepare_cached(
            "SELECT a.title, a.summary, a.body, a.truncated, a.created_at, a.updated_at,
                    a.source_id, s.origin, s.kind, a.provider, a.model, a.prompt_version,
                    s.final_url
             FROM articles a JOIN sources s ON s.id = a.source_id
             WHERE a.id = ?1",
        )?
        .query_row([id], |row| {
            let detail = ArticleDetail {
                id,
                title: row.get(0)?,
                summary: row.get(1)?,
                body: row.get(2)?,
                truncated: row.get(3)?,
                created_at: row.get(4)?,
                updated_at: row.get(5)?,
                claims: Vec::new(),
                concepts: Vec::new(),
                open_questions: Vec::new(),
                links: Vec::new(),
                backlinks: Vec::new(),
                sources: Vec::new(),
            };
            let source = ArticleSource {
                source_id: row.get(6)?,
                origin: row.get(7)?,
                kind: row.get(8)?,
                compiled_at: detail.updated_at.clone(),
                provider: row.get(9)?,
                model: row.get(10)?,
                prompt_version: row.get(11)?,
                final_url: row.get(12)?,
            };
            Ok((detail, source))
        })
        .optional()?;
    let Some((mut detail, source)) = head else {
        return Ok(None);
    };
    detail.sources.push(source);

    let mut stmt = conn.prepare_cached(
        "SELECT claim, confidence, quote, grounded FROM claims
         WHERE article_id = ?1 ORDER BY position",
    )?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let confidence: String = row.get(1)?;
        detail.claims.push(CheckedClaim {
            claim: row.get(0)?,
            // The column is constrained to the three names.
            confidence: Confidence::parse(&confidence).unwrap_or_default(),
            quote: row.get(2)?,
            grounded: row.get(3)?,
        });
    }

    let mut stmt = conn.prepare_cached(
        "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
         WHERE ac.article_id = ?1 ORDER BY ac.position",
    )?;
    detail.concepts = stmt
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;

    let mut stmt = conn.prepare_cached(
        "SELECT question FROM open_questions WHERE article_id = ?1 ORDER BY position",
    )?;
    detail.open_questions = stmt
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;

    let mut stmt = conn.prepare_cached(
        "SELECT target_title, to_article, context FROM links
         WHERE from_article = ?1 ORDER BY position",
    )?;
    detail.links = stmt
        .query_map([id], |row| {
            Ok(OutgoingLink {
                target: row.get(0)?,
                article_id: row.get(1)?,
                context: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;

    let mut stmt = conn.prepare_cached(
        "SELECT a.id, a.title, l.context FROM links l JOIN articles a ON a.id = l.from_article
         WHERE l.to_article = ?1 ORDER BY a.title_norm",
    )?;
    detail.backlinks = stmt
        .query_map([id], |row| {
            Ok(Backlink {
                article_id: row.get(0)?,
                title: row.get(1)?,
                context: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;

    Ok(Some(detail))
}

impl Store {
    /// Every article, sorted by title.
    pub fn articles(&self) -> Result<Vec<ArticleSummary>> {
        self.articles_sorted(ArticleSort::Title)
    }

    /// Every article in the given order.
    pub fn articles_sorted(&self, sort: ArticleSort) -> Result<Vec<ArticleSummary>> {
        let order = match sort {
            ArticleSort::Title => "a.title_norm, a.id",
            ArticleSort::Updated => "a.updated_at DESC, a.id DESC",
        };
        self.read(
            || "listing articles".to_owned(),
            |conn| {
                let mut stmt =
                    conn.prepare_cached(&format!("{SUMMARY_SELECT} ORDER BY {order}"))?;
                let rows = stmt.query_map([], summary_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// One article page with claims, concepts, questions, links, backlinks and sources.
    pub fn article(&self, id: ArticleId) -> Result<Option<ArticleDetail>> {
        self.read(
            || format!("reading article {id}"),
            |conn| article_in(conn, id),
        )
    }

    /// Finds an article by its id number or its exact title (case-insensitive; the first
    /// article when several sources' digests have it).
    pub fn find_article(&self, key: &str) -> Result<Option<ArticleId>> {
        let key = key.trim();
        self.read(
            || format!("looking up the article {key:?}"),
            |conn| {
                if let Ok(number) = key.parse::<i64>() {
                    let found: Option<ArticleId> = conn
                        .prepare_cached("SELECT id FROM articles WHERE id = ?1")?
                        .query_row([number], |row| row.get(0))
                        .optional()?;
                    if found.is_some() {
                        return Ok(found);
                    }
                }
                Ok(conn
                    .prepare_cached(
                        "SELECT id FROM articles WHERE title_norm = ?1 ORDER BY id LIMIT 1",
                    )?
                    .query_row([page_key(key)], |row| row.get(0))
                    .optional()?)
            },
        )
    }
}
