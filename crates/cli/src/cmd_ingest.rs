//! `wikimind ingest PATH|URL|- …`: store sources for compiling.

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;
use wikimind::config::Overrides;
use wikimind::wiki::IngestSummary;

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
    let settings = context::settings(global, Overrides::default())?;
    let wiki = context::open(&settings)?;
    let options = wiki.ingest_options().clone();
    let mut all = IngestSummary::default();
    let mut failed = false;
    let rt = context::runtime()?;
    for input in &args.inputs {
        let result = if input == "-" {
            // Read one byte past the limit: enough to tell that it is too large.
            let mut bytes = Vec::new();
            match std::io::stdin()
                .take(options.max_bytes.saturating_add(1))
                .read_to_end(&mut bytes)
            {
                Ok(_) => wiki.ingest_stdin_bytes(&bytes, args.title.as_deref(), options.max_bytes),
                Err(e) => {
                    eprintln!("error: cannot read standard input: {e}");
                    failed = true;
                    continue;
                }
            }
        } else if input.starts_with("http://") || input.starts_with("https://") {
            rt.block_on(wiki.ingest_url(input, &options))
        } else {
            wiki.ingest_path(&PathBuf::from(input), &options)
        };
        match result {
            Ok(mut summary) => {
                all.sources.append(&mut summary.sources);
                all.skipped.append(&mut summary.skipped);
            }
            Err(e) => {
                // One bad input does not lose the others; the run fails at the end.
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if global.json {
        print_json(&all)?;
    } else {
        let mut out = crate::context::out();
        for s in &all.sources {
            writeln!(
                out,
                "{:>9}  #{:<4} {}",
                s.outcome,
                s.source_id,
                s.title.as_deref().unwrap_or(&s.origin)
            )?;
        }
        let added = all.sources.iter().filter(|s| s.outcome == "added").count();
        let changed = all
            .sources
            .iter()
            .filter(|s| s.outcome == "changed")
            .count();
        let unchanged = all
            .sources
            .iter()
            .filter(|s| s.outcome == "unchanged")
            .count();
        writeln!(
            out,
            "{added} added, {changed} changed, {unchanged} unchanged"
        )?;
        if !all.skipped.is_empty() {
            let mut counts = std::collections::BTreeMap::new();
            for s in &all.skipped {
                *counts.entry(s.reason.label()).or_insert(0usize) += 1;
            }
            let parts: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
            writeln!(out, "skipped {}: {}", all.skipped.len(), parts.join(", "))?;
        }
    }
    Ok(if failed { Done::Failed } else { Done::Success })
}
