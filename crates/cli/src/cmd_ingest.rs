//! `wikimind ingest PATH|URL|- …` and `--urls FILE`: store sources for compiling.

use std::io::{IsTerminal, Write};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use wikimind::config::Overrides;
use wikimind::ingest::{ReadingProgress, ReadingSink};
use wikimind::wiki::IngestSummary;
use wikimind::Landed;

use crate::context::{self, print_json};
use crate::{Done, Global};

/// Arguments of `wikimind ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files (markdown, text, HTML, PDF, EPUB, DOCX), folders, http(s) URLs, or `-` for
    /// standard input.
    #[arg(required_unless_present = "urls", value_name = "PATH|URL|-")]
    inputs: Vec<String>,
    /// A file listing URLs to fetch, one per line (`#` starts a comment line); a URL that
    /// fails is named and the others are kept.
    #[arg(long, value_name = "FILE")]
    urls: Option<std::path::PathBuf>,
    /// A title for text read from standard input.
    #[arg(long)]
    title: Option<String>,
}

/// Runs `wikimind ingest`.
pub fn run(global: &Global, args: IngestArgs) -> anyhow::Result<Done> {
    let urls = match &args.urls {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                anyhow::anyhow!("{}: cannot read the URL list: {e}", file.display())
            })?;
            Some(wikimind::wiki::url_list(&text))
        }
        None => None,
    };
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    // A large document's pages as they are read, on a terminal: `Reading paper.pdf: page
    // 120 of 300`, cleared when the ingest ends.
    let reading = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::hidden();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar
    });
    let wiki = match &reading {
        Some(bar) => {
            let bar = bar.clone();
            wiki.with_reading_progress(ReadingSink(std::sync::Arc::new(
                move |p: &ReadingProgress| {
                    if !p.reading {
                        // Read: the line goes until the next document's reading.
                        bar.set_draw_target(ProgressDrawTarget::hidden());
                        return;
                    }
                    if bar.is_hidden() {
                        bar.set_draw_target(ProgressDrawTarget::stderr());
                    }
                    bar.set_message(p.line.clone());
                    bar.tick();
                },
            )))
        }
        None => wiki,
    };
    let mut stdin = std::io::stdin().lock();
    let runtime = context::runtime()?;
    let mut run =
        runtime.block_on(wiki.ingest_inputs(&args.inputs, &mut stdin, args.title.as_deref()));
    if let Some(urls) = &urls {
        runtime.block_on(wiki.ingest_url_list(urls, &mut run));
    }
    if let Some(bar) = &reading {
        bar.finish_and_clear();
    }
    for e in &run.errors {
        eprintln!("error: {e}");
    }
    for failed in &run.failed {
        eprintln!("error: {}", failed.reason);
    }
    for warning in run.summary.sources.iter().flat_map(|s| &s.warnings) {
        eprintln!("warning: {warning}");
    }
    if global.json {
        if urls.is_some() {
            let mut object = serde_json::to_value(&run.summary)?;
            if let Some(map) = object.as_object_mut() {
                map.insert("failed".to_owned(), serde_json::to_value(&run.failed)?);
            }
            print_json(&object)?;
        } else {
            print_json(&run.summary)?;
        }
    } else {
        print_summary(&run.summary)?;
        if let Some(urls) = &urls {
            writeln!(
                crate::context::out(),
                "{} of {} listed URLs failed",
                run.failed.len(),
                urls.len()
            )?;
        }
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
    let documents = summary.documents();
    if !documents.is_empty() {
        let parts: Vec<String> = documents
            .iter()
            .map(|(format, n)| format!("{n} {}", format.to_uppercase()))
            .collect();
        writeln!(
            out,
            "{} read from documents: {}",
            documents.values().sum::<usize>(),
            parts.join(", ")
        )?;
    }
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
