//! `wikimind eval`: run a dataset through the real compile pipeline (or, for a question
//! dataset, ask its questions of the wiki and of its raw sources) and report how each model
//! does. Glue over `wikimind_eval`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use wikimind::config::Overrides;
use wikimind::llm::CancellationToken;
use wikimind_eval::{
    self as eval, DatasetKind, EvalOptions, EvalProgress, EvalVerdict, OutputFiles,
};

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// Arguments of `wikimind eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The dataset: a .jsonl file (one case per line, optional sidecar .yaml beside it) or a
    /// .yaml/.yml file with a `cases:` list. A question dataset (`kind: questions`) is asked
    /// of the wiki in --data-dir, which must be compiled.
    #[arg(value_name = "DATASET")]
    dataset: PathBuf,
    /// `default` (your configured provider), `ollama`, `openai` or `builtin` (wins over the
    /// dataset's `execution.target`).
    #[arg(long)]
    provider: Option<String>,
    /// The server's base URL (wins over the dataset).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// A model to evaluate; repeat to compare models on one server.
    #[arg(long = "model", value_name = "M")]
    models: Vec<String>,
    /// Runs per case and model (default: the sidecar's `repeat`, else 1).
    #[arg(long, value_name = "N")]
    repeat: Option<u32>,
    /// Runs at once: compiles, or questions asked (default: the compile setting, 2).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Where to write report.json, results.jsonl and report.html
    /// (default: eval-out/DATASET-TIME).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also ask for a free-form markdown article of each source and compare output tokens.
    #[arg(long)]
    compare_freeform: bool,
    /// The `llm_judge` evaluator's model (default: `[eval] judge_model` in the config, else
    /// the model that compiled the article).
    #[arg(long, value_name = "M")]
    judge_model: Option<String>,
    /// The judge's provider, named as `--provider` is (default: `[eval] judge_provider`,
    /// else the compiling model's).
    #[arg(long, value_name = "P")]
    judge_provider: Option<String>,
    /// The judge's server (default: `[eval] judge_base_url`, else the judge provider's).
    #[arg(long, value_name = "URL")]
    judge_base_url: Option<String>,
    /// Let the dataset's `execution.base_url` name a server other than yours (your
    /// configured providers, the judge's, the flags, the built-in defaults). Without it such
    /// a dataset is refused: a shared dataset must not send its sources where its author
    /// picks.
    #[arg(long)]
    allow_dataset_servers: bool,
}

/// Runs `wikimind eval`.
pub fn run(global: &Global, args: EvalArgs) -> anyhow::Result<Done> {
    let options = args.options();
    if let Some(problem) = options.problem() {
        return Err(UsageError(problem).into());
    }
    let dataset = eval::load_dataset(&args.dataset)?;
    for w in &dataset.warnings {
        eprintln!("warning: {w}");
    }
    let questions = dataset.kind == DatasetKind::Questions;
    if questions {
        if let Some(flag) = args.article_only_flag() {
            return Err(UsageError(format!(
                "{flag} applies to article datasets; {} is a question dataset",
                dataset.name
            ))
            .into());
        }
    }
    // The person's settings are the bottom layer; flags are applied by the eval itself
    // (flags > case > sidecar > settings).
    let settings = context::settings(global, Overrides::default())?;
    // A question dataset is asked of the wiki in the data dir: it must be there already.
    let wiki = if questions {
        Some(eval::question_wiki(&settings.data_dir)?)
    } else {
        None
    };
    let keys = context::keyring();
    let rt = context::runtime()?;
    let plan = rt.block_on(eval::prepare(&dataset, &settings, &keys, &options))?;
    if let Some(e) = &plan.server_down {
        eprintln!("error: {e}");
        return Ok(Done::Failed);
    }
    if questions {
        eprintln!(
            "asking {} ({} question(s)) of the wiki in {} and of its raw sources with {}: {} run(s)",
            dataset.name,
            dataset.len(),
            settings.data_dir.display(),
            plan.models().join(", "),
            plan.runs.len()
        );
    } else {
        eprintln!(
            "evaluating {} ({} case(s)) with {}: {} run(s)",
            dataset.name,
            dataset.len(),
            plan.models().join(", "),
            plan.runs.len()
        );
    }
    let judges = plan.judges();
    if !judges.is_empty() {
        eprintln!("judging articles (llm_judge) with {}", judges.join(", "));
    }
    let bar = progress_bar(global, plan.runs.len());
    let progress = progress_printer(bar.clone());
    let cancel = CancellationToken::new();
    let out = args.out.as_deref();
    let shown = rt.block_on(async {
        context::cancel_on_signals(cancel.clone());
        match &wiki {
            Some(wiki) => Shown::of(
                eval::evaluate_questions(
                    &dataset, wiki, &settings, &keys, &options, out, &progress, &cancel,
                )
                .await?,
                |r| r.to_table(),
            ),
            None => Shown::of(
                eval::evaluate(
                    &dataset, &settings, &keys, &options, out, &progress, &cancel,
                )
                .await?,
                |r| r.to_table(),
            ),
        }
    })?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    print_outcome(global, &shown)
}

/// What is shown of an eval, whatever its kind: the report as JSON and as a table, where
/// it was written, how it ended.
struct Shown {
    json: serde_json::Value,
    table: String,
    files: OutputFiles,
    verdict: EvalVerdict,
}

impl Shown {
    /// `outcome`, its report laid out by `table`.
    fn of<M: Serialize>(
        outcome: eval::EvalOutcome<M>,
        table: impl FnOnce(&eval::Report<M>) -> String,
    ) -> anyhow::Result<Shown> {
        Ok(Shown {
            json: serde_json::to_value(&outcome.report)?,
            table: table(&outcome.report),
            files: outcome.files,
            verdict: outcome.verdict,
        })
    }
}

impl EvalArgs {
    /// The first flag given that only an article dataset uses.
    fn article_only_flag(&self) -> Option<&'static str> {
        [
            (self.compare_freeform, "--compare-freeform"),
            (self.judge_model.is_some(), "--judge-model"),
            (self.judge_provider.is_some(), "--judge-provider"),
            (self.judge_base_url.is_some(), "--judge-base-url"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The options the eval applies over the dataset.
    fn options(&self) -> EvalOptions {
        EvalOptions {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            models: self.models.clone(),
            repeat: self.repeat,
            concurrency: self.concurrency,
            compare_freeform: self.compare_freeform,
            judge_provider: self.judge_provider.clone(),
            judge_base_url: self.judge_base_url.clone(),
            judge_model: self.judge_model.clone(),
            allow_dataset_servers: self.allow_dataset_servers,
        }
    }
}

/// A bar on a terminal (not with `--json`); elsewhere progress is a line per run.
fn progress_bar(global: &Global, runs: usize) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() || global.json {
        return None;
    }
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// Shows each finished run on the bar, or as a line on standard error.
fn progress_printer(bar: Option<ProgressBar>) -> impl Fn(EvalProgress) + Send + Sync {
    move |p: EvalProgress| {
        let line = format!(
            "{} {} {}",
            if p.ok { "ok    " } else { "failed" },
            p.case_id,
            p.model
        );
        match &bar {
            Some(b) => {
                b.set_position(p.done as u64);
                b.set_message(wikimind::terminal::printable(&line).into_owned());
            }
            None => eprintln!("[{}/{}] {line}", p.done, p.total),
        }
    }
}

/// The report (a table, or JSON), where it was written, and how the eval ended.
fn print_outcome(global: &Global, outcome: &Shown) -> anyhow::Result<Done> {
    if global.json {
        print_json(&outcome.json)?;
    } else {
        let mut stdout = crate::context::out();
        write!(stdout, "{}", outcome.table)?;
        writeln!(stdout)?;
    }
    let files = &outcome.files;
    eprintln!(
        "wrote {}, {} and {}",
        files.report_json.display(),
        files.results_jsonl.display(),
        files.report_html.display()
    );
    match outcome.verdict {
        EvalVerdict::Complete => Ok(Done::Success),
        EvalVerdict::Interrupted => {
            eprintln!("interrupted: the report covers the runs that finished");
            Ok(Done::Failed)
        }
        EvalVerdict::NoModelAnswered => {
            eprintln!("error: no model answered; see the reasons in results.jsonl");
            Ok(Done::Failed)
        }
    }
}
