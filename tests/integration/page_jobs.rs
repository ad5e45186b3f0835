//! Page jobs in the one queue, as the store hands them out: after every source job, once
//! per page however many of its sources changed, not again after a failure until the page
//! changes again, cancellable, recovered after a crash, and gone with their page.

use std::time::Duration;

use wikimind::store::{
    JobEnd, JobOwner, JobSettings, JobState, JobTarget, PageId, SourceId, SourceStatus, Store,
    StoreError,
};

use crate::seed::{add, result, save};

fn owner(pid: u32) -> JobOwner {
    JobOwner {
        host: "test-host".to_owned(),
        pid,
    }
}

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("wikimind.db")).expect("open");
    (dir, store)
}

/// Sources `a.md`, `b.md`, … each compiled into a digest titled `title`: one page, stale
/// once it has two of them.
fn sources_on(store: &Store, title: &str, names: &[&str]) -> (Vec<SourceId>, PageId) {
    let mut ids = Vec::new();
    let mut page = None;
    for name in names {
        let id = add(store, &format!("/n/{name}.md"), name);
        page = save(store, id, &result(title, name), &[]).page_id;
        ids.push(id);
    }
    (ids, page.expect("at least one source"))
}

fn status(store: &Store, id: SourceId) -> SourceStatus {
    store.source(id).expect("read").expect("exists").status
}

fn page_jobs(store: &Store, page: PageId) -> Vec<(JobState, Option<String>)> {
    store
        .jobs()
        .expect("jobs")
        .into_iter()
        .filter(|j| j.target == JobTarget::Page(page))
        .map(|j| (j.state, j.error))
        .collect()
}

/// A store on a clock the test moves: `stale_at` and a job's end are both kept to the
/// millisecond, so a change must come at least a millisecond after a failure to count as
/// new.
fn store_on_a_clock() -> (
    tempfile::TempDir,
    Store,
    std::sync::Arc<wikimind::store::ManualClock>,
) {
    let (dir, store) = store();
    let clock = wikimind::store::ManualClock::starting_now();
    let store = store.with_clock(clock.clone()).expect("clock");
    (dir, store, clock)
}

#[test]
fn a_page_job_waits_until_no_source_job_is_queued_or_running() {
    let (_dir, store) = store();
    let (sources, page) = sources_on(&store, "Espresso", &["a", "b"]);
    assert_eq!(store.pages_to_queue().expect("to queue"), [page]);
    let page_job = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue the page");
    // A source queued after the page still goes first.
    let c = add(&store, "/n/c.md", "c");
    let source_job = store.enqueue(c, &JobSettings::default()).expect("queue c");
    assert!(page_job.0 < source_job.0, "the page job is the older one");

    let first = store.start_next(&owner(1)).expect("start").expect("a job");
    assert_eq!((first.id, first.target), (source_job, JobTarget::Source(c)));
    assert_eq!(
        store.start_next(&owner(2)).expect("start"),
        None,
        "no page is written while a source compiles, even by another process"
    );
    save(&store, c, &result("Crema", "c"), &[]);
    store.finish_job(first.id, &JobEnd::Done).expect("finish");

    let second = store.start_next(&owner(2)).expect("start").expect("page");
    assert_eq!(second.id, page_job);
    assert_eq!(second.target, JobTarget::Page(page));
    assert_eq!(second.page_title.as_deref(), Some("Espresso"));
    assert_eq!(second.state, JobState::Running);
    // Writing a page touches none of its sources.
    for source in sources.iter().chain([&c]) {
        assert_eq!(status(&store, *source), SourceStatus::Compiled);
    }
    store.finish_job(page_job, &JobEnd::Done).expect("finish");
    for source in sources.iter().chain([&c]) {
        assert_eq!(status(&store, *source), SourceStatus::Compiled);
    }
}

#[test]
fn a_page_is_queued_once_however_many_of_its_sources_changed() {
    let (_dir, store) = store();
    let (sources, page) = sources_on(&store, "Espresso", &["a", "b", "c"]);
    // All three change again.
    for (i, source) in sources.iter().enumerate() {
        save(
            &store,
            *source,
            &result("Espresso", &format!("v2 {i}")),
            &[],
        );
    }
    assert_eq!(store.pages_to_queue().expect("to queue"), [page]);
    let job = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    assert!(store.pages_to_queue().expect("to queue").is_empty());
    let asked = JobSettings {
        model: Some("llama3.2".into()),
        ..JobSettings::default()
    };
    assert_eq!(store.enqueue_page(page, &asked).expect("again"), job);
    let running = store.start_next(&owner(1)).expect("start").expect("job");
    assert_eq!(running.settings, asked, "the newest ask is what runs");
    // A source that changes while the page is written makes it stale again, but a page
    // being written is not queued a second time, nor taken twice.
    save(&store, sources[0], &result("Espresso", "v3"), &[]);
    assert!(store.pages_to_queue().expect("to queue").is_empty());
    assert_eq!(
        store
            .enqueue_page(page, &JobSettings::default())
            .expect("q"),
        job,
        "its running job is returned"
    );
    assert_eq!(store.start_next(&owner(2)).expect("start"), None);
    assert_eq!(page_jobs(&store, page), [(JobState::Running, None)]);
}

#[test]
fn a_failed_page_job_is_not_queued_again_until_the_page_changes() {
    let (_dir, store, clock) = store_on_a_clock();
    let (sources, page) = sources_on(&store, "Espresso", &["a", "b"]);
    let job = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    store.start_next(&owner(1)).expect("start").expect("job");
    store
        .finish_job(job, &JobEnd::Failed("no valid answer".into()))
        .expect("finish");
    for source in &sources {
        assert_eq!(status(&store, *source), SourceStatus::Compiled);
    }
    let stale = store.page(page).expect("read").expect("page");
    assert!(stale.stale_reason.is_some(), "the page still waits");
    assert!(
        store.pages_to_queue().expect("to queue").is_empty(),
        "the model is not asked again for nothing new"
    );

    clock.advance(Duration::from_millis(1));
    let c = add(&store, "/n/c.md", "c");
    save(&store, c, &result("Espressos", "c"), &[]);
    assert_eq!(store.pages_to_queue().expect("to queue"), [page]);
    let again = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    assert_ne!(again, job);
    assert_eq!(
        page_jobs(&store, page),
        [
            (JobState::Queued, None),
            (JobState::Failed, Some("no valid answer".to_owned()))
        ]
    );
}

#[test]
fn a_cancelled_page_job_leaves_the_page_stale_until_it_changes() {
    let (_dir, store, clock) = store_on_a_clock();
    let (sources, page) = sources_on(&store, "Espresso", &["a", "b"]);
    // Cancelled while queued.
    let queued = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    assert!(store.cancel_job(queued).expect("cancel"));
    assert_eq!(store.start_next(&owner(1)).expect("start"), None);
    assert!(store.pages_to_queue().expect("to queue").is_empty());

    // Cancelled while running, by another process: the owner hears it at its heartbeat.
    clock.advance(Duration::from_millis(1));
    save(&store, sources[1], &result("Espresso", "b changed"), &[]);
    assert_eq!(store.pages_to_queue().expect("to queue"), [page]);
    let running = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    store.start_next(&owner(1)).expect("start").expect("job");
    assert!(store.cancel_job(running).expect("cancel"));
    assert_eq!(store.heartbeat(&owner(1)).expect("beat"), [running]);
    store
        .finish_job(running, &JobEnd::Cancelled)
        .expect("finish");
    assert_eq!(
        page_jobs(&store, page),
        [(JobState::Cancelled, None), (JobState::Cancelled, None)]
    );
    assert!(store.pages_to_queue().expect("to queue").is_empty());
    for source in &sources {
        assert_eq!(status(&store, *source), SourceStatus::Compiled);
    }
}

#[test]
fn a_page_job_whose_owner_died_goes_back_in_line() {
    let (_dir, store) = store();
    let (sources, page) = sources_on(&store, "Espresso", &["a", "b"]);
    let job = store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    store.start_next(&owner(1)).expect("start").expect("job");
    assert_eq!(
        store
            .recover_interrupted(Duration::from_secs(60), &|o| o.pid == 1)
            .expect("recover"),
        1
    );
    let recovered = store.job(job).expect("read").expect("job");
    assert_eq!((recovered.state, recovered.owner), (JobState::Queued, None));
    for source in &sources {
        assert_eq!(status(&store, *source), SourceStatus::Compiled);
    }
    // Stopped with its process, it resumes with the next run.
    let again = store.start_next(&owner(2)).expect("start").expect("job");
    assert_eq!((again.id, again.attempts), (job, 2));
    store.finish_job(job, &JobEnd::Interrupted).expect("finish");
    assert_eq!(page_jobs(&store, page), [(JobState::Queued, None)]);
}

#[test]
fn a_page_that_goes_takes_its_jobs_with_it() {
    let (_dir, store) = store();
    let (sources, page) = sources_on(&store, "Espresso", &["a", "b"]);
    store
        .enqueue_page(page, &JobSettings::default())
        .expect("queue");
    for source in sources {
        assert!(store.remove_source(source).expect("remove"));
    }
    assert!(store.page(page).expect("read").is_none(), "no source left");
    assert!(store.jobs().expect("jobs").is_empty());
    assert!(matches!(
        store.enqueue_page(page, &JobSettings::default()),
        Err(StoreError::PageNotFound(p)) if p == page
    ));
}

#[test]
fn a_current_page_is_not_queued() {
    let (_dir, store) = store();
    let (_, page) = sources_on(&store, "Tea", &["a"]);
    let current = store.page(page).expect("read").expect("page");
    assert_eq!(current.stale_reason, None, "one digest is the page");
    assert!(store.pages_to_queue().expect("to queue").is_empty());
}
