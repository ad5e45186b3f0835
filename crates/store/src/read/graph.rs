//! The wiki as a graph, read in one go for the layout and the graph view: every page (id,
//! kind, title, the key of its name), every page link resolved as pages' links are (to the page with
//! its target's key, else to the page that had it as a former title; neither: a wanted
//! page), and the origins of the sources feeding each page (for the folder filter).

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

/// Every page and page link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphLinks {
    /// Every page, by id.
    pub pages: Vec<GraphPage>,
    /// Every link, by page and position.
    pub links: Vec<GraphLink>,
}

impl Store {
    /// Every page and every page link, resolved (see the module documentation).
    pub fn graph_links(&self) -> Result<GraphLinks> {
        self.read(
            || "reading the graph of pages and links".to_owned(),
            |conn| {
                let mut stmt =
                    conn.prepare("SELECT id, kind, title, title_key FROM pages ORDER BY id")?;
                let pages = stmt
                    .query_map([], |row| {
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
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                let mut stmt = conn.prepare(
                    "SELECT l.page_id, l.target_title, l.target_key, COALESCE(p.id, a.page_id)
                     FROM page_links l
                     LEFT JOIN pages p ON p.title_key = l.target_key
                     LEFT JOIN aliases a ON a.name_key = l.target_key AND a.former = 1
                     ORDER BY l.page_id, l.position",
                )?;
                let links = stmt
                    .query_map([], |row| {
                        Ok(GraphLink {
                            from: row.get(0)?,
                            target_title: row.get(1)?,
                            target_key: row.get(2)?,
                            to: row.get(3)?,
                        })
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                Ok(GraphLinks { pages, links })
            },
        )
    }

    /// The origin of each file or note source feeding a page, as `(page, origin)` pairs
    /// by page.
    pub fn page_origins(&self) -> Result<Vec<(PageId, String)>> {
        self.read(
            || "reading which notes feed each page".to_owned(),
            |conn| {
                let mut stmt = conn.prepare(
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
                    .query_row("SELECT summary FROM pages WHERE id = ?1", [id], |row| {
                        row.get(0)
                    })
                    .optional()?)
            },
        )
    }
}
