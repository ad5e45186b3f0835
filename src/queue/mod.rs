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
use crate::wiki::{Result, Wiki};

mod background;
mod event;
mod health;
pub mod pool;
mod reports;
pub use event::{JobEvent, JobPhase};
pub use pool::PoolShare;
use pool::{pool_of, Lease, Pool};

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
pub type JobListener = dyn Fn(&JobEvent) + Send + Sync;

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
    /// The latest event of every job seen, by job.
    latest: Mutex<HashMap<JobId, JobEvent>>,
    /// Woken when a job is queued through this runner.
    wake: Notify,
    /// The compiler of the latest job, kept so what its providers hold stays loaded: the
    /// built-in engine's model is shared only while someone holds it, and loading it for
    /// every job would cost seconds each time.
    warm: Mutex<Option<Arc<Compiler>>>,
    /// Whether this runner finished a job since the queue was last idle: an always-on
    /// runner ([`JobRunner::start`]) stores the wiki's health figures when its run ends.
    ran_since_idle: std::sync::atomic::AtomicBool,
    /// Whether a worker of this runner is laying the graph out now.
    laying_out: std::sync::atomic::AtomicBool,
    /// The wiki's change count when a layout last failed here (-1: none failed), so a
    /// failing layout is tried again only once the wiki changes.
    layout_failed_at: std::sync::atomic::AtomicI64,
    /// Told when a graph layout starts and ends ([`JobRunner::on_graph_layout`]).
    graph_listener: RwLock<Option<Arc<GraphListener>>>,
    /// The pool of model servers jobs are spread over, when the settings have one.
    pool: RwLock<Option<Arc<Pool>>>,
}

/// Receives the graph layout's state when a layout starts and when it ends.
pub type GraphListener = dyn Fn(&crate::graph::GraphLayoutView) + Send + Sync;

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

/// The settings a job asks for: the asker's primary provider as it stands; nothing when
/// the asker has a pool and names no model (the runner's pool then chooses the server).
pub fn job_settings(settings: &Settings, model: Option<&str>) -> JobSettings {
    if settings.pool && model.is_none() {
        return JobSettings::default();
    }
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
        let pool = RwLock::new(pool_of(&settings));
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
                laying_out: std::sync::atomic::AtomicBool::new(false),
                layout_failed_at: std::sync::atomic::AtomicI64::new(-1),
                graph_listener: RwLock::new(None),
                pool,
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

    /// Replaces the settings for jobs queued from now on. A pool whose members changed
    /// starts afresh (its figures and set-aside members with it).
    pub fn set_settings(&self, settings: Settings) {
        let before = self.settings();
        if before.pool != settings.pool || before.providers != settings.providers {
            *self
                .shared
                .pool
                .write()
                .unwrap_or_else(PoisonError::into_inner) = pool_of(&settings);
        }
        *self
            .shared
            .settings
            .write()
            .unwrap_or_else(PoisonError::into_inner) = settings;
    }

    /// How many jobs run at once: as many as a pool's members take together, else
    /// `compile.concurrency`.
    fn workers(&self) -> usize {
        match self.pool() {
            Some(pool) => pool.capacity(),
            None => self.settings().compile.concurrency,
        }
        .max(1)
    }

    fn pool(&self) -> Option<Arc<Pool>> {
        self.shared
            .pool
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What each member of the pool did since the runner started (or its pool last
    /// changed), and its state now; empty without a pool.
    pub fn pool_shares(&self) -> Vec<PoolShare> {
        self.pool().map(|p| p.shares()).unwrap_or_default()
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
                    self.report(id, JobEvent::from_table(&job, &self.shared.owner));
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
                    self.report(id, JobEvent::from_table(&job, &self.shared.owner));
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
                JobEvent::of(&job, String::new(), JobPhase::Cancelled),
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
    pub fn jobs(&self) -> Result<Vec<JobEvent>> {
        let jobs = self.store().recent_jobs(JOBS_LISTED)?;
        let latest = self.latest();
        let mut seen = std::collections::HashSet::new();
        Ok(jobs
            .iter()
            .filter(|job| seen.insert(job.target))
            .map(|job| match latest.get(&job.id) {
                Some(seen) if job.state == JobState::Running || seen.phase.is_final() => {
                    seen.clone()
                }
                _ => JobEvent::from_table(job, &self.shared.owner),
            })
            .collect())
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
        let workers = self.workers();
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
                // A round ends when the settings ask for another number of workers (a pool
                // set or changed), once the queue is idle, so the next has that many.
                let workers = me.workers();
                let _ = me
                    .run_until(&workers_stop, move |store| {
                        idle.record_health_when_idle(store);
                        idle.workers() != workers
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
            // With a pool, a worker takes a member before a job: a job waits in the queue,
            // not on a worker, until a member is free.
            let lease = match self.pool() {
                None => None,
                Some(pool) => match pool.lease() {
                    Ok(lease) => Some(lease),
                    Err(back) => {
                        if self.enqueue_stale_pages()? == 0 && done(self.store()) {
                            return Ok(reports);
                        }
                        let wait = back.map_or(POLL, |b| pool.wait_for(b).min(POLL));
                        tokio::select! {
                            _ = pool.changed() => {}
                            _ = tokio::time::sleep(wait) => {}
                            _ = stop.cancelled() => {}
                        }
                        continue;
                    }
                },
            };
            if let Some(job) = self.store().start_next(&self.shared.owner)? {
                match self.run_job(job, stop, lease).await? {
                    Some(Ran::Source(report)) => reports.sources.push(*report),
                    Some(Ran::Page(report)) => reports.pages.push(*report),
                    None => {}
                }
                continue;
            }
            // The member waits for no one while this worker idles.
            drop(lease);
            // Nothing to take: the pages the sources left stale come next.
            if self.enqueue_stale_pages()? > 0 {
                continue;
            }
            // Then the graph's layout, when the run changed pages or links.
            self.lay_out_graph(stop).await;
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

    /// Runs one job this runner has taken, to its end in the store: on the pool's member
    /// `lease` when the job asks for no server of its own.
    async fn run_job(
        &self,
        job: Job,
        stop: &CancellationToken,
        lease: Option<Lease>,
    ) -> Result<Option<Ran>> {
        let token = stop.child_token();
        self.running().insert(job.id, token.clone());
        let settings = settings_for_job(&self.settings(), &job.settings, &*self.shared.keys);
        let lease = lease.filter(|_| job.settings == JobSettings::default());
        let label = match &lease {
            Some(lease) => lease.label(),
            None => format!(
                "{}:{}",
                settings.provider().kind.as_str(),
                settings.provider().model
            ),
        };
        self.report(job.id, JobEvent::of(&job, label.clone(), JobPhase::Started));
        let outcome = self.execute(&job, &settings, &token, lease.as_ref()).await;
        self.running().remove(&job.id);
        if let (Some(lease), JobTarget::Source(_)) = (&lease, job.target) {
            match &outcome {
                Ok(Ran::Source(report)) => lease.source_ended(report.ok),
                Err(Stopped::Failed(_)) => lease.source_ended(false),
                _ => {}
            }
        }
        drop(lease);
        let (end, phase, ran) = match outcome {
            Ok(Ran::Source(report)) => {
                let end = if report.ok {
                    JobEnd::Done
                } else {
                    JobEnd::Failed(report.reason.clone().unwrap_or_default())
                };
                let phase = JobPhase::Compiled(report.clone());
                (end, phase, Some(Ran::Source(report)))
            }
            Ok(Ran::Page(report)) => {
                let end = match report.reason() {
                    None => JobEnd::Done,
                    Some(reason) => JobEnd::Failed(reason.to_owned()),
                };
                let phase = JobPhase::Written(report.clone());
                (end, phase, Some(Ran::Page(report)))
            }
            Err(Stopped::Cancelled) if stop.is_cancelled() => {
                (JobEnd::Interrupted, JobPhase::Interrupted, None)
            }
            Err(Stopped::Cancelled) => (JobEnd::Cancelled, JobPhase::Cancelled, None),
            Err(Stopped::Failed(reason)) => (
                JobEnd::Failed(reason.clone()),
                JobPhase::Failed(reason.clone()),
                Some(failed_run(&job, reason)),
            ),
        };
        self.store().finish_job(job.id, &end)?;
        self.shared
            .ran_since_idle
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.report(job.id, JobEvent::of(&job, label, phase));
        Ok(ran)
    }

    /// Runs a job's work: compiles its source or writes its page, containing whatever
    /// panics inside.
    async fn execute(
        &self,
        job: &Job,
        settings: &Settings,
        token: &CancellationToken,
        lease: Option<&Lease>,
    ) -> std::result::Result<Ran, Stopped> {
        let made = catch(async {
            match lease {
                // The member chosen, then the others that are not set aside, as fallbacks.
                Some(lease) => Ok(Arc::new(
                    self.shared
                        .wiki
                        .compiler_with(lease.slots(), settings.compile.clone()),
                )),
                None => (self.shared.compilers)(settings),
            }
        })
        .await;
        let compiler = match made {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(Stopped::Failed(e.to_string())),
            Err(panic) => return Err(Stopped::Failed(panic)),
        };
        // Swapped in while the previous one is still held, so a loaded model is reused.
        if let Ok(mut warm) = self.shared.warm.lock() {
            *warm = Some(Arc::clone(&compiler));
        }
        let me = self.clone();
        let queued = job.clone();
        let events = move |p: Progress| {
            let provider = p.provider.clone();
            me.report(
                queued.id,
                JobEvent::of(&queued, provider, JobPhase::Working(p)),
            );
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
                    self.report(job.id, JobEvent::from_table(&job, &self.shared.owner));
                }
            }
            first = false;
        }
    }

    fn report(&self, job: JobId, event: JobEvent) {
        self.shared
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(job, event.clone());
        (self.shared.listener)(&event);
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<JobId, CancellationToken>> {
        self.shared
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn latest(&self) -> HashMap<JobId, JobEvent> {
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
mod tests;
