//! The one handle every shell opens: [`Wiki::open`] for a data directory,
//! [`Wiki::open_in_memory`] for tests. Shell commands are a few lines over its methods.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::compile::{providers_from_settings, Compiler, PromptSet};
use crate::config::Settings;
use crate::ingest::{self, IngestOptions, IngestedSource, Skipped};
use crate::llm::LlmError;
use crate::store::{ArticleDetail, Landed, NewSource, SourceId, SourceStatus, Store, StoreError};
use crate::topic::NameCache;

mod read;

pub use read::PageKey;

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

/// One source as it landed in the store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AddedSource {
    /// Its id.
    pub source_id: SourceId,
    /// Its origin (path, URL, `text:<hash>`).
    pub origin: String,
    /// Its title, if one was found.
    pub title: Option<String>,
    /// `added`, `unchanged` or `changed`.
    pub outcome: Landed,
    /// For a web page that redirected, the URL it was finally read from (`null` otherwise).
    pub final_url: Option<String>,
    /// Its tags (front matter and inline `#tags`).
    pub tags: Vec<String>,
    /// What was read with a problem but did not stop the ingest (see
    /// [`IngestedSource::warnings`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The document format it was read from (`pdf`, `epub`, `docx`); absent for notes,
    /// text and web pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<&'static str>,
}

/// What an ingest call did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IngestSummary {
    /// Sources stored (new, unchanged or changed).
    pub sources: Vec<AddedSource>,
    /// Entries of a folder that were not read, and why.
    pub skipped: Vec<Skipped>,
    /// The folder is an Obsidian vault.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub vault: bool,
    /// The folder is a WikiMind export (only its pages were read).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub export: bool,
}

impl IngestSummary {
    /// How many sources had this outcome.
    pub fn count(&self, outcome: Landed) -> usize {
        self.sources.iter().filter(|s| s.outcome == outcome).count()
    }

    /// How many sources were read from documents, by format (`docx`, `epub`, `pdf`).
    pub fn documents(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for s in &self.sources {
            if let Some(format) = s.document {
                *counts.entry(format).or_insert(0) += 1;
            }
        }
        counts
    }

    /// How many folder entries were skipped for each reason ([`SkipReason::label`](
    /// crate::ingest::SkipReason::label)), by label.
    pub fn skipped_by_reason(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for s in &self.skipped {
            *counts.entry(s.reason.label()).or_insert(0) += 1;
        }
        counts
    }
}

/// An input that could not be read at all (the others are still stored).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Standard input could not be read.
    #[error("cannot read standard input: {0}")]
    Stdin(std::io::Error),
    /// The file, folder or page could not be read or stored.
    #[error(transparent)]
    Wiki(#[from] WikiError),
}

/// What ingesting a list of inputs did (see [`Wiki::ingest_inputs`]).
#[derive(Debug, Default)]
pub struct IngestRun {
    /// Everything stored and skipped, over all inputs, in order.
    pub summary: IngestSummary,
    /// Inputs that could not be read at all, in order.
    pub errors: Vec<InputError>,
    /// URLs of a URL list ([`Wiki::ingest_url_list`]) that could not be fetched or
    /// stored, in the list's order.
    pub failed: Vec<FailedUrl>,
}

impl IngestRun {
    /// Whether every input was read (an input or a listed URL that failed fails the run,
    /// after the others were stored).
    pub fn succeeded(&self) -> bool {
        self.errors.is_empty() && self.failed.is_empty()
    }
}

/// A URL of a list that was not stored, and why (`ingest --urls`'s `failed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedUrl {
    /// The URL as the list gives it (without credentials).
    pub url: String,
    /// Why, in words a person can act on.
    pub reason: String,
}

/// How many URLs of a list are fetched at once.
pub const URL_LIST_CONCURRENCY: usize = 4;

/// How many URLs of one host are fetched at once.
pub const URL_LIST_PER_HOST: usize = 2;

/// The URLs of a URL list's text: one per line, blank lines and lines starting with `#`
/// left out, surrounding white space trimmed, a URL listed twice read once.
pub fn url_list(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter(|line| seen.insert(line.to_string()))
        .map(str::to_owned)
        .collect()
}

/// What a compile request selects (see [`Wiki::compile_selection`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompileSelection {
    /// The sources to compile, in order.
    pub sources: Vec<SourceId>,
    /// Sources named that are compiled already (left alone without `force`).
    pub already_compiled: Vec<SourceId>,
    /// Keys that name no source.
    pub unknown: Vec<String>,
}

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
        })
    }

    /// Opens the wiki a shell works on, the one way every shell does (the CLI, MCP and the
    /// window): opens the database in the settings' data directory (upgrading an older
    /// build's, with a copy kept), brings its data up to this version (the backfills), and
    /// applies the settings' ingest limits and page settings. Each notice a person should
    /// see — the upgrade, a backfill that changed something — goes to `notice` as it happens:
    /// the CLI prints it on standard error, the window shows it as a banner.
    pub fn open_for_shell(settings: &Settings, notice: &mut dyn FnMut(String)) -> Result<Wiki> {
        let wiki = Wiki::open(&settings.data_dir).map_err(|e| WikiError::Opening {
            what: format!("cannot open the wiki in {}", settings.data_dir.display()),
            source: Box::new(e),
        })?;
        if let Some(upgraded) = wiki.upgrade_notice() {
            notice(upgraded);
        }
        let done = wiki.run_backfills().map_err(|e| WikiError::Opening {
            what: "cannot bring the wiki's data up to this version".to_owned(),
            source: Box::new(e),
        })?;
        for report in done {
            if let Some(line) = report.notice() {
                notice(line);
            }
        }
        Ok(wiki
            .with_ingest_options(settings.ingest_options())
            .with_page_settings(&settings.pages))
    }

    /// Uses these ingest limits for everything added through this handle (the shells pass
    /// [`Settings::ingest_options`](crate::config::Settings::ingest_options)).
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

    /// The data directory (None in memory).
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// Stores sources read by `ingest`.
    pub fn add_sources(&self, sources: &[IngestedSource]) -> Result<Vec<AddedSource>> {
        let added: Vec<AddedSource> = sources
            .iter()
            .map(|s| {
                let pages: Vec<crate::store::SourcePage> = s
                    .pages
                    .iter()
                    .map(|p| crate::store::SourcePage {
                        number: p.number,
                        label: p.label.clone(),
                        start: p.start,
                        end: p.end,
                    })
                    .collect();
                let outcome = self.store.ingest_paged_source(
                    &NewSource {
                        origin: s.origin.clone(),
                        kind: s.kind,
                        title: s.title.clone(),
                        text: s.text.clone(),
                        tags: s.tags.clone(),
                        aliases: s.aliases.clone(),
                        root: s.root.clone(),
                    },
                    s.final_url.as_deref(),
                    &pages,
                )?;
                if let Some(stamp) = s.file {
                    self.store.record_file_stamp(
                        outcome.source_id(),
                        stamp.size,
                        stamp.mtime_ns,
                    )?;
                }
                Ok(AddedSource {
                    source_id: outcome.source_id(),
                    origin: s.origin.clone(),
                    title: s.title.clone(),
                    outcome: outcome.landed(),
                    final_url: s.final_url.clone(),
                    tags: s.tags.clone(),
                    warnings: s.warnings.clone(),
                    document: s.document,
                })
            })
            .collect::<Result<_>>()?;
        // A note that now shares its name with notes of other folders (or no longer does)
        // goes by the title that tells it apart; its page keeps its id.
        if sources
            .iter()
            .any(|s| s.kind == crate::store::SourceKind::File)
        {
            crate::identity::settle_titles(&self.store)?;
        }
        Ok(added)
    }

    /// Reads a file or folder and stores what it holds.
    pub fn ingest_path(&self, path: &Path, options: &IngestOptions) -> Result<IngestSummary> {
        let report = ingest::ingest_path(path, options)?;
        Ok(IngestSummary {
            sources: self.add_sources(&report.sources)?,
            skipped: report.skipped,
            vault: report.vault,
            export: report.export,
        })
    }

    /// Downloads a web page and stores its readable text.
    pub async fn ingest_url(&self, url: &str, options: &IngestOptions) -> Result<IngestSummary> {
        self.ingest_url_within(url, options, &ingest::Reach::Anywhere)
            .await
    }

    /// [`Wiki::ingest_url`] for a URL someone else chose (an assistant over MCP): the
    /// download connects only where `reach` allows ([`ingest::reach`]).
    pub async fn ingest_url_within(
        &self,
        url: &str,
        options: &IngestOptions,
        reach: &ingest::Reach,
    ) -> Result<IngestSummary> {
        let source = ingest::fetch_url_within(url, options, reach).await?;
        Ok(IngestSummary {
            sources: self.add_sources(std::slice::from_ref(&source))?,
            ..IngestSummary::default()
        })
    }

    /// Stores pasted text, refusing more than the ingest limit, as for a file.
    pub fn ingest_text(&self, text: &str, title: Option<&str>) -> Result<IngestSummary> {
        if text.len() as u64 > self.ingest.max_bytes {
            return Err(ingest::IngestError::FileTooLarge {
                path: PathBuf::from("pasted text"),
                size: text.len() as u64,
                limit: self.ingest.max_bytes,
            }
            .into());
        }
        let source = ingest::ingest_text(text, title)?;
        Ok(IngestSummary {
            sources: self.add_sources(std::slice::from_ref(&source))?,
            ..IngestSummary::default()
        })
    }

    /// Stores text read from standard input.
    pub fn ingest_stdin(&self, text: &str, title: Option<&str>) -> Result<IngestSummary> {
        let source = ingest::ingest_stdin(text, title)?;
        Ok(IngestSummary {
            sources: self.add_sources(std::slice::from_ref(&source))?,
            ..IngestSummary::default()
        })
    }

    /// Adds the bytes read from standard input as a source, refusing more than `max_bytes`,
    /// binary data and text that is not UTF-8, as for a file named explicitly.
    pub fn ingest_stdin_bytes(
        &self,
        bytes: &[u8],
        title: Option<&str>,
        max_bytes: u64,
    ) -> Result<IngestSummary> {
        let source = ingest::ingest_stdin_bytes(bytes, title, max_bytes)?;
        Ok(IngestSummary {
            sources: self.add_sources(std::slice::from_ref(&source))?,
            ..IngestSummary::default()
        })
    }

    /// Stores each input as a person names it on a command line: `-` is text read from
    /// `stdin` (titled `title`), an `http://` or `https://` URL a web page, anything else a
    /// file or folder. One input that cannot be read does not lose the others.
    pub async fn ingest_inputs(
        &self,
        inputs: &[String],
        stdin: &mut dyn std::io::Read,
        title: Option<&str>,
    ) -> IngestRun {
        let mut run = IngestRun::default();
        for input in inputs {
            let result = if input == "-" {
                self.ingest_from_reader(stdin, title)
            } else if input.starts_with("http://") || input.starts_with("https://") {
                self.ingest_url(input, &self.ingest)
                    .await
                    .map_err(Into::into)
            } else {
                self.ingest_path(Path::new(input), &self.ingest)
                    .map_err(Into::into)
            };
            match result {
                Ok(mut summary) => {
                    run.summary.sources.append(&mut summary.sources);
                    run.summary.skipped.append(&mut summary.skipped);
                    run.summary.vault |= summary.vault;
                    run.summary.export |= summary.export;
                }
                Err(e) => run.errors.push(e),
            }
        }
        run
    }

    /// Fetches every URL of a list and stores each page or document read, a few at a time
    /// ([`URL_LIST_CONCURRENCY`], at most [`URL_LIST_PER_HOST`] from one host), into
    /// `run`: what was stored joins [`IngestRun::summary`], each URL that failed is named
    /// in [`IngestRun::failed`] with its reason, and the rest are kept.
    pub async fn ingest_url_list(&self, urls: &[String], run: &mut IngestRun) {
        use std::collections::HashMap;
        use tokio::sync::Semaphore;
        let overall = Arc::new(Semaphore::new(URL_LIST_CONCURRENCY));
        let mut hosts: HashMap<String, Arc<Semaphore>> = HashMap::new();
        let fetches = urls.iter().map(|url| {
            let host = crate::text::url::parse_http_url(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default();
            let per_host = Arc::clone(
                hosts
                    .entry(host)
                    .or_insert_with(|| Arc::new(Semaphore::new(URL_LIST_PER_HOST))),
            );
            let overall = Arc::clone(&overall);
            async move {
                // The host's turn first, so a busy host does not hold places others could use.
                let _host = per_host.acquire_owned().await;
                let _turn = overall.acquire_owned().await;
                ingest::fetch_url(url, &self.ingest).await
            }
        });
        let results = futures_util::future::join_all(fetches).await;
        for (url, result) in urls.iter().zip(results) {
            let stored = result
                .map_err(WikiError::from)
                .and_then(|source| self.add_sources(std::slice::from_ref(&source)));
            match stored {
                Ok(mut added) => run.summary.sources.append(&mut added),
                Err(e) => run.failed.push(FailedUrl {
                    url: crate::text::url::without_userinfo(url),
                    reason: e.to_string(),
                }),
            }
        }
    }

    /// Reads text from `reader` (one byte past the limit: enough to tell that it is too
    /// large) and stores it as standard input.
    fn ingest_from_reader(
        &self,
        reader: &mut dyn std::io::Read,
        title: Option<&str>,
    ) -> Result<IngestSummary, InputError> {
        let limit = self.ingest.max_bytes;
        let mut bytes = Vec::new();
        reader
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(InputError::Stdin)?;
        Ok(self.ingest_stdin_bytes(&bytes, title, limit)?)
    }

    /// The prompt templates: built-ins with the overrides in `<data dir>/prompts/`.
    pub fn prompts(&self) -> PromptSet {
        match &self.data_dir {
            Some(dir) => PromptSet::load(&dir.join("prompts")).0,
            None => PromptSet::builtin(),
        }
    }

    /// Override files in `<data dir>/prompts/` that could not be used, and why (the built-in
    /// template is used for each).
    pub fn prompt_problems(&self) -> Vec<String> {
        match &self.data_dir {
            Some(dir) => PromptSet::load(&dir.join("prompts")).1,
            None => Vec::new(),
        }
    }

    /// A compiler with the configured providers and prompts, sharing this wiki's name
    /// indexes with every other compiler it makes.
    pub fn compiler(&self, settings: &Settings) -> Result<Arc<Compiler>> {
        let providers = providers_from_settings(settings)?;
        Ok(Arc::new(
            self.compiler_with(providers, settings.compile.clone()),
        ))
    }

    /// A compiler over `providers` with `settings` (the eval's models and judges), with
    /// this wiki's prompts (its overrides included) and name indexes: its
    /// [`Compiler::caller`] and [`Compiler::prompts`] are what every task runs with.
    pub fn compiler_with(
        &self,
        providers: Vec<crate::compile::ProviderSlot>,
        settings: crate::config::CompileSettings,
    ) -> Compiler {
        Compiler::new(Arc::clone(&self.store), providers, settings)
            .with_name_cache(Arc::clone(&self.names))
            .with_note_cache(Arc::clone(&self.notes))
            .with_prompts(self.prompts())
    }

    /// Removes source `id` with its digest, compile log and jobs; a page it alone fed goes
    /// (links to it become wanted pages), and a page it fed with others waits to be
    /// rewritten from them. `false` when there was no such source.
    pub fn remove_source(&self, id: SourceId) -> Result<bool> {
        let removed = self.store.remove_source(id)?;
        // A note that shared its name only with this one goes by its plain title again.
        if removed {
            crate::identity::settle_titles(&self.store)?;
        }
        Ok(removed)
    }

    /// Finds a source by what a person would type: its id, its origin (a URL, a canonical
    /// path), a URL as typed (with a fragment, say), a path as typed (relative or not
    /// canonical), or the exact title of its article.
    pub fn find_source(&self, key: &str) -> Result<Option<SourceId>> {
        if let Some(s) = self.store.find_source(key)? {
            return Ok(Some(s.id));
        }
        if let Ok(origin) = ingest::url_origin(key) {
            if let Some(s) = self.store.find_source(&origin)? {
                return Ok(Some(s.id));
            }
        }
        if let Ok(canonical) = std::fs::canonicalize(key) {
            if let Some(s) = self.store.find_source(&ingest::path_origin(&canonical))? {
                return Ok(Some(s.id));
            }
        }
        Ok(None)
    }

    /// Which sources a compile asked for by `keys` compiles: with no keys, every source
    /// that is pending, failed, stale or was interrupted (and with `force` the compiled
    /// ones too); with keys, the sources they name, minus compiled ones unless `force`.
    pub fn compile_selection(&self, keys: &[String], force: bool) -> Result<CompileSelection> {
        let mut selection = CompileSelection::default();
        if keys.is_empty() {
            selection.sources = self
                .store
                .sources_to_compile(force)?
                .into_iter()
                .map(|s| s.id)
                .collect();
            return Ok(selection);
        }
        for key in keys {
            let Some(id) = self.find_source(key)? else {
                selection.unknown.push(key.clone());
                continue;
            };
            let compiled = self.store.source(id)?.map(|s| s.status) == Some(SourceStatus::Compiled);
            if compiled && !force {
                selection.already_compiled.push(id);
            } else if !selection.sources.contains(&id) {
                selection.sources.push(id);
            }
        }
        Ok(selection)
    }

    /// An article by id or exact title.
    pub fn article(&self, key: &str) -> Result<Option<ArticleDetail>> {
        match self.store.find_article(key)? {
            Some(id) => self.digest(id),
            None => Ok(None),
        }
    }

    /// The digest with id `id` (an article id, as a compile report gives it), or `None`.
    pub fn digest(&self, id: crate::store::ArticleId) -> Result<Option<ArticleDetail>> {
        Ok(self.store.article(id)?)
    }

    /// The citations of `claims` as an export writes them: `held` gives a claim's sources
    /// and quote, `sources` each source's title and origin (a PDF file's origin is its
    /// path, which a footnote links to at the page).
    fn export_citations<C>(
        &self,
        claims: &[C],
        held: impl Fn(&C) -> (Vec<SourceId>, Option<String>),
        sources: &std::collections::HashMap<SourceId, (String, String)>,
    ) -> Result<Vec<Vec<crate::export::ExportCitation>>> {
        let wanted: Vec<(Vec<SourceId>, Option<String>)> = claims.iter().map(held).collect();
        let cited = self.store.citations(&wanted)?;
        Ok(cited
            .into_iter()
            .map(|citations| {
                citations
                    .iter()
                    .map(|c| {
                        let (title, origin) = sources
                            .get(&c.source_id)
                            .cloned()
                            .unwrap_or_else(|| (format!("#{}", c.source_id), String::new()));
                        let is_pdf = origin.starts_with('/')
                            && origin.to_ascii_lowercase().ends_with(".pdf");
                        crate::export::ExportCitation {
                            source_title: title,
                            place: crate::reading::citation_place(c),
                            pdf: c
                                .page
                                .filter(|_| is_pdf)
                                .map(|page| (PathBuf::from(&origin), page)),
                        }
                    })
                    .collect()
            })
            .collect())
    }

    /// Writes the wiki as markdown files in `dir` (Obsidian-friendly): one file per page,
    /// with its aliases and sources in the front matter, one file per source's digest in
    /// its `sources/` folder, and one file per note written in the wiki in `notes/`.
    pub fn export_markdown(&self, dir: &Path) -> Result<crate::export::ExportReport> {
        use crate::export::{ConfidenceMix, ExportArticle};
        let counts = self.store.page_claim_counts()?;
        let mut pages = Vec::new();
        for summary in self.store.pages()? {
            let Some(page) = self.store.page(summary.id)? else {
                continue;
            };
            let digests = self.store.page_digests(page.id)?;
            let mix = counts.get(&page.id).copied().unwrap_or_default();
            pages.push(ExportArticle {
                title: page.title,
                aliases: page.aliases,
                tags: page.tags,
                summary: page.summary,
                concepts: page.concepts,
                sources: digests.iter().map(|d| d.origin.clone()).collect(),
                digests: digests.iter().map(|d| d.article_id).collect(),
                confidence_mix: ConfidenceMix {
                    sourced: mix.sourced,
                    inferred: mix.inferred,
                    opinion: mix.opinion,
                },
                body: page.body,
                citations: self.export_citations(
                    &page.claims,
                    |c| {
                        (
                            c.source_ids.clone(),
                            c.claim.quote.clone().filter(|_| c.claim.grounded),
                        )
                    },
                    &digests
                        .iter()
                        .map(|d| (d.source_id, (d.title.clone(), d.origin.clone())))
                        .collect(),
                )?,
                claims: page.claims.into_iter().map(|c| c.claim).collect(),
                open_questions: page.open_questions,
                answer: summary.kind == crate::store::PageKind::Answer,
            });
        }
        let mut digests = Vec::new();
        for summary in self.store.articles()? {
            let Some(a) = self.store.article(summary.id)? else {
                continue;
            };
            let titles: std::collections::HashMap<SourceId, (String, String)> = a
                .sources
                .iter()
                .map(|s| (s.source_id, (a.title.clone(), s.origin.clone())))
                .collect();
            let held: Vec<SourceId> = titles.keys().copied().collect();
            let citations = self.export_citations(
                &a.claims,
                |c| (held.clone(), c.quote.clone().filter(|_| c.grounded)),
                &titles,
            )?;
            digests.push((
                a.id,
                ExportArticle {
                    citations,
                    title: a.title,
                    aliases: Vec::new(),
                    tags: Vec::new(),
                    summary: a.summary,
                    concepts: a.concepts,
                    sources: a.sources.into_iter().map(|s| s.origin).collect(),
                    digests: Vec::new(),
                    confidence_mix: ConfidenceMix {
                        sourced: summary.claims.sourced,
                        inferred: summary.claims.inferred,
                        opinion: summary.claims.opinion,
                    },
                    body: a.body,
                    claims: a.claims,
                    open_questions: a.open_questions,
                    answer: false,
                },
            ));
        }
        let mut report = crate::export::export_markdown(dir, &pages, &digests)?;
        let mut notes = Vec::new();
        for note in self.notes()? {
            if let Some(source) = self.store.source(note.source_id)? {
                notes.push((note.title, source.text));
            }
        }
        report.notes = crate::export::export_notes(dir, &notes)?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(dir: &Path, name: &str, text: &str) -> String {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    }

    #[tokio::test]
    async fn one_bad_input_does_not_lose_the_others_but_fails_the_run() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        let dir = tempfile::tempdir().expect("dir");
        let tea = note(dir.path(), "tea.md", "# Tea\n\nGreen tea is steamed.");
        let missing = dir.path().join("missing.md").display().to_string();
        let run = wiki
            .ingest_inputs(&[missing.clone(), tea], &mut std::io::empty(), None)
            .await;
        assert!(!run.succeeded());
        assert_eq!(run.errors.len(), 1);
        assert!(
            run.errors[0].to_string().contains(&missing),
            "{}",
            run.errors[0]
        );
        assert_eq!(run.summary.count(Landed::Added), 1);
        assert_eq!(wiki.store().sources().expect("sources").len(), 1);
    }

    #[tokio::test]
    async fn a_dash_reads_standard_input_with_the_given_title() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        let mut stdin: &[u8] = b"Some pasted text about tea.";
        let run = wiki
            .ingest_inputs(&["-".into()], &mut stdin, Some("Pasted"))
            .await;
        assert!(run.succeeded());
        let source = &run.summary.sources[0];
        assert_eq!(source.title.as_deref(), Some("Pasted"));
        assert_eq!(source.outcome, Landed::Added);
    }

    #[tokio::test]
    async fn standard_input_over_the_limit_is_refused_like_a_file() {
        let wiki = Wiki::open_in_memory()
            .expect("wiki")
            .with_ingest_options(IngestOptions {
                max_bytes: 8,
                ..IngestOptions::default()
            });
        let mut stdin: &[u8] = b"far more than eight bytes of text";
        let run = wiki.ingest_inputs(&["-".into()], &mut stdin, None).await;
        assert!(!run.succeeded());
        assert!(run.summary.sources.is_empty());
    }

    #[tokio::test]
    async fn the_summary_counts_outcomes_and_skips_by_reason() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        let dir = tempfile::tempdir().expect("dir");
        note(dir.path(), "tea.md", "# Tea\n\nGreen tea is steamed.");
        note(dir.path(), "a.png", "not a note");
        note(dir.path(), "b.png", "not a note either");
        note(dir.path(), "data.xyz", "not a note either");
        note(dir.path(), ".hidden.md", "# Hidden");
        let folder = dir.path().display().to_string();
        let first = wiki
            .ingest_inputs(std::slice::from_ref(&folder), &mut std::io::empty(), None)
            .await;
        assert_eq!(first.summary.count(Landed::Added), 1);
        let skipped: Vec<(&str, usize)> = first.summary.skipped_by_reason().into_iter().collect();
        assert_eq!(
            skipped,
            [
                ("attachment", 2),
                ("hidden", 1),
                ("unsupported_extension", 1)
            ]
        );
        let again = wiki
            .ingest_inputs(&[folder], &mut std::io::empty(), None)
            .await;
        assert_eq!(again.summary.count(Landed::Added), 0);
        assert_eq!(again.summary.count(Landed::Unchanged), 1);
    }
}
