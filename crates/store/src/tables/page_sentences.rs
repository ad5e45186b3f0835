//! Page sentences (`page_sentences`): how many sentences and characters each page's body
//! holds, counted by [`wikimind_text::prose::sentences`] when the body is written, so that
//! lint's thin check reads counts instead of every body. A row counted under another
//! version of the rule is not used, and a body that changes drops its row (a trigger of
//! migration 32): a count may be missing, never wrong.

use rusqlite::{params, Connection};
use wikimind_text::prose::{sentences, SENTENCES_RULE};

use crate::{PageId, Result};

/// What the thin check reads of a body: its sentences and characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyCount {
    /// Its sentences ([`sentences`]).
    pub sentences: usize,
    /// Its characters.
    pub chars: usize,
}

impl BodyCount {
    /// The counts of `body`.
    pub fn of(body: &str) -> BodyCount {
        BodyCount {
            sentences: sentences(body),
            chars: body.chars().count(),
        }
    }
}

/// Records the counts of `body` as those of `page`'s body, which it must be.
pub(crate) fn record_count(conn: &Connection, page: PageId, body: &str) -> Result<()> {
    let count = BodyCount::of(body);
    conn.prepare_cached(
        "INSERT OR REPLACE INTO page_sentences (page_id, rule, sentences, chars)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        page,
        SENTENCES_RULE,
        count.sentences as i64,
        count.chars as i64
    ])?;
    Ok(())
}

/// How many pages have their body counted by today's rule.
pub(crate) fn counted_pages(conn: &Connection) -> Result<i64> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM page_sentences WHERE rule = ?1")?
        .query_row([SENTENCES_RULE], |row| row.get(0))?)
}

/// The pages counted by today's rule whose body has fewer than `chars` characters and
/// fewer than `few` sentences, or that have no claims, with their sentences, in id order.
pub(crate) fn counted_thin(
    conn: &Connection,
    chars: usize,
    few: usize,
) -> Result<Vec<(PageId, usize)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.page_id, s.sentences FROM page_sentences s
         WHERE s.rule = ?1 AND (s.chars < ?2 AND s.sentences < ?3
             OR NOT EXISTS (SELECT 1 FROM page_claims c WHERE c.page_id = s.page_id))",
    )?;
    let rows = stmt.query_map(params![SENTENCES_RULE, chars as i64, few as i64], |row| {
        Ok((row.get(0)?, row.get::<_, i64>(1)? as usize))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The topic pages whose body is not counted by today's rule.
pub(crate) fn uncounted_topics(conn: &Connection) -> Result<Vec<PageId>> {
    // The listing index holds every page's id and kind, so this reads no body.
    let mut stmt = conn.prepare_cached(
        "SELECT p.id FROM pages p INDEXED BY pages_listing
         WHERE p.kind = 'topic' AND NOT EXISTS (
             SELECT 1 FROM page_sentences s WHERE s.page_id = p.id AND s.rule = ?1)",
    )?;
    let rows = stmt.query_map([SENTENCES_RULE], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
