//! A whole wiki written in one transaction, for benches and tests: [`Store::seed_bulk`]
//! writes what compiling N sources and writing their pages would leave, without the save
//! path (a transaction per source, each feeding the pages its digest names: 41 s for
//! 10,000 pages, over 25 minutes for 100,000).
//!
//! What it writes is a settled wiki as the save path and the page jobs leave it, row for
//! row: each page has a source (pasted text, or a note file under a vault folder), the
//! source's digest (claims, a concept, an open question, its links, the names it gives)
//! and the compile log's entry, and its page is topic page version 1 written by a model,
//! with the same claims (the sourced one grounded in the source's text, so the claim
//! backfills keep it), links, concepts, tags, and aliases its note declares. Every page a digest names
//! (by a link or a concept) is fed by that digest, written from it and current; no page is
//! stale. The full-text indexes and the names counter are kept by the schema's own
//! triggers. Pages, sources and digests share ids 1 to N.
//!
//! Everything is drawn from a seed, so one seed gives one wiki. Words come from a
//! vocabulary of 6,000 (made-up words, and 30 coffee words among the common ones, so
//! `extraction` and `pressure` find a fifth of the pages) with a Zipf-like skew: the
//! commonest words match nearly every page, rare ones a handful. Of the 3N links, about 88% go to another
//! page by its title, 2% by an alias, and 10% to a name no page has (a wanted page; each
//! named by one source, as `pages.min_sources` = 2 leaves it); one page in a hundred links
//! to a heading (`[[T#Notes]]`, half of them to a heading the page does not have). One page in
//! ten declares an alias, three in ten carry tags, and one in fifty is a stub (one sentence,
//! no claims: `lint` calls it thin).

use std::collections::BTreeMap;

use rusqlite::{params, Statement, Transaction};
use sha2::{Digest, Sha256};

use crate::json::to_json;
use crate::tables::compilations::{log_compilation, CompileOutcome, CompileRecord};
use crate::tables::digest_names::record_names;
use crate::tables::pages::{NewLink, PageClaim};
use crate::{content_hash, hex, page_key, PageId, Result, SourceId, Store, StoreError};

mod plan;

pub use plan::Seeded;
use plan::{plan, Names, Planned, Rng};

/// What [`Store::seed_bulk`] writes: how many pages, from which seed, as which sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkSeed {
    /// Pages (and sources, and digests); the links are three times as many.
    pub pages: usize,
    /// The seed every word, title and link is drawn from.
    pub seed: u64,
    /// `None`: the sources are pasted text. `Some(folder)`: they are notes of a vault in
    /// that folder (`folder/Title.md`, kind `file`), each recorded as read from a file of
    /// its text's size modified when it was compiled (`file_mtime_ns`); the store writes
    /// no file (a bench that wants them writes them, see [`Store::file_sources`]).
    pub vault: Option<String>,
}

impl BulkSeed {
    /// `pages` pages of pasted text from the benches' seed (42).
    pub fn new(pages: usize) -> BulkSeed {
        BulkSeed {
            pages,
            seed: 42,
            vault: None,
        }
    }

    /// Names the wiki this seed writes with this build: a hash of the seed, the schema a new
    /// wiki gets (every table, index, view and trigger as SQLite keeps it) and this
    /// generator's own source, so a copy cached by another schema or generator is never
    /// taken for this one.
    pub fn fingerprint(&self) -> Result<String> {
        let store = Store::open_in_memory()?;
        let schema: String = store.read(
            || "reading the schema".to_owned(),
            |conn| {
                Ok(conn.query_row(
                    "SELECT group_concat(sql, ';') FROM
                         (SELECT sql FROM sqlite_master WHERE sql IS NOT NULL
                          ORDER BY type, name)",
                    [],
                    |row| row.get(0),
                )?)
            },
        )?;
        let mut hash = Sha256::new();
        hash.update(format!("{}\n{}\n{:?}\n", self.pages, self.seed, self.vault));
        hash.update(schema);
        hash.update(include_str!("mod.rs"));
        hash.update(include_str!("plan.rs"));
        Ok(hex(&hash.finalize()))
    }
}

/// The statements of the per-page pass, prepared once.
struct Writers<'t> {
    source: Statement<'t>,
    article: Statement<'t>,
    claim: Statement<'t>,
    concept: Statement<'t>,
    concept_id: Statement<'t>,
    article_concept: Statement<'t>,
    question: Statement<'t>,
    link: Statement<'t>,
    page: Statement<'t>,
    version: Statement<'t>,
    feed: Statement<'t>,
    alias: Statement<'t>,
    page_claim: Statement<'t>,
    claim_source: Statement<'t>,
    page_link: Statement<'t>,
}

/// The SQL time `?n` seconds after the Unix epoch, as every timestamp column holds it.
macro_rules! at {
    ($n:literal) => {
        concat!("strftime('%Y-%m-%dT%H:%M:%fZ', ?", $n, ", 'unixepoch')")
    };
}

impl<'t> Writers<'t> {
    fn prepare(tx: &'t Transaction<'_>) -> Result<Writers<'t>> {
        Ok(Writers {
            source: tx.prepare(concat!(
                "INSERT INTO sources (id, origin, kind, title_hint, text, content_hash, status,
                     tags, aliases, file_size, file_mtime_ns, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'compiled', ?7, ?8, ?9, ?10, ",
                at!(11),
                ", ",
                at!(11),
                ")"
            ))?,
            article: tx.prepare(concat!(
                "INSERT INTO articles (id, source_id, title, title_norm, summary, body, truncated,
                     provider, model, prompt_version, created_at, updated_at)
                 VALUES (?1, ?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, ?8, ",
                at!(9),
                ", ",
                at!(9),
                ")"
            ))?,
            claim: tx.prepare(
                "INSERT INTO claims (article_id, position, claim, confidence, quote, grounded)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            concept: tx.prepare(
                "INSERT INTO concepts (name, name_norm) VALUES (?1, ?2)
                 ON CONFLICT (name_norm) DO NOTHING",
            )?,
            concept_id: tx.prepare("SELECT id FROM concepts WHERE name_norm = ?1")?,
            article_concept: tx.prepare(
                "INSERT INTO article_concepts (article_id, concept_id, position, named)
                 VALUES (?1, ?2, ?3, 1)",
            )?,
            question: tx.prepare(
                "INSERT INTO open_questions (article_id, position, question) VALUES (?1, ?2, ?3)",
            )?,
            // `to_article` is resolved for every link at once when all digests are in.
            link: tx.prepare(
                "INSERT INTO links (from_article, position, target_title, target_norm, context)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?,
            page: tx.prepare(concat!(
                "INSERT INTO pages (id, kind, title, title_key, summary, body, concepts,
                     open_questions, version, created_at, updated_at)
                 VALUES (?1, 'topic', ?2, ?3, ?4, ?5, ?6, ?7, 1, ",
                at!(8),
                ", ",
                at!(9),
                ")"
            ))?,
            version: tx.prepare(concat!(
                "INSERT INTO page_versions (page_id, version, title, summary, body, claims,
                     concepts, open_questions, links, author_kind, provider, model, created_at)
                 VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'model', ?9, ?10, ",
                at!(11),
                ")"
            ))?,
            feed: tx.prepare(concat!(
                "INSERT INTO page_sources (page_id, source_id, by_title, written_digest,
                     written_chars)
                 VALUES (?1, ?1, 1, ",
                at!(2),
                ", ?3)"
            ))?,
            alias: tx.prepare(
                "INSERT INTO aliases (page_id, name, name_key, former, source_id)
                 VALUES (?1, ?2, ?3, 1, ?1)",
            )?,
            page_claim: tx.prepare(
                "INSERT INTO page_claims (page_id, position, claim, confidence, quote, grounded)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            claim_source: tx
                .prepare("INSERT INTO claim_sources (claim_id, source_id) VALUES (?1, ?2)")?,
            page_link: tx.prepare(
                "INSERT INTO page_links (page_id, position, target_title, target_key, context)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?,
        })
    }
}

/// Who "compiled" the seeded sources and wrote their pages, as the history shows it.
const PROVIDER: &str = "seed";
const MODEL: &str = "bulk-seed";

/// When source 1 was compiled (2025-01-01); each next one a minute later.
const FIRST_COMPILE: i64 = 1_735_689_600;

fn write_page(
    w: &mut Writers<'_>,
    tx: &Transaction<'_>,
    names: &Names,
    seed: &BulkSeed,
    page: usize,
    planned: &Planned,
) -> Result<()> {
    let id = page as i64 + 1;
    let source = SourceId(id);
    let title = &names.titles[page];
    let key = page_key(title);
    let compiled_at = FIRST_COMPILE + id * 60;
    let hash = content_hash(&planned.text);
    let (origin, kind, size, mtime) = match &seed.vault {
        Some(vault) => (
            format!("{vault}/{title}.md"),
            "file",
            Some(planned.text.len() as i64),
            Some(compiled_at * 1_000_000_000),
        ),
        None => (format!("text:{hash}"), "text", None, None),
    };
    let alias = names.aliases[page].as_deref();
    let declared: Vec<&str> = alias.into_iter().collect();
    w.source.execute(params![
        id,
        origin,
        kind,
        title,
        planned.text,
        hash,
        to_json("sources.tags", &planned.tags)?,
        to_json("sources.aliases", &declared)?,
        size,
        mtime,
        compiled_at,
    ])?;

    // The digest.
    w.article.execute(params![
        id,
        title,
        key,
        planned.summary,
        planned.body,
        PROVIDER,
        MODEL,
        MODEL,
        compiled_at,
    ])?;
    for (position, claim) in planned.claims.iter().enumerate() {
        w.claim.execute(params![
            id,
            position as i64,
            claim.claim,
            claim.confidence.as_str(),
            claim.quote,
            claim.grounded,
        ])?;
    }
    let mut given: BTreeMap<String, String> = BTreeMap::new();
    for (position, concept) in planned.concepts.iter().enumerate() {
        let norm = page_key(concept);
        w.concept.execute(params![concept, norm])?;
        let concept_id: i64 = w.concept_id.query_row([&norm], |row| row.get(0))?;
        w.article_concept
            .execute(params![id, concept_id, position as i64])?;
        given.entry(norm).or_insert_with(|| concept.clone());
    }
    w.question.execute(params![id, 0, planned.question])?;
    for (position, (target, target_key, context)) in planned.links.iter().enumerate() {
        w.link
            .execute(params![id, position as i64, target, target_key, context])?;
        given
            .entry(target_key.clone())
            .or_insert_with(|| target.clone());
    }
    record_names(tx, source, &given)?;
    log_compilation(
        tx,
        source,
        &CompileRecord {
            provider: PROVIDER.to_owned(),
            model: MODEL.to_owned(),
            prompt_version: MODEL.to_owned(),
            attempt: 1,
            ..CompileRecord::default()
        },
        CompileOutcome::Compiled,
        None,
    )?;

    // The page, written from it.
    let claims: Vec<PageClaim> = planned
        .claims
        .iter()
        .map(|claim| PageClaim {
            claim: claim.clone(),
            source_ids: if claim.grounded { vec![source] } else { vec![] },
            cited_page: None,
            author: Default::default(),
        })
        .collect();
    let links: Vec<NewLink> = planned
        .links
        .iter()
        .map(|(target, _, context)| NewLink {
            target: target.clone(),
            context: context.clone(),
        })
        .collect();
    let concepts = to_json("pages.concepts", &planned.concepts)?;
    let questions = to_json("pages.open_questions", &[&planned.question])?;
    let written_at = compiled_at + 600;
    w.page.execute(params![
        id,
        title,
        key,
        planned.summary,
        planned.body,
        concepts,
        questions,
        compiled_at,
        written_at,
    ])?;
    // As every write of a body counts it.
    crate::tables::page_sentences::record_count(tx, PageId(id), &planned.body)?;
    w.version.execute(params![
        id,
        title,
        planned.summary,
        planned.body,
        to_json("page_versions.claims", &claims)?,
        concepts,
        questions,
        to_json("page_versions.links", &links)?,
        PROVIDER,
        MODEL,
        written_at,
    ])?;
    w.feed.execute(params![
        id,
        compiled_at,
        planned.text.chars().count() as i64
    ])?;
    if let Some(alias) = alias {
        w.alias.execute(params![id, alias, page_key(alias)])?;
    }
    for (position, claim) in claims.iter().enumerate() {
        w.page_claim.execute(params![
            id,
            position as i64,
            claim.claim.claim,
            claim.claim.confidence.as_str(),
            claim.claim.quote,
            claim.claim.grounded,
        ])?;
        let claim_id = tx.last_insert_rowid();
        for source in &claim.source_ids {
            w.claim_source.execute(params![claim_id, source])?;
        }
    }
    for (position, (target, target_key, context)) in planned.links.iter().enumerate() {
        w.page_link
            .execute(params![id, position as i64, target, target_key, context])?;
    }
    Ok(())
}

fn seed_in(tx: &Transaction<'_>, seed: &BulkSeed) -> Result<Seeded> {
    let occupied: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM sources) OR EXISTS (SELECT 1 FROM pages)",
        [],
        |row| row.get(0),
    )?;
    if occupied {
        return Err(StoreError::Refused(
            "the bulk seed writes a new wiki, and this one has sources or pages already: \
             seed an empty data directory"
                .to_owned(),
        ));
    }
    let mut rng = Rng::new(seed.seed);
    let mut names = Names::draw(&mut rng, seed.pages);
    let mut counts = Seeded {
        pages: seed.pages as u64,
        links: 3 * seed.pages as u64,
        aliases: names.aliased.len() as u64,
        ..Seeded::default()
    };
    {
        let mut writers = Writers::prepare(tx)?;
        for page in 0..seed.pages {
            let planned = plan(&mut rng, &mut names, page, &mut counts);
            write_page(&mut writers, tx, &names, seed, page, &planned)?;
        }
    }
    // Now that every digest is in: links find their digests by title, as saving a digest
    // resolves them …
    tx.execute(
        "UPDATE links SET to_article = (SELECT a.id FROM articles a
                                        WHERE a.title_norm = links.target_norm
                                        ORDER BY a.id LIMIT 1)",
        [],
    )?;
    // … and every page a digest names (by its title, or by an alias its note declares) is
    // fed by that digest, written from it.
    tx.execute(
        "INSERT OR IGNORE INTO page_sources (page_id, source_id, by_title, written_digest,
             written_chars)
         SELECT COALESCE(p.id, al.page_id), d.source_id, 0, a.updated_at, length(s.text)
         FROM digest_names d
         JOIN articles a ON a.source_id = d.source_id
         JOIN sources s ON s.id = d.source_id
         LEFT JOIN pages p ON p.title_key = d.name_key
         LEFT JOIN aliases al ON al.name_key = d.name_key AND al.former = 1
                              AND al.source_id IS NOT NULL
         WHERE COALESCE(p.id, al.page_id) IS NOT NULL",
        [],
    )?;
    Ok(counts)
}

impl Store {
    /// Writes a whole wiki of `seed.pages` pages and three times as many links into this
    /// empty store, in one transaction (see the module documentation for what a page has).
    /// For benches and tests: a person's wiki is written by compiling sources. Refused when
    /// the store has sources or pages already.
    pub fn seed_bulk(&self, seed: &BulkSeed) -> Result<Seeded> {
        self.write(
            || format!("seeding a wiki of {} pages", seed.pages),
            |tx| seed_in(tx, seed),
        )
    }
}
