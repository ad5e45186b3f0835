//! The OS's file events (`notify`), debounced (`notify-debouncer-full`) and turned into
//! [`Signal`]s on the watcher's channel.

use std::path::Path;
use std::time::Duration;

use notify_debouncer_full::notify::event::{AccessKind, AccessMode, EventKind};
use notify_debouncer_full::notify::{self, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use tokio::sync::mpsc::UnboundedSender;

use super::{Result, Signal, WatchError};

/// The debounced OS watcher; stops when dropped.
pub(super) struct OsEvents {
    debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

impl OsEvents {
    /// Starts the OS watcher, sending what it sees to `tx` once each path has been quiet
    /// for `debounce`.
    pub(super) fn start(debounce: Duration, tx: UnboundedSender<Signal>) -> Result<OsEvents> {
        let debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
            for signal in signals(result) {
                let _ = tx.send(signal);
            }
        })
        .map_err(|e| WatchError::Notify(e.to_string()))?;
        Ok(OsEvents { debouncer })
    }

    /// Watches a folder and everything below it.
    pub(super) fn watch(&mut self, folder: &Path) -> Result<()> {
        self.debouncer
            .watch(folder, RecursiveMode::Recursive)
            .map_err(|e| WatchError::Notify(format!("{}: {e}", folder.display())))
    }

    /// Stops watching a folder (one that is gone: its watch may have ended already).
    pub(super) fn unwatch(&mut self, folder: &Path) {
        let _ = self.debouncer.unwatch(folder);
    }
}

/// What a debounced batch says: the paths that changed, a rescan when the OS dropped
/// events, and its errors. Reads and opens are not changes.
fn signals(result: DebounceEventResult) -> Vec<Signal> {
    match result {
        Err(errors) => vec![Signal::Errors(
            errors.into_iter().map(|e| e.to_string()).collect(),
        )],
        Ok(events) => {
            let mut out = Vec::new();
            let mut paths = Vec::new();
            for event in events {
                if event.need_rescan() {
                    out.push(Signal::Rescan);
                    continue;
                }
                let change = match event.kind {
                    EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
                    EventKind::Access(_) => false,
                    _ => true,
                };
                if change {
                    paths.extend(event.event.paths);
                }
            }
            if !paths.is_empty() {
                out.push(Signal::Changed(paths));
            }
            out
        }
    }
}
