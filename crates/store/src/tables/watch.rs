//! Watched folders: the saved list, the one-watcher lease, and origin moves.
//!
//! The list is what `wikimind watch` with no folder named, and the app while it is open,
//! keep the wiki in step with. The lease makes one watcher per data dir at a time, as a
//! running job is leased ([`crate::tx::jobs`]): its owner renews a heartbeat, and another
//! process takes it over only when that owner is gone. A watched file that is renamed
//! keeps its source: [`Store::move_source`] changes the origin and records the move.

use std::time::Duration;

use rusqlite::{params, OptionalExtension};

use crate::clock::ago;
use crate::{JobOwner, Result, SourceId, SourceStatus, Store, StoreError, NOW};

/// A file source as the staleness check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSourceRow {
    /// The source.
    pub id: SourceId,
    /// Its origin (the file's canonical path).
    pub origin: String,
    /// The hash of the text it holds.
    pub content_hash: String,
    /// The file's size when it was last read (`None`: not recorded).
    pub file_size: Option<u64>,
    /// The file's modification time then, in nanoseconds since the Unix epoch.
    pub file_mtime_ns: Option<i64>,
}

/// A file source as a watcher compares it with its file: the staleness check's row, with
/// the source's status.
const FILE_SOURCE_SELECT: &str =
    "SELECT id, origin, content_hash, file_size, file_mtime_ns, status FROM sources";

fn file_source_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(FileSourceRow, SourceStatus)> {
    Ok((
        FileSourceRow {
            id: row.get(0)?,
            origin: row.get(1)?,
            content_hash: row.get(2)?,
            file_size: row
                .get::<_, Option<i64>>(3)?
                .and_then(|n| u64::try_from(n).ok()),
            file_mtime_ns: row.get(4)?,
        },
        row.get(5)?,
    ))
}

/// A recorded origin change of a source (a watched file renamed or moved). Read by tests
/// only: no caller of the store reads a source's moves yet.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceMove {
    /// The source.
    pub source_id: SourceId,
    /// Its origin before.
    pub from: String,
    /// Its origin after.
    pub to: String,
    /// When (UTC, ISO-8601).
    pub moved_at: String,
}

/// Who holds the watch lease of a data dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchLease {
    /// The process that watches.
    pub owner: JobOwner,
    /// When it last said it was alive (UTC, ISO-8601).
    pub heartbeat_at: String,
}

impl Store {
    /// The saved watched folders, by path.
    pub fn watched_folders(&self) -> Result<Vec<String>> {
        self.read(
            || "listing watched folders".to_owned(),
            |conn| {
                let mut stmt =
                    conn.prepare_cached("SELECT path FROM watched_folders ORDER BY path")?;
                let rows = stmt.query_map([], |row| row.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// Saves a folder as watched. Returns whether it was new to the list.
    pub fn add_watched_folder(&self, path: &str) -> Result<bool> {
        self.write(
            || format!("saving the watched folder {path}"),
            |tx| {
                Ok(tx
                    .prepare_cached("INSERT OR IGNORE INTO watched_folders (path) VALUES (?1)")?
                    .execute([path])?
                    > 0)
            },
        )
    }

    /// Takes a folder off the watched list (its sources stay). Returns whether it was
    /// listed.
    pub fn remove_watched_folder(&self, path: &str) -> Result<bool> {
        self.write(
            || format!("removing the watched folder {path}"),
            |tx| {
                Ok(tx
                    .prepare_cached("DELETE FROM watched_folders WHERE path = ?1")?
                    .execute([path])?
                    > 0)
            },
        )
    }

    /// Takes the watch lease for `owner`: when no one holds it, when `owner` holds it
    /// already, or when its holder is gone (its heartbeat older than `stale_after`, or
    /// `is_dead` says so). Returns `None` when `owner` now holds it, else the live holder.
    pub fn take_watch_lease(
        &self,
        owner: &JobOwner,
        stale_after: Duration,
        is_dead: &dyn Fn(&JobOwner) -> bool,
    ) -> Result<Option<WatchLease>> {
        let stale = ago(stale_after.as_secs().max(1));
        self.write(
            || "taking the watch lease".to_owned(),
            |tx| {
                let held: Option<(WatchLease, bool)> = tx
                    .query_row(
                        &format!(
                            "SELECT owner_host, owner_pid, heartbeat_at, heartbeat_at < {stale}
                             FROM watch_lease WHERE id = 1"
                        ),
                        [],
                        |row| {
                            Ok((
                                WatchLease {
                                    owner: JobOwner {
                                        host: row.get(0)?,
                                        pid: row.get(1)?,
                                    },
                                    heartbeat_at: row.get(2)?,
                                },
                                row.get(3)?,
                            ))
                        },
                    )
                    .optional()?;
                if let Some((lease, stale_now)) = held {
                    let mine = lease.owner == *owner;
                    if !mine && !stale_now && !is_dead(&lease.owner) {
                        return Ok(Some(lease));
                    }
                }
                tx.execute(
                    &format!(
                        "INSERT INTO watch_lease (id, owner_host, owner_pid, heartbeat_at, started_at)
                         VALUES (1, ?1, ?2, {NOW}, {NOW})
                         ON CONFLICT (id) DO UPDATE SET owner_host = ?1, owner_pid = ?2,
                             heartbeat_at = {NOW}, started_at = {NOW}"
                    ),
                    params![owner.host, owner.pid],
                )?;
                Ok(None)
            },
        )
    }

    /// Renews `owner`'s watch lease. Returns whether it still holds it.
    pub fn renew_watch_lease(&self, owner: &JobOwner) -> Result<bool> {
        self.write(
            || "renewing the watch lease".to_owned(),
            |tx| {
                Ok(tx.execute(
                    &format!(
                        "UPDATE watch_lease SET heartbeat_at = {NOW}
                         WHERE id = 1 AND owner_host = ?1 AND owner_pid = ?2"
                    ),
                    params![owner.host, owner.pid],
                )? > 0)
            },
        )
    }

    /// Lets go of `owner`'s watch lease (nothing when another holds it).
    pub fn release_watch_lease(&self, owner: &JobOwner) -> Result<()> {
        self.write(
            || "releasing the watch lease".to_owned(),
            |tx| {
                tx.prepare_cached(
                    "DELETE FROM watch_lease WHERE id = 1 AND owner_host = ?1 AND owner_pid = ?2",
                )?
                .execute(params![owner.host, owner.pid])?;
                Ok(())
            },
        )
    }

    /// Moves a source to a new origin (its file was renamed or moved), recording the move,
    /// in one transaction; its text, digest and pages stay. Fails when another source has
    /// that origin.
    pub fn move_source(&self, id: SourceId, to: &str) -> Result<()> {
        self.write(
            || format!("moving source {id} to {to}"),
            |tx| {
                let from: String = tx
                    .prepare_cached("SELECT origin FROM sources WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))
                    .optional()?
                    .ok_or(StoreError::SourceNotFound(id))?;
                tx.execute(
                    &format!("UPDATE sources SET origin = ?2, updated_at = {NOW} WHERE id = ?1"),
                    params![id, to],
                )?;
                tx.prepare_cached(
                    "INSERT INTO source_moves (source_id, from_origin, to_origin)
                     VALUES (?1, ?2, ?3)",
                )?
                .execute(params![id, from, to])?;
                Ok(())
            },
        )
    }

    /// The file source whose origin is `origin`, with its status.
    pub fn file_source_at(&self, origin: &str) -> Result<Option<(FileSourceRow, SourceStatus)>> {
        self.read(
            || format!("looking up the file source {origin}"),
            |conn| {
                Ok(conn
                    .query_row(
                        &format!("{FILE_SOURCE_SELECT} WHERE kind = 'file' AND origin = ?1"),
                        [origin],
                        file_source_row,
                    )
                    .optional()?)
            },
        )
    }

    /// Every file source whose origin starts with `prefix` (a folder's path and its
    /// separator: the sources under that folder, however they were ingested), by id, with
    /// their status.
    pub fn file_sources_under(&self, prefix: &str) -> Result<Vec<(FileSourceRow, SourceStatus)>> {
        self.read(
            || format!("listing the file sources under {prefix}"),
            |conn| {
                let mut stmt = conn.prepare_cached(&format!(
                    "{FILE_SOURCE_SELECT} WHERE kind = 'file'
                         AND substr(origin, 1, length(?1)) = ?1 ORDER BY id"
                ))?;
                let rows = stmt.query_map([prefix], file_source_row)?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// File source `id` as the staleness check compares it with its file (its path, text
    /// hash, and the file's size and time when read); `None` when no file source has it.
    pub fn file_source(&self, id: SourceId) -> Result<Option<FileSourceRow>> {
        self.read(
            || format!("reading file source {id}"),
            |conn| {
                Ok(conn
                    .query_row(
                        &format!("{FILE_SOURCE_SELECT} WHERE kind = 'file' AND id = ?1"),
                        [id],
                        file_source_row,
                    )
                    .optional()?
                    .map(|(row, _)| row))
            },
        )
    }

    /// The recorded origin changes of a source, oldest first (tests only, see
    /// [`SourceMove`]).
    #[cfg(test)]
    pub(crate) fn source_moves(&self, id: SourceId) -> Result<Vec<SourceMove>> {
        self.read(
            || format!("listing the moves of source {id}"),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT source_id, from_origin, to_origin, moved_at FROM source_moves
                     WHERE source_id = ?1 ORDER BY id",
                )?;
                let rows = stmt.query_map([id], |row| {
                    Ok(SourceMove {
                        source_id: row.get(0)?,
                        from: row.get(1)?,
                        to: row.get(2)?,
                        moved_at: row.get(3)?,
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NewSource, SourceKind};

    fn owner(pid: u32) -> JobOwner {
        JobOwner {
            host: "here".to_owned(),
            pid,
        }
    }

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn one_watcher_holds_the_lease_until_it_lets_go_or_dies() {
        let store = Store::open_in_memory().expect("store");
        let alive = |_: &JobOwner| false;
        assert_eq!(
            store.take_watch_lease(&owner(1), HOUR, &alive).unwrap(),
            None
        );
        assert_eq!(
            store.take_watch_lease(&owner(1), HOUR, &alive).unwrap(),
            None,
            "again"
        );
        let held = store.take_watch_lease(&owner(2), HOUR, &alive).unwrap();
        assert_eq!(held.map(|l| l.owner), Some(owner(1)));
        assert!(store.renew_watch_lease(&owner(1)).unwrap());
        assert!(!store.renew_watch_lease(&owner(2)).unwrap());
        // A holder that is gone loses it.
        let dead = |o: &JobOwner| o.pid == 1;
        assert_eq!(
            store.take_watch_lease(&owner(2), HOUR, &dead).unwrap(),
            None
        );
        assert!(!store.renew_watch_lease(&owner(1)).unwrap());
        store.release_watch_lease(&owner(1)).unwrap();
        assert!(store
            .take_watch_lease(&owner(3), HOUR, &alive)
            .unwrap()
            .is_some());
        store.release_watch_lease(&owner(2)).unwrap();
        assert_eq!(
            store.take_watch_lease(&owner(3), HOUR, &alive).unwrap(),
            None
        );
    }

    #[test]
    fn the_watched_list_keeps_each_folder_once() {
        let store = Store::open_in_memory().expect("store");
        assert!(store.add_watched_folder("/b").unwrap());
        assert!(store.add_watched_folder("/a").unwrap());
        assert!(!store.add_watched_folder("/a").unwrap());
        assert_eq!(store.watched_folders().unwrap(), ["/a", "/b"]);
        assert!(store.remove_watched_folder("/a").unwrap());
        assert!(!store.remove_watched_folder("/a").unwrap());
        assert_eq!(store.watched_folders().unwrap(), ["/b"]);
    }

    #[test]
    fn a_moved_source_keeps_its_id_and_text_and_the_move_is_recorded() {
        let store = Store::open_in_memory().expect("store");
        let new = NewSource {
            origin: "/n/a.md".to_owned(),
            kind: SourceKind::File,
            title: None,
            text: "Tea is a drink.".to_owned(),
            tags: Vec::new(),
            aliases: Vec::new(),
            root: None,
        };
        let id = store.ingest_source(&new).unwrap().source_id();
        store.move_source(id, "/n/b.md").unwrap();
        let moved = store.source(id).unwrap().unwrap();
        assert_eq!(moved.origin, "/n/b.md");
        assert_eq!(moved.text, "Tea is a drink.");
        let moves = store.source_moves(id).unwrap();
        assert_eq!(moves.len(), 1);
        assert_eq!(
            (moves[0].from.as_str(), moves[0].to.as_str()),
            ("/n/a.md", "/n/b.md")
        );
        let other = store
            .ingest_source(&NewSource {
                origin: "/n/c.md".to_owned(),
                ..new
            })
            .unwrap()
            .source_id();
        assert!(
            store.move_source(other, "/n/b.md").is_err(),
            "origins stay unique"
        );
        assert_eq!(store.source(other).unwrap().unwrap().origin, "/n/c.md");
    }
}
