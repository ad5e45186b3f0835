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
//! values. One [`Store`] is `Send + Sync` and can be shared through an `Arc` by concurrent
//! tasks: every method is synchronous and short, and a multi-step write is one
//! transaction. It holds one writing connection behind a mutex and, for a database file,
//! read-only connections beside it (opened as reads need them, at most
//! [`MAX_IDLE_READERS`] kept), so the library, search and a page open never wait behind a
//! compile's writes: in WAL mode a read sees every write committed before it began. A
//! database in memory reads on its one connection. Other processes on the same file wait
//! up to five seconds for a lock (`busy_timeout`); so does the switch of a wiki still in a
//! rollback journal to WAL, which SQLite itself refuses at once while another holds a lock.
//!
//! Titles, concept names and link targets are matched by one key, [`page_key`] (every
//! spelling of a topic shares it: case, accents, apostrophes and regular plurals do not
//! count), computed in Rust and stored next to the name (`title_norm`, `name_norm`,
//! `target_norm`, `target_key`), because SQLite's `lower()` only folds ASCII.

#![deny(missing_docs)]

mod backfills;
mod clock;
mod error;
#[cfg(any(test, feature = "fixtures"))]
#[doc(hidden)]
pub mod fixtures;
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
    CitedBatch, CountedBatch, GroundedClaim, NameRules, NamesCleanup, PagelessPdf, SourceMetadata,
    SourceRow,
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
pub use read::known_names::{TitleNames, TitlesMark};
pub use read::pages::{PageCounts, PageHit, SEARCH_CANDIDATES};
pub use read::passages::PassageIndex;
pub use tables::citations::Citation;
pub use tables::claims::ClaimTable;
pub use tables::compilations::{CompilationRow, CompileOutcome, CompileRecord};
pub use tables::graph::{GraphLayoutFigures, GraphNodeRow, GraphState};
pub use tables::pages::{
    NewLink, Page, PageBacklink, PageClaim, PageContent, PageDigest, PageHead, PageLink,
    PageSummary,
};
pub use tables::source_pages::{page_at, SourcePage};
pub use tables::sources::{IngestOutcome, Landed, NewSource, NoteHead, Source, SourceSummary};
pub use tables::watch::{FileSourceRow, WatchLease};
pub use tx::answer::{AnswerPage, SavedAnswer};
pub use tx::bulk::{BulkSeed, Seeded};
pub use tx::digest::{SaveArticle, SavedArticle};
pub use tx::feed::AskedPage;
pub use tx::identity::{NoteRetitle, Retitled};
pub use tx::jobs::{Job, JobEnd, JobSettings};
pub use tx::lint::{
    BehindPage, HealthRun, LinkCounts, LintBody, LintPage, PageName, RecheckClaim,
    ReingestedSource, ThinPage, TopicName, UnresolvedLink,
};
pub use tx::lint_links::LinkCensus;
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

/// How many idle read connections a store keeps for the next reads (more may be open while
/// many reads run at once; those are closed when they finish).
pub const MAX_IDLE_READERS: usize = 4;

/// The WikiMind database: one writing SQLite connection, migrated on open, and read-only
/// connections beside it for a database file.
pub struct Store {
    /// Read-only connections to the same file; `None` in memory (reads use `conn`). Declared
    /// first to be closed first: the writer, closed last, checkpoints the WAL and removes it.
    readers: Option<Readers>,
    conn: Mutex<Connection>,
    /// Where `wm_now()` reads the time, on every connection.
    clock: Arc<dyn Clock>,
    /// Transactions this store committed that changed a row (see [`Store::generation`]).
    commits: std::sync::atomic::AtomicU64,
    /// A read-only connection to the file that only reads `PRAGMA data_version`, which
    /// changes when any other connection commits (this store's writer, another process).
    watch: Option<Mutex<Connection>>,
    location: String,
    /// `pages.min_sources`: how many sources' digests must name a concept or link target
    /// for it to have a page of its own (see [`Store::set_min_sources`]).
    min_sources: std::sync::atomic::AtomicU32,
    /// What opening did to a database of an older build (see [`Store::upgrade`]).
    upgrade: Option<Upgrade>,
    /// After upkeep commits ([`Store::write_upkeep`]) with nothing else between them: the
    /// generation the last one left, and the one callers still see.
    upkeep: Mutex<Option<(Generation, Generation)>>,
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
        // A newer build's database is refused before the connection below switches it to
        // WAL: the file is left exactly as that build wrote it.
        migrate::ahead(path, MIGRATIONS)?;
        let conn = Connection::open(path).map_err(open_error)?;
        configure(&conn, true).map_err(open_error)?;
        let readers = Readers {
            path: path.to_path_buf(),
            idle: Mutex::new(Vec::new()),
        };
        Store::migrated(conn, Some(readers), path.display().to_string())
    }

    /// The upgrade [`Store::open`] would make to the database file at `path`, read without
    /// changing it (what a window says while it upgrades): `None` for no file, a new
    /// database or one of this build. An error when the file cannot be read, or a newer
    /// build wrote it ([`StoreError::NewerSchema`]).
    pub fn upgrade_ahead(path: &Path) -> Result<Option<Upgrade>> {
        migrate::ahead(path, MIGRATIONS)
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
        Store::migrated(conn, None, ":memory:".to_owned())
    }

    fn migrated(mut conn: Connection, readers: Option<Readers>, location: String) -> Result<Store> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        clock::register(&conn, Arc::clone(&clock))
            .and_then(|()| functions::register(&conn))
            .map_err(|source| StoreError::Open {
                path: PathBuf::from(&location),
                source,
            })?;
        let upgrade = migrate::apply(&mut conn, &location, MIGRATIONS)?;
        let watch = match &readers {
            Some(readers) => Some(Mutex::new(
                Connection::open_with_flags(
                    &readers.path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(|source| StoreError::Open {
                    path: PathBuf::from(&location),
                    source,
                })?,
            )),
            None => None,
        };
        Ok(Store {
            commits: std::sync::atomic::AtomicU64::new(0),
            watch,
            readers,
            conn: Mutex::new(conn),
            clock,
            location,
            min_sources: std::sync::atomic::AtomicU32::new(DEFAULT_MIN_SOURCES),
            upgrade,
            upkeep: Mutex::new(None),
        })
    }

    /// This store, reading every time it writes from `clock` instead of the system's (a
    /// test moves a [`ManualClock`] rather than sleeping).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Result<Store> {
        clock::register(&self.lock(), Arc::clone(&clock)).map_err(|e| {
            StoreError::from(e).within(|| "setting the clock".to_owned(), &self.location)
        })?;
        if let Some(readers) = &self.readers {
            // Readers opened from now on register the new clock; none keeps the old one.
            readers.idle().clear();
        }
        self.clock = clock;
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

    /// Where the database is in its history of commits: two equal generations mean that
    /// nothing was committed in between, by this store, another connection or another
    /// process, but the store's own upkeep: the graph's layout, its drafts and its lease,
    /// which no cache holds, committed with nothing else between them. What a cache of
    /// something read from the store is kept under.
    pub fn generation(&self) -> Result<Generation> {
        let now = self.commit_generation()?;
        let upkeep = self.upkeep.lock().unwrap_or_else(|p| p.into_inner());
        Ok(match *upkeep {
            Some((after, seen)) if after == now => seen,
            _ => now,
        })
    }

    /// The generation with every commit counted, upkeep too.
    fn commit_generation(&self) -> Result<Generation> {
        let commits = self.commits.load(std::sync::atomic::Ordering::SeqCst);
        let data_version = match &self.watch {
            Some(watch) => {
                let conn = watch.lock().unwrap_or_else(|p| p.into_inner());
                conn.query_row("PRAGMA data_version", [], |row| row.get(0))
                    .map_err(|e| {
                        StoreError::from(e)
                            .within(|| "reading the data version".to_owned(), &self.location)
                    })?
            }
            None => 0,
        };
        Ok(Generation {
            commits,
            data_version,
        })
    }

    /// Locks the connection. A panic in another thread while it held the lock cannot
    /// leave a half-written transaction behind (rusqlite rolls back on drop), so a
    /// poisoned lock is taken over rather than propagated.
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs a read, in one snapshot, on a read-only connection beside the writer (on the one
    /// connection of a database in memory), so it waits for no write in this process. A body that writes
    /// fails ("attempt to write a readonly database"): writes go through [`Store::write`].
    fn read<T>(
        &self,
        action: impl FnOnce() -> String,
        body: impl FnOnce(&Connection) -> Result<T>,
    ) -> Result<T> {
        let Some(readers) = &self.readers else {
            let conn = self.lock();
            return body(&conn).map_err(|e| e.within(action, &self.location));
        };
        let idle = readers.idle().pop();
        let conn = match idle {
            Some(conn) => conn,
            None => match self.open_reader(&readers.path) {
                Ok(conn) => conn,
                Err(e) => return Err(StoreError::from(e).within(action, &self.location)),
            },
        };
        // One snapshot for the whole read, as on the writer, whose lock kept writes out.
        let value = conn
            .unchecked_transaction()
            .map_err(StoreError::from)
            .and_then(|snapshot| body(&snapshot));
        let mut idle = readers.idle();
        if idle.len() < MAX_IDLE_READERS {
            idle.push(conn);
        }
        drop(idle);
        value.map_err(|e| e.within(action, &self.location))
    }

    /// Opens a read-only connection to the database file at `path`, with the store's clock
    /// and SQL functions.
    fn open_reader(&self, path: &Path) -> rusqlite::Result<Connection> {
        use rusqlite::OpenFlags;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "mmap_size", MMAP_SIZE)?;
        plan_once(&conn)?;
        clock::register(&conn, Arc::clone(&self.clock))?;
        functions::register(&conn)?;
        Ok(conn)
    }

    /// Runs `body` in one immediate transaction: all of it is written or none of it.
    fn write<T>(
        &self,
        action: impl FnOnce() -> String,
        body: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut conn = self.lock();
        self.commit(&mut conn, body)
            .map_err(|e| e.within(action, &self.location))
    }

    /// `body` in one immediate transaction on the writer `conn`, committed; the store's
    /// count of commits moves when it changed a row (a poll of the queue that changed
    /// none moves no generation).
    fn commit<T>(
        &self,
        conn: &mut Connection,
        body: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let changes = conn.total_changes();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = body(&tx)?;
        tx.commit()?;
        if conn.total_changes() != changes {
            self.commits
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(value)
    }

    /// [`Store::write`] for the store's upkeep: a write to what no cache kept under a
    /// generation reads (the graph's layout, drafts and lease). When nothing else was
    /// committed between the generation before it and its own commit (by any connection or
    /// process), [`Store::generation`] goes on saying the generation before it, so what was
    /// read then stays held: a first layout of 100,000 pages commits drafts and renews its
    /// lease for a minute while the library, lint and the note index are read. Anything
    /// else committed meanwhile moves the generation as any commit does.
    fn write_upkeep<T>(
        &self,
        action: impl FnOnce() -> String,
        body: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut conn = self.lock();
        let run = |conn: &mut Connection| -> Result<T> {
            let (value, before, others_before) = self.commit(conn, |tx| {
                // The write lock is held: no other connection commits until this one has.
                Ok((body(tx)?, self.commit_generation()?, data_version(tx)?))
            })?;
            // Read before the proof that no other commit came since this one.
            let after = self.commit_generation()?;
            let alone = data_version(conn)? == others_before;
            let mut upkeep = self.upkeep.lock().unwrap_or_else(|p| p.into_inner());
            *upkeep = if !alone {
                None
            } else if after == before {
                // It changed no row: nothing moved.
                *upkeep
            } else {
                let seen = match *upkeep {
                    Some((last, seen)) if last == before => seen,
                    _ => before,
                };
                Some((after, seen))
            };
            Ok(value)
        };
        run(&mut conn).map_err(|e| e.within(action, &self.location))
    }

    /// [`Store::write`] for a write that changes nothing a cache kept under a generation
    /// holds: besides its value, the generation after it when it was the only commit since
    /// `since` (by any connection or process), so that what was read at `since` may be kept
    /// under the new one. `None` when anything else was committed meanwhile.
    fn write_keeping<T>(
        &self,
        since: Generation,
        action: impl FnOnce() -> String,
        body: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>,
    ) -> Result<(T, Option<Generation>)> {
        let mut conn = self.lock();
        let run = |conn: &mut Connection| -> Result<(T, Option<Generation>)> {
            let (value, unchanged, others_before) = self.commit(conn, |tx| {
                // The write lock is held: no other connection commits until this one has.
                let unchanged = self.generation()? == since;
                // This connection's data version moves with every other connection's commit.
                let others_before = data_version(tx)?;
                Ok((body(tx)?, unchanged, others_before))
            })?;
            // Read before the proof that no other commit came since this one: the
            // generation then counts this commit alone.
            let after = self.generation()?;
            let alone = unchanged && data_version(conn)? == others_before;
            Ok((value, alone.then_some(after)))
        };
        run(&mut conn).map_err(|e| e.within(action, &self.location))
    }
}

/// `PRAGMA data_version` on `conn`: it moves with every other connection's commit.
fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |row| row.get(0))
}

/// Where a database is in its history of commits ([`Store::generation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    /// Transactions the store committed.
    commits: u64,
    /// The file's `PRAGMA data_version` as the store's watching connection reads it.
    data_version: i64,
}

/// The read-only connections of a database file, idle ones kept for the next read.
struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Readers {
    /// The idle connections; a panic during a read cannot leave one half-used (it is not
    /// given back), so a poisoned lock is taken over.
    fn idle(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The one place that configures a writing connection.
fn configure(conn: &Connection, file: bool) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    plan_once(conn)?;
    if file {
        switch_to_wal(conn)?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "mmap_size", MMAP_SIZE)?;
    Ok(())
}

/// Switches a file database to WAL, waiting for another program's write as every other
/// statement does (up to [`BUSY_TIMEOUT`] in all). A wiki still in a rollback journal (one
/// no build since version 1 opened) is switched under an exclusive lock, and while another
/// connection holds a lock SQLite refuses at once ("database is locked") rather than wait,
/// as its busy handler could deadlock there: the switch is asked for again, a few
/// milliseconds apart, each ask waiting no longer than the time left, until it is done or
/// the time is up (then the last error is returned). The mode SQLite settles on is not
/// checked: a file that cannot be WAL keeps the mode it has, as before.
fn switch_to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(5);
    let switched = loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && start.elapsed() + pause < BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                conn.busy_timeout(BUSY_TIMEOUT.saturating_sub(start.elapsed()))?;
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            done => break done,
        }
    };
    conn.busy_timeout(BUSY_TIMEOUT)?;
    switched
}

/// Keeps prepared statements (`prepare_cached`, [`STATEMENT_CACHE`] of them) and plans
/// each once, whatever values are bound to it: the query planner's stability guarantee
/// (`SQLITE_DBCONFIG_ENABLE_QPSG`). Without it SQLite plans a `LIMIT ?` (and a few other
/// places) around the value bound, and prepares the statement again at every new binding,
/// so a statement run once per key was parsed once per key: half of lint's wanted check at
/// 100,000 pages. The store binds no value a plan would gain from (no `LIKE ?`, no partial
/// index matched against a bound value).
fn plan_once(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    Ok(())
}

/// How much of the database file each connection reads through a memory map rather than
/// a read call per page (`PRAGMA mmap_size`): a passes over a large wiki (`lint`, the
/// library) read pages many times over, and each read call copied the page again. At
/// 100,000 pages `lint` took 3.9–4.0 s with it against 5.4–6.0 s without. Address space
/// only: the pages are the file's, shared with the system's cache.
const MMAP_SIZE: i64 = 1 << 30;

/// How many prepared statements each connection keeps (`prepare_cached`): the store's
/// reads and writes prepare their statements through the cache, and a compile alone runs
/// some sixty different ones; parsing them again for every note was a sixth of a compile's
/// time in the store.
const STATEMENT_CACHE: usize = 256;

/// How many sources' digests must name a concept or link target before it gets a page of its
/// own, until [`Store::set_min_sources`] says otherwise (the default of `pages.min_sources`).
pub const DEFAULT_MIN_SOURCES: u32 = 2;

pub use wikimind_text::hash::{content_hash, hex};
pub use wikimind_text::key::page_key;

#[cfg(test)]
mod tests;
