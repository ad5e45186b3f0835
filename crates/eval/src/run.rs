//! Running a dataset: every case, for every model, as many times as asked, through the same
//! [`Compiler`] a real compile uses, each run in its own throwaway in-memory wiki (so runs
//! never see each other's articles and never touch the person's wiki); then the case's
//! checks and its evaluator (the `llm_judge` calls [`super::judge`] decides).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures_util::stream::{self, StreamExt};
use serde::Serialize;

use wikimind::compile::prompt::feedback_message;
use wikimind::compile::templates::{PromptSet, JUDGE};
use wikimind::compile::{
    AnswerClass, AttemptRecord, CompileError, CompileReport, Compiler, ProviderSlot,
};
use wikimind::config::{default_model, default_url, CompileSettings, Settings, Target};
use wikimind::contract::Confidence;
use wikimind::llm::{
    self, CancellationToken, ChatRequest, FinishReason, KeyStore, Message, Provider, ProviderKind,
    Role,
};
use wikimind::store::ArticleDetail;
use wikimind::wiki::Wiki;

use super::checks::{run_checks, ArticleFacts, CheckResult};
use super::dataset::{Case, Dataset, DatasetError, DatasetKind, Evaluator, Execution};
use super::freeform::freeform_prompt;
use super::judge::{judge_prompt, JudgeState, JudgeStep, RubricScore};
use super::EvalError;

/// What the person asked for on the command line (or in the app) for this eval.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    /// `--provider`: wins over the dataset.
    pub provider: Option<String>,
    /// `--base-url`: wins over the dataset.
    pub base_url: Option<String>,
    /// `--model`, repeatable: every case runs once per model. Empty: the model of each case
    /// (case, then sidecar, then settings).
    pub models: Vec<String>,
    /// `--repeat`: runs per case and model (default: the sidecar's `repeat`, else 1).
    pub repeat: Option<u32>,
    /// `--concurrency`: compiles at once (default: the settings' compile concurrency).
    pub concurrency: Option<usize>,
    /// `--compare-freeform`: also ask each model for a free-form markdown article of each
    /// source, to compare output tokens.
    pub compare_freeform: bool,
    /// `--judge-provider`: the `llm_judge` evaluator's provider (wins over the settings'
    /// `[eval] judge_provider`).
    pub judge_provider: Option<String>,
    /// `--judge-base-url`: the judge's server (wins over `[eval] judge_base_url`).
    pub judge_base_url: Option<String>,
    /// `--judge-model`: the judge's model (wins over `[eval] judge_model`).
    pub judge_model: Option<String>,
    /// `--allow-dataset-servers`: let the dataset's `execution.base_url` name a server
    /// other than the configured ones (see [`check_dataset_servers`]).
    pub allow_dataset_servers: bool,
}

/// How one run is executed, every setting resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedExecution {
    /// The wire protocol.
    #[serde(serialize_with = "kind_name")]
    pub provider: ProviderKind,
    /// The server.
    pub base_url: String,
    /// The model.
    pub model: String,
    /// The prompt id.
    pub prompt: String,
    /// Sampling temperature.
    pub temperature: f32,
    /// The answer budget in tokens.
    pub max_tokens: u32,
    /// Retries after an invalid answer.
    pub retries: u32,
}

fn kind_name<S: serde::Serializer>(kind: &ProviderKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

impl ResolvedExecution {
    /// `ollama:qwen2.5:3b`: how reports name the model.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider.as_str(), self.model)
    }
}

/// Resolves one run's execution: `flags` over `case` over `sidecar` over the person's
/// settings (config file, environment) and the built-in defaults.
pub fn resolve_execution(
    flags: &Execution,
    case: &Execution,
    sidecar: &Execution,
    settings: &Settings,
) -> Result<ResolvedExecution, EvalError> {
    let merged = flags.over(&case.over(sidecar));
    let primary = settings.provider();
    let provider = match merged.target {
        Some(Target::Kind(kind)) => kind,
        Some(Target::Default) | None => primary.kind,
    };
    let same_kind = provider == primary.kind;
    let base_url = merged.base_url.unwrap_or_else(|| {
        if same_kind {
            primary.base_url.clone()
        } else {
            default_url(provider).to_string()
        }
    });
    let model = merged.model.unwrap_or_else(|| {
        if same_kind {
            primary.model.clone()
        } else {
            default_model(provider).to_string()
        }
    });
    Ok(ResolvedExecution {
        provider,
        base_url,
        model,
        prompt: merged
            .prompt
            .unwrap_or_else(|| wikimind::compile::PROMPT_VERSION.to_string()),
        temperature: merged.temperature.unwrap_or(settings.compile.temperature),
        max_tokens: merged.max_tokens.unwrap_or(settings.compile.max_tokens),
        retries: merged.retries.unwrap_or(settings.compile.retries),
    })
}

/// Reads a provider flag by [`Target::parse`], naming the flag when it is wrong.
fn target_flag(name: Option<&str>, flag: &str) -> Result<Option<Target>, EvalError> {
    name.map(|n| {
        Target::parse(n).ok_or_else(|| {
            EvalError::Invalid(format!(
                "{flag} {n:?}: unknown provider (expected {})",
                Target::EXPECTED
            ))
        })
    })
    .transpose()
}

/// Resolves the `llm_judge` evaluator of one run: the judge flags over the settings'
/// `[eval]` table, over the run's own compile (its provider, server and model). A judge
/// provider of another kind than the run's gets that kind's default server and model, and
/// `default` the configured primary's, as `--provider` does; the table's server and model
/// apply only while its provider is the judge's (a flag naming another kind does not take
/// them along). The judge asks at temperature 0 with the run's answer budget and retries,
/// and records the `judge` template's version as its prompt.
pub fn resolve_judge(
    options: &EvalOptions,
    settings: &Settings,
    run: &ResolvedExecution,
) -> Result<ResolvedExecution, EvalError> {
    let primary = settings.provider();
    let kind_of = |target: Option<Target>| match target {
        None => run.provider,
        Some(Target::Default) => primary.kind,
        Some(Target::Kind(kind)) => kind,
    };
    let table = &settings.eval;
    let target = target_flag(options.judge_provider.as_deref(), "--judge-provider")?
        .or(table.judge_provider);
    let table_applies = kind_of(table.judge_provider) == kind_of(target);
    let base_url = options
        .judge_base_url
        .clone()
        .or_else(|| table.judge_base_url.clone().filter(|_| table_applies));
    let model = options
        .judge_model
        .clone()
        .or_else(|| table.judge_model.clone().filter(|_| table_applies));
    let (provider, lower_url, lower_model) = match target {
        None => (run.provider, run.base_url.clone(), run.model.clone()),
        Some(Target::Kind(kind)) if kind == run.provider => {
            (kind, run.base_url.clone(), run.model.clone())
        }
        Some(Target::Kind(kind)) => (
            kind,
            default_url(kind).to_string(),
            default_model(kind).to_string(),
        ),
        Some(Target::Default) => (
            primary.kind,
            primary.base_url.clone(),
            primary.model.clone(),
        ),
    };
    Ok(ResolvedExecution {
        provider,
        base_url: base_url.unwrap_or(lower_url),
        model: model.unwrap_or(lower_model),
        prompt: PromptSet::builtin().get(JUDGE).version.clone(),
        temperature: 0.0,
        max_tokens: run.max_tokens,
        retries: run.retries,
    })
}

/// One run to make: a case, a repetition, and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedRun {
    /// Index of the case in the dataset (in `questions` for a question dataset).
    pub case_index: usize,
    /// The repetition, from 1.
    pub repeat: u32,
    /// How it runs.
    pub execution: ResolvedExecution,
    /// How its article is judged.
    pub evaluator: Evaluator,
    /// The judge, for the `llm_judge` evaluator.
    pub judge: Option<ResolvedExecution>,
}

/// Every run of an eval, model by model (a local server then loads each model once), case
/// by case, repetition by repetition.
pub fn plan_runs(
    dataset: &Dataset,
    settings: &Settings,
    options: &EvalOptions,
) -> Result<Vec<PlannedRun>, EvalError> {
    let repeat = options.repeat.unwrap_or(dataset.repeat);
    if repeat == 0 {
        return Err(EvalError::Invalid("--repeat must be at least 1".into()));
    }
    let models: Vec<Option<String>> = if options.models.is_empty() {
        vec![None]
    } else {
        options.models.iter().cloned().map(Some).collect()
    };
    check_dataset_servers(dataset, settings, options)?;
    let target = target_flag(options.provider.as_deref(), "--provider")?;
    // Each case's own execution and evaluator; a question is asked with the `ask` template
    // and checked against its facts.
    let cases: Vec<(&Execution, Evaluator)> = match dataset.kind {
        DatasetKind::Articles => dataset
            .cases
            .iter()
            .map(|c| (&c.execution, dataset.evaluator_for(c)))
            .collect(),
        DatasetKind::Questions => dataset
            .questions
            .iter()
            .map(|q| (&q.execution, Evaluator::Checks))
            .collect(),
    };
    let sidecar = match dataset.kind {
        DatasetKind::Questions if dataset.execution.prompt.is_none() => Execution {
            prompt: Some(super::dataset::ask_version()),
            ..dataset.execution.clone()
        },
        _ => dataset.execution.clone(),
    };
    let mut runs = Vec::new();
    for model in &models {
        let flags = Execution {
            target,
            base_url: options.base_url.clone(),
            model: model.clone(),
            ..Execution::default()
        };
        for (case_index, (case_execution, evaluator)) in cases.iter().enumerate() {
            let execution = resolve_execution(&flags, case_execution, &sidecar, settings)?;
            let evaluator = *evaluator;
            let judge = match evaluator {
                Evaluator::LlmJudge => Some(resolve_judge(options, settings, &execution)?),
                Evaluator::Checks => None,
            };
            for r in 1..=repeat {
                runs.push(PlannedRun {
                    case_index,
                    repeat: r,
                    execution: execution.clone(),
                    evaluator,
                    judge: judge.clone(),
                });
            }
        }
    }
    Ok(runs)
}

/// Refuses a dataset whose `execution.base_url` (in its sidecar or a case) names a server
/// other than the configured ones, unless the person allowed it
/// ([`EvalOptions::allow_dataset_servers`]): a shared dataset must not send its sources to
/// a server its author picks. The configured servers are the settings' providers, the
/// `[eval]` judge's, the `--base-url` and `--judge-base-url` flags, and each provider
/// kind's built-in default; `--base-url` overrides every dataset server, so with it there
/// is nothing to check. Servers compare by scheme, host, port and path (case and a
/// trailing `/` aside).
pub fn check_dataset_servers(
    dataset: &Dataset,
    settings: &Settings,
    options: &EvalOptions,
) -> Result<(), EvalError> {
    if options.allow_dataset_servers || options.base_url.is_some() {
        return Ok(());
    }
    let kinds = [
        ProviderKind::Ollama,
        ProviderKind::OpenAiCompatible,
        ProviderKind::Builtin,
    ];
    let configured: Vec<String> = settings
        .providers
        .iter()
        .map(|p| p.base_url.as_str())
        .chain(settings.eval.judge_base_url.as_deref())
        .chain(options.judge_base_url.as_deref())
        .chain(kinds.iter().map(|&k| default_url(k)))
        .filter(|u| !u.trim().is_empty())
        .map(server_key)
        .collect();
    let foreign = |execution: &Execution| {
        execution
            .base_url
            .as_deref()
            .filter(|u| !configured.contains(&server_key(u)))
            .map(|u| {
                let yours: Vec<&str> = settings
                    .providers
                    .iter()
                    .map(|p| p.base_url.as_str())
                    .filter(|u| !u.is_empty())
                    .collect();
                format!(
                    "execution.base_url {u:?} is not a server you configured (yours: {}): a \
                     dataset may not send its sources elsewhere — pass --allow-dataset-servers \
                     if you trust it",
                    if yours.is_empty() {
                        "none".to_string()
                    } else {
                        yours.join(", ")
                    }
                )
            })
    };
    if let Some(message) = foreign(&dataset.execution) {
        let file = dataset.sidecar_path.as_ref().unwrap_or(&dataset.path);
        return Err(DatasetError::file(file, message).into());
    }
    let cases = dataset
        .cases
        .iter()
        .map(|c| (&c.id, &c.location, &c.execution))
        .chain(
            dataset
                .questions
                .iter()
                .map(|q| (&q.id, &q.location, &q.execution)),
        );
    for (id, location, execution) in cases {
        if let Some(message) = foreign(execution) {
            return Err(DatasetError::at(
                &dataset.path,
                location,
                format!("case {id:?}: {message}"),
            )
            .into());
        }
    }
    Ok(())
}

/// A server's URL as servers compare: scheme, host and port (the scheme's default when
/// none is written), path without a trailing `/`, all lowercase; an unparsable URL as
/// written, trimmed.
fn server_key(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(u) => format!(
            "{}://{}:{}{}",
            u.scheme(),
            u.host_str().unwrap_or_default(),
            u.port_or_known_default().unwrap_or_default(),
            u.path().trim_end_matches('/')
        )
        .to_lowercase(),
        Err(_) => url.trim().trim_end_matches('/').to_lowercase(),
    }
}

/// The free-form answer to the same source, for the token comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FreeformResult {
    /// Prompt tokens, when reported.
    pub tokens_in: Option<u64>,
    /// Answer tokens, when reported.
    pub tokens_out: Option<u64>,
    /// Characters of the answer.
    pub chars: usize,
    /// Time of the call.
    pub latency_ms: u64,
    /// Why the call failed.
    pub error: Option<String>,
}

/// What the `llm_judge` evaluator made of one run's article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeResult {
    /// The judge: provider and model (`ollama:qwen2.5:7b`).
    pub model: String,
    /// The judge template's version (`judge-v1`).
    pub prompt: String,
    /// Whether the article was scored.
    pub ok: bool,
    /// Whether the article says only what the source supports (`null` when not scored).
    pub faithfulness: Option<RubricScore>,
    /// Whether the article keeps the source's important points (`null` when not scored).
    pub coverage: Option<RubricScore>,
    /// Why the article was not scored: no article, no answer, or answers that could not
    /// be used.
    pub error: Option<String>,
    /// Judge calls made.
    pub calls: u32,
    /// Every answer refused, one line each (`attempt 1: /faithfulness/score: 7 is out of
    /// range …`).
    pub rejected: Vec<String>,
    /// Whether the source was cut to fit the judge prompt.
    pub source_cut: bool,
    /// Prompt tokens over the judge's calls (as reported).
    pub tokens_in: u64,
    /// Answer tokens over the judge's calls (as reported).
    pub tokens_out: u64,
    /// Wall time of the judging.
    pub latency_ms: u64,
}

impl JudgeResult {
    fn unscored(judge: &ResolvedExecution, error: impl Into<String>) -> JudgeResult {
        JudgeResult {
            model: judge.label(),
            prompt: judge.prompt.clone(),
            ok: false,
            faithfulness: None,
            coverage: None,
            error: Some(error.into()),
            calls: 0,
            rejected: Vec::new(),
            source_cut: false,
            tokens_in: 0,
            tokens_out: 0,
            latency_ms: 0,
        }
    }
}

/// What the evaluators of a run made of its article, by evaluator name (the `expected`
/// checks are beside it, in `checks`). Empty for the `checks` evaluator.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Evaluations {
    /// The `llm_judge` evaluator's scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_judge: Option<JudgeResult>,
}

/// One run of one case: one line of `results.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    /// The case's id.
    pub case_id: String,
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub model: String,
    /// The server.
    pub base_url: String,
    /// The prompt id.
    pub prompt: String,
    /// The repetition, from 1.
    pub repeat: u32,
    /// Whether an article was written.
    pub ok: bool,
    /// The article's title.
    pub title: Option<String>,
    /// Why the compile failed.
    pub reason: Option<String>,
    /// How the first answer fared.
    pub first_answer: AnswerClass,
    /// How the answer that was kept fared (`None` when nothing was kept).
    pub kept: Option<AnswerClass>,
    /// Model calls made.
    pub calls: u32,
    /// Prompt tokens over all calls (as reported).
    pub tokens_in: u64,
    /// Answer tokens over all calls (as reported).
    pub tokens_out: u64,
    /// Whether every call reported its token usage.
    pub tokens_reported: bool,
    /// Wall time of the compile.
    pub latency_ms: u64,
    /// Key claims of the article.
    pub claims: u32,
    /// Claims the model labelled `sourced`.
    pub sourced_claims: u32,
    /// Of those, claims whose quote was found in the source.
    pub grounded_claims: u32,
    /// Claims labelled `opinion`.
    pub opinion_claims: u32,
    /// Whether the article was written from a cut-off answer.
    pub truncated: bool,
    /// Repairs and coercions applied to the kept answer.
    pub repairs: Vec<String>,
    /// The case's checks.
    pub checks: Vec<CheckResult>,
    /// How the article was judged.
    pub evaluator: Evaluator,
    /// What the evaluator made of it.
    pub evaluators: Evaluations,
    /// Every model call, in order.
    pub attempts: Vec<AttemptRecord>,
    /// The free-form comparison, with `--compare-freeform`.
    pub freeform: Option<FreeformResult>,
}

/// Progress of an eval, after each run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalProgress {
    /// Runs finished.
    pub done: usize,
    /// Runs in all.
    pub total: usize,
    /// The run that just finished.
    pub case_id: String,
    /// Its model.
    pub model: String,
    /// Whether it wrote an article.
    pub ok: bool,
}

/// Everything an eval produced, in plan order: [`CaseResult`]s for an article dataset,
/// [`QuestionResult`](super::questions::QuestionResult)s for a question dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalRun<R = CaseResult> {
    /// One result per run.
    pub results: Vec<R>,
    /// When the eval started (UTC, ISO-8601).
    pub started_at: String,
    /// Wall time of the whole eval.
    pub elapsed_ms: u64,
    /// Whether the eval was cancelled before every run finished.
    pub cancelled: bool,
}

/// Providers by protocol and base URL.
pub type ProviderMap = HashMap<(ProviderKind, String), Arc<dyn Provider>>;

/// The providers an eval needs (its models' and its judges'), one per distinct protocol and
/// server, each with the API key
/// the settings give that server ([`Settings::key_for_server`], through `keys`).
pub fn providers_for(
    runs: &[PlannedRun],
    settings: &Settings,
    keys: &dyn KeyStore,
) -> Result<ProviderMap, EvalError> {
    let c = &settings.compile;
    let mut out: ProviderMap = HashMap::new();
    let servers = runs
        .iter()
        .flat_map(|run| std::iter::once(&run.execution).chain(run.judge.as_ref()));
    for exec in servers {
        let key = (exec.provider, exec.base_url.clone());
        if out.contains_key(&key) {
            continue;
        }
        let api_key = settings.key_for_server(key.0, &key.1, keys);
        let provider = llm::new_provider(key.0, &key.1, c.provider_settings(api_key))?;
        out.insert(key, Arc::from(provider));
    }
    Ok(out)
}

/// Runs every planned run, `concurrency` at once, reporting progress after each, with API
/// keys from `keys` as [`providers_for`] gives them. On cancellation the runs already
/// finished are returned with `cancelled: true`.
pub async fn run_eval(
    dataset: &Dataset,
    settings: &Settings,
    keys: &dyn KeyStore,
    options: &EvalOptions,
    progress: &(dyn Fn(EvalProgress) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<EvalRun, EvalError> {
    if dataset.kind != DatasetKind::Articles {
        return Err(EvalError::Invalid(format!(
            "{} is a dataset of {}: it is asked of a wiki (see `evaluate_questions`)",
            dataset.name,
            dataset.kind.as_str()
        )));
    }
    let started = Started::now();
    let runs = plan_runs(dataset, settings, options)?;
    let providers = providers_for(&runs, settings, keys)?;
    let concurrency = options
        .concurrency
        .unwrap_or(settings.compile.concurrency)
        .max(1);
    let results = in_plan_order(
        &runs,
        concurrency,
        cancel,
        |run: &PlannedRun| {
            let provider_of =
                |e: &ResolvedExecution| providers.get(&(e.provider, e.base_url.clone())).cloned();
            let provider = provider_of(&run.execution);
            let judge = run.judge.as_ref().and_then(provider_of);
            let case = &dataset.cases[run.case_index];
            async move {
                run_case(
                    case,
                    dataset,
                    run,
                    Providers {
                        compile: provider?,
                        judge,
                    },
                    &settings.compile,
                    options.compare_freeform,
                    cancel,
                )
                .await
            }
        },
        |r: &CaseResult, done, total| {
            progress(EvalProgress {
                done,
                total,
                case_id: r.case_id.clone(),
                model: r.model.clone(),
                ok: r.ok,
            })
        },
    )
    .await;
    Ok(started.finish(results, runs.len()))
}

/// When an eval started.
pub(super) struct Started {
    at: String,
    clock: Instant,
}

impl Started {
    /// Now.
    pub(super) fn now() -> Started {
        Started {
            at: super::timestamp::now_iso(),
            clock: Instant::now(),
        }
    }

    /// The eval that started then, with `results` of `planned` runs (fewer: cancelled).
    pub(super) fn finish<R>(self, results: Vec<R>, planned: usize) -> EvalRun<R> {
        EvalRun {
            cancelled: results.len() < planned,
            results,
            started_at: self.at,
            elapsed_ms: self.clock.elapsed().as_millis() as u64,
        }
    }
}

/// Does `job` for every planned run, `concurrency` at a time, telling `finished` about
/// each result as it comes (with how many are done and how many there are), and returns
/// the results in plan order. A run whose job gives `None` (no provider, cancelled) has
/// none; once `cancel` fires, runs not started are not started.
pub(super) async fn in_plan_order<'a, R, Fut>(
    runs: &'a [PlannedRun],
    concurrency: usize,
    cancel: &CancellationToken,
    job: impl Fn(&'a PlannedRun) -> Fut,
    finished: impl Fn(&R, usize, usize),
) -> Vec<R>
where
    Fut: std::future::Future<Output = Option<R>>,
{
    let total = runs.len();
    let done = AtomicUsize::new(0);
    let (done, job, finished) = (&done, &job, &finished);
    let mut results: Vec<(usize, R)> =
        stream::iter(runs.iter().enumerate().map(|(i, run)| async move {
            if cancel.is_cancelled() {
                return None;
            }
            let result = job(run).await?;
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            finished(&result, n, total);
            Some((i, result))
        }))
        .buffer_unordered(concurrency)
        .filter_map(|r| async move { r })
        .collect()
        .await;
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// The clients one run talks to.
struct Providers {
    /// The model compiled with.
    compile: Arc<dyn Provider>,
    /// The judge's, for the `llm_judge` evaluator.
    judge: Option<Arc<dyn Provider>>,
}

/// One run: a fresh in-memory wiki, the source added as `wikimind ingest` would, one
/// compile, the checks, the evaluator. `None` when cancelled.
async fn run_case(
    case: &Case,
    dataset: &Dataset,
    run: &PlannedRun,
    providers: Providers,
    base: &CompileSettings,
    compare_freeform: bool,
    cancel: &CancellationToken,
) -> Option<CaseResult> {
    let exec = &run.execution;
    let provider = providers.compile;
    let mut result = CaseResult {
        case_id: case.id.clone(),
        model: exec.label(),
        base_url: exec.base_url.clone(),
        prompt: exec.prompt.clone(),
        repeat: run.repeat,
        ok: false,
        title: None,
        reason: None,
        first_answer: AnswerClass::ProviderError,
        kept: None,
        calls: 0,
        tokens_in: 0,
        tokens_out: 0,
        tokens_reported: false,
        latency_ms: 0,
        claims: 0,
        sourced_claims: 0,
        grounded_claims: 0,
        opinion_claims: 0,
        truncated: false,
        repairs: Vec::new(),
        checks: Vec::new(),
        evaluator: run.evaluator,
        evaluators: Evaluations::default(),
        attempts: Vec::new(),
        freeform: None,
    };
    let checks = dataset.checks_for(case);
    let mut judged_article = None;
    match compile_case(case, exec, Arc::clone(&provider), base, cancel).await {
        Ok((report, article)) => {
            result.ok = report.ok;
            result.title = report.title.clone();
            result.reason = report.reason.clone();
            result.calls = report.calls;
            result.tokens_in = report.tokens_in;
            result.tokens_out = report.tokens_out;
            result.tokens_reported = !report.attempts.is_empty()
                && report
                    .attempts
                    .iter()
                    .filter(|a| a.class != AnswerClass::ProviderError)
                    .all(|a| a.tokens_in.is_some() && a.tokens_out.is_some());
            result.latency_ms = report.elapsed_ms;
            result.truncated = report.truncated;
            result.repairs = report.repairs.clone();
            if let Some(first) = report.attempts.first() {
                result.first_answer = first.class;
            }
            let kept = report
                .attempts
                .last()
                .filter(|a| report.ok && a.class.is_valid());
            result.kept = kept.map(|a| a.class);
            if let Some(k) = kept {
                result.sourced_claims = k.sourced_claims;
                result.grounded_claims = k.grounded_claims;
            }
            if let Some(a) = &article {
                result.claims = a.claims.len() as u32;
                result.opinion_claims = a
                    .claims
                    .iter()
                    .filter(|c| c.confidence == Confidence::Opinion)
                    .count() as u32;
            }
            result.checks = run_checks(
                &checks,
                article.as_ref().map(|a| ArticleFacts {
                    article: a,
                    sourced_claims: result.sourced_claims,
                    grounded_claims: result.grounded_claims,
                }),
            );
            result.attempts = report.attempts;
            judged_article = article;
        }
        Err(CaseError::Cancelled) => return None,
        Err(CaseError::Other(message)) => {
            result.reason = Some(message);
            result.checks = run_checks(&checks, None);
        }
    }
    if let Some(judge) = &run.judge {
        let judged = match (&judged_article, &providers.judge) {
            (None, _) => JudgeResult::unscored(judge, "no article to judge"),
            (Some(_), None) => JudgeResult::unscored(judge, "the judge's provider is not set up"),
            (Some(article), Some(client)) => {
                judge_article(case, article, judge, &**client, cancel).await?
            }
        };
        result.evaluators.llm_judge = Some(judged);
    }
    if compare_freeform {
        result.freeform = Some(freeform(case, exec, &*provider, cancel).await?);
    }
    Some(result)
}

enum CaseError {
    Cancelled,
    Other(String),
}

async fn compile_case(
    case: &Case,
    exec: &ResolvedExecution,
    provider: Arc<dyn Provider>,
    base: &CompileSettings,
    cancel: &CancellationToken,
) -> Result<(CompileReport, Option<ArticleDetail>), CaseError> {
    let other = |e: &dyn std::fmt::Display| CaseError::Other(e.to_string());
    let wiki = Wiki::open_in_memory().map_err(|e| other(&e))?;
    let added = wiki
        .add_sources(std::slice::from_ref(&case.source))
        .map_err(|e| other(&e))?;
    let Some(source) = added.first() else {
        return Err(CaseError::Other("the source was not stored".into()));
    };
    let settings = CompileSettings {
        temperature: exec.temperature,
        max_tokens: exec.max_tokens,
        retries: exec.retries,
        concurrency: 1,
        ..base.clone()
    };
    let compiler = Compiler::new(
        Arc::clone(wiki.store()),
        vec![ProviderSlot {
            provider,
            model: exec.model.clone(),
        }],
        settings,
    );
    let report = match compiler
        .compile_one(source.source_id, &|_| {}, cancel)
        .await
    {
        Ok(r) => r,
        Err(CompileError::Cancelled) => return Err(CaseError::Cancelled),
        Err(e) => return Err(other(&e)),
    };
    let article = match report.article_id {
        Some(id) => wiki.store().article(id).map_err(|e| other(&e))?,
        None => None,
    };
    Ok((report, article))
}

/// Asks the judge to score `article` against the case's source, as [`JudgeState`] decides
/// (retries with feedback after an unusable answer). `None` when cancelled.
async fn judge_article(
    case: &Case,
    article: &ArticleDetail,
    judge: &ResolvedExecution,
    provider: &dyn Provider,
    cancel: &CancellationToken,
) -> Option<JudgeResult> {
    let prompts = PromptSet::builtin();
    let template = prompts.get(JUDGE);
    let schema = template.schema();
    let (prompt, source_cut) = judge_prompt(
        template,
        case.source.title.as_deref(),
        &case.source.text,
        article,
    );
    let mut out = JudgeResult {
        source_cut,
        ..JudgeResult::unscored(judge, "")
    };
    let started = Instant::now();
    let mut state = JudgeState::new(judge.retries);
    let mut step = state.start();
    loop {
        step = match step {
            JudgeStep::Ask { feedback, .. } => {
                let mut request = ChatRequest::new(&judge.model, &prompt.system, &prompt.user)
                    .with_schema(schema.as_value().clone())
                    .with_temperature(judge.temperature)
                    .with_max_tokens(judge.max_tokens)
                    .with_cancel(cancel.clone());
                if let Some(f) = &feedback {
                    request
                        .messages
                        .push(Message::new(Role::Assistant, f.previous_answer.clone()));
                    request.messages.push(Message::new(
                        Role::User,
                        feedback_message(&f.problems, f.truncated),
                    ));
                }
                out.calls += 1;
                match provider.chat(&request, &|_| {}).await {
                    Ok(resp) => {
                        out.tokens_in += resp.prompt_tokens.unwrap_or(0);
                        out.tokens_out += resp.completion_tokens.unwrap_or(0);
                        let cut_off = resp.finish == FinishReason::Length;
                        state.on_answer(&resp.text, cut_off, &schema)
                    }
                    Err(e) if e.is_cancelled() => return None,
                    Err(e) => state.on_provider_error(e.to_string()),
                }
            }
            JudgeStep::Scored(verdict) => {
                out.ok = true;
                out.error = None;
                out.faithfulness = Some(verdict.faithfulness);
                out.coverage = Some(verdict.coverage);
                break;
            }
            JudgeStep::Failed { reason } => {
                out.error = Some(reason);
                break;
            }
        };
    }
    out.rejected = state.rejected().to_vec();
    out.latency_ms = started.elapsed().as_millis() as u64;
    Some(out)
}

/// Asks for a free-form markdown article of the same source (no schema). `None` when
/// cancelled.
async fn freeform(
    case: &Case,
    exec: &ResolvedExecution,
    provider: &dyn Provider,
    cancel: &CancellationToken,
) -> Option<FreeformResult> {
    let prompt = freeform_prompt(case.source.title.as_deref(), &case.source.text);
    let request = ChatRequest::new(&exec.model, prompt.system, prompt.user)
        .with_max_tokens(exec.max_tokens)
        .with_temperature(exec.temperature)
        .with_cancel(cancel.clone());
    let started = Instant::now();
    match provider.chat(&request, &|_| {}).await {
        Ok(resp) => Some(FreeformResult {
            tokens_in: resp.prompt_tokens,
            tokens_out: resp.completion_tokens,
            chars: resp.text.chars().count(),
            latency_ms: resp.latency.as_millis() as u64,
            error: None,
        }),
        Err(e) if e.is_cancelled() => None,
        Err(e) => Some(FreeformResult {
            tokens_in: None,
            tokens_out: None,
            chars: 0,
            latency_ms: started.elapsed().as_millis() as u64,
            error: Some(e.to_string()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wikimind::config::Overrides;

    fn settings(env: &[(&str, &str)]) -> Settings {
        let vars: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let o = Overrides {
            data_dir: Some("unused-by-eval".into()),
            ..Overrides::default()
        };
        Settings::resolve(&o, &|k| vars.get(k).cloned(), None).unwrap()
    }

    fn exec(model: Option<&str>, temperature: Option<f32>) -> Execution {
        Execution {
            model: model.map(str::to_string),
            temperature,
            ..Execution::default()
        }
    }

    #[test]
    fn flags_beat_the_case_which_beats_the_sidecar_which_beats_settings() {
        let s = settings(&[("WIKIMIND_MODEL", "env-model")]);
        let flag = exec(Some("flag-model"), None);
        let case = exec(Some("case-model"), Some(0.7));
        let side = exec(Some("side-model"), Some(0.1));
        let none = Execution::default();
        let r =
            |f: &Execution, c: &Execution, sc: &Execution| resolve_execution(f, c, sc, &s).unwrap();
        assert_eq!(r(&flag, &case, &side).model, "flag-model");
        assert_eq!(r(&flag, &case, &side).temperature, 0.7);
        assert_eq!(r(&none, &case, &side).model, "case-model");
        assert_eq!(r(&none, &none, &side).model, "side-model");
        assert_eq!(r(&none, &none, &side).temperature, 0.1);
        let bottom = r(&none, &none, &none);
        assert_eq!(bottom.model, "env-model");
        assert_eq!(bottom.temperature, CompileSettings::default().temperature);
        assert_eq!(bottom.prompt, wikimind::compile::PROMPT_VERSION);
        // Another provider kind gets that kind's defaults, not the settings' server.
        let openai = Execution {
            target: Some(Target::Kind(ProviderKind::OpenAiCompatible)),
            ..Execution::default()
        };
        let o = r(&openai, &none, &none);
        assert_eq!(o.base_url, wikimind::config::DEFAULT_OPENAI_URL);
        assert_eq!(o.model, wikimind::config::DEFAULT_OPENAI_MODEL);
        assert_eq!(o.label(), "openai:default");
        // A case's `target: default` wins over the sidecar's `openai`: the configured one.
        let default = Execution {
            target: Some(Target::Default),
            ..Execution::default()
        };
        let d = r(&none, &default, &openai);
        assert_eq!(d.label(), "ollama:env-model");
        assert_eq!(d.base_url, s.provider().base_url);
    }

    fn compiled_with(s: &Settings, model: &str) -> ResolvedExecution {
        resolve_execution(
            &exec(Some(model), None),
            &Execution::default(),
            &Execution::default(),
            s,
        )
        .unwrap()
    }

    #[test]
    fn the_judge_is_the_compiling_model_unless_the_config_or_a_flag_says_otherwise() {
        let file = "[provider]\nmodel = \"primary-model\"\n";
        let with_file = |eval_table: &str| {
            let text = format!("{file}{eval_table}");
            let o = Overrides {
                data_dir: Some("unused-by-eval".into()),
                ..Overrides::default()
            };
            Settings::resolve(&o, &|_| None, Some((std::path::Path::new("c.toml"), &text))).unwrap()
        };
        let none = EvalOptions::default();
        let s = with_file("");
        let run = ResolvedExecution {
            retries: 5,
            max_tokens: 777,
            ..compiled_with(&s, "small")
        };
        let j = resolve_judge(&none, &s, &run).unwrap();
        assert_eq!(j.label(), "ollama:small", "by default the compiling model");
        assert_eq!(
            (j.base_url.as_str(), j.prompt.as_str()),
            (run.base_url.as_str(), "judge-v1")
        );
        assert_eq!((j.temperature, j.retries, j.max_tokens), (0.0, 5, 777));

        let s = with_file("[eval]\njudge_model = \"config-judge\"\n");
        assert_eq!(
            resolve_judge(&none, &s, &run).unwrap().label(),
            "ollama:config-judge"
        );
        let flag = EvalOptions {
            judge_model: Some("flag-judge".into()),
            ..EvalOptions::default()
        };
        assert_eq!(
            resolve_judge(&flag, &s, &run).unwrap().label(),
            "ollama:flag-judge"
        );

        // Another kind: that kind's defaults, unless its server and model are given.
        let s = with_file("[eval]\njudge_provider = \"openai\"\n");
        let j = resolve_judge(&none, &s, &run).unwrap();
        assert_eq!(j.label(), "openai:default");
        assert_eq!(j.base_url, wikimind::config::DEFAULT_OPENAI_URL);
        let s = with_file(
            "[eval]\njudge_provider = \"openai\"\njudge_base_url = \"http://judge:8080/v1/\"\njudge_model = \"big\"\n",
        );
        let j = resolve_judge(&none, &s, &run).unwrap();
        assert_eq!(
            (j.label().as_str(), j.base_url.as_str()),
            ("openai:big", "http://judge:8080/v1")
        );
        // `default`: the configured primary, whatever compiled the article.
        let primary = EvalOptions {
            judge_provider: Some("default".into()),
            ..EvalOptions::default()
        };
        let j = resolve_judge(&primary, &s, &run).unwrap();
        assert_eq!(
            j.label(),
            "ollama:primary-model",
            "not the table's openai model"
        );
        assert_eq!(j.base_url, s.provider().base_url, "nor its openai server");
        let bad = EvalOptions {
            judge_provider: Some("bard".into()),
            ..EvalOptions::default()
        };
        let e = resolve_judge(&bad, &s, &run).unwrap_err().to_string();
        assert!(
            e.starts_with("--judge-provider \"bard\": unknown provider"),
            "{e}"
        );
    }

    /// A dataset of three cases: one judged cleanly, one whose judge always answers a
    /// faithfulness of 7, one with the `checks` evaluator only.
    fn judged_dataset(dir: &std::path::Path) -> Dataset {
        std::fs::write(
            dir.join("j.yaml"),
            "dataset: judged\nevaluator: llm_judge\nexpected: {min_claims: 1}\n",
        )
        .unwrap();
        let p = dir.join("j.jsonl");
        std::fs::write(
            &p,
            concat!(
                "{\"id\":\"good\",\"source\":\"# Tea\\n\\nGreen tea is steamed. Black tea is oxidised fully.\"}\n",
                "{\"id\":\"seven\",\"source\":\"# Seven\\n\\nThe seven-key harbour opens at dawn.\"}\n",
                "{\"id\":\"plain\",\"source\":\"# Plain\\n\\nThe plain case is checked only.\",\"evaluator\":\"checks\"}\n"
            ),
        )
        .unwrap();
        super::super::load_dataset(&p).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_judge_scores_land_in_the_results_and_a_score_of_7_is_retried_then_recorded_as_failed(
    ) {
        use wikimind_testserver::{canned, Reply, TestServer};
        let server = TestServer::builder()
            .responder(|req| {
                let prompt = req.first_user_message();
                let seven = r#"{"faithfulness": {"score": 7, "reason": "Very good."}, "coverage": {"score": 4, "reason": "Most of it."}}"#;
                (canned::is_judge_prompt(&prompt) && prompt.contains("seven-key"))
                    .then(|| Reply::text(seven))
            })
            .start();
        let dir = tempfile::tempdir().unwrap();
        let dataset = judged_dataset(dir.path());
        let mut s = wikimind::test_settings::settings_at(&server.url());
        s.compile.retries = 1;
        let options = EvalOptions {
            models: vec!["m".into()],
            judge_model: Some("judge-m".into()),
            concurrency: Some(1),
            ..EvalOptions::default()
        };
        let run = run_eval(
            &dataset,
            &s,
            &wikimind::llm::NoKeyStore,
            &options,
            &|_| {},
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        let by_id = |id: &str| run.results.iter().find(|r| r.case_id == id).unwrap();
        // The compiles and their checks are untouched by the judge.
        assert!(run
            .results
            .iter()
            .all(|r| r.ok && r.checks.iter().all(|c| c.passed)));

        let good = by_id("good").evaluators.llm_judge.as_ref().expect("judged");
        assert!(good.ok, "{good:?}");
        assert_eq!(
            (good.model.as_str(), good.prompt.as_str()),
            ("ollama:judge-m", "judge-v1")
        );
        let f = good.faithfulness.as_ref().unwrap();
        assert_eq!(
            f.score, 5,
            "every quote of the canned article is in the source"
        );
        assert_eq!(f.reason, "2 of 2 quoted claims are found in the source.");
        assert!(good.coverage.is_some() && good.error.is_none() && good.calls == 1);

        let seven = by_id("seven")
            .evaluators
            .llm_judge
            .as_ref()
            .expect("judged");
        assert!(!seven.ok && seven.faithfulness.is_none() && seven.coverage.is_none());
        assert_eq!(
            seven.calls, 2,
            "the first answer and one retry (retries = 1)"
        );
        assert_eq!(seven.rejected.len(), 2);
        assert!(
            seven.rejected[0].starts_with("attempt 1: /faithfulness/score: 7 is out of range"),
            "{:?}",
            seven.rejected
        );
        let error = seven.error.as_deref().unwrap();
        assert!(
            error.contains("could not be used after 2 attempt(s)")
                && error.contains("7 is out of range"),
            "{error}"
        );

        let plain = by_id("plain");
        assert_eq!(plain.evaluator, Evaluator::Checks);
        assert!(plain.evaluators.llm_judge.is_none());

        // What the judge was sent: its model, the schema, temperature 0; the retry carries
        // the refused answer and why it was refused.
        let judge_calls: Vec<_> = server
            .chat_requests()
            .into_iter()
            .filter(|r| canned::is_judge_prompt(&r.first_user_message()))
            .collect();
        assert_eq!(judge_calls.len(), 3, "good once, seven twice, plain never");
        assert!(judge_calls.iter().all(|r| r.body["model"] == "judge-m"
            && r.body["format"]["required"] == serde_json::json!(["faithfulness", "coverage"])
            && r.body["options"]["temperature"] == 0.0));
        let retry = judge_calls
            .iter()
            .find(|r| r.body["messages"].as_array().unwrap().len() == 4)
            .expect("a retry");
        assert!(retry.body["messages"][2]["content"]
            .as_str()
            .unwrap()
            .contains("\"score\": 7"));
        assert!(
            retry
                .user_message()
                .contains("/faithfulness/score: 7 is out of range"),
            "{}",
            retry.user_message()
        );

        // The report: per-model averages over the scored articles, the failure counted.
        let report = super::super::build_report(&dataset, &run);
        let j = report.models[0].evaluators.llm_judge.as_ref().unwrap();
        assert_eq!((j.runs, j.judged, j.failed), (2, 1, 1));
        assert_eq!(j.judges, ["ollama:judge-m"]);
        assert_eq!(j.faithfulness, Some(5.0));
        assert!(report
            .to_table()
            .contains("llm_judge (ollama:judge-m): faithfulness 5.0/5"));
        // On the wire: `evaluators` beside `checks`, empty for the checks-only case.
        let line = serde_json::to_value(by_id("good")).unwrap();
        assert_eq!(line["evaluator"], "llm_judge");
        assert_eq!(line["evaluators"]["llm_judge"]["faithfulness"]["score"], 5);
        assert_eq!(
            serde_json::to_value(plain).unwrap()["evaluators"],
            serde_json::json!({})
        );
    }
}
