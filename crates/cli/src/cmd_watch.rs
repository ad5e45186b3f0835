//! `wikimind watch`: keep the wiki in step with folders until Ctrl+C or SIGTERM.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::json;
use wikimind::config::Overrides;
use wikimind::llm::CancellationToken;
use wikimind::queue::JobRunner;
use wikimind::watch::{self, WatchError, WatchEvent, WatchOptions, Watcher};

use crate::context::{self, print_json, ProviderFlags};
use crate::{Done, Global, UsageError};

/// Arguments of `wikimind watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Folders to watch (none: the folders saved as watched).
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Add the DIRs to the saved watched folders (then watch them).
    #[arg(long, requires = "dirs")]
    save: bool,
    /// List the saved watched folders and exit.
    #[arg(long, conflicts_with_all = ["dirs", "save", "remove"])]
    list: bool,
    /// Take a folder off the saved list and exit (its sources stay).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["dirs", "save"])]
    remove: Option<PathBuf>,
    #[command(flatten)]
    provider: ProviderFlags,
    /// Compiles running at once.
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// How long a file must be quiet before its change is handled, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    debounce_ms: u64,
    /// How often every folder is rescanned whatever the events said, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    rescan_secs: u64,
}

/// Runs `wikimind watch`.
pub fn run(global: &Global, args: WatchArgs) -> anyhow::Result<Done> {
    let overrides = Overrides {
        concurrency: args.concurrency,
        ..args.provider.overrides()
    };
    let settings = context::settings(global, overrides)?;
    let wiki = context::open(&settings)?;
    if args.list {
        return list(global, &wiki);
    }
    if let Some(dir) = &args.remove {
        return remove(global, &wiki, dir);
    }
    if args.save {
        for dir in &args.dirs {
            let (path, added) = watch::save_folder(&wiki, dir)?;
            if added {
                eprintln!("saved {path} as a watched folder");
            }
        }
    }
    let runner = JobRunner::new(
        wiki.clone(),
        settings,
        Arc::new(context::keyring()),
        Box::new(|_| {}),
    );
    let options = WatchOptions {
        debounce: Duration::from_millis(args.debounce_ms.max(1)),
        rescan_every: Duration::from_secs(args.rescan_secs.max(1)),
        ..WatchOptions::default()
    };
    let watcher = match Watcher::new(&wiki, runner, &args.dirs, options) {
        Ok(w) => w,
        Err(e @ WatchError::NoFolders) => return Err(UsageError(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    let json = global.json;
    let rt = context::runtime()?;
    let stop = CancellationToken::new();
    rt.block_on(async {
        context::cancel_on_signals(stop.clone());
        watcher
            .run(&stop, &move |event: &WatchEvent| show(json, event))
            .await
    })?;
    Ok(Done::Success)
}

/// `watch --list`.
fn list(global: &Global, wiki: &wikimind::wiki::Wiki) -> anyhow::Result<Done> {
    let folders = watch::saved_folders(wiki)?;
    if global.json {
        print_json(&folders)?;
        return Ok(Done::Success);
    }
    let mut out = context::out();
    for f in &folders {
        let missing = if f.present { "" } else { "  (missing)" };
        writeln!(out, "{}{missing}", f.path)?;
    }
    if folders.is_empty() {
        eprintln!("no saved watched folders (save one with `wikimind watch --save DIR`)");
    }
    Ok(Done::Success)
}

/// `watch --remove DIR`.
fn remove(
    global: &Global,
    wiki: &wikimind::wiki::Wiki,
    dir: &std::path::Path,
) -> anyhow::Result<Done> {
    let Some(path) = watch::forget_folder(wiki, dir)? else {
        return Err(UsageError(format!(
            "{} is not a saved watched folder (`wikimind watch --list` lists them)",
            dir.display()
        ))
        .into());
    };
    if global.json {
        print_json(&json!({ "removed": path }))?;
    } else {
        writeln!(
            context::out(),
            "{path} is no longer watched; its sources stay"
        )?;
    }
    Ok(Done::Success)
}

/// Shows one event: a JSON line with `--json`, else a line for a person (what changed
/// the wiki on stdout, the rest on stderr).
fn show(json: bool, event: &WatchEvent) {
    if json {
        let _ = print_json(event);
        return;
    }
    let line = match event {
        WatchEvent::Watching { folders } => {
            eprintln!("watching {} (Ctrl+C stops)", folders.join(", "));
            return;
        }
        WatchEvent::Rescan { folder, reason } => {
            let why = serde_json::to_value(reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            eprintln!("rescanning {folder} ({why})");
            return;
        }
        WatchEvent::Listed {
            folder,
            files,
            documents,
        } => {
            eprintln!(
                "{folder}: {files} files to read, {documents} of them documents (PDF, EPUB, DOCX)"
            );
            return;
        }
        WatchEvent::Ingested {
            source_id,
            path,
            outcome,
        } => format!("{outcome:<9} #{source_id:<4} {path}"),
        WatchEvent::Moved {
            source_id,
            from,
            to,
        } => format!("moved     #{source_id:<4} {from} -> {to}"),
        WatchEvent::Removed { source_id, origin } => {
            format!("removed   #{source_id:<4} {origin}")
        }
        WatchEvent::Compiled {
            source_id,
            ok: true,
            title,
            ..
        } => format!(
            "compiled  #{source_id:<4} {}",
            title.as_deref().unwrap_or("")
        ),
        WatchEvent::Compiled {
            source_id, reason, ..
        } => format!(
            "failed    #{source_id:<4} {}",
            reason.as_deref().unwrap_or("unknown reason")
        ),
        WatchEvent::Page {
            title,
            outcome,
            reason,
            ..
        } => match reason {
            Some(reason) => format!("page {title:?}: {outcome}: {reason}"),
            None => format!("page {title:?}: {outcome}"),
        },
        WatchEvent::Skipped { path, reason } => {
            eprintln!("skipped {path}: {reason}");
            return;
        }
        WatchEvent::Unreadable { path, message } => {
            eprintln!("cannot read {path}: {message} (will try again)");
            return;
        }
        WatchEvent::Paused { message, .. } => {
            eprintln!("paused: {message}");
            return;
        }
        WatchEvent::Resumed { folder } => {
            eprintln!("resumed: {folder} is back");
            return;
        }
        WatchEvent::Warning { message } => {
            eprintln!("warning: {message}");
            return;
        }
        WatchEvent::Idle => return,
        WatchEvent::Stopped { interrupted } => {
            if *interrupted {
                eprintln!(
                    "stopped: the compile in flight stays queued and resumes with the next \
                     `wikimind watch` or `wikimind compile`"
                );
            } else {
                eprintln!("stopped");
            }
            return;
        }
    };
    let _ = writeln!(context::out(), "{line}");
}
