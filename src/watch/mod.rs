//! Watched folders: the wiki kept in step with the folders a person writes in.
//!
//! A [`Watcher`] watches folders (with `notify`, events debounced by
//! `notify-debouncer-full` so an editor's save-rename-write dance is one change) and
//! handles what changed in batches (module `reconcile`): a new or changed file is ingested and
//! compiled, a deleted one removes its source (any source whose origin lies under the
//! folder), a renamed or moved one keeps its source (the origin moves when the content
//! hash matches a source that disappeared in the same batch; the move is recorded). Events
//! are never trusted alone: they can be dropped (a kernel queue overflow, the `Rescan`
//! flag) or arrive unpaired, so on start, on overflow and every
//! [`WatchOptions::rescan_every`] each folder is rescanned by size, mtime and hash — only
//! files whose size or time changed are read, and nothing unchanged is recompiled.
//!
//! A folder that disappears (an unmounted drive) pauses with a message and resumes when
//! it returns; its sources are never removed meanwhile. A file that fails to read is
//! reported and tried again every [`WatchOptions::retry_every`]. The rules of what is read
//! are folder ingest's ([`crate::ingest::FolderRules`]: hidden entries, `.git`,
//! `.obsidian`, attachments, `.wikimindignore`).
//!
//! One watcher per data dir at a time: [`Watcher::new`] takes the wiki's watch lease, as a
//! running job is leased, so the app and a `wikimind watch` never both react to a change.
//! The saved list of watched folders lives in the wiki's database ([`save_folder`],
//! [`forget_folder`], [`saved_folders`]).
//!
//! The seam for tests is [`Injector`]: it hands the watcher the signals the OS would
//! (paths changed, a rescan after an overflow), and with [`EventSource::Injected`] it is
//! the only source of events.

mod keeper;
mod notify_source;
mod reconcile;

pub use keeper::{WatchKeeper, WatchListener, WatchStateView, WatchedFolderView, WatchedView};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::compile::{PageOutcome, PageReport};
use crate::ingest::{self, FolderRules, SkipReason};
use crate::queue::{JobRunner, HEARTBEAT, STALE_AFTER};
use crate::store::{JobOwner, Landed, SourceId, StoreError};
use crate::wiki::{Wiki, WikiError};

/// Why watching could not start or go on. Every message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Another process holds the wiki's watch lease.
    #[error(
        "another WikiMind process (pid {} on {}) is watching this wiki's folders — \
         stop it first, or let it do the watching",
        .holder.pid, .holder.host
    )]
    Busy {
        /// Who watches.
        holder: JobOwner,
    },
    /// No folder was named and none is saved.
    #[error("no folder to watch — name one, or save one with `wikimind watch --save DIR`")]
    NoFolders,
    /// A folder named to watch or save is not one.
    #[error("{}: not a folder — watched folders are folders", .path.display())]
    NotAFolder {
        /// The path as given.
        path: PathBuf,
    },
    /// A folder to take off the saved list is not on it.
    #[error("{} is not a saved watched folder (the list shows the saved ones)", .path.display())]
    NotSaved {
        /// The path as given.
        path: PathBuf,
    },
    /// The OS watcher could not be set up.
    #[error("cannot watch the folders: {0} — on Linux, raise fs.inotify.max_user_watches")]
    Notify(String),
    /// The wiki failed.
    #[error(transparent)]
    Wiki(#[from] WikiError),
}

impl From<StoreError> for WatchError {
    fn from(e: StoreError) -> Self {
        WatchError::Wiki(e.into())
    }
}

/// `Result` with a [`WatchError`].
pub type Result<T, E = WatchError> = std::result::Result<T, E>;

/// Where a watcher's events come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSource {
    /// The OS (`notify`), and the [`Injector`].
    Os,
    /// Only the [`Injector`] (tests that decide which events are seen, and which dropped).
    Injected,
}

/// What a watcher does with the sources it queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompileMode {
    /// Runs the queue until they are compiled and the pages they changed are written (the
    /// CLI), reporting each.
    Run,
    /// Only queues them: a runner of the shell runs the queue (the app).
    Queue,
}

/// How a watcher behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// How long a file must be quiet before its change is handled (events within it are
    /// one change). Default 500 ms.
    pub debounce: Duration,
    /// How often every folder is rescanned, whatever the events said. Default 10 minutes.
    pub rescan_every: Duration,
    /// How often unreadable files and missing folders are looked at again. Default 5 s.
    pub retry_every: Duration,
    /// Where events come from. Default [`EventSource::Os`].
    pub events: EventSource,
    /// What happens to the sources queued. Default [`CompileMode::Run`].
    pub compile: CompileMode,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: Duration::from_millis(500),
            rescan_every: Duration::from_secs(600),
            retry_every: Duration::from_secs(5),
            events: EventSource::Os,
            compile: CompileMode::Run,
        }
    }
}

/// Why a folder is rescanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RescanReason {
    /// The watcher started: changes made while nothing watched are picked up.
    Start,
    /// Events were dropped (the OS queue overflowed, or the watcher said to rescan).
    Overflow,
    /// The slow interval came round.
    Interval,
    /// The folder came back after it had gone.
    Resumed,
    /// Its `.wikimindignore` changed, or a folder inside it appeared or moved.
    Rules,
}

/// What a watcher is told: by the OS, or by a test through the [`Injector`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// These paths changed (created, written, removed, renamed from or to).
    Changed(Vec<PathBuf>),
    /// Events may have been lost: rescan every folder.
    Rescan,
    /// The OS watcher reported errors.
    Errors(Vec<String>),
}

/// Hands a running watcher signals as the OS would (the seam for tests).
#[derive(Debug, Clone)]
pub struct Injector(mpsc::UnboundedSender<Signal>);

impl Injector {
    /// Sends a signal; false when the watcher has stopped.
    pub fn send(&self, signal: Signal) -> bool {
        self.0.send(signal).is_ok()
    }

    /// Says events were dropped, as the OS does on a queue overflow.
    pub fn overflow(&self) -> bool {
        self.send(Signal::Rescan)
    }
}

/// One thing a watcher did: `wikimind watch --json` prints each as a line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum WatchEvent {
    /// Watching started on these folders (a missing one is paused).
    Watching {
        /// The folders.
        folders: Vec<String>,
    },
    /// A folder is being rescanned.
    Rescan {
        /// The folder.
        folder: String,
        /// Why.
        reason: RescanReason,
    },
    /// A folder's scan found the files ingest reads there (its notes and documents).
    Listed {
        /// The folder.
        folder: String,
        /// How many files it holds that ingest reads (documents included).
        files: usize,
        /// How many of them are documents (PDF, EPUB, DOCX).
        documents: usize,
    },
    /// A file was read and stored: `added` (a new source) or `changed` (new text).
    Ingested {
        /// Its source.
        source_id: SourceId,
        /// The file.
        path: String,
        /// `added` or `changed`.
        outcome: Landed,
    },
    /// A renamed or moved file kept its source: the origin moved.
    Moved {
        /// The source.
        source_id: SourceId,
        /// The origin before.
        from: String,
        /// The origin now.
        to: String,
    },
    /// A file that is gone took its source with it (the pages it fed were updated).
    Removed {
        /// The source removed.
        source_id: SourceId,
        /// Its origin.
        origin: String,
    },
    /// A file ingest does not take (empty, binary, not UTF-8, too large).
    Skipped {
        /// The file.
        path: String,
        /// Why (the reasons of `ingest --json`).
        reason: SkipReason,
    },
    /// A file could not be read; it is tried again.
    Unreadable {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// A source's compile ended.
    Compiled {
        /// The source.
        source_id: SourceId,
        /// Whether it compiled.
        ok: bool,
        /// Its digest's title.
        title: Option<String>,
        /// Why it failed.
        reason: Option<String>,
    },
    /// A page job ended.
    Page {
        /// The page's title.
        title: String,
        /// `written`, `no_new_information`, `up_to_date`, `flagged` or `failed`.
        outcome: &'static str,
        /// Whether it was written or needed no writing.
        ok: bool,
        /// Why it failed or was flagged.
        reason: Option<String>,
    },
    /// A watched folder is gone (an unmounted drive): watching it pauses, and its sources
    /// stay.
    Paused {
        /// The folder.
        folder: String,
        /// What a person is told.
        message: String,
    },
    /// A folder that was gone is back: it is rescanned and watched again.
    Resumed {
        /// The folder.
        folder: String,
    },
    /// Something went wrong that watching survives (an OS watcher error, a bad line in a
    /// `.wikimindignore`, a store error in one batch).
    Warning {
        /// What.
        message: String,
    },
    /// Everything seen so far is handled, and no signal waits.
    Idle,
    /// Watching stopped; `interrupted` when a compile was stopped (it stays queued and
    /// resumes with the next `watch` or `compile`).
    Stopped {
        /// Whether a compile was cut short.
        interrupted: bool,
    },
}

/// Receives each [`WatchEvent`] (called from the watcher's task: keep it quick).
pub type EventSink = dyn Fn(&WatchEvent) + Send + Sync;

/// What the parts of one batch tell events to (the sink, or a wrapper of it).
type Say<'a> = dyn Fn(&WatchEvent) + Send + Sync + 'a;

/// One folder being watched.
#[derive(Debug)]
struct Folder {
    /// Where it is (canonical when it existed).
    path: PathBuf,
    /// What its sources' origins start with.
    prefix: String,
    /// Its ignore rules.
    rules: FolderRules,
    /// Whether it is gone (paused).
    paused: bool,
    /// The device it was on when last seen: a mount point left behind by an unmounted
    /// drive is there, empty, on another device, and counts as gone.
    device: Option<u64>,
}

impl Folder {
    fn new(path: PathBuf) -> Folder {
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let mut prefix = ingest::path_origin(&path);
        if !prefix.ends_with(std::path::MAIN_SEPARATOR) {
            prefix.push(std::path::MAIN_SEPARATOR);
        }
        Folder {
            rules: FolderRules::of(&path),
            prefix,
            paused: false,
            device: std::fs::metadata(&path).ok().and_then(|m| device_of(&m)),
            path,
        }
    }

    fn shown(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// Whether it is there: a folder, on the device it was on.
    fn present(&self) -> bool {
        match std::fs::metadata(&self.path) {
            Ok(m) if m.is_dir() => self.device.is_none_or(|d| device_of(&m) == Some(d)),
            _ => false,
        }
    }
}

/// The device a file is on, where the platform says.
fn device_of(metadata: &std::fs::Metadata) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(metadata.dev())
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

/// A saved watched folder, and whether it is there now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SavedFolder {
    /// Its path (canonical when it was saved).
    pub path: String,
    /// Whether it exists now (a missing one is paused while watched).
    pub present: bool,
}

/// The saved watched folders.
pub fn saved_folders(wiki: &Wiki) -> Result<Vec<SavedFolder>> {
    Ok(wiki
        .store()
        .watched_folders()?
        .into_iter()
        .map(|path| SavedFolder {
            present: Path::new(&path).is_dir(),
            path,
        })
        .collect())
}

/// Saves a folder as watched (by its canonical path). Returns that path, and whether it
/// was new to the list.
pub fn save_folder(wiki: &Wiki, folder: &Path) -> Result<(String, bool)> {
    let canonical = std::fs::canonicalize(folder)
        .ok()
        .filter(|p| p.is_dir())
        .ok_or_else(|| WatchError::NotAFolder {
            path: folder.to_owned(),
        })?;
    let path = canonical.to_string_lossy().into_owned();
    let added = wiki.store().add_watched_folder(&path)?;
    Ok((path, added))
}

/// Takes a folder off the saved list (as given, or its canonical path); its sources stay.
/// Returns the path removed, `None` when it was not listed.
pub fn forget_folder(wiki: &Wiki, folder: &Path) -> Result<Option<String>> {
    let given = folder.to_string_lossy().into_owned();
    let mut keys = vec![given.trim_end_matches(std::path::MAIN_SEPARATOR).to_owned()];
    if let Ok(canonical) = std::fs::canonicalize(folder) {
        keys.push(canonical.to_string_lossy().into_owned());
    }
    for key in keys {
        if wiki.store().remove_watched_folder(&key)? {
            return Ok(Some(key));
        }
    }
    Ok(None)
}

/// Watches folders and keeps the wiki in step with them (see the module docs).
pub struct Watcher {
    wiki: Wiki,
    runner: JobRunner,
    folders: Vec<Folder>,
    options: WatchOptions,
    tx: mpsc::UnboundedSender<Signal>,
    rx: mpsc::UnboundedReceiver<Signal>,
    /// Files that could not be read, with the message last reported.
    unreadable: BTreeMap<PathBuf, String>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("folders", &self.folders)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// A watcher of `folders` (none: the saved ones) over `wiki`, compiling with `runner`,
    /// holding the wiki's watch lease from now until it is dropped or stops. A folder named
    /// must exist; a saved one that does not is watched paused until it returns.
    pub fn new(
        wiki: &Wiki,
        runner: JobRunner,
        folders: &[PathBuf],
        options: WatchOptions,
    ) -> Result<Watcher> {
        let mut paths: Vec<PathBuf> = folders.to_vec();
        if paths.is_empty() {
            paths = wiki
                .store()
                .watched_folders()?
                .into_iter()
                .map(PathBuf::from)
                .collect();
        }
        if paths.is_empty() {
            return Err(WatchError::NoFolders);
        }
        // A folder named now must be one; a saved one that is gone is watched paused.
        let named = !folders.is_empty();
        if let Some(bad) = paths.iter().find(|p| (p.exists() || named) && !p.is_dir()) {
            return Err(WatchError::NotAFolder { path: bad.clone() });
        }
        let mut list: Vec<Folder> = Vec::new();
        for path in paths {
            let folder = Folder::new(path);
            if !list.iter().any(|f| f.path == folder.path) {
                list.push(folder);
            }
        }
        let owner = runner.owner().clone();
        let here = owner.host.clone();
        if let Some(lease) = wiki
            .store()
            .take_watch_lease(&owner, STALE_AFTER, &|o| o.is_dead_here(&here))?
        {
            return Err(WatchError::Busy {
                holder: lease.owner,
            });
        }
        let (tx, rx) = mpsc::unbounded_channel();
        Ok(Watcher {
            wiki: wiki.clone(),
            runner,
            folders: list,
            options,
            tx,
            rx,
            unreadable: BTreeMap::new(),
        })
    }

    /// The seam: hands this watcher signals as the OS would.
    pub fn injector(&self) -> Injector {
        Injector(self.tx.clone())
    }

    /// The folders watched, as shown.
    pub fn folders(&self) -> Vec<String> {
        self.folders.iter().map(Folder::shown).collect()
    }

    /// Watches until `stop` is cancelled, telling `sink` each thing it does: first a
    /// rescan of every folder (changes made while nothing watched), then each batch of
    /// changes as it comes. A compile in flight when `stop` comes is stopped and stays
    /// queued; the lease is let go.
    pub async fn run(mut self, stop: &CancellationToken, sink: &EventSink) -> Result<()> {
        let owner = self.runner.owner().clone();
        let beat = stop.child_token();
        let heartbeat = {
            let store = std::sync::Arc::clone(self.wiki.store());
            let owner = owner.clone();
            let beat = beat.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = beat.cancelled() => break,
                        _ = tokio::time::sleep(HEARTBEAT) => {
                            let _ = store.renew_watch_lease(&owner);
                        }
                    }
                }
            })
        };
        let result = self.watch(stop, sink).await;
        beat.cancel();
        let _ = heartbeat.await;
        let _ = self.wiki.store().release_watch_lease(&owner);
        result
    }

    async fn watch(&mut self, stop: &CancellationToken, sink: &Say<'_>) -> Result<()> {
        let mut os = match self.options.events {
            EventSource::Os => Some(notify_source::OsEvents::start(
                self.options.debounce,
                self.tx.clone(),
            )?),
            EventSource::Injected => None,
        };
        for folder in &mut self.folders {
            folder.paused = !folder.present();
            if let Some(os) = &mut os {
                if !folder.paused {
                    os.watch(&folder.path)?;
                }
            }
        }
        sink(&WatchEvent::Watching {
            folders: self.folders(),
        });
        for folder in &self.folders {
            for problem in &folder.rules.problems {
                sink(&WatchEvent::Warning {
                    message: problem.clone(),
                });
            }
        }
        let _ = self.runner.recover();
        let mut interrupted = self
            .handle(
                reconcile::Batch::rescan_all(RescanReason::Start),
                false,
                stop,
                sink,
            )
            .await;
        let mut rescan = tokio::time::interval(self.options.rescan_every);
        rescan.reset();
        let mut retry = tokio::time::interval(self.options.retry_every);
        retry.reset();
        while !stop.is_cancelled() {
            // A batch of the retry tick that finds nothing new says nothing, not even idle.
            let mut quiet = false;
            let batch = tokio::select! {
                _ = stop.cancelled() => break,
                signal = self.rx.recv() => {
                    let Some(signal) = signal else { break };
                    let mut batch = reconcile::Batch::default();
                    batch.add(signal, sink);
                    while let Ok(more) = self.rx.try_recv() {
                        batch.add(more, sink);
                    }
                    batch
                }
                _ = rescan.tick() => reconcile::Batch::rescan_all(RescanReason::Interval),
                _ = retry.tick() => {
                    let mut batch = self.check_folders(os.as_mut(), sink);
                    batch.paths.extend(self.unreadable.keys().cloned());
                    if batch.is_empty() {
                        continue;
                    }
                    quiet = true;
                    batch
                }
            };
            interrupted |= self.handle(batch, quiet, stop, sink).await;
        }
        drop(os);
        sink(&WatchEvent::Stopped { interrupted });
        Ok(())
    }

    /// Pauses folders that went and resumes those that came back (a rescan of each).
    fn check_folders(
        &mut self,
        mut os: Option<&mut notify_source::OsEvents>,
        sink: &Say<'_>,
    ) -> reconcile::Batch {
        let mut batch = reconcile::Batch::default();
        for (index, folder) in self.folders.iter_mut().enumerate() {
            let present = folder.present();
            if folder.paused && present {
                folder.paused = false;
                folder.device = std::fs::metadata(&folder.path)
                    .ok()
                    .and_then(|m| device_of(&m));
                folder.rules = FolderRules::of(&folder.path);
                if let Some(os) = os.as_deref_mut() {
                    if let Err(e) = os.watch(&folder.path) {
                        sink(&WatchEvent::Warning {
                            message: e.to_string(),
                        });
                    }
                }
                sink(&WatchEvent::Resumed {
                    folder: folder.shown(),
                });
                batch.rescan.insert(index, RescanReason::Resumed);
            } else if !folder.paused && !present {
                pause(folder, sink);
                if let Some(os) = os.as_deref_mut() {
                    os.unwatch(&folder.path);
                }
            }
        }
        batch
    }

    /// Handles one batch: reconciles it with the store, then compiles what it queued, and
    /// says `idle` when no signal waits (a `quiet` batch only when it said something).
    /// Returns whether a compile was stopped.
    async fn handle(
        &mut self,
        batch: reconcile::Batch,
        quiet: bool,
        stop: &CancellationToken,
        outer: &Say<'_>,
    ) -> bool {
        let said = std::sync::atomic::AtomicBool::new(false);
        let sink = &|event: &WatchEvent| {
            said.store(true, std::sync::atomic::Ordering::Relaxed);
            outer(event);
        };
        let start = batch.start();
        for folder in &mut self.folders {
            if !folder.paused && !folder.present() {
                pause(folder, sink);
            }
        }
        let done = match reconcile::reconcile(&self.wiki, &mut self.folders, batch, sink) {
            Ok(done) => done,
            Err(e) => {
                sink(&WatchEvent::Warning {
                    message: e.to_string(),
                });
                return false;
            }
        };
        for (path, message) in done.unreadable {
            if self.unreadable.get(&path) != Some(&message) {
                sink(&WatchEvent::Unreadable {
                    path: path.to_string_lossy().into_owned(),
                    message: message.clone(),
                });
            }
            self.unreadable.insert(path, message);
        }
        for path in done.settled {
            self.unreadable.remove(&path);
        }
        let mut interrupted = false;
        if !done.compile.is_empty() || done.changed || start {
            match self.compile(&done.compile, stop, sink).await {
                Ok(stopped) => interrupted = stopped,
                Err(e) => sink(&WatchEvent::Warning {
                    message: e.to_string(),
                }),
            }
        }
        let said = said.load(std::sync::atomic::Ordering::Relaxed);
        if self.rx.is_empty() && !stop.is_cancelled() && (said || !quiet) {
            outer(&WatchEvent::Idle);
        }
        interrupted
    }

    /// Queues `sources`; in [`CompileMode::Run`], runs the queue until it is empty (the
    /// pages the batch changed written too). Returns whether `stop` cut it short.
    async fn compile(
        &self,
        sources: &[SourceId],
        stop: &CancellationToken,
        sink: &Say<'_>,
    ) -> crate::wiki::Result<bool> {
        self.runner.enqueue(sources, None)?;
        if self.options.compile == CompileMode::Queue {
            self.runner.enqueue_stale_pages()?;
            return Ok(false);
        }
        let reports = self
            .runner
            .run_until(stop, |store| {
                store.recent_jobs(0).is_ok_and(|jobs| jobs.is_empty())
            })
            .await?;
        for r in &reports.sources {
            sink(&WatchEvent::Compiled {
                source_id: r.source_id,
                ok: r.ok,
                title: r.title.clone(),
                reason: r.reason.clone(),
            });
        }
        for p in &reports.pages {
            sink(&page_event(p));
        }
        // The health figures after a run that compiled, as `compile` stores them (the
        // trend of `lint --trend`); failing to store them fails nothing.
        if !reports.sources.is_empty() || !reports.pages.is_empty() {
            if let Err(e) = crate::lint::check_and_record(&self.wiki, crate::lint::Trigger::Compile)
            {
                sink(&WatchEvent::Warning {
                    message: format!("the wiki's health figures were not stored: {e}"),
                });
            }
        }
        Ok(stop.is_cancelled())
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.wiki.store().release_watch_lease(self.runner.owner());
    }
}

fn pause(folder: &mut Folder, sink: &Say<'_>) {
    folder.paused = true;
    sink(&WatchEvent::Paused {
        folder: folder.shown(),
        message: format!(
            "{} is gone (an unmounted drive?): watching it pauses and resumes when it \
             returns; its sources stay",
            folder.shown()
        ),
    });
}

fn page_event(p: &PageReport) -> WatchEvent {
    WatchEvent::Page {
        title: p.title.clone(),
        outcome: match p.outcome {
            PageOutcome::Written { .. } => "written",
            PageOutcome::NoNewInformation => "no_new_information",
            PageOutcome::UpToDate => "up_to_date",
            PageOutcome::Flagged { .. } => "flagged",
            PageOutcome::Failed { .. } => "failed",
        },
        ok: p.ok(),
        reason: p.reason().map(str::to_owned),
    }
}
