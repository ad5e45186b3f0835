//! Changing and exporting the wiki: `rm`, `export`, `providers`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use wikimind::config::{Overrides, Settings};
use wikimind::provider_check::{check_providers, BuiltinOffer, ProvidersReport};

use crate::context::{self, print_json};
use crate::{Done, Global};

/// Arguments of `wikimind rm`.
#[derive(Debug, Args)]
pub struct RmArgs {
    /// The source: id, path, URL or its digest's title.
    #[arg(value_name = "SOURCE")]
    source: String,
}

/// Runs `wikimind rm`.
pub fn rm(global: &Global, args: RmArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let id = context::find_source(&wiki, &args.source)?;
    let removed = wiki.remove_source(id)?;
    if global.json {
        print_json(&json!({"source_id": id, "removed": removed}))?;
    } else {
        writeln!(
            crate::context::out(),
            "removed source #{id} and its digest; the pages it fed were updated"
        )?;
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The folder to write the markdown files to (created if needed).
    dir: PathBuf,
}

/// Runs `wikimind export`.
pub fn export(global: &Global, args: ExportArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let report = wiki.export_markdown(&args.dir)?;
    if global.json {
        print_json(&report)?;
    } else {
        writeln!(
            crate::context::out(),
            "wrote {} page(s) and {} digest(s) to {}",
            report.files.len(),
            report.digests.len(),
            args.dir.display()
        )?;
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind providers`.
#[derive(Debug, Args)]
pub struct ProvidersArgs {
    /// Connect to each provider and list its models.
    #[arg(long)]
    test: bool,
    /// Read an API key from standard input and store it in the OS keyring for the primary
    /// provider's server (its base URL); it is never written to a file.
    #[arg(long, conflicts_with = "test")]
    set_key: bool,
}

/// Runs `wikimind providers`.
pub fn providers(global: &Global, args: ProvidersArgs) -> anyhow::Result<Done> {
    let settings = context::settings(global, Overrides::default())?;
    if args.set_key {
        return set_key(global, &settings);
    }
    let report = context::runtime()?.block_on(check_providers(&settings, args.test))?;
    if global.json {
        print_providers_json(&report)?;
    } else {
        print_providers(&report)?;
    }
    Ok(if report.all_reachable() {
        Done::Success
    } else {
        Done::Failed
    })
}

/// The providers as a JSON list: one row per provider, then the offer row, if any.
fn print_providers_json(report: &ProvidersReport) -> anyhow::Result<()> {
    let mut rows = report
        .providers
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(offer) = &report.offer {
        rows.push(json!({
            "role": "offer",
            "kind": "builtin",
            "available": offer.available,
            "model_path": offer.model_file.as_ref().map(|p| p.display().to_string()),
            "hint": builtin_offer(offer),
        }));
    }
    print_json(&rows)
}

/// The providers for people, each with what its test found, then the offer, if any.
fn print_providers(report: &ProvidersReport) -> anyhow::Result<()> {
    let mut out = crate::context::out();
    for p in &report.providers {
        writeln!(
            out,
            "{}: {} at {} (model {})",
            p.role, p.kind, p.base_url, p.model
        )?;
        if let Some(e) = &p.error {
            writeln!(out, "  not reachable: {e}")?;
        } else if let Some(models) = &p.models {
            let listed = if models.is_empty() {
                "(none listed)".to_string()
            } else {
                models.join(", ")
            };
            writeln!(out, "  reachable; models: {listed}")?;
            if p.model_available == Some(false) {
                writeln!(out, "  the model {} is not on this server", p.model)?;
            }
        }
    }
    if let Some(offer) = &report.offer {
        writeln!(out, "{}", builtin_offer(offer))?;
    }
    Ok(())
}

/// How to compile with the built-in engine instead of a server, for this build and this
/// machine's model directory.
pub fn builtin_offer(offer: &BuiltinOffer) -> String {
    if !offer.available {
        return "no model server is reachable; the built-in engine compiles without one: rebuild with `cargo build --release -p wikimind-cli --features builtin` and fetch a model with `bash scripts/fetch-model.sh`".to_string();
    }
    match &offer.model_file {
        Some(model) => format!(
            "no model server is reachable; the built-in engine can compile without one:\n  wikimind compile --provider builtin --model-path {}",
            model.display()
        ),
        None => format!(
            "no model server is reachable; the built-in engine can compile without one once it has a model file: `bash scripts/fetch-model.sh` saves one in {}, then `wikimind compile --provider builtin`",
            offer
                .model_dir
                .as_ref()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|| "$WIKIMIND_MODEL_PATH".to_string())
        ),
    }
}

/// `providers --set-key`: the key from standard input into the OS keyring, for the primary
/// provider's server.
fn set_key(global: &Global, settings: &Settings) -> anyhow::Result<Done> {
    use std::io::Read;
    let primary = settings.provider();
    let mut key = String::new();
    std::io::stdin()
        .take(64 * 1024)
        .read_to_string(&mut key)
        .map_err(|e| anyhow::anyhow!("cannot read the key from standard input: {e}"))?;
    settings.save_key(primary.kind, &primary.base_url, &key, &context::keyring())?;
    let id = wikimind::llm::key_id(&primary.base_url);
    if global.json {
        print_json(&json!({"stored_for": id}))?;
    } else {
        writeln!(
            crate::context::out(),
            "stored the API key for {id} in the OS keyring"
        )?;
    }
    Ok(Done::Success)
}
