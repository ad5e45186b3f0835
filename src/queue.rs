//! The live compile queue of a long-running shell (the desktop app): sources wait in line,
//! a few compile at once on the async runtime, each can be cancelled on its own, and every
//! change of a job is reported as a [`JobProgress`].
//!
//! The CLI runs the persistent job queue to the end and exits ([`Compiler::compile_queued`]);
//! a window needs more: add work while other work runs, stop one job and not the rest,
//! compile one source again with another model. Each job is one [`Compiler::compile_one`],
//! which keeps the source's status right in the store (compiling, compiled, failed, pending
//! again after a cancel), so a restart of the app loses only the order of the line.
//!
//! [`Compiler::compile_queued`]: crate::compile::Compiler::compile_queued
//! [`Compiler::compile_one`]: crate::compile::Compiler::compile_one

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use tokio_util::sync::CancellationToken;

use crate::compile::{CompileError, Progress};
use crate::config::Settings;
use crate::store::{SourceId, SourceStatus};
use crate::view::{JobProgress, StageView};
use crate::wiki::{Result, Wiki};

/// Receives every change of every job.
pub type JobListener = dyn Fn(&JobProgress) + Send + Sync;

#[derive(Default)]
struct Line {
    /// Waiting, in order, each with the model to use instead of the configured one.
    waiting: VecDeque<(SourceId, Option<String>)>,
    /// Running, with the token that stops it.
    running: HashMap<SourceId, CancellationToken>,
    /// Workers alive.
    workers: usize,
    /// The latest state of every job seen since start, in the order first seen.
    latest: Vec<JobProgress>,
}

struct Shared {
    wiki: Wiki,
    settings: RwLock<Settings>,
    line: Mutex<Line>,
    listener: Box<JobListener>,
    runtime: tokio::runtime::Handle,
    /// The compiler of the latest job, kept so what its providers hold stays loaded: the
    /// built-in engine's model is shared only while someone holds it, and loading it for
    /// every job would cost seconds each time.
    warm: Mutex<Option<Arc<crate::compile::Compiler>>>,
}

/// A compile queue over one wiki. Cheap to clone; clones share the line.
#[derive(Clone)]
pub struct CompileQueue {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for CompileQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompileQueue").finish_non_exhaustive()
    }
}

impl CompileQueue {
    /// A queue compiling into `wiki` with `settings`, spawning its work on `runtime` and
    /// reporting every change to `listener` (called from worker tasks: keep it quick).
    pub fn new(
        wiki: Wiki,
        settings: Settings,
        runtime: tokio::runtime::Handle,
        listener: Box<JobListener>,
    ) -> CompileQueue {
        CompileQueue {
            shared: Arc::new(Shared {
                wiki,
                settings: RwLock::new(settings),
                line: Mutex::new(Line::default()),
                listener,
                runtime,
                warm: Mutex::new(None),
            }),
        }
    }

    /// The settings new jobs use.
    pub fn settings(&self) -> Settings {
        self.shared
            .settings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the settings for jobs that start from now on.
    pub fn set_settings(&self, settings: Settings) {
        *self
            .shared
            .settings
            .write()
            .unwrap_or_else(PoisonError::into_inner) = settings;
    }

    /// The latest state of every job since the queue started.
    pub fn jobs(&self) -> Vec<JobProgress> {
        self.lock().latest.clone()
    }

    /// Puts sources in line (a source already waiting or running is not added twice) and
    /// starts workers up to the configured concurrency. `model` replaces the configured
    /// model of the primary provider for these jobs. Returns how many were added.
    pub fn enqueue(&self, sources: &[SourceId], model: Option<String>) -> usize {
        let provider = self.label(model.as_deref());
        let concurrency = self.settings().compile.concurrency.max(1);
        let mut added = Vec::new();
        let spawn;
        {
            let mut line = self.lock();
            for &id in sources {
                if line.running.contains_key(&id) || line.waiting.iter().any(|(w, _)| *w == id) {
                    continue;
                }
                line.waiting.push_back((id, model.clone()));
                added.push(JobProgress::queued(id, provider.clone()));
            }
            spawn = concurrency
                .saturating_sub(line.workers)
                .min(line.waiting.len());
            line.workers += spawn;
        }
        for job in &added {
            self.report(job.clone());
        }
        for _ in 0..spawn {
            let me = self.clone();
            self.shared.runtime.spawn(async move { me.work().await });
        }
        added.len()
    }

    /// Puts every pending, failed, stale or interrupted source in line.
    pub fn enqueue_pending(&self) -> Result<usize> {
        let ids: Vec<SourceId> = self
            .shared
            .wiki
            .store()
            .sources_to_compile(false)?
            .into_iter()
            .map(|s| s.id)
            .collect();
        Ok(self.enqueue(&ids, None))
    }

    /// Stops a job: a waiting one leaves the line, a running one is cancelled (its source
    /// becomes pending again). Returns whether there was such a job.
    pub fn cancel(&self, source: SourceId) -> bool {
        let removed = {
            let mut line = self.lock();
            if let Some(token) = line.running.get(&source) {
                token.cancel();
                return true;
            }
            let before = line.waiting.len();
            line.waiting.retain(|(id, _)| *id != source);
            before != line.waiting.len()
        };
        if removed {
            self.report(JobProgress::cancelled(source));
        }
        removed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Line> {
        self.shared
            .line
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn label(&self, model: Option<&str>) -> String {
        let settings = self.settings();
        let p = settings.provider();
        format!("{}:{}", p.kind.as_str(), model.unwrap_or(&p.model))
    }

    fn report(&self, job: JobProgress) {
        {
            let mut line = self.lock();
            match line
                .latest
                .iter_mut()
                .find(|j| j.source_id == job.source_id)
            {
                Some(slot) => *slot = job.clone(),
                None => line.latest.push(job.clone()),
            }
        }
        (self.shared.listener)(&job);
    }

    async fn work(self) {
        loop {
            let next = {
                let mut line = self.lock();
                match line.waiting.pop_front() {
                    Some((id, model)) => {
                        let token = CancellationToken::new();
                        line.running.insert(id, token.clone());
                        Some((id, model, token))
                    }
                    None => {
                        line.workers = line.workers.saturating_sub(1);
                        None
                    }
                }
            };
            let Some((id, model, token)) = next else {
                return;
            };
            let outcome = self.run_one(id, model, &token).await;
            self.lock().running.remove(&id);
            self.report(outcome);
        }
    }

    async fn run_one(
        &self,
        id: SourceId,
        model: Option<String>,
        token: &CancellationToken,
    ) -> JobProgress {
        let mut settings = self.settings();
        if let (Some(m), Some(primary)) = (model, settings.providers.first_mut()) {
            primary.model = m;
        }
        let failed = |message: String| {
            // Best effort: the message reaches the person either way.
            let _ = self
                .shared
                .wiki
                .store()
                .set_status(id, SourceStatus::Failed, Some(&message));
            JobProgress {
                stage: StageView::Failed,
                message: Some(message),
                ..JobProgress::queued(id, String::new())
            }
        };
        let compiler = match self.shared.wiki.compiler(&settings) {
            Ok(c) => c,
            Err(e) => return failed(e.to_string()),
        };
        // Built while the previous one is still held, so a loaded model is reused.
        if let Ok(mut warm) = self.shared.warm.lock() {
            *warm = Some(Arc::clone(&compiler));
        }
        let me = self.clone();
        let events = move |p: Progress| me.report(JobProgress::from(&p));
        match compiler.compile_one(id, &events, token).await {
            Ok(report) => JobProgress::finished(&report),
            Err(CompileError::Cancelled) => JobProgress::cancelled(id),
            Err(e) => failed(e.to_string()),
        }
    }
}
