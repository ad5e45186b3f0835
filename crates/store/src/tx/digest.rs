//! Saving a compile's result: the source's digest (its `articles` row) with its claims,
//! concepts, open questions and links, the compile log row, the source's status, and the
//! pages the digest feeds — one transaction; or a failed compile, logged with its reason.

use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use crate::tables::compilations::{log_compilation, CompileOutcome, CompileRecord};
use crate::tables::pages::NewLink;
use crate::tables::sources::{drop_orphan_concepts_among, source_exists};
use crate::tx::cite::{cite_quote, prune_citations, SourceTexts};
use crate::tx::feed::feed_pages;
use crate::{page_key, ArticleId, PageId, Result, SourceId, SourceStatus, Store, StoreError, NOW};
use wikimind_contract::{CheckedClaim, CompilationResult};

/// Everything one successful compile writes.
#[derive(Debug, Clone, Copy)]
pub struct SaveArticle<'a> {
    /// The compiled source.
    pub source_id: SourceId,
    /// The validated answer (title, summary, concepts, open questions, body).
    pub result: &'a CompilationResult,
    /// The claims after the grounding check (stored instead of `result.key_claims`).
    pub claims: &'a [CheckedClaim],
    /// Outgoing links, in order.
    pub links: &'a [NewLink],
    /// Whether the source was truncated to fit the model.
    pub truncated: bool,
    /// Whether the digest's title names a page (false: a source with no title of its own
    /// whose model title is not a name; the digest feeds only the pages of its other names).
    pub title_is_page: bool,
    /// Concepts the digest gives that no source says: shown on the digest as chips, never a
    /// page's name (they feed no page and are not offered to prompts).
    pub unnamed_concepts: &'a [String],
    /// The compile log entry.
    pub record: &'a CompileRecord,
}

/// What [`Store::save_article`] stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedArticle {
    /// The article (the same one as before when the source was compiled already).
    pub article_id: ArticleId,
    /// The title it was stored under.
    pub title: String,
    /// The title the model asked for (trimmed).
    pub requested_title: String,
    /// Always `false` since schema version 5: digests may share a title (they feed one
    /// page), so no ` (2)` is added any more. Kept for the compile report until it speaks
    /// of pages.
    pub collision: bool,
    /// The page the digest's title names (made if it had none); `None` when its title names
    /// no page ([`SaveArticle::title_is_page`]).
    pub page_id: Option<PageId>,
}

impl Store {
    /// Saves a compiled article (the source's digest) in one transaction: the article
    /// (replacing the source's previous one and keeping its id), its claims, concepts, open
    /// questions and links, the compile log row, the source's `compiled` status, the search
    /// index, and the pages it feeds (see the `pages` module: the page its title names is
    /// made or updated, a page it no longer names is left). On any error nothing is written
    /// and the previous article stays as it was.
    ///
    /// Several sources' digests may have the same title: they feed one page. Links resolve
    /// to articles by normalised title (the first article with it); unmatched ones are
    /// wanted pages, and wanted links elsewhere that name this article's title now resolve
    /// to it. Self-links (to the article's own title) are
    /// dropped: they are neither a connection nor a wanted page. Several links to the same
    /// target are kept once, with the first non-empty context.
    pub fn save_article(&self, save: &SaveArticle<'_>) -> Result<SavedArticle> {
        let source_id = save.source_id;
        self.write(
            || format!("saving the article for source {source_id}"),
            |tx| save_in(tx, save, self.min_sources()),
        )
    }

    /// Logs a failed compile (raw answer kept) and marks the source `failed` with the
    /// reason, in one transaction. The source's previous article, if any, is kept.
    pub fn record_failure(
        &self,
        source_id: SourceId,
        record: &CompileRecord,
        reason: &str,
    ) -> Result<()> {
        self.write(
            || format!("recording the failed compile of source {source_id}"),
            |tx| {
                source_exists(tx, source_id)?;
                log_compilation(tx, source_id, record, CompileOutcome::Failed, Some(reason))?;
                tx.execute(
                    &format!(
                        "UPDATE sources SET status = ?2, reason = ?3, updated_at = {NOW}
                         WHERE id = ?1"
                    ),
                    params![source_id, SourceStatus::Failed, reason],
                )?;
                Ok(())
            },
        )
    }
}

fn save_in(tx: &Transaction<'_>, save: &SaveArticle<'_>, min_sources: u32) -> Result<SavedArticle> {
    let source_id = save.source_id;
    let result = save.result;
    source_exists(tx, source_id)?;
    let requested_title = result.title.trim().to_owned();
    if requested_title.is_empty() {
        return Err(StoreError::EmptyTitle(source_id));
    }

    let previous: Option<(ArticleId, String)> = tx
        .prepare_cached("SELECT id, title_norm FROM articles WHERE source_id = ?1")?
        .query_row([source_id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let title = requested_title.clone();
    let title_norm = page_key(&title);
    let record = save.record;

    let mut replaced_concepts: Vec<i64> = Vec::new();
    let article_id = match previous {
        Some((id, old_norm)) => {
            tx.execute(
                &format!(
                    "UPDATE articles SET title = ?2, title_norm = ?3, summary = ?4, body = ?5,
                         truncated = ?6, provider = ?7, model = ?8, prompt_version = ?9,
                         updated_at = {NOW}
                     WHERE id = ?1"
                ),
                params![
                    id,
                    title,
                    title_norm,
                    result.summary,
                    result.article_body,
                    save.truncated,
                    record.provider,
                    record.model,
                    record.prompt_version,
                ],
            )?;
            if old_norm != title_norm {
                // Renamed: links that found it by its old title go to another article with
                // that title, or are wanted again.
                tx.prepare_cached(
                    "UPDATE links SET to_article =
                         (SELECT a.id FROM articles a
                          WHERE a.title_norm = links.target_norm AND a.id <> ?1
                          ORDER BY a.id LIMIT 1)
                     WHERE to_article = ?1 AND target_norm <> ?2",
                )?
                .execute(params![id, title_norm])?;
            }
            let mut stmt =
                tx.prepare_cached("SELECT concept_id FROM article_concepts WHERE article_id = ?1")?;
            let used: Vec<i64> = stmt
                .query_map([id], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            drop(stmt);
            replaced_concepts = used;
            for table in ["claims", "article_concepts", "open_questions"] {
                tx.execute(&format!("DELETE FROM {table} WHERE article_id = ?1"), [id])?;
            }
            tx.prepare_cached("DELETE FROM links WHERE from_article = ?1")?
                .execute([id])?;
            id
        }
        None => {
            tx.execute(
                &format!(
                    "INSERT INTO articles (source_id, title, title_norm, summary, body,
                         truncated, provider, model, prompt_version, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, {NOW}, {NOW})"
                ),
                params![
                    source_id,
                    title,
                    title_norm,
                    result.summary,
                    result.article_body,
                    save.truncated,
                    record.provider,
                    record.model,
                    record.prompt_version,
                ],
            )?;
            ArticleId(tx.last_insert_rowid())
        }
    };

    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO claims (article_id, position, claim, confidence, quote, grounded)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (position, claim) in save.claims.iter().enumerate() {
            insert.execute(params![
                article_id,
                position as i64,
                claim.claim,
                claim.confidence.as_str(),
                claim.quote,
                claim.grounded,
            ])?;
        }
    }

    {
        let mut upsert = tx.prepare_cached(
            "INSERT INTO concepts (name, name_norm) VALUES (?1, ?2)
             ON CONFLICT (name_norm) DO NOTHING",
        )?;
        let mut find = tx.prepare_cached("SELECT id FROM concepts WHERE name_norm = ?1")?;
        let mut attach = tx.prepare_cached(
            "INSERT OR IGNORE INTO article_concepts (article_id, concept_id, position, named)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        let named = result.concepts.iter().map(|c| (c, true));
        let chips = save.unnamed_concepts.iter().map(|c| (c, false));
        for (position, (name, named)) in named.chain(chips).enumerate() {
            let name = name.trim();
            let norm = page_key(name);
            if norm.is_empty() {
                continue;
            }
            upsert.execute(params![name, norm])?;
            let concept_id: i64 = find.query_row([&norm], |row| row.get(0))?;
            attach.execute(params![article_id, concept_id, position as i64, named])?;
        }
    }

    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO open_questions (article_id, position, question) VALUES (?1, ?2, ?3)",
        )?;
        let questions = result
            .open_questions
            .iter()
            .map(|q| q.trim())
            .filter(|q| !q.is_empty());
        for (position, question) in questions.enumerate() {
            insert.execute(params![article_id, position as i64, question])?;
        }
    }

    {
        // One row per target: the first occurrence, with the first non-empty context.
        let mut links: Vec<(String, String, String)> = Vec::new();
        for link in save.links {
            let target = link.target.trim();
            let norm = page_key(target);
            if norm.is_empty() || norm == title_norm {
                continue;
            }
            let context = link.context.trim();
            match links.iter_mut().find(|(_, n, _)| *n == norm) {
                Some((_, _, existing)) => {
                    if existing.is_empty() {
                        *existing = context.to_owned();
                    }
                }
                None => links.push((target.to_owned(), norm, context.to_owned())),
            }
        }
        let mut insert = tx.prepare_cached(
            "INSERT INTO links (from_article, position, target_title, target_norm, to_article,
                 context)
             VALUES (?1, ?2, ?3, ?4,
                     (SELECT id FROM articles WHERE title_norm = ?4 ORDER BY id LIMIT 1), ?5)",
        )?;
        for (position, (target, norm, context)) in links.iter().enumerate() {
            insert.execute(params![article_id, position as i64, target, norm, context])?;
        }
    }

    // Wanted pages elsewhere that name this article now resolve to it.
    tx.prepare_cached(
        "UPDATE links SET to_article = ?1
         WHERE target_norm = ?2 AND to_article IS NULL AND from_article <> ?1",
    )?
    .execute(params![article_id, title_norm])?;
    // Only the concepts the digest used before can have lost their last use.
    drop_orphan_concepts_among(tx, &replaced_concepts)?;
    let page_id = feed_pages(
        tx,
        source_id,
        article_id,
        save.title_is_page.then_some(title.as_str()),
        min_sources,
    )?;

    // Where each grounded claim's quote stands in the source; citations of quotes no claim
    // cites any more go.
    let mut texts = SourceTexts::default();
    for claim in save.claims.iter().filter(|c| c.grounded) {
        if let Some(quote) = &claim.quote {
            cite_quote(tx, &mut texts, source_id, quote)?;
        }
    }
    prune_citations(tx, source_id)?;

    log_compilation(tx, source_id, record, CompileOutcome::Compiled, None)?;
    tx.execute(
        &format!("UPDATE sources SET status = ?2, reason = NULL, updated_at = {NOW} WHERE id = ?1"),
        params![source_id, SourceStatus::Compiled],
    )?;

    Ok(SavedArticle {
        article_id,
        title,
        requested_title,
        collision: false,
        page_id,
    })
}
