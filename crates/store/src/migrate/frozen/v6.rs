//! The page writer migration 6 applied, on the schema it ran on (version 5's tables): a
//! digest made version 1 of its page. A copy, so that migration's result never follows
//! today's writer (`versions::write_version`, which later migrations changed: answers'
//! cited pages, a person's claims, link rules). Never edit this file.
//!
//! Claims are stored as they were then: the claim, its confidence, quote and grounding,
//! and the source holding a grounded `sourced` quote; today's readers take the fields
//! added later (`cited_page`, `author`) at their defaults.

use rusqlite::{params, OptionalExtension, Transaction};
use serde_json::{json, Value};

use super::v13::page_key;

/// What a digest says, read from the version-5 tables.
struct Digest {
    source: i64,
    summary: String,
    body: String,
    /// `(claim, confidence, quote, grounded)` by position.
    claims: Vec<(String, String, Option<String>, bool)>,
    concepts: Vec<String>,
    open_questions: Vec<String>,
    /// `(target as written, context)` by position.
    links: Vec<(String, String)>,
}

fn read_digest(tx: &Transaction<'_>, article: i64) -> rusqlite::Result<Digest> {
    let (source, summary, body) = tx.query_row(
        "SELECT source_id, summary, body FROM articles WHERE id = ?1",
        [article],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let claims = tx
        .prepare(
            "SELECT claim, confidence, quote, grounded FROM claims
             WHERE article_id = ?1 ORDER BY position",
        )?
        .query_map([article], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let concepts = tx
        .prepare(
            "SELECT c.name FROM article_concepts ac JOIN concepts c ON c.id = ac.concept_id
             WHERE ac.article_id = ?1 ORDER BY ac.position",
        )?
        .query_map([article], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let open_questions = tx
        .prepare("SELECT question FROM open_questions WHERE article_id = ?1 ORDER BY position")?
        .query_map([article], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let links = tx
        .prepare(
            "SELECT target_title, context FROM links WHERE from_article = ?1 ORDER BY position",
        )?
        .query_map([article], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Digest {
        source,
        summary,
        body,
        claims,
        concepts,
        open_questions,
        links,
    })
}

/// The page a key names then: a page's own key, else a former title's.
fn resolve(tx: &Transaction<'_>, key: &str) -> rusqlite::Result<Option<i64>> {
    tx.query_row(
        "SELECT COALESCE((SELECT id FROM pages WHERE title_key = ?1),
                         (SELECT page_id FROM aliases WHERE name_key = ?1 AND former = 1))",
        [key],
        |row| row.get(0),
    )
    .optional()
    .map(Option::flatten)
}

/// The links a page keeps: trimmed, one per target key (the first context that is not
/// empty), none without a key, none to the page itself.
fn tidy_links(
    tx: &Transaction<'_>,
    page: i64,
    links: &[(String, String)],
) -> rusqlite::Result<Vec<(String, String, String)>> {
    let mut kept: Vec<(String, String, String)> = Vec::new();
    for (target, context) in links {
        let (target, context) = (target.trim(), context.trim());
        let key = page_key(target);
        if key.is_empty() {
            continue;
        }
        if let Some(existing) = kept.iter_mut().find(|(k, _, _)| *k == key) {
            if existing.2.is_empty() {
                context.clone_into(&mut existing.2);
            }
            continue;
        }
        if resolve(tx, &key)? == Some(page) {
            continue;
        }
        kept.push((key, target.to_owned(), context.to_owned()));
    }
    Ok(kept)
}

fn to_text(value: &Value) -> String {
    value.to_string()
}

/// Makes digest `article` version 1 of page `page` under `title`, written by `provider`'s
/// `model`: the page's current content, its claims (a grounded `sourced` claim held by the
/// digest's source), its links, and the version row.
pub(crate) fn digest_as_first_version(
    tx: &Transaction<'_>,
    page: i64,
    article: i64,
    title: &str,
    provider: &str,
    model: &str,
) -> rusqlite::Result<()> {
    let digest = read_digest(tx, article)?;
    let concepts = to_text(&json!(digest.concepts));
    let open_questions = to_text(&json!(digest.open_questions));
    tx.execute(
        "UPDATE pages SET title = ?2, summary = ?3, body = ?4, concepts = ?5,
             open_questions = ?6
         WHERE id = ?1",
        params![
            page,
            title,
            digest.summary,
            digest.body,
            concepts,
            open_questions
        ],
    )?;
    let mut claims = Vec::new();
    for (position, (claim, confidence, quote, grounded)) in digest.claims.iter().enumerate() {
        tx.execute(
            "INSERT INTO page_claims (page_id, position, claim, confidence, quote, grounded)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![page, position as i64, claim, confidence, quote, grounded],
        )?;
        let held = *grounded && confidence == "sourced";
        if held {
            tx.execute(
                "INSERT OR IGNORE INTO claim_sources (claim_id, source_id) VALUES (?1, ?2)",
                params![tx.last_insert_rowid(), digest.source],
            )?;
        }
        claims.push(json!({
            "claim": claim,
            "confidence": confidence,
            "quote": quote,
            "grounded": grounded,
            "source_ids": if held { vec![digest.source] } else { Vec::new() },
        }));
    }
    let links = tidy_links(tx, page, &digest.links)?;
    for (position, (key, target, context)) in links.iter().enumerate() {
        tx.execute(
            "INSERT INTO page_links (page_id, position, target_title, target_key, context)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![page, position as i64, target, key, context],
        )?;
    }
    let links: Vec<Value> = links
        .iter()
        .map(|(_, target, context)| json!({ "target": target, "context": context }))
        .collect();
    tx.execute(
        "INSERT INTO page_versions (page_id, version, title, summary, body, claims, concepts,
             open_questions, links, author_kind, provider, model)
         VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'model', ?9, ?10)",
        params![
            page,
            title,
            digest.summary,
            digest.body,
            to_text(&Value::Array(claims)),
            concepts,
            open_questions,
            to_text(&Value::Array(links)),
            provider,
            model
        ],
    )?;
    tx.execute("UPDATE pages SET version = 1 WHERE id = ?1", [page])?;
    Ok(())
}
