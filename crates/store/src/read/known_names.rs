//! The names a compile prompt chooses the titles it lists from: every page's title and other
//! names with how often they are linked, every concept with how many digests use it, and
//! the generation number that says when either list changed.

use wikimind_text::names::KnownName;

use crate::{Result, Store};

/// A `(name, uses)` row as a [`KnownName`].
fn known_name(row: &rusqlite::Row<'_>) -> rusqlite::Result<KnownName> {
    Ok(KnownName::new(
        row.get::<_, String>(0)?,
        row.get::<_, i64>(1)?.max(0) as u64,
    ))
}

/// A `(name, uses, alias)` row as a [`KnownName`].
fn title_name(row: &rusqlite::Row<'_>) -> rusqlite::Result<KnownName> {
    Ok(KnownName {
        alias: row.get(2)?,
        ..known_name(row)?
    })
}

/// Where the titles' list stood when it was read: its names generation and the last page
/// and alias rows then. [`Store::title_names_since`] hands out the names made after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TitlesMark {
    /// The titles' names generation ([`Store::names_generations`]).
    pub generation: u64,
    /// The highest page id.
    pub last_page: i64,
    /// The highest alias row.
    pub last_alias: i64,
}

/// Titles and aliases as read, and where the list stood then.
#[derive(Debug, Clone, Default)]
pub struct TitleNames {
    /// The names: each page's title, then other names, flagged ([`KnownName::alias`]).
    pub names: Vec<KnownName>,
    /// Where the list stood when these were read.
    pub mark: TitlesMark,
}

/// The titles' mark now, read in the caller's snapshot.
fn titles_mark(conn: &rusqlite::Connection) -> Result<TitlesMark> {
    let (generation, last_page, last_alias): (i64, i64, i64) = conn
        .prepare_cached(
            "SELECT (SELECT titles FROM names_generation),
                    (SELECT COALESCE(MAX(id), 0) FROM pages),
                    (SELECT COALESCE(MAX(rowid), 0) FROM aliases)",
        )?
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    Ok(TitlesMark {
        generation: u64::try_from(generation).unwrap_or(0),
        last_page,
        last_alias,
    })
}

impl Store {
    /// Every topic page's title and every other name of it (alias or former title), each
    /// with how many links of other pages reach that page: what a compile prompt chooses
    /// the titles it lists from ([`wikimind_text::names::NameIndex`]). Digest titles are not
    /// listed (several digests share one page's title), nor saved answers (a question is
    /// no topic to link).
    pub fn title_names(&self) -> Result<TitleNames> {
        self.read(
            || "listing page titles".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "WITH inbound AS (
                         SELECT p.id AS page_id,
                                (SELECT COUNT(*) FROM page_links l
                                 WHERE l.page_id <> p.id
                                   AND (l.target_key = p.title_key
                                        OR l.target_key IN (SELECT a.name_key FROM aliases a
                                                            WHERE a.page_id = p.id
                                                              AND a.former = 1))) AS uses
                         FROM pages p WHERE p.kind = 'topic')
                     SELECT p.title, i.uses, 0 FROM pages p JOIN inbound i ON i.page_id = p.id
                     UNION ALL
                     SELECT a.name, i.uses, 1 FROM aliases a
                     JOIN inbound i ON i.page_id = a.page_id",
                )?;
                let rows = stmt.query_map([], title_name)?;
                let names = rows.collect::<rusqlite::Result<_>>()?;
                Ok(TitleNames {
                    names,
                    mark: titles_mark(conn)?,
                })
            },
        )
    }

    /// The names [`Store::title_names`] lists, without counting their links (each uses
    /// none): the cheap read a prompt's name index is kept current with between counts.
    pub fn title_names_uncounted(&self) -> Result<TitleNames> {
        self.read(
            || "listing page titles".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    // `CROSS JOIN`: from the aliases to their pages. SQLite chose to walk
                    // every page and look its aliases up, a lookup per page where few have
                    // any (at 100,000 pages 42 ms against 20 ms for the aliases' part).
                    "SELECT title, 0, 0 FROM pages WHERE kind = 'topic'
                     UNION ALL
                     SELECT a.name, 0, 1 FROM aliases a CROSS JOIN pages p ON p.id = a.page_id
                     WHERE p.kind = 'topic'",
                )?;
                let rows = stmt.query_map([], title_name)?;
                let names = rows.collect::<rusqlite::Result<_>>()?;
                Ok(TitleNames {
                    names,
                    mark: titles_mark(conn)?,
                })
            },
        )
    }

    /// The names made since `mark` (uncounted, as [`Store::title_names_uncounted`] lists
    /// them), when that is all that changed: the titles' generation moved by exactly the
    /// page and alias rows made after `mark`. Each insert, removal or rename of a page or
    /// alias moves it by one, so any removal or rename (or a row made and removed again)
    /// leaves it ahead of the rows and gives `None`: the whole list must be read again. A
    /// read that costs what was made since, not what the wiki holds.
    pub fn title_names_since(&self, mark: &TitlesMark) -> Result<Option<TitleNames>> {
        self.read(
            || "listing new page titles".to_owned(),
            |conn| {
                let now = titles_mark(conn)?;
                let (pages, aliases): (i64, i64) = conn
                    .prepare_cached(
                        "SELECT (SELECT COUNT(*) FROM pages WHERE id > ?1),
                                (SELECT COUNT(*) FROM aliases WHERE rowid > ?2)",
                    )?
                    .query_row([mark.last_page, mark.last_alias], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })?;
                let made = u64::try_from(pages + aliases).unwrap_or(u64::MAX);
                if now.generation.checked_sub(mark.generation) != Some(made) {
                    return Ok(None);
                }
                let mut stmt = conn.prepare_cached(
                    "SELECT title, 0, 0 FROM pages WHERE id > ?1 AND kind = 'topic'
                     UNION ALL
                     SELECT a.name, 0, 1 FROM aliases a CROSS JOIN pages p ON p.id = a.page_id
                     WHERE a.rowid > ?2 AND p.kind = 'topic'",
                )?;
                let rows = stmt.query_map([mark.last_page, mark.last_alias], title_name)?;
                let names = rows.collect::<rusqlite::Result<_>>()?;
                Ok(Some(TitleNames { names, mark: now }))
            },
        )
    }

    /// A number that changes whenever a page, alias or concept is made, renamed or removed
    /// (by any process): while it stays the same, [`Store::title_names`] and
    /// [`Store::concept_names`] list the same names (their use counts may differ).
    pub fn names_generation(&self) -> Result<u64> {
        self.read(
            || "reading the names generation".to_owned(),
            |conn| {
                let n: i64 = conn
                    .prepare_cached("SELECT n FROM names_generation")?
                    .query_row([], |row| row.get(0))?;
                Ok(u64::try_from(n).unwrap_or(0))
            },
        )
    }

    /// The names generation counted apart for the two lists: `(titles, concepts)`, where
    /// `titles` moves whenever [`Store::title_names`] may list other names (a page or an
    /// alias made, renamed or removed) and `concepts` whenever [`Store::concept_names`] may.
    /// A prompt's index over one list is read again only when its own number moved: most
    /// compiles bring a concept and change no title.
    pub fn names_generations(&self) -> Result<(u64, u64)> {
        self.read(
            || "reading the names generation".to_owned(),
            |conn| {
                let (titles, concepts): (i64, i64) = conn
                    .prepare_cached("SELECT titles, concepts FROM names_generation")?
                    .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))?;
                Ok((
                    u64::try_from(titles).unwrap_or(0),
                    u64::try_from(concepts).unwrap_or(0),
                ))
            },
        )
    }

    /// Every concept some article uses, with how many articles use it.
    pub fn concept_names(&self) -> Result<Vec<KnownName>> {
        self.read(
            || "listing concepts".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT c.name, COUNT(*) FROM concepts c
                     JOIN article_concepts ac ON ac.concept_id = c.id AND ac.named = 1
                     GROUP BY c.id",
                )?;
                let rows = stmt.query_map([], known_name)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}
