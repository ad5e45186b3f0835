//! Pages: one per topic, fed by the digests of the sources that name it.
//!
//! A source's digest (its row of `articles`: what the last compile of that source said)
//! feeds the page its title names, the page whose key ([`page_key`]) is the title's. A topic
//! page fed by one digest whose title names it *is* that digest: the store copies the digest
//! into the page as a new version whenever it changes, with no model call (a person's edits
//! carried over it section by section, see [`Store::edit_page`]). A page fed by
//! several digests is written by the model from all of them; until that happens, a digest
//! that joins, changes, leaves or is removed marks the page stale with the reason. A page
//! left with no digest is removed. All of this happens inside the transaction that saves a
//! digest ([`Store::save_article`]) or removes a source ([`Store::remove_source`]).
//!
//! Every version of a page is kept with its author (a model, or a person: an edit, a
//! restore; the versions module writes and reads them). The links of a page are kept by the key of their target and resolved
//! when read — a page with that key, else a page with that former title — so they follow
//! pages as they are made and removed; one that resolves to nothing is a wanted page.
//!
//! Names: a page's title is the spelling of the digest that made it; every other spelling
//! a digest used becomes an alias (same key, shown only); a title the wiki showed before
//! (`Espresso (2)` from a version 4 wiki) is a *former* alias with a key of its own, so
//! links written with it still resolve.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::json::{self, from_json};
use crate::{ArticleId, AuthorKind, PageId, PageKind, Result, SourceId, SourceKind, Store};
use wikimind_contract::{CheckedClaim, Confidence};

pub use wikimind_text::key::page_key;

/// A link found in a compiled article (a `[[wiki link]]` in the body or a backlink
/// suggestion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewLink {
    /// The target title as written.
    pub target: String,
    /// The sentence around the link (empty when there is none, e.g. a suggestion).
    pub context: String,
}

/// A claim of a page, with the sources whose text holds its quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageClaim {
    /// The claim as checked against its sources.
    #[serde(flatten)]
    pub claim: CheckedClaim,
    /// The sources whose text holds its quote (empty when it is not grounded), by id.
    #[serde(default)]
    pub source_ids: Vec<SourceId>,
    /// For a saved answer's claim, the page it cites (its title as the answer wrote it);
    /// `None` for a topic page's claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_page: Option<String>,
    /// Who wrote it: the model, or a person (a person's claim is never `sourced` and
    /// grounds nothing).
    #[serde(default)]
    pub author: AuthorKind,
}

/// What one version of a page says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageContent {
    /// The title it shows.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Its body (markdown with `[[wiki links]]`).
    pub body: String,
    /// Its claims in order.
    pub claims: Vec<PageClaim>,
    /// Its concepts in order.
    pub concepts: Vec<String>,
    /// The questions its sources leave open.
    pub open_questions: Vec<String>,
    /// Its links in order (one per target).
    pub links: Vec<NewLink>,
}

/// A page as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSummary {
    /// Its id.
    pub id: PageId,
    /// What it is.
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// How many sources' digests feed it.
    pub source_count: u32,
    /// Whether it needs rewriting from its digests.
    pub stale: bool,
    /// When its current version was written (UTC, ISO-8601).
    pub updated_at: String,
    /// Why it is marked: a refused rewrite, or a saved answer's ungrounded claims (`None`:
    /// fine).
    #[serde(default)]
    pub flagged: Option<String>,
    /// The tags of the sources its title names.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A page as a long list is ordered and narrowed by ([`Store::page_heads`]): a
/// [`PageSummary`] without its summary and counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageHead {
    /// Its id.
    pub id: PageId,
    /// What it is.
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// When its current version was written (UTC, ISO-8601).
    pub updated_at: String,
    /// The tags of the sources its title names, as [`PageSummary::tags`].
    pub tags: Vec<String>,
}

/// A link going out of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLink {
    /// The target as written.
    pub target: String,
    /// The page it resolves to now; `None` is a wanted page.
    pub page_id: Option<PageId>,
    /// The sentence around the link.
    pub context: String,
}

/// A page that links to another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageBacklink {
    /// The linking page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// The sentence around the link.
    pub context: String,
}

/// A page with everything on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// Its id.
    pub id: PageId,
    /// What it is.
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Its body (markdown with `[[wiki links]]`).
    pub body: String,
    /// The number of its current version.
    pub version: u32,
    /// Why it needs rewriting from its digests (`None`: it is current).
    pub stale_reason: Option<String>,
    /// Why its last rewrite was refused and the previous version kept (`None`: fine).
    pub flagged: Option<String>,
    /// When it was made (UTC, ISO-8601).
    pub created_at: String,
    /// When its current version was written (UTC, ISO-8601).
    pub updated_at: String,
    /// Its claims in order.
    pub claims: Vec<PageClaim>,
    /// Its concepts in order.
    pub concepts: Vec<String>,
    /// The questions its sources leave open.
    pub open_questions: Vec<String>,
    /// Links going out, in order, resolved now.
    pub links: Vec<PageLink>,
    /// Pages linking here (by its title or a former title), by title.
    pub backlinks: Vec<PageBacklink>,
    /// Its other names: spellings digests used, and titles it had before.
    pub aliases: Vec<String>,
    /// The tags of the sources whose own topic it is (the sources its title names).
    pub tags: Vec<String>,
}

/// A digest feeding a page: one source's compile result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageDigest {
    /// The digest (its article row).
    pub article_id: ArticleId,
    /// The source it digests.
    pub source_id: SourceId,
    /// The source's origin.
    pub origin: String,
    /// The source's kind.
    pub kind: SourceKind,
    /// The digest's title.
    pub title: String,
    /// The digest's summary.
    pub summary: String,
    /// When it was compiled (UTC, ISO-8601).
    pub compiled_at: String,
    /// The provider that compiled it.
    pub provider: String,
    /// The model that compiled it.
    pub model: String,
    /// For a web page that redirected, the URL it was finally read from.
    pub final_url: Option<String>,
    /// For a file, the folder it was ingested or watched from.
    pub root: Option<String>,
}

pub(crate) fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// What the key of a saved answer starts with: no topic key holds a `:`.
pub(crate) const ANSWER_KEY_PREFIX: &str = "answer:";

/// The key of the saved answer to `question` (see [`ANSWER_KEY_PREFIX`]).
pub(crate) fn answer_key(question: &str) -> String {
    format!("{ANSWER_KEY_PREFIX}{}", page_key(question))
}

/// The page a name leads to now: the page with that key, else the page that had it as a
/// title before, else the saved answer to that question.
pub(crate) fn resolve_key(conn: &Connection, key: &str) -> Result<Option<PageId>> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE((SELECT id FROM pages WHERE title_key = ?1),
                         (SELECT page_id FROM aliases WHERE name_key = ?1 AND former = 1),
                         (SELECT id FROM pages WHERE title_key = ?2))",
        )?
        .query_row(params![key, format!("{ANSWER_KEY_PREFIX}{key}")], |row| {
            row.get(0)
        })?)
}

/// What a digest says, as page content: its claims record its source when their quote was
/// found in it.
pub(crate) fn digest_content(conn: &Connection, article: ArticleId) -> Result<PageContent> {
    let (source_id, title, summary, body): (SourceId, String, String, String) = conn
        .prepare_cached("SELECT source_id, title, summary, body FROM articles WHERE id = ?1")?
        .query_row([article], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?;
    let mut stmt = conn.prepare_cached(
        "SELECT claim, confidence, quote, grounded FROM claims
         WHERE article_id = ?1 ORDER BY position",
    )?;
    let claims = stmt
        .query_map([article], |row| {
            let confidence: String = row.get(1)?;
            let claim = CheckedClaim {
                claim: row.get(0)?,
                confidence: Confidence::parse(&confidence).unwrap_or_default(),
                quote: row.get(2)?,
                grounded: row.get(3)?,
            };
            let grounded = claim.grounded && claim.confidence == Confidence::Sourced;
            Ok(PageClaim {
                claim,
                source_ids: if grounded {
                    vec![source_id]
                } else {
                    Vec::new()
                },
                cited_page: None,
                author: Default::default(),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
         WHERE ac.article_id = ?1 ORDER BY ac.position",
    )?;
    let concepts = stmt
        .query_map([article], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT question FROM open_questions WHERE article_id = ?1 ORDER BY position",
    )?;
    let open_questions = stmt
        .query_map([article], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT target_title, context FROM links WHERE from_article = ?1 ORDER BY position",
    )?;
    let links = stmt
        .query_map([article], |row| {
            Ok(NewLink {
                target: row.get(0)?,
                context: row.get(1)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(PageContent {
        title,
        summary,
        body,
        claims,
        concepts,
        open_questions,
        links,
    })
}

/// What a page says now (`None`: no such page).
pub(crate) fn current_content(conn: &Connection, page: PageId) -> Result<Option<PageContent>> {
    let head: Option<(String, String, String, String, String)> = conn
        .prepare_cached(
            "SELECT title, summary, body, concepts, open_questions FROM pages WHERE id = ?1",
        )?
        .query_row([page], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .optional()?;
    let Some((title, summary, body, concepts, open_questions)) = head else {
        return Ok(None);
    };
    let claims = page_claims(conn, page)?;
    let mut stmt = conn.prepare_cached(
        "SELECT target_title, context FROM page_links WHERE page_id = ?1 ORDER BY position",
    )?;
    let links = stmt
        .query_map([page], |row| {
            Ok(NewLink {
                target: row.get(0)?,
                context: row.get(1)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some(PageContent {
        title,
        summary,
        body,
        claims,
        concepts: from_json("pages.concepts", &concepts)?,
        open_questions: from_json("pages.open_questions", &open_questions)?,
        links,
    }))
}

pub(crate) fn page_claims(conn: &Connection, page: PageId) -> Result<Vec<PageClaim>> {
    // Read at the current schema only: the Rust steps of old migrations read pages through
    // their own frozen copies (`migrate::frozen`).
    let mut stmt = conn.prepare_cached(
        "SELECT c.claim, c.confidence, c.quote, c.grounded,
                (SELECT group_concat(source_id) FROM
                    (SELECT source_id FROM claim_sources cs WHERE cs.claim_id = c.id
                     ORDER BY source_id)),
                c.cited_page, c.author
         FROM page_claims c WHERE c.page_id = ?1 ORDER BY c.position",
    )?;
    let claims = stmt
        .query_map([page], |row| {
            let confidence: String = row.get(1)?;
            let sources: Option<String> = row.get(4)?;
            Ok(PageClaim {
                claim: CheckedClaim {
                    claim: row.get(0)?,
                    confidence: Confidence::parse(&confidence).unwrap_or_default(),
                    quote: row.get(2)?,
                    grounded: row.get(3)?,
                },
                source_ids: sources
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|id| id.parse().ok().map(SourceId))
                    .collect(),
                cited_page: row.get(5)?,
                author: row.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(claims)
}

/// The links a page keeps of `links`: one per target key (the first, with the first
/// non-empty context), none to the page itself, none without a key.
pub(crate) fn tidy_links(
    conn: &Connection,
    page: PageId,
    links: &[NewLink],
) -> Result<Vec<NewLink>> {
    let mut kept: Vec<(String, NewLink)> = Vec::new();
    for link in links {
        let target = link.target.trim();
        let key = page_key(target);
        if key.is_empty() {
            continue;
        }
        let context = link.context.trim();
        if let Some((_, existing)) = kept.iter_mut().find(|(k, _)| *k == key) {
            if existing.context.is_empty() {
                existing.context = context.to_owned();
            }
            continue;
        }
        if resolve_key(conn, &key)? == Some(page) {
            continue;
        }
        kept.push((
            key,
            NewLink {
                target: target.to_owned(),
                context: context.to_owned(),
            },
        ));
    }
    Ok(kept.into_iter().map(|(_, link)| link).collect())
}

/// The tags of page `p`, as a JSON array: those of the sources its title names (feeding it
/// `by_title`), in source order, repeats kept (see [`page_tags`]).
macro_rules! tags_of_page {
    () => {
        "(SELECT json_group_array(j.value) FROM page_sources ps
          JOIN sources s ON s.id = ps.source_id, json_each(s.tags) j
          WHERE ps.page_id = p.id AND ps.by_title = 1)"
    };
}

pub(crate) use tags_of_page;

const TAGS_OF_PAGE: &str = tags_of_page!();

/// Tags from a JSON array, each once (compared case-insensitively, first spelling kept).
pub(crate) fn page_tags(tags: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    tags.into_iter()
        .filter(|t| seen.insert(t.to_lowercase()))
        .collect()
}

fn page_in(conn: &Connection, id: PageId) -> Result<Option<Page>> {
    let head = conn
        .prepare_cached(
            "SELECT kind, title, title_key, summary, body, version, stale_reason, flagged,
                    created_at, updated_at, concepts, open_questions
             FROM pages WHERE id = ?1",
        )?
        .query_row([id], |row| {
            let page = Page {
                id,
                kind: row.get(0)?,
                title: row.get(1)?,
                summary: row.get(3)?,
                body: row.get(4)?,
                version: row.get(5)?,
                stale_reason: row.get(6)?,
                flagged: row.get(7)?,
                created_at: row.get(8)?,
                updated_at: row.get(9)?,
                claims: Vec::new(),
                concepts: Vec::new(),
                open_questions: Vec::new(),
                links: Vec::new(),
                backlinks: Vec::new(),
                aliases: Vec::new(),
                tags: Vec::new(),
            };
            let key: String = row.get(2)?;
            let concepts: String = row.get(10)?;
            let questions: String = row.get(11)?;
            Ok((page, key, concepts, questions))
        })
        .optional()?;
    let Some((mut page, key, concepts, questions)) = head else {
        return Ok(None);
    };
    page.concepts = from_json("pages.concepts", &concepts)?;
    page.open_questions = from_json("pages.open_questions", &questions)?;
    page.claims = page_claims(conn, id)?;

    let mut stmt = conn.prepare_cached(
        "SELECT l.target_title,
                COALESCE((SELECT p.id FROM pages p WHERE p.title_key = l.target_key),
                         (SELECT a.page_id FROM aliases a
                          WHERE a.name_key = l.target_key AND a.former = 1)),
                l.context
         FROM page_links l WHERE l.page_id = ?1 ORDER BY l.position",
    )?;
    page.links = stmt
        .query_map([id], |row| {
            Ok(PageLink {
                target: row.get(0)?,
                page_id: row.get(1)?,
                context: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;

    let mut stmt = conn.prepare_cached(
        "SELECT p.id, p.title, l.context FROM page_links l JOIN pages p ON p.id = l.page_id
         WHERE l.page_id <> ?1
           AND (l.target_key = ?2
                OR l.target_key IN (SELECT name_key FROM aliases
                                    WHERE page_id = ?1 AND former = 1))
         ORDER BY p.title_key, p.id",
    )?;
    page.backlinks = stmt
        .query_map(params![id, key], |row| {
            Ok(PageBacklink {
                page_id: row.get(0)?,
                title: row.get(1)?,
                context: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;

    let mut stmt =
        conn.prepare_cached("SELECT name FROM aliases WHERE page_id = ?1 ORDER BY former, name")?;
    page.aliases = stmt
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let tags = conn.query_row(
        &format!("SELECT {TAGS_OF_PAGE} FROM pages p WHERE p.id = ?1"),
        [id],
        |row| json::column(row, 0, "sources.tags"),
    )?;
    page.tags = page_tags(tags);
    Ok(Some(page))
}

impl Store {
    /// One page with its claims (and the sources holding each), concepts, open questions,
    /// links (resolved now), backlinks and aliases.
    pub fn page(&self, id: PageId) -> Result<Option<Page>> {
        self.read(|| format!("reading page {id}"), |conn| page_in(conn, id))
    }

    /// Finds a page by a name a person or a link uses: its title or any spelling of it
    /// (case, whitespace, punctuation, diacritics and regular plurals do not matter;
    /// numbers do), a title it had before, or an alias a note declares; else the name
    /// written as a link gives (`Espresso|the drink`, `[[Espresso#History]]` find
    /// `Espresso`). Never by id: a page may be named `2001`.
    pub fn find_page(&self, name: &str) -> Result<Option<PageId>> {
        let key = page_key(name.trim());
        let reduced = wikimind_text::markdown::reduce_name(name)
            .map(|n| page_key(&n))
            .filter(|k| !k.is_empty() && *k != key);
        if key.is_empty() && reduced.is_none() {
            return Ok(None);
        }
        self.read(
            || format!("looking up the page {name:?}"),
            |conn| {
                if !key.is_empty() {
                    if let Some(page) = resolve_key(conn, &key)? {
                        return Ok(Some(page));
                    }
                }
                match &reduced {
                    Some(reduced) => resolve_key(conn, reduced),
                    None => Ok(None),
                }
            },
        )
    }

    /// The page a digest's title names: what a digest id that is no page id (a digest
    /// that joined an older digest's page in the upgrade) leads to.
    pub fn digest_page(&self, article: ArticleId) -> Result<Option<PageId>> {
        self.read(
            || format!("finding the page of article {article}"),
            |conn| {
                let title: Option<String> = conn
                    .prepare_cached("SELECT title FROM articles WHERE id = ?1")?
                    .query_row([article], |row| row.get(0))
                    .optional()?;
                match title {
                    Some(title) => Ok(conn
                        .prepare_cached("SELECT id FROM pages WHERE title_key = ?1")?
                        .query_row([page_key(&title)], |row| row.get(0))
                        .optional()?),
                    None => Ok(None),
                }
            },
        )
    }

    /// The digests feeding a page, oldest first.
    pub fn page_digests(&self, id: PageId) -> Result<Vec<PageDigest>> {
        self.read(
            || format!("listing the sources of page {id}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT a.id, a.source_id, s.origin, s.kind, a.title, a.summary,
                            a.updated_at, a.provider, a.model, s.final_url, s.root
                     FROM page_sources ps
                     JOIN sources s ON s.id = ps.source_id
                     JOIN articles a ON a.source_id = ps.source_id
                     WHERE ps.page_id = ?1
                     ORDER BY a.created_at, a.id",
                )?;
                let rows = stmt.query_map([id], |row| {
                    Ok(PageDigest {
                        article_id: row.get(0)?,
                        source_id: row.get(1)?,
                        origin: row.get(2)?,
                        kind: row.get(3)?,
                        title: row.get(4)?,
                        summary: row.get(5)?,
                        compiled_at: row.get(6)?,
                        provider: row.get(7)?,
                        model: row.get(8)?,
                        final_url: row.get(9)?,
                        root: row.get(10)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}
