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
use wikimind_text::anchor::{Anchor, Haystack, Headings};
use wikimind_text::markdown::{readable_text, Readable};

use crate::tables::citations::{
    citation_state, citations_of_source, drop_citations, put_citation, CitationRow,
};
use crate::tables::source_pages::{page_at, pages_of, SourcePage};
use crate::{PageId, Result, SourceId};

/// Sources' texts and pages read once per transaction, with their readable text prepared
/// for placing quotes (built on first need).
#[derive(Default)]
pub(crate) struct SourceTexts {
    read: HashMap<SourceId, Option<SourceText>>,
}

/// A source's stored text, its pages, and its readable text prepared for placing quotes.
pub(crate) struct SourceText {
    text: String,
    pages: Vec<SourcePage>,
    readable: std::sync::OnceLock<(Readable, Haystack<'static>)>,
    headings: std::sync::OnceLock<Headings>,
}

impl SourceText {
    /// The headings of the stored text.
    fn headings(&self) -> &Headings {
        self.headings.get_or_init(|| Headings::new(&self.text))
    }

    /// The readable text (with its map back to the stored text) and its haystack.
    fn readable(&self) -> &(Readable, Haystack<'static>) {
        self.readable.get_or_init(|| {
            let readable = readable_text(&self.text);
            let haystack = Haystack::owned(readable.text.clone());
            (readable, haystack)
        })
    }
}

impl SourceTexts {
    fn get(&mut self, conn: &Connection, source: SourceId) -> Result<Option<&SourceText>> {
        let entry = match self.read.entry(source) {
            std::collections::hash_map::Entry::Occupied(read) => read.into_mut(),
            std::collections::hash_map::Entry::Vacant(unread) => {
                let text: Option<String> = conn
                    .prepare_cached("SELECT text FROM sources WHERE id = ?1")?
                    .query_row([source], |row| row.get(0))
                    .optional()?;
                let entry = match text {
                    Some(text) => Some(SourceText {
                        text,
                        pages: pages_of(conn, source)?,
                        readable: std::sync::OnceLock::new(),
                        headings: std::sync::OnceLock::new(),
                    }),
                    None => None,
                };
                unread.insert(entry)
            }
        };
        Ok(entry.as_ref())
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

/// The rows citing `quote` in `source`'s text: one per piece found, or `None` when the
/// quote is not found.
fn place(source: SourceId, text: &SourceText, quote: &str) -> Option<Vec<CitationRow>> {
    let (readable, haystack) = text.readable();
    let pieces = haystack.pieces(quote)?;
    let rows = pieces
        .into_iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(piece, r)| {
            let raw = readable.raw_range(r);
            let anchor = Anchor::at(&text.text, raw);
            row(source, quote, piece as u32, text, anchor)
        })
        .collect::<Vec<_>>();
    (!rows.is_empty()).then_some(rows)
}

fn row(
    source: SourceId,
    quote: &str,
    piece: u32,
    text: &SourceText,
    anchor: Anchor,
) -> CitationRow {
    let pages = &text.pages;
    let page = page_at(pages, anchor.start);
    CitationRow {
        source_id: source,
        quote: quote.to_owned(),
        piece,
        range: Some((anchor.start, anchor.end)),
        heading: text.headings().path_at(anchor.start),
        page: page.map(|p| p.number),
        page_label: page.and_then(|p| p.label.clone()),
        exact: anchor.exact,
        prefix: anchor.prefix,
        suffix: anchor.suffix,
    }
}

/// Writes where `quote` stands in `source`, unless it is placed there already (a quote
/// whose citation was lost is placed again when it is found).
pub(crate) fn cite_quote(
    conn: &Connection,
    texts: &mut SourceTexts,
    source: SourceId,
    quote: &str,
) -> Result<Cited> {
    if quote.trim().is_empty() {
        return Ok(Cited::NotFound);
    }
    // A quote placed already keeps its place; one lost when the source changed and found
    // again by grounding now (the text came back) is placed anew.
    let state = citation_state(conn, source, quote)?;
    if state == Some(true) {
        return Ok(Cited::Already);
    }
    let Some(text) = texts.get(conn, source)? else {
        return Ok(Cited::NotFound);
    };
    let Some(rows) = place(source, text, quote) else {
        return Ok(Cited::NotFound);
    };
    if state.is_some() {
        drop_citations(conn, source, quote)?;
    }
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

/// Anchors every citation of `source` again in its text as it is now (its pages as they
/// are now): each found again keeps or moves its range, page and heading; each not found is
/// kept with no range (lost), so its claim no longer grounds.
pub(crate) fn reanchor_source(conn: &Connection, source: SourceId) -> Result<()> {
    let rows = citations_of_source(conn, source)?;
    if rows.is_empty() {
        return Ok(());
    }
    let mut texts = SourceTexts::default();
    let Some(text) = texts.get(conn, source)? else {
        return Ok(());
    };
    let haystack = Haystack::new(&text.text);
    for old in rows {
        let (start, end) = old.range.unwrap_or((0, 0));
        let anchor = Anchor {
            start,
            end,
            exact: old.exact.clone(),
            prefix: old.prefix.clone(),
            suffix: old.suffix.clone(),
        };
        let new = match haystack.reanchor(&anchor) {
            Some(range) => row(
                source,
                &old.quote,
                old.piece,
                text,
                Anchor::at(&text.text, range),
            ),
            None => CitationRow {
                range: None,
                ..old.clone()
            },
        };
        if new != old {
            put_citation(conn, &new)?;
        }
    }
    Ok(())
}

/// The sources the claims of page `page` are recorded as held by: those whose citations
/// may be let go when the page's claims change or the page goes.
pub(crate) fn sources_of_page_claims(conn: &Connection, page: PageId) -> Result<Vec<SourceId>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT cs.source_id FROM page_claims c
         JOIN claim_sources cs ON cs.claim_id = c.id
         WHERE c.page_id = ?1 ORDER BY cs.source_id",
    )?;
    let rows = stmt.query_map([page], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// [`prune_citations`] in each of `sources`.
/// Returns how many citation rows went.
pub(crate) fn prune_citations_in(conn: &Connection, sources: &[SourceId]) -> Result<usize> {
    let mut gone = 0;
    for &source in sources {
        gone += prune_citations(conn, source)?;
    }
    Ok(gone)
}

/// Deletes page `page` (its claims, links and versions go with it) and lets go of the
/// citations only its claims held.
pub(crate) fn delete_page(conn: &Connection, page: PageId) -> Result<()> {
    let sources = sources_of_page_claims(conn, page)?;
    conn.prepare_cached("DELETE FROM pages WHERE id = ?1")?
        .execute([page])?;
    prune_citations_in(conn, &sources)?;
    Ok(())
}

/// Lets go of the citations in `source` of quotes no claim cites any more: no claim of its
/// digest, and no page claim recorded as held by it. Returns how many rows went.
pub(crate) fn prune_citations(conn: &Connection, source: SourceId) -> Result<usize> {
    let gone = conn
        .prepare_cached(
            "DELETE FROM citations WHERE source_id = ?1
           AND NOT EXISTS (SELECT 1 FROM claims c JOIN articles a ON a.id = c.article_id
                           WHERE a.source_id = ?1 AND c.quote = citations.quote)
           AND NOT EXISTS (SELECT 1 FROM claim_sources cs
                           JOIN page_claims c ON c.id = cs.claim_id
                           WHERE cs.source_id = ?1 AND c.quote = citations.quote)",
        )?
        .execute([source])?;
    Ok(gone)
}
