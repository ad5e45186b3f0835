//! Migration 21: the root of each file source.
//!
//! A note is identified by its path relative to its *root*: the folder it was ingested or
//! watched from (a file ingested alone: its own folder). Up to schema version 20 that
//! folder was not stored; [`roots`] adds `sources.root` and fills it for the file sources a
//! wiki holds, as a person would expect:
//!
//! 1. a file under a watched folder has that folder as its root (the deepest one when
//!    several hold it);
//! 2. the other files share one root, the deepest folder that holds them all (before this
//!    version every file note was matched in one folder tree, so this keeps what their
//!    links resolved to); a single such file has its own folder.
//!
//! Other sources (web pages, pasted text, notes written in the app) have none. Origins are
//! canonical absolute paths; one that is not (escaped bytes, another platform's form) gets
//! its folder as written. The rule is written here, not called from today's code, so this
//! step's result never changes.

use rusqlite::{params, Transaction};

/// Adds `sources.root` and fills it (see the module documentation).
pub(crate) fn roots(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch("ALTER TABLE sources ADD COLUMN root TEXT;")?;
    let watched: Vec<String> = {
        let mut stmt = tx.prepare("SELECT path FROM watched_folders")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let files: Vec<(i64, String)> = {
        let mut stmt =
            tx.prepare("SELECT id, origin FROM sources WHERE kind = 'file' ORDER BY id")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut update = tx.prepare("UPDATE sources SET root = ?2 WHERE id = ?1")?;
    let mut rest: Vec<(i64, &str)> = Vec::new();
    for (id, origin) in &files {
        let under = watched
            .iter()
            .filter(|w| holds(w, origin))
            .max_by_key(|w| w.len());
        match under {
            Some(folder) => {
                update.execute(params![id, folder])?;
            }
            None => rest.push((*id, origin)),
        }
    }
    let common = rest
        .iter()
        .map(|(_, origin)| folder_of(origin).to_owned())
        .reduce(common_folder);
    if let Some(common) = common {
        for (id, _) in &rest {
            update.execute(params![id, common])?;
        }
    }
    Ok(())
}

/// Whether the folder `folder` holds the file `origin`.
fn holds(folder: &str, origin: &str) -> bool {
    let folder = folder.trim_end_matches('/');
    origin
        .strip_prefix(folder)
        .is_some_and(|rest| rest.starts_with('/'))
}

/// The folder part of a file's path (`/` for a file at the top; the path itself when it
/// has no `/`).
fn folder_of(origin: &str) -> &str {
    match origin.rfind('/') {
        Some(0) => "/",
        Some(at) => &origin[..at],
        None => origin,
    }
}

/// The deepest folder holding both folders `a` and `b` (`/` when only the top does).
fn common_folder(a: String, b: String) -> String {
    let shared: Vec<&str> = a
        .split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    let joined = shared.join("/");
    if joined.is_empty() {
        "/".to_owned()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::{apply, MIGRATIONS};

    /// A wiki of schema 20 with a watched folder, a folder ingested once, a pasted text and
    /// a web page gets the roots a person would expect.
    #[test]
    fn a_version_20_wiki_gets_the_root_of_each_file() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        let v20 = MIGRATIONS.iter().position(|m| m.version == 20).unwrap();
        apply(&mut conn, "test", &MIGRATIONS[..=v20]).unwrap();
        conn.execute_batch(
            "INSERT INTO watched_folders (path) VALUES ('/home/ann/watched');
             INSERT INTO sources (origin, kind, text, content_hash) VALUES
                 ('/home/ann/vault/a/Index.md', 'file', 't', 'h1'),
                 ('/home/ann/vault/b/c/Index.md', 'file', 't', 'h2'),
                 ('/home/ann/watched/x/Note.md', 'file', 't', 'h3'),
                 ('/home/ann/vault/Top.md', 'file', 't', 'h4'),
                 ('text:abc', 'text', 't', 'h5'),
                 ('https://example.org/', 'url', 't', 'h6');",
        )
        .unwrap();
        apply(&mut conn, "test", MIGRATIONS).unwrap();
        let roots: Vec<(String, Option<String>)> = {
            let mut stmt = conn
                .prepare("SELECT origin, root FROM sources ORDER BY id")
                .unwrap();
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            rows.collect::<rusqlite::Result<_>>().unwrap()
        };
        let vault = Some("/home/ann/vault".to_owned());
        assert_eq!(
            roots.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
            [
                vault.clone(),
                vault.clone(),
                Some("/home/ann/watched".to_owned()),
                vault,
                None,
                None
            ]
        );
    }

    #[test]
    fn the_deepest_folder_holding_both_is_common() {
        let common = |a: &str, b: &str| common_folder(a.to_owned(), b.to_owned());
        assert_eq!(common("/v/a", "/v/b"), "/v");
        assert_eq!(common("/v/a", "/v/a"), "/v/a");
        assert_eq!(common("/v", "/v/a/b"), "/v");
        assert_eq!(common("/v/a/b", "/v"), "/v");
        assert_eq!(common("/v/ab", "/v/ac"), "/v");
        assert_eq!(common("/x/a", "/y/a"), "/");
        assert_eq!(folder_of("/v/a.md"), "/v");
        assert_eq!(folder_of("/a.md"), "/");
        assert!(holds("/v/", "/v/a.md"));
        assert!(!holds("/v", "/vault/a.md"));
    }
}
