//! The wiki's health figures stored when an always-on runner's compile run ends, as
//! `wikimind compile` stores them after its run.

use std::sync::atomic::Ordering;

use crate::store::Store;

use super::JobRunner;

impl JobRunner {
    /// Ends a compile run of an always-on runner: once no job is queued or running anywhere,
    /// no stale page waits for its job, and this runner finished one since the last time,
    /// the wiki's health figures are stored for the trend, as `wikimind compile` stores them
    /// after its run ([`crate::lint::check_and_record`]). The checks read the whole wiki, so inside a
    /// runtime they run on its blocking pool, never on a worker the queue's tasks need.
    /// Returns whether a run was started. A failure to store them is not the queue's.
    pub fn record_health_when_idle(&self, store: &Store) -> bool {
        // The run has ended only when no job waits or runs and no stale page waits for its
        // job: between the last source job and the page jobs it leaves, another worker
        // would otherwise see the queue empty and store figures of half a run.
        let idle = store.recent_jobs(0).is_ok_and(|jobs| jobs.is_empty())
            && store.pages_to_queue().is_ok_and(|pages| pages.is_empty());
        if !idle || !self.shared.ran_since_idle.swap(false, Ordering::SeqCst) {
            return false;
        }
        let wiki = self.shared.wiki.clone();
        let record = move || {
            if crate::lint::check_and_record(&wiki, crate::lint::Trigger::Compile).is_ok() {
                // Storing the figures moved the store on: the checks are read again in the
                // background, so the Health screen opened after the run finds them held.
                crate::lint::warm(&wiki);
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(record)),
            Err(_) => record(),
        }
        true
    }
}
