//! `wikimind compile`: compile sources into articles, with live progress.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use wikimind::compile::{Progress, Stage};
use wikimind::config::Overrides;
use wikimind::llm::{CancellationToken, ProviderKind};
use wikimind::store::{SourceId, SourceStatus};

use crate::context::{self, print_json};
use crate::{Done, Global};

/// Arguments of `wikimind compile`.
#[derive(Debug, Args)]
pub struct CompileArgs {
    /// Sources to compile: ids, paths, URLs or exact article titles (none: `--all`).
    #[arg(value_name = "SOURCE")]
    sources: Vec<String>,
    /// Every source that is pending, failed, stale or left queued by an interrupted run.
    #[arg(long, conflicts_with = "sources")]
    all: bool,
    /// Recompile sources that are already compiled.
    #[arg(long)]
    force: bool,
    /// `ollama`, `openai` (an OpenAI-compatible server) or `builtin` (a GGUF model run
    /// in-process; builds with the `builtin` feature).
    #[arg(long)]
    provider: Option<String>,
    /// The GGUF model file for `--provider builtin` (default: the model directory,
    /// $WIKIMIND_MODEL_PATH or $XDG_CACHE_HOME/wikimind/models).
    #[arg(long, value_name = "FILE")]
    model_path: Option<std::path::PathBuf>,
    /// The server's base URL.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model to ask.
    #[arg(long)]
    model: Option<String>,
    /// Compiles running at once.
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
}

/// Runs `wikimind compile`.
pub fn run(global: &Global, args: CompileArgs) -> anyhow::Result<Done> {
    let settings = context::settings(
        global,
        Overrides {
            provider: args.provider.clone(),
            base_url: args.base_url.clone(),
            model: args.model.clone(),
            model_path: args.model_path.clone(),
            concurrency: args.concurrency,
            ..Overrides::default()
        },
    )?;
    let wiki = context::open(&settings)?;
    let store = wiki.store();
    let recovered = store.recover_interrupted()?;
    if recovered > 0 {
        eprintln!("resuming {recovered} compile(s) an earlier run left unfinished");
    }
    let mut ids: Vec<SourceId> = Vec::new();
    if args.sources.is_empty() {
        ids.extend(
            store
                .sources_to_compile(args.force)?
                .into_iter()
                .map(|s| s.id),
        );
    } else {
        for key in &args.sources {
            let id = context::find_source(&wiki, key)?;
            let status = store.source(id)?.map(|s| s.status);
            if status == Some(SourceStatus::Compiled) && !args.force {
                eprintln!("#{id} is already compiled (use --force to recompile)");
                continue;
            }
            ids.push(id);
        }
    }
    let rt = context::runtime()?;
    let compiler = wiki.compiler(&settings)?;
    for problem in wiki.prompt_problems() {
        eprintln!("warning: {problem}");
    }

    // Preflight: a provider that is down is said once, in words a person can act on,
    // before any source is touched.
    let primary = settings.provider();
    if settings.providers.len() == 1 && !ids.is_empty() {
        let slot = wikimind::compile::providers_from_settings(&settings)?.remove(0);
        if let Err(e) = rt.block_on(slot.provider.list_models()) {
            if e.is_transport() || primary.kind == ProviderKind::Builtin {
                eprintln!("error: {e}");
                if e.is_transport() {
                    eprintln!("{}", crate::cmd_manage::builtin_offer(&settings));
                }
                return Ok(Done::Failed);
            }
        }
    }

    let queued_before = store
        .jobs()?
        .iter()
        .filter(|j| j.state.as_str() == "queued")
        .count();
    if ids.is_empty() && queued_before == 0 {
        if global.json {
            print_json(&Vec::<()>::new())?;
        } else {
            eprintln!("nothing to compile");
        }
        return Ok(Done::Success);
    }
    eprintln!(
        "compiling {} source(s) with {} {} at {}",
        ids.len().max(queued_before),
        primary.kind.as_str(),
        primary.model,
        primary.base_url
    );

    let display = Display::new(std::io::stderr().is_terminal() && !global.json);
    let events: Arc<wikimind::compile::ProgressFn> = {
        let display = Arc::clone(&display);
        Arc::new(move |p: Progress| display.update(&p))
    };
    let cancel = CancellationToken::new();
    let reports = rt.block_on(async {
        context::cancel_on_signals(cancel.clone());
        compiler.compile_queued(&ids, events, cancel.clone()).await
    })?;
    display.finish();

    if global.json {
        print_json(&reports)?;
    } else {
        let mut out = std::io::stdout().lock();
        for r in &reports {
            if r.ok {
                writeln!(
                    out,
                    "compiled  #{:<4} {}{}",
                    r.source_id,
                    r.title.as_deref().unwrap_or(""),
                    if r.truncated {
                        "  (from a cut-off answer)"
                    } else {
                        ""
                    }
                )?;
                for w in &r.warnings {
                    writeln!(out, "          note: {w}")?;
                }
            } else {
                writeln!(
                    out,
                    "failed    #{:<4} {}",
                    r.source_id,
                    r.reason.as_deref().unwrap_or("unknown reason")
                )?;
            }
        }
        let ok = reports.iter().filter(|r| r.ok).count();
        writeln!(out, "{ok} compiled, {} failed", reports.len() - ok)?;
    }
    if cancel.is_cancelled() {
        eprintln!(
            "interrupted: unfinished compiles stay queued and resume with `wikimind compile`"
        );
        return Ok(Done::Failed);
    }
    let ok: HashMap<SourceId, bool> = reports.iter().map(|r| (r.source_id, r.ok)).collect();
    let all_ok =
        ids.iter().all(|id| ok.get(id).copied().unwrap_or(false)) && reports.iter().all(|r| r.ok);
    Ok(if all_ok { Done::Success } else { Done::Failed })
}

/// Progress on the terminal: a bar per job on a TTY, a line per stage change otherwise.
struct Display {
    bars: Option<MultiProgress>,
    state: Mutex<HashMap<SourceId, (ProgressBar, Stage)>>,
}

impl Display {
    fn new(tty: bool) -> Arc<Display> {
        Arc::new(Display {
            bars: tty.then(MultiProgress::new),
            state: Mutex::new(HashMap::new()),
        })
    }

    fn update(&self, p: &Progress) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let title = p.title.as_deref().unwrap_or("");
        let line = match p.stage {
            Stage::Reading => format!(
                "#{} reading in parts: {}",
                p.source_id,
                p.message.as_deref().unwrap_or("")
            ),
            Stage::Prompting => format!(
                "#{} prompting {} (attempt {})",
                p.source_id, p.provider, p.attempt
            ),
            Stage::Receiving => format!("#{} receiving {} chars {title}", p.source_id, p.chars),
            Stage::Parsing => format!("#{} parsing {} chars", p.source_id, p.chars),
            Stage::Saving => format!("#{} saving {title}", p.source_id),
            Stage::Compiled => format!("#{} compiled {title}", p.source_id),
            Stage::Failed => format!(
                "#{} failed: {}",
                p.source_id,
                p.message.as_deref().unwrap_or("")
            ),
        };
        match &self.bars {
            Some(multi) => {
                let entry = state.entry(p.source_id).or_insert_with(|| {
                    let bar = multi.add(ProgressBar::new_spinner());
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    bar.enable_steady_tick(std::time::Duration::from_millis(120));
                    (bar, p.stage)
                });
                entry.0.set_message(line);
                if matches!(p.stage, Stage::Compiled) {
                    entry.0.finish();
                }
                entry.1 = p.stage;
            }
            None => {
                let changed = match state.get(&p.source_id) {
                    Some((_, stage)) => *stage != p.stage,
                    None => true,
                };
                if changed {
                    let mut err = std::io::stderr().lock();
                    let _ = writeln!(err, "{line}");
                    state.insert(p.source_id, (ProgressBar::hidden(), p.stage));
                }
            }
        }
    }

    fn finish(&self) {
        if let Ok(state) = self.state.lock() {
            for (bar, _) in state.values() {
                bar.finish_and_clear();
            }
        }
    }
}
