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
use std::ops::Range;

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

/// A page as the census holds it: its title and key are ranges of the census's [`Text`].
struct Page {
    id: PageId,
    title: Range<usize>,
    key: Range<usize>,
    topic: bool,
}

/// The titles and keys the census reads, one after another in one string: 200,000 small
/// strings each of its own allocation cost more to make, look up and free than the reads.
#[derive(Default)]
struct Text(String);

impl Text {
    /// Keeps `s`; the range to find it by.
    fn keep(&mut self, s: &str) -> Range<usize> {
        let start = self.0.len();
        self.0.push_str(s);
        start..self.0.len()
    }

    fn get(&self, range: &Range<usize>) -> &str {
        &self.0[range.clone()]
    }
}

/// Column `i` of `row` as text, borrowed.
fn str_at<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    row.get_ref(i)?.as_str().map_err(rusqlite::Error::from)
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
                let mut text = Text::default();
                let mut stmt =
                    conn.prepare_cached("SELECT id, title, title_key, kind = 'topic' FROM pages")?;
                let mut pages = Vec::new();
                let mut rows = stmt.query([])?;
                while let Some(row) = rows.next()? {
                    pages.push(Page {
                        id: row.get(0)?,
                        title: text.keep(str_at(row, 1)?),
                        key: text.keep(str_at(row, 2)?),
                        topic: row.get(3)?,
                    });
                }
                let mut stmt =
                    conn.prepare_cached("SELECT page_id, name_key FROM aliases WHERE former = 1")?;
                let mut formers: Vec<(PageId, Range<usize>)> = Vec::new();
                let mut rows = stmt.query([])?;
                while let Some(row) = rows.next()? {
                    formers.push((row.get(0)?, text.keep(str_at(row, 1)?)));
                }
                // Built with a quicker hash than the standard one: 100,000 pages and
                // 300,000 lookups (the keys are the wiki's own, hashed with a seed of
                // this run).
                let hasher = foldhash::fast::RandomState::default;
                let mut at: HashMap<PageId, usize, _> =
                    HashMap::with_capacity_and_hasher(pages.len(), hasher());
                at.extend(pages.iter().enumerate().map(|(i, p)| (p.id, i)));
                // A key's page: the one with it as its title, else the one that had it
                // as a former name.
                let mut owner: HashMap<&str, usize, _> =
                    HashMap::with_capacity_and_hasher(pages.len() + formers.len(), hasher());
                owner.extend(pages.iter().enumerate().map(|(i, p)| (text.get(&p.key), i)));
                for (page, key) in &formers {
                    if let Some(&i) = at.get(page) {
                        owner.entry(text.get(key)).or_insert(i);
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
                // A page's links are neighbours in the table: its place is looked up
                // once for them all.
                let mut last: Option<(PageId, Option<usize>)> = None;
                while let Some(row) = rows.next()? {
                    let from: PageId = row.get(0)?;
                    let from_at = match last {
                        Some((page, from_at)) if page == from => from_at,
                        _ => {
                            let from_at = at.get(&from).copied();
                            last = Some((from, from_at));
                            from_at
                        }
                    };
                    let Some(from_at) = from_at else {
                        continue;
                    };
                    let key = str_at(row, 3)?;
                    let topic = pages[from_at].topic;
                    links += u64::from(topic);
                    match owner.get(key) {
                        Some(&to) => linked[to] |= to != from_at,
                        None if topic => unresolved.push((
                            row.get(1)?,
                            UnresolvedLink {
                                page_id: from,
                                page_title: text.get(&pages[from_at].title).to_owned(),
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
                        title: text.get(&page.title).to_owned(),
                        key: text.get(&page.key).to_owned(),
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
