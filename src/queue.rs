//! The one compile queue: the persistent `jobs` table, driven by a [`JobRunner`] in every
//! process that compiles — the CLI's `compile` and the desktop app alike.
//!
//! Any runner may take a queued job, whoever queued it; a job runs with the settings it
//! was asked with ([`JobSettings`]), not the runner's. A running job is leased to its
//! process: the runner renews a heartbeat every [`HEARTBEAT`], so a second process never
//! takes or resets it, and a job whose owner died (a stale heartbeat, or a process of
//! this host that is gone) is recovered on the next start ([`JobRunner::recover`]).
//!
//! Each job has its own cancel handle: a person's cancel stops that job and no other
//! (also a job another process runs: the request goes through the table, and the owner
//! sees it at its next heartbeat), while stopping the runner ([`JobRunner::run_until`]'s
//! token: Ctrl+C, SIGTERM, the window closing) puts its running jobs back in line. A panic
//! inside one compile costs only that job: its source is marked failed with an internal
//! error and the runner goes on.
//!
//! Page jobs share the queue. The store hands out source jobs first and a page job only
//! once no source job is queued or running anywhere; a worker that finds nothing to take
//! queues a job for every stale page that needs one ([`Store::pages_to_queue`]) before it
//! idles or stops, so a run writes the pages its sources changed, one job per page
//! however many of its sources changed.

use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::compile::{CompileError, CompileReport, Compiler, PageOutcome, PageReport, Progress};
use crate::config::Settings;
use crate::llm::{KeyStore, ProviderKind};
use crate::store::{
    Job, JobEnd, JobId, JobOwner, JobSettings, JobState, JobTarget, PageId, SourceId, SourceStatus,
    Store, StoreError,
};
use crate::view::{JobProgress, StageView};
use crate::wiki::{Result, Wiki};

/// How often a runner renews the lease of the jobs it runs.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// A running job whose heartbeat is older than this has lost its owner.
pub const STALE_AFTER: Duration = Duration::from_secs(60);
/// How often an idle runner looks for work other processes queued, and for changes of
/// the jobs they run.
pub const POLL: Duration = Duration::from_secs(1);
/// How many finished jobs [`JobRunner::jobs`] lists besides the queued and running ones.
pub const JOBS_LISTED: u32 = 200;

/// Receives every change of every job.
pub type JobListener = dyn Fn(&JobProgress) + Send + Sync;

/// Builds the compiler a job runs with, from its settings.
pub type CompilerFactory = dyn Fn(&Settings) -> Result<Arc<Compiler>> + Send + Sync;

struct Shared {
    wiki: Wiki,
    settings: RwLock<Settings>,
    owner: JobOwner,
    keys: Arc<dyn KeyStore>,
    listener: Box<JobListener>,
    compilers: Box<CompilerFactory>,
    /// The jobs this runner runs now, with the token that stops each.
    running: Mutex<HashMap<JobId, CancellationToken>>,
    /// The latest progress of every job seen, by job.
    latest: Mutex<HashMap<JobId, JobProgress>>,
    /// Woken when a job is queued through this runner.
    wake: Notify,
    /// The compiler of the latest job, kept so what its providers hold stays loaded: the
    /// built-in engine's model is shared only while someone holds it, and loading it for
    /// every job would cost seconds each time.
    warm: Mutex<Option<Arc<Compiler>>>,
    /// Whether this runner finished a job since the queue was last idle: an always-on
    /// runner ([`JobRunner::start`]) stores the wiki's health figures when its run ends.
    ran_since_idle: std::sync::atomic::AtomicBool,
}

/// What the jobs a runner ran reported, by kind, each in the order they ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunReports {
    /// One report per source job run.
    pub sources: Vec<CompileReport>,
    /// One report per page job run.
    pub pages: Vec<PageReport>,
}

impl RunReports {
    fn absorb(&mut self, other: RunReports) {
        self.sources.extend(other.sources);
        self.pages.extend(other.pages);
    }
}

/// The report of one job that ran to its end.
enum Ran {
    Source(Box<CompileReport>),
    Page(Box<PageReport>),
}

/// Runs the wiki's job queue. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct JobRunner {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for JobRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobRunner")
            .field("owner", &self.shared.owner)
            .finish_non_exhaustive()
    }
}

/// The settings a job asks for: the asker's primary provider as it stands.
pub fn job_settings(settings: &Settings, model: Option<&str>) -> JobSettings {
    let primary = settings.provider();
    JobSettings {
        provider: Some(primary.kind.as_str().to_owned()),
        base_url: Some(primary.base_url.clone()),
        model: Some(model.map_or_else(|| primary.model.clone(), str::to_owned)),
    }
}

/// `settings` with the primary provider a job asked for, every API key resolved again from
/// `keys` for the servers it now talks to (a key belongs to one server).
pub fn settings_for_job(settings: &Settings, asked: &JobSettings, keys: &dyn KeyStore) -> Settings {
    let mut next = settings.clone();
    let Some(primary) = next.providers.first_mut() else {
        return next;
    };
    let before = primary.base_url.clone();
    if let Some(kind) = asked.provider.as_deref().and_then(ProviderKind::parse) {
        primary.kind = kind;
    }
    if let Some(url) = &asked.base_url {
        primary.base_url = url.clone();
    }
    if let Some(model) = &asked.model {
        primary.model = model.clone();
    }
    if primary.base_url == before {
        return next;
    }
    next.with_keys(keys)
}

impl JobRunner {
    /// A runner over `wiki` with `settings` (for jobs that ask for nothing else), reporting
    /// every change to `listener` (called from worker tasks: keep it quick).
    /// API keys for servers a job asks for come from `keys`.
    pub fn new(
        wiki: Wiki,
        settings: Settings,
        keys: Arc<dyn KeyStore>,
        listener: Box<JobListener>,
    ) -> JobRunner {
        let factory_wiki = wiki.clone();
        JobRunner::with_compilers(
            wiki,
            settings,
            keys,
            listener,
            Box::new(move |settings: &Settings| factory_wiki.compiler(settings)),
        )
    }

    /// A runner whose jobs compile with what `compilers` builds (tests inject providers
    /// through it).
    pub fn with_compilers(
        wiki: Wiki,
        settings: Settings,
        keys: Arc<dyn KeyStore>,
        listener: Box<JobListener>,
        compilers: Box<CompilerFactory>,
    ) -> JobRunner {
        JobRunner {
            shared: Arc::new(Shared {
                wiki,
                settings: RwLock::new(settings),
                owner: JobOwner::this_process(),
                keys,
                listener,
                compilers,
                running: Mutex::new(HashMap::new()),
                latest: Mutex::new(HashMap::new()),
                wake: Notify::new(),
                warm: Mutex::new(None),
                ran_since_idle: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    fn store(&self) -> &Arc<Store> {
        self.shared.wiki.store()
    }

    /// Who this runner is in a job's lease.
    pub fn owner(&self) -> &JobOwner {
        &self.shared.owner
    }

    /// The settings jobs run with when they ask for nothing else.
    pub fn settings(&self) -> Settings {
        self.shared
            .settings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the settings for jobs queued from now on.
    pub fn set_settings(&self, settings: Settings) {
        *self
            .shared
            .settings
            .write()
            .unwrap_or_else(PoisonError::into_inner) = settings;
    }

    /// Puts jobs whose owner died back in line (see [`Store::recover_interrupted`]).
    /// Returns how many. Jobs of live owners, here or in another process, stay theirs.
    pub fn recover(&self) -> Result<usize> {
        let here = self.shared.owner.host.clone();
        Ok(self
            .store()
            .recover_interrupted(STALE_AFTER, &|owner| owner.is_dead_here(&here))?)
    }

    /// Queues a compile of each source with the runner's settings (and `model` instead of
    /// the configured one when given), waking idle workers. A source already waiting keeps
    /// its place (and takes these settings); one already compiling is not queued twice: its
    /// running job is returned. Returns the job of each source, in order.
    pub fn enqueue(&self, sources: &[SourceId], model: Option<&str>) -> Result<Vec<JobId>> {
        let asked = job_settings(&self.settings(), model);
        let mut jobs = Vec::with_capacity(sources.len());
        for &source in sources {
            let id = self.store().enqueue(source, &asked)?;
            if let Some(job) = self.store().job(id)? {
                if job.state == JobState::Queued {
                    self.report(id, progress_of(&job, &self.shared.owner));
                }
            }
            jobs.push(id);
        }
        self.shared.wake.notify_waiters();
        Ok(jobs)
    }

    /// Queues every source that is pending, failed, stale or was interrupted.
    pub fn enqueue_pending(&self) -> Result<usize> {
        let ids: Vec<SourceId> = self
            .store()
            .sources_to_compile(false)?
            .into_iter()
            .filter(|s| s.status != SourceStatus::Compiling)
            .map(|s| s.id)
            .collect();
        Ok(self.enqueue(&ids, None)?.len())
    }

    /// Queues a write of every stale page that needs one ([`Store::pages_to_queue`]), with
    /// the runner's settings, waking idle workers. Returns how many were queued. Workers do
    /// this themselves whenever they find nothing to take.
    pub fn enqueue_stale_pages(&self) -> Result<usize> {
        let pages = self.store().pages_to_queue()?;
        if pages.is_empty() {
            return Ok(0);
        }
        let asked = job_settings(&self.settings(), None);
        let mut queued = 0;
        for &page in &pages {
            let id = match self.store().enqueue_page(page, &asked) {
                Ok(id) => id,
                // Removed meanwhile (its last source went, here or in another process).
                Err(StoreError::PageNotFound(_)) => continue,
                Err(e) => return Err(e.into()),
            };
            queued += 1;
            if let Some(job) = self.store().job(id)? {
                if job.state == JobState::Queued {
                    self.report(id, progress_of(&job, &self.shared.owner));
                }
            }
        }
        self.shared.wake.notify_waiters();
        Ok(queued)
    }

    /// Stops the job of a source: a queued one is cancelled, a running one is stopped by
    /// its owner (at once when that is this runner). Returns whether there was such a job.
    pub fn cancel(&self, source: SourceId) -> Result<bool> {
        self.cancel_target(JobTarget::Source(source))
    }

    /// Stops the job of a page, as [`Self::cancel`] does a source's. The page stays as it
    /// is (stale) and is not queued again until one of its sources changes it again.
    pub fn cancel_page(&self, page: PageId) -> Result<bool> {
        self.cancel_target(JobTarget::Page(page))
    }

    fn cancel_target(&self, target: JobTarget) -> Result<bool> {
        let Some(job) = self
            .store()
            .recent_jobs(0)?
            .into_iter()
            .find(|j| j.target == target)
        else {
            return Ok(false);
        };
        let stopped = self.store().cancel_job(job.id)?;
        if job.state == JobState::Queued && stopped {
            self.report(
                job.id,
                JobProgress {
                    title: job.page_title.clone(),
                    ..JobProgress::cancelled(target)
                },
            );
        }
        if let Some(token) = self.running().get(&job.id) {
            token.cancel();
        }
        Ok(stopped)
    }

    /// The latest state of the newest jobs (whoever runs them), newest first, one per
    /// source and per page (its newest job: a page written three times is one row): live
    /// progress for the jobs this runner runs, the table's state for the others.
    pub fn jobs(&self) -> Result<Vec<JobProgress>> {
        let jobs = self.store().recent_jobs(JOBS_LISTED)?;
        let latest = self.latest();
        let mut seen = std::collections::HashSet::new();
        Ok(jobs
            .iter()
            .filter(|job| seen.insert(job.target))
            .map(|job| match latest.get(&job.id) {
                Some(seen) if job.state == JobState::Running || is_final(seen.stage) => {
                    seen.clone()
                }
                _ => progress_of(job, &self.shared.owner),
            })
            .collect())
    }

    /// One report per job asked for, in order: this runner's own report where it ran the
    /// job (from `own`), else what the table says of it (another process ran it).
    pub fn reports(&self, jobs: &[JobId], own: Vec<CompileReport>) -> Result<Vec<CompileReport>> {
        let mut own: HashMap<SourceId, CompileReport> =
            own.into_iter().map(|r| (r.source_id, r)).collect();
        let mut out = Vec::with_capacity(jobs.len());
        for id in jobs {
            let Some(job) = self.store().job(*id)? else {
                continue;
            };
            let JobTarget::Source(source_id) = job.target else {
                continue;
            };
            if let Some(report) = own.remove(&source_id) {
                out.push(report);
                continue;
            }
            let source = self.store().find_source(&source_id.to_string())?;
            let mut report = failed_report(
                source_id,
                match job.state {
                    JobState::Cancelled => "cancelled".to_owned(),
                    _ => job
                        .error
                        .clone()
                        .or_else(|| source.as_ref().and_then(|s| s.reason.clone()))
                        .unwrap_or_else(|| "unknown reason".to_owned()),
                },
            );
            if job.state == JobState::Done {
                report.ok = true;
                report.reason = None;
                report.calls = job.attempts;
                report
                    .warnings
                    .push("compiled by another WikiMind process".to_owned());
                if let Some(source) = source {
                    report.article_id = source.article_id;
                    report.title = source.article_title;
                }
            }
            out.push(report);
        }
        // Jobs this runner ran that nobody here asked for (left queued by an earlier run).
        let mut rest: Vec<CompileReport> = own.into_values().collect();
        rest.sort_by_key(|r| r.source_id);
        out.extend(rest);
        Ok(out)
    }

    /// Runs queued jobs (whoever queued them) with `concurrency` workers until `done`
    /// says so or `stop` is cancelled, renewing leases and recovering jobs whose owner
    /// dies meanwhile. `done` is asked whenever no job can be taken and no stale page
    /// needs queuing; jobs other processes run are waited for. Returns a report of every
    /// job this runner ran.
    ///
    /// Stopping puts this runner's running jobs back in line for the next run.
    pub async fn run_until(
        &self,
        stop: &CancellationToken,
        done: impl Fn(&Store) -> bool + Send + Sync + 'static,
    ) -> Result<RunReports> {
        let done = Arc::new(done);
        let workers = self.settings().compile.concurrency.max(1);
        let beat = self.heartbeat_loop(stop.child_token());
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..workers {
            let me = self.clone();
            let stop = stop.clone();
            let done = Arc::clone(&done);
            set.spawn(async move { me.work(&stop, &*done).await });
        }
        let mut reports = RunReports::default();
        let mut first_error = None;
        while let Some(joined) = set.join_next().await {
            match joined {
                Ok(Ok(r)) => reports.absorb(r),
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(join) => {
                    first_error.get_or_insert(CompileError::Worker(join.to_string()).into());
                }
            }
        }
        beat.cancel();
        match first_error {
            Some(e) => Err(e),
            None => Ok(reports),
        }
    }

    /// Runs the queue until no job is queued or running anywhere, the page jobs its source
    /// jobs caused included (see [`Self::run_until`]).
    pub async fn run_until_idle(&self, stop: &CancellationToken) -> Result<RunReports> {
        // A store that cannot be read is not idle: the next take reports its error.
        self.run_until(stop, |store| {
            store.recent_jobs(0).is_ok_and(|jobs| jobs.is_empty())
        })
        .await
    }

    /// Starts `concurrency` workers that run queued jobs until `stop` is cancelled (the
    /// desktop app: work arrives while the window is open), plus a watcher that reports
    /// what other processes do with the queue.
    pub fn start(&self, runtime: &tokio::runtime::Handle, stop: CancellationToken) {
        let me = self.clone();
        let workers_stop = stop.clone();
        runtime.spawn(async move {
            // A store error ends a round of workers; the queue is picked up again after a
            // pause, so the app never loses its workers for good.
            while !workers_stop.is_cancelled() {
                let idle = me.clone();
                let _ = me
                    .run_until(&workers_stop, move |store| {
                        idle.record_health_when_idle(store);
                        false
                    })
                    .await;
                tokio::select! {
                    _ = tokio::time::sleep(POLL) => {}
                    _ = workers_stop.cancelled() => {}
                }
            }
        });
        let me = self.clone();
        runtime.spawn(async move {
            tokio::select! {
                _ = me.watch_others() => {}
                _ = stop.cancelled() => {}
            }
        });
    }

    /// Ends a compile run of an always-on runner: once no job is queued or running anywhere
    /// and this runner finished one since the last time, the wiki's health figures are
    /// stored for the trend, as `wikimind compile` stores them after its run
    /// ([`crate::lint::check_and_record`]). A failure to store them is not the queue's.
    pub fn record_health_when_idle(&self, store: &Store) -> bool {
        use std::sync::atomic::Ordering;
        let idle = store.recent_jobs(0).is_ok_and(|jobs| jobs.is_empty());
        if !idle || !self.shared.ran_since_idle.swap(false, Ordering::SeqCst) {
            return false;
        }
        crate::lint::check_and_record(&self.shared.wiki, crate::lint::Trigger::Compile).is_ok()
    }

    async fn work(
        &self,
        stop: &CancellationToken,
        done: &(dyn Fn(&Store) -> bool + Send + Sync),
    ) -> Result<RunReports> {
        let mut reports = RunReports::default();
        loop {
            if stop.is_cancelled() {
                return Ok(reports);
            }
            if let Some(job) = self.store().start_next(&self.shared.owner)? {
                match self.run_job(job, stop).await? {
                    Some(Ran::Source(report)) => reports.sources.push(*report),
                    Some(Ran::Page(report)) => reports.pages.push(*report),
                    None => {}
                }
                continue;
            }
            // Nothing to take: the pages the sources left stale come next.
            if self.enqueue_stale_pages()? > 0 {
                continue;
            }
            if done(self.store()) {
                return Ok(reports);
            }
            // Nothing to take: jobs may be running elsewhere, or queued soon.
            self.recover()?;
            tokio::select! {
                _ = self.shared.wake.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
                _ = stop.cancelled() => {}
            }
        }
    }

    /// Runs one job this runner has taken, to its end in the store.
    async fn run_job(&self, job: Job, stop: &CancellationToken) -> Result<Option<Ran>> {
        let token = stop.child_token();
        self.running().insert(job.id, token.clone());
        let settings = settings_for_job(&self.settings(), &job.settings, &*self.shared.keys);
        let label = format!(
            "{}:{}",
            settings.provider().kind.as_str(),
            settings.provider().model
        );
        let base = JobProgress {
            title: job.page_title.clone(),
            ..JobProgress::queued(job.target, label)
        };
        self.report(
            job.id,
            JobProgress {
                stage: StageView::Prompting,
                ..base.clone()
            },
        );
        let outcome = self.execute(&job, &settings, &token).await;
        self.running().remove(&job.id);
        let (end, progress, ran) = match outcome {
            Ok(Ran::Source(report)) => {
                let end = if report.ok {
                    JobEnd::Done
                } else {
                    JobEnd::Failed(report.reason.clone().unwrap_or_default())
                };
                (
                    end,
                    JobProgress::finished(&report),
                    Some(Ran::Source(report)),
                )
            }
            Ok(Ran::Page(report)) => {
                let end = match report.reason() {
                    None => JobEnd::Done,
                    Some(reason) => JobEnd::Failed(reason.to_owned()),
                };
                (
                    end,
                    JobProgress::page_finished(&report),
                    Some(Ran::Page(report)),
                )
            }
            Err(Stopped::Cancelled) if stop.is_cancelled() => (
                JobEnd::Interrupted,
                JobProgress {
                    message: Some("interrupted; it resumes with the next run".into()),
                    ..base
                },
                None,
            ),
            Err(Stopped::Cancelled) => (
                JobEnd::Cancelled,
                JobProgress {
                    title: job.page_title.clone(),
                    ..JobProgress::cancelled(job.target)
                },
                None,
            ),
            Err(Stopped::Failed(reason)) => (
                JobEnd::Failed(reason.clone()),
                JobProgress {
                    stage: StageView::Failed,
                    message: Some(reason.clone()),
                    ..base
                },
                Some(failed_run(&job, reason)),
            ),
        };
        self.store().finish_job(job.id, &end)?;
        self.shared
            .ran_since_idle
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.report(job.id, progress);
        Ok(ran)
    }

    /// Runs a job's work: compiles its source or writes its page, containing whatever
    /// panics inside.
    async fn execute(
        &self,
        job: &Job,
        settings: &Settings,
        token: &CancellationToken,
    ) -> std::result::Result<Ran, Stopped> {
        let compiler = match catch(async { (self.shared.compilers)(settings) }).await {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(Stopped::Failed(e.to_string())),
            Err(panic) => return Err(Stopped::Failed(panic)),
        };
        // Swapped in while the previous one is still held, so a loaded model is reused.
        if let Ok(mut warm) = self.shared.warm.lock() {
            *warm = Some(Arc::clone(&compiler));
        }
        let me = self.clone();
        let id = job.id;
        // A page job is shown by its page's title, not by the title its answer streams.
        let page_title = job.page_title.clone();
        let target = job.target;
        let events = move |p: Progress| {
            let mut progress = JobProgress::of(target, &p);
            if let JobTarget::Page(_) = target {
                progress.title.clone_from(&page_title);
            }
            me.report(id, progress);
        };
        let result = match job.target {
            JobTarget::Source(source) => catch(compiler.compile_job(source, &events, token))
                .await
                .map(|r| r.map(|r| Ran::Source(Box::new(r)))),
            JobTarget::Page(page) => catch(compiler.write_page(page, &events, token))
                .await
                .map(|r| r.map(|r| Ran::Page(Box::new(r)))),
        };
        match result {
            Ok(Ok(ran)) => Ok(ran),
            Ok(Err(CompileError::Cancelled)) => Err(Stopped::Cancelled),
            Ok(Err(e)) => Err(Stopped::Failed(e.to_string())),
            Err(panic) => Err(Stopped::Failed(panic)),
        }
    }

    /// Renews this runner's leases every [`HEARTBEAT`] until `stop`, and stops the jobs
    /// someone asked to cancel.
    fn heartbeat_loop(&self, stop: CancellationToken) -> CancellationToken {
        let me = self.clone();
        let handle = stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(HEARTBEAT) => {}
                    _ = stop.cancelled() => return,
                }
                // A failed renewal is tried again at the next beat; a lease only expires
                // after STALE_AFTER.
                if let Ok(cancelled) = me.store().heartbeat(&me.shared.owner) {
                    let running = me.running();
                    for id in cancelled {
                        if let Some(token) = running.get(&id) {
                            token.cancel();
                        }
                    }
                }
            }
        });
        handle
    }

    /// Reports the changes of jobs other processes queue or run, once a [`POLL`].
    async fn watch_others(&self) {
        let mut seen: HashMap<JobId, (JobState, String)> = HashMap::new();
        let mut first = true;
        loop {
            tokio::time::sleep(POLL).await;
            let Ok(jobs) = self.store().recent_jobs(JOBS_LISTED) else {
                continue;
            };
            for job in jobs {
                if job.owner.as_ref() == Some(&self.shared.owner) {
                    continue;
                }
                let key = (job.state, job.updated_at.clone());
                if seen.get(&job.id) == Some(&key) {
                    continue;
                }
                seen.insert(job.id, key);
                // Jobs that had ended before this runner started are history, not news.
                let ended = !matches!(job.state, JobState::Queued | JobState::Running);
                if first && ended {
                    continue;
                }
                if !self.latest().contains_key(&job.id) || job.state != JobState::Queued {
                    self.report(job.id, progress_of(&job, &self.shared.owner));
                }
            }
            first = false;
        }
    }

    fn report(&self, job: JobId, progress: JobProgress) {
        self.shared
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(job, progress.clone());
        (self.shared.listener)(&progress);
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<JobId, CancellationToken>> {
        self.shared
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn latest(&self) -> HashMap<JobId, JobProgress> {
        self.shared
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Why a job stopped without a report.
enum Stopped {
    Cancelled,
    Failed(String),
}

/// Runs `work`, turning a panic inside it into an internal-error reason.
async fn catch<T>(work: impl Future<Output = T>) -> std::result::Result<T, String> {
    AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            format!("internal error (a bug in WikiMind; please report it): {what}")
        })
}

fn is_final(stage: StageView) -> bool {
    matches!(
        stage,
        StageView::Compiled | StageView::Failed | StageView::Cancelled
    )
}

/// A job's state as the table tells it, for jobs this runner has no live progress of.
fn progress_of(job: &Job, me: &JobOwner) -> JobProgress {
    let provider = match (&job.settings.provider, &job.settings.model) {
        (Some(p), Some(m)) => format!("{p}:{m}"),
        (None, Some(m)) => m.clone(),
        _ => String::new(),
    };
    let base = JobProgress {
        title: job.page_title.clone(),
        ..JobProgress::queued(job.target, provider)
    };
    match job.state {
        JobState::Queued => base,
        JobState::Running => JobProgress {
            stage: StageView::Prompting,
            message: job.owner.as_ref().filter(|o| *o != me).map(|o| {
                let doing = match job.target {
                    JobTarget::Source(_) => "compiling",
                    JobTarget::Page(_) => "writing",
                };
                format!("{doing} in another process (pid {} on {})", o.pid, o.host)
            }),
            ..base
        },
        JobState::Done => JobProgress {
            stage: StageView::Compiled,
            ..base
        },
        JobState::Failed => JobProgress {
            stage: StageView::Failed,
            message: job.error.clone(),
            ..base
        },
        JobState::Cancelled => JobProgress {
            title: job.page_title.clone(),
            ..JobProgress::cancelled(job.target)
        },
    }
}

/// The report of a job that ended before its work could say anything.
fn failed_run(job: &Job, reason: String) -> Ran {
    match job.target {
        JobTarget::Source(source) => Ran::Source(Box::new(failed_report(source, reason))),
        JobTarget::Page(page) => Ran::Page(Box::new(PageReport {
            outcome: PageOutcome::Failed { reason },
            ..PageReport::nothing_yet(page, job.page_title.clone().unwrap_or_default())
        })),
    }
}

/// The report of a job that ended before the compile could say anything.
fn failed_report(source_id: SourceId, reason: String) -> CompileReport {
    CompileReport {
        reason: Some(reason),
        ..CompileReport::nothing_yet(source_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;
    use crate::llm::{ChatRequest, ChatResponse, EventCallback, ModelInfo, NoKeyStore, Provider};
    use async_trait::async_trait;
    use std::sync::Mutex;
    use wikimind_testserver::TestServer;

    /// Wraps a real provider and panics on any prompt that holds `PANIC-HERE`: a bug we
    /// have not found yet, inside one compile.
    struct PanicsOnMarker(Arc<dyn Provider>);

    #[async_trait]
    impl Provider for PanicsOnMarker {
        async fn chat(
            &self,
            req: &ChatRequest,
            events: EventCallback<'_>,
        ) -> crate::llm::Result<ChatResponse> {
            if req
                .messages
                .iter()
                .any(|m| m.content.contains("PANIC-HERE"))
            {
                panic!("injected panic for a test");
            }
            self.0.chat(req, events).await
        }
        async fn list_models(&self) -> crate::llm::Result<Vec<ModelInfo>> {
            self.0.list_models().await
        }
        fn kind(&self) -> ProviderKind {
            self.0.kind()
        }
        fn base_url(&self) -> &str {
            self.0.base_url()
        }
    }

    fn settings_for(server: &TestServer) -> Settings {
        let overrides = Overrides {
            base_url: Some(server.url()),
            data_dir: Some("unused".into()),
            ..Overrides::default()
        };
        Settings::resolve(&overrides, &|_| None, None).expect("settings")
    }

    fn add(wiki: &Wiki, text: &str) -> SourceId {
        wiki.ingest_text(text, None).expect("ingest").sources[0].source_id
    }

    fn status(wiki: &Wiki, id: SourceId) -> (SourceStatus, Option<String>) {
        let s = wiki.store().source(id).expect("read").expect("exists");
        (s.status, s.reason)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_inside_one_compile_fails_only_that_source() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let before = add(
            &wiki,
            "# Crema\n\nCrema is the foam on top of an espresso shot.",
        );
        let bad = add(
            &wiki,
            "# Trap\n\nThis note holds PANIC-HERE and a sentence.",
        );
        let after = add(
            &wiki,
            "# Bloom\n\nBlooming lets fresh coffee release its gas.",
        );
        let factory_wiki = wiki.clone();
        let runner = JobRunner::with_compilers(
            wiki.clone(),
            settings_for(&server),
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
            Box::new(move |settings: &Settings| {
                let mut slots = crate::compile::providers_from_settings(settings)?;
                for slot in &mut slots {
                    slot.provider = Arc::new(PanicsOnMarker(Arc::clone(&slot.provider)));
                }
                Ok(Arc::new(Compiler::new(
                    Arc::clone(factory_wiki.store()),
                    slots,
                    settings.compile.clone(),
                )))
            }),
        );
        runner
            .enqueue(&[before, bad, after], None)
            .expect("enqueue");
        let reports = runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("the run goes on past the panic");
        assert_eq!(reports.sources.len(), 3);
        assert_eq!(status(&wiki, before).0, SourceStatus::Compiled);
        assert_eq!(status(&wiki, after).0, SourceStatus::Compiled);
        let (state, reason) = status(&wiki, bad);
        assert_eq!(state, SourceStatus::Failed);
        let reason = reason.expect("a reason");
        assert!(reason.starts_with("internal error"), "{reason}");
        assert!(reason.contains("injected panic"), "{reason}");
        let jobs = wiki.store().jobs().expect("jobs");
        assert!(
            jobs.iter().all(|j| j.state != JobState::Running),
            "{jobs:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_job_runs_with_the_model_it_was_asked_with() {
        let server = TestServer::builder()
            .models(["configured-model", "asked-model"])
            .start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let a = add(&wiki, "# Tamping\n\nTamping presses the grounds evenly.");
        let mut settings = settings_for(&server);
        settings.providers[0].model = "configured-model".into();
        let asker = JobRunner::new(
            wiki.clone(),
            settings.clone(),
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        asker.enqueue(&[a], Some("asked-model")).expect("enqueue");
        // Another runner, configured otherwise, runs it as it was asked.
        settings.providers[0].model = "configured-model".into();
        let other = JobRunner::new(
            wiki.clone(),
            settings,
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        other
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("run");
        let models: Vec<String> = server
            .chat_requests()
            .iter()
            .filter_map(|r| {
                r.body
                    .get("model")
                    .and_then(|m| m.as_str())
                    .map(str::to_owned)
            })
            .collect();
        assert_eq!(models, ["asked-model"]);
        assert_eq!(status(&wiki, a).0, SourceStatus::Compiled);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stopping_the_runner_puts_its_running_job_back_in_line() {
        let server = TestServer::builder()
            .responder(|req| {
                Some(
                    wikimind_testserver::Reply::text(
                        wikimind_testserver::canned::compilation_answer(&req.first_user_message()),
                    )
                    .chunk_chars(8)
                    .chunk_delay(Duration::from_millis(50)),
                )
            })
            .start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let a = add(&wiki, "# Slow\n\nA slow answer streams in small pieces.");
        let runner = JobRunner::new(
            wiki.clone(),
            settings_for(&server),
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        let job = runner.enqueue(&[a], None).expect("enqueue")[0];
        let stop = CancellationToken::new();
        let stopper = stop.clone();
        let watch = wiki.clone();
        tokio::spawn(async move {
            // Stop once the job is running.
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if watch.store().job(job).ok().flatten().map(|j| j.state) == Some(JobState::Running)
                {
                    stopper.cancel();
                    return;
                }
            }
        });
        runner.run_until_idle(&stop).await.expect("run");
        let job = wiki.store().job(job).expect("read").expect("exists");
        assert_eq!((job.state, job.owner), (JobState::Queued, None));
        assert_eq!(status(&wiki, a).0, SourceStatus::Pending);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancel_stops_only_that_job() {
        let server = TestServer::builder()
            .responder(|req| {
                let slow = req.first_user_message().contains("Slow");
                Some(
                    wikimind_testserver::Reply::text(
                        wikimind_testserver::canned::compilation_answer(&req.first_user_message()),
                    )
                    .chunk_chars(8)
                    .chunk_delay(Duration::from_millis(if slow { 100 } else { 0 })),
                )
            })
            .start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let slow = add(&wiki, "# Slow\n\nA slow answer streams in small pieces.");
        let quick = add(&wiki, "# Quick\n\nA quick answer arrives at once.");
        let mut settings = settings_for(&server);
        settings.compile.concurrency = 2;
        let runner = JobRunner::new(
            wiki.clone(),
            settings,
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        runner.enqueue(&[slow, quick], None).expect("enqueue");
        let canceller = runner.clone();
        let watch = wiki.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if status(&watch, slow).0 == SourceStatus::Compiling {
                    assert!(canceller.cancel(slow).expect("cancel"));
                    return;
                }
            }
        });
        runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("run");
        assert_eq!(status(&wiki, slow).0, SourceStatus::Pending);
        assert_eq!(status(&wiki, quick).0, SourceStatus::Compiled);
        let states: Vec<JobState> = wiki
            .store()
            .jobs()
            .expect("jobs")
            .iter()
            .map(|j| j.state)
            .collect();
        assert!(states.contains(&JobState::Cancelled), "{states:?}");
        assert!(states.contains(&JobState::Done), "{states:?}");
    }
    /// The app's always-on runner stores the wiki's health figures when its compile run
    /// ends (the queue idle after it finished a job), once per run, as `compile` does.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_always_on_runner_stores_health_figures_when_its_run_ends() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let id = add(
            &wiki,
            "# Espresso\n\nEspresso is brewed by forcing hot water.",
        );
        let runner = JobRunner::new(
            wiki.clone(),
            settings_for(&server),
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        );
        let stop = CancellationToken::new();
        runner.start(&tokio::runtime::Handle::current(), stop.clone());
        assert!(wiki.store().health_runs(10).expect("runs").is_empty());
        runner.enqueue(&[id], None).expect("enqueue");
        let stored = tokio::time::timeout(Duration::from_secs(120), async {
            loop {
                let runs = wiki.store().health_runs(10).expect("runs");
                if !runs.is_empty() {
                    return runs;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the run ended and stored its figures");
        stop.cancel();
        assert_eq!(status(&wiki, id).0, SourceStatus::Compiled);
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].trigger, "compile");
        assert_eq!(stored[0].pages, 1);
        assert!(
            !runner.record_health_when_idle(wiki.store()),
            "nothing ran since: nothing more is stored"
        );
    }

    /// A change of a job as the runner reported it, and whether a source job was queued or
    /// running in the store at that moment.
    type Seen = Arc<Mutex<Vec<(JobTarget, StageView, Option<String>, bool)>>>;

    /// A runner that records every change of every job it reports.
    fn recording(wiki: &Wiki, settings: Settings) -> (JobRunner, Seen) {
        let seen: Seen = Arc::default();
        let log = Arc::clone(&seen);
        let store = Arc::clone(wiki.store());
        let runner = JobRunner::new(
            wiki.clone(),
            settings,
            Arc::new(NoKeyStore),
            Box::new(move |p: &JobProgress| {
                let sources_pending = store.recent_jobs(0).map_or(true, |jobs| {
                    jobs.iter()
                        .any(|j| matches!(j.target, JobTarget::Source(_)))
                });
                if let (Some(target), Ok(mut log)) = (p.target(), log.lock()) {
                    log.push((target, p.stage, p.title.clone(), sources_pending));
                }
            }),
        );
        (runner, seen)
    }

    fn page_jobs(wiki: &Wiki) -> Vec<Job> {
        wiki.store()
            .jobs()
            .expect("jobs")
            .into_iter()
            .filter(|j| matches!(j.target, JobTarget::Page(_)))
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_page_job_runs_after_the_source_jobs_once_however_many_sources_changed() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let notes = [
            "# Espresso\n\nEspresso is brewed by forcing hot water through fine coffee.",
            "# espresso\n\nA shot of espresso takes about thirty seconds to pull.",
            "# Espressos\n\nEspressos are served in small demitasse cups.",
            "# Crema\n\nCrema is the foam on top of an espresso shot.",
        ];
        let ids: Vec<SourceId> = notes.iter().map(|n| add(&wiki, n)).collect();
        let mut settings = settings_for(&server);
        settings.compile.concurrency = 2;
        let (runner, seen) = recording(&wiki, settings);
        runner.enqueue(&ids, None).expect("enqueue");
        let reports = runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("run");

        assert_eq!(reports.sources.len(), 4);
        assert!(
            reports.sources.iter().all(|r| r.ok),
            "{:?}",
            reports.sources
        );
        let page = wiki
            .store()
            .find_page("Espresso")
            .expect("find")
            .expect("one page for the three spellings");
        assert_eq!(reports.pages.len(), 1, "{:?}", reports.pages);
        // Titled as the first digest saved spells it (the two workers race for that).
        let title = wiki.store().page(page).expect("read").expect("page").title;
        assert_eq!(reports.pages[0].page_id, page);
        assert_eq!(reports.pages[0].title, title);
        let jobs = page_jobs(&wiki);
        assert_eq!(jobs.len(), 1, "one job for the page: {jobs:?}");
        assert_eq!(jobs[0].target, JobTarget::Page(page));

        // No source job was queued or running while the page job ran.
        let seen = seen.lock().expect("log").clone();
        let page_ran: Vec<_> = seen
            .iter()
            .filter(|(t, stage, _, _)| {
                *t == JobTarget::Page(page) && !matches!(stage, StageView::Queued)
            })
            .collect();
        assert!(!page_ran.is_empty(), "the page job ran");
        assert!(
            page_ran
                .iter()
                .all(|(_, _, _, sources_pending)| !sources_pending),
            "{seen:?}"
        );
        // The queue shows the page job by its page's title throughout.
        assert!(seen
            .iter()
            .filter(|(t, _, _, _)| *t == JobTarget::Page(page))
            .all(|(_, _, shown, _)| shown.as_deref() == Some(title.as_str())));
        let listed = runner.jobs().expect("jobs");
        let shown = listed
            .iter()
            .find(|j| j.page_id == Some(page.0))
            .expect("the page job is listed");
        assert_eq!(shown.kind, crate::view::JobKindView::Page);
        assert_eq!(shown.source_id, None);
        assert_eq!(shown.title.as_deref(), Some(title.as_str()));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_queue_lists_one_row_per_page_however_often_it_was_written() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let (runner, _) = recording(&wiki, settings_for(&server));
        for note in [
            "# Espresso\n\nEspresso is brewed by forcing hot water through fine coffee.",
            "# espresso\n\nA shot of espresso takes about thirty seconds to pull.",
            "# Espressos\n\nEspressos are served in small demitasse cups.",
        ] {
            let id = add(&wiki, note);
            runner.enqueue(&[id], None).expect("enqueue");
            runner
                .run_until_idle(&CancellationToken::new())
                .await
                .expect("run");
        }
        assert!(page_jobs(&wiki).len() >= 2, "{:?}", page_jobs(&wiki));
        let listed = runner.jobs().expect("jobs");
        let keys: Vec<(Option<i64>, Option<i64>)> =
            listed.iter().map(|j| (j.source_id, j.page_id)).collect();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            keys.len(),
            "one row per source and page: {keys:?}"
        );
        assert_eq!(listed.iter().filter(|j| j.page_id.is_some()).count(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_job_that_fails_is_not_run_again_until_the_page_changes() {
        let server = crate::test_settings::server_failing_pages();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let a = add(
            &wiki,
            "# Tea\n\nGreen tea is steamed or pan-fired soon after picking.",
        );
        let b = add(
            &wiki,
            "# Tea\n\nBlack tea leaves are fully oxidised before drying.",
        );
        let (runner, _) = recording(&wiki, settings_for(&server));
        runner.enqueue(&[a, b], None).expect("enqueue");
        let first = runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("the run ends although the page failed");
        assert_eq!(first.pages.len(), 1);
        assert!(!first.pages[0].ok(), "{:?}", first.pages[0]);
        assert!(first.pages[0].reason().is_some());
        let page = first.pages[0].page_id;
        let stale = wiki.store().page(page).expect("read").expect("page");
        assert!(stale.stale_reason.is_some(), "it still waits to be written");
        assert_eq!(status(&wiki, a).0, SourceStatus::Compiled);
        assert_eq!(status(&wiki, b).0, SourceStatus::Compiled);
        let failed = page_jobs(&wiki);
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].state, JobState::Failed);

        // Nothing changed: the model is not asked again.
        let asked = server.chat_requests().len();
        let again = runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("run");
        assert_eq!(again, RunReports::default());
        assert_eq!(server.chat_requests().len(), asked);

        // A third source on tea changes the page: it is written again.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let c = add(&wiki, "# Teas\n\nOolong tea is only partly oxidised.");
        runner.enqueue(&[c], None).expect("enqueue");
        let third = runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("run");
        assert_eq!(third.sources.len(), 1);
        assert_eq!(third.pages.len(), 1);
        assert_eq!(third.pages[0].page_id, page);
        assert_eq!(page_jobs(&wiki).len(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancelled_page_job_does_not_run_and_the_page_waits() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let settings = settings_for(&server);
        // Two sources compiled outside any queue leave their page stale.
        let compiler = wiki.compiler(&settings).expect("compiler");
        for note in [
            "# Tea\n\nGreen tea is steamed or pan-fired soon after picking.",
            "# Tea\n\nBlack tea leaves are fully oxidised before drying.",
        ] {
            let id = add(&wiki, note);
            let report = compiler
                .compile_job(id, &|_| {}, &CancellationToken::new())
                .await
                .expect("compile");
            assert!(report.ok, "{report:?}");
        }
        let page = wiki.store().find_page("Tea").expect("find").expect("page");
        let (runner, seen) = recording(&wiki, settings);
        assert_eq!(runner.enqueue_stale_pages().expect("queue"), 1);
        assert_eq!(runner.enqueue_stale_pages().expect("queue"), 0, "once");
        assert!(runner.cancel_page(page).expect("cancel"));
        assert!(!runner.cancel_page(page).expect("nothing left to cancel"));
        let last = seen
            .lock()
            .expect("log")
            .last()
            .map(|(target, stage, title, _)| (*target, *stage, title.clone()));
        assert_eq!(
            last,
            Some((
                JobTarget::Page(page),
                StageView::Cancelled,
                Some("Tea".to_owned())
            ))
        );

        let asked = server.chat_requests().len();
        let reports = runner
            .run_until_idle(&CancellationToken::new())
            .await
            .expect("run");
        assert!(reports.pages.is_empty(), "{:?}", reports.pages);
        assert_eq!(server.chat_requests().len(), asked, "no model call");
        let stale = wiki.store().page(page).expect("read").expect("page");
        assert!(stale.stale_reason.is_some());
        let jobs = page_jobs(&wiki);
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].state, JobState::Cancelled);
    }
}
