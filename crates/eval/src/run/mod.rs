//! Running a dataset: every case, for every model, as many times as asked, through the same
//! [`Compiler`](wikimind::compile::Compiler) a real compile uses, each run in its own
//! throwaway in-memory wiki (so runs never see each other's articles and never touch the
//! person's wiki), which hands out the compiler with its prompts and name indexes
//! ([`Wiki::compiler_with`]); then the case's checks and its evaluator (the `llm_judge`, the
//! engine's judge task over a caller the same wiki hands out).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures_util::stream::{self, StreamExt};
use serde::Serialize;

use wikimind::compile::judge::judge_article as judge_task;
use wikimind::compile::{AnswerClass, AttemptRecord, CompileError, CompileReport, ProviderSlot};
use wikimind::config::{default_model, default_url, CompileSettings, Settings, Target};
use wikimind::contract::Confidence;
use wikimind::llm::{self, CancellationToken, ChatRequest, KeyStore, Provider, ProviderKind};
use wikimind::wiki::Wiki;
use wikimind::ArticleDetail;

use super::checks::{run_checks, ArticleFacts, CheckResult};
use super::dataset::{Case, Dataset, DatasetError, DatasetKind, Evaluator, Execution};
use super::freeform::freeform_prompt;
use super::judge::RubricScore;
use super::EvalError;

mod plan;
pub use plan::{
    check_dataset_servers, plan_runs, resolve_execution, resolve_judge, EvalOptions, PlannedRun,
    ResolvedExecution,
};

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
        Ok((report, article, wiki)) => {
            result.ok = report.ok;
            result.title = report.title.clone();
            result.reason = report.reason.clone();
            result.calls = report.usage.calls;
            result.tokens_in = report.usage.tokens_in;
            result.tokens_out = report.usage.tokens_out;
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
            judged_article = article.map(|a| (a, wiki));
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
            (Some((article, wiki)), Some(client)) => {
                judge_article(case, article, wiki, judge, Arc::clone(client), base, cancel).await?
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
) -> Result<(CompileReport, Option<ArticleDetail>, Wiki), CaseError> {
    let other = |e: &dyn std::fmt::Display| CaseError::Other(e.to_string());
    let wiki = Wiki::open_in_memory().map_err(|e| other(&e))?;
    let added = wiki
        .add_sources(std::slice::from_ref(&case.source))
        .map_err(|e| other(&e))?;
    let Some(source) = added.first() else {
        return Err(CaseError::Other("the source was not stored".into()));
    };
    let compiler = wiki.compiler_with(
        vec![ProviderSlot {
            provider,
            model: exec.model.clone(),
        }],
        settings_of(exec, base),
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
        Some(id) => wiki.digest(id).map_err(|e| other(&e))?,
        None => None,
    };
    Ok((report, article, wiki))
}

/// The settings one execution's calls are made with: `base` with the execution's
/// temperature, answer budget and retries, one call at a time.
pub(super) fn settings_of(exec: &ResolvedExecution, base: &CompileSettings) -> CompileSettings {
    CompileSettings {
        temperature: exec.temperature,
        max_tokens: exec.max_tokens,
        retries: exec.retries,
        concurrency: 1,
        ..base.clone()
    }
}

/// Asks the judge to score `article` against the case's source with the engine's judge
/// task, over a caller `wiki` (the run's, which compiled the article) hands out (retries with feedback after an unusable answer,
/// usage summed by the call log). `None` when cancelled.
async fn judge_article(
    case: &Case,
    article: &ArticleDetail,
    wiki: &Wiki,
    judge: &ResolvedExecution,
    provider: Arc<dyn Provider>,
    base: &CompileSettings,
    cancel: &CancellationToken,
) -> Option<JudgeResult> {
    let started = Instant::now();
    let judging = wiki.compiler_with(
        vec![ProviderSlot {
            provider,
            model: judge.model.clone(),
        }],
        settings_of(judge, base),
    );
    let run = match judge_task(
        judging.caller(),
        judging.prompts(),
        case.source.title.as_deref(),
        &case.source.text,
        article,
        cancel,
    )
    .await
    {
        Ok(run) => run,
        Err(_) => return None,
    };
    let mut out = JudgeResult {
        source_cut: run.source_cut,
        calls: run.usage.calls,
        tokens_in: run.usage.tokens_in,
        tokens_out: run.usage.tokens_out,
        rejected: run.rejected,
        ..JudgeResult::unscored(judge, "")
    };
    match run.verdict {
        Ok(verdict) => {
            out.ok = true;
            out.error = None;
            out.faithfulness = Some(verdict.faithfulness);
            out.coverage = Some(verdict.coverage);
        }
        Err(reason) => out.error = Some(reason),
    }
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
mod tests;
