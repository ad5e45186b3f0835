//! Files and folders.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::html::readable_html;
use super::text::{clean_title, markdown_title, normalise_text};
use super::{
    IngestError, IngestOptions, IngestReport, IngestedSource, Result, SkipReason, Skipped,
    SourceKind,
};

/// Reads one file or every supported file in a folder.
///
/// A file must be `.md`, `.markdown`, `.txt`, `.html` or `.htm`, UTF-8 text (a byte order
/// mark is stripped, line endings become `\n`), not blank and not larger than
/// [`IngestOptions::max_bytes`]; otherwise it is refused with an error naming the path and
/// the reason.
///
/// A folder is walked recursively in a deterministic order (entries sorted by name, depth
/// first). Hidden entries, unsupported extensions and files that are binary, not UTF-8,
/// blank, too large or unreadable are listed in [`IngestReport::skipped`] with the reason
/// instead of failing the whole folder. Symlinks are followed, but a folder or file reached
/// twice (a symlink loop, say) is read once. A folder with nothing readable gives an empty
/// [`IngestReport::sources`], not an error.
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
        let source = read_source_file(path, metadata.len(), options)
            .map_err(|problem| problem.into_error(path))?;
        return Ok(IngestReport {
            sources: vec![source],
            skipped: Vec::new(),
        });
    }
    if metadata.is_dir() {
        return walk_folder(path, options);
    }
    Err(IngestError::NotAFile {
        path: path.to_owned(),
    })
}

fn walk_folder(root: &Path, options: &IngestOptions) -> Result<IngestReport> {
    let mut report = IngestReport::default();
    let mut seen_dirs: HashSet<PathBuf> = HashSet::new();
    let mut seen_files: HashSet<PathBuf> = HashSet::new();

    let canonical_root = fs::canonicalize(root).map_err(|source| IngestError::Io {
        path: root.to_owned(),
        source,
    })?;
    seen_dirs.insert(canonical_root);
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
        let hidden = path
            .file_name()
            .is_some_and(|name| name.as_encoded_bytes().starts_with(b"."));
        if hidden {
            skip(&mut report, SkipReason::Hidden);
            continue;
        }
        let metadata = match fs::metadata(&path) {
            Ok(metadata) => metadata,
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
        if metadata.is_dir() {
            match fs::canonicalize(&path).map(|canonical| seen_dirs.insert(canonical)) {
                Ok(false) => {
                    skip(&mut report, SkipReason::AlreadySeen);
                }
                Ok(true) => {
                    if let Err(error) = push_children(&path, &mut pending) {
                        skip(
                            &mut report,
                            SkipReason::Unreadable {
                                message: error.to_string(),
                            },
                        );
                    }
                }
                Err(error) => skip(
                    &mut report,
                    SkipReason::Unreadable {
                        message: error.to_string(),
                    },
                ),
            }
            continue;
        }
        if !metadata.is_file() {
            skip(&mut report, SkipReason::NotAFile);
            continue;
        }
        if supported_extension(&path).is_none() {
            skip(&mut report, SkipReason::UnsupportedExtension);
            continue;
        }
        match fs::canonicalize(&path).map(|canonical| seen_files.insert(canonical)) {
            Ok(false) => {
                skip(&mut report, SkipReason::AlreadySeen);
                continue;
            }
            Ok(true) => {}
            Err(error) => {
                skip(
                    &mut report,
                    SkipReason::Unreadable {
                        message: error.to_string(),
                    },
                );
                continue;
            }
        }
        match read_source_file(&path, metadata.len(), options) {
            Ok(source) => report.sources.push(source),
            Err(problem) => skip(&mut report, problem.into_skip_reason()),
        }
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
}

fn supported_extension(path: &Path) -> Option<FileType> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "md" | "markdown" => Some(FileType::Markdown),
        "txt" => Some(FileType::PlainText),
        "html" | "htm" => Some(FileType::Html),
        _ => None,
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
            FileProblem::Io(error) => SkipReason::Unreadable {
                message: error.to_string(),
            },
        }
    }
}

/// Reads one regular file whose size the caller looked up.
fn read_source_file(
    path: &Path,
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
    fs::File::open(path)
        .and_then(|file| file.take(limit.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(FileProblem::Io)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > limit {
        return Err(FileProblem::TooLarge { size: read, limit });
    }
    if bytes.contains(&0) {
        return Err(FileProblem::Binary);
    }
    let raw = std::str::from_utf8(&bytes).map_err(|error| FileProblem::NotUtf8 {
        offset: error.valid_up_to(),
    })?;
    let normalised = normalise_text(raw);
    let stem = path
        .file_stem()
        .and_then(|stem| clean_title(&stem.to_string_lossy()));
    let (title, text) = match file_type {
        FileType::Markdown => (markdown_title(&normalised).or(stem), normalised),
        FileType::PlainText => (stem, normalised),
        FileType::Html => {
            let readable = readable_html(&normalised);
            (readable.title.or(stem), readable.text)
        }
    };
    if text.trim().is_empty() {
        return Err(FileProblem::Empty);
    }
    let canonical = fs::canonicalize(path).map_err(FileProblem::Io)?;
    Ok(IngestedSource {
        origin: canonical.to_string_lossy().into_owned(),
        kind: SourceKind::File,
        title,
        text,
    })
}
