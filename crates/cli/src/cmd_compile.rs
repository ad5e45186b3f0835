//! `wikimind compile`: compile sources into articles, with live progress.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use wikimind::config::Overrides;
use wikimind::llm::{CancellationToken, ProviderKind};
use wikimind::queue::JobRunner;
use wikimind::store::{JobId, JobState, SourceId, Store};
use wikimind::view::{JobProgress, StageView};

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
    let selection = wiki.compile_selection(&args.sources, args.force)?;
    if let Some(key) = selection.unknown.first() {
        return Err(crate::UsageError(format!(
            "no source matches {key:?} (give an id, a path, a URL or an article title; \
             `wikimind sources` lists them)"
        ))
        .into());
    }
    for id in &selection.already_compiled {
        eprintln!("#{id} is already compiled (use --force to recompile)");
    }
    let display = Display::new(std::io::stderr().is_terminal() && !global.json);
    let runner = {
        let display = Arc::clone(&display);
        JobRunner::new(
            wiki.clone(),
            settings.clone(),
            Arc::new(context::keyring()),
            Box::new(move |p: &JobProgress| display.update(p)),
        )
    };
    let recovered = runner.recover()?;
    if recovered > 0 {
        eprintln!("resuming {recovered} compile(s) an earlier run left unfinished");
    }
    let rt = context::runtime()?;
    for problem in wiki.prompt_problems() {
        eprintln!("warning: {problem}");
    }

    // Preflight: a provider that is down is said once, in words a person can act on,
    // before any source is touched.
    let primary = settings.provider();
    if settings.providers.len() == 1 && !selection.sources.is_empty() {
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

    let waiting = wiki.store().recent_jobs(0)?;
    if selection.sources.is_empty() && waiting.is_empty() {
        if global.json {
            print_json(&Vec::<()>::new())?;
        } else {
            eprintln!("nothing to compile");
        }
        return Ok(Done::Success);
    }
    eprintln!(
        "compiling {} source(s) with {} {} at {}",
        selection.sources.len().max(waiting.len()),
        primary.kind.as_str(),
        primary.model,
        primary.base_url
    );

    let jobs = runner.enqueue(&selection.sources, None)?;
    let cancel = CancellationToken::new();
    let asked = jobs.clone();
    let own = rt.block_on(async {
        context::cancel_on_signals(cancel.clone());
        runner
            .run_until(&cancel, move |store| all_ended(store, &asked))
            .await
    })?;
    display.finish();
    let reports = runner.reports(&jobs, own)?;

    if global.json {
        print_json(&reports)?;
    } else {
        let mut out = crate::context::out();
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
    let all_ok = selection
        .sources
        .iter()
        .all(|id| ok.get(id).copied().unwrap_or(false))
        && reports.iter().all(|r| r.ok);
    Ok(if all_ok { Done::Success } else { Done::Failed })
}

/// Whether every job asked for has ended, whoever ran it. A store that cannot be read
/// says no: the next take of a job reports its error.
fn all_ended(store: &Store, jobs: &[JobId]) -> bool {
    jobs.iter().all(|id| match store.job(*id) {
        Ok(job) => !matches!(
            job.map(|j| j.state),
            Some(JobState::Queued | JobState::Running)
        ),
        Err(_) => false,
    })
}

/// Progress on the terminal: a bar per job on a TTY, a line per stage change otherwise.
struct Display {
    bars: Option<MultiProgress>,
    state: Mutex<HashMap<i64, (ProgressBar, StageView)>>,
}

impl Display {
    fn new(tty: bool) -> Arc<Display> {
        Arc::new(Display {
            bars: tty.then(MultiProgress::new),
            state: Mutex::new(HashMap::new()),
        })
    }

    fn update(&self, p: &JobProgress) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let id = p.source_id;
        let title = p.title.as_deref().unwrap_or("");
        let message = p.message.as_deref().unwrap_or("");
        let line = match p.stage {
            StageView::Queued => format!("#{id} queued"),
            StageView::Reading => format!("#{id} reading in parts: {message}"),
            StageView::Prompting if !message.is_empty() => format!("#{id} {message}"),
            StageView::Prompting => format!(
                "#{id} prompting {} (attempt {})",
                p.provider,
                p.attempt.max(1)
            ),
            StageView::Receiving => format!("#{id} receiving {} pieces {title}", p.received),
            StageView::Parsing => format!("#{id} parsing the answer"),
            StageView::Saving => format!("#{id} saving {title}"),
            StageView::Compiled => format!("#{id} compiled {title}"),
            StageView::Failed => format!("#{id} failed: {message}"),
            StageView::Cancelled => format!("#{id} stopped: {message}"),
        };
        let ended = matches!(
            p.stage,
            StageView::Compiled | StageView::Failed | StageView::Cancelled
        );
        match &self.bars {
            Some(multi) => {
                let entry = state.entry(id).or_insert_with(|| {
                    let bar = multi.add(ProgressBar::new_spinner());
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    bar.enable_steady_tick(std::time::Duration::from_millis(120));
                    (bar, p.stage)
                });
                entry
                    .0
                    .set_message(wikimind::terminal::printable(&line).into_owned());
                if ended {
                    entry.0.finish();
                }
                entry.1 = p.stage;
            }
            None => {
                let changed = match state.get(&id) {
                    Some((_, stage)) => *stage != p.stage,
                    None => true,
                };
                if changed && p.stage != StageView::Queued {
                    let mut err = crate::context::err();
                    let _ = writeln!(err, "{line}");
                }
                state.insert(id, (ProgressBar::hidden(), p.stage));
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
