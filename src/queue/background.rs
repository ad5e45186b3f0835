//! Work the runner does for the wiki's upkeep rather than for a person waiting on it: the
//! graph's layout, brought up to date when pages or links changed, run on a thread of its
//! own at a lower CPU priority, so that a window starting, or a person reading, gets the
//! cores first.
//!
//! A wiki of 100,000 pages with no layout yet (a first launch after an upgrade, a large
//! import) is laid out as the app opens: about 40 s of one core's work. Its commits keep
//! the store's generation (`Store::write_upkeep`), so what the window read stays held.

use std::sync::{Arc, PoisonError};

use tokio_util::sync::CancellationToken;

use super::{GraphListener, JobRunner};

/// How much less the upkeep's thread asks of the scheduler: Linux's nice value, 0 to 19
/// (10 gives it about a tenth of a core's share beside a thread at 0).
const NICENESS: i32 = 10;

impl JobRunner {
    /// Tells `listener` the graph layout's state each time a layout this runner runs starts
    /// and ends (the window follows a compile run's graph live).
    pub fn on_graph_layout(&self, listener: Box<GraphListener>) {
        *self
            .shared
            .graph_listener
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::from(listener));
    }

    /// Brings the graph's stored layout up to date when pages or links changed since it was
    /// made ([`Wiki::lay_out_graph`]): the queued work that comes after a run's page jobs.
    /// One worker of a runner lays out at a time, on the blocking pool; a layout that fails
    /// costs no job (the next idle worker tries again when the wiki changes again).
    pub(super) async fn lay_out_graph(&self, stop: &CancellationToken) {
        use std::sync::atomic::Ordering;
        let Ok(state) = self.store().graph_state() else {
            return;
        };
        if !state.is_due() || self.shared.layout_failed_at.load(Ordering::SeqCst) == state.changes {
            return;
        }
        if self.shared.laying_out.swap(true, Ordering::SeqCst) {
            return;
        }
        let wiki = self.shared.wiki.clone();
        let owner = self.shared.owner.clone();
        let stop = stop.clone();
        self.report_graph();
        let me = self.clone();
        let laid_out = in_background(move || {
            let told = std::sync::atomic::AtomicBool::new(false);
            wiki.lay_out_graph_drafting(
                &owner,
                &|| {
                    // The window learns the layout runs once it holds the lease.
                    if !told.swap(true, Ordering::SeqCst) {
                        me.report_graph();
                    }
                    !stop.is_cancelled()
                },
                // A first layout's drafts: the window draws each.
                &|| me.report_graph(),
                crate::graph::GRAPH_DRAFT_EVERY,
            )
        })
        .await;
        self.shared.laying_out.store(false, Ordering::SeqCst);
        match laid_out {
            Ok(Ok(Some(_))) => self.report_graph(),
            Ok(Ok(None)) => {}
            // Not tried again until the wiki changes: a failing layout must not spin.
            Ok(Err(_)) | Err(_) => self
                .shared
                .layout_failed_at
                .store(state.changes, Ordering::SeqCst),
        }
    }

    fn report_graph(&self) {
        let listener = self
            .shared
            .graph_listener
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let (Some(listener), Ok(state)) = (listener, self.shared.wiki.graph_layout_state()) {
            listener(&state);
        }
    }
}

/// Runs `work` on a new thread at a lower CPU priority and waits for it without blocking
/// the runtime. Its own thread, not the blocking pool's: a thread's priority cannot be
/// raised again once lowered, and a pool thread lives on to run other work.
/// `Err` when the thread could not start or `work` panicked.
pub(super) async fn in_background<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (done, result) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("wiki-upkeep".to_owned())
        .spawn(move || {
            lower_this_thread();
            let _ = done.send(work());
        })
        .map_err(|e| format!("cannot start a thread for the wiki's upkeep: {e}"))?;
    result
        .await
        .map_err(|_| "the wiki's upkeep stopped before it ended".to_owned())
}

/// Lowers the calling thread's CPU priority by [`NICENESS`], to 19 at most (Linux, where
/// the nice value is a thread's own; threads it starts inherit it). Elsewhere, or when refused, the
/// thread keeps its priority: the work is the same, only its share of the cores differs.
fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid`, `getpriority` and `setpriority` take and return plain integers
        // and touch no memory of this process; on this thread's id they read and change
        // only its nice value.
        unsafe {
            let tid = libc::gettid() as libc::id_t;
            let now = libc::getpriority(libc::PRIO_PROCESS, tid);
            libc::setpriority(libc::PRIO_PROCESS, tid, (now + NICENESS).min(19));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread's own nice value, as the kernel reports it (Linux).
    #[cfg(target_os = "linux")]
    fn niceness() -> i64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("stat");
        // Field 19 (nice) counted after the command's closing parenthesis.
        let after = &stat[stat.rfind(')').expect("comm") + 2..];
        after
            .split(' ')
            .nth(16)
            .expect("nice")
            .parse()
            .expect("a number")
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn upkeep_runs_on_a_lower_priority_thread_and_leaves_the_caller_as_it_was() {
        let before = niceness();
        let (nice, thread) =
            in_background(|| (niceness(), std::thread::current().name().map(str::to_owned)))
                .await
                .expect("ran");
        assert_eq!(nice, (before + i64::from(NICENESS)).min(19));
        assert_eq!(niceness(), before, "the caller's thread keeps its priority");
        assert_eq!(thread.as_deref(), Some("wiki-upkeep"));
    }

    #[tokio::test]
    async fn a_panic_in_upkeep_is_an_error_not_a_crash() {
        let result: Result<(), String> = in_background(|| panic!("layout broke")).await;
        assert!(result
            .expect_err("an error")
            .contains("stopped before it ended"));
    }
}
