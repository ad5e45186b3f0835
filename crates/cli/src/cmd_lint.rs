//! Keeping the wiki healthy: `lint` (checks, safe fixes, dismissals) and `merge`. The
//! rules are the core's (`wikimind::lint`); this prints what it found.

use std::io::Write;

use clap::Args;
use serde_json::json;
use wikimind::config::Overrides;
use wikimind::lint::{self, Check, DismissError, LintOptions, LintReport, Severity, Summary};
use wikimind::JobSettings;

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// Arguments of `wikimind lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Apply the fixes that need no judgement (read changed files again, queue writes of
    /// pages behind their digests, show claims that no longer ground as inferred); every
    /// other finding stays a proposal.
    #[arg(long, conflicts_with = "dismiss")]
    fix: bool,
    /// Run only this check (repeatable): broken_link, wanted, orphan, stale, ungrounded,
    /// duplicate, thin.
    #[arg(long = "check", value_name = "NAME", value_parser = parse_check)]
    checks: Vec<Check>,
    /// Exit 1 when a finding at or above this severity is found (warning or error).
    #[arg(long, value_name = "SEVERITY", value_parser = parse_fail_on)]
    fail_on: Option<Severity>,
    /// Dismiss the finding with this id (a duplicate: reject the merge); it is not listed
    /// again, after recompiles too.
    #[arg(long, value_name = "ID")]
    dismiss: Option<String>,
    /// Print the health figures stored after each compile run and full lint (the last 30),
    /// oldest first, instead of linting.
    #[arg(long, conflicts_with_all = ["fix", "dismiss", "checks", "fail_on"])]
    trend: bool,
}

/// How many stored runs `--trend` prints.
const TREND_RUNS: usize = 30;

fn parse_check(name: &str) -> Result<Check, String> {
    Check::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Check::ALL.iter().map(|c| c.as_str()).collect();
        format!("no check named {name:?} (one of {})", names.join(", "))
    })
}

fn parse_fail_on(name: &str) -> Result<Severity, String> {
    match Severity::parse(name) {
        Some(s @ (Severity::Warning | Severity::Error)) => Ok(s),
        _ => Err(format!("{name:?}: use warning or error")),
    }
}

/// Runs `wikimind lint`.
pub fn run(global: &Global, args: LintArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    if let Some(id) = &args.dismiss {
        return match lint::dismiss(&wiki, id) {
            Ok(found) => {
                if global.json {
                    print_json(&json!({ "dismissed": found }))?;
                } else {
                    writeln!(
                        context::out(),
                        "dismissed {} ({}): {}",
                        found.id,
                        found.check.as_str(),
                        found.message
                    )?;
                }
                Ok(Done::Success)
            }
            Err(DismissError::NotFound(id)) => {
                Err(UsageError(DismissError::NotFound(id).to_string()).into())
            }
            Err(e) => Err(e.into()),
        };
    }
    if args.trend {
        let runs = lint::health_trend(&wiki, TREND_RUNS)?;
        if global.json {
            print_json(&runs)?;
        } else {
            let mut out = context::out();
            if runs.is_empty() {
                writeln!(
                    out,
                    "no health figures stored yet (a compile or `wikimind lint` stores them)"
                )?;
            }
            for r in &runs {
                writeln!(
                    out,
                    "{}  {:<7} {} pages, {}% links resolve, {}% orphans, {} wanted, {} broken, {} stale, {} ungrounded, {} duplicates, {} thin",
                    r.at, r.trigger, r.pages, r.link_resolution, r.orphan_share, r.wanted,
                    r.broken_links, r.stale, r.ungrounded, r.duplicates, r.thin
                )?;
            }
        }
        return Ok(Done::Success);
    }
    let report = lint::lint(
        &wiki,
        &LintOptions {
            checks: args.checks.clone(),
        },
    )?;
    lint::record_health(&wiki, &report, lint::Trigger::Lint)?;
    let fixes = if args.fix {
        Some(lint::fix(&wiki, &report, &JobSettings::default())?)
    } else {
        None
    };
    if global.json {
        match &fixes {
            Some(fixes) => print_json(&json!({
                "summary": report.summary,
                "findings": report.findings,
                "fixes": fixes,
            }))?,
            None => print_json(&report)?,
        }
    } else {
        print_report(&report)?;
        if let Some(fixes) = &fixes {
            let mut out = context::out();
            for f in fixes {
                let state = if f.ok { "fixed" } else { "FAILED" };
                writeln!(out, "{state:<7} {} {:<10} {}", f.id, f.action, f.detail)?;
            }
            writeln!(
                out,
                "{} fix(es) applied or queued, {} failed; the other findings are proposals",
                fixes.iter().filter(|f| f.ok).count(),
                fixes.iter().filter(|f| !f.ok).count()
            )?;
        }
    }
    let fix_failed = fixes.is_some_and(|f| f.iter().any(|f| !f.ok));
    let over = args.fail_on.is_some_and(|s| report.has_at_least(s));
    Ok(if fix_failed || over {
        Done::Failed
    } else {
        Done::Success
    })
}

fn print_report(report: &LintReport) -> anyhow::Result<()> {
    let mut out = context::out();
    for f in &report.findings {
        writeln!(
            out,
            "{:<7} {:<11} {} {}",
            f.severity.as_str(),
            f.check.as_str(),
            f.id,
            f.message
        )?;
        if let lint::Detail::Duplicate { accept, .. } = &f.detail {
            writeln!(
                out,
                "{:20}accept: {accept}   reject: wikimind lint --dismiss {}",
                "", f.id
            )?;
        }
    }
    writeln!(out, "{}", summary_line(&report.summary))?;
    Ok(())
}

fn summary_line(s: &Summary) -> String {
    let mut parts = vec![format!(
        "{} pages, {} links ({}% resolve)",
        s.pages, s.links, s.link_resolution
    )];
    let figure = |name: &str, n: Option<u64>| n.map(|n| format!("{n} {name}"));
    if let (Some(n), Some(share)) = (s.orphans, s.orphan_share) {
        parts.push(format!("{n} orphans ({share}%)"));
    }
    parts.extend(
        [
            figure("wanted", s.wanted),
            figure("broken links", s.broken_links),
            figure("stale", s.stale),
            figure("ungrounded", s.ungrounded),
            figure("duplicates", s.duplicates),
            figure("thin", s.thin),
            figure("ambiguous links", s.ambiguous_links),
        ]
        .into_iter()
        .flatten(),
    );
    let mut line = parts.join(", ");
    line.push_str(&format!(
        "; {} error(s), {} warning(s), {} info",
        s.errors, s.warnings, s.infos
    ));
    if s.dismissed > 0 {
        line.push_str(&format!(" ({} dismissed)", s.dismissed));
    }
    line
}

/// Arguments of `wikimind merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The page that stays (any spelling, alias or id).
    #[arg(value_name = "A")]
    survivor: String,
    /// The page merged into it: its sources feed A, its title leads to A, its versions are
    /// kept.
    #[arg(value_name = "B")]
    absorbed: String,
}

/// Runs `wikimind merge A B`.
pub fn merge(global: &Global, args: MergeArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let merged = lint::merge(
        &wiki,
        &args.survivor,
        &args.absorbed,
        &JobSettings::default(),
    )?;
    if global.json {
        print_json(&merged)?;
    } else {
        let mut out = context::out();
        match &merged.reason {
            Some(reason) => writeln!(out, "not merged: {reason}")?,
            None => writeln!(
                out,
                "merged {:?} into {:?}{}",
                merged.absorbed,
                merged.survivor,
                if merged.job.is_some() {
                    "; the next `wikimind compile` writes the merged page"
                } else {
                    ""
                }
            )?,
        }
    }
    Ok(if merged.reason.is_some() {
        Done::Failed
    } else {
        Done::Success
    })
}

/// Arguments of `wikimind want`.
#[derive(Debug, Args)]
pub struct WantArgs {
    /// The wanted name (as pages link to it).
    #[arg(value_name = "TITLE")]
    title: String,
}

/// Runs `wikimind want TITLE`: exits 0 when the page was asked for or already exists, 1
/// when no source mentions the name.
pub fn want(global: &Global, args: WantArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let asked = lint::ask_for_page(&wiki, &args.title, &JobSettings::default())?;
    if global.json {
        print_json(&asked)?;
    } else {
        let mut line = asked.message();
        if asked.job.is_some() {
            line.push_str("; the next `wikimind compile` writes it");
        }
        writeln!(context::out(), "{line}")?;
    }
    Ok(if asked.outcome == "unnamed" {
        Done::Failed
    } else {
        Done::Success
    })
}
