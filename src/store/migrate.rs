//! The migrations runner.
//!
//! Migrations are append-only SQL files in `migrations/`, embedded into the binary by
//! `include_str!` (so an edited file rebuilds the crate). A test checks that every file in
//! the directory is listed here, so a new file cannot be silently left out. Each
//! migration runs in its own transaction and is recorded in `schema_migrations` with the
//! SHA-256 of its text; on open, a recorded checksum that differs from the embedded file is
//! an error, and so is an applied version this build does not know.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use sha2::{Digest, Sha256};

use super::{hex, Result, StoreError, NOW};

/// One embedded migration.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version, the number the file name starts with.
    pub version: i64,
    /// The file name, e.g. `0001_init.sql`.
    pub name: &'static str,
    /// The SQL text.
    pub sql: &'static str,
}

impl Migration {
    /// The SHA-256 of the SQL text, lowercase hex.
    pub fn checksum(&self) -> String {
        hex(&Sha256::digest(self.sql.as_bytes()))
    }
}

/// Every migration this build knows, in the order they apply.
pub static MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "0001_init.sql",
    sql: include_str!("../../migrations/0001_init.sql"),
}];

/// Checks the applied migrations against `known` and applies the missing ones in order.
pub(crate) fn apply(conn: &mut Connection, location: &str, known: &[Migration]) -> Result<()> {
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

    for migration in known {
        let run = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Another process may have applied it while we waited for the lock.
            let done: Option<i64> = tx
                .query_row(
                    "SELECT version FROM schema_migrations WHERE version = ?1",
                    [migration.version],
                    |row| row.get(0),
                )
                .optional()?;
            if done.is_none() {
                tx.execute_batch(migration.sql)?;
                tx.execute(
                    &format!(
                        "INSERT INTO schema_migrations (version, name, checksum, applied_at)
                         VALUES (?1, ?2, ?3, {NOW})"
                    ),
                    (migration.version, migration.name, migration.checksum()),
                )?;
            }
            tx.commit()
        };
        if applied.iter().any(|(v, _, _)| *v == migration.version) {
            continue;
        }
        run(conn).map_err(|source| StoreError::Migration {
            name: migration.name.to_owned(),
            location: location.to_owned(),
            source,
        })?;
    }
    Ok(())
}
