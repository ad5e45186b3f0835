//! Eval: run a dataset of sources through the real compile pipeline and measure how a
//! model does — valid answers on the first try, after repair, after coercion, after
//! retries; grounded quotes; the dataset's `expected` checks; latency and tokens.
//!
//! [`dataset`] loads `.jsonl` (with an optional sidecar `.yaml`) or `.yaml` datasets
//! strictly; [`run`] compiles every case with the same [`Compiler`](wikimind::compile::Compiler)
//! a real compile uses, each in a throwaway in-memory wiki, then runs the case's checks and
//! its evaluator ([`judge`]: a model scores the article against its source); [`report`]
//! aggregates the runs per model; [`html`] renders the self-contained HTML report; [`write_outputs`] writes
//! `report.json`, `results.jsonl` and `report.html`; [`session`] is one eval as a shell
//! runs it, from the options checked to the verdict.
//!
//! A dataset of `kind: questions` is asked instead ([`questions`]): every question of the
//! wiki in the data dir and of its raw sources, side by side, with the same model, each
//! answer's citations checked and its expected facts looked for ([`facts`]).

pub mod checks;
pub mod dataset;
pub mod facts;
pub mod freeform;
pub mod html;
pub mod judge;
pub mod questions;
pub mod report;
pub mod run;
pub mod session;
pub mod timestamp;

use std::path::{Path, PathBuf};

pub use checks::{run_checks, CheckResult};
pub use dataset::{
    load_dataset, Case, Dataset, DatasetError, DatasetKind, Evaluator, Execution, Expected,
    QuestionCase,
};
pub use judge::{JudgeVerdict, RubricScore};
pub use questions::{run_questions, AnswerResult, QuestionResult};
pub use report::{
    build_question_report, build_report, AnswerFigures, JudgeSummary, ModelReport,
    QuestionModelReport, Report, WikiInfo,
};
pub use run::{
    plan_runs, resolve_execution, resolve_judge, run_eval, CaseResult, EvalOptions, EvalProgress,
    EvalRun, Evaluations, JudgeResult, PlannedRun,
};
pub use session::{
    evaluate, evaluate_questions, prepare, question_wiki, EvalOutcome, EvalPlan, EvalVerdict,
};

/// Why an eval could not run.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The dataset could not be loaded.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// A provider could not be set up.
    #[error(transparent)]
    Llm(#[from] wikimind::llm::LlmError),
    /// The wiki a question dataset is asked of could not be read.
    #[error(transparent)]
    Wiki(Box<wikimind::wiki::WikiError>),
    /// An option is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// Writing the report failed.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl From<wikimind::wiki::WikiError> for EvalError {
    fn from(e: wikimind::wiki::WikiError) -> Self {
        EvalError::Wiki(Box::new(e))
    }
}

/// The files an eval wrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OutputFiles {
    /// The folder.
    pub dir: PathBuf,
    /// `report.json`.
    pub report_json: PathBuf,
    /// `results.jsonl`.
    pub results_jsonl: PathBuf,
    /// `report.html`.
    pub report_html: PathBuf,
}

/// The default output folder: `eval-out/<dataset name>-<UTC time>`, the name reduced to
/// letters, digits, `-` and `_`.
pub fn default_out_dir(dataset: &Dataset) -> PathBuf {
    let name: String = dataset
        .name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let name = if name.trim_matches('-').is_empty() {
        "dataset".to_string()
    } else {
        name
    };
    Path::new("eval-out").join(format!("{name}-{}", timestamp::now_compact()))
}

/// Writes `report.json`, `results.jsonl` (one line per run) and `report.html` into `dir`,
/// creating it.
pub fn write_outputs(
    dir: &Path,
    report: &Report,
    results: &[CaseResult],
) -> Result<OutputFiles, EvalError> {
    write_files(dir, report, results, &html::render_html(report, results))
}

/// [`write_outputs`] for a question dataset.
pub fn write_question_outputs(
    dir: &Path,
    report: &Report<QuestionModelReport>,
    results: &[QuestionResult],
) -> Result<OutputFiles, EvalError> {
    write_files(
        dir,
        report,
        results,
        &html::render_question_html(report, results),
    )
}

/// Writes `report` as `report.json`, `results` as `results.jsonl` and `html` as
/// `report.html` into `dir`, creating it. A symlink with one of those names is replaced by
/// the file, never written through ([`wikimind::export::write_replacing`]).
fn write_files(
    dir: &Path,
    report: &impl serde::Serialize,
    results: &[impl serde::Serialize],
    html: &str,
) -> Result<OutputFiles, EvalError> {
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EvalError::Write { path, source }
    };
    std::fs::create_dir_all(dir).map_err(err(dir))?;
    let files = OutputFiles {
        dir: dir.to_path_buf(),
        report_json: dir.join("report.json"),
        results_jsonl: dir.join("results.jsonl"),
        report_html: dir.join("report.html"),
    };
    // A link already in the folder (`report.json` pointing at a person's file) is replaced,
    // never written through: the same writer as export.
    let write = |path: &Path, bytes: &[u8]| {
        wikimind::export::write_replacing(dir, path, bytes).map_err(err(path))
    };
    let json = serde_json::to_string_pretty(report)
        .map_err(|e| err(&files.report_json)(std::io::Error::other(e)))?;
    write(&files.report_json, (json + "\n").as_bytes())?;
    let mut lines = Vec::new();
    for r in results {
        serde_json::to_writer(&mut lines, r)
            .map_err(|e| err(&files.results_jsonl)(std::io::Error::other(e)))?;
        lines.push(b'\n');
    }
    write(&files.results_jsonl, &lines)?;
    write(&files.report_html, html.as_bytes())?;
    Ok(files)
}
