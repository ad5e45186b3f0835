//! One compile run asked for by name, as `wikimind compile` makes it: which sources it
//! compiles, whether the model answers before any source is touched, and whether the run
//! as a whole succeeded.
//!
//! [`CompilePlan::prepare`] decides everything before work starts (and does no compile);
//! [`CompilePlan::run`] queues the sources on a [`JobRunner`] and waits until each has
//! ended, whoever ran it, and then until the pages they left stale (and any other stale
//! page) are written. A shell prints between the two.

use std::collections::HashMap;

use tokio_util::sync::CancellationToken;

use crate::compile::{CompileReport, PageOutcome, PageReport};
use crate::config::Settings;
use crate::llm::{LlmError, ProviderKind};
use crate::provider_check::BuiltinOffer;
use crate::queue::{JobRunner, PoolShare};
use crate::store::{JobId, JobState, JobTarget, SourceId, Store};
use crate::wiki::{CompileSelection, Result, Wiki};

/// The model does not answer: nothing is compiled (no source is touched or marked failed).
#[derive(Debug)]
pub struct ServerDown {
    /// Why, in words a person can act on (what to start, what to check).
    pub error: LlmError,
    /// The built-in engine, offered when no server was reachable at all.
    pub offer: Option<BuiltinOffer>,
}

/// What a compile run will do, decided before it starts.
#[derive(Debug)]
pub struct CompilePlan {
    /// The sources asked for, those left alone, and names that match no source. When a
    /// name matches nothing the plan stops there: nothing is recovered or checked.
    pub selection: CompileSelection,
    /// Compiles an earlier run left unfinished, put back in line.
    pub recovered: usize,
    /// Prompt override files that could not be used, and why.
    pub prompt_problems: Vec<String>,
    /// Set when the model does not answer: the run must not start.
    pub server_down: Option<ServerDown>,
    /// Jobs waiting or running in the queue (also other processes' and recovered ones),
    /// which the run waits for too.
    pub waiting: usize,
    /// Stale pages the run will write besides those its sources make stale (a source was
    /// removed, or an earlier run stopped before writing them).
    pub stale_pages: usize,
}

impl CompilePlan {
    /// Decides what compiling the sources named by `keys` does (none: every source that
    /// needs it; with `force`, compiled ones too), with `runner`'s settings: recovers
    /// interrupted compiles, and when a single provider is configured and there is
    /// something to compile, asks it for its models first.
    pub async fn prepare(
        wiki: &Wiki,
        runner: &JobRunner,
        keys: &[String],
        force: bool,
    ) -> Result<CompilePlan> {
        let selection = wiki.compile_selection(keys, force)?;
        let mut plan = CompilePlan {
            selection,
            recovered: 0,
            prompt_problems: Vec::new(),
            server_down: None,
            waiting: 0,
            stale_pages: 0,
        };
        if !plan.selection.unknown.is_empty() {
            return Ok(plan);
        }
        plan.recovered = runner.recover()?;
        plan.prompt_problems = wiki.prompt_problems();
        plan.stale_pages = wiki.store().pages_to_queue()?.len();
        if !plan.selection.sources.is_empty() || plan.stale_pages > 0 {
            plan.server_down = preflight(&runner.settings()).await?;
        }
        if plan.server_down.is_none() {
            plan.waiting = wiki.store().recent_jobs(0)?.len();
        }
        Ok(plan)
    }

    /// Whether there is nothing to compile, no page to write and nothing to wait for.
    pub fn is_empty(&self) -> bool {
        self.selection.sources.is_empty() && self.waiting == 0 && self.stale_pages == 0
    }

    /// How many compiles the run is about to see through: the sources asked for, or the
    /// jobs in the queue when there are more of those.
    pub fn count(&self) -> usize {
        self.selection.sources.len().max(self.waiting)
    }

    /// Queues the selected sources on `runner` and runs the queue until every one of them
    /// has ended (whoever ran it) and no page job is queued or running — the pages their
    /// digests left stale are written after them — or `stop` is cancelled. Unfinished
    /// compiles stay queued.
    pub async fn run(
        &self,
        runner: &JobRunner,
        stop: &CancellationToken,
    ) -> Result<CompileOutcome> {
        let jobs = runner.enqueue(&self.selection.sources, None)?;
        let asked = jobs.clone();
        let own = runner
            .run_until(stop, move |store| {
                all_ended(store, &asked) && no_page_job_pending(store)
            })
            .await?;
        let reports = runner.reports(&jobs, own.sources)?;
        Ok(CompileOutcome {
            all_compiled: all_compiled(&self.selection.sources, &reports),
            interrupted: stop.is_cancelled(),
            reports,
            pages: own.pages,
            pool: runner.pool_shares(),
        })
    }
}

/// What a compile run did.
#[derive(Debug)]
pub struct CompileOutcome {
    /// One report per job asked for, in order, then those of jobs this run took from the
    /// queue besides.
    pub reports: Vec<CompileReport>,
    /// One report per page job this run ran, in the order they ended (pages another
    /// process wrote meanwhile are not among them).
    pub pages: Vec<PageReport>,
    /// Whether the run was stopped before everything ended.
    pub interrupted: bool,
    /// What each member of the pool did in the run (empty without a pool): a member that
    /// failed does not fail a run whose sources all compiled on the others.
    pub pool: Vec<PoolShare>,
    all_compiled: bool,
}

impl CompileOutcome {
    /// Whether the run succeeded: not interrupted, every source asked for compiled, every
    /// other compile it ran too, and no page it wrote failed or was flagged.
    pub fn succeeded(&self) -> bool {
        !self.interrupted && self.all_compiled && self.pages.iter().all(PageReport::ok)
    }

    /// How many reports say compiled.
    pub fn compiled(&self) -> usize {
        self.reports.iter().filter(|r| r.ok).count()
    }

    /// How many pages the model wrote a new version of.
    pub fn pages_written(&self) -> usize {
        self.pages
            .iter()
            .filter(|p| matches!(p.outcome, PageOutcome::Written { .. }))
            .count()
    }

    /// How many page jobs failed or had their answer refused (the page flagged).
    pub fn pages_failed(&self) -> usize {
        self.pages.iter().filter(|p| !p.ok()).count()
    }
}

/// A model that does not answer is said once, before any source is touched: with one
/// provider configured, a transport error (nothing listens, the connection breaks), or
/// any error of the built-in engine (a model file it cannot load). With fallbacks the
/// compile tries the next provider instead; another error (a model not on the server)
/// is the compile's to report per source.
async fn preflight(settings: &Settings) -> Result<Option<ServerDown>> {
    if settings.pool && settings.providers.len() > 1 {
        return pool_preflight(settings).await;
    }
    if settings.providers.len() != 1 {
        return Ok(None);
    }
    let slot = crate::compile::providers_from_settings(settings)?.remove(0);
    let Err(error) = slot.provider.list_models().await else {
        return Ok(None);
    };
    let transport = error.is_transport();
    if !transport && settings.provider().kind != ProviderKind::Builtin {
        return Ok(None);
    }
    Ok(Some(ServerDown {
        offer: transport.then(|| BuiltinOffer::of(settings)),
        error,
    }))
}

/// A pool is down when no member answers its model list for reasons of the server or the
/// network: the run is then not started, as with one server (the first member's error is
/// said). A pool with one member that answers runs, and the others are set aside as they
/// fail.
async fn pool_preflight(settings: &Settings) -> Result<Option<ServerDown>> {
    let mut first = None;
    for slot in crate::compile::providers_from_settings(settings)? {
        match slot.provider.list_models().await {
            Err(e) if e.is_transport() => {
                first.get_or_insert(e);
            }
            _ => return Ok(None),
        }
    }
    Ok(first.map(|error| ServerDown {
        offer: Some(BuiltinOffer::of(settings)),
        error,
    }))
}

/// Whether every job asked for has ended, whoever ran it. A store that cannot be read
/// says no: the next take of a job reports its error.
fn all_ended(store: &Store, jobs: &[JobId]) -> bool {
    jobs.iter().all(|id| match store.job(*id) {
        Ok(job) => !matches!(
            job.map(|j| j.state),
            Some(JobState::Queued | JobState::Running)
        ),
        Err(_) => false,
    })
}

/// Whether no page job is queued or running anywhere. A store that cannot be read says no.
fn no_page_job_pending(store: &Store) -> bool {
    store.recent_jobs(0).is_ok_and(|jobs| {
        jobs.iter()
            .all(|job| !matches!(job.target, JobTarget::Page(_)))
    })
}

/// Whether every source asked for has a report saying compiled, and no report says failed.
fn all_compiled(asked: &[SourceId], reports: &[CompileReport]) -> bool {
    let ok: HashMap<SourceId, bool> = reports.iter().map(|r| (r.source_id, r.ok)).collect();
    asked.iter().all(|id| ok.get(id).copied().unwrap_or(false)) && reports.iter().all(|r| r.ok)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::llm::NoKeyStore;
    use crate::store::SourceStatus;
    use crate::test_settings::{closed_port, settings_at as settings};
    use wikimind_testserver::TestServer;

    fn runner(wiki: &Wiki, settings: Settings) -> JobRunner {
        JobRunner::new(
            wiki.clone(),
            settings,
            Arc::new(NoKeyStore),
            Box::new(|_| {}),
        )
    }

    fn add(wiki: &Wiki, text: &str) -> SourceId {
        wiki.ingest_text(text, None).expect("ingest").sources[0].source_id
    }

    fn report(source: i64, ok: bool) -> CompileReport {
        let mut r = CompileReport::nothing_yet(SourceId(source));
        r.ok = ok;
        r
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_server_that_is_down_blocks_the_run_and_leaves_sources_pending() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        let id = add(&wiki, "# Tea\n\nGreen tea is steamed or pan-fired.");
        let runner = runner(&wiki, settings(&closed_port()));
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        let down = plan.server_down.expect("the server is down");
        assert!(down.error.is_transport(), "{}", down.error);
        assert!(down.offer.is_some(), "no server answers: offer the engine");
        let source = wiki.store().source(id).expect("read").expect("exists");
        assert_eq!(source.status, SourceStatus::Pending);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pool_blocks_the_run_only_when_no_member_answers() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let id = add(&wiki, "# Tea\n\nGreen tea is steamed or pan-fired.");
        let mut s = settings(&closed_port());
        s.pool = true;
        s.providers.push(s.providers[0].clone());
        let plan = CompilePlan::prepare(&wiki, &runner(&wiki, s.clone()), &[], false)
            .await
            .expect("plan");
        let down = plan.server_down.expect("no member answers");
        assert!(down.error.is_transport(), "{}", down.error);
        let source = wiki.store().source(id).expect("read").expect("exists");
        assert_eq!(source.status, SourceStatus::Pending);

        s.providers[1].base_url = server.url();
        let plan = CompilePlan::prepare(&wiki, &runner(&wiki, s), &[], false)
            .await
            .expect("plan");
        assert!(plan.server_down.is_none(), "one member answers");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn nothing_to_compile_asks_no_server() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        let runner = runner(&wiki, settings(&closed_port()));
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        assert!(plan.server_down.is_none());
        assert!(plan.is_empty());
        assert_eq!(plan.count(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn with_a_fallback_a_primary_that_is_down_does_not_block_the_run() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        add(&wiki, "# Tea\n\nGreen tea is steamed or pan-fired.");
        let mut s = settings(&closed_port());
        let mut fallback = s.providers[0].clone();
        fallback.base_url = server.url();
        s.providers.push(fallback);
        let plan = CompilePlan::prepare(&wiki, &runner(&wiki, s.clone()), &[], false)
            .await
            .expect("plan");
        assert!(plan.server_down.is_none());
        assert_eq!(plan.count(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_name_that_matches_nothing_stops_the_plan_before_any_check() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        add(&wiki, "# Tea\n\nGreen tea is steamed or pan-fired.");
        let runner = runner(&wiki, settings(&closed_port()));
        let plan = CompilePlan::prepare(&wiki, &runner, &["nope".into()], false)
            .await
            .expect("plan");
        assert_eq!(plan.selection.unknown, ["nope"]);
        assert!(plan.server_down.is_none(), "no server was asked");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_run_compiles_what_was_asked_and_succeeds() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let id = add(&wiki, "# Tea\n\nGreen tea is steamed or pan-fired.");
        let runner = runner(&wiki, settings(&server.url()));
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        assert!(plan.server_down.is_none());
        let outcome = plan
            .run(&runner, &CancellationToken::new())
            .await
            .expect("run");
        assert!(outcome.succeeded(), "{:?}", outcome.reports);
        assert_eq!(outcome.compiled(), 1);
        assert_eq!(outcome.reports[0].source_id, id);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_run_stopped_before_it_starts_fails_and_keeps_the_source_queued() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        add(&wiki, "# Tea\n\nGreen tea is steamed or pan-fired.");
        let runner = runner(&wiki, settings(&server.url()));
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        let stop = CancellationToken::new();
        stop.cancel();
        let outcome = plan.run(&runner, &stop).await.expect("run");
        assert!(outcome.interrupted);
        assert!(!outcome.succeeded());
        assert_eq!(wiki.store().recent_jobs(0).expect("jobs").len(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_that_cannot_be_written_fails_the_run_after_its_sources_compiled() {
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
        let runner = runner(&wiki, settings(&server.url()));
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        assert_eq!(plan.stale_pages, 0, "no page is stale before the run");
        let outcome = plan
            .run(&runner, &CancellationToken::new())
            .await
            .expect("run");
        assert_eq!(outcome.compiled(), 2, "{:?}", outcome.reports);
        let ids: Vec<SourceId> = outcome.reports.iter().map(|r| r.source_id).collect();
        assert_eq!(ids, [a, b]);
        assert_eq!(outcome.pages.len(), 1, "the run waited for the page");
        assert_eq!(outcome.pages[0].title, "Tea");
        assert_eq!(outcome.pages_failed(), 1);
        assert!(!outcome.succeeded(), "a page that failed fails the run");
        assert!(wiki.store().recent_jobs(0).expect("jobs").is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stale_pages_alone_are_work_for_a_run() {
        let server = TestServer::start();
        let wiki = Wiki::open_in_memory().expect("wiki");
        let settings = settings(&server.url());
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
        let runner = runner(&wiki, settings);
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        assert!(
            plan.selection.sources.is_empty(),
            "every source is compiled"
        );
        assert_eq!(plan.stale_pages, 1);
        assert!(!plan.is_empty());
        let outcome = plan
            .run(&runner, &CancellationToken::new())
            .await
            .expect("run");
        assert!(outcome.reports.is_empty());
        assert_eq!(
            outcome.pages.len(),
            1,
            "the stale page was written (or tried)"
        );
        assert_eq!(outcome.succeeded(), outcome.pages[0].ok());
    }

    #[test]
    fn a_source_asked_for_without_a_report_or_any_failed_report_fails_the_run() {
        let asked = [SourceId(1), SourceId(2)];
        assert!(all_compiled(&asked, &[report(1, true), report(2, true)]));
        assert!(!all_compiled(&asked, &[report(1, true)]), "2 never ended");
        assert!(!all_compiled(&asked, &[report(1, true), report(2, false)]));
        // A compile left queued by an earlier run that failed now fails this run too.
        assert!(!all_compiled(
            &asked,
            &[report(1, true), report(2, true), report(3, false)]
        ));
        assert!(all_compiled(&[], &[]));
    }
}
