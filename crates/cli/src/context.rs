//! Opening the wiki and resolving settings for a command.

use std::io::Write;

use anyhow::Context;
use serde::Serialize;
use wikimind::config::{Overrides, Settings};
use wikimind::llm::SystemKeyring;
use wikimind::terminal::Printable;
use wikimind::wiki::Wiki;
use wikimind::SourceId;

use crate::{Global, UsageError};

/// The flags that choose the model server, shared by every command that asks a model
/// (`compile`, `ask`, `mcp`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProviderFlags {
    /// `ollama`, `openai` (an OpenAI-compatible server) or `builtin` (a GGUF model run
    /// in-process; builds with the `builtin` feature).
    #[arg(long)]
    pub provider: Option<String>,
    /// The GGUF model file for `--provider builtin` (default: the model directory,
    /// $WIKIMIND_MODEL_PATH or $XDG_CACHE_HOME/wikimind/models).
    #[arg(long, value_name = "FILE")]
    pub model_path: Option<std::path::PathBuf>,
    /// The server's base URL.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model to ask.
    #[arg(long)]
    pub model: Option<String>,
}

impl ProviderFlags {
    /// The settings these flags change.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            model_path: self.model_path.clone(),
            ..Overrides::default()
        }
    }
}

/// Resolves settings with this command's flags, API keys from the OS [`keyring`].
pub fn settings(global: &Global, mut overrides: Overrides) -> anyhow::Result<Settings> {
    overrides.data_dir = global.data_dir.clone();
    Ok(Settings::load(&overrides, &keyring())?)
}

/// Where the CLI keeps API keys: the OS keyring under the service `wikimind`.
pub fn keyring() -> SystemKeyring {
    SystemKeyring::new()
}

/// Opens the wiki in the resolved data directory.
pub fn open(settings: &Settings) -> anyhow::Result<Wiki> {
    Ok(Wiki::open_for_shell(settings, &mut |notice| {
        eprintln!("{notice}")
    })?)
}

/// Finds a source by id, path (as given or canonical), URL or exact article title.
pub fn find_source(wiki: &Wiki, key: &str) -> anyhow::Result<SourceId> {
    wiki.find_source(key)?
        .ok_or_else(|| no_such_source(key).into())
}

/// The usage error for a name that matches no source.
pub fn no_such_source(key: &str) -> UsageError {
    UsageError(format!(
        "no source matches {key:?} (give an id, a path, a URL or an article title; \
         `wikimind sources` lists them)"
    ))
}

/// Standard output for people: what could act on a terminal is shown, not sent
/// ([`wikimind::terminal`]). JSON goes to plain standard output ([`print_json`]).
pub fn out() -> Printable<std::io::StdoutLock<'static>> {
    Printable::new(std::io::stdout().lock())
}

/// Standard error, under the same rule as [`out`].
pub fn err() -> Printable<std::io::StderrLock<'static>> {
    Printable::new(std::io::stderr().lock())
}

/// Prints a value as one line of JSON.
pub fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Cancels `token` on Ctrl+C or, on Unix, SIGTERM (what `timeout`, `kill` and service
/// managers send): the work stops cleanly and what finished is reported and kept. Call
/// from inside the runtime.
pub fn cancel_on_signals(token: wikimind::llm::CancellationToken) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        r = tokio::signal::ctrl_c() => if r.is_err() { return },
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    if tokio::signal::ctrl_c().await.is_err() {
                        return;
                    }
                }
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        token.cancel();
    });
}

/// A tokio runtime for commands that do network IO.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}
