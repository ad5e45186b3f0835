//! The `wikimind` command line: glue between clap and the core library.
//!
//! Every subcommand is a few lines over the core; exit codes are 0 for success, 1 when the
//! work failed (bad input, a source that did not compile, a provider that is unreachable)
//! and 2 for wrong usage. `--json` prints each command's result as JSON on stdout, with
//! messages on stderr.

/// `eprintln!` for this crate: messages carry titles, reasons and paths that came from
/// model answers, files and pages, so they go through the core's terminal rule
/// ([`wikimind::terminal`]) like all human output. (Defined before the modules, it takes
/// the place of the standard macro in all of them.)
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::context::err(), $($arg)*);
    }};
}

mod cmd_ask;
mod cmd_compile;
mod cmd_eval;
mod cmd_graph;
mod cmd_ingest;
mod cmd_lint;
mod cmd_manage;
mod cmd_mcp;
mod cmd_parse;
mod cmd_read;
mod cmd_watch;
mod cmd_write;
mod context;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Compile raw sources into an interlinked wiki.
#[derive(Debug, Parser)]
#[command(name = "wikimind", version, about)]
struct Cli {
    /// Where the wiki lives (default: $WIKIMIND_DATA_DIR, else the platform data dir).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Print results as JSON on stdout (messages stay on stderr).
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Add sources: files, folders, http(s) URLs, or `-` for standard input.
    Ingest(cmd_ingest::IngestArgs),
    /// List sources with their status (and the reason when one failed).
    Sources(cmd_read::SourcesArgs),
    /// Compile sources into digests and pages (no arguments: every source that needs it).
    Compile(cmd_compile::CompileArgs),
    /// List pages (one per topic) with how many sources feed each.
    List(cmd_read::ListArgs),
    /// Show one page with its claims, links, backlinks and sources (or a source's digest).
    Show(cmd_read::ShowArgs),
    /// Full-text search over pages.
    Search(cmd_read::SearchArgs),
    /// Ask the wiki a question: an answer from its pages, each claim citing its page.
    Ask(cmd_ask::AskArgs),
    /// List the versions of a page and who wrote each.
    History(cmd_read::HistoryArgs),
    /// Bring back an earlier version of a page (as its newest version, written by you).
    Restore(cmd_read::RestoreArgs),
    /// Write notes in the wiki: `note new|edit|list|show|rm` (a note is a source; compile
    /// turns it into pages).
    Note(cmd_write::NoteArgs),
    /// Edit a page's body (editor, `--body-file F`, or `-` for standard input); your edits
    /// survive the model's rewrites section by section.
    Edit(cmd_write::EditArgs),
    /// Accept or dismiss the model's suggestion for a section you edited.
    Suggestion(cmd_write::SuggestionArgs),
    /// Add a claim of your own to a page, or remove one (it stays removed).
    Claim(cmd_write::ClaimArgs),
    /// Rename a page (the old title stays as an alias, so links still resolve).
    Rename(cmd_write::RenameArgs),
    /// Remove a source and its digest (the pages it fed are updated; a page left with no
    /// source is removed and links to it become wanted pages).
    Rm(cmd_manage::RmArgs),
    /// Check the wiki's health: broken links, wanted pages, orphans, stale sources and
    /// pages, claims that no longer ground, duplicate topics, thin pages.
    Lint(cmd_lint::LintArgs),
    /// Merge page B into page A (A stays; B's sources feed it, B's title leads to it); the
    /// next `compile` writes the merged page.
    Merge(cmd_lint::MergeArgs),
    /// Ask for a wanted page: it becomes a topic written from the sources that mention the
    /// name; the next `compile` writes it.
    Want(cmd_lint::WantArgs),
    /// The wiki's graph: pages and wanted pages as nodes, resolved links as edges, at the
    /// positions the core laid out (`--json`, `--dot`, `--local TITLE --depth N`).
    Graph(cmd_graph::GraphArgs),
    /// Watch folders until Ctrl+C or SIGTERM: new and changed files are ingested and
    /// compiled, deleted ones removed, renamed ones keep their source (no DIR: the saved
    /// folders; `--save`, `--list`, `--remove` manage that list).
    Watch(cmd_watch::WatchArgs),
    /// Write the wiki as a folder of markdown files (Obsidian-friendly).
    Export(cmd_manage::ExportArgs),
    /// Show the configured providers; `--test` connects and lists models.
    Providers(cmd_manage::ProvidersArgs),
    /// Turn a model's raw answer into valid data, showing every repair.
    Parse(cmd_parse::ParseArgs),
    /// Run an eval dataset through the compile pipeline and report how each model does.
    Eval(cmd_eval::EvalArgs),
    /// Serve the wiki to MCP clients (Claude Desktop, IDEs, agents) over standard input
    /// and output: tools to search, read and list pages (and with --allow-write to add
    /// sources), every page a resource.
    Mcp(cmd_mcp::McpArgs),
}

/// A mistake in how the command was called (exit code 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// What a command reports back: whether the work succeeded.
pub enum Done {
    /// Everything asked for was done.
    Success,
    /// The work failed; the reason was already printed.
    Failed,
}

/// Options every command sees.
pub struct Global {
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
    /// `--json`.
    pub json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let global = Global {
        data_dir: cli.data_dir,
        json: cli.json,
    };
    let result = match cli.command {
        Command::Ingest(args) => cmd_ingest::run(&global, args),
        Command::Sources(args) => cmd_read::sources(&global, args),
        Command::Compile(args) => cmd_compile::run(&global, args),
        Command::List(args) => cmd_read::list(&global, args),
        Command::Show(args) => cmd_read::show(&global, args),
        Command::Search(args) => cmd_read::search(&global, args),
        Command::Ask(args) => cmd_ask::run(&global, args),
        Command::History(args) => cmd_read::history(&global, args),
        Command::Restore(args) => cmd_read::restore(&global, args),
        Command::Note(args) => cmd_write::note(&global, args),
        Command::Edit(args) => cmd_write::edit(&global, args),
        Command::Suggestion(args) => cmd_write::suggestion(&global, args),
        Command::Claim(args) => cmd_write::claim(&global, args),
        Command::Rename(args) => cmd_write::rename(&global, args),
        Command::Rm(args) => cmd_manage::rm(&global, args),
        Command::Lint(args) => cmd_lint::run(&global, args),
        Command::Merge(args) => cmd_lint::merge(&global, args),
        Command::Want(args) => cmd_lint::want(&global, args),
        Command::Graph(args) => cmd_graph::run(&global, args),
        Command::Watch(args) => cmd_watch::run(&global, args),
        Command::Export(args) => cmd_manage::export(&global, args),
        Command::Providers(args) => cmd_manage::providers(&global, args),
        Command::Parse(args) => cmd_parse::run(&global, args),
        Command::Eval(args) => cmd_eval::run(&global, args),
        Command::Mcp(args) => cmd_mcp::run(&global, args),
    };
    match result {
        Ok(Done::Success) => ExitCode::SUCCESS,
        Ok(Done::Failed) => ExitCode::from(1),
        Err(err) => report(err),
    }
}

fn report(err: anyhow::Error) -> ExitCode {
    // A closed pipe (`wikimind list | head`) is not a failure.
    if let Some(io) = err.downcast_ref::<std::io::Error>() {
        if io.kind() == std::io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
    }
    let mut stderr = context::err();
    let _ = write!(stderr, "error: {err}");
    for cause in err.chain().skip(1) {
        let _ = write!(stderr, ": {cause}");
    }
    let _ = writeln!(stderr);
    if err.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}
