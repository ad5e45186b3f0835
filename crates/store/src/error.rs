//! The store's error type.

use std::path::PathBuf;

use super::{JobId, PageId, SourceId};

/// Everything that can go wrong in the store. Messages say what failed and where.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The directory that should hold the database could not be created.
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// The database file could not be opened or configured.
    #[error("cannot open the database {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// An applied migration no longer matches the file embedded in this build.
    #[error(
        "migration {name} was changed after it was applied to {location} \
         (recorded checksum {recorded}, this build has {embedded}); \
         restore the original file and put the change in a new migration"
    )]
    MigrationChanged {
        /// The migration file name, e.g. `0001_init.sql`.
        name: String,
        /// Where the database lives.
        location: String,
        /// The checksum recorded when it was applied.
        recorded: String,
        /// The checksum of the embedded file.
        embedded: String,
    },
    /// The database has a migration this build does not know: it was written by a newer
    /// WikiMind.
    #[error(
        "the database {location} has schema migration {version} ({name}), which this build \
         does not know (it knows up to {known}); it was written by a newer WikiMind — upgrade"
    )]
    NewerSchema {
        /// Where the database lives.
        location: String,
        /// The unknown applied version.
        version: i64,
        /// The recorded file name of that version.
        name: String,
        /// The newest version this build knows.
        known: i64,
    },
    /// A migration failed to apply; the database stays at the previous version.
    #[error("migration {name} failed on {location}: {source}")]
    Migration {
        /// The migration file name.
        name: String,
        /// Where the database lives.
        location: String,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// The copy of the database kept before an upgrade could not be written; nothing was
    /// upgraded.
    #[error("cannot keep a copy of {location} at {path} before upgrading it: {source}; nothing was changed")]
    Backup {
        /// Where the copy was to be.
        path: PathBuf,
        /// Where the database lives.
        location: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// A table rebuild would have left rows pointing at nothing; it was rolled back and
    /// the database stays at the previous version.
    #[error(
        "migration {name} was rolled back on {location}: it would leave {count} row(s) \
         pointing at nothing ({examples}); nothing was changed"
    )]
    MigrationBrokeReferences {
        /// The migration file name.
        name: String,
        /// Where the database lives.
        location: String,
        /// How many rows would dangle.
        count: usize,
        /// A few of them (`table row id → parent table`).
        examples: String,
    },
    /// No source has this id.
    #[error("source {0} does not exist")]
    SourceNotFound(SourceId),
    /// No job has this id.
    #[error("job {0} does not exist")]
    JobNotFound(JobId),
    /// No page has this id.
    #[error("page {0} does not exist")]
    PageNotFound(PageId),
    /// The page has no such version.
    #[error("page {page} has no version {version} (its history lists the versions it has)")]
    PageVersionNotFound {
        /// The page.
        page: PageId,
        /// The version asked for.
        version: u32,
    },
    /// A person's change the wiki cannot take (a claim too long, a name another page has,
    /// a suggestion that is not there); the message says what and why.
    #[error("{0}")]
    Refused(String),
    /// A compile result whose title is empty after trimming cannot be stored.
    #[error("the article for source {0} has an empty title")]
    EmptyTitle(SourceId),
    /// A JSON column could not be written or read.
    #[error("cannot encode or decode the JSON column {column}: {source}")]
    Json {
        /// The column.
        column: &'static str,
        /// The serde error.
        source: serde_json::Error,
    },
    /// A query failed.
    #[error("database error while {action} in {location}: {source}")]
    Database {
        /// What the store was doing, e.g. `saving the article for source 3`.
        action: String,
        /// Where the database lives.
        location: String,
        /// The SQLite error.
        source: rusqlite::Error,
    },
}

/// The store's result type.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl From<rusqlite::Error> for StoreError {
    /// A bare SQLite error; [`super::Store`] fills in the action and location before it
    /// reaches a caller.
    fn from(source: rusqlite::Error) -> Self {
        StoreError::Database {
            action: String::new(),
            location: String::new(),
            source,
        }
    }
}

impl StoreError {
    /// Names the action and location of a bare database error; other errors pass through.
    pub(crate) fn within(self, action: impl FnOnce() -> String, location: &str) -> StoreError {
        match self {
            StoreError::Database {
                action: a,
                location: l,
                source,
            } if a.is_empty() => StoreError::Database {
                action: action(),
                location: if l.is_empty() { location.to_owned() } else { l },
                source,
            },
            other => other,
        }
    }
}
