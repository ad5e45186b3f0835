//! One batch of changes reconciled with the store: what is on disk now against the
//! sources the wiki holds, by size and mtime first, then by the content hash.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::ingest::{self, FolderRules, IngestError, IngestedSource, SkipReason};
use crate::store::{FileSourceRow, Landed, SourceId, SourceStatus};
use crate::wiki::{Result, Wiki};

use super::{Folder, RescanReason, Say, Signal, WatchEvent};

/// What a batch asks to look at.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// Paths the OS said changed.
    pub(super) paths: BTreeSet<PathBuf>,
    /// Folders to rescan whole, by index, and why.
    pub(super) rescan: BTreeMap<usize, RescanReason>,
    /// Every folder is to be rescanned, and why.
    all: Option<RescanReason>,
}

impl Batch {
    /// A rescan of every folder.
    pub(super) fn rescan_all(reason: RescanReason) -> Batch {
        Batch {
            all: Some(reason),
            ..Batch::default()
        }
    }

    /// Adds what a signal says (its errors go to `sink` as warnings).
    pub(super) fn add(&mut self, signal: Signal, sink: &Say<'_>) {
        match signal {
            Signal::Changed(paths) => self.paths.extend(paths),
            Signal::Rescan => {
                self.all.get_or_insert(RescanReason::Overflow);
            }
            Signal::Errors(errors) => {
                for message in errors {
                    sink(&WatchEvent::Warning { message });
                }
            }
        }
    }

    /// Whether there is nothing to look at.
    pub(super) fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.rescan.is_empty() && self.all.is_none()
    }

    /// Whether this is the rescan a watcher starts with.
    pub(super) fn start(&self) -> bool {
        self.all == Some(RescanReason::Start)
    }
}

/// What a batch did.
#[derive(Debug, Default)]
pub(super) struct Reconciled {
    /// Sources to compile (added, changed, or left uncompiled when watching started).
    pub(super) compile: Vec<SourceId>,
    /// Whether a source moved or was removed (pages may need writing).
    pub(super) changed: bool,
    /// Files that could not be read, with the message.
    pub(super) unreadable: Vec<(PathBuf, String)>,
    /// Files looked at that are now settled (read, unchanged, or gone).
    pub(super) settled: Vec<PathBuf>,
}

/// Brings the store in step with what `batch` names: reads new and changed files, moves
/// the sources of renamed ones, removes those of files that are gone. A paused folder is
/// left alone: nothing under it is removed.
pub(super) fn reconcile(
    wiki: &Wiki,
    folders: &mut [Folder],
    batch: Batch,
    sink: &Say<'_>,
) -> Result<Reconciled> {
    let start = batch.start();
    let mut rescan = batch.rescan;
    if let Some(reason) = batch.all {
        for index in 0..folders.len() {
            rescan.entry(index).or_insert(reason);
        }
    }
    let mut present: Vec<(PathBuf, usize)> = Vec::new();
    let mut gone_origins: BTreeSet<String> = BTreeSet::new();
    let mut gone_prefixes: BTreeSet<String> = BTreeSet::new();
    for path in batch.paths {
        let Some(index) = folders
            .iter()
            .position(|f| !f.paused && path.starts_with(&f.path))
        else {
            continue;
        };
        let folder = &mut folders[index];
        if path.parent() == Some(folder.path.as_path())
            && path.file_name().and_then(|n| n.to_str()) == Some(ingest::IGNORE_FILE)
        {
            folder.rules = FolderRules::of(&folder.path);
            rescan.entry(index).or_insert(RescanReason::Rules);
            continue;
        }
        let relative = path.strip_prefix(&folder.path).unwrap_or(&path);
        let is_dir = path.is_dir();
        if relative.as_os_str().is_empty() || folder.rules.skip_reason(relative, is_dir).is_some() {
            continue;
        }
        if is_dir {
            // A folder appeared or moved in: what it holds is found by a rescan.
            rescan.entry(index).or_insert(RescanReason::Rules);
        } else if !path.exists() {
            // What the OS said went is looked up even when its folder is rescanned.
            let origin = ingest::path_origin(&path);
            gone_prefixes.insert(format!("{origin}{}", std::path::MAIN_SEPARATOR));
            gone_origins.insert(origin);
        } else if !rescan.contains_key(&index) {
            present.push((path, index));
        }
    }
    let mut done = Reconciled::default();
    let mut gone_rows: Vec<FileSourceRow> = Vec::new();
    for (&index, &reason) in &rescan {
        let folder = &folders[index];
        if folder.paused {
            continue;
        }
        sink(&WatchEvent::Rescan {
            folder: folder.shown(),
            reason,
        });
        let listing = match ingest::list_folder(&folder.path) {
            Ok(listing) => listing,
            Err(e) => {
                sink(&WatchEvent::Warning {
                    message: e.to_string(),
                });
                continue;
            }
        };
        sink(&WatchEvent::Listed {
            folder: folder.shown(),
            files: listing.files.len(),
            documents: listing
                .files
                .iter()
                .filter(|f| ingest::is_document(&f.path))
                .count(),
        });
        let empty = listing.files.is_empty() && listing.skipped.is_empty();
        present.extend(listing.files.into_iter().map(|f| (f.path, index)));
        let under = wiki.store().file_sources_under(&folder.prefix)?;
        if empty && !under.is_empty() {
            // A folder that had notes and now holds nothing at all is more likely a share
            // or drive not there than notes all deleted: nothing is removed on its word.
            sink(&WatchEvent::Warning {
                message: format!(
                    "{} is empty: its {} source(s) are kept (`wikimind rm` removes one)",
                    folder.shown(),
                    under.len()
                ),
            });
            continue;
        }
        for (row, status) in under {
            if start && matches!(status, SourceStatus::Pending | SourceStatus::Stale) {
                done.compile.push(row.id);
            }
            gone_rows.push(row);
        }
    }
    for origin in &gone_origins {
        if let Some((row, _)) = wiki.store().file_source_at(origin)? {
            gone_rows.push(row);
        }
    }
    for prefix in &gone_prefixes {
        gone_rows.extend(
            wiki.store()
                .file_sources_under(prefix)?
                .into_iter()
                .map(|(row, _)| row),
        );
    }

    let reads = read_present(wiki, folders, present, &mut done, sink)?;

    // Gone: a source under a folder that is there, whose file is not.
    let mut seen = BTreeSet::new();
    let mut gone: Vec<FileSourceRow> = gone_rows
        .into_iter()
        .filter(|row| seen.insert(row.id))
        .filter(|row| {
            folders
                .iter()
                .any(|f| row.origin.starts_with(&f.prefix) && f.present())
                && !row.origin.starts_with(ingest::BYTES_ORIGIN_PREFIX)
                && std::fs::symlink_metadata(&row.origin)
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        })
        .collect();
    done.compile.retain(|id| !gone.iter().any(|g| g.id == *id));

    // A new file whose text is that of a source that just went is the same file, moved.
    for (source, existed) in &reads {
        if *existed {
            continue;
        }
        let hash = crate::text::hash::content_hash(&source.text);
        let Some(at) = gone.iter().position(|g| g.content_hash == hash) else {
            continue;
        };
        let moved = gone.remove(at);
        wiki.store().move_source(moved.id, &source.origin)?;
        done.changed = true;
        sink(&WatchEvent::Moved {
            source_id: moved.id,
            from: moved.origin,
            to: source.origin.clone(),
        });
    }
    for row in gone {
        if wiki.remove_source(row.id)? {
            done.changed = true;
            sink(&WatchEvent::Removed {
                source_id: row.id,
                origin: row.origin,
            });
        }
    }
    for (source, _) in reads {
        let added = wiki.add_sources(std::slice::from_ref(&source))?;
        for a in added {
            if a.outcome != Landed::Unchanged {
                sink(&WatchEvent::Ingested {
                    source_id: a.source_id,
                    path: a.origin,
                    outcome: a.outcome,
                });
                if !done.compile.contains(&a.source_id) {
                    done.compile.push(a.source_id);
                }
            }
        }
    }
    Ok(done)
}

/// Reads the files of `present` whose size or time differ from their source's (or that
/// have no source), each once. Returns what was read, and whether a source had its
/// origin already.
fn read_present(
    wiki: &Wiki,
    folders: &[Folder],
    present: Vec<(PathBuf, usize)>,
    done: &mut Reconciled,
    sink: &Say<'_>,
) -> Result<Vec<(IngestedSource, bool)>> {
    let mut seen = BTreeSet::new();
    let mut reads = Vec::new();
    for (path, index) in present {
        if !supported(&path) {
            continue;
        }
        let canonical = match std::fs::canonicalize(&path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                done.unreadable.push((path, e.to_string()));
                continue;
            }
        };
        // A symlink that leads out of the folder is never followed.
        if !canonical.starts_with(&folders[index].path) || !seen.insert(canonical.clone()) {
            continue;
        }
        let origin = ingest::path_origin(&canonical);
        let existing = wiki.store().file_source_at(&origin)?;
        let stamp = std::fs::metadata(&canonical)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| ingest::FileStamp::of(&m));
        if let (Some((row, _)), Some(stamp)) = (&existing, stamp) {
            if row.file_size == Some(stamp.size) && row.file_mtime_ns == Some(stamp.mtime_ns) {
                done.settled.push(path);
                continue;
            }
        }
        match ingest::ingest_path(&path, wiki.ingest_options()) {
            Ok(report) => {
                // A watched note's root is the watched folder, not the file's own folder.
                let root = ingest::path_origin(&folders[index].path);
                reads.extend(report.sources.into_iter().map(|mut s| {
                    s.root = Some(root.clone());
                    (s, existing.is_some())
                }));
                done.settled.push(path);
            }
            Err(IngestError::NotFound { .. }) => done.settled.push(path),
            Err(IngestError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                done.settled.push(path)
            }
            Err(IngestError::Io { source, .. }) => {
                done.unreadable.push((path, source.to_string()));
            }
            Err(e) => {
                if let Some(reason) = skip_reason(&e) {
                    sink(&WatchEvent::Skipped {
                        path: path.to_string_lossy().into_owned(),
                        reason,
                    });
                }
                done.settled.push(path);
            }
        }
    }
    Ok(reads)
}

/// Whether ingest reads a file of this name (by its extension).
fn supported(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ingest::SUPPORTED_EXTENSIONS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(e))
    })
}

/// The reason folder ingest gives for a file it would not take.
fn skip_reason(error: &IngestError) -> Option<SkipReason> {
    Some(match error {
        IngestError::Binary { .. } => SkipReason::Binary,
        IngestError::NotUtf8 { .. } => SkipReason::NotUtf8,
        IngestError::EmptyFile { .. } => SkipReason::Empty,
        IngestError::FileTooLarge { size, limit, .. } => SkipReason::TooLarge {
            size: *size,
            limit: *limit,
        },
        IngestError::NotAFile { .. } => SkipReason::NotAFile,
        IngestError::Document { source, .. } => SkipReason::BadDocument {
            message: source.to_string(),
        },
        _ => return None,
    })
}
