//! `wikimind eval`: run a dataset through the real compile pipeline and report how each
//! model does. Glue over `wikimind::eval`.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use wikimind::config::Overrides;
use wikimind::eval::{self, EvalOptions, EvalProgress};
use wikimind::llm::{CancellationToken, ProviderKind};

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// Arguments of `wikimind eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The dataset: a .jsonl file (one case per line, optional sidecar .yaml beside it) or a
    /// .yaml/.yml file with a `cases:` list.
    #[arg(value_name = "DATASET")]
    dataset: PathBuf,
    /// `ollama` or `openai` (wins over the dataset).
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
    /// Compiles running at once (default: the compile setting, 2).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Where to write report.json, results.jsonl and report.html
    /// (default: eval-out/DATASET-TIME).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also ask for a free-form markdown article of each source and compare output tokens.
    #[arg(long)]
    compare_freeform: bool,
}

/// Runs `wikimind eval`.
pub fn run(global: &Global, args: EvalArgs) -> anyhow::Result<Done> {
    if let Some(p) = &args.provider {
        if ProviderKind::parse(p).is_none() {
            return Err(UsageError(format!(
                "--provider {p:?}: unknown provider (expected ollama or openai)"
            ))
            .into());
        }
    }
    if args.repeat == Some(0) {
        return Err(UsageError("--repeat must be at least 1".into()).into());
    }
    if args.concurrency == Some(0) {
        return Err(UsageError("--concurrency must be at least 1".into()).into());
    }
    let dataset = eval::load_dataset(&args.dataset)?;
    for w in &dataset.warnings {
        eprintln!("warning: {w}");
    }
    // The person's settings are the bottom layer; flags are applied by the eval itself
    // (flags > case > sidecar > settings).
    let settings = context::settings(global, Overrides::default())?;
    let options = EvalOptions {
        provider: args.provider.clone(),
        base_url: args.base_url.clone(),
        models: args.models.clone(),
        repeat: args.repeat,
        concurrency: args.concurrency,
        compare_freeform: args.compare_freeform,
    };
    let runs = eval::plan_runs(&dataset, &settings, &options)?;
    let keys = context::keyring();
    let providers = eval::run::providers_for(&runs, &settings, &keys)?;
    let rt = context::runtime()?;

    // Preflight: a server that is down is said once, before anything runs.
    let mut checked = HashSet::new();
    for ((kind, url), provider) in &providers {
        if checked.insert((kind.as_str(), url.clone())) {
            if let Err(e) = rt.block_on(provider.list_models()) {
                if e.is_transport() {
                    eprintln!("error: {e}");
                    return Ok(Done::Failed);
                }
            }
        }
    }
    let mut labels: Vec<String> = Vec::new();
    for r in &runs {
        let l = r.execution.label();
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    eprintln!(
        "evaluating {} ({} case(s)) with {}: {} run(s)",
        dataset.name,
        dataset.cases.len(),
        labels.join(", "),
        runs.len()
    );

    let bar = if std::io::stderr().is_terminal() && !global.json {
        let bar = ProgressBar::new(runs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let progress = {
        let bar = bar.clone();
        Arc::new(move |p: EvalProgress| {
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
        })
    };
    let cancel = CancellationToken::new();
    let result = rt.block_on(async {
        context::cancel_on_signals(cancel.clone());
        eval::run_eval(&dataset, &settings, &keys, &options, &*progress, &cancel).await
    })?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let report = eval::build_report(&dataset, &result);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| eval::default_out_dir(&dataset));
    let files = eval::write_outputs(&out, &report, &result.results)?;

    if global.json {
        print_json(&report)?;
    } else {
        let mut stdout = crate::context::out();
        write!(stdout, "{}", report.to_table())?;
        writeln!(stdout)?;
    }
    eprintln!(
        "wrote {}, {} and {}",
        files.report_json.display(),
        files.results_jsonl.display(),
        files.report_html.display()
    );
    if result.cancelled {
        eprintln!("interrupted: the report covers the runs that finished");
        return Ok(Done::Failed);
    }
    let all_down = !result.results.is_empty()
        && result
            .results
            .iter()
            .all(|r| r.first_answer == wikimind::compile::AnswerClass::ProviderError && !r.ok);
    if all_down {
        eprintln!("error: no model answered; see the reasons in results.jsonl");
        return Ok(Done::Failed);
    }
    Ok(Done::Success)
}
