//! The saved folders kept watched while a long-lived shell (the desktop app) is open.
//!
//! A [`WatchKeeper`] runs a [`Watcher`] over the saved list ([`saved_folders`]) and starts
//! it again whenever the list changes ([`WatchKeeper::add`], [`WatchKeeper::remove`]).
//! When another process holds the wiki's watch lease (a `wikimind watch` in a terminal),
//! it says so and tries again now and then, so the two never both react to a change. It
//! only queues what it finds ([`CompileMode::Queue`]): the shell's own job runner compiles.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{
    forget_folder, save_folder, saved_folders, CompileMode, Result, WatchError, WatchEvent,
    WatchOptions, Watcher,
};
use crate::queue::JobRunner;
use crate::wiki::Wiki;

#[cfg(feature = "ts")]
use ts_rs::TS;

/// Where a saved folder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WatchStateView {
    /// Changes to it are handled as they happen.
    Watching,
    /// It is gone (an unmounted drive); watching resumes when it returns.
    Paused,
    /// Not watched now (see [`WatchedView::note`]).
    Waiting,
}

/// One saved folder as the settings screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WatchedFolderView {
    /// Its path.
    pub path: String,
    /// Where it stands.
    pub state: WatchStateView,
}

/// The watched folders as the settings screen shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WatchedView {
    /// The saved folders, by path.
    pub folders: Vec<WatchedFolderView>,
    /// Why they are not watched now (another process watches them), or the last problem
    /// watching met; `null` when all is well.
    pub note: Option<String>,
    /// The last change handled, for a person (`added /notes/tea.md`).
    pub last: Option<String>,
    /// Orders the views: each change of the list or of the state takes the next number,
    /// and a view is a snapshot at one number. Replies and events travel apart, so a
    /// screen keeps the view with the highest number it has seen.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub seq: u64,
}

/// Receives the view each time it changes (keep it quick).
pub type WatchListener = dyn Fn(&WatchedView) + Send + Sync;

#[derive(Debug, Default)]
struct State {
    /// Counts the changes; see [`WatchedView::seq`].
    seq: u64,
    watching: bool,
    paused: BTreeSet<String>,
    note: Option<String>,
    last: Option<String>,
}

struct Inner {
    wiki: Wiki,
    runner: JobRunner,
    options: WatchOptions,
    state: Mutex<State>,
    changed: Notify,
    listener: Box<WatchListener>,
}

/// Keeps the saved folders watched (see the module docs). Cheap to clone.
#[derive(Clone)]
pub struct WatchKeeper {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for WatchKeeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchKeeper").finish_non_exhaustive()
    }
}

impl WatchKeeper {
    /// A keeper of `wiki`'s saved folders that queues on `runner`, telling `listener` each
    /// change of what it shows. `options` apply as given, but sources are only queued.
    pub fn new(
        wiki: Wiki,
        runner: JobRunner,
        options: WatchOptions,
        listener: Box<WatchListener>,
    ) -> WatchKeeper {
        WatchKeeper {
            inner: Arc::new(Inner {
                wiki,
                runner,
                options: WatchOptions {
                    compile: CompileMode::Queue,
                    ..options
                },
                state: Mutex::new(State::default()),
                changed: Notify::new(),
                listener,
            }),
        }
    }

    /// Starts watching on `runtime` until `stop` is cancelled.
    pub fn start(&self, runtime: &tokio::runtime::Handle, stop: CancellationToken) {
        let me = self.clone();
        runtime.spawn(async move { me.keep(stop).await });
    }

    /// What the settings screen shows.
    pub fn view(&self) -> Result<WatchedView> {
        Self::snapshot(&self.inner.wiki, &self.state())
    }

    /// The view at the state's number: read under the state's lock, which every change of
    /// the saved list also holds, so one number always shows one list.
    fn snapshot(wiki: &Wiki, state: &State) -> Result<WatchedView> {
        let folders = saved_folders(wiki)?
            .into_iter()
            .map(|f| WatchedFolderView {
                state: if !f.present || state.paused.contains(&f.path) {
                    WatchStateView::Paused
                } else if state.watching {
                    WatchStateView::Watching
                } else {
                    WatchStateView::Waiting
                },
                path: f.path,
            })
            .collect();
        Ok(WatchedView {
            folders,
            note: state.note.clone(),
            last: state.last.clone(),
            seq: state.seq,
        })
    }

    /// Saves a folder as watched and watches it from now on.
    pub fn add(&self, folder: &Path) -> Result<WatchedView> {
        let view = {
            let mut state = self.state();
            save_folder(&self.inner.wiki, folder)?;
            state.seq += 1;
            Self::snapshot(&self.inner.wiki, &state)?
        };
        self.inner.changed.notify_one();
        Ok(view)
    }

    /// Stops watching a folder and takes it off the saved list (its sources stay).
    pub fn remove(&self, folder: &Path) -> Result<WatchedView> {
        let view = {
            let mut state = self.state();
            if forget_folder(&self.inner.wiki, folder)?.is_none() {
                return Err(WatchError::NotSaved {
                    path: folder.to_owned(),
                });
            }
            state.seq += 1;
            Self::snapshot(&self.inner.wiki, &state)?
        };
        self.inner.changed.notify_one();
        Ok(view)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the state (unless `change` says nothing changed), takes the next number and
    /// tells the listener the view at that number.
    fn change(&self, change: impl FnOnce(&mut State) -> bool) {
        let view = {
            let mut state = self.state();
            if !change(&mut state) {
                return;
            }
            state.seq += 1;
            Self::snapshot(&self.inner.wiki, &state)
        };
        if let Ok(view) = view {
            (self.inner.listener)(&view);
        }
    }

    /// Runs a watcher over the saved list, again whenever it changes, until `stop`.
    async fn keep(&self, stop: CancellationToken) {
        while !stop.is_cancelled() {
            let empty = saved_folders(&self.inner.wiki).map_or(true, |f| f.is_empty());
            let watcher = if empty {
                Err(WatchError::NoFolders)
            } else {
                Watcher::new(
                    &self.inner.wiki,
                    self.inner.runner.clone(),
                    &[],
                    self.inner.options.clone(),
                )
            };
            let watcher = match watcher {
                Ok(w) => w,
                Err(e) => {
                    self.change(|state| {
                        state.watching = false;
                        state.note = (!empty).then(|| e.to_string());
                        true
                    });
                    tokio::select! {
                        _ = stop.cancelled() => break,
                        _ = self.inner.changed.notified() => {}
                        _ = tokio::time::sleep(self.inner.options.retry_every) => {}
                    }
                    continue;
                }
            };
            let run_stop = stop.child_token();
            let me = self.clone();
            let sink = move |event: &WatchEvent| me.on_event(event);
            let run = watcher.run(&run_stop, &sink);
            tokio::pin!(run);
            let failed = tokio::select! {
                result = &mut run => result.err(),
                _ = self.inner.changed.notified() => {
                    run_stop.cancel();
                    let _ = run.await;
                    None
                }
            };
            self.change(|state| {
                if let Some(e) = failed {
                    state.note = Some(e.to_string());
                }
                state.watching = false;
                state.paused.clear();
                true
            });
        }
    }

    fn on_event(&self, event: &WatchEvent) {
        self.change(|state| {
            match event {
                WatchEvent::Watching { .. } => {
                    state.watching = true;
                    state.note = None;
                }
                WatchEvent::Paused { folder, .. } => {
                    state.paused.insert(folder.clone());
                }
                WatchEvent::Resumed { folder } => {
                    state.paused.remove(folder);
                }
                WatchEvent::Ingested { path, outcome, .. } => {
                    state.last = Some(format!("{outcome} {path}"));
                }
                WatchEvent::Moved { from, to, .. } => {
                    state.last = Some(format!("moved {from} to {to}"));
                }
                WatchEvent::Removed { origin, .. } => {
                    state.last = Some(format!("removed {origin}"));
                }
                WatchEvent::Unreadable { path, message } => {
                    state.note = Some(format!("cannot read {path}: {message} (trying again)"));
                }
                WatchEvent::Warning { message } => state.note = Some(message.clone()),
                // Everything seen is handled (and queued): said, so a screen is current.
                WatchEvent::Idle => {}
                _ => return false,
            }
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::NoKeyStore;
    use crate::test_settings::{closed_port, settings_at};
    use crate::watch::EventSource;
    use std::time::Duration;
    use tokio::sync::mpsc;

    fn keeper(wiki: &Wiki, told: mpsc::UnboundedSender<WatchedView>) -> WatchKeeper {
        let runner = JobRunner::new(
            wiki.clone(),
            settings_at(&closed_port()),
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        WatchKeeper::new(
            wiki.clone(),
            runner,
            WatchOptions {
                events: EventSource::Injected,
                retry_every: Duration::from_millis(20),
                ..WatchOptions::default()
            },
            Box::new(move |v| {
                let _ = told.send(v.clone());
            }),
        )
    }

    /// Waits until the listener is told a view that `wanted` holds of.
    async fn until(
        told: &mut mpsc::UnboundedReceiver<WatchedView>,
        wanted: impl Fn(&WatchedView) -> bool,
    ) {
        while let Some(view) = told.recv().await {
            if wanted(&view) {
                return;
            }
        }
        panic!("the keeper stopped");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_folder_added_is_watched_and_its_notes_queued_and_a_removed_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes");
        std::fs::create_dir_all(&notes).unwrap();
        std::fs::write(notes.join("tea.md"), "# Tea\n\nGreen tea is steamed.").unwrap();
        let wiki = Wiki::open(&dir.path().join("data")).unwrap();
        let (tx, mut told) = mpsc::unbounded_channel();
        let keeper = keeper(&wiki, tx);
        let stop = CancellationToken::new();
        keeper.start(&tokio::runtime::Handle::current(), stop.clone());

        let view = keeper.add(&notes).unwrap();
        assert_eq!(view.folders.len(), 1);
        // Views are numbered in the order they were taken, the add's reply among them: a
        // view without the new folder (taken before the add) is numbered below the reply,
        // one with it above, so a screen keeping the highest number shows the newest.
        let mut last_told = 0;
        loop {
            let v = told.recv().await.expect("the keeper stopped");
            assert!(v.seq > last_told, "told {} after {}", v.seq, last_told);
            last_told = v.seq;
            if v.folders.is_empty() {
                assert!(
                    v.seq < view.seq,
                    "{} without the folder, reply {}",
                    v.seq,
                    view.seq
                );
                continue;
            }
            assert!(
                v.seq > view.seq,
                "{} with the folder, reply {}",
                v.seq,
                view.seq
            );
            let watching = v.folders[0].state == WatchStateView::Watching;
            if watching && v.last.as_deref().is_some_and(|l| l.starts_with("added ")) {
                break;
            }
        }
        // Then the batch ends (idle): its source is queued for the shell's runner.
        until(&mut told, |_| true).await;
        assert_eq!(wiki.store().recent_jobs(0).unwrap().len(), 1);

        let path = view.folders[0].path.clone();
        let view = keeper.remove(Path::new(&path)).unwrap();
        assert!(view.folders.is_empty());
        let again = keeper.remove(Path::new(&path)).unwrap_err();
        assert!(
            again.to_string().contains("not a saved watched folder"),
            "{again}"
        );
        assert_eq!(wiki.store().sources().unwrap().len(), 1, "its sources stay");
        stop.cancel();
    }
}
