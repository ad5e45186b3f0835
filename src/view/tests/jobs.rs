//! Job progress as the window shows it for page jobs.

use super::*;
use crate::compile::{PageOutcome, PageReport, Progress, Stage};
use crate::queue::{JobEvent, JobPhase};
use crate::store::JobTarget;

#[test]
fn progress_of_a_page_job_names_its_page_and_never_a_source() {
    let progress = Progress {
        target: Some(JobTarget::Page(PageId(7))),
        stage: Stage::Receiving,
        provider: "ollama:m".into(),
        attempt: 1,
        chars: 120,
        chunks: 30,
        title: Some("what the answer calls it".into()),
        message: None,
        text: None,
    };
    let job = |target, phase| JobEvent {
        target,
        provider: "ollama:m".into(),
        page_title: match target {
            JobTarget::Page(_) => Some("Espresso".into()),
            JobTarget::Source(_) => None,
        },
        phase,
    };
    let view = JobProgress::from(&job(
        JobTarget::Page(PageId(7)),
        JobPhase::Working(progress),
    ));
    assert_eq!(view.kind, JobKindView::Page);
    assert_eq!((view.page_id, view.source_id), (Some(PageId(7)), None));
    assert_eq!(view.target(), Some(JobTarget::Page(PageId(7))));
    assert_eq!(view.received, 30);
    assert_eq!(view.stage, StageView::Receiving);
    assert_eq!(
        view.title.as_deref(),
        Some("Espresso"),
        "the page's title, not the answer's"
    );

    let source = JobProgress::from(&job(JobTarget::Source(SourceId(3)), JobPhase::Queued));
    assert_eq!(source.kind, JobKindView::Source);
    assert_eq!(
        (source.source_id, source.page_id),
        (Some(SourceId(3)), None)
    );
    assert_eq!(source.stage, StageView::Queued);
    let cancelled = JobProgress::from(&job(JobTarget::Source(SourceId(3)), JobPhase::Cancelled));
    assert_eq!(cancelled.stage, StageView::Cancelled);
    assert_eq!(
        cancelled.message.as_deref(),
        Some("cancelled; the source is pending again")
    );
    let owner = crate::store::JobOwner {
        pid: 42,
        host: "desk".into(),
    };
    let elsewhere = JobProgress::from(&job(
        JobTarget::Page(PageId(7)),
        JobPhase::Running(Some(owner)),
    ));
    assert_eq!(
        elsewhere.message.as_deref(),
        Some("writing in another process (pid 42 on desk)")
    );
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["kind"], "page");
    assert_eq!(json["source_id"], serde_json::Value::Null);
}

#[test]
fn a_page_job_says_what_it_did_to_the_page() {
    let report = |outcome| PageReport {
        outcome,
        sources: 3,
        changed: 1,
        usage: crate::compile::Usage::call(None, None),
        ..PageReport::nothing_yet(PageId(2), "Espresso".into())
    };
    let finished = |outcome| {
        JobProgress::from(&JobEvent {
            target: JobTarget::Page(PageId(2)),
            provider: String::new(),
            page_title: Some("Espresso".into()),
            phase: JobPhase::Written(Box::new(report(outcome))),
        })
    };
    let written = finished(PageOutcome::Written { version: 2 });
    assert_eq!(written.stage, StageView::Compiled);
    assert_eq!(written.title.as_deref(), Some("Espresso"));
    assert_eq!(
        written.message.as_deref(),
        Some("written from 3 sources (version 2)")
    );
    assert_eq!(written.calls, Some(1));
    let same = finished(PageOutcome::NoNewInformation);
    assert_eq!(
        same.message.as_deref(),
        Some("no new information (gained 1 source)")
    );
    let flagged = finished(PageOutcome::Flagged {
        reason: "the rewrite lost every claim of source 4".into(),
    });
    assert_eq!(flagged.stage, StageView::Failed);
    assert_eq!(
        flagged.message.as_deref(),
        Some("flagged: the rewrite lost every claim of source 4")
    );
}
