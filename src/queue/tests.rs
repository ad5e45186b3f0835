//! The runner's tests: real stores, the scripted test server, panics and cancels.

use super::*;
use crate::config::Overrides;
use crate::llm::{ChatRequest, ChatResponse, EventCallback, ModelInfo, NoKeyStore, Provider};
use crate::view::{JobProgress, StageView};
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
    // The answer stalls after its first piece: the job is still running when it is stopped.
    let server = TestServer::builder()
        .responder(|req| {
            Some(
                wikimind_testserver::Reply::text(wikimind_testserver::canned::compilation_answer(
                    &req.first_user_message(),
                ))
                .chunk_chars(8)
                .stall_after(1),
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
            if watch.store().job(job).ok().flatten().map(|j| j.state) == Some(JobState::Running) {
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
            // The slow answer stalls after its first piece: it is still running when it is
            // cancelled, and only the cancel can end it (before the idle timeout).
            let reply = wikimind_testserver::Reply::text(
                wikimind_testserver::canned::compilation_answer(&req.first_user_message()),
            )
            .chunk_chars(8);
            if req.first_user_message().contains("Slow") {
                Some(reply.stall_after(1))
            } else {
                Some(reply)
            }
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
        Box::new(move |e: &JobEvent| {
            // Recorded as the desktop's queue shows it.
            let p = JobProgress::from(e);
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
    let listed = crate::view::job_list(&runner).expect("jobs");
    let shown = listed
        .iter()
        .find(|j| j.page_id == Some(page))
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
    let listed = crate::view::job_list(&runner).expect("jobs");
    let keys: Vec<(Option<crate::store::SourceId>, Option<crate::store::PageId>)> =
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
    let clock = crate::store::ManualClock::starting_now();
    let wiki = Wiki::open_in_memory_with_clock(clock.clone()).expect("wiki");
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

    // A third source on tea changes the page (a moment after the failure, which times
    // are kept to the millisecond): it is written again.
    clock.advance(Duration::from_millis(1));
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

/// A compile run ends with the graph laid out (a CLI compile keeps the graph current), and
/// the runner tells its graph listener when the layout starts and ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_ends_with_the_graph_laid_out() {
    use crate::graph::{GraphFilter, GraphLayoutPhase};
    let server = TestServer::start();
    let wiki = Wiki::open_in_memory().expect("wiki");
    let a = add(
        &wiki,
        "# Crema\n\nCrema is the foam on top of an espresso shot.",
    );
    let b = add(
        &wiki,
        "# Bloom\n\nBlooming lets fresh coffee release its gas.",
    );
    assert_eq!(
        wiki.graph_layout_state().unwrap().phase,
        GraphLayoutPhase::FirstLayout
    );
    let runner = JobRunner::new(
        wiki.clone(),
        settings_for(&server),
        Arc::new(NoKeyStore),
        Box::new(|_| {}),
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let told = Arc::clone(&seen);
    runner.on_graph_layout(Box::new(move |state| {
        told.lock().unwrap().push(state.clone());
    }));
    runner.enqueue(&[a, b], None).expect("enqueue");
    runner
        .run_until_idle(&CancellationToken::new())
        .await
        .expect("run");
    let state = wiki.graph_layout_state().unwrap();
    assert_eq!(state.phase, GraphLayoutPhase::Current);
    let view = wiki.graph(&GraphFilter::default()).unwrap();
    let pages = wiki.page_list().unwrap().len();
    assert!(pages >= 2);
    assert!(
        view.titles.len() >= pages,
        "every page is a node: {:?}",
        view.titles
    );
    let seen = seen.lock().unwrap();
    assert!(seen.iter().any(|s| s.running), "told it started: {seen:?}");
    let last = seen.last().expect("told");
    assert_eq!(last.phase, GraphLayoutPhase::Current);
    assert!(!last.running);
}
