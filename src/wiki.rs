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
use crate::reading::{
    DigestFigures, ListedPage, ListedSource, ListedVersion, PageRef, PageWindow, Restored,
    ShownBacklink, ShownDigest, ShownLink, ShownPage, ShownSource,
};
use crate::render::{render_article, LinkTarget, SafeHtml};
use crate::store::{
    ArticleDetail, ArticleId, Landed, NewSource, PageId, SourceId, SourceStatus, Store, StoreError,
};
use crate::topic::NameCache;

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
    /// No note answers to the id or title a person gave.
    #[error("no note {0:?} (see `wikimind note list`)")]
    NoSuchNote(String),
    /// A person's change the wiki cannot take; the message says what and why.
    #[error("{0}")]
    Refused(String),
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
}

impl IngestRun {
    /// Whether every input was read (an input that failed fails the run, after the others
    /// were stored).
    pub fn succeeded(&self) -> bool {
        self.errors.is_empty()
    }
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
}

impl Wiki {
    /// Opens (creating if needed) the wiki in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Wiki> {
        Ok(Wiki {
            store: Arc::new(Store::open_data_dir(data_dir)?),
            data_dir: Some(data_dir.to_path_buf()),
            ingest: IngestOptions::default(),
            names: Arc::default(),
        })
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
        Ok(Wiki {
            store: Arc::new(Store::open_in_memory()?),
            data_dir: None,
            ingest: IngestOptions::default(),
            names: Arc::default(),
        })
    }

    /// The store.
    pub fn store(&self) -> &Arc<Store> {
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
        sources
            .iter()
            .map(|s| {
                let outcome = self.store.ingest_source_from(
                    &NewSource {
                        origin: s.origin.clone(),
                        kind: s.kind,
                        title: s.title.clone(),
                        text: s.text.clone(),
                        tags: s.tags.clone(),
                        aliases: s.aliases.clone(),
                    },
                    s.final_url.as_deref(),
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
                })
            })
            .collect()
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
        let compiler = Compiler::new(Arc::clone(&self.store), providers, settings.compile.clone())
            .with_name_cache(Arc::clone(&self.names));
        Ok(Arc::new(compiler.with_prompts(self.prompts())))
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
            Some(id) => Ok(self.store.article(id)?),
            None => Ok(None),
        }
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
            digests.push((
                a.id,
                ExportArticle {
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

    /// Finds a page by what a person types: any spelling of its title or of one of its
    /// aliases (see [`Store::find_page`]); failing that, a number is taken as a page id,
    /// then as the id of a digest, which leads to the page its title names.
    pub fn find_page(&self, key: &str) -> Result<Option<PageId>> {
        if let Some(id) = self.store.find_page(key)? {
            return Ok(Some(id));
        }
        let Ok(number) = key.trim().parse::<i64>() else {
            return Ok(None);
        };
        if self.store.page(PageId(number))?.is_some() {
            return Ok(Some(PageId(number)));
        }
        Ok(self.store.digest_page(ArticleId(number))?)
    }

    /// [`Wiki::find_page`], or [`WikiError::NoSuchPage`].
    pub fn page_named(&self, key: &str) -> Result<PageId> {
        self.find_page(key)?
            .ok_or_else(|| WikiError::NoSuchPage(key.to_owned()))
    }

    /// Every page as `list` shows it, by title.
    pub fn page_list(&self) -> Result<Vec<ListedPage>> {
        let counts = self.store.page_claim_counts()?;
        Ok(self
            .store
            .pages()?
            .into_iter()
            .map(|p| ListedPage {
                claims: counts.get(&p.id).copied().unwrap_or_default(),
                id: p.id,
                kind: p.kind,
                title: p.title,
                summary: p.summary,
                source_count: p.source_count,
                stale: p.stale,
                updated_at: p.updated_at,
                tags: p.tags,
            })
            .collect())
    }

    /// [`Wiki::page_list`] narrowed to the pages with `tag` ([`ListedPage::has_tag`]);
    /// every page when `tag` is `None`.
    pub fn page_list_tagged(&self, tag: Option<&str>) -> Result<Vec<ListedPage>> {
        let pages = self.page_list()?;
        Ok(match tag {
            Some(tag) => pages.into_iter().filter(|p| p.has_tag(tag)).collect(),
            None => pages,
        })
    }

    /// A window of [`Wiki::page_list`]: at most `limit` pages by title from `offset` on (see
    /// [`PageWindow::of`] for the default and the cap), with the total and where the next
    /// window starts.
    pub fn page_window(&self, offset: usize, limit: Option<usize>) -> Result<PageWindow> {
        Ok(PageWindow::of(self.page_list()?, offset, limit))
    }

    /// One page as `show` shows it, with the sources feeding it (`None`: no such page).
    pub fn shown_page(&self, id: PageId) -> Result<Option<ShownPage>> {
        let Some(page) = self.store.page(id)? else {
            return Ok(None);
        };
        let mut truncated = false;
        let mut sources = Vec::new();
        for d in self.store.page_digests(id)? {
            if let Some(digest) = self.store.article(d.article_id)? {
                truncated |= digest.truncated;
            }
            sources.push(ShownSource {
                source_id: d.source_id,
                origin: d.origin,
                final_url: d.final_url,
                compiled_at: d.compiled_at,
                provider: d.provider,
                model: d.model,
                title: d.title,
                summary: d.summary,
            });
        }
        Ok(Some(ShownPage {
            id: page.id,
            kind: page.kind,
            title: page.title,
            aliases: page.aliases,
            tags: page.tags,
            summary: page.summary,
            key_claims: page.claims,
            concepts: page.concepts,
            open_questions: page.open_questions,
            links: page
                .links
                .into_iter()
                .map(|l| ShownLink {
                    target: l.target,
                    page_id: l.page_id,
                    article_id: l.page_id,
                    context: l.context,
                })
                .collect(),
            backlinks: page
                .backlinks
                .into_iter()
                .map(|b| ShownBacklink {
                    page_id: b.page_id,
                    article_id: b.page_id,
                    title: b.title,
                    context: b.context,
                })
                .collect(),
            article_body: page.body,
            sources,
            truncated,
            version: page.version,
            stale_reason: page.stale_reason,
            flagged: page.flagged,
            suggestions: self.store.page_suggestions(id)?,
        }))
    }

    /// A source's digest as `show --source` shows it (`None`: the source has not been
    /// compiled, or there is no such source).
    pub fn shown_digest(&self, source: SourceId) -> Result<Option<ShownDigest>> {
        let Some(summary) = self.store.find_source(&source.to_string())? else {
            return Ok(None);
        };
        let Some(article) = summary.article_id else {
            return Ok(None);
        };
        let Some(a) = self.store.article(article)? else {
            return Ok(None);
        };
        let mut links = Vec::with_capacity(a.links.len());
        for l in a.links {
            let page = self.store.find_page(&l.target)?;
            links.push(ShownLink {
                target: l.target,
                page_id: page,
                article_id: page,
                context: l.context,
            });
        }
        let pages = self
            .store
            .source_pages(source)?
            .into_iter()
            .map(|p| PageRef {
                id: p.id,
                title: p.title,
            })
            .collect();
        let origin = a.sources.first();
        Ok(Some(ShownDigest {
            kind: "digest",
            id: a.id,
            source_id: source,
            origin: summary.origin,
            final_url: summary.final_url,
            title: a.title,
            summary: a.summary,
            key_claims: a.claims,
            concepts: a.concepts,
            open_questions: a.open_questions,
            links,
            article_body: a.body,
            truncated: a.truncated,
            compiled_at: a.updated_at,
            provider: origin.map(|s| s.provider.clone()).unwrap_or_default(),
            model: origin.map(|s| s.model.clone()).unwrap_or_default(),
            pages,
        }))
    }

    /// The [`DigestFigures`] of every compiled source.
    pub fn digest_figures(&self) -> Result<DigestFigures> {
        let mut figures = DigestFigures::default();
        for s in self.store.sources()? {
            if let Some(digest) = self.shown_digest(s.id)? {
                figures.add(s.title.as_deref(), &digest);
            }
        }
        Ok(figures)
    }

    /// Every source as `sources` shows it, with the pages it feeds.
    pub fn source_list(&self) -> Result<Vec<ListedSource>> {
        let mut pages = self.store.pages_by_source()?;
        Ok(self
            .store
            .sources()?
            .into_iter()
            .map(|s| ListedSource {
                pages: pages.remove(&s.id).unwrap_or_default(),
                tags: s.tags,
                aliases: s.aliases,
                id: s.id,
                origin: s.origin,
                kind: s.kind,
                title: s.title,
                status: s.status,
                reason: s.reason,
                updated_at: s.updated_at,
                final_url: s.final_url,
            })
            .collect())
    }

    /// Every version of the page, oldest first.
    pub fn page_history(&self, id: PageId) -> Result<Vec<ListedVersion>> {
        Ok(self
            .store
            .page_history(id)?
            .into_iter()
            .map(ListedVersion::from)
            .collect())
    }

    /// Restores an earlier version of a page as a new version by the person (see
    /// [`Store::restore_page_version`]), its claims grounded again against the page's
    /// sources as they are now; [`WikiError::NoSuchVersion`] when it has no such version.
    pub fn restore_page(&self, id: PageId, version: u32) -> Result<Restored> {
        let page = self
            .store
            .page(id)?
            .ok_or_else(|| WikiError::NoSuchPage(id.to_string()))?;
        if self.store.page_version(id, version)?.is_none() {
            return Err(WikiError::NoSuchVersion {
                title: page.title,
                version,
            });
        }
        let new = self.store.restore_page_version(
            id,
            version,
            &crate::compile::ground::reground_page_claims,
        )?;
        let title = self.store.page(id)?.map(|p| p.title).unwrap_or(page.title);
        Ok(Restored {
            page_id: id,
            title,
            restored_from: version,
            version: new,
        })
    }

    /// A page's body as sanitised HTML, its wiki links resolved to pages through the
    /// page's own links (by any name of their target), never a list of every title: the
    /// one renderer, for `show --html` and every other shell.
    pub fn render_page(&self, page: &ShownPage) -> SafeHtml {
        let own = std::iter::once(&page.title).chain(&page.aliases);
        render_resolved(&page.article_body, &page.links, own.map(|n| (n, page.id)))
    }

    /// A digest's body as sanitised HTML, its wiki links resolved to pages.
    pub fn render_digest(&self, digest: &ShownDigest) -> SafeHtml {
        render_resolved(&digest.article_body, &digest.links, std::iter::empty())
    }
}

/// Renders `body`, resolving its wiki links through `links` (resolved already) and `own`
/// (names that lead to a page of their own, such as the page's own title, which its links
/// never hold).
fn render_resolved<'a>(
    body: &str,
    links: &[ShownLink],
    own: impl Iterator<Item = (&'a String, PageId)>,
) -> SafeHtml {
    use crate::store::page_key;
    let mut resolved: std::collections::HashMap<String, i64> = links
        .iter()
        .filter_map(|l| Some((page_key(&l.target), l.page_id?.0)))
        .collect();
    for (name, id) in own {
        resolved.insert(page_key(name), id.0);
    }
    render_article(
        body,
        &|target: &str| match resolved.get(&page_key(target)) {
            Some(id) => LinkTarget::Article {
                id: *id,
                title: target.trim().to_string(),
            },
            None => LinkTarget::Wanted,
        },
    )
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
