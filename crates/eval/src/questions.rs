//! Running a question dataset: every question, for every model, as many times as asked,
//! answered twice with the same model, template and schema — once from the wiki of the data
//! dir ([`Wiki::ask_with`], exactly what `wikimind ask` does) and once from the raw sources
//! ([`ask_sources`], a full-text index over passages of the sources' text) — each answer's
//! citations checked, its expected facts looked for ([`super::facts`]). The wiki is only
//! read: nothing is compiled, saved or changed.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use wikimind::ask::sources::{ask_sources, SourceIndex};
use wikimind::ask::{AskOptions, AskReport};
use wikimind::compile::templates::ASK;
use wikimind::compile::{AnswerClass, AttemptRecord, PromptSet, ProviderSlot};
use wikimind::config::{CompileSettings, Settings};
use wikimind::contract::Confidence;
use wikimind::llm::{CancellationToken, KeyStore, Provider};
use wikimind::wiki::{Wiki, WikiError};

use super::dataset::{Dataset, DatasetKind, QuestionCase};
use super::facts::AnswerWords;
use super::run::{
    in_plan_order, plan_runs, providers_for, settings_of, EvalOptions, EvalProgress, EvalRun,
    PlannedRun, Started,
};
use super::EvalError;

/// One claim of an answer, as `results.jsonl` records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimRecord {
    /// The claim in one sentence.
    pub claim: String,
    /// Its confidence after the check (`sourced` only when its quote was found).
    pub confidence: Confidence,
    /// Its confidence as the model labelled it.
    pub labelled: Confidence,
    /// The quote as the model gave it.
    pub quote: Option<String>,
    /// The page (wiki) or source (raw) it cites.
    pub page: String,
    /// Whether the quote was found in what it cites.
    pub grounded: bool,
}

/// An expected fact, and whether the answer holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactResult {
    /// The fact as the dataset writes it.
    pub fact: String,
    /// Whether the answer or its claims hold it (never, when there is no valid answer).
    pub found: bool,
}

/// How one question was answered from one material: the wiki's pages, or the raw sources.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerResult {
    /// Whether the question's words found anything to read (else no model was asked).
    pub covered: bool,
    /// Whether the model gave a valid answer (retries included).
    pub answered: bool,
    /// Why there is no valid answer, when a model was asked (or the run failed).
    pub error: Option<String>,
    /// How the first answer fared; `null` when no model was asked.
    pub first_answer: Option<AnswerClass>,
    /// The answer in markdown; when not covered, the sentence saying so.
    pub answer: String,
    /// The pages (or sources) the model read, in order.
    pub read: Vec<String>,
    /// The answer's claims, checked.
    pub claims: Vec<ClaimRecord>,
    /// Claims whose quote was found in what they cite.
    pub grounded_claims: u32,
    /// Claims the model labelled `sourced`.
    pub sourced_claims: u32,
    /// Of those, claims whose quote was found.
    pub sourced_grounded_claims: u32,
    /// The expected facts, each found or not.
    pub facts: Vec<FactResult>,
    /// Facts found.
    pub facts_found: u32,
    /// Model calls made.
    pub calls: u32,
    /// Prompt tokens over the calls (as reported).
    pub tokens_in: u64,
    /// Answer tokens over the calls (as reported).
    pub tokens_out: u64,
    /// Whether a model was asked and every call reported its token usage.
    pub tokens_reported: bool,
    /// Wall time of retrieval and answering, retries included.
    pub latency_ms: u64,
    /// Notes for people: blocks read only in part, claims marked inferred, retries.
    pub warnings: Vec<String>,
    /// Every model call, in order.
    pub attempts: Vec<AttemptRecord>,
}

impl AnswerResult {
    /// The result of a run that failed before it had an answer (the wiki could not be read).
    fn failed(error: String, expect: &[String], latency_ms: u64) -> AnswerResult {
        AnswerResult {
            covered: false,
            answered: false,
            error: Some(error),
            first_answer: None,
            answer: String::new(),
            read: Vec::new(),
            claims: Vec::new(),
            grounded_claims: 0,
            sourced_claims: 0,
            sourced_grounded_claims: 0,
            facts: not_found(expect),
            facts_found: 0,
            calls: 0,
            tokens_in: 0,
            tokens_out: 0,
            tokens_reported: false,
            latency_ms,
            warnings: Vec::new(),
            attempts: Vec::new(),
        }
    }

    /// What `report` says about the question, its facts looked for in a valid answer.
    fn of(report: AskReport, expect: &[String], latency_ms: u64) -> AnswerResult {
        let answered = report.covered && report.ok();
        let facts = if answered {
            let texts = std::iter::once(report.answer.as_str()).chain(
                report
                    .claims
                    .iter()
                    .flat_map(|c| std::iter::once(c.claim.as_str()).chain(c.quote.as_deref())),
            );
            let words = AnswerWords::of(texts);
            expect
                .iter()
                .map(|f| FactResult {
                    fact: f.clone(),
                    found: words.holds(f),
                })
                .collect()
        } else {
            not_found(expect)
        };
        let count = |f: &dyn Fn(&wikimind::ask::CitedClaim) -> bool| {
            report.claims.iter().filter(|c| f(c)).count() as u32
        };
        let sourced = |c: &wikimind::ask::CitedClaim| c.labelled == Confidence::Sourced;
        AnswerResult {
            covered: report.covered,
            answered,
            first_answer: report.attempts.first().map(|a| a.class),
            grounded_claims: count(&|c| c.grounded),
            sourced_claims: count(&sourced),
            sourced_grounded_claims: count(&|c| sourced(c) && c.grounded),
            facts_found: facts.iter().filter(|f| f.found).count() as u32,
            facts,
            claims: report
                .claims
                .iter()
                .map(|c| ClaimRecord {
                    claim: c.claim.clone(),
                    confidence: c.confidence,
                    labelled: c.labelled,
                    quote: c.quote.clone(),
                    page: c.page.clone(),
                    grounded: c.grounded,
                })
                .collect(),
            calls: report.usage.calls,
            tokens_in: report.usage.tokens_in,
            tokens_out: report.usage.tokens_out,
            tokens_reported: !report.attempts.is_empty()
                && report
                    .attempts
                    .iter()
                    .filter(|a| a.class != AnswerClass::ProviderError)
                    .all(|a| a.tokens_in.is_some() && a.tokens_out.is_some()),
            latency_ms,
            read: report.pages_read,
            warnings: report.warnings,
            attempts: report.attempts,
            error: report.error,
            answer: report.answer,
        }
    }

    /// Whether a model was asked.
    pub fn asked(&self) -> bool {
        self.calls > 0
    }
}

fn not_found(expect: &[String]) -> Vec<FactResult> {
    expect
        .iter()
        .map(|f| FactResult {
            fact: f.clone(),
            found: false,
        })
        .collect()
}

/// One question asked by one model, from the wiki and from the raw sources: one line of
/// `results.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionResult {
    /// The case's id.
    pub case_id: String,
    /// The question.
    pub question: String,
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub model: String,
    /// The server.
    pub base_url: String,
    /// The `ask` template's version the question was sent with.
    pub prompt: String,
    /// The repetition, from 1.
    pub repeat: u32,
    /// The expected facts.
    pub expect: Vec<String>,
    /// The answer from the wiki's pages.
    pub wiki: AnswerResult,
    /// The answer from the raw sources.
    pub raw: AnswerResult,
}

/// Runs every planned question (see the module documentation), `concurrency` at once,
/// against `wiki` and the passages of its sources in `index`, reporting progress after
/// each. On cancellation the runs already finished are returned with `cancelled: true`.
#[allow(clippy::too_many_arguments)]
pub async fn run_questions(
    dataset: &Dataset,
    wiki: &Wiki,
    index: &SourceIndex,
    settings: &Settings,
    keys: &dyn KeyStore,
    options: &EvalOptions,
    progress: &(dyn Fn(EvalProgress) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<EvalRun<QuestionResult>, EvalError> {
    if dataset.kind != DatasetKind::Questions {
        return Err(EvalError::Invalid(format!(
            "{} is a dataset of {}, not of questions",
            dataset.name,
            dataset.kind.as_str()
        )));
    }
    let started = Started::now();
    let runs = plan_runs(dataset, settings, options)?;
    let providers = providers_for(&runs, settings, keys)?;
    let prompts = wiki.prompts();
    let concurrency = options
        .concurrency
        .unwrap_or(settings.compile.concurrency)
        .max(1);
    let asking = Asking {
        wiki,
        index,
        prompts: &prompts,
        base: &settings.compile,
        cancel,
    };
    let results = in_plan_order(
        &runs,
        concurrency,
        cancel,
        |run: &PlannedRun| {
            let provider = providers
                .get(&(run.execution.provider, run.execution.base_url.clone()))
                .cloned();
            let case = &dataset.questions[run.case_index];
            let asking = &asking;
            async move { asking.question(case, run, provider?).await }
        },
        |r: &QuestionResult, done, total| {
            progress(EvalProgress {
                done,
                total,
                case_id: r.case_id.clone(),
                model: r.model.clone(),
                ok: r.wiki.error.is_none() && r.raw.error.is_none(),
            })
        },
    )
    .await;
    Ok(started.finish(results, runs.len()))
}

/// What every question run shares.
struct Asking<'a> {
    wiki: &'a Wiki,
    index: &'a SourceIndex,
    prompts: &'a PromptSet,
    base: &'a CompileSettings,
    cancel: &'a CancellationToken,
}

impl Asking<'_> {
    /// One question, one model, both materials. `None` when cancelled.
    async fn question(
        &self,
        case: &QuestionCase,
        run: &PlannedRun,
        provider: Arc<dyn Provider>,
    ) -> Option<QuestionResult> {
        let exec = &run.execution;
        let compiler = self.wiki.compiler_with(
            vec![ProviderSlot {
                provider,
                model: exec.model.clone(),
            }],
            settings_of(exec, self.base),
        );
        let question = case.question.as_str();
        let started = Instant::now();
        let wiki = self
            .wiki
            .ask_with(
                &compiler,
                question,
                AskOptions::default(),
                &|_| {},
                self.cancel,
            )
            .await;
        let wiki = self.result(wiki, &case.expect, started)?;
        let started = Instant::now();
        let raw = ask_sources(&compiler, self.index, question, &|_| {}, self.cancel).await;
        let raw = self.result(raw, &case.expect, started)?;
        Some(QuestionResult {
            case_id: case.id.clone(),
            question: case.question.clone(),
            model: exec.label(),
            base_url: exec.base_url.clone(),
            prompt: self.prompts.get(ASK).version.clone(),
            repeat: run.repeat,
            expect: case.expect.clone(),
            wiki,
            raw,
        })
    }

    /// The result of one answer; `None` when the eval was cancelled meanwhile.
    fn result(
        &self,
        report: Result<AskReport, WikiError>,
        expect: &[String],
        started: Instant,
    ) -> Option<AnswerResult> {
        if self.cancel.is_cancelled() {
            return None;
        }
        let ms = started.elapsed().as_millis() as u64;
        Some(match report {
            Ok(report) => AnswerResult::of(report, expect, ms),
            Err(e) => AnswerResult::failed(e.to_string(), expect, ms),
        })
    }
}
