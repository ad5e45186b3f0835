//! The one handle every shell opens: [`Wiki::open`] for a data directory,
//! [`Wiki::open_in_memory`] for tests. Shell commands are a few lines over its methods.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Settings;
use crate::ingest::{self, IngestOptions};
use crate::llm::LlmError;
use crate::store::{Store, StoreError};
use crate::topic::NameCache;

mod compile;
mod export;
mod read;
mod sources;

pub use compile::CompileSelection;
pub use read::PageKey;
pub(crate) use read::{HeldLibrary, HeldOrder, LibraryFigures, LibraryHeads};
pub use sources::{
    url_list, AddedSource, FailedUrl, IngestRun, IngestSummary, InputError, URL_LIST_CONCURRENCY,
    URL_LIST_PER_HOST,
};

/// Anything that can go wrong behind a shell command, with a message a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum WikiError {
    /// The store failed (boxed, like [`WikiError::Compile`]: their migration details would
    /// make every `Result` of the core large).
    #[error(transparent)]
    Store(Box<StoreError>),
    /// A source could not be read.
    #[error(transparent)]
    Ingest(#[from] ingest::IngestError),
    /// A provider could not be set up.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// Settings are wrong.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A compile run failed as a whole.
    #[error(transparent)]
    Compile(Box<crate::compile::CompileError>),
    /// Writing an export failed.
    #[error(transparent)]
    Export(#[from] crate::export::ExportError),
    /// No page answers to the name a person gave.
    #[error("no page titled {0:?} (see `wikimind list`)")]
    NoSuchPage(String),
    /// A name several notes share (each goes by a title that tells it apart): the person
    /// chooses one of them (`show` lists them and exits 2).
    #[error("{name:?} names {} notes: {}; name one by its title", candidates.len(), candidates.iter().map(|c| c.title.as_str()).collect::<Vec<_>>().join(", "))]
    AmbiguousName {
        /// The name as given.
        name: String,
        /// The notes it may mean, the one a bare link means first (shortest path, then byte
        /// order).
        candidates: Vec<crate::identity::Candidate>,
    },
    /// No note answers to the id or title a person gave.
    #[error("no note {0:?} (see `wikimind note list`)")]
    NoSuchNote(String),
    /// A person's change the wiki cannot take; the message says what and why.
    #[error("{0}")]
    Refused(String),
    /// The wiki could not be opened, or its data not brought up to this version (see
    /// [`Wiki::open_for_shell`]): `what` says which, the source why.
    #[error("{what}")]
    Opening {
        /// What failed, e.g. `cannot open the wiki in /path`.
        what: String,
        /// Why.
        #[source]
        source: Box<WikiError>,
    },
    /// The page has no version with that number.
    #[error("the page {title:?} has no version {version} (see `wikimind history {title:?}`)")]
    NoSuchVersion {
        /// The page's title.
        title: String,
        /// The version asked for.
        version: u32,
    },
}

impl From<StoreError> for WikiError {
    fn from(e: StoreError) -> Self {
        WikiError::Store(Box::new(e))
    }
}

impl From<crate::compile::CompileError> for WikiError {
    fn from(e: crate::compile::CompileError) -> Self {
        WikiError::Compile(Box::new(e))
    }
}

/// `Result` with a [`WikiError`].
pub type Result<T, E = WikiError> = std::result::Result<T, E>;

/// An open wiki: the store, and where it lives.
#[derive(Debug, Clone)]
pub struct Wiki {
    store: Arc<Store>,
    data_dir: Option<PathBuf>,
    ingest: IngestOptions,
    /// The name indexes of prompts, shared by every compiler this wiki makes (the queue
    /// makes one per job).
    names: Arc<NameCache>,
    /// The note index compiles resolve links with, shared by every compiler this wiki
    /// makes, so a run builds it once.
    notes: Arc<crate::identity::NoteCache>,
    /// What the library's windows are served from while nothing changes.
    pub(crate) lists: Arc<read::ListCache>,
    /// What lint's checks found, kept while nothing changes.
    pub(crate) lint_held: Arc<crate::lint::LintCache>,
}

impl Wiki {
    /// Opens (creating if needed) the wiki in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Wiki> {
        Ok(Wiki {
            store: Arc::new(Store::open_data_dir(data_dir)?),
            data_dir: Some(data_dir.to_path_buf()),
            ingest: IngestOptions::default(),
            names: Arc::default(),
            notes: Arc::default(),
            lists: Arc::default(),
            lint_held: Arc::default(),
        })
    }

    /// Opens the wiki a shell works on, the one way every shell does (the CLI, MCP and the
    /// window): opens the database in the settings' data directory (upgrading an older
    /// build's, with a copy kept: said before it starts and when it is done), brings its
    /// data up to this version (the backfills), and
    /// applies the settings' ingest limits and page settings. Each notice a person should
    /// see — the upgrade, a backfill that changed something — goes to `notice` as it happens:
    /// the CLI prints it on standard error, the window shows it as a banner.
    pub fn open_for_shell(settings: &Settings, notice: &mut dyn FnMut(String)) -> Result<Wiki> {
        // A large wiki's upgrade takes seconds: said before it starts, as the window does.
        if let Some(ahead) = Wiki::upgrade_ahead(settings) {
            notice(ahead);
        }
        let wiki = Wiki::open_for_window(settings, notice)?;
        wiki.bring_up_to_date(notice)?;
        Ok(wiki)
    }

    /// [`Wiki::open_for_shell`] without the backfills: what the window opens, so that a
    /// large wiki an upgrade left backfills for shows its library at once. The window then
    /// asks [`Wiki::backfills_pending`] and runs [`Wiki::bring_up_to_date`] on a thread of
    /// its own before its job runner starts.
    pub fn open_for_window(settings: &Settings, notice: &mut dyn FnMut(String)) -> Result<Wiki> {
        let wiki = Wiki::open(&settings.data_dir).map_err(|e| WikiError::Opening {
            what: format!("cannot open the wiki in {}", settings.data_dir.display()),
            source: Box::new(e),
        })?;
        if let Some(upgraded) = wiki.upgrade_notice() {
            notice(upgraded);
        }
        Ok(wiki
            .with_ingest_options(IngestOptions::from_settings(settings))
            .with_page_settings(&settings.pages))
    }

    /// Whether a backfill of this build has work left on this wiki ([`crate::backfill`]).
    pub fn backfills_pending(&self) -> Result<bool> {
        Ok(crate::backfill::pending(&self.store)?)
    }

    /// Brings the wiki's data up to this version (the backfills this build has and the wiki
    /// has not finished), telling `notice` what each that changed something did.
    pub fn bring_up_to_date(&self, notice: &mut dyn FnMut(String)) -> Result<()> {
        let done = self.run_backfills().map_err(|e| WikiError::Opening {
            what: "cannot bring the wiki's data up to this version".to_owned(),
            source: Box::new(e),
        })?;
        for report in done {
            if let Some(line) = report.notice() {
                notice(line);
            }
        }
        Ok(())
    }

    /// Uses these ingest limits for everything added through this handle (the shells pass
    /// [`IngestOptions::from_settings`]).
    pub fn with_ingest_options(mut self, options: IngestOptions) -> Wiki {
        self.ingest = options;
        self
    }

    /// Gives concepts pages as `pages` says (`pages.min_sources`; the shells pass
    /// [`Settings::pages`](crate::config::Settings::pages)).
    pub fn with_page_settings(self, pages: &crate::config::PageSettings) -> Wiki {
        self.store.set_min_sources(pages.min_sources);
        self
    }

    /// Tells `sink` how far the reading of a large document has come, for everything
    /// added through this handle (the CLI's progress line, the window's).
    pub fn with_reading_progress(mut self, sink: crate::ingest::ReadingSink) -> Wiki {
        self.ingest.progress = Some(sink);
        self
    }

    /// The ingest limits in force.
    pub fn ingest_options(&self) -> &IngestOptions {
        &self.ingest
    }

    /// A wiki in memory, for tests.
    pub fn open_in_memory() -> Result<Wiki> {
        Wiki::open_in_memory_with_clock(Arc::new(crate::store::SystemClock))
    }

    /// A fresh wiki in memory whose store reads the time from `clock` (a test moves a
    /// [`ManualClock`](crate::store::ManualClock) instead of sleeping).
    pub fn open_in_memory_with_clock(clock: Arc<dyn crate::store::Clock>) -> Result<Wiki> {
        Ok(Wiki {
            store: Arc::new(Store::open_in_memory()?.with_clock(clock)?),
            data_dir: None,
            ingest: IngestOptions::default(),
            names: Arc::default(),
            notes: Arc::default(),
            lists: Arc::default(),
            lint_held: Arc::default(),
        })
    }

    /// The store, for the operations of this crate.
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The store under this wiki, for this workspace's tests and benches (feature
    /// `test-support`), which seed and inspect it directly. Shells never call it (the
    /// feature is not theirs, and `scripts/check-doors.py` fails when one names the store).
    #[cfg(feature = "test-support")]
    pub fn store_for_tests(&self) -> &Arc<Store> {
        &self.store
    }

    /// What opening did to a wiki of an older build, if it was one: its schema versions
    /// before and after, and where the copy of the old database is. The shells say so.
    pub fn upgrade(&self) -> Option<&crate::store::Upgrade> {
        self.store.upgrade()
    }

    /// Runs the backfills this build has and the wiki has not finished (see
    /// [`crate::backfill`]); the shells call it after opening. Returns what the ones that
    /// found work did.
    pub fn run_backfills(&self) -> Result<Vec<crate::backfill::BackfillReport>> {
        Ok(crate::backfill::run_backfills(&self.store)?)
    }

    /// The line a shell shows for [`Wiki::upgrade`], on standard error.
    pub fn upgrade_notice(&self) -> Option<String> {
        let upgrade = self.upgrade()?;
        Some(match &upgrade.backup {
            Some(backup) => format!(
                "upgraded the wiki's database from schema {} to {}; the old one is kept at {}",
                upgrade.from,
                upgrade.to,
                backup.display()
            ),
            None => format!(
                "upgraded the wiki's database from schema {} to {}",
                upgrade.from, upgrade.to
            ),
        })
    }

    /// The line a window shows while opening upgrades the wiki's database in the settings'
    /// data directory, read before opening it without changing it: a large wiki's copy
    /// and migrations take seconds, so the window opens first and says so. `None` when
    /// opening will not upgrade it (no database yet, or one of this build) or the file
    /// cannot be read (opening then says why).
    pub fn upgrade_ahead(settings: &Settings) -> Option<String> {
        let path = settings.data_dir.join(crate::store::DATABASE_FILE);
        let upgrade = Store::upgrade_ahead(&path).ok()??;
        Some(match &upgrade.backup {
            Some(backup) => format!(
                "upgrading the wiki's database from schema {} to {}, after keeping the old one at {}",
                upgrade.from,
                upgrade.to,
                backup.display()
            ),
            None => format!(
                "upgrading the wiki's database from schema {} to {}",
                upgrade.from, upgrade.to
            ),
        })
    }

    /// The data directory (None in memory).
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }
}
