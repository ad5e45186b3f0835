//! What a person writes on a page, and how it survives the model's rewrites.
//!
//! - **Edits** ([`Store::edit_page`]): a new body, saved as a version the person wrote. An
//!   edit names the version it was made on; when a newer version landed meanwhile, the edit
//!   is merged into it section by section ([`wikimind_text::markdown::merge_sections`], the
//!   person's side winning a conflict, the newer text kept as a suggestion) instead of
//!   overwriting it, and the outcome says so.
//! - **Rewrites** ([`carry_person_layer`], called when the model saves a page): the model
//!   always writes from the last version it wrote, and that version is saved as it wrote
//!   it. When the page holds a person's work (a body that differs from the last compiled
//!   one, claims they wrote or removed), a second version follows: the three-way section
//!   merge of the last compiled body (base), the person's (mine) and the new one (theirs),
//!   with the person's claims carried and the removed ones left out.
//! - **Suggestions** ([`Store::page_suggestions`]): the model's text of a section both
//!   sides changed in conflicting ways; accepting one puts it in place of the section.
//! - **Claims**: a person's claim ([`Store::add_person_claim`]) is never `sourced` and
//!   grounds nothing; a removed claim ([`Store::remove_page_claim`]) is remembered by a hash
//!   of its normalised text, so it stays removed when a rewrite brings it back.
//! - **Renames** ([`Store::rename_page`]): the old title stays as an alias, so links to it
//!   resolve and digests still titled by it feed the page.
//! - **Revert** ([`Store::revert_to_compiled`]): the last compiled version again, the
//!   person's edits, claims and removals dropped.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use wikimind_contract::{CheckedClaim, Confidence};
use wikimind_text::markdown::{merge_sections, sections, wiki_links};

use crate::tables::pages::NewLink;
use crate::tables::pages::{current_content, PageClaim, PageContent};
use crate::tx::versions::last_compiled_version;
use crate::tx::versions::{version_in, write_version, Author};
use crate::{page_key, AuthorKind, PageId, PersonChange, Result, Store, StoreError};

/// Which claim of a page a change is about: its number as the page lists it (from 1, what
/// `wikimind claim rm TITLE N` takes), or its [`claim_hash`] (what the window sends, so a
/// rewrite between showing the page and the click can never move the change onto another
/// claim).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhichClaim<'a> {
    /// The claim at this place in the page's list, from 1.
    Number(usize),
    /// The claim whose text has this [`claim_hash`].
    Hash(&'a str),
}

impl std::fmt::Display for WhichClaim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhichClaim::Number(n) => write!(f, "{n}"),
            WhichClaim::Hash(h) => write!(f, "{h}"),
        }
    }
}

/// The longest claim a person may add, in characters.
pub const MAX_PERSON_CLAIM_CHARS: usize = 2_000;

/// A section's text the model wrote that conflicts with a person's edit of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Its id (for accept and dismiss).
    pub id: i64,
    /// The section's heading as the person has it (`""`: the text before the first
    /// heading).
    pub section: String,
    /// The model's whole section, heading line included.
    pub text: String,
    /// The model's version it comes from.
    pub version: u32,
}

/// What saving an edit did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditSaved {
    /// The page's version now.
    pub version: u32,
    /// Whether anything changed (an edit that changes nothing writes no version).
    pub changed: bool,
    /// Whether the edit was made on an older version and merged into the newer one.
    pub merged: bool,
    /// How many sections of the newer version conflicted with the edit: the edit's text
    /// was kept and the newer text became a suggestion.
    pub suggestions: usize,
}

/// The hash a claim is remembered by: of its topic key (case, diacritics, plurals and
/// spacing aside).
pub fn claim_hash(claim: &str) -> String {
    wikimind_text::hash::content_hash(&wikimind_text::key::topic_key(claim))
}

/// The links a body a person wrote holds, in order.
fn body_links(body: &str) -> Vec<NewLink> {
    wiki_links(body)
        .into_iter()
        .map(|link| NewLink {
            target: link.target,
            context: link.context,
        })
        .collect()
}

fn page_version(conn: &Connection, page: PageId) -> Result<u32> {
    conn.prepare_cached("SELECT version FROM pages WHERE id = ?1")?
        .query_row([page], |row| row.get(0))
        .optional()?
        .ok_or(StoreError::PageNotFound(page))
}

fn removed_hashes(conn: &Connection, page: PageId) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT claim_hash FROM page_claim_removals WHERE page_id = ?1")?;
    let rows = stmt.query_map([page], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Stores `suggestions` (section, text) from the model's `version`, each replacing an
/// earlier one for the same section.
fn store_suggestions(
    conn: &Connection,
    page: PageId,
    version: u32,
    suggestions: &[wikimind_text::markdown::SectionSuggestion],
) -> Result<()> {
    for s in suggestions {
        conn.prepare_cached("DELETE FROM page_suggestions WHERE page_id = ?1 AND section = ?2")?
            .execute(params![page, s.section])?;
        conn.prepare_cached(
            "INSERT INTO page_suggestions (page_id, section, text, version)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![page, s.section, s.text, version])?;
    }
    Ok(())
}

/// After the model saved `new` as version `model_version` of `page`, whose current content
/// was `mine` and whose last compiled content was `base` (both before the save), writes the
/// person's work over it as a further version when there is any (see the module
/// documentation). Returns that version's number, `None` when the page held no person's
/// work.
pub(crate) fn carry_person_layer(
    conn: &Connection,
    page: PageId,
    model_version: u32,
    new: &PageContent,
    base: Option<&PageContent>,
    mine: &PageContent,
) -> Result<Option<u32>> {
    let removed = removed_hashes(conn, page)?;
    let person_claims: Vec<PageClaim> = mine
        .claims
        .iter()
        .filter(|c| c.author == AuthorKind::Person)
        .cloned()
        .collect();
    let base_body = base.map_or("", |b| b.body.as_str());
    let edited = base.is_some() && mine.body.trim_end() != base_body.trim_end();
    if !edited && person_claims.is_empty() && removed.is_empty() {
        return Ok(None);
    }
    let mut merged = new.clone();
    if edited {
        let merge = merge_sections(base_body, &mine.body, &new.body);
        store_suggestions(conn, page, model_version, &merge.suggestions)?;
        merged.links = body_links(&merge.body);
        merged.body = merge.body;
    }
    merged
        .claims
        .retain(|c| !removed.contains(&claim_hash(&c.claim.claim)));
    for claim in person_claims {
        if !merged
            .claims
            .iter()
            .any(|c| claim_hash(&c.claim.claim) == claim_hash(&claim.claim.claim))
        {
            merged.claims.push(claim);
        }
    }
    if merged == *new {
        return Ok(None);
    }
    Ok(Some(write_version(
        conn,
        page,
        &merged,
        Author::Person(PersonChange::Kept),
        None,
    )?))
}

/// Carries the person's work on page `from` into page `into`, as a merge of the two needs:
/// the sections of `from`'s body that are the person's (not as the model last wrote them)
/// end `into`'s body, unless `into` has a section of that heading already (then the
/// person's text comes in as a suggestion for it); the claims they wrote are added; the
/// claims they removed and the suggestions waiting move. Writes a version of `into` by the
/// person when its content changed. Returns whether anything was carried.
pub(crate) fn carry_into(conn: &Connection, from: PageId, into: PageId) -> Result<bool> {
    let Some(theirs) = current_content(conn, from)? else {
        return Ok(false);
    };
    let compiled = last_compiled_version(conn, from)?.map(|(_, c)| c.body);
    let compiled_sections: Vec<String> = compiled
        .as_deref()
        .map(|b| {
            sections(b)
                .iter()
                .map(|s| s.text.trim_end().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut target = current_content(conn, into)?.ok_or(StoreError::PageNotFound(into))?;
    let original = target.clone();
    let version = page_version(conn, into)?;
    let have: Vec<String> = sections(&target.body)
        .iter()
        .map(|s| s.name().to_lowercase())
        .collect();
    let mut body = target.body.trim_end().to_owned();
    let mut suggestions = Vec::new();
    let mut carried = false;
    for section in sections(&theirs.body) {
        if compiled_sections.contains(&section.text.trim_end().to_owned()) {
            continue;
        }
        carried = true;
        if section.heading.is_some() && have.contains(&section.name().to_lowercase()) {
            suggestions.push(wikimind_text::markdown::SectionSuggestion {
                section: section.name().to_owned(),
                text: section.text.trim_end().to_owned(),
            });
            continue;
        }
        if !body.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(section.text.trim_end());
    }
    store_suggestions(conn, into, version, &suggestions)?;
    for claim in theirs
        .claims
        .iter()
        .filter(|c| c.author == AuthorKind::Person)
    {
        let hash = claim_hash(&claim.claim.claim);
        if !target
            .claims
            .iter()
            .any(|c| claim_hash(&c.claim.claim) == hash)
        {
            target.claims.push(claim.clone());
            carried = true;
        }
    }
    let moved = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO page_claim_removals (page_id, claim_hash, claim, removed_at)
         SELECT ?2, claim_hash, claim, removed_at FROM page_claim_removals WHERE page_id = ?1",
        )?
        .execute(params![from, into])?;
    let removed = removed_hashes(conn, into)?;
    target.claims.retain(|c| {
        c.author == AuthorKind::Person || !removed.contains(&claim_hash(&c.claim.claim))
    });
    let moved_suggestions = conn
        .prepare_cached("UPDATE page_suggestions SET page_id = ?2 WHERE page_id = ?1")?
        .execute(params![from, into])?;
    body.push('\n');
    if body.trim_end() != target.body.trim_end() {
        target.links = body_links(&body);
        target.body = body;
    }
    if target != original {
        write_version(
            conn,
            into,
            &target,
            Author::Person(PersonChange::Merged),
            None,
        )?;
    }
    Ok(carried || moved > 0 || moved_suggestions > 0 || !suggestions.is_empty())
}

impl Store {
    /// Saves `body` as the body of page `id`, an edit made on version `on_version`: a new
    /// version the person wrote, its links read from the body. When a newer version landed
    /// meanwhile, the edit is merged into it section by section (the edit winning
    /// conflicts, whose newer text becomes a suggestion).
    pub fn edit_page(&self, id: PageId, on_version: u32, body: &str) -> Result<EditSaved> {
        self.write(
            || format!("saving an edit of page {id}"),
            |tx| {
                let version = page_version(tx, id)?;
                let mut current = current_content(tx, id)?.ok_or(StoreError::PageNotFound(id))?;
                let (body, merged, suggestions) = if on_version == version {
                    (body.to_owned(), false, 0)
                } else {
                    let base = version_in(tx, id, on_version)?
                        .ok_or(StoreError::PageVersionNotFound {
                            page: id,
                            version: on_version,
                        })?
                        .content;
                    let merge = merge_sections(&base.body, body, &current.body);
                    store_suggestions(tx, id, version, &merge.suggestions)?;
                    (merge.body, true, merge.suggestions.len())
                };
                if body.trim_end() == current.body.trim_end() {
                    return Ok(EditSaved {
                        version,
                        changed: false,
                        merged,
                        suggestions,
                    });
                }
                current.links = body_links(&body);
                current.body = body;
                let version =
                    write_version(tx, id, &current, Author::Person(PersonChange::Edited), None)?;
                Ok(EditSaved {
                    version,
                    changed: true,
                    merged,
                    suggestions,
                })
            },
        )
    }

    /// The suggestions waiting on page `id`, oldest first.
    pub fn page_suggestions(&self, id: PageId) -> Result<Vec<Suggestion>> {
        self.read(
            || format!("reading the suggestions of page {id}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, section, text, version FROM page_suggestions
                     WHERE page_id = ?1 ORDER BY id",
                )?;
                let rows = stmt.query_map([id], |row| {
                    Ok(Suggestion {
                        id: row.get(0)?,
                        section: row.get(1)?,
                        text: row.get(2)?,
                        version: row.get(3)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Accepts suggestion `suggestion` of page `id`: its text takes the place of the
    /// section it names (or ends the body, when the person has no such section any more),
    /// as a new version the person wrote. Returns that version's number.
    pub fn accept_suggestion(&self, id: PageId, suggestion: i64) -> Result<u32> {
        self.write(
            || format!("accepting suggestion {suggestion} of page {id}"),
            |tx| {
                let (section, text) = take_suggestion(tx, id, suggestion)?;
                let mut current = current_content(tx, id)?.ok_or(StoreError::PageNotFound(id))?;
                let parts = sections(&current.body);
                let at = parts.iter().position(|s| s.name() == section);
                let mut body = String::new();
                for (i, part) in parts.iter().enumerate() {
                    if Some(i) == at {
                        body.push_str(text.trim_end());
                        body.push_str("\n\n");
                    } else {
                        body.push_str(part.text);
                    }
                }
                if at.is_none() {
                    if !body.trim().is_empty() {
                        body = format!("{}\n\n", body.trim_end());
                    }
                    body.push_str(text.trim_end());
                }
                current.body = format!("{}\n", body.trim_end());
                current.links = body_links(&current.body);
                write_version(
                    tx,
                    id,
                    &current,
                    Author::Person(PersonChange::Accepted),
                    None,
                )
            },
        )
    }

    /// Dismisses suggestion `suggestion` of page `id`.
    pub fn dismiss_suggestion(&self, id: PageId, suggestion: i64) -> Result<()> {
        self.write(
            || format!("dismissing suggestion {suggestion} of page {id}"),
            |tx| take_suggestion(tx, id, suggestion).map(|_| ()),
        )
    }

    /// Adds a claim a person wrote to page `id` (after its claims): never `sourced`, no
    /// quote, grounds nothing; it is carried into every version the model writes after.
    /// Returns the new version's number.
    pub fn add_person_claim(&self, id: PageId, text: &str) -> Result<u32> {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() || text.chars().count() > MAX_PERSON_CLAIM_CHARS {
            return Err(StoreError::Refused(format!(
                "a claim holds 1 to {MAX_PERSON_CLAIM_CHARS} characters"
            )));
        }
        self.write(
            || format!("adding a claim to page {id}"),
            |tx| {
                let mut current = current_content(tx, id)?.ok_or(StoreError::PageNotFound(id))?;
                let hash = claim_hash(&text);
                tx.prepare_cached(
                    "DELETE FROM page_claim_removals WHERE page_id = ?1 AND claim_hash = ?2",
                )?
                .execute(params![id, hash])?;
                current.claims.push(PageClaim {
                    claim: CheckedClaim {
                        claim: text.clone(),
                        confidence: Confidence::Inferred,
                        quote: None,
                        grounded: false,
                    },
                    source_ids: Vec::new(),
                    cited_page: None,
                    author: AuthorKind::Person,
                });
                write_version(
                    tx,
                    id,
                    &current,
                    Author::Person(PersonChange::ClaimAdded),
                    None,
                )
            },
        )
    }

    /// Removes claim `number` (1-based, as listed) of page `id`; a model's claim is
    /// remembered as removed, so a rewrite that brings it back leaves it out. Returns the
    /// new version's number and the removed claim's text.
    pub fn remove_page_claim(&self, id: PageId, which: WhichClaim<'_>) -> Result<(u32, String)> {
        self.write(
            || format!("removing claim {which} of page {id}"),
            |tx| {
                let mut current = current_content(tx, id)?.ok_or(StoreError::PageNotFound(id))?;
                let count = current.claims.len();
                let at = match which {
                    WhichClaim::Number(number) if number == 0 || number > count => {
                        return Err(StoreError::Refused(format!(
                            "page {id} has {count} claims: there is no claim {number}"
                        )));
                    }
                    WhichClaim::Number(number) => number - 1,
                    WhichClaim::Hash(hash) => current
                        .claims
                        .iter()
                        .position(|c| claim_hash(&c.claim.claim) == hash)
                        .ok_or_else(|| {
                            StoreError::Refused(format!(
                                "page {id} no longer has that claim: it was rewritten since it \
                                 was shown; nothing was removed"
                            ))
                        })?,
                };
                let claim = current.claims.remove(at);
                let text = claim.claim.claim;
                if claim.author == AuthorKind::Model {
                    tx.prepare_cached(
                        "INSERT OR IGNORE INTO page_claim_removals (page_id, claim_hash, claim)
                         VALUES (?1, ?2, ?3)",
                    )?
                    .execute(params![id, claim_hash(&text), text])?;
                }
                let version = write_version(
                    tx,
                    id,
                    &current,
                    Author::Person(PersonChange::ClaimRemoved),
                    None,
                )?;
                Ok((version, text))
            },
        )
    }

    /// Renames page `id` to `title`: the old title becomes an alias (links to it resolve,
    /// digests titled by it still feed the page). Refused when another page has the name.
    pub fn rename_page(&self, id: PageId, title: &str) -> Result<()> {
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let key = page_key(&title);
        if key.is_empty() {
            return Err(StoreError::Refused(format!(
                "'{title}' is no page name: it has no letters or digits"
            )));
        }
        self.write(
            || format!("renaming page {id} to '{title}'"),
            |tx| {
                let (old, old_key): (String, String) = tx
                    .prepare_cached("SELECT title, title_key FROM pages WHERE id = ?1")?
                    .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()?
                    .ok_or(StoreError::PageNotFound(id))?;
                let taken: Option<String> = tx
                    .prepare_cached("SELECT title FROM pages WHERE title_key = ?1 AND id <> ?2")?
                    .query_row(params![key, id], |row| row.get(0))
                    .optional()?;
                if let Some(other) = taken {
                    return Err(StoreError::Refused(format!(
                        "a page named '{other}' exists: merge the two pages instead \
                         (wikimind merge)"
                    )));
                }
                tx.prepare_cached(
                    "DELETE FROM aliases WHERE former = 1 AND name_key = ?1 AND page_id <> ?2",
                )?
                .execute(params![key, id])?;
                tx.prepare_cached(
                    "DELETE FROM aliases WHERE page_id = ?1 AND name_key = ?2 AND former = 1",
                )?
                .execute(params![id, key])?;
                tx.prepare_cached("UPDATE pages SET title = ?2, title_key = ?3 WHERE id = ?1")?
                    .execute(params![id, title, key])?;
                if old_key != key {
                    tx.prepare_cached("DELETE FROM aliases WHERE former = 1 AND name_key = ?1")?
                        .execute([&old_key])?;
                    tx.prepare_cached(
                        "INSERT OR REPLACE INTO aliases (page_id, name, name_key, former, renamed)
                         VALUES (?1, ?2, ?3, 1, 1)",
                    )?
                    .execute(params![id, old, old_key])?;
                }
                let mut current = current_content(tx, id)?.ok_or(StoreError::PageNotFound(id))?;
                if current.title != title {
                    current.title = title.clone();
                    write_version(
                        tx,
                        id,
                        &current,
                        Author::Person(PersonChange::Renamed),
                        None,
                    )?;
                }
                Ok(())
            },
        )
    }

    /// Drops the person's work on page `id`: the last version the model wrote becomes the
    /// current one again (a new version, history keeps the rest), and the claims they
    /// removed and the suggestions waiting are forgotten. Returns the new version's number,
    /// `None` when no model wrote the page yet.
    pub fn revert_to_compiled(&self, id: PageId) -> Result<Option<u32>> {
        self.write(
            || format!("reverting page {id} to its compiled version"),
            |tx| {
                let title: String = tx
                    .prepare_cached("SELECT title FROM pages WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))
                    .optional()?
                    .ok_or(StoreError::PageNotFound(id))?;
                let Some((version, mut content)) = last_compiled_version(tx, id)? else {
                    return Ok(None);
                };
                content.title = title;
                tx.prepare_cached("DELETE FROM page_claim_removals WHERE page_id = ?1")?
                    .execute([id])?;
                tx.prepare_cached("DELETE FROM page_suggestions WHERE page_id = ?1")?
                    .execute([id])?;
                Ok(Some(write_version(
                    tx,
                    id,
                    &content,
                    Author::Person(PersonChange::Reverted),
                    Some(version),
                )?))
            },
        )
    }
}

/// Removes suggestion `suggestion` of page `page`, giving its section and text.
fn take_suggestion(conn: &Connection, page: PageId, suggestion: i64) -> Result<(String, String)> {
    let found: Option<(String, String)> = conn
        .prepare_cached(
            "SELECT section, text FROM page_suggestions WHERE id = ?1 AND page_id = ?2",
        )?
        .query_row(params![suggestion, page], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let found = found.ok_or_else(|| {
        StoreError::Refused(format!("page {page} has no suggestion {suggestion}"))
    })?;
    conn.prepare_cached("DELETE FROM page_suggestions WHERE id = ?1")?
        .execute([suggestion])?;
    Ok(found)
}

#[cfg(test)]
#[path = "writing_tests.rs"]
mod tests;
