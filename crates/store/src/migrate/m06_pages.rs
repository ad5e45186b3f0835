//! Migration 6: the pages of a wiki made before pages existed.
//!
//! Up to schema version 4 each source had one article with a title no other article had: a
//! second `Coffee` was stored as `Coffee (2)`. Those articles are now digests, and
//! [`pages_from_digests`] makes the wiki's pages from them without any model call:
//!
//! 1. A digest titled `Title (N)` (N ≥ 2) gets back the title the model asked for: the
//!    `title` of the last compiled raw answer of its source (its JSON object read strictly,
//!    see `frozen::v13::asked_title`). When that answer asked for `Title (N)` itself the
//!    title stays; when it cannot be read, the suffix is stripped (the only way a build
//!    added one).
//! 2. Digests are grouped by the [`page_key`] of their titles. Each group becomes one page
//!    whose id is the id of the group's oldest digest (so `show ID` keeps working for every
//!    page an older build showed), whose title is that digest's, and whose version 1 is that
//!    digest as it is (authored by the model that compiled it). A group of several digests
//!    is marked stale: it is written from all of them by a page job later.
//! 3. Every other spelling a group used becomes an alias of its page, and every title a
//!    digest lost in step 1 becomes a *former* alias, so links and exported files that use
//!    `Coffee (2)` still lead to the page. A former title whose key some page has as its
//!    own is left out: that page is what the name means now.
//!
//! The rules it applies (page keys, title normalisation, reading an answer's title) are the
//! frozen copies in `frozen::v13`, and the page writer is the one it used then
//! (`frozen::v6`): nothing here follows today's code.
//!
//! Links need no rewriting: a page's links are kept by their target's key and resolved
//! through page titles and former titles when read.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension, Transaction};

use crate::migrate::frozen::v13::{asked_title, normalize_title, page_key};
use crate::migrate::frozen::v6::digest_as_first_version;
use crate::{ArticleId, PageId, Result, SourceId, StoreError};

/// The title `stored` without a trailing ` (N)` with N ≥ 2, if it has one and something is
/// left before it.
fn without_number(stored: &str) -> Option<&str> {
    let rest = stored.strip_suffix(')')?;
    let open = rest.rfind(" (")?;
    let digits = &rest[open + 2..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    let base = &stored[..open];
    (n >= 2 && !base.trim().is_empty()).then_some(base)
}

/// The title a digest stored as `stored` should have (see the module documentation).
pub(crate) fn restored_title(stored: &str, raw_answer: Option<&str>) -> String {
    let Some(base) = without_number(stored) else {
        return stored.to_owned();
    };
    match raw_answer.and_then(asked_title) {
        Some(asked) if asked == stored => stored.to_owned(),
        _ => base.to_owned(),
    }
}

struct Digest {
    id: ArticleId,
    source: SourceId,
    /// The title as an older build stored it.
    stored: String,
    /// The title it has now.
    title: String,
    created_at: String,
    updated_at: String,
    provider: String,
    model: String,
}

/// Migration 6 (see the module documentation).
pub(crate) fn pages_from_digests(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    backfill(tx).map_err(|error| match error {
        StoreError::Database { source, .. } => source,
        // A JSON column: carried as the boxed error, its message intact.
        other => rusqlite::Error::ToSqlConversionFailure(Box::new(other)),
    })
}

fn backfill(tx: &Transaction<'_>) -> Result<()> {
    let mut digests: Vec<Digest> = {
        let mut stmt = tx.prepare(
            "SELECT id, source_id, title, created_at, updated_at, provider, model
             FROM articles ORDER BY id",
        )?;
        let rows = stmt.query_map([], |row| {
            let stored: String = row.get(2)?;
            Ok(Digest {
                id: row.get(0)?,
                source: row.get(1)?,
                title: stored.clone(),
                stored,
                created_at: row.get(3)?,
                updated_at: row.get(4)?,
                provider: row.get(5)?,
                model: row.get(6)?,
            })
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };

    for digest in &mut digests {
        if without_number(&digest.stored).is_none() {
            continue;
        }
        let raw: Option<String> = tx
            .query_row(
                "SELECT raw_answer FROM compilations
                 WHERE source_id = ?1 AND outcome = 'compiled'
                 ORDER BY id DESC LIMIT 1",
                [digest.source],
                |row| row.get(0),
            )
            .optional()?;
        digest.title = restored_title(&digest.stored, raw.as_deref());
        if digest.title != digest.stored {
            tx.execute(
                "UPDATE articles SET title = ?2, title_norm = ?3 WHERE id = ?1",
                params![digest.id, digest.title, normalize_title(&digest.title)],
            )?;
        }
    }

    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, digest) in digests.iter().enumerate() {
        by_key.entry(page_key(&digest.title)).or_default().push(i);
    }
    let mut groups: Vec<(String, Vec<usize>)> = by_key.into_iter().collect();
    for (_, members) in &mut groups {
        members.sort_by(|&a, &b| {
            let (a, b) = (&digests[a], &digests[b]);
            (&a.created_at, a.id).cmp(&(&b.created_at, b.id))
        });
    }
    groups.sort_by_key(|(_, members)| digests[members[0]].id);

    for (key, members) in &groups {
        let seed = &digests[members[0]];
        let stale = (members.len() > 1).then(|| {
            format!(
                "{} sources feed this page; it shows the digest of the oldest until it is \
                 written from them all",
                members.len()
            )
        });
        tx.execute(
            "INSERT INTO pages (id, kind, title, title_key, summary, body, stale_reason,
                                version, created_at)
             VALUES (?1, 'topic', ?2, ?3, '', '', ?4, 0, ?5)",
            params![seed.id.0, seed.title, key, stale, seed.created_at],
        )?;
        for &member in members {
            tx.execute(
                "INSERT INTO page_sources (page_id, source_id) VALUES (?1, ?2)",
                params![seed.id.0, digests[member].source],
            )?;
        }
    }

    for (key, members) in &groups {
        let seed = &digests[members[0]];
        let page = PageId(seed.id.0);
        for &member in members {
            let digest = &digests[member];
            if digest.title != seed.title {
                tx.execute(
                    "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former)
                     VALUES (?1, ?2, ?3, 0)",
                    params![page, digest.title, key],
                )?;
            }
            let former_key = page_key(&digest.stored);
            if digest.stored == digest.title || former_key == *key {
                continue;
            }
            let owned: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM pages WHERE title_key = ?1",
                    [&former_key],
                    |row| row.get(0),
                )
                .optional()?;
            if owned.is_none() {
                tx.execute(
                    "INSERT OR IGNORE INTO aliases (page_id, name, name_key, former)
                     VALUES (?1, ?2, ?3, 1)",
                    params![page, digest.stored, former_key],
                )?;
            }
        }
    }

    // Content last, so that a link to a former title of its own page is seen as a
    // self-link and dropped like any other.
    for (_, members) in &groups {
        let seed = &digests[members[0]];
        let page = PageId(seed.id.0);
        digest_as_first_version(
            tx,
            page.0,
            seed.id.0,
            &seed.title,
            &seed.provider,
            &seed.model,
        )?;
        tx.execute(
            "UPDATE pages SET updated_at = ?2 WHERE id = ?1",
            params![page, seed.updated_at],
        )?;
        tx.execute(
            "UPDATE page_versions SET created_at = ?2 WHERE page_id = ?1",
            params![page, seed.updated_at],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_the_store_added_goes_and_one_the_model_asked_for_stays() {
        let answer = |title: &str| format!("{{\"title\": {title:?}, \"summary\": \"s\"}}");
        assert_eq!(
            restored_title("Coffee (2)", Some(&answer("Coffee"))),
            "Coffee"
        );
        assert_eq!(
            restored_title("coffee (3)", Some(&answer("  coffee "))),
            "coffee"
        );
        assert_eq!(
            restored_title("Symphony (5)", Some(&answer("Symphony (5)"))),
            "Symphony (5)"
        );
        // An answer wrapped in prose and a fence: its object is read.
        let fenced = format!("Here you go:\n```json\n{}\n```", answer("Tea"));
        assert_eq!(restored_title("Tea (2)", Some(&fenced)), "Tea");
        // No readable answer: the suffix goes.
        assert_eq!(restored_title("Tea (2)", Some("I cannot help.")), "Tea");
        assert_eq!(restored_title("Tea (12)", None), "Tea");
        // Not a number the store could have added.
        for kept in [
            "Tea (1)",
            "Tea (x)",
            "Tea ()",
            "(2)",
            "Tea(2)",
            "Tea (2) notes",
        ] {
            assert_eq!(restored_title(kept, None), kept);
        }
    }
}
