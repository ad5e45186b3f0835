//! The sources of a wiki: reading files, folders, web pages, URL lists and typed text in,
//! finding a source by what a person types, and removing one.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::ingest::{self, IngestOptions, IngestedSource, Skipped};
use crate::store::{Landed, NewSource, SourceId};

use super::{Result, Wiki, WikiError};

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

impl Wiki {
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
                let mut warnings = s.warnings.clone();
                if s.kind == crate::store::SourceKind::Url {
                    if let Err(e) = self.keep_download(outcome.source_id(), s.original.as_deref()) {
                        warnings.push(format!(
                            "{}: a copy of the PDF could not be kept in the wiki's data \
                             folder, so its pages cannot be shown as images ({e})",
                            s.origin
                        ));
                    }
                }
                Ok(AddedSource {
                    source_id: outcome.source_id(),
                    origin: s.origin.clone(),
                    title: s.title.clone(),
                    outcome: outcome.landed(),
                    final_url: s.final_url.clone(),
                    tags: s.tags.clone(),
                    warnings,
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

    /// Where the copy of a PDF downloaded for source `id` is kept (`None` for a wiki in
    /// memory): `<data dir>/documents/source-<id>.pdf`.
    pub(crate) fn kept_download(&self, id: SourceId) -> Option<PathBuf> {
        self.data_dir()
            .map(|dir| dir.join("documents").join(format!("source-{id}.pdf")))
    }

    /// Keeps `bytes` (a PDF downloaded for source `id`) as its copy, replacing the one
    /// kept before; `None` (the URL now gives no PDF) lets the old copy go. Written to a
    /// temporary name and renamed, so a copy is never half written.
    fn keep_download(&self, id: SourceId, bytes: Option<&[u8]>) -> std::io::Result<()> {
        let Some(path) = self.kept_download(id) else {
            return Ok(());
        };
        match bytes {
            Some(bytes) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                let part = path.with_extension("part");
                std::fs::write(&part, bytes)?;
                std::fs::rename(&part, &path)
            }
            None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
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

    /// Removes source `id` with its digest, compile log and jobs; a page it alone fed goes
    /// (links to it become wanted pages), and a page it fed with others waits to be
    /// rewritten from them. `false` when there was no such source.
    pub fn remove_source(&self, id: SourceId) -> Result<bool> {
        let removed = self.store.remove_source(id)?;
        // A note that shared its name only with this one goes by its plain title again.
        if removed {
            // The copy of a downloaded PDF goes with it (a leftover is harmless).
            let _ = self.keep_download(id, None);
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
