//! `wikimind compile`: compile sources into digests, then write the pages they changed,
//! with live progress.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use wikimind::compile::{CompileReport, PageOutcome, PageReport};
use wikimind::compile_run::{CompileOutcome, CompilePlan};
use wikimind::config::{Overrides, Settings};
use wikimind::llm::CancellationToken;
use wikimind::queue::{JobEvent, JobRunner};
use wikimind::view::{JobProgress, StageView};
use wikimind::JobTarget;

use crate::context::{self, print_json, ProviderFlags};
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
    #[command(flatten)]
    provider: ProviderFlags,
    /// Compiles running at once.
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
}

/// Runs `wikimind compile`.
pub fn run(global: &Global, args: CompileArgs) -> anyhow::Result<Done> {
    let settings = context::settings(global, args.overrides())?;
    let wiki = context::open(&settings)?;
    let display = Display::new(std::io::stderr().is_terminal() && !global.json);
    let runner = {
        let display = Arc::clone(&display);
        JobRunner::new(
            wiki.clone(),
            settings.clone(),
            Arc::new(context::keyring()),
            Box::new(move |e: &JobEvent| display.update(&JobProgress::from(e))),
        )
    };
    let rt = context::runtime()?;
    let plan = rt.block_on(CompilePlan::prepare(
        &wiki,
        &runner,
        &args.sources,
        args.force,
    ))?;
    if !print_plan(global, &settings, &plan)? {
        return Ok(Done::Failed);
    }
    if plan.is_empty() {
        return Ok(Done::Success);
    }
    let cancel = CancellationToken::new();
    let outcome = rt.block_on(async {
        context::cancel_on_signals(cancel.clone());
        plan.run(&runner, &cancel).await
    })?;
    display.finish();
    print_outcome(global, &outcome)?;
    // The health figures after the run, for the trend (`lint --trend`); a failure here
    // does not fail the compile.
    if let Err(e) = wikimind::lint::check_and_record(&wiki, wikimind::lint::Trigger::Compile) {
        eprintln!("warning: the wiki's health figures were not stored: {e}");
    }
    Ok(if outcome.succeeded() {
        Done::Success
    } else {
        Done::Failed
    })
}

impl CompileArgs {
    /// The settings these flags change.
    fn overrides(&self) -> Overrides {
        Overrides {
            concurrency: self.concurrency,
            ..self.provider.overrides()
        }
    }
}

/// Says what the plan decided, before anything runs. Returns whether the run may start;
/// a name that matches no source is a usage error.
fn print_plan(global: &Global, settings: &Settings, plan: &CompilePlan) -> anyhow::Result<bool> {
    if let Some(key) = plan.selection.unknown.first() {
        return Err(crate::context::no_such_source(key).into());
    }
    for id in &plan.selection.already_compiled {
        eprintln!("#{id} is already compiled (use --force to recompile)");
    }
    if plan.recovered > 0 {
        eprintln!(
            "resuming {} compile(s) an earlier run left unfinished",
            plan.recovered
        );
    }
    for problem in &plan.prompt_problems {
        eprintln!("warning: {problem}");
    }
    if let Some(down) = &plan.server_down {
        eprintln!("error: {}", down.error);
        if let Some(offer) = &down.offer {
            eprintln!("{}", crate::cmd_manage::builtin_offer(offer));
        }
        return Ok(false);
    }
    if plan.is_empty() {
        if global.json {
            print_json(&Vec::<()>::new())?;
        } else {
            eprintln!("nothing to compile");
        }
        return Ok(true);
    }
    let work = match (plan.count(), plan.stale_pages) {
        (0, pages) => format!("writing {pages} stale page(s)"),
        (sources, 0) => format!("compiling {sources} source(s)"),
        (sources, pages) => {
            format!("compiling {sources} source(s) (and {pages} stale page(s) to write)")
        }
    };
    if settings.pool {
        let members: Vec<String> = settings
            .providers
            .iter()
            .map(|m| format!("{} {} at {}", m.kind.as_str(), m.model, m.base_url))
            .collect();
        eprintln!(
            "{work} with a pool of {}: {}",
            members.len(),
            members.join(", ")
        );
    } else {
        let primary = settings.provider();
        eprintln!(
            "{work} with {} {} at {}",
            primary.kind.as_str(),
            primary.model,
            primary.base_url
        );
    }
    Ok(true)
}

/// Prints each compile's report, then each page job's (JSON: one list, see
/// [`json_reports`]), then, when interrupted, how to resume.
fn print_outcome(global: &Global, outcome: &CompileOutcome) -> anyhow::Result<()> {
    if global.json {
        print_json(&json_reports(outcome)?)?;
    } else {
        let mut out = crate::context::out();
        for r in &outcome.reports {
            print_report(&mut out, r)?;
        }
        for p in &outcome.pages {
            print_page(&mut out, p)?;
        }
        let ok = outcome.compiled();
        write!(out, "{ok} compiled, {} failed", outcome.reports.len() - ok)?;
        if !outcome.pages.is_empty() {
            let failed = outcome.pages_failed();
            write!(
                out,
                "; pages: {} written, {} unchanged, {failed} failed",
                outcome.pages_written(),
                outcome.pages.len() - outcome.pages_written() - failed
            )?;
        }
        writeln!(out)?;
        for m in &outcome.pool {
            writeln!(
                out,
                "  {} ({}): {} compiled, {} failed, set aside {} time(s)",
                m.base_url, m.model, m.compiled, m.failed, m.set_aside
            )?;
        }
    }
    if outcome.interrupted {
        eprintln!(
            "interrupted: unfinished compiles stay queued and resume with `wikimind compile`"
        );
    }
    Ok(())
}

/// The `--json` list: one object per source compiled (the compile report, as before pages
/// existed, with `"kind": "source"`), then one per page job (`"kind": "page"`: the page
/// report with `ok` and `reason` as a source's have them).
fn json_reports(outcome: &CompileOutcome) -> anyhow::Result<Vec<serde_json::Value>> {
    let mut list = Vec::with_capacity(outcome.reports.len() + outcome.pages.len());
    for r in &outcome.reports {
        list.push(tagged(serde_json::to_value(r)?, "source", None));
    }
    for p in &outcome.pages {
        let value = serde_json::to_value(p)?;
        list.push(tagged(value, "page", Some((p.ok(), p.reason()))));
    }
    if !outcome.pool.is_empty() {
        let pool: Vec<serde_json::Value> = outcome
            .pool
            .iter()
            .map(|m| {
                serde_json::json!({
                    "base_url": m.base_url,
                    "model": m.model,
                    "compiled": m.compiled,
                    "failed": m.failed,
                    "set_aside": m.set_aside,
                })
            })
            .collect();
        list.push(serde_json::json!({"kind": "pool", "pool": pool}));
    }
    Ok(list)
}

/// `value` with its `kind` (and, for a page, `ok` and `reason`) added.
fn tagged(
    mut value: serde_json::Value,
    kind: &str,
    verdict: Option<(bool, Option<&str>)>,
) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        object.insert("kind".into(), kind.into());
        if let Some((ok, reason)) = verdict {
            object.insert("ok".into(), ok.into());
            object.insert("reason".into(), reason.into());
        }
    }
    value
}

/// One line per page job: what it did to the page, with its notes.
fn print_page(out: &mut impl Write, p: &PageReport) -> std::io::Result<()> {
    let sources = |n: usize| format!("{n} source{}", if n == 1 { "" } else { "s" });
    let calls = |n: u32| format!("{n} call{}", if n == 1 { "" } else { "s" });
    let what = match &p.outcome {
        PageOutcome::Written { version } if p.listed > 0 => format!(
            "written from {} (v{version}, {}; {} only listed)",
            sources(p.sources),
            calls(p.usage.calls),
            p.listed
        ),
        PageOutcome::Written { version } => format!(
            "written from {} (v{version}, {})",
            sources(p.sources),
            calls(p.usage.calls)
        ),
        PageOutcome::NoNewInformation => {
            format!("no new information (gained {})", sources(p.changed))
        }
        PageOutcome::UpToDate => "already up to date".to_owned(),
        PageOutcome::Flagged { reason } => format!("flagged: {reason}"),
        PageOutcome::Failed { reason } => format!("failed: {reason}"),
    };
    writeln!(out, "page {:?}: {what}", p.title)?;
    for w in &p.warnings {
        writeln!(out, "          note: {w}")?;
    }
    Ok(())
}

/// One line per compile, with the notes of one that succeeded.
fn print_report(out: &mut impl Write, r: &CompileReport) -> std::io::Result<()> {
    if !r.ok {
        return writeln!(
            out,
            "failed    #{:<4} {}",
            r.source_id,
            r.reason.as_deref().unwrap_or("unknown reason")
        );
    }
    let cut = if r.truncated {
        "  (from a cut-off answer)"
    } else {
        ""
    };
    let title = r.title.as_deref().unwrap_or("");
    writeln!(out, "compiled  #{:<4} {title}{cut}", r.source_id)?;
    for w in &r.warnings {
        writeln!(out, "          note: {w}")?;
    }
    Ok(())
}

/// Progress on the terminal: a bar per job on a TTY, a line per stage change otherwise.
struct Display {
    bars: Option<MultiProgress>,
    state: Mutex<HashMap<JobTarget, (ProgressBar, StageView)>>,
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
        let Some(target) = p.target() else {
            return;
        };
        let message = p.message.as_deref().unwrap_or("");
        // A source is named by its id (its digest's title comes with the answer); a page
        // by its title from the start.
        let (id, title) = match target {
            JobTarget::Source(source) => {
                (format!("#{source}"), p.title.clone().unwrap_or_default())
            }
            JobTarget::Page(_) => (
                format!("page {:?}", p.title.as_deref().unwrap_or("")),
                String::new(),
            ),
        };
        // A page's writer says it is done before the runner says what it did: wait for that.
        if matches!(target, JobTarget::Page(_))
            && p.stage == StageView::Compiled
            && message.is_empty()
        {
            return;
        }
        let line = match (p.stage, target) {
            (StageView::Queued, _) => format!("{id} queued"),
            (StageView::Reading, _) => format!("{id} reading in parts: {message}"),
            (StageView::Prompting, _) if !message.is_empty() => format!("{id} {message}"),
            (StageView::Prompting, _) => format!(
                "{id} prompting {} (attempt {})",
                p.provider,
                p.attempt.max(1)
            ),
            (StageView::Receiving, _) => {
                format!("{id} receiving {} pieces {title}", p.received)
            }
            (StageView::Parsing, _) => format!("{id} parsing the answer"),
            (StageView::Saving, _) => format!("{id} saving {title}"),
            (StageView::Compiled, JobTarget::Source(_)) => format!("{id} compiled {title}"),
            (StageView::Compiled, JobTarget::Page(_)) => format!("{id} {message}"),
            (StageView::Failed, _) => format!("{id} failed: {message}"),
            (StageView::Cancelled, _) => format!("{id} stopped: {message}"),
        };
        let line = line.trim_end();
        let ended = matches!(
            p.stage,
            StageView::Compiled | StageView::Failed | StageView::Cancelled
        );
        match &self.bars {
            Some(multi) => {
                let entry = state.entry(target).or_insert_with(|| {
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
                    .set_message(wikimind::terminal::printable(line).into_owned());
                if ended {
                    entry.0.finish();
                }
                entry.1 = p.stage;
            }
            None => {
                let changed = match state.get(&target) {
                    Some((_, stage)) => *stage != p.stage,
                    None => true,
                };
                if changed && p.stage != StageView::Queued {
                    let mut err = crate::context::err();
                    let _ = writeln!(err, "{line}");
                }
                state.insert(target, (ProgressBar::hidden(), p.stage));
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
