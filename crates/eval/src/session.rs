//! One eval from start to finish, as a shell runs it: the options checked, the servers
//! asked before anything runs ([`prepare`]), then the runs, the report and its files, and
//! whether the eval as a whole succeeded ([`evaluate`]; [`evaluate_questions`] for a
//! question dataset, asked of the wiki [`question_wiki`] opens).

use std::path::Path;

use wikimind::ask::sources::PASSAGE_BYTES;
use wikimind::compile::AnswerClass;
use wikimind::config::{Settings, Target};
use wikimind::llm::{CancellationToken, KeyStore, LlmError};
use wikimind::wiki::Wiki;

use super::questions::{run_questions, QuestionResult};
use super::report::{build_question_report, ModelReport, QuestionModelReport, WikiInfo};
use super::run::{plan_runs, providers_for, run_eval, EvalOptions, EvalProgress, EvalRun};
use super::{build_report, default_out_dir, write_outputs, write_question_outputs};
use super::{Dataset, EvalError, OutputFiles, PlannedRun, Report};

impl EvalOptions {
    /// The first option a person got wrong, naming its flag: an unknown provider (for the
    /// models or the judge), a blank judge model, or a repeat or concurrency of zero.
    pub fn problem(&self) -> Option<String> {
        for (flag, name) in [
            ("--provider", &self.provider),
            ("--judge-provider", &self.judge_provider),
        ] {
            if let Some(p) = name {
                if Target::parse(p).is_none() {
                    return Some(format!(
                        "{flag} {p:?}: unknown provider (expected {})",
                        Target::EXPECTED
                    ));
                }
            }
        }
        if self
            .judge_model
            .as_deref()
            .is_some_and(|m| m.trim().is_empty())
        {
            return Some("--judge-model is empty".into());
        }
        if self.repeat == Some(0) {
            return Some("--repeat must be at least 1".into());
        }
        if self.concurrency == Some(0) {
            return Some("--concurrency must be at least 1".into());
        }
        None
    }
}

/// An eval about to run, checked before anything runs.
#[derive(Debug)]
pub struct EvalPlan {
    /// Every run, in the order they are made.
    pub runs: Vec<PlannedRun>,
    /// Set when a server the runs need does not answer (a transport error): the eval must
    /// not start. Said once, instead of once per run.
    pub server_down: Option<LlmError>,
}

impl EvalPlan {
    /// The models evaluated (`ollama:qwen2.5:3b`), each once, in plan order.
    pub fn models(&self) -> Vec<String> {
        let mut labels: Vec<String> = Vec::new();
        for r in &self.runs {
            let l = r.execution.label();
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        labels
    }

    /// The judges of the `llm_judge` evaluator (`ollama:qwen2.5:7b`), each once, in plan
    /// order; empty when no case is judged by a model.
    pub fn judges(&self) -> Vec<String> {
        let mut labels: Vec<String> = Vec::new();
        for j in self.runs.iter().filter_map(|r| r.judge.as_ref()) {
            let l = j.label();
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        labels
    }
}

/// Plans the runs of `dataset` and asks each server they need (once per protocol and
/// base URL) for its models.
pub async fn prepare(
    dataset: &Dataset,
    settings: &Settings,
    keys: &dyn KeyStore,
    options: &EvalOptions,
) -> Result<EvalPlan, EvalError> {
    let runs = plan_runs(dataset, settings, options)?;
    let mut server_down = None;
    // One provider per protocol and server: each is asked once.
    for provider in providers_for(&runs, settings, keys)?.values() {
        if let Err(e) = provider.list_models().await {
            if e.is_transport() {
                server_down = Some(e);
                break;
            }
        }
    }
    Ok(EvalPlan { runs, server_down })
}

/// How an eval ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalVerdict {
    /// Every run finished and at least one model answered.
    Complete,
    /// Stopped before every run finished: the report covers the runs that did.
    Interrupted,
    /// Not one model answered (every run failed at the provider): the report says nothing
    /// about the models, and the reasons are in `results.jsonl`.
    NoModelAnswered,
}

impl EvalVerdict {
    /// The verdict on a finished eval.
    pub fn of(run: &EvalRun) -> EvalVerdict {
        let none_answered = !run.results.is_empty()
            && run
                .results
                .iter()
                .all(|r| r.first_answer == AnswerClass::ProviderError && !r.ok);
        EvalVerdict::judge(run.cancelled, none_answered)
    }

    /// The verdict on a finished question eval: no model answered when every answer a model
    /// was asked for (from the wiki or the sources) failed at the provider.
    pub fn of_questions(run: &EvalRun<QuestionResult>) -> EvalVerdict {
        let asked: Vec<_> = run
            .results
            .iter()
            .flat_map(|r| [&r.wiki, &r.raw])
            .filter(|a| a.asked())
            .collect();
        let none_answered = !asked.is_empty()
            && asked
                .iter()
                .all(|a| a.first_answer == Some(AnswerClass::ProviderError) && !a.answered);
        EvalVerdict::judge(run.cancelled, none_answered)
    }

    fn judge(cancelled: bool, none_answered: bool) -> EvalVerdict {
        if cancelled {
            EvalVerdict::Interrupted
        } else if none_answered {
            EvalVerdict::NoModelAnswered
        } else {
            EvalVerdict::Complete
        }
    }
}

/// What an eval produced.
#[derive(Debug)]
pub struct EvalOutcome<M = ModelReport> {
    /// The report, per model.
    pub report: Report<M>,
    /// Where it was written.
    pub files: OutputFiles,
    /// How the eval ended.
    pub verdict: EvalVerdict,
}

/// Runs the eval ([`run_eval`]), builds its report and writes it to `out` (default:
/// [`default_out_dir`]), also when interrupted.
pub async fn evaluate(
    dataset: &Dataset,
    settings: &Settings,
    keys: &dyn KeyStore,
    options: &EvalOptions,
    out: Option<&Path>,
    progress: &(dyn Fn(EvalProgress) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<EvalOutcome, EvalError> {
    let run = run_eval(dataset, settings, keys, options, progress, cancel).await?;
    let report = build_report(dataset, &run);
    let out = out.map_or_else(|| default_out_dir(dataset), Path::to_path_buf);
    let files = write_outputs(&out, &report, &run.results)?;
    Ok(EvalOutcome {
        report,
        files,
        verdict: EvalVerdict::of(&run),
    })
}

/// Opens the wiki in `data_dir` for a question dataset: it must exist (nothing is created)
/// and hold sources, or the eval is refused with what to do first.
pub fn question_wiki(data_dir: &Path) -> Result<Wiki, EvalError> {
    let compile_first = "a question dataset is asked of a compiled wiki: run `wikimind ingest` \
                         and `wikimind compile` with this data dir first";
    if !data_dir.join(wikimind::DATABASE_FILE).is_file() {
        return Err(EvalError::Invalid(format!(
            "no wiki in {}: {compile_first}",
            data_dir.display()
        )));
    }
    let wiki = Wiki::open(data_dir)?;
    let counts = wiki.page_counts()?;
    if counts.sources == 0 {
        return Err(EvalError::Invalid(format!(
            "the wiki in {} has no sources: {compile_first}",
            data_dir.display()
        )));
    }
    Ok(wiki)
}

/// Asks the questions of `dataset` of `wiki` and of its raw sources ([`run_questions`]),
/// builds the report and writes it to `out` (default: [`default_out_dir`]), also when
/// interrupted.
#[allow(clippy::too_many_arguments)]
pub async fn evaluate_questions(
    dataset: &Dataset,
    wiki: &Wiki,
    settings: &Settings,
    keys: &dyn KeyStore,
    options: &EvalOptions,
    out: Option<&Path>,
    progress: &(dyn Fn(EvalProgress) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<EvalOutcome<QuestionModelReport>, EvalError> {
    let index = wiki.source_index()?;
    let run = run_questions(
        dataset, wiki, &index, settings, keys, options, progress, cancel,
    )
    .await?;
    let counts = wiki.page_counts()?;
    let info = WikiInfo {
        data_dir: wiki.data_dir().map(|d| d.display().to_string()),
        sources: counts.sources,
        pages: counts.pages,
        passages: index.passages(),
        passage_bytes: PASSAGE_BYTES,
    };
    let report = build_question_report(dataset, &run, info);
    let out = out.map_or_else(|| default_out_dir(dataset), Path::to_path_buf);
    let files = write_question_outputs(&out, &report, &run.results)?;
    Ok(EvalOutcome {
        report,
        files,
        verdict: EvalVerdict::of_questions(&run),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wikimind::llm::NoKeyStore;
    use wikimind::test_settings::{closed_port, settings_at as settings};
    use wikimind_testserver::TestServer;

    fn dataset(dir: &Path) -> Dataset {
        let p = dir.join("tea.jsonl");
        std::fs::write(
            &p,
            "{\"id\":\"tea\",\"source\":\"# Tea\\n\\nGreen tea is steamed or pan-fired.\"}\n",
        )
        .expect("write");
        super::super::load_dataset(&p).expect("dataset")
    }

    async fn evaluate_with(base_url: &str, cancel: &CancellationToken) -> EvalOutcome {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("out");
        let outcome = evaluate(
            &dataset(dir.path()),
            &settings(base_url),
            &NoKeyStore,
            &EvalOptions::default(),
            Some(&out),
            &|_| {},
            cancel,
        )
        .await
        .expect("eval");
        assert!(outcome.files.report_json.is_file(), "the report is written");
        outcome
    }

    #[test]
    fn options_a_person_got_wrong_are_named_by_their_flag() {
        let bad = |o: EvalOptions| o.problem().expect("a problem");
        let provider = bad(EvalOptions {
            provider: Some("claude".into()),
            ..EvalOptions::default()
        });
        assert_eq!(
            provider,
            "--provider \"claude\": unknown provider (expected default, ollama, openai or builtin)"
        );
        let judge = bad(EvalOptions {
            judge_provider: Some("claude".into()),
            ..EvalOptions::default()
        });
        assert!(
            judge.starts_with("--judge-provider \"claude\": unknown provider"),
            "{judge}"
        );
        let repeat = bad(EvalOptions {
            repeat: Some(0),
            ..EvalOptions::default()
        });
        assert_eq!(repeat, "--repeat must be at least 1");
        let concurrency = bad(EvalOptions {
            concurrency: Some(0),
            ..EvalOptions::default()
        });
        assert_eq!(concurrency, "--concurrency must be at least 1");
        let fine = EvalOptions {
            provider: Some("openai".into()),
            repeat: Some(2),
            concurrency: Some(1),
            ..EvalOptions::default()
        };
        assert_eq!(fine.problem(), None);
    }

    #[tokio::test]
    async fn a_server_that_is_down_is_said_before_anything_runs() {
        let dir = tempfile::tempdir().expect("dir");
        let options = EvalOptions {
            models: vec!["a".into(), "b".into()],
            ..EvalOptions::default()
        };
        let plan = prepare(
            &dataset(dir.path()),
            &settings(&closed_port()),
            &NoKeyStore,
            &options,
        )
        .await
        .expect("plan");
        let down = plan.server_down.as_ref().expect("down");
        assert!(down.is_transport(), "{down}");
        assert_eq!(plan.models(), ["ollama:a", "ollama:b"]);
        assert_eq!(plan.runs.len(), 2);
    }

    #[tokio::test]
    async fn a_server_that_answers_lets_the_eval_start() {
        let server = TestServer::start();
        let dir = tempfile::tempdir().expect("dir");
        let plan = prepare(
            &dataset(dir.path()),
            &settings(&server.url()),
            &NoKeyStore,
            &EvalOptions::default(),
        )
        .await
        .expect("plan");
        assert!(plan.server_down.is_none());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_eval_where_a_model_answered_is_complete() {
        let server = TestServer::start();
        let outcome = evaluate_with(&server.url(), &CancellationToken::new()).await;
        assert_eq!(outcome.verdict, EvalVerdict::Complete);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_eval_where_no_model_answered_fails_with_its_report_written() {
        let outcome = evaluate_with(&closed_port(), &CancellationToken::new()).await;
        assert_eq!(outcome.verdict, EvalVerdict::NoModelAnswered);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_eval_stopped_before_it_starts_is_interrupted() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let outcome = evaluate_with(&closed_port(), &cancel).await;
        assert_eq!(outcome.verdict, EvalVerdict::Interrupted);
    }

    /// A wiki in memory holding one source, never compiled, and a question about it.
    fn uncompiled(dir: &Path) -> (Wiki, Dataset) {
        let wiki = Wiki::open_in_memory().expect("wiki");
        wiki.ingest_text("# Tea\n\nGreen tea is steamed or pan-fired.", None)
            .expect("ingest");
        std::fs::write(dir.join("q.yaml"), "kind: questions\n").expect("write");
        let p = dir.join("q.jsonl");
        std::fs::write(
            &p,
            "{\"id\":\"tea\",\"question\":\"How is green tea made?\",\"expect\":[\"steamed\"]}\n",
        )
        .expect("write");
        (wiki, super::super::load_dataset(&p).expect("dataset"))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn questions_no_model_answered_fail_and_a_wiki_without_pages_is_said() {
        let dir = tempfile::tempdir().expect("dir");
        let (wiki, dataset) = uncompiled(dir.path());
        let outcome = evaluate_questions(
            &dataset,
            &wiki,
            &settings(&closed_port()),
            &NoKeyStore,
            &EvalOptions::default(),
            Some(&dir.path().join("out")),
            &|_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("eval");
        // The wiki has no page, so only the raw sources were asked, of a server that is down.
        assert_eq!(outcome.verdict, EvalVerdict::NoModelAnswered);
        let m = &outcome.report.models[0];
        assert_eq!((m.wiki.covered, m.raw.covered), (0, 1));
        assert_eq!((m.raw.valid_answers, m.raw.failed), (0, 1));
        assert_eq!(m.raw.first_answers.get("provider_error"), Some(&1));
        assert!(outcome
            .report
            .warnings
            .iter()
            .any(|w| w.starts_with("the wiki has no topic pages")));
        assert!(outcome.files.report_html.is_file());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_question_answered_from_the_sources_alone_is_complete() {
        let server = TestServer::start();
        let dir = tempfile::tempdir().expect("dir");
        let (wiki, dataset) = uncompiled(dir.path());
        let outcome = evaluate_questions(
            &dataset,
            &wiki,
            &settings(&server.url()),
            &NoKeyStore,
            &EvalOptions::default(),
            Some(&dir.path().join("out")),
            &|_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("eval");
        assert_eq!(outcome.verdict, EvalVerdict::Complete);
        let raw = &outcome.report.models[0].raw;
        assert_eq!((raw.valid_answers, raw.facts_found), (1, 1));
        assert_eq!(outcome.report.models[0].wiki.facts_found_rate, Some(0.0));
    }
}
