//! Ingest: files, folders, URLs and stdin become sources with readable text.
//!
//! Everything read here is untrusted: a file may be binary, huge or not UTF-8, a folder may
//! hold symlink loops, a web page may be hostile HTML. This module turns what it can into an
//! [`IngestedSource`] (origin, kind, title, readable text) and refuses the rest with an
//! [`IngestError`] that names the path or URL, the reason and what to do. It never prints.
//!
//! - [`ingest_path`] reads one file or a whole folder (recursively, in a deterministic order).
//! - [`ingest_text`] takes pasted text or stdin.
//! - [`fetch_url`] downloads one web page (http/https only, size-limited while streaming);
//!   [`fetch_url_within`] only from public addresses when asked ([`reach`]).
//!
//! Nothing is half-ingested: each function returns every source it read or an error. Inside a
//! folder a bad file is not fatal; it is listed in [`IngestReport::skipped`] with its reason.

mod document;
mod fetch;
mod files;
mod folder_rules;
pub mod reach;
mod text;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Serialize, Serializer};

pub use fetch::{fetch_url, fetch_url_within, url_origin};
pub(crate) use files::text_file_metadata;
pub use files::{
    ingest_path, list_folder, path_origin, FolderListing, ListedFile, BYTES_ORIGIN_PREFIX,
};
pub use folder_rules::{FolderRules, IGNORE_FILE};
pub use reach::Reach;
pub use text::{ingest_stdin, ingest_stdin_bytes, ingest_text, normalise_text};
pub use wikimind_text::url::without_userinfo;

/// The default largest source accepted: 20 MB.
pub const DEFAULT_MAX_BYTES: u64 = 20 * 1024 * 1024;

/// The default time limit for downloading one URL: 30 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// File extensions (lower case, without the dot) that [`ingest_path`] reads.
pub const SUPPORTED_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "html", "htm", "pdf", "epub", "docx",
];

/// Whether ingest reads this file as a document (PDF, EPUB, DOCX), by its extension.
pub fn is_document(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| document::DocumentType::of_extension(&e.to_ascii_lowercase()).is_some())
}

/// Where a source came from (the store's kind, shared so ingest and store agree).
pub use crate::store::SourceKind;

/// One source with readable text, ready to be compiled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IngestedSource {
    /// The source's identity: the canonical absolute path of a file (escaped when it is not
    /// UTF-8, see [`path_origin`]), the URL of a web page as given, normalised (fragment and
    /// credentials dropped, see [`url_origin`]), or `text:<sha256 hex>` of pasted text and
    /// stdin.
    pub origin: String,
    /// Where the source came from.
    pub kind: SourceKind,
    /// The source's own title: for markdown its front matter `title`, else its first `# `
    /// heading, else the file name without extension (as Obsidian does); for HTML its
    /// `<title>` or first `<h1>`, else the file stem; for plain text the file stem; none for
    /// pasted text without a heading or front matter title.
    pub title: Option<String>,
    /// Tags the source gives itself: front matter `tags` and inline `#tags`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Other names the source gives its topic: front matter `aliases`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// What was read with a problem but did not stop the ingest (front matter that is not
    /// valid YAML, kept as text), each naming the file or URL and the line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The readable text: markdown and plain text as written (BOM stripped, line endings
    /// normalised to `\n`), HTML reduced to markdown-like readable text, a PDF, EPUB or
    /// DOCX document read into markdown ([`wikimind_documents`]).
    pub text: String,
    /// For a paged document (a PDF), where each page lies in [`IngestedSource::text`];
    /// empty otherwise.
    #[serde(skip)]
    pub pages: Vec<wikimind_documents::Page>,
    /// The document format the source was read from (`pdf`, `epub`, `docx`); `None` for
    /// notes, text and web pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<&'static str>,
    /// For a web page that redirected elsewhere, the URL it was finally read from (without
    /// credentials); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// For a file, its size and modification time as it was read (what the staleness
    /// check of `lint` compares with the file on disk); `None` otherwise.
    #[serde(skip)]
    pub file: Option<FileStamp>,
    /// For a file, the folder it was read from: the folder ingested or watched, or the
    /// file's own folder when it was ingested alone (its notes' paths are relative to it,
    /// see `docs/notes.md`, "A note is itself"); `None` otherwise.
    #[serde(skip)]
    pub root: Option<String>,
    /// For a PDF downloaded from a URL, the bytes read: the wiki keeps a copy in its data
    /// dir so a citation's page can be shown as an image (a file's PDF is read again from
    /// its path). `None` otherwise.
    #[serde(skip)]
    pub original: Option<std::sync::Arc<[u8]>>,
}

/// A file's size and modification time, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time in nanoseconds since the Unix epoch (negative before it).
    pub mtime_ns: i64,
}

impl FileStamp {
    /// The stamp of a file's metadata; `None` where the platform gives no modification
    /// time.
    pub fn of(metadata: &std::fs::Metadata) -> Option<FileStamp> {
        let modified = metadata.modified().ok()?;
        let mtime_ns = match modified.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_nanos()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_nanos()).unwrap_or(i64::MAX),
        };
        Some(FileStamp {
            size: metadata.len(),
            mtime_ns,
        })
    }
}

/// Limits and settings for ingestion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestOptions {
    /// The largest file or download accepted, in bytes. Default [`DEFAULT_MAX_BYTES`].
    pub max_bytes: u64,
    /// The time limit for one download, connection included. Default [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// Who is told how far the reading of a large document has come (the CLI's progress
    /// line, the window's); `None`: nobody.
    pub progress: Option<ReadingSink>,
}

impl IngestOptions {
    /// The limits `settings` ask for (`compile.max_source_bytes`), the rest by default.
    pub fn from_settings(settings: &crate::config::Settings) -> IngestOptions {
        IngestOptions {
            max_bytes: settings.compile.max_source_bytes,
            ..IngestOptions::default()
        }
    }
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            max_bytes: DEFAULT_MAX_BYTES,
            timeout: DEFAULT_TIMEOUT,
            progress: None,
        }
    }
}

/// How far the reading of one document has come: a PDF's pages as Poppler reads them
/// (the one format whose reading takes long: about a second per 300 pages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReadingProgress {
    /// The file's path as given, or the URL.
    pub what: String,
    /// The pages read so far.
    pub pages_read: u32,
    /// How many pages it has (or the most that are read), where that is known.
    pub pages: Option<u32>,
    /// Whether it is still being read: `false` in the last report of a document, sent once
    /// its reading ended (read or refused), so a shell can take its line away.
    pub reading: bool,
    /// The line a shell shows: `Reading paper.pdf: page 120 of 300` (`Read paper.pdf` in
    /// the last report).
    pub line: String,
}

impl ReadingProgress {
    /// `pages_read` of `pages` of `what` read, the reading going on.
    pub fn new(what: &str, pages_read: u32, pages: Option<u32>) -> ReadingProgress {
        let line = match pages {
            Some(pages) => format!("Reading {what}: page {pages_read} of {pages}"),
            None => format!("Reading {what}: page {pages_read}"),
        };
        ReadingProgress {
            what: what.to_owned(),
            pages_read,
            pages,
            reading: true,
            line,
        }
    }

    /// The last report of `what`: its reading ended after `pages_read` pages.
    pub fn ended(what: &str, pages_read: u32, pages: Option<u32>) -> ReadingProgress {
        ReadingProgress {
            what: what.to_owned(),
            pages_read,
            pages,
            reading: false,
            line: format!("Read {what}"),
        }
    }
}

/// Where [`ReadingProgress`] goes: a function shared by every ingest made with the same
/// options. It is called on the thread that reads, at most every
/// [`READING_PROGRESS_EVERY`] and at the first and last page.
#[derive(Clone)]
pub struct ReadingSink(pub std::sync::Arc<dyn Fn(&ReadingProgress) + Send + Sync>);

/// How often at most a [`ReadingSink`] is told of pages read (besides the first and last).
pub const READING_PROGRESS_EVERY: Duration = Duration::from_millis(100);

impl std::fmt::Debug for ReadingSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadingSink")
    }
}

impl PartialEq for ReadingSink {
    fn eq(&self, other: &ReadingSink) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ReadingSink {}

/// What one call to [`ingest_path`] produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IngestReport {
    /// The sources read, in a deterministic order (folder entries sorted by name, depth first).
    pub sources: Vec<IngestedSource>,
    /// Files and folders inside a folder that were not read, with the reason.
    pub skipped: Vec<Skipped>,
    /// The folder is an Obsidian vault (it holds `.obsidian/`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub vault: bool,
    /// The folder is a WikiMind export (it holds [`EXPORT_MARKER`]): only its pages were
    /// read, not its `sources/` and `notes/` copies.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub export: bool,
}

/// The file at the top of a folder `wikimind export` wrote, by which ingest knows it.
pub const EXPORT_MARKER: &str = ".wikimind-export";

impl IngestReport {
    /// How many entries were skipped for each reason, keyed by [`SkipReason::label`],
    /// sorted by label.
    pub fn skipped_counts(&self) -> Vec<(&'static str, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for skipped in &self.skipped {
            *counts.entry(skipped.reason.label()).or_insert(0) += 1;
        }
        counts.into_iter().collect()
    }
}

/// A folder entry that was not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The entry's path as found while walking the folder.
    #[serde(serialize_with = "serialize_path_lossy")]
    pub path: PathBuf,
    /// Why it was not read.
    pub reason: SkipReason,
}

/// Why a folder entry was not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum SkipReason {
    /// A hidden file or folder (its name starts with a dot).
    Hidden,
    /// An Obsidian vault's settings folder (`.obsidian/`).
    VaultSettings,
    /// An Obsidian vault's trash folder (`.trash/`).
    Trash,
    /// Named by the folder's [`IGNORE_FILE`] (`.wikimindignore`, gitignore syntax).
    Ignored,
    /// A file a note embeds or links that is not a note (an image, a PDF, a canvas: see
    /// [`crate::text::markdown::link::ATTACHMENT_EXTENSIONS`]).
    Attachment,
    /// The `sources/` or `notes/` folder of a WikiMind export: copies of what the wiki
    /// was written from, not pages.
    ExportCopy,
    /// An extension WikiMind does not read (see [`SUPPORTED_EXTENSIONS`]).
    UnsupportedExtension,
    /// The file contains binary data.
    Binary,
    /// The file is not valid UTF-8.
    NotUtf8,
    /// The file is empty or holds only whitespace.
    Empty,
    /// The file is larger than [`IngestOptions::max_bytes`].
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A folder already walked (a symlink loop or a second link to the same folder), or a
    /// file already read through another path.
    AlreadySeen,
    /// A symlink that resolves outside the folder being read (to a home folder, say). It is
    /// never followed: ingest stays inside the folder a person named.
    OutsideFolder,
    /// Neither a regular file nor a folder (a socket, a device, a dangling symlink).
    NotAFile,
    /// A document (PDF, EPUB, DOCX) that could not be read: damaged, encrypted, a scan
    /// without text, hostile, or a tool it needs is missing.
    BadDocument {
        /// Why, in words a person can act on.
        message: String,
    },
    /// The entry could not be read.
    Unreadable {
        /// The operating system's message.
        message: String,
    },
}

impl SkipReason {
    /// A short stable name for the reason (`hidden`, `vault_settings`, `trash`,
    /// `ignored`, `attachment`, `export_copy`, `unsupported_extension`, `binary`, `not_utf8`, `empty`,
    /// `too_large`, `already_seen`, `outside_folder`, `not_a_file`, `bad_document`,
    /// `unreadable`).
    pub fn label(&self) -> &'static str {
        match self {
            SkipReason::Hidden => "hidden",
            SkipReason::VaultSettings => "vault_settings",
            SkipReason::Trash => "trash",
            SkipReason::Ignored => "ignored",
            SkipReason::Attachment => "attachment",
            SkipReason::ExportCopy => "export_copy",
            SkipReason::UnsupportedExtension => "unsupported_extension",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not_utf8",
            SkipReason::Empty => "empty",
            SkipReason::TooLarge { .. } => "too_large",
            SkipReason::AlreadySeen => "already_seen",
            SkipReason::OutsideFolder => "outside_folder",
            SkipReason::NotAFile => "not_a_file",
            SkipReason::BadDocument { .. } => "bad_document",
            SkipReason::Unreadable { .. } => "unreadable",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Hidden => f.write_str("hidden"),
            SkipReason::VaultSettings => f.write_str("vault settings (.obsidian)"),
            SkipReason::Trash => f.write_str("vault trash (.trash)"),
            SkipReason::Ignored => f.write_str("ignored by .wikimindignore"),
            SkipReason::Attachment => f.write_str("attachment"),
            SkipReason::ExportCopy => f.write_str("a WikiMind export's copy of its sources"),
            SkipReason::UnsupportedExtension => f.write_str("unsupported file type"),
            SkipReason::Binary => f.write_str("binary data"),
            SkipReason::NotUtf8 => f.write_str("not UTF-8 text"),
            SkipReason::Empty => f.write_str("empty"),
            SkipReason::TooLarge { size, limit } => {
                write!(f, "too large ({size} bytes, limit {limit})")
            }
            SkipReason::AlreadySeen => f.write_str("already read through another path"),
            SkipReason::OutsideFolder => f.write_str("outside the folder"),
            SkipReason::NotAFile => f.write_str("not a regular file"),
            SkipReason::BadDocument { message } => write!(f, "not read: {message}"),
            SkipReason::Unreadable { message } => write!(f, "unreadable: {message}"),
        }
    }
}

fn serialize_path_lossy<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// Why something could not be ingested. Every message names the path or URL and says what
/// to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// The path does not exist.
    #[error("{}: no such file or folder — check the path", .path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// Reading the path failed.
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        /// The path being read.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file's extension is not one WikiMind reads.
    #[error(
        "{}: unsupported file type — WikiMind reads .md, .markdown, .txt, .html, .htm, .pdf, \
         .epub and .docx files",
        .path.display()
    )]
    UnsupportedFile {
        /// The file.
        path: PathBuf,
    },
    /// The path is neither a regular file nor a folder.
    #[error("{}: not a regular file or folder", .path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file contains binary data.
    #[error("{}: contains binary data, not text — convert it to markdown or plain text first", .path.display())]
    Binary {
        /// The file.
        path: PathBuf,
    },
    /// The file is not valid UTF-8.
    #[error(
        "{}: not valid UTF-8 (first bad byte at offset {offset}) — re-save it as UTF-8",
        .path.display()
    )]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// A document (PDF, EPUB, DOCX) could not be read.
    #[error("{what}: {source}")]
    Document {
        /// The file or URL.
        what: String,
        /// Why.
        #[source]
        source: wikimind_documents::DocumentError,
    },
    /// The file is empty or holds only whitespace.
    #[error("{}: empty — there is no text to compile", .path.display())]
    EmptyFile {
        /// The file.
        path: PathBuf,
    },
    /// The file is larger than the limit.
    #[error(
        "{}: too large ({size} bytes, limit {limit}) — split it or raise `compile.max_source_bytes`",
        .path.display()
    )]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes (at least; reading stopped at the limit).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Pasted text or stdin held no text.
    #[error("{what}: empty — there is no text to compile")]
    EmptyText {
        /// `pasted text` or `stdin`.
        what: &'static str,
    },
    /// The URL, a redirect or an address it resolves to is not public, and the download
    /// may reach public addresses only ([`Reach::PublicOnly`]).
    #[error(
        "{url}: refused: {reason} — only public addresses may be fetched here; add a page \
         from your own network yourself, with `wikimind ingest`"
    )]
    NotPublic {
        /// The URL as given (without credentials).
        url: String,
        /// Which host, which address and what kind.
        reason: String,
    },
    /// The URL is not one that can be fetched: it does not parse, or its scheme is not
    /// http or https (the message never repeats credentials).
    #[error(transparent)]
    Url(#[from] wikimind_text::url::UrlError),
    /// The server did not answer in time.
    #[error("{url}: no complete answer within {seconds} s — check the address or try again later")]
    Timeout {
        /// The URL.
        url: String,
        /// The time limit in seconds.
        seconds: u64,
    },
    /// The request failed (DNS, connection, TLS, protocol).
    #[error("{url}: request failed: {source} — check the address and your network")]
    Http {
        /// The URL.
        url: String,
        /// The underlying error.
        #[source]
        source: reqwest::Error,
    },
    /// The server answered with an error status.
    #[error("{url}: the server answered {status}")]
    Status {
        /// The URL.
        url: String,
        /// The HTTP status code.
        status: u16,
    },
    /// The page is not HTML, markdown, plain text or a document WikiMind reads.
    #[error(
        "{url}: unsupported content type `{content_type}` — WikiMind reads HTML, markdown and \
         plain text pages, and PDF, EPUB and DOCX documents; download the file and convert it \
         to text first"
    )]
    UnsupportedContentType {
        /// The URL.
        url: String,
        /// The content type the server declared.
        content_type: String,
    },
    /// The download is larger than the limit.
    #[error("{url}: larger than the limit of {limit} bytes — raise the size limit or save a smaller part of the page")]
    ResponseTooLarge {
        /// The URL.
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The downloaded page held no readable text.
    #[error("{url}: the page has no readable text")]
    EmptyPage {
        /// The URL.
        url: String,
    },
}

/// The result type of this module.
pub type Result<T, E = IngestError> = std::result::Result<T, E>;
