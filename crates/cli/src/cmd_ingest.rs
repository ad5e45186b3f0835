//! `wikimind ingest PATH|URL|- …`: store sources for compiling.

use std::io::Write;

use clap::Args;
use wikimind::config::Overrides;
use wikimind::wiki::IngestSummary;
use wikimind::Landed;

use crate::context::{self, print_json};
use crate::{Done, Global};

/// Arguments of `wikimind ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files, folders, http(s) URLs, or `-` for standard input.
    #[arg(required = true, value_name = "PATH|URL|-")]
    inputs: Vec<String>,
    /// A title for text read from standard input.
    #[arg(long)]
    title: Option<String>,
}

/// Runs `wikimind ingest`.
pub fn run(global: &Global, args: IngestArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let mut stdin = std::io::stdin().lock();
    let run = context::runtime()?.block_on(wiki.ingest_inputs(
        &args.inputs,
        &mut stdin,
        args.title.as_deref(),
    ));
    for e in &run.errors {
        eprintln!("error: {e}");
    }
    for warning in run.summary.sources.iter().flat_map(|s| &s.warnings) {
        eprintln!("warning: {warning}");
    }
    if global.json {
        print_json(&run.summary)?;
    } else {
        print_summary(&run.summary)?;
    }
    Ok(if run.succeeded() {
        Done::Success
    } else {
        Done::Failed
    })
}

/// A line per source stored, the counts, and what was skipped, by reason.
fn print_summary(summary: &IngestSummary) -> anyhow::Result<()> {
    let mut out = crate::context::out();
    if summary.vault {
        writeln!(
            out,
            "an Obsidian vault: its settings, trash and attachments are not read"
        )?;
    }
    if summary.export {
        writeln!(
            out,
            "a WikiMind export: its pages are read, its sources/ and notes/ copies are not"
        )?;
    }
    for s in &summary.sources {
        writeln!(
            out,
            "{:>9}  #{:<4} {}",
            s.outcome,
            s.source_id,
            s.title.as_deref().unwrap_or(&s.origin)
        )?;
        if let Some(final_url) = &s.final_url {
            writeln!(out, "                 read from {final_url}")?;
        }
    }
    writeln!(
        out,
        "{} added, {} changed, {} unchanged",
        summary.count(Landed::Added),
        summary.count(Landed::Changed),
        summary.count(Landed::Unchanged)
    )?;
    if !summary.skipped.is_empty() {
        let parts: Vec<String> = summary
            .skipped_by_reason()
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        writeln!(
            out,
            "skipped {}: {}",
            summary.skipped.len(),
            parts.join(", ")
        )?;
    }
    Ok(())
}
