//! SQLite store: connection setup, migrations, sources, digests (articles), pages, links,
//! compile log, jobs, watched folders.
//!
//! Its files are cut by layer, lowest first (`scripts/check-store-layers.py` keeps it so):
//! the root helpers (the clock, errors, ids, the JSON column codec, the pure page policy);
//! `tables/`, one file per table, none calling another; `read/`, reads that join tables;
//! `tx/`, the cross-table transactions (save a digest, feed pages, write or edit or merge a
//! page, remove a source, the job queue); `backfills/`, data changes made with today's
//! rules; and `migrate/`, the runner with its Rust steps and the frozen rules they applied,
//! which calls no live code.
//!
//! The store owns every line of SQL in WikiMind; callers see typed methods and typed
//! values. One [`Store`] wraps one connection behind a mutex, so it is `Send + Sync` and
//! can be shared through an `Arc` by concurrent tasks: every method is synchronous and
//! short, and a multi-step write is one transaction. Other processes on the same file
//! wait up to five seconds for a lock (`busy_timeout`).
//!
//! Titles, concept names and link targets are matched by one key, [`page_key`] (every
//! spelling of a topic shares it: case, accents, apostrophes and regular plurals do not
//! count), computed in Rust and stored next to the name (`title_norm`, `name_norm`,
//! `target_norm`, `target_key`), because SQLite's `lower()` only folds ASCII.

#![deny(missing_docs)]

mod backfills;
mod clock;
mod error;
mod functions;
mod ids;
mod json;
mod migrate;
mod owner;
mod policy;
mod read;
mod tables;
mod tx;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

pub use backfills::{
    CitedBatch, GroundedClaim, NameRules, NamesCleanup, SourceMetadata, SourceRow,
};
pub use error::{Result, StoreError};
pub use ids::{
    ArticleId, AuthorKind, JobId, JobState, JobTarget, PageId, PageKind, PersonChange, SourceId,
    SourceKind, SourceStatus,
};
pub use migrate::{Migration, RustStep, Step, Upgrade, MIGRATIONS};
pub use owner::JobOwner;
pub use read::ask::{FoundPage, QueryTerm, COMMON_PAGES};
pub use read::digests::{
    ArticleDetail, ArticleSort, ArticleSource, ArticleSummary, Backlink, ClaimCounts, OutgoingLink,
    WantedPage, MATCH_END, MATCH_START, MAX_QUERY_TERMS, SEARCH_LIMIT,
};
pub use read::graph::{GraphLink, GraphLinks, GraphPage};
pub use read::pages::{PageCounts, PageHit, SEARCH_CANDIDATES};
pub use read::passages::PassageIndex;
pub use tables::citations::Citation;
pub use tables::claims::ClaimTable;
pub use tables::compilations::{CompilationRow, CompileOutcome, CompileRecord};
pub use tables::graph::{GraphLayoutFigures, GraphNodeRow, GraphState};
pub use tables::pages::{
    NewLink, Page, PageBacklink, PageClaim, PageContent, PageDigest, PageLink, PageSummary,
};
pub use tables::source_pages::{page_at, SourcePage};
pub use tables::sources::{IngestOutcome, Landed, NewSource, Source, SourceSummary};
pub use tables::watch::{FileSourceRow, SourceMove, WatchLease};
pub use tx::answer::{AnswerPage, SavedAnswer};
pub use tx::bulk::{BulkSeed, Seeded};
pub use tx::digest::{SaveArticle, SavedArticle};
pub use tx::feed::AskedPage;
pub use tx::identity::{NoteRetitle, Retitled};
pub use tx::jobs::{Job, JobEnd, JobSettings};
pub use tx::lint::{
    BehindPage, HealthRun, LinkCounts, LintBody, LintPage, PageName, RecheckClaim,
    ReingestedSource, UnresolvedLink,
};
pub use tx::merge::{MergeOutcome, MergedPage};
pub use tx::page_write::{FeedingDigest, PageMaterial};
pub use tx::versions::{ClaimLeft, PageVersion, PageVersionInfo, Reground};
pub use tx::writing::{claim_hash, EditSaved, Suggestion, WhichClaim, MAX_PERSON_CLAIM_CHARS};

/// The database file name inside a data directory.
pub const DATABASE_FILE: &str = "wikimind.db";

/// How long a connection waits for another process's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The current time as stored in every timestamp column (UTC, ISO-8601, milliseconds).
pub(crate) const NOW: &str = clock::now_sql!();

/// The WikiMind database: one SQLite connection, migrated on open.
pub struct Store {
    conn: Mutex<Connection>,
    location: String,
    /// `pages.min_sources`: how many sources' digests must name a concept or link target
    /// for it to have a page of its own (see [`Store::set_min_sources`]).
    min_sources: std::sync::atomic::AtomicU32,
    /// What opening did to a database of an older build (see [`Store::upgrade`]).
    upgrade: Option<Upgrade>,
}

pub use clock::{Clock, ManualClock, SystemClock};

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database file at `path`, creating its parent
    /// directory, and applies pending migrations.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let open_error = |source| StoreError::Open {
            path: PathBuf::from(path),
            source,
        };
        let conn = Connection::open(path).map_err(open_error)?;
        configure(&conn, true).map_err(open_error)?;
        Store::migrated(conn, path.display().to_string())
    }

    /// Opens (creating if needed) [`DATABASE_FILE`] inside the data directory `dir`.
    pub fn open_data_dir(dir: &Path) -> Result<Store> {
        Store::open(&dir.join(DATABASE_FILE))
    }

    /// Opens a fresh database in memory (for tests and throwaway runs).
    pub fn open_in_memory() -> Result<Store> {
        let open_error = |source| StoreError::Open {
            path: PathBuf::from(":memory:"),
            source,
        };
        let conn = Connection::open_in_memory().map_err(open_error)?;
        configure(&conn, false).map_err(open_error)?;
        Store::migrated(conn, ":memory:".to_owned())
    }

    fn migrated(mut conn: Connection, location: String) -> Result<Store> {
        clock::register(&conn, Arc::new(SystemClock))
            .and_then(|()| functions::register(&conn))
            .map_err(|source| StoreError::Open {
                path: PathBuf::from(&location),
                source,
            })?;
        let upgrade = migrate::apply(&mut conn, &location, MIGRATIONS)?;
        Ok(Store {
            conn: Mutex::new(conn),
            location,
            min_sources: std::sync::atomic::AtomicU32::new(DEFAULT_MIN_SOURCES),
            upgrade,
        })
    }

    /// This store, reading every time it writes from `clock` instead of the system's (a
    /// test moves a [`ManualClock`] rather than sleeping).
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Result<Store> {
        clock::register(&self.lock(), clock).map_err(|e| {
            StoreError::from(e).within(|| "setting the clock".to_owned(), &self.location)
        })?;
        Ok(self)
    }

    /// Sets how many sources' digests must name a concept or link target before it gets a
    /// page of its own (`pages.min_sources`, at least 1). A page none of whose digests'
    /// titles name it is removed when fewer sources than this name it.
    pub fn set_min_sources(&self, n: u32) {
        self.min_sources
            .store(n.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// `pages.min_sources` as set by [`Store::set_min_sources`].
    pub fn min_sources(&self) -> u32 {
        self.min_sources.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The upgrade opening made, when the database was an older build's: the versions, and
    /// where the copy of the old database is. The shells say so.
    pub fn upgrade(&self) -> Option<&Upgrade> {
        self.upgrade.as_ref()
    }

    /// Where the database lives (a file path, or `:memory:`).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Locks the connection. A panic in another thread while it held the lock cannot
    /// leave a half-written transaction behind (rusqlite rolls back on drop), so a
    /// poisoned lock is taken over rather than propagated.
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs a read (or a single statement) on the connection.
    fn read<T>(
        &self,
        action: impl FnOnce() -> String,
        body: impl FnOnce(&Connection) -> Result<T>,
    ) -> Result<T> {
        let conn = self.lock();
        body(&conn).map_err(|e| e.within(action, &self.location))
    }

    /// Runs `body` in one immediate transaction: all of it is written or none of it.
    fn write<T>(
        &self,
        action: impl FnOnce() -> String,
        body: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut conn = self.lock();
        let run = |conn: &mut Connection| -> Result<T> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = body(&tx)?;
            tx.commit()?;
            Ok(value)
        };
        run(&mut conn).map_err(|e| e.within(action, &self.location))
    }
}

/// The one place that configures a connection.
fn configure(conn: &Connection, file: bool) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    if file {
        // Returns the resulting mode; a file database always accepts WAL.
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// How many sources' digests must name a concept or link target before it gets a page of its
/// own, until [`Store::set_min_sources`] says otherwise (the default of `pages.min_sources`).
pub const DEFAULT_MIN_SOURCES: u32 = 2;

pub use wikimind_text::hash::{content_hash, hex};
pub use wikimind_text::key::page_key;

#[cfg(test)]
mod tests;
