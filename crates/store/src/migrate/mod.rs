//! The migrations runner.
//!
//! Migrations are append-only and applied in version order, each in its own transaction,
//! and recorded in `schema_migrations` with a checksum; on open, a recorded checksum that
//! differs from this build's is an error, and so is an applied version this build does not
//! know. A migration is one of:
//!
//! - **SQL** ([`Migration::sql`]): a file of `migrations/`, embedded by `include_str!` (so
//!   an edited file rebuilds the crate). A test checks that every file in the directory is
//!   listed in [`MIGRATIONS`], so a new file cannot be silently left out.
//! - **A table rebuild** ([`Migration::rebuild`]): a SQL file that recreates tables (SQLite
//!   cannot alter a constraint in place: create the new table, copy, drop the old one,
//!   rename). It runs with foreign keys *off*, so dropping a table never cascade-deletes
//!   the rows that point at it, and `PRAGMA foreign_key_check` must report nothing before
//!   it commits: a rebuild that would leave a dangling reference is rolled back whole.
//! - **A step in Rust** ([`Migration::rust`]): for changes SQL cannot express (a new
//!   normalisation of titles computed in Rust). It runs in the same transaction as its
//!   record, in order with the SQL files; its checksum covers its name and its declared
//!   revision, so renaming or revising a released step is caught like an edited file.

mod frozen;
mod m06_pages;
mod m08_names;
mod m20_rekey;
mod m21_roots;
mod scrub;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};
use sha2::{Digest, Sha256};

use crate::{hex, Result, StoreError};

/// When a migration applied: the system's time (the runner works on a bare connection,
/// before the store's clock is set).
const APPLIED_AT: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// A migration step written in Rust: it gets the migration's transaction.
pub type RustStep = fn(&Transaction<'_>) -> rusqlite::Result<()>;

/// What a migration does.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// Runs SQL with foreign keys on.
    Sql(&'static str),
    /// Runs SQL that rebuilds tables, with foreign keys off and checked before commit.
    Rebuild(&'static str),
    /// Runs Rust code; `revision` names the version of that code (change it never: add a
    /// new migration instead).
    Rust {
        /// The step.
        run: RustStep,
        /// A fixed label of what the step does, part of its checksum.
        revision: &'static str,
    },
}

/// One migration.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version, the number the name starts with.
    pub version: i64,
    /// The file name (`0001_init.sql`), or the step's name for a Rust step
    /// (`0003_title_keys.rs`).
    pub name: &'static str,
    /// What it does.
    pub step: Step,
}

impl Migration {
    /// A SQL migration run with foreign keys on.
    pub const fn sql(version: i64, name: &'static str, sql: &'static str) -> Migration {
        Migration {
            version,
            name,
            step: Step::Sql(sql),
        }
    }

    /// A SQL migration that rebuilds tables: run with foreign keys off, checked before
    /// commit.
    pub const fn rebuild(version: i64, name: &'static str, sql: &'static str) -> Migration {
        Migration {
            version,
            name,
            step: Step::Rebuild(sql),
        }
    }

    /// A migration step in Rust.
    pub const fn rust(
        version: i64,
        name: &'static str,
        revision: &'static str,
        run: RustStep,
    ) -> Migration {
        Migration {
            version,
            name,
            step: Step::Rust { run, revision },
        }
    }

    /// The SQL text of a SQL or rebuild migration (`None` for a Rust step).
    pub fn sql_text(&self) -> Option<&'static str> {
        match self.step {
            Step::Sql(sql) | Step::Rebuild(sql) => Some(sql),
            Step::Rust { .. } => None,
        }
    }

    /// The SHA-256 (lowercase hex) of the SQL text, or of a Rust step's name and revision.
    pub fn checksum(&self) -> String {
        match self.step {
            Step::Sql(sql) | Step::Rebuild(sql) => hex(&Sha256::digest(sql.as_bytes())),
            Step::Rust { revision, .. } => {
                hex(&Sha256::digest(format!("rust:{}:{revision}", self.name)))
            }
        }
    }

    fn foreign_keys_off(&self) -> bool {
        matches!(self.step, Step::Rebuild(_))
    }
}

/// Every migration this build knows, in the order they apply.
pub static MIGRATIONS: &[Migration] = &[
    Migration::sql(
        1,
        "0001_init.sql",
        include_str!("../../../../migrations/0001_init.sql"),
    ),
    Migration::rebuild(
        2,
        "0002_job_leases.sql",
        include_str!("../../../../migrations/0002_job_leases.sql"),
    ),
    Migration::sql(
        3,
        "0003_source_final_url.sql",
        include_str!("../../../../migrations/0003_source_final_url.sql"),
    ),
    Migration::rust(
        4,
        "0004_scrub_url_origins.rs",
        "web page origins become url_origin(origin): no credentials, no fragment; a \
         collision keeps both rows, the later as origin#source-<id>",
        scrub::scrub_url_origins,
    ),
    Migration::rebuild(
        5,
        "0005_pages.sql",
        include_str!("../../../../migrations/0005_pages.sql"),
    ),
    Migration::rust(
        6,
        "0006_pages_from_digests.rs",
        "digest titles lose the ` (N)` a collision added (the title the model asked for, from \
         the last compiled raw answer, else the suffix stripped); digests grouped by \
         page_key of the title; each group is one page with the id of its oldest digest, \
         version 1 = that digest, stale when the group has several; other spellings and \
         former titles become aliases",
        m06_pages::pages_from_digests,
    ),
    Migration::sql(
        7,
        "0007_page_writing.sql",
        include_str!("../../../../migrations/0007_page_writing.sql"),
    ),
    Migration::rust(
        8,
        "0008_digest_names.rs",
        "digest_names gets each digest's concepts and link targets by page_key (first \
         spelling per key, the digest's own title key left out); page_sources of current \
         pages, and the version-1 digest of stale ones, are marked written (written_digest \
         = the digest's updated_at, written_chars = the source text's length)",
        m08_names::names_and_written_marks,
    ),
    Migration::rebuild(
        9,
        "0009_page_jobs.sql",
        include_str!("../../../../migrations/0009_page_jobs.sql"),
    ),
    Migration::sql(
        10,
        "0010_names_generation.sql",
        include_str!("../../../../migrations/0010_names_generation.sql"),
    ),
    Migration::sql(
        11,
        "0011_asking.sql",
        include_str!("../../../../migrations/0011_asking.sql"),
    ),
    Migration::rebuild(
        12,
        "0012_sources_ids_never_reused.sql",
        include_str!("../../../../migrations/0012_sources_ids_never_reused.sql"),
    ),
    Migration::sql(
        13,
        "0013_backfills.sql",
        include_str!("../../../../migrations/0013_backfills.sql"),
    ),
    Migration::sql(
        14,
        "0014_real_notes.sql",
        include_str!("../../../../migrations/0014_real_notes.sql"),
    ),
    Migration::sql(
        15,
        "0015_lint.sql",
        include_str!("../../../../migrations/0015_lint.sql"),
    ),
    Migration::sql(
        16,
        "0016_writing.sql",
        include_str!("../../../../migrations/0016_writing.sql"),
    ),
    Migration::sql(
        17,
        "0017_watch.sql",
        include_str!("../../../../migrations/0017_watch.sql"),
    ),
    Migration::sql(
        18,
        "0018_asked_pages.sql",
        include_str!("../../../../migrations/0018_asked_pages.sql"),
    ),
    Migration::sql(
        19,
        "0019_version_changes.sql",
        include_str!("../../../../migrations/0019_version_changes.sql"),
    ),
    Migration::rust(
        20,
        "0020_one_title_key.rs",
        "articles.title_norm, concepts.name_norm and links.target_norm become page_key of \
         title, name and target_title; concepts sharing a key merge into the oldest (digests \
         keep their first position); a digest's links sharing a key merge into the first, \
         links to the digest's own key go; every link resolves again to the oldest digest \
         with its key",
        m20_rekey::one_title_key,
    ),
    Migration::rust(
        21,
        "0021_source_roots.rs",
        "sources.root added: a file source under a watched folder gets the deepest such \
         folder; the other file sources share the deepest folder holding them all; other \
         sources none",
        m21_roots::roots,
    ),
    Migration::sql(
        22,
        "0022_graph.sql",
        include_str!("../../../../migrations/0022_graph.sql"),
    ),
    Migration::sql(
        23,
        "0023_search_prefixes.sql",
        include_str!("../../../../migrations/0023_search_prefixes.sql"),
    ),
    Migration::sql(
        24,
        "0024_library_indexes.sql",
        include_str!("../../../../migrations/0024_library_indexes.sql"),
    ),
    Migration::sql(
        25,
        "0025_claims_left.sql",
        include_str!("../../../../migrations/0025_claims_left.sql"),
    ),
    Migration::sql(
        26,
        "0026_citations.sql",
        include_str!("../../../../migrations/0026_citations.sql"),
    ),
    Migration::sql(
        27,
        "0027_graph_changes.sql",
        include_str!("../../../../migrations/0027_graph_changes.sql"),
    ),
    Migration::sql(
        28,
        "0028_listing_indexes.sql",
        include_str!("../../../../migrations/0028_listing_indexes.sql"),
    ),
    Migration::sql(
        29,
        "0029_names_generations.sql",
        include_str!("../../../../migrations/0029_names_generations.sql"),
    ),
    Migration::sql(
        30,
        "0030_person_versions.sql",
        include_str!("../../../../migrations/0030_person_versions.sql"),
    ),
    Migration::sql(
        31,
        "0031_narrow_reads.sql",
        include_str!("../../../../migrations/0031_narrow_reads.sql"),
    ),
    Migration::sql(
        32,
        "0032_page_sentences.sql",
        include_str!("../../../../migrations/0032_page_sentences.sql"),
    ),
    Migration::sql(
        33,
        "0033_lint_indexes.sql",
        include_str!("../../../../migrations/0033_lint_indexes.sql"),
    ),
    Migration::sql(
        34,
        "0034_by_title_index.sql",
        include_str!("../../../../migrations/0034_by_title_index.sql"),
    ),
];

/// What opening a database of an older build did: its schema version before and after, and
/// the copy of the old database kept beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    /// The newest migration the database had.
    pub from: i64,
    /// The newest migration it has now.
    pub to: i64,
    /// The copy made before the first pending migration applied (`wikimind.db.bak-vNN`,
    /// `NN` the version it holds), `None` for a database in memory. A copy already there
    /// from an earlier attempt at the same upgrade is kept, not replaced.
    pub backup: Option<std::path::PathBuf>,
}

/// Checks the applied migrations against `known` and applies the missing ones in order.
/// Before the first pending migration of a database that has any applied, the database
/// (a file) is copied once with `VACUUM INTO` to `<file>.bak-vNN`.
pub(crate) fn apply(
    conn: &mut Connection,
    location: &str,
    known: &[Migration],
) -> Result<Option<Upgrade>> {
    let db_error = |source| StoreError::Migration {
        name: "schema_migrations".to_owned(),
        location: location.to_owned(),
        source,
    };
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             name       TEXT NOT NULL,
             checksum   TEXT NOT NULL,
             applied_at TEXT NOT NULL
         )",
    )
    .map_err(db_error)?;

    let applied: Vec<(i64, String, String)> = {
        let mut stmt = conn
            .prepare("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
            .map_err(db_error)?;
        let rows = stmt
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(db_error)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_error)?
    };

    let newest_known = known.iter().map(|m| m.version).max().unwrap_or(0);
    for (version, name, recorded) in &applied {
        let Some(migration) = known.iter().find(|m| m.version == *version) else {
            return Err(StoreError::NewerSchema {
                location: location.to_owned(),
                version: *version,
                name: name.clone(),
                known: newest_known,
            });
        };
        let embedded = migration.checksum();
        if *recorded != embedded {
            return Err(StoreError::MigrationChanged {
                name: migration.name.to_owned(),
                location: location.to_owned(),
                recorded: recorded.clone(),
                embedded,
            });
        }
    }

    let pending: Vec<&Migration> = known
        .iter()
        .filter(|m| !applied.iter().any(|(v, _, _)| *v == m.version))
        .collect();
    let Some(from) = applied.iter().map(|(v, _, _)| *v).max() else {
        // A new database: nothing to keep a copy of.
        for migration in pending {
            apply_one(conn, location, migration)?;
        }
        return Ok(None);
    };
    if pending.is_empty() {
        return Ok(None);
    }
    let backup = backup_before_upgrade(conn, location, from)?;
    for migration in pending {
        apply_one(conn, location, migration)?;
    }
    Ok(Some(Upgrade {
        from,
        to: newest_known,
        backup,
    }))
}

/// The upgrade opening the database file at `path` would make, read without changing it:
/// `None` when there is no file, it holds no migrations yet (a new database), or every
/// migration of `known` is applied. An error when the file cannot be read (opening it
/// would then say why), and [`StoreError::NewerSchema`] when a newer build wrote it.
pub(crate) fn ahead(path: &std::path::Path, known: &[Migration]) -> Result<Option<Upgrade>> {
    if !path.is_file() {
        return Ok(None);
    }
    let location = path.display().to_string();
    let db_error = |source| StoreError::Migration {
        name: "schema_migrations".to_owned(),
        location: location.clone(),
        source,
    };
    // Read-write without create: a read-only connection cannot read a WAL database whose
    // shared-memory file is gone. Nothing is written to the database: no statement may
    // (`query_only`), and closing does not checkpoint a WAL a crash left.
    let conn = Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|conn| {
        conn.busy_timeout(std::time::Duration::from_secs(1))?;
        conn.pragma_update(None, "query_only", true)?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )?;
        Ok(conn)
    })
    .map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let has_table: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations')",
            [],
            |row| row.get(0),
        )
        .map_err(db_error)?;
    if !has_table {
        return Ok(None);
    }
    let applied: Vec<(i64, String)> = {
        let mut stmt = conn
            .prepare("SELECT version, name FROM schema_migrations ORDER BY version")
            .map_err(db_error)?;
        let rows = stmt
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(db_error)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_error)?
    };
    // A newer build's database is refused before anything touches it, as opening would.
    if let Some((version, name)) = applied
        .iter()
        .find(|(version, _)| known.iter().all(|m| m.version != *version))
    {
        return Err(StoreError::NewerSchema {
            location,
            version: *version,
            name: name.clone(),
            known: known.iter().map(|m| m.version).max().unwrap_or(0),
        });
    }
    let applied: Vec<i64> = applied.into_iter().map(|(version, _)| version).collect();
    let Some(from) = applied.iter().copied().max() else {
        return Ok(None);
    };
    if known.iter().all(|m| applied.contains(&m.version)) {
        return Ok(None);
    }
    Ok(Some(Upgrade {
        from,
        to: known.iter().map(|m| m.version).max().unwrap_or(from),
        backup: Some(backup_path(&location, from)),
    }))
}

/// Where the copy of a database at `file` is kept before an upgrade from version `from`.
fn backup_path(file: &str, from: i64) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{file}.bak-v{from:02}"))
}

/// Copies the database of `conn` (a file; `None` in memory) to `<file>.bak-vNN`
/// before an upgrade from version `from`. A copy already there (an earlier attempt at the
/// same upgrade, or another process upgrading at the same time) is kept.
///
/// The copy is written under a name of this process's (`….part-PID`), made durable, then
/// given its name only if none is there (a hard link, which cannot replace a file): one cut
/// short (the app killed, the disk full) is never taken for the old database, and two
/// processes upgrading at once each keep to their own. A part an attempt left more than
/// [`STALE_PART`] ago is removed. The copy is the file as it is when the WAL holds nothing
/// the file does not (a file system copies 1.4 GB in two thirds of `VACUUM INTO`'s time,
/// and a copy-on-write one at once), else `VACUUM INTO`'s.
fn backup_before_upgrade(
    conn: &Connection,
    location: &str,
    from: i64,
) -> Result<Option<std::path::PathBuf>> {
    let Some(file) = conn.path().filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let path = backup_path(file, from);
    if path.exists() {
        return Ok(Some(path));
    }
    let part = std::path::PathBuf::from(format!("{}.part-{}", path.display(), std::process::id()));
    let io_failed = |source| StoreError::Backup {
        path: path.clone(),
        location: location.to_owned(),
        source,
    };
    let sql_failed = |source| StoreError::Migration {
        name: format!(
            "the copy of the database before the upgrade ({})",
            path.display()
        ),
        location: location.to_owned(),
        source,
    };
    remove_if_there(&part).map_err(io_failed)?;
    if !copy_as_it_is(conn, file, &part).map_err(sql_failed)? {
        conn.execute("VACUUM INTO ?1", [part.to_string_lossy().as_ref()])
            .map_err(sql_failed)?;
    }
    std::fs::File::open(&part)
        .and_then(|f| f.sync_all())
        .map_err(io_failed)?;
    match std::fs::hard_link(&part, &path) {
        Ok(()) => {}
        // Another process kept one first: its copy is the old database too.
        Err(_) if path.exists() => {}
        // A file system without hard links.
        Err(_) => std::fs::rename(&part, &path).map_err(io_failed)?,
    }
    let _ = remove_if_there(&part);
    if let Some(folder) = path.parent() {
        // The new name made durable (where a folder can be opened to sync it).
        let _ = std::fs::File::open(folder).and_then(|f| f.sync_all());
        remove_stale_parts(folder, &path);
    }
    Ok(Some(path))
}

/// How old a part of a copy must be to be taken for one an attempt left (no copy takes
/// this long: 1.4 GB takes seconds).
const STALE_PART: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes `path` if it is there.
fn remove_if_there(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Removes the parts of copies of `backup` (`….part…`) in `folder` that attempts left
/// more than [`STALE_PART`] ago; a younger one may be another process's, being written.
fn remove_stale_parts(folder: &std::path::Path, backup: &std::path::Path) {
    let Some(name) = backup.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let prefix = format!("{name}.part");
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| at.elapsed().ok())
            .is_some_and(|age| age > STALE_PART);
        if stale && entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Copies the database `file` to `to` as the file system copies it, under the write lock
/// (no commit can land meanwhile), when everything committed is in the file: its WAL was
/// checkpointed and holds nothing. False, with nothing left at `to`, when it still held
/// something (a reader kept the checkpoint from ending, or another process committed
/// since), when another process kept the write lock, or when the file system could not
/// copy it: `VACUUM INTO` copies it then.
fn copy_as_it_is(conn: &Connection, file: &str, to: &std::path::Path) -> rusqlite::Result<bool> {
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    match conn.execute_batch("BEGIN IMMEDIATE") {
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::DatabaseBusy =>
        {
            return Ok(false)
        }
        other => other?,
    }
    let wal_empty = match std::fs::metadata(format!("{file}-wal")) {
        Ok(wal) => wal.len() == 0,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    let copied = wal_empty && std::fs::copy(file, to).is_ok();
    conn.execute_batch("ROLLBACK")?;
    if !copied {
        let _ = remove_if_there(to);
    }
    Ok(copied)
}

/// Applies one migration in its own transaction (with foreign keys off around it for a
/// rebuild, restored whatever happens).
fn apply_one(conn: &mut Connection, location: &str, migration: &Migration) -> Result<()> {
    let failed = |source| StoreError::Migration {
        name: migration.name.to_owned(),
        location: location.to_owned(),
        source,
    };
    // `PRAGMA foreign_keys` is a no-op inside a transaction: it is switched before BEGIN.
    let keys_were_on: bool = conn
        .query_row("PRAGMA foreign_keys", [], |row| row.get(0))
        .map_err(failed)?;
    let switch = migration.foreign_keys_off() && keys_were_on;
    if switch {
        conn.pragma_update(None, "foreign_keys", "OFF")
            .map_err(failed)?;
    }
    let result = run_in_transaction(conn, location, migration);
    if switch {
        let restored = conn.pragma_update(None, "foreign_keys", "ON");
        if result.is_ok() {
            restored.map_err(failed)?;
        }
    }
    result
}

fn run_in_transaction(conn: &mut Connection, location: &str, migration: &Migration) -> Result<()> {
    let failed = |source| StoreError::Migration {
        name: migration.name.to_owned(),
        location: location.to_owned(),
        source,
    };
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed)?;
    // Another process may have applied it while we waited for the lock.
    let done: Option<i64> = tx
        .query_row(
            "SELECT version FROM schema_migrations WHERE version = ?1",
            [migration.version],
            |row| row.get(0),
        )
        .optional()
        .map_err(failed)?;
    if done.is_some() {
        return Ok(());
    }
    match migration.step {
        Step::Sql(sql) | Step::Rebuild(sql) => tx.execute_batch(sql).map_err(failed)?,
        Step::Rust { run, .. } => run(&tx).map_err(failed)?,
    }
    if migration.foreign_keys_off() {
        check_foreign_keys(&tx, location, migration)?;
    }
    tx.execute(
        &format!(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at)
             VALUES (?1, ?2, ?3, {APPLIED_AT})"
        ),
        (migration.version, migration.name, migration.checksum()),
    )
    .map_err(failed)?;
    tx.commit().map_err(failed)
}

/// Refuses a rebuild that left a row pointing at nothing (the transaction is then dropped,
/// which rolls it back).
fn check_foreign_keys(tx: &Transaction<'_>, location: &str, migration: &Migration) -> Result<()> {
    let failed = |source| StoreError::Migration {
        name: migration.name.to_owned(),
        location: location.to_owned(),
        source,
    };
    let mut stmt = tx.prepare("PRAGMA foreign_key_check").map_err(failed)?;
    let mut rows = stmt.query([]).map_err(failed)?;
    let mut dangling = Vec::new();
    let mut count = 0usize;
    while let Some(row) = rows.next().map_err(failed)? {
        count += 1;
        if dangling.len() < 5 {
            let table: String = row.get(0).map_err(failed)?;
            let rowid: Option<i64> = row.get(1).map_err(failed)?;
            let parent: String = row.get(2).map_err(failed)?;
            dangling.push(match rowid {
                Some(id) => format!("{table} row {id} → {parent}"),
                None => format!("{table} → {parent}"),
            });
        }
    }
    if count == 0 {
        return Ok(());
    }
    Err(StoreError::MigrationBrokeReferences {
        name: migration.name.to_owned(),
        location: location.to_owned(),
        count,
        examples: dangling.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wal_database(path: &std::path::Path) -> Connection {
        let conn = Connection::open(path).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2);")
            .unwrap();
        conn
    }

    /// With its WAL checkpointed, the file is copied as it is, every commit in it; while a
    /// reader keeps the WAL from being emptied, it is not, and the copy is left to
    /// `VACUUM INTO`.
    #[test]
    fn the_file_is_copied_as_it_is_only_when_its_wal_holds_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let conn = wal_database(&path);
        let file = path.to_str().unwrap();

        let copy = dir.path().join("copy");
        assert!(copy_as_it_is(&conn, file, &copy).unwrap());
        let rows: i64 = Connection::open(&copy)
            .unwrap()
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 2);

        // A reader in the middle of reading what the WAL holds: the checkpoint cannot empty it.
        conn.execute("INSERT INTO t VALUES (3)", []).unwrap();
        let reader = Connection::open(&path).unwrap();
        reader.execute_batch("BEGIN").unwrap();
        let seen: i64 = reader
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(seen, 3);
        conn.execute("INSERT INTO t VALUES (4)", []).unwrap();
        conn.busy_timeout(std::time::Duration::ZERO).unwrap();
        let second = dir.path().join("second");
        assert!(!copy_as_it_is(&conn, file, &second).unwrap());
        assert!(!second.exists());
        // Nothing was left open: the writer writes on.
        conn.execute("INSERT INTO t VALUES (5)", []).unwrap();

        // Another process keeps the write lock: not copied, nothing left behind.
        reader.execute_batch("COMMIT").unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let third = dir.path().join("third");
        assert!(!copy_as_it_is(&conn, file, &third).unwrap());
        assert!(!third.exists());
        other.execute_batch("ROLLBACK").unwrap();
        conn.execute("INSERT INTO t VALUES (6)", []).unwrap();
    }
}
