//! Lint's census of the page links, read in passes over three tables rather than a lookup
//! per link: the links that resolve to no page, the topic pages no other page links to,
//! and how many links there are.
//!
//! A link resolves as everywhere else (see the `pages` module): to the page with its
//! target's key, else to the page that had it as a title before (a former title, or an
//! alias a note declares). The same rule in SQL (a lookup of each target in the pages'
//! key and the former names' indexes) cost a random read of the links, the pages and the
//! versions for every unresolved link, and a lookup per page for the orphans: at 100,000
//! pages and 300,000 links, 0.35–0.7 s and 0.2–0.4 s of processor time in a `lint` run.
//! The census reads the same in about 0.3 s, most of it looking up 300,000 targets in
//! memory.

use std::collections::{HashMap, HashSet};

use crate::tx::lint::{sources_feeding, LinkCounts, LintPage, UnresolvedLink};
use crate::{PageId, Result, Store};

/// What lint reads of the links every run: their counts, the ones that resolve to no page,
/// and the orphan pages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkCensus {
    /// How many topic pages and links of topic pages there are.
    pub counts: LinkCounts,
    /// Every link of a topic page that resolves to no page, by page then position.
    pub unresolved: Vec<UnresolvedLink>,
    /// The topic pages no other page links to (by their title or a former name no page
    /// has as its title), by title key.
    pub orphans: Vec<LintPage>,
}

/// A page as the census holds it.
struct Page {
    id: PageId,
    title: String,
    key: String,
    topic: bool,
}

impl Store {
    /// The links' counts, the links that resolve to no page and the orphan pages, in one
    /// snapshot.
    pub fn link_census(&self) -> Result<LinkCensus> {
        self.read(
            || "counting the links and what they resolve to".to_owned(),
            |conn| {
                // Columns before the body only: one after it is read through the body's
                // overflow pages.
                let mut stmt =
                    conn.prepare_cached("SELECT id, title, title_key, kind = 'topic' FROM pages")?;
                let pages = stmt
                    .query_map([], |row| {
                        Ok(Page {
                            id: row.get(0)?,
                            title: row.get(1)?,
                            key: row.get(2)?,
                            topic: row.get(3)?,
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                let mut stmt =
                    conn.prepare_cached("SELECT page_id, name_key FROM aliases WHERE former = 1")?;
                let formers = stmt
                    .query_map([], |row| Ok((row.get::<_, PageId>(0)?, row.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<(PageId, String)>>>()?;
                let at: HashMap<PageId, usize> =
                    pages.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
                // A key's page: the one with it as its title, else the one that had it
                // as a former name.
                let mut owner: HashMap<&str, usize> = pages
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.key.as_str(), i))
                    .collect();
                for (page, key) in &formers {
                    if let Some(&i) = at.get(page) {
                        owner.entry(key.as_str()).or_insert(i);
                    }
                }
                // The links, in one pass over the table: one that resolves marks its page
                // linked (unless it is on that page), the others of topic pages are kept.
                let mut linked = vec![false; pages.len()];
                let mut links = 0_u64;
                let mut unresolved: Vec<(i64, UnresolvedLink)> = Vec::new();
                let mut stmt = conn.prepare_cached(
                    "SELECT page_id, position, target_title, target_key FROM page_links",
                )?;
                let mut rows = stmt.query([])?;
                while let Some(row) = rows.next()? {
                    let from: PageId = row.get(0)?;
                    let Some(&from_at) = at.get(&from) else {
                        continue;
                    };
                    let key = row.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
                    let topic = pages[from_at].topic;
                    links += u64::from(topic);
                    match owner.get(key) {
                        Some(&to) => linked[to] |= to != from_at,
                        None if topic => unresolved.push((
                            row.get(1)?,
                            UnresolvedLink {
                                page_id: from,
                                page_title: pages[from_at].title.clone(),
                                target_title: row.get(2)?,
                                target_key: key.to_owned(),
                                by_person: false,
                            },
                        )),
                        None => {}
                    }
                }
                unresolved.sort_unstable_by_key(|(position, l)| (l.page_id, *position));
                // The pages whose current version a person wrote (a small index: few do).
                let mut stmt = conn.prepare_cached(
                    "SELECT v.page_id FROM page_versions v INDEXED BY page_versions_by_person
                     CROSS JOIN pages p ON p.id = v.page_id AND p.version = v.version
                     WHERE v.author_kind = 'person'",
                )?;
                let by_person = stmt
                    .query_map([], |row| row.get::<_, PageId>(0))?
                    .collect::<rusqlite::Result<HashSet<PageId>>>()?;
                let unresolved = unresolved
                    .into_iter()
                    .map(|(_, mut link)| {
                        link.by_person = by_person.contains(&link.page_id);
                        link
                    })
                    .collect();
                let orphaned: Vec<&Page> = pages
                    .iter()
                    .zip(&linked)
                    .filter(|(p, l)| p.topic && !**l)
                    .map(|(p, _)| p)
                    .collect();
                let sources = sources_feeding(conn, orphaned.iter().map(|p| p.id))?;
                let mut orphans: Vec<LintPage> = orphaned
                    .into_iter()
                    .map(|page| LintPage {
                        id: page.id,
                        title: page.title.clone(),
                        key: page.key.clone(),
                        sources: sources.get(&page.id).copied().unwrap_or(0),
                    })
                    .collect();
                orphans.sort_unstable_by(|a, b| a.key.cmp(&b.key));
                Ok(LinkCensus {
                    counts: LinkCounts {
                        pages: pages.iter().filter(|p| p.topic).count() as u64,
                        links,
                    },
                    unresolved,
                    orphans,
                })
            },
        )
    }
}
