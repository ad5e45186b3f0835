//! Changing and exporting the wiki: `rm`, `export`, `providers`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use wikimind::config::{Overrides, Settings};
use wikimind::llm::{ProviderKind, HAS_BUILTIN};

use crate::context::{self, print_json};
use crate::{Done, Global};

/// Arguments of `wikimind rm`.
#[derive(Debug, Args)]
pub struct RmArgs {
    /// The source: id, path, URL or its article's title.
    #[arg(value_name = "SOURCE")]
    source: String,
}

/// Runs `wikimind rm`.
pub fn rm(global: &Global, args: RmArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let id = context::find_source(&wiki, &args.source)?;
    let removed = wiki.store().remove_source(id)?;
    if global.json {
        print_json(&json!({"source_id": id, "removed": removed}))?;
    } else {
        writeln!(
            crate::context::out(),
            "removed source #{id} and its article"
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
            "wrote {} article(s) to {}",
            report.files.len(),
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
    let slots = wikimind::compile::providers_from_settings(&settings)?;
    let rt = context::runtime()?;
    let mut rows = Vec::new();
    let mut all_ok = true;
    for (i, (cfg, slot)) in settings.providers.iter().zip(&slots).enumerate() {
        let mut row = json!({
            "role": if i == 0 { "primary".to_string() } else { format!("fallback {i}") },
            "kind": cfg.kind.as_str(),
            "base_url": cfg.base_url,
            "model": cfg.model,
            "api_key": cfg.api_key.is_some(),
        });
        if args.test {
            match rt.block_on(slot.provider.list_models()) {
                Ok(models) => {
                    let names: Vec<String> = models.into_iter().map(|m| m.name).collect();
                    row["reachable"] = json!(true);
                    row["model_available"] =
                        json!(wikimind::llm::model_available(cfg.kind, &cfg.model, &names));
                    row["models"] = json!(names);
                }
                Err(e) => {
                    all_ok = false;
                    row["reachable"] = json!(false);
                    row["error"] = json!(e.to_string());
                }
            }
        }
        rows.push(row);
    }
    // No server answers: say how to compile without one.
    let none_reachable = args.test
        && settings
            .providers
            .iter()
            .all(|p| p.kind != ProviderKind::Builtin)
        && rows.iter().all(|r| r["reachable"] == json!(false));
    if none_reachable {
        let model = settings.find_model_file();
        rows.push(json!({
            "role": "offer",
            "kind": "builtin",
            "available": HAS_BUILTIN,
            "model_path": model.as_ref().map(|p| p.display().to_string()),
            "hint": builtin_offer(&settings),
        }));
    }
    if global.json {
        print_json(&rows)?;
    } else {
        let mut out = crate::context::out();
        for row in &rows {
            if row["role"] == json!("offer") {
                writeln!(out, "{}", row["hint"].as_str().unwrap_or(""))?;
                continue;
            }
            writeln!(
                out,
                "{}: {} at {} (model {})",
                row["role"].as_str().unwrap_or(""),
                row["kind"].as_str().unwrap_or(""),
                row["base_url"].as_str().unwrap_or(""),
                row["model"].as_str().unwrap_or("")
            )?;
            if args.test {
                match row.get("error").and_then(|e| e.as_str()) {
                    Some(e) => writeln!(out, "  not reachable: {e}")?,
                    None => {
                        let models: Vec<&str> = row["models"]
                            .as_array()
                            .map(|m| m.iter().filter_map(|v| v.as_str()).collect())
                            .unwrap_or_default();
                        writeln!(
                            out,
                            "  reachable; models: {}",
                            if models.is_empty() {
                                "(none listed)".to_string()
                            } else {
                                models.join(", ")
                            }
                        )?;
                        if row["model_available"] == json!(false) {
                            writeln!(
                                out,
                                "  the model {} is not on this server",
                                row["model"].as_str().unwrap_or("")
                            )?;
                        }
                    }
                }
            }
        }
    }
    Ok(if all_ok { Done::Success } else { Done::Failed })
}

/// How to compile with the built-in engine instead of a server, for this build and this
/// machine's model directory.
pub fn builtin_offer(settings: &Settings) -> String {
    if !HAS_BUILTIN {
        return "no model server is reachable; the built-in engine compiles without one: rebuild with `cargo build --release -p wikimind-cli --features builtin` and fetch a model with `bash scripts/fetch-model.sh`".to_string();
    }
    match settings.find_model_file() {
        Some(model) => format!(
            "no model server is reachable; the built-in engine can compile without one:\n  wikimind compile --provider builtin --model-path {}",
            model.display()
        ),
        None => format!(
            "no model server is reachable; the built-in engine can compile without one once it has a model file: `bash scripts/fetch-model.sh` saves one in {}, then `wikimind compile --provider builtin`",
            settings
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
