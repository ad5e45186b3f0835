//! The wiki as a graph, read in one go for the layout and the graph view: every page (id,
//! kind, title, the key of its name), every page link resolved as pages' links are (to the page with
//! its target's key, else to the page that had it as a former title; neither: a wanted
//! page), and the origins of the sources feeding each page (for the folder filter).

use crate::tables::graph::{changes, last_change};
use crate::tables::pages::ANSWER_KEY_PREFIX;
use crate::{PageId, PageKind, Result, Store};

/// A page as a node of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphPage {
    /// The page.
    pub id: PageId,
    /// Topic or answer.
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// The key of its name: its title's key (a saved answer's without the prefix that keeps
    /// answers' keys apart from topics'), what a link naming it would be stored by. Two
    /// nodes whose names have one key read the same to a person.
    pub name_key: String,
}

/// A page link as an edge of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphLink {
    /// The page the link is on.
    pub from: PageId,
    /// The name it gives, as written.
    pub target_title: String,
    /// The key of that name.
    pub target_key: String,
    /// The page it resolves to; `None`: a wanted page.
    pub to: Option<PageId>,
}

/// Every page and page link ([`Store::graph_links`]), or those around what changed since
/// the stored layout ([`Store::graph_links_changed`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphLinks {
    /// Every page, by id (around what changed: the pages whose links may differ).
    pub pages: Vec<GraphPage>,
    /// Every link, by page and position (around what changed: every link from or to those
    /// pages, and to the changed keys).
    pub links: Vec<GraphLink>,
    /// The last change the read took in (a row of `graph_changes`; 0: none): a layout made
    /// from this read is of the changes up to it.
    pub changes_upto: i64,
    /// Around what changed: the pages the changes touched, ascending (some may be gone);
    /// empty for every link.
    pub changed_pages: Vec<PageId>,
    /// Around what changed: the keys whose meaning may have changed, ascending (a wanted
    /// page among them may be wanted no more); empty for every link.
    pub changed_keys: Vec<String>,
}

/// A page link resolved as pages resolve it: to the page with its target's key, else to the
/// page that had it as a former title.
const RESOLVED_LINKS: &str =
    "SELECT l.page_id, l.target_title, l.target_key, COALESCE(p.id, a.page_id)
     FROM page_links l
     LEFT JOIN pages p ON p.title_key = l.target_key
     LEFT JOIN aliases a ON a.name_key = l.target_key AND a.former = 1";

fn graph_link(row: &rusqlite::Row<'_>) -> rusqlite::Result<GraphLink> {
    Ok(GraphLink {
        from: row.get(0)?,
        target_title: row.get(1)?,
        target_key: row.get(2)?,
        to: row.get(3)?,
    })
}

fn graph_page(row: &rusqlite::Row<'_>) -> rusqlite::Result<GraphPage> {
    let key: String = row.get(3)?;
    Ok(GraphPage {
        id: row.get(0)?,
        kind: row.get(1)?,
        title: row.get(2)?,
        name_key: match key.strip_prefix(ANSWER_KEY_PREFIX) {
            Some(question) => question.to_owned(),
            None => key,
        },
    })
}

impl Store {
    /// Every page and every page link, resolved (see the module documentation).
    pub fn graph_links(&self) -> Result<GraphLinks> {
        self.read(
            || "reading the graph of pages and links".to_owned(),
            |conn| {
                let changes_upto = last_change(conn)?;
                let mut stmt = conn
                    .prepare_cached("SELECT id, kind, title, title_key FROM pages ORDER BY id")?;
                let pages = stmt
                    .query_map([], graph_page)?
                    .collect::<rusqlite::Result<_>>()?;
                let mut stmt = conn
                    .prepare_cached(&format!("{RESOLVED_LINKS} ORDER BY l.page_id, l.position"))?;
                let links = stmt
                    .query_map([], graph_link)?
                    .collect::<rusqlite::Result<_>>()?;
                Ok(GraphLinks {
                    pages,
                    links,
                    changes_upto,
                    changed_pages: Vec::new(),
                    changed_keys: Vec::new(),
                })
            },
        )
    }

    /// The pages and links around what changed since the stored layout (as the rows of
    /// `graph_changes` say), in one read: the pages whose links may differ — those the
    /// changes touched, those the changed keys name (by title or former title), those
    /// linking to a changed key — with every link from or to them and every link to a
    /// changed key, resolved as [`Store::graph_links`] resolves them. Each link once, by
    /// page and position.
    pub fn graph_links_changed(&self) -> Result<GraphLinks> {
        self.read(
            || "reading the links around what changed in the graph".to_owned(),
            |conn| {
                let (changes_upto, changed_pages, changed_keys) = changes(conn)?;
                let ids = serde_json::to_string(&changed_pages).unwrap_or_default();
                let keys = serde_json::to_string(&changed_keys).unwrap_or_default();
                // The pages whose links may differ.
                let mut stmt = conn.prepare_cached(
                    "SELECT id, kind, title, title_key FROM pages WHERE id IN (
                         SELECT value FROM json_each(?1)
                         UNION SELECT p.id FROM pages p
                               WHERE p.title_key IN (SELECT value FROM json_each(?2))
                         UNION SELECT a.page_id FROM aliases a
                               WHERE a.former = 1
                                 AND a.name_key IN (SELECT value FROM json_each(?2))
                         UNION SELECT l.page_id FROM page_links l
                               WHERE l.target_key IN (SELECT value FROM json_each(?2)))
                     ORDER BY id",
                )?;
                let pages: Vec<GraphPage> = stmt
                    .query_map([&ids, &keys], graph_page)?
                    .collect::<rusqlite::Result<_>>()?;
                let around: Vec<PageId> = pages.iter().map(|p| p.id).collect();
                let around = serde_json::to_string(&around).unwrap_or_default();
                // Links from those pages, to them (by title or former title), and to the
                // changed keys.
                // Each part by its own index (a page's links by the primary key, a key's
                // by `page_links_target`), then each link by its key: no other link is read.
                let mut stmt = conn.prepare_cached(
                    "WITH chosen(page_id, position) AS (
                         SELECT page_id, position FROM page_links
                         WHERE page_id IN (SELECT value FROM json_each(?1))
                         UNION SELECT page_id, position FROM page_links
                         WHERE target_key IN (SELECT value FROM json_each(?2))
                         UNION SELECT page_id, position FROM page_links
                         WHERE target_key IN (
                             SELECT title_key FROM pages
                             WHERE id IN (SELECT value FROM json_each(?1))
                             UNION SELECT name_key FROM aliases
                             WHERE former = 1 AND page_id IN (SELECT value FROM json_each(?1))))
                     SELECT l.page_id, l.target_title, l.target_key, COALESCE(p.id, a.page_id)
                     FROM chosen c
                     JOIN page_links l ON l.page_id = c.page_id AND l.position = c.position
                     LEFT JOIN pages p ON p.title_key = l.target_key
                     LEFT JOIN aliases a ON a.name_key = l.target_key AND a.former = 1
                     ORDER BY l.page_id, l.position",
                )?;
                let links = stmt
                    .query_map([&around, &keys], graph_link)?
                    .collect::<rusqlite::Result<_>>()?;
                Ok(GraphLinks {
                    pages,
                    links,
                    changes_upto,
                    changed_pages,
                    changed_keys,
                })
            },
        )
    }

    /// The origin of each file or note source feeding a page, as `(page, origin)` pairs
    /// by page.
    pub fn page_origins(&self) -> Result<Vec<(PageId, String)>> {
        self.read(
            || "reading which notes feed each page".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT ps.page_id, s.origin FROM page_sources ps
                     JOIN sources s ON s.id = ps.source_id
                     WHERE s.kind = 'file'
                     ORDER BY ps.page_id, s.origin",
                )?;
                let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// The summary of a page (`None`: no such page).
    pub fn page_summary(&self, id: PageId) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.read(
            || format!("reading the summary of page {id}"),
            |conn| {
                Ok(conn
                    .prepare_cached("SELECT summary FROM pages WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))
                    .optional()?)
            },
        )
    }
}
