//! The eval report: per-model figures aggregated from the runs (`report.json`), and the
//! terminal table. Pure: the figures are computed from [`CaseResult`]s.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::compile::AnswerClass;

use super::dataset::{Dataset, DatasetKind, Evaluator};
use super::freeform::FREEFORM_PROMPT_VERSION;
use super::run::{CaseResult, EvalRun};

/// The version of `report.json`'s layout (2: the dataset's `kind` and `evaluator`, and
/// `evaluators` per model).
pub const REPORT_SCHEMA_VERSION: u32 = 2;

/// The whole report (`report.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
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
    /// One entry per model, in the order they ran.
    pub models: Vec<ModelReport>,
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
    let mut v: Vec<u64> = results.iter().map(|r| r.latency_ms).collect();
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
            cases: dataset.cases.len(),
        },
        started_at: run.started_at.clone(),
        elapsed_ms: run.elapsed_ms,
        runs: run.results.len(),
        cancelled: run.cancelled,
        warnings,
        models,
    }
}

/// A share as a percentage, `-` when there is none.
pub fn pct(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{:.0}%", v * 100.0),
        None => "-".into(),
    }
}

impl Report {
    /// The report as a plain-text table for a terminal.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        let header = [
            "model", "runs", "first", "+repair", "+coerce", "final", "grounded", "checks",
            "p50 ms", "p95 ms", "tok in", "tok out",
        ];
        let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for m in &self.models {
            rows.push(vec![
                m.model.clone(),
                m.runs.to_string(),
                pct(Some(m.first_answer_valid_rate)),
                pct(Some(m.repaired_valid_rate)),
                pct(Some(m.coerced_valid_rate)),
                pct(Some(m.final_valid_rate)),
                pct(m.grounded_rate),
                pct(m.checks_pass_rate),
                m.latency_ms.p50.to_string(),
                m.latency_ms.p95.to_string(),
                format!("{:.0}", m.tokens_in.per_compile),
                format!("{:.0}", m.tokens_out.per_compile),
            ]);
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        for (i, row) in rows.iter().enumerate() {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    if c == 0 {
                        format!("{cell:<w$}", w = widths[c])
                    } else {
                        format!("{cell:>w$}", w = widths[c])
                    }
                })
                .collect();
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
            if i == 0 {
                let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
                let _ = writeln!(out, "{}", "-".repeat(total));
            }
        }
        for m in &self.models {
            let list = |map: &BTreeMap<String, u32>| {
                if map.is_empty() {
                    "none".to_string()
                } else {
                    let mut v: Vec<(&String, &u32)> = map.iter().collect();
                    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                    v.iter()
                        .map(|(k, n)| format!("{k} {n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            let _ = writeln!(out, "\n{}", m.model);
            let _ = writeln!(out, "  failures by reason: {}", list(&m.failures_by_reason));
            let _ = writeln!(out, "  repairs by kind:    {}", list(&m.repairs_by_kind));
            if let Some(j) = &m.evaluators.llm_judge {
                let score = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}/5"));
                let _ = writeln!(
                    out,
                    "  llm_judge ({}): faithfulness {}, coverage {} over {} of {} run(s){}",
                    j.judges.join(", "),
                    score(j.faithfulness),
                    score(j.coverage),
                    j.judged,
                    j.runs,
                    if j.failed > 0 {
                        format!("; {} not scored (see results.jsonl)", j.failed)
                    } else {
                        String::new()
                    }
                );
            }
            if let Some(f) = &m.freeform {
                let verdict = match f.structured_saving {
                    Some(s) if s >= 0.0 => format!("structured used {:.0}% fewer", s * 100.0),
                    Some(s) => format!("structured used {:.0}% more", -s * 100.0),
                    None => "no token counts to compare".into(),
                };
                let _ = writeln!(
                    out,
                    "  output tokens vs free-form: {:.0} structured, {:.0} free-form over {} pair(s): {verdict}",
                    f.structured_tokens_out, f.freeform_tokens_out, f.pairs
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50.0), 10);
        assert_eq!(percentile(&v, 95.0), 19);
        assert_eq!(percentile(&[7], 95.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
        assert_eq!(percentile(&[1, 2, 3], 100.0), 3);
        assert_eq!(percentile(&[1, 2, 3], 0.0), 1);
    }
}
