//! Notes that go by new titles (a note is itself: identity by path). A note whose digest
//! was titled by a name it shares with other notes (`constructor`) now goes by the title
//! that tells it apart (`Parser/constructor`), or back by its plain title when it no longer
//! shares it. [`Store::retitle_notes`] moves their digests and pages in one transaction:
//!
//! - a page fed by its title only by notes that go by new titles stays with the one whose
//!   new title is shortest (ties: byte order): it keeps its id, versions and the person's
//!   work, takes that title, and its old title stays a name of it (an alias);
//! - each other such note gets a page of its own (the digest feeds the page its new title
//!   names, made when there is none), marked stale so the next compile writes it;
//! - a page that kept or lost notes this way gets a version saying so (`split`) and is
//!   marked stale with the notes named. Nothing is deleted, no model is called.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::tables::pages::{current_content, page_key};
use crate::tx::feed::{feed_pages, mark_stale};
use crate::tx::merge::keep_former_title;
use crate::tx::versions::{write_version, Author};
use crate::{ArticleId, PageId, PersonChange, Result, SourceId, Store};

/// A note whose digest goes by another title now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteRetitle {
    /// The note's source.
    pub source: SourceId,
    /// The title it goes by now.
    pub title: String,
}

/// What [`Store::retitle_notes`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Retitled {
    /// Digests that took their note's new title.
    pub notes: usize,
    /// Pages that kept their id under a note's new title.
    pub pages_renamed: usize,
    /// Notes that left a page they shared by a name for one of their own.
    pub notes_split: usize,
}

/// A note to move, with its digest.
struct Mover {
    source: SourceId,
    article: ArticleId,
    old: String,
    new: String,
}

impl Store {
    /// Gives each of `notes` (all of the notes one page holds by a shared name should come
    /// in one call) the title it goes by now (see the module documentation). A note with no
    /// digest, or whose digest has that title already, is left alone.
    pub fn retitle_notes(&self, notes: &[NoteRetitle]) -> Result<Retitled> {
        let min_sources = self.min_sources();
        self.write(
            || format!("giving {} notes the titles they go by", notes.len()),
            |tx| retitle_in(tx, notes, min_sources),
        )
    }
}

fn retitle_in(conn: &Connection, notes: &[NoteRetitle], min_sources: u32) -> Result<Retitled> {
    let mut done = Retitled::default();
    // The notes by the page their digest's title feeds (`None`: none).
    let mut by_page: BTreeMap<Option<PageId>, Vec<Mover>> = BTreeMap::new();
    for note in notes {
        let digest: Option<(ArticleId, String)> = conn
            .prepare_cached("SELECT id, title FROM articles WHERE source_id = ?1")?
            .query_row([note.source], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let Some((article, old)) = digest else {
            continue;
        };
        if page_key(&old) == page_key(&note.title) || page_key(&note.title).is_empty() {
            continue;
        }
        let page: Option<PageId> = conn
            .prepare_cached(
                "SELECT page_id FROM page_sources WHERE source_id = ?1 AND by_title = 1
                 ORDER BY page_id LIMIT 1",
            )?
            .query_row([note.source], |row| row.get(0))
            .optional()?;
        by_page.entry(page).or_default().push(Mover {
            source: note.source,
            article,
            old,
            new: note.title.trim().to_owned(),
        });
    }
    for (page, mut movers) in by_page {
        movers.sort_by(|a, b| a.new.len().cmp(&b.new.len()).then(a.new.cmp(&b.new)));
        let Some(page) = page else {
            for mover in &movers {
                retitle_digest(conn, mover)?;
                feed_pages(
                    conn,
                    mover.source,
                    mover.article,
                    Some(&mover.new),
                    min_sources,
                )?;
                done.notes += 1;
            }
            continue;
        };
        let (title, key): (String, String) = conn
            .prepare_cached("SELECT title, title_key FROM pages WHERE id = ?1")?
            .query_row([page], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let staying: i64 = {
            let mut count = 0;
            let mut stmt = conn.prepare_cached(
                "SELECT source_id FROM page_sources WHERE page_id = ?1 AND by_title = 1",
            )?;
            let ids = stmt.query_map([page], |row| row.get::<_, SourceId>(0))?;
            for id in ids {
                let id = id?;
                if !movers.iter().any(|m| m.source == id) {
                    count += 1;
                }
            }
            count
        };
        // The page stays with the note whose new title is shortest, when no other note
        // holds it by its title and no other page has that title.
        let keeper = if staying == 0 {
            let taken: Option<PageId> = conn
                .prepare_cached("SELECT id FROM pages WHERE title_key = ?1 AND id <> ?2")?
                .query_row(params![page_key(&movers[0].new), page], |row| row.get(0))
                .optional()?;
            taken.is_none().then(|| movers.remove(0))
        } else {
            None
        };
        let mut renamed_to = None;
        if let Some(keeper) = &keeper {
            rename_in_place(conn, page, &title, &key, &keeper.new)?;
            retitle_digest(conn, keeper)?;
            done.notes += 1;
            done.pages_renamed += 1;
            renamed_to = Some(keeper.new.clone());
        }
        let mut left = Vec::new();
        for mover in &movers {
            retitle_digest(conn, mover)?;
            let own = feed_pages(
                conn,
                mover.source,
                mover.article,
                Some(&mover.new),
                min_sources,
            )?;
            if let Some(own) = own {
                mark_stale(
                    conn,
                    own,
                    &format!(
                        "its note went by '{}' with other notes that share only that name; \
                         it has a page of its own now",
                        mover.old
                    ),
                )?;
            }
            left.push(mover.new.clone());
            done.notes += 1;
            done.notes_split += 1;
        }
        if renamed_to.is_none() && left.is_empty() {
            continue;
        }
        // The page's history says what happened.
        let now_title: String = conn
            .prepare_cached("SELECT title FROM pages WHERE id = ?1")?
            .query_row([page], |row| row.get(0))?;
        if let Some(mut content) = current_content(conn, page)? {
            content.title = now_title.clone();
            write_version(
                conn,
                page,
                &content,
                Author::Person(PersonChange::Split),
                None,
            )?;
        }
        let mut reason = match &renamed_to {
            Some(new) => {
                format!("the note of '{title}' goes by '{new}' (a name other notes share)")
            }
            None => format!("notes that shared only the name '{title}' left it"),
        };
        if !left.is_empty() {
            reason.push_str(&format!(
                "; {} got pages of their own: {}",
                left.len(),
                left.join(", ")
            ));
        }
        mark_stale(conn, page, &reason)?;
    }
    Ok(done)
}

/// The digest of `mover` takes its new title.
fn retitle_digest(conn: &Connection, mover: &Mover) -> Result<()> {
    conn.prepare_cached("UPDATE articles SET title = ?2, title_norm = ?3 WHERE id = ?1")?
        .execute(params![mover.article, mover.new, page_key(&mover.new)])?;
    Ok(())
}

/// Page `page` (titled `old`, key `old_key`) takes the title `new`; `old` stays a name of it.
fn rename_in_place(
    conn: &Connection,
    page: PageId,
    old: &str,
    old_key: &str,
    new: &str,
) -> Result<()> {
    let key = page_key(new);
    if key == old_key {
        return Ok(());
    }
    conn.prepare_cached("DELETE FROM aliases WHERE former = 1 AND name_key = ?1")?
        .execute(params![key])?;
    conn.prepare_cached("UPDATE pages SET title = ?2, title_key = ?3 WHERE id = ?1")?
        .execute(params![page, new, key])?;
    keep_former_title(conn, page, old, old_key)
}
