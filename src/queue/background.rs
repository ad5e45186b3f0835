//! Work the runner does for the wiki's upkeep rather than for a person waiting on it (the
//! graph's layout): run on a thread of its own at a lower CPU priority, so that a window
//! starting, or a person reading, gets the cores first.
//!
//! A wiki of 100,000 pages with no layout yet (a first launch after an upgrade, a large
//! import) is laid out as the app opens; at the same priority, the layout's seconds of work
//! on every core held the library's first rows back by about 1.7 s on two cores.

/// How much less the upkeep's thread asks of the scheduler: Linux's nice value, 0 to 19
/// (10 gives it about a tenth of a core's share beside a thread at 0).
const NICENESS: i32 = 10;

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
