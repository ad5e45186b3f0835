//! The eval report: per-model figures aggregated from the runs (`report.json`), and the
//! terminal table. Pure: the figures are computed from [`CaseResult`]s (article datasets,
//! [`ModelReport`]) or [`QuestionResult`]s (question datasets, [`QuestionModelReport`]:
//! the wiki's answers beside the raw sources'), in the same envelope ([`Report`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use wikimind::compile::AnswerClass;

use super::dataset::{Dataset, DatasetKind, Evaluator};
use super::freeform::FREEFORM_PROMPT_VERSION;
use super::questions::{AnswerResult, QuestionResult};
use super::run::{CaseResult, EvalRun};

/// The version of `report.json`'s layout (2: the dataset's `kind` and `evaluator`, and
/// `evaluators` per model; 3: question datasets, whose models hold `wiki` and `raw`
/// figures, and the `wiki` they were asked of).
pub const REPORT_SCHEMA_VERSION: u32 = 3;

/// The whole report (`report.json`): the envelope, and one entry per model —
/// [`ModelReport`] for an article dataset, [`QuestionModelReport`] for a question dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report<M = ModelReport> {
    /// The layout version of this file.
    pub schema_version: u32,
    /// The WikiMind version that wrote it.
    pub wikimind_version: String,
    /// The dataset.
    pub dataset: DatasetInfo,
    /// When the eval started (UTC).
    pub started_at: String,
    /// Wall time of the whole eval.
    pub elapsed_ms: u64,
    /// Runs made (cases × models × repetitions, fewer when cancelled).
    pub runs: usize,
    /// Whether the eval was cancelled before every run finished.
    pub cancelled: bool,
    /// Things a person should know (a missing sidecar…).
    pub warnings: Vec<String>,
    /// The wiki a question dataset was asked of (absent for articles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wiki: Option<WikiInfo>,
    /// One entry per model, in the order they ran.
    pub models: Vec<M>,
}

/// The wiki a question dataset was asked of, and its raw sources as the other side of
/// the comparison saw them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WikiInfo {
    /// The data dir (`null` for a wiki in memory).
    pub data_dir: Option<String>,
    /// Its sources.
    pub sources: u64,
    /// Its topic pages.
    pub pages: u64,
    /// The passages its sources were cut into for the raw side.
    pub passages: usize,
    /// The longest passage, in bytes.
    pub passage_bytes: usize,
}

/// What was evaluated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetInfo {
    /// Its name.
    pub name: String,
    /// What it is for (empty when the sidecar does not say).
    pub description: String,
    /// What its cases are.
    pub kind: DatasetKind,
    /// How a case that names no evaluator is judged.
    pub evaluator: Evaluator,
    /// The dataset file as given.
    pub path: String,
    /// The sidecar read, if any.
    pub sidecar: Option<String>,
    /// Cases in the dataset.
    pub cases: usize,
}

/// Figures for one model. Rates are shares from 0 to 1 of the model's runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelReport {
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub model: String,
    /// Runs made with it.
    pub runs: u32,
    /// First answer valid as sent (strict JSON that validates), before any repair.
    pub first_answer_valid_rate: f64,
    /// First answer valid after lenient extraction and repair (includes the above).
    pub repaired_valid_rate: f64,
    /// First answer valid after coercion toward the schema (includes the above).
    pub coerced_valid_rate: f64,
    /// An article was written, retries with feedback included.
    pub final_valid_rate: f64,
    /// How first answers fared, by class.
    pub first_answers: BTreeMap<String, u32>,
    /// How the answers that were kept fared, by class (schema conformance of what is kept).
    pub kept_answers: BTreeMap<String, u32>,
    /// Runs that wrote no article.
    pub failed_runs: u32,
    /// Every rejected answer and provider error, over all calls, by reason.
    pub failures_by_reason: BTreeMap<String, u32>,
    /// Repairs and coercions applied to the kept answers, by kind.
    pub repairs_by_kind: BTreeMap<String, u32>,
    /// Kept answers that were cut off.
    pub truncated: u32,
    /// Model calls per run, on average (1 = no retries).
    pub calls_per_run: f64,
    /// Claims labelled `sourced` in the kept answers.
    pub sourced_claims: u32,
    /// Of those, claims whose quote was found in the source.
    pub grounded_claims: u32,
    /// `grounded_claims / sourced_claims`; `null` when no claim was labelled sourced.
    pub grounded_rate: Option<f64>,
    /// `expected` checks passed.
    pub checks_passed: u32,
    /// `expected` checks run.
    pub checks_total: u32,
    /// `checks_passed / checks_total`; `null` when no check ran.
    pub checks_pass_rate: Option<f64>,
    /// Wall time per compile (retries included), in milliseconds.
    pub latency_ms: LatencyStats,
    /// Prompt tokens.
    pub tokens_in: TokenStats,
    /// Answer tokens.
    pub tokens_out: TokenStats,
    /// The free-form comparison, with `--compare-freeform`.
    pub freeform: Option<FreeformComparison>,
    /// What the evaluators made of the model's articles, by evaluator name.
    pub evaluators: EvaluatorSummary,
}

/// The evaluators' figures of one model, by evaluator name (only those that ran).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EvaluatorSummary {
    /// The `llm_judge` evaluator's averages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_judge: Option<JudgeSummary>,
}

/// The `llm_judge` scores of one model's articles.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeSummary {
    /// The judges (`ollama:qwen2.5:7b`), each once, in the order they judged.
    pub judges: Vec<String>,
    /// Runs whose evaluator is `llm_judge`.
    pub runs: u32,
    /// Of those, articles scored.
    pub judged: u32,
    /// Of those, runs not scored (no article, or the judge failed; the reasons are in
    /// `results.jsonl`).
    pub failed: u32,
    /// Mean `faithfulness` score (1 to 5) of the articles scored; `null` when none was.
    pub faithfulness: Option<f64>,
    /// Mean `coverage` score (1 to 5) of the articles scored; `null` when none was.
    pub coverage: Option<f64>,
}

/// Latency figures (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencyStats {
    /// Median.
    pub p50: u64,
    /// 95th percentile.
    pub p95: u64,
    /// Mean.
    pub mean: f64,
    /// Fastest.
    pub min: u64,
    /// Slowest.
    pub max: u64,
}

/// Token figures, over runs whose every call reported usage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TokenStats {
    /// Runs counted (every call reported usage).
    pub runs_reported: u32,
    /// Sum over those runs.
    pub total: u64,
    /// Mean per compile (all calls of a run, retries included).
    pub per_compile: f64,
    /// Total over the articles written (`null` when none was).
    pub per_article: Option<f64>,
}

/// Output tokens of the structured answer against a free-form article of the same source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FreeformComparison {
    /// The free-form prompt's id.
    pub prompt: String,
    /// Runs where both answers reported their output tokens.
    pub pairs: u32,
    /// Mean output tokens of the first structured answer.
    pub structured_tokens_out: f64,
    /// Mean output tokens of the free-form answer.
    pub freeform_tokens_out: f64,
    /// `structured_tokens_out / freeform_tokens_out`; below 1 means structure saved tokens.
    pub ratio: Option<f64>,
    /// `1 - ratio`: the share of output tokens structure saved (negative: it cost more).
    pub structured_saving: Option<f64>,
    /// Free-form calls that failed.
    pub failed: u32,
}

fn rate(n: u32, of: u32) -> f64 {
    if of == 0 {
        0.0
    } else {
        f64::from(n) / f64::from(of)
    }
}

/// The nearest-rank percentile `p` (0 to 100) of sorted values.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn latency(results: &[&CaseResult]) -> LatencyStats {
    latency_of(results.iter().map(|r| r.latency_ms).collect())
}

/// Nearest-rank percentiles, mean and range of `v`.
fn latency_of(mut v: Vec<u64>) -> LatencyStats {
    v.sort_unstable();
    LatencyStats {
        p50: percentile(&v, 50.0),
        p95: percentile(&v, 95.0),
        mean: if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<u64>() as f64 / v.len() as f64
        },
        min: v.first().copied().unwrap_or(0),
        max: v.last().copied().unwrap_or(0),
    }
}

fn tokens(results: &[&CaseResult], pick: impl Fn(&CaseResult) -> u64) -> TokenStats {
    let reported: Vec<&&CaseResult> = results.iter().filter(|r| r.tokens_reported).collect();
    let total: u64 = reported.iter().map(|r| pick(r)).sum();
    let articles = reported.iter().filter(|r| r.ok).count();
    TokenStats {
        runs_reported: reported.len() as u32,
        total,
        per_compile: if reported.is_empty() {
            0.0
        } else {
            total as f64 / reported.len() as f64
        },
        per_article: (articles > 0).then(|| total as f64 / articles as f64),
    }
}

fn freeform(results: &[&CaseResult]) -> Option<FreeformComparison> {
    let with: Vec<&&CaseResult> = results.iter().filter(|r| r.freeform.is_some()).collect();
    if with.is_empty() {
        return None;
    }
    let mut pairs = 0u32;
    let (mut s_sum, mut f_sum) = (0u64, 0u64);
    let mut failed = 0;
    for r in &with {
        let Some(f) = &r.freeform else { continue };
        if f.error.is_some() {
            failed += 1;
            continue;
        }
        let first = r
            .attempts
            .first()
            .filter(|a| a.class != AnswerClass::ProviderError)
            .and_then(|a| a.tokens_out);
        if let (Some(s), Some(t)) = (first, f.tokens_out) {
            pairs += 1;
            s_sum += s;
            f_sum += t;
        }
    }
    let mean = |sum: u64| {
        if pairs == 0 {
            0.0
        } else {
            sum as f64 / f64::from(pairs)
        }
    };
    let ratio = (f_sum > 0).then(|| s_sum as f64 / f_sum as f64);
    Some(FreeformComparison {
        prompt: FREEFORM_PROMPT_VERSION.into(),
        pairs,
        structured_tokens_out: mean(s_sum),
        freeform_tokens_out: mean(f_sum),
        ratio,
        structured_saving: ratio.map(|r| 1.0 - r),
        failed,
    })
}

/// The `llm_judge` figures of one model's runs (`None` when no run was judged that way).
fn judge_summary(results: &[&CaseResult]) -> Option<JudgeSummary> {
    let judged: Vec<_> = results
        .iter()
        .filter_map(|r| r.evaluators.llm_judge.as_ref())
        .collect();
    if judged.is_empty() {
        return None;
    }
    let mut judges: Vec<String> = Vec::new();
    for j in &judged {
        if !judges.contains(&j.model) {
            judges.push(j.model.clone());
        }
    }
    let mean = |pick: &dyn Fn(&super::run::JudgeResult) -> Option<u8>| {
        let scores: Vec<f64> = judged
            .iter()
            .filter_map(|j| pick(j))
            .map(f64::from)
            .collect();
        (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
    };
    let scored = judged.iter().filter(|j| j.ok).count() as u32;
    Some(JudgeSummary {
        judges,
        runs: judged.len() as u32,
        judged: scored,
        failed: judged.len() as u32 - scored,
        faithfulness: mean(&|j| j.faithfulness.as_ref().map(|s| s.score)),
        coverage: mean(&|j| j.coverage.as_ref().map(|s| s.score)),
    })
}

/// The figures of one model's runs.
pub fn model_report(model: &str, results: &[&CaseResult]) -> ModelReport {
    let runs = results.len() as u32;
    let count = |f: &dyn Fn(&CaseResult) -> bool| results.iter().filter(|r| f(r)).count() as u32;
    let first = |classes: &[AnswerClass]| count(&|r| classes.contains(&r.first_answer));
    let mut first_answers = BTreeMap::new();
    let mut kept_answers = BTreeMap::new();
    let mut failures_by_reason = BTreeMap::new();
    let mut repairs_by_kind = BTreeMap::new();
    for r in results {
        *first_answers
            .entry(r.first_answer.as_str().to_string())
            .or_insert(0) += 1;
        if let Some(k) = r.kept {
            *kept_answers.entry(k.as_str().to_string()).or_insert(0) += 1;
            for kind in &r.repairs {
                *repairs_by_kind.entry(kind.clone()).or_insert(0) += 1;
            }
        }
        for a in &r.attempts {
            if let Some(f) = &a.failure {
                *failures_by_reason.entry(f.clone()).or_insert(0) += 1;
            }
        }
        if r.attempts.is_empty() && !r.ok {
            *failures_by_reason.entry("internal".into()).or_insert(0) += 1;
        }
    }
    let sourced: u32 = results.iter().map(|r| r.sourced_claims).sum();
    let grounded: u32 = results.iter().map(|r| r.grounded_claims).sum();
    let checks_total: u32 = results.iter().map(|r| r.checks.len() as u32).sum();
    let checks_passed: u32 = results
        .iter()
        .map(|r| r.checks.iter().filter(|c| c.passed).count() as u32)
        .sum();
    let calls: u32 = results.iter().map(|r| r.calls).sum();
    ModelReport {
        model: model.to_string(),
        runs,
        first_answer_valid_rate: rate(first(&[AnswerClass::StrictValid]), runs),
        repaired_valid_rate: rate(
            first(&[AnswerClass::StrictValid, AnswerClass::Repaired]),
            runs,
        ),
        coerced_valid_rate: rate(
            first(&[
                AnswerClass::StrictValid,
                AnswerClass::Repaired,
                AnswerClass::Coerced,
            ]),
            runs,
        ),
        final_valid_rate: rate(count(&|r| r.ok), runs),
        first_answers,
        kept_answers,
        failed_runs: count(&|r| !r.ok),
        failures_by_reason,
        repairs_by_kind,
        truncated: count(&|r| r.ok && r.truncated),
        calls_per_run: rate(calls, runs),
        sourced_claims: sourced,
        grounded_claims: grounded,
        grounded_rate: (sourced > 0).then(|| rate(grounded, sourced)),
        checks_passed,
        checks_total,
        checks_pass_rate: (checks_total > 0).then(|| rate(checks_passed, checks_total)),
        latency_ms: latency(results),
        tokens_in: tokens(results, |r| r.tokens_in),
        tokens_out: tokens(results, |r| r.tokens_out),
        freeform: freeform(results),
        evaluators: EvaluatorSummary {
            llm_judge: judge_summary(results),
        },
    }
}

/// Builds the report of an eval run.
pub fn build_report(dataset: &Dataset, run: &EvalRun) -> Report {
    let mut order: Vec<&str> = Vec::new();
    for r in &run.results {
        if !order.contains(&r.model.as_str()) {
            order.push(&r.model);
        }
    }
    let models = order
        .iter()
        .map(|m| {
            let of: Vec<&CaseResult> = run.results.iter().filter(|r| r.model == *m).collect();
            model_report(m, &of)
        })
        .collect();
    envelope(dataset, run, models)
}

/// The report of `run` around its per-model figures.
fn envelope<M, R>(dataset: &Dataset, run: &EvalRun<R>, models: Vec<M>) -> Report<M> {
    let mut warnings = dataset.warnings.clone();
    if run.cancelled {
        warnings.push("the eval was cancelled: figures cover the runs that finished".into());
    }
    Report {
        schema_version: REPORT_SCHEMA_VERSION,
        wikimind_version: env!("CARGO_PKG_VERSION").to_string(),
        dataset: DatasetInfo {
            name: dataset.name.clone(),
            description: dataset.description.clone(),
            kind: dataset.kind,
            evaluator: dataset.evaluator,
            path: dataset.path.display().to_string(),
            sidecar: dataset
                .sidecar_path
                .as_ref()
                .map(|p| p.display().to_string()),
            cases: dataset.len(),
        },
        started_at: run.started_at.clone(),
        elapsed_ms: run.elapsed_ms,
        runs: run.results.len(),
        cancelled: run.cancelled,
        warnings,
        wiki: None,
        models,
    }
}

/// Figures for one model over a question dataset: the same questions answered from the
/// wiki's pages and from the raw sources, side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionModelReport {
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub model: String,
    /// Questions asked (cases × repetitions), each from both materials.
    pub runs: u32,
    /// Expected facts over those runs.
    pub facts_expected: u32,
    /// The answers from the wiki's pages.
    pub wiki: AnswerFigures,
    /// The answers from the raw sources.
    pub raw: AnswerFigures,
}

/// How one material (the wiki's pages, or the raw sources) answered a model's questions.
/// Rates are shares from 0 to 1, `null` when there is nothing to divide by.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerFigures {
    /// Questions whose words found something to read (the others asked no model).
    pub covered: u32,
    /// Questions answered with a valid answer (retries included).
    pub valid_answers: u32,
    /// `valid_answers / runs`: a question not covered counts as not answered.
    pub valid_rate: f64,
    /// Questions covered whose answer could not be made valid (or whose run failed).
    pub failed: u32,
    /// How the first answers fared, by class (questions a model was asked).
    pub first_answers: BTreeMap<String, u32>,
    /// Claims of the valid answers.
    pub claims: u32,
    /// Of those, claims whose quote was found in what they cite.
    pub grounded_claims: u32,
    /// `grounded_claims / claims`.
    pub grounded_rate: Option<f64>,
    /// Claims the model labelled `sourced`.
    pub sourced_claims: u32,
    /// Of those, claims whose quote was found in what they cite.
    pub sourced_grounded_claims: u32,
    /// `sourced_grounded_claims / sourced_claims`.
    pub sourced_grounded_rate: Option<f64>,
    /// Expected facts found in the valid answers.
    pub facts_found: u32,
    /// `facts_found / facts_expected` (of the model's runs).
    pub facts_found_rate: Option<f64>,
    /// Model calls (retries included).
    pub calls: u32,
    /// Wall time per question a model was asked (retrieval and retries included).
    pub latency_ms: LatencyStats,
    /// Prompt tokens.
    pub tokens_in: AnswerTokens,
    /// Answer tokens.
    pub tokens_out: AnswerTokens,
}

/// Token figures over the questions a model was asked and whose every call reported usage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AnswerTokens {
    /// Questions counted.
    pub runs_reported: u32,
    /// Sum over those questions.
    pub total: u64,
    /// Mean per question counted.
    pub per_question: f64,
    /// The total divided by the valid answers among them (`null` when none).
    pub per_answer: Option<f64>,
}

fn ratio(n: u32, of: u32) -> Option<f64> {
    (of > 0).then(|| rate(n, of))
}

/// The figures of one material's answers to `runs` questions with `facts` expected facts.
fn answer_figures(answers: &[&AnswerResult], facts: u32) -> AnswerFigures {
    let runs = answers.len() as u32;
    let sum = |f: &dyn Fn(&AnswerResult) -> u32| answers.iter().map(|a| f(a)).sum::<u32>();
    let mut first_answers = BTreeMap::new();
    for class in answers.iter().filter_map(|a| a.first_answer) {
        *first_answers.entry(class.as_str().to_string()).or_insert(0) += 1;
    }
    let asked: Vec<&&AnswerResult> = answers.iter().filter(|a| a.asked()).collect();
    let reported: Vec<&&&AnswerResult> = asked.iter().filter(|a| a.tokens_reported).collect();
    let tokens = |pick: &dyn Fn(&AnswerResult) -> u64| {
        let total: u64 = reported.iter().map(|a| pick(a)).sum();
        let answered = reported.iter().filter(|a| a.answered).count();
        AnswerTokens {
            runs_reported: reported.len() as u32,
            total,
            per_question: if reported.is_empty() {
                0.0
            } else {
                total as f64 / reported.len() as f64
            },
            per_answer: (answered > 0).then(|| total as f64 / answered as f64),
        }
    };
    let valid = sum(&|a| u32::from(a.answered));
    let claims = sum(&|a| a.claims.len() as u32);
    let grounded = sum(&|a| a.grounded_claims);
    let sourced = sum(&|a| a.sourced_claims);
    let sourced_grounded = sum(&|a| a.sourced_grounded_claims);
    let found = sum(&|a| a.facts_found);
    AnswerFigures {
        covered: sum(&|a| u32::from(a.covered)),
        valid_answers: valid,
        valid_rate: rate(valid, runs),
        failed: sum(&|a| u32::from(a.error.is_some())),
        first_answers,
        claims,
        grounded_claims: grounded,
        grounded_rate: ratio(grounded, claims),
        sourced_claims: sourced,
        sourced_grounded_claims: sourced_grounded,
        sourced_grounded_rate: ratio(sourced_grounded, sourced),
        facts_found: found,
        facts_found_rate: ratio(found, facts),
        calls: sum(&|a| a.calls),
        latency_ms: latency_of(asked.iter().map(|a| a.latency_ms).collect()),
        tokens_in: tokens(&|a| a.tokens_in),
        tokens_out: tokens(&|a| a.tokens_out),
    }
}

/// The figures of one model's questions.
pub fn question_model_report(model: &str, results: &[&QuestionResult]) -> QuestionModelReport {
    let facts: u32 = results.iter().map(|r| r.expect.len() as u32).sum();
    let wiki: Vec<&AnswerResult> = results.iter().map(|r| &r.wiki).collect();
    let raw: Vec<&AnswerResult> = results.iter().map(|r| &r.raw).collect();
    QuestionModelReport {
        model: model.to_string(),
        runs: results.len() as u32,
        facts_expected: facts,
        wiki: answer_figures(&wiki, facts),
        raw: answer_figures(&raw, facts),
    }
}

/// Builds the report of a question eval run over the wiki described by `wiki`.
pub fn build_question_report(
    dataset: &Dataset,
    run: &EvalRun<QuestionResult>,
    wiki: WikiInfo,
) -> Report<QuestionModelReport> {
    let mut order: Vec<&str> = Vec::new();
    for r in &run.results {
        if !order.contains(&r.model.as_str()) {
            order.push(&r.model);
        }
    }
    let models = order
        .iter()
        .map(|m| {
            let of: Vec<&QuestionResult> = run.results.iter().filter(|r| r.model == *m).collect();
            question_model_report(m, &of)
        })
        .collect();
    let mut report = envelope(dataset, run, models);
    if wiki.pages == 0 {
        report.warnings.push(
            "the wiki has no topic pages: no question is covered by it (run `wikimind compile` first)"
                .into(),
        );
    }
    report.wiki = Some(wiki);
    report
}

mod table;
pub use table::{pct, share};

#[cfg(test)]
mod tests;
