//! Citations written and kept: where each grounded claim's quote stands in its sources
//! ([`cite_quote`], called as digests and page versions are saved), anchored again when a
//! source's text changes ([`reanchor_source`]), and those no claim cites any more let go
//! ([`prune_citations`]).
//!
//! Where a quote stands is found in the source's readable text (what grounding read: front
//! matter, comments and block ids out) and mapped back to the stored text, so `start` and
//! `end` are offsets into `sources.text`. The rules (the quote fold, re-anchoring, heading
//! paths) are `wikimind_text::anchor`'s; this file only applies them and writes rows.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};
use wikimind_text::anchor::{heading_path, locate_pieces, reanchor, Anchor};
use wikimind_text::markdown::readable_text;

use crate::tables::citations::{citations_of_source, has_citations, put_citation, CitationRow};
use crate::tables::source_pages::{page_at, pages_of, SourcePage};
use crate::{PageId, Result, SourceId};

/// Sources' texts and pages read once per transaction.
#[derive(Default)]
pub(crate) struct SourceTexts {
    read: HashMap<SourceId, Option<(String, Vec<SourcePage>)>>,
}

impl SourceTexts {
    fn get(
        &mut self,
        conn: &Connection,
        source: SourceId,
    ) -> Result<Option<&(String, Vec<SourcePage>)>> {
        if !self.read.contains_key(&source) {
            let text: Option<String> = conn
                .prepare_cached("SELECT text FROM sources WHERE id = ?1")?
                .query_row([source], |row| row.get(0))
                .optional()?;
            let entry = match text {
                Some(text) => Some((text, pages_of(conn, source)?)),
                None => None,
            };
            self.read.insert(source, entry);
        }
        Ok(self.read.get(&source).and_then(Option::as_ref))
    }
}

/// What [`cite_quote`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cited {
    /// The quote had citations in the source already.
    Already,
    /// Its pieces were placed and written.
    Placed,
    /// It could not be placed (the source is gone, or the quote is not found in its text).
    NotFound,
}

/// The rows citing `quote` in `text` (a source's stored text, cut into `pages`): one per
/// piece found, or `None` when the quote is not found.
pub(crate) fn place(
    source: SourceId,
    text: &str,
    pages: &[SourcePage],
    quote: &str,
) -> Option<Vec<CitationRow>> {
    let readable = readable_text(text);
    let pieces = locate_pieces(&readable.text, quote)?;
    let rows = pieces
        .into_iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(piece, r)| {
            let raw = readable.raw_range(r);
            row(
                source,
                quote,
                piece as u32,
                text,
                pages,
                Anchor::at(text, raw),
            )
        })
        .collect::<Vec<_>>();
    (!rows.is_empty()).then_some(rows)
}

fn row(
    source: SourceId,
    quote: &str,
    piece: u32,
    text: &str,
    pages: &[SourcePage],
    anchor: Anchor,
) -> CitationRow {
    let page = page_at(pages, anchor.start);
    CitationRow {
        source_id: source,
        quote: quote.to_owned(),
        piece,
        range: Some((anchor.start, anchor.end)),
        heading: heading_path(text, anchor.start),
        page: page.map(|p| p.number),
        page_label: page.and_then(|p| p.label.clone()),
        exact: anchor.exact,
        prefix: anchor.prefix,
        suffix: anchor.suffix,
    }
}

/// Writes where `quote` stands in `source`, unless it has citations there already.
pub(crate) fn cite_quote(
    conn: &Connection,
    texts: &mut SourceTexts,
    source: SourceId,
    quote: &str,
) -> Result<Cited> {
    if quote.trim().is_empty() {
        return Ok(Cited::NotFound);
    }
    if has_citations(conn, source, quote)? {
        return Ok(Cited::Already);
    }
    let Some((text, pages)) = texts.get(conn, source)? else {
        return Ok(Cited::NotFound);
    };
    let Some(rows) = place(source, text, pages, quote) else {
        return Ok(Cited::NotFound);
    };
    for row in &rows {
        put_citation(conn, row)?;
    }
    Ok(Cited::Placed)
}

/// Writes the citations of page `page`'s claims in the sources recorded as holding them.
pub(crate) fn cite_page(conn: &Connection, texts: &mut SourceTexts, page: PageId) -> Result<()> {
    let pairs: Vec<(SourceId, String)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT cs.source_id, c.quote FROM page_claims c
             JOIN claim_sources cs ON cs.claim_id = c.id
             WHERE c.page_id = ?1 AND c.quote IS NOT NULL AND c.grounded = 1
             ORDER BY c.position, cs.source_id",
        )?;
        let rows = stmt.query_map([page], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (source, quote) in pairs {
        cite_quote(conn, texts, source, &quote)?;
    }
    Ok(())
}

/// What anchoring a source's citations again did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Reanchored {
    /// Citations whose text stood where it was.
    pub kept: usize,
    /// Citations found elsewhere in the new text.
    pub moved: usize,
    /// Citations whose quote is not in the text any more.
    pub lost: usize,
}

/// Anchors every citation of `source` again in its text as it is now (its pages as they
/// are now): each found again keeps or moves its range, page and heading; each not found is
/// kept with no range (lost), so its claim no longer grounds.
pub(crate) fn reanchor_source(conn: &Connection, source: SourceId) -> Result<Reanchored> {
    let mut done = Reanchored::default();
    let rows = citations_of_source(conn, source)?;
    if rows.is_empty() {
        return Ok(done);
    }
    let mut texts = SourceTexts::default();
    let Some((text, pages)) = texts.get(conn, source)? else {
        return Ok(done);
    };
    for old in rows {
        let (start, end) = old.range.unwrap_or((0, 0));
        let anchor = Anchor {
            start,
            end,
            exact: old.exact.clone(),
            prefix: old.prefix.clone(),
            suffix: old.suffix.clone(),
        };
        let new = match reanchor(&anchor, text) {
            Some(range) => {
                if old.range == Some((range.start, range.end)) {
                    done.kept += 1;
                } else {
                    done.moved += 1;
                }
                row(
                    source,
                    &old.quote,
                    old.piece,
                    text,
                    pages,
                    Anchor::at(text, range),
                )
            }
            None => {
                done.lost += 1;
                CitationRow {
                    range: None,
                    ..old.clone()
                }
            }
        };
        if new != old {
            put_citation(conn, &new)?;
        }
    }
    Ok(done)
}

/// Lets go of the citations in `source` of quotes no claim cites any more: no claim of its
/// digest, and no page claim recorded as held by it.
pub(crate) fn prune_citations(conn: &Connection, source: SourceId) -> Result<()> {
    conn.execute(
        "DELETE FROM citations WHERE source_id = ?1
           AND NOT EXISTS (SELECT 1 FROM claims c JOIN articles a ON a.id = c.article_id
                           WHERE a.source_id = ?1 AND c.quote = citations.quote)
           AND NOT EXISTS (SELECT 1 FROM claim_sources cs
                           JOIN page_claims c ON c.id = cs.claim_id
                           WHERE cs.source_id = ?1 AND c.quote = citations.quote)",
        [source],
    )?;
    Ok(())
}
