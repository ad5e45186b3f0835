//! `wikimind ask`: a question answered from the wiki's pages, each claim citing its page.

use std::io::{IsTerminal, Write};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use wikimind::ask::{AskOptions, AskReport};
use wikimind::compile::{Progress, Stage};
use wikimind::contract::Confidence;
use wikimind::llm::CancellationToken;

use crate::context::{self, print_json, ProviderFlags};
use crate::{Done, Global};

/// Arguments of `wikimind ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question (several words are joined with spaces).
    #[arg(required = true, value_name = "QUESTION")]
    question: Vec<String>,
    /// Keep the answer as a page of kind `answer`, titled by the question.
    #[arg(long)]
    save: bool,
    #[command(flatten)]
    provider: ProviderFlags,
}

/// Runs `wikimind ask`: exit 0 when answered or when the wiki does not cover the question,
/// 1 when no answer could be made valid.
pub fn run(global: &Global, args: AskArgs) -> anyhow::Result<Done> {
    let question = args.question.join(" ");
    if question.trim().is_empty() {
        return Err(crate::UsageError("the question is empty".into()).into());
    }
    let settings = context::settings(global, args.provider.overrides())?;
    let wiki = context::open(&settings)?;
    let spinner = (std::io::stderr().is_terminal() && !global.json).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar.set_message("looking for pages");
        bar
    });
    let events = {
        let spinner = spinner.clone();
        move |p: Progress| {
            if let Some(bar) = &spinner {
                bar.set_message(stage_line(&p));
            }
        }
    };
    let rt = context::runtime()?;
    let cancel = CancellationToken::new();
    let report = rt.block_on(async {
        context::cancel_on_signals(cancel.clone());
        wiki.ask(
            &settings,
            &question,
            AskOptions { save: args.save },
            &events,
            &cancel,
        )
        .await
    })?;
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    if global.json {
        print_json(&report)?;
    } else {
        print_report(&mut context::out(), &report)?;
    }
    if let Some(reason) = &report.error {
        eprintln!("error: no valid answer: {reason}");
    }
    Ok(if report.ok() {
        Done::Success
    } else {
        Done::Failed
    })
}

/// One line of progress for the spinner.
fn stage_line(p: &Progress) -> String {
    match p.stage {
        Stage::Prompting => format!("asking {} (attempt {})", p.provider, p.attempt.max(1)),
        Stage::Receiving => format!("{} answering: {} characters", p.provider, p.chars),
        Stage::Failed => format!(
            "{} failed: {}",
            p.provider,
            p.message.as_deref().unwrap_or("")
        ),
        _ => "checking the answer".to_owned(),
    }
}

/// The answer as a person reads it: the answer, each claim with its page and whether its
/// quote was found there, follow-up questions, what was read, where it was saved.
fn print_report(out: &mut impl Write, r: &AskReport) -> std::io::Result<()> {
    if !r.answer.is_empty() {
        writeln!(out, "{}", r.answer.trim_end())?;
    }
    if !r.claims.is_empty() {
        writeln!(out, "\nClaims:")?;
        for c in &r.claims {
            let mark = if c.grounded { "✓" } else { "✗" };
            let confidence = c.confidence.as_str();
            writeln!(out, "  {mark} {confidence:<8} [{}] {}", c.page, c.claim)?;
            match (&c.quote, c.grounded) {
                (Some(q), true) => writeln!(out, "      \"{q}\"")?,
                (Some(q), false) if c.confidence == Confidence::Inferred => writeln!(
                    out,
                    "      \"{q}\" (not found in {:?}: shown as inferred)",
                    c.page
                )?,
                _ => {}
            }
        }
    }
    if !r.follow_up_questions.is_empty() {
        writeln!(out, "\nYou could ask next:")?;
        for q in &r.follow_up_questions {
            writeln!(out, "  - {q}")?;
        }
    }
    if !r.pages_read.is_empty() {
        writeln!(out, "\nRead: {}", r.pages_read.join(", "))?;
    }
    for w in &r.warnings {
        writeln!(out, "note: {w}")?;
    }
    if let Some(title) = &r.saved {
        writeln!(out, "Saved as the page {title:?}.")?;
    }
    Ok(())
}
