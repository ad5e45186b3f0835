//! Files and folders.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::document::DocumentType;
use super::text::{clean_title, markdown_meta, normalise_text, MarkdownMeta};
use super::{
    FileStamp, IngestError, IngestOptions, IngestReport, IngestedSource, Result, SkipReason,
    Skipped, SourceKind,
};
use wikimind_documents::html::readable_html;

/// Reads one file or every supported file in a folder.
///
/// A file must be `.md`, `.markdown`, `.txt`, `.html` or `.htm`, UTF-8 text (a byte order
/// mark is stripped, line endings become `\n`), not blank and not larger than
/// [`IngestOptions::max_bytes`]; or a `.pdf`, `.epub` or `.docx` document that its reader
/// ([`wikimind_documents`]) can read; otherwise it is refused with an error naming the path
/// and the reason.
///
/// A folder is walked recursively in a deterministic order (entries sorted by name, depth
/// first). Hidden entries, unsupported extensions and files that are binary, not UTF-8,
/// blank, too large or unreadable are listed in [`IngestReport::skipped`] with the reason
/// instead of failing the whole folder. The walk never leaves the folder: a symlink that
/// resolves outside it (to a file or a folder) is listed as [`SkipReason::OutsideFolder`]
/// and not followed; one that stays inside is followed, but a folder or file reached twice
/// (a symlink loop, say) is read once. A folder with nothing readable gives an empty
/// [`IngestReport::sources`], not an error.
///
/// A file's origin is its canonical path (see [`path_origin`] for names that are not
/// UTF-8).
pub fn ingest_path(path: impl AsRef<Path>, options: &IngestOptions) -> Result<IngestReport> {
    let path = path.as_ref();
    let metadata = fs::metadata(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => IngestError::NotFound {
            path: path.to_owned(),
        },
        _ => IngestError::Io {
            path: path.to_owned(),
            source,
        },
    })?;
    if metadata.is_file() {
        let canonical = fs::canonicalize(path).map_err(|source| IngestError::Io {
            path: path.to_owned(),
            source,
        })?;
        let mut source = read_source_file(path, &canonical, metadata.len(), options)
            .map_err(|problem| problem.into_error(path))?;
        // A file ingested alone: its own folder is its root.
        source.root = canonical.parent().map(path_origin);
        return Ok(IngestReport {
            sources: vec![source],
            ..IngestReport::default()
        });
    }
    if metadata.is_dir() {
        let mut report = walk_folder(path, options)?;
        // Every note of the folder has the folder as its root.
        let root = fs::canonicalize(path).ok().map(|c| path_origin(&c));
        for source in &mut report.sources {
            source.root.clone_from(&root);
        }
        return Ok(report);
    }
    Err(IngestError::NotAFile {
        path: path.to_owned(),
    })
}

fn walk_folder(root: &Path, options: &IngestOptions) -> Result<IngestReport> {
    walk(
        root,
        &mut |path, canonical, metadata, report| match read_source_file(
            path,
            canonical,
            metadata.len(),
            options,
        ) {
            Ok(source) => report.sources.push(source),
            Err(problem) => report.skipped.push(Skipped {
                path: path.to_owned(),
                reason: problem.into_skip_reason(),
            }),
        },
    )
}

/// A file a folder holds that ingest would read, found without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// Its path as found while walking the folder.
    pub path: PathBuf,
    /// Where it really is (its origin is [`path_origin`] of this).
    pub canonical: PathBuf,
    /// Its size and modification time now.
    pub stamp: Option<FileStamp>,
}

/// What [`list_folder`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderListing {
    /// The files ingest would read, in the order it reads them.
    pub files: Vec<ListedFile>,
    /// The entries it would not read, and why (the reasons known without reading).
    pub skipped: Vec<Skipped>,
}

/// The files of a folder that [`ingest_path`] would read, by the same rules (hidden
/// entries, the vault's settings and trash, [`super::IGNORE_FILE`], attachments, other
/// extensions, symlinks that lead out), each with its size and modification time, and
/// without reading any: what a rescan compares with the sources it holds.
pub fn list_folder(root: &Path) -> Result<FolderListing> {
    let mut files = Vec::new();
    let report = walk(root, &mut |path, canonical, metadata, _| {
        files.push(ListedFile {
            path: path.to_owned(),
            canonical: canonical.to_owned(),
            stamp: FileStamp::of(metadata),
        });
    })?;
    Ok(FolderListing {
        files,
        skipped: report.skipped,
    })
}

/// What the walk hands each file it would read: the path as found, where it really is, its
/// metadata, and the report to add to.
type OnFile<'a> = dyn FnMut(&Path, &Path, &fs::Metadata, &mut IngestReport) + 'a;

/// Walks a folder by the rules of [`ingest_path`], calling `on_file` for each file with a
/// supported extension that it would read, in name order, depth first.
fn walk(root: &Path, on_file: &mut OnFile<'_>) -> Result<IngestReport> {
    let mut report = IngestReport::default();
    let rules = super::FolderRules::of(root);
    let mut seen_dirs: HashSet<PathBuf> = HashSet::new();
    let mut seen_files: HashSet<PathBuf> = HashSet::new();

    let canonical_root = fs::canonicalize(root).map_err(|source| IngestError::Io {
        path: root.to_owned(),
        source,
    })?;
    seen_dirs.insert(canonical_root.clone());
    report.vault = root.join(".obsidian").is_dir();
    report.export = root.join(super::EXPORT_MARKER).is_file();
    let mut pending: Vec<PathBuf> = Vec::new();
    // The root must be listable; a folder below it that is not is only skipped.
    push_children(root, &mut pending).map_err(|source| IngestError::Io {
        path: root.to_owned(),
        source,
    })?;

    while let Some(path) = pending.pop() {
        let skip = |report: &mut IngestReport, reason: SkipReason| {
            report.skipped.push(Skipped {
                path: path.clone(),
                reason,
            });
        };
        let name = path.file_name().unwrap_or_default();
        if name.as_encoded_bytes().starts_with(b".") {
            let reason = match name.to_str() {
                Some(".obsidian") => SkipReason::VaultSettings,
                Some(".trash") => SkipReason::Trash,
                _ => SkipReason::Hidden,
            };
            skip(&mut report, reason);
            continue;
        }
        if report.export
            && path.parent() == Some(root)
            && matches!(name.to_str(), Some("sources" | "notes"))
        {
            skip(&mut report, SkipReason::ExportCopy);
            continue;
        }
        // Every entry is judged by where it really is: a symlink is resolved first, and one
        // that leads out of the folder is never followed (a link to the home folder must not
        // pull every note there into the wiki and to the model).
        let canonical = match fs::canonicalize(&path) {
            Ok(canonical) => canonical,
            Err(error) => {
                let dangling = fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink());
                let reason = if dangling {
                    SkipReason::NotAFile
                } else {
                    SkipReason::Unreadable {
                        message: error.to_string(),
                    }
                };
                skip(&mut report, reason);
                continue;
            }
        };
        if !canonical.starts_with(&canonical_root) {
            skip(&mut report, SkipReason::OutsideFolder);
            continue;
        }
        let metadata = match fs::metadata(&canonical) {
            Ok(metadata) => metadata,
            Err(error) => {
                skip(
                    &mut report,
                    SkipReason::Unreadable {
                        message: error.to_string(),
                    },
                );
                continue;
            }
        };
        let relative = path.strip_prefix(root).unwrap_or(&path);
        if let Some(reason) = rules.skip_reason(relative, metadata.is_dir()) {
            skip(&mut report, reason);
            continue;
        }
        if metadata.is_dir() {
            if !seen_dirs.insert(canonical.clone()) {
                skip(&mut report, SkipReason::AlreadySeen);
            } else if let Err(error) = push_children(&path, &mut pending) {
                skip(
                    &mut report,
                    SkipReason::Unreadable {
                        message: error.to_string(),
                    },
                );
            }
            continue;
        }
        if !metadata.is_file() {
            skip(&mut report, SkipReason::NotAFile);
            continue;
        }
        if supported_extension(&path).is_none() {
            let attachment = name
                .to_str()
                .is_some_and(crate::text::markdown::link::is_attachment);
            skip(
                &mut report,
                if attachment {
                    SkipReason::Attachment
                } else {
                    SkipReason::UnsupportedExtension
                },
            );
            continue;
        }
        if !seen_files.insert(canonical.clone()) {
            skip(&mut report, SkipReason::AlreadySeen);
            continue;
        }
        on_file(&path, &canonical, &metadata, &mut report);
    }
    Ok(report)
}

/// Pushes a folder's entries on the stack so that they pop in name order.
fn push_children(dir: &Path, pending: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut children = Vec::new();
    for entry in fs::read_dir(dir)? {
        children.push(entry?.path());
    }
    children.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    pending.extend(children.into_iter().rev());
    Ok(())
}

/// The file type by extension, if WikiMind reads it (see [`super::SUPPORTED_EXTENSIONS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileType {
    Markdown,
    PlainText,
    Html,
    Document(DocumentType),
}

fn supported_extension(path: &Path) -> Option<FileType> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "md" | "markdown" => Some(FileType::Markdown),
        "txt" => Some(FileType::PlainText),
        "html" | "htm" => Some(FileType::Html),
        other => DocumentType::of_extension(other).map(FileType::Document),
    }
}

/// Why one file could not be read; an error when named, a skip inside a folder.
#[derive(Debug)]
enum FileProblem {
    Unsupported,
    Binary,
    NotUtf8 { offset: usize },
    Empty,
    TooLarge { size: u64, limit: u64 },
    Document(wikimind_documents::DocumentError),
    Io(io::Error),
}

impl FileProblem {
    fn into_error(self, path: &Path) -> IngestError {
        let path = path.to_owned();
        match self {
            FileProblem::Unsupported => IngestError::UnsupportedFile { path },
            FileProblem::Binary => IngestError::Binary { path },
            FileProblem::NotUtf8 { offset } => IngestError::NotUtf8 { path, offset },
            FileProblem::Empty => IngestError::EmptyFile { path },
            FileProblem::TooLarge { size, limit } => {
                IngestError::FileTooLarge { path, size, limit }
            }
            FileProblem::Document(source) => IngestError::Document {
                what: path.display().to_string(),
                source,
            },
            FileProblem::Io(source) => IngestError::Io { path, source },
        }
    }

    fn into_skip_reason(self) -> SkipReason {
        match self {
            FileProblem::Unsupported => SkipReason::UnsupportedExtension,
            FileProblem::Binary => SkipReason::Binary,
            FileProblem::NotUtf8 { .. } => SkipReason::NotUtf8,
            FileProblem::Empty => SkipReason::Empty,
            FileProblem::TooLarge { size, limit } => SkipReason::TooLarge { size, limit },
            FileProblem::Document(error) => SkipReason::BadDocument {
                message: error.to_string(),
            },
            FileProblem::Io(error) => SkipReason::Unreadable {
                message: error.to_string(),
            },
        }
    }
}

/// The title a file's name gives (as written, without a Notion export's id; a folder's
/// `README.md` or `index.md` named after its folder), and whether it is its folder's index
/// note.
fn name_title(path: &Path) -> (Option<String>, bool) {
    let file_stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .map(|f| f.to_string_lossy().into_owned());
    let stem = file_stem
        .as_deref()
        .and_then(|s| wikimind_text::markdown::file_name_title(s, folder.as_deref()))
        .or_else(|| file_stem.as_deref().and_then(clean_title));
    let index = folder.is_some()
        && file_stem
            .as_deref()
            .is_some_and(wikimind_text::markdown::is_index_file);
    (stem, index)
}

/// A markdown note's own title, `read` being what the markdown reader found (front matter
/// `title`, first H1, else `stem`): an index note is its folder's — the folder's name
/// (`stem`) beats its H1; a front matter `title` is still the author's word.
fn index_note_title(
    text: &str,
    read: Option<String>,
    stem: Option<String>,
    index: bool,
) -> Option<String> {
    let titled = matches!(
        wikimind_text::markdown::front_matter::front_matter(text),
        Some(Ok(front)) if front.title.is_some()
    );
    if index && !titled {
        stem
    } else {
        read
    }
}

/// A plain text file's own title: its standalone first line, else its name (`stem`).
fn plain_text_file_title(text: &str, stem: Option<String>) -> Option<String> {
    wikimind_text::markdown::plain_text_title(text).or(stem)
}

/// What ingesting a markdown or plain text file at `path` whose (normalised) text is
/// `text` reads of it today: its own title, tags and aliases — the one rule for ingest
/// and for the backfill that re-titles what older builds stored. `None` for other files
/// (HTML, documents), whose stored text is no longer the file's.
pub(crate) fn text_file_metadata(path: &Path, text: &str) -> Option<MarkdownMeta> {
    let (stem, index) = name_title(path);
    match supported_extension(path)? {
        FileType::Markdown => {
            let mut meta = markdown_meta(text, stem.as_deref());
            meta.title = index_note_title(text, meta.title, stem, index);
            Some(meta)
        }
        FileType::PlainText => Some(MarkdownMeta {
            title: plain_text_file_title(text, stem),
            ..MarkdownMeta::default()
        }),
        FileType::Html | FileType::Document(_) => None,
    }
}

/// Reads one regular file whose size the caller looked up: `path` as found (it gives the
/// type and the fallback title), `canonical` where it really is (what is opened, and the
/// origin).
fn read_source_file(
    path: &Path,
    canonical: &Path,
    size: u64,
    options: &IngestOptions,
) -> std::result::Result<IngestedSource, FileProblem> {
    let file_type = supported_extension(path).ok_or(FileProblem::Unsupported)?;
    let limit = options.max_bytes;
    if size > limit {
        return Err(FileProblem::TooLarge { size, limit });
    }
    // The file may grow between the size check and the read: never read past the limit.
    let mut bytes = Vec::new();
    let mut stamp = None;
    open_no_follow(canonical)
        .and_then(|file| {
            // The stamp of the file as opened, before reading: a write during the read
            // changes the time after it, so the next check reads the file again.
            stamp = file.metadata().ok().as_ref().and_then(FileStamp::of);
            file.take(limit.saturating_add(1)).read_to_end(&mut bytes)
        })
        .map_err(FileProblem::Io)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > limit {
        return Err(FileProblem::TooLarge { size: read, limit });
    }
    let (stem, index) = name_title(path);
    if let FileType::Document(kind) = file_type {
        let document = kind
            .read(
                &bytes,
                stem.as_deref(),
                &path.display().to_string(),
                options.progress.as_ref(),
            )
            .map_err(FileProblem::Document)?;
        let shown = path.display();
        return Ok(IngestedSource {
            origin: path_origin(canonical),
            kind: SourceKind::File,
            title: document.title,
            tags: Vec::new(),
            aliases: Vec::new(),
            warnings: document
                .warnings
                .iter()
                .map(|w| format!("{shown}: {w}"))
                .collect(),
            text: document.text,
            pages: document.pages,
            document: Some(kind.name()),
            final_url: None,
            file: stamp,
            root: None,
            original: None,
        });
    }
    if bytes.contains(&0) {
        return Err(FileProblem::Binary);
    }
    let raw = std::str::from_utf8(&bytes).map_err(|error| FileProblem::NotUtf8 {
        offset: error.valid_up_to(),
    })?;
    let normalised = normalise_text(raw);
    let (meta, text) = match file_type {
        FileType::Markdown => {
            let mut meta = markdown_meta(&normalised, stem.as_deref());
            meta.title = index_note_title(&normalised, meta.title, stem, index);
            (meta, normalised)
        }
        FileType::PlainText => (
            MarkdownMeta {
                title: plain_text_file_title(&normalised, stem),
                ..MarkdownMeta::default()
            },
            normalised,
        ),
        FileType::Html => {
            let readable = readable_html(&normalised);
            (
                MarkdownMeta {
                    title: readable.title.or(stem),
                    ..MarkdownMeta::default()
                },
                readable.text,
            )
        }
        // Documents returned above; never reached.
        FileType::Document(_) => return Err(FileProblem::Unsupported),
    };
    if text.trim().is_empty() {
        return Err(FileProblem::Empty);
    }
    let shown = path.display();
    Ok(IngestedSource {
        origin: path_origin(canonical),
        kind: SourceKind::File,
        title: meta.title,
        tags: meta.tags,
        aliases: meta.aliases,
        warnings: meta
            .warning
            .map(|w| format!("{shown}, {w}"))
            .into_iter()
            .collect(),
        text,
        pages: Vec::new(),
        document: None,
        final_url: None,
        file: stamp,
        root: None,
        original: None,
    })
}

/// Opens a file for reading without following a symlink in its last component, so a file
/// swapped for a link after it was checked is not read through the link.
fn open_no_follow(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// What marks the origin of a file whose path is not valid UTF-8.
pub const BYTES_ORIGIN_PREFIX: &str = "bytes:";

/// The origin of a file at canonical path `path`.
///
/// A path that is valid UTF-8 is its own origin, unchanged. Any other path (a name like
/// `\xff.md`, possible on Linux) becomes `bytes:` followed by the path with every byte that
/// is not part of valid UTF-8 written as `%XX` (two upper-case hex digits) and every `%`
/// written as `%25`, so the origin can be decoded back to the exact bytes: two different
/// files never share an origin, and the same file always gets the same one. Such an origin
/// cannot be mistaken for a UTF-8 path, which is absolute and so never starts with `bytes:`.
/// On Windows the bytes are those of the path in WTF-8 (an unpaired surrogate is escaped).
pub fn path_origin(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    let mut origin = String::from(BYTES_ORIGIN_PREFIX);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '%' {
                origin.push_str("%25");
            } else {
                origin.push(c);
            }
        }
        for byte in chunk.invalid() {
            origin.push_str(&format!("%{byte:02X}"));
        }
    }
    origin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn origins_escape_only_paths_that_are_not_utf8() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let origin = |bytes: &[u8]| path_origin(Path::new(OsStr::from_bytes(bytes)));
        // UTF-8 paths are unchanged, `%` included, so existing wikis keep their origins.
        assert_eq!(
            origin("/notes/café 100%.md".as_bytes()),
            "/notes/café 100%.md"
        );
        assert_eq!(origin(b"/n/\xff.md"), "bytes:/n/%FF.md");
        assert_eq!(origin(b"/n/\xfe.md"), "bytes:/n/%FE.md");
        assert_eq!(origin(b"/100%/caf\xe9.md"), "bytes:/100%25/caf%E9.md");
        // A truncated multi-byte character is escaped byte by byte.
        assert_eq!(origin(b"/n/\xc3\xa9\xc3.md"), "bytes:/n/é%C3.md");
    }
}
