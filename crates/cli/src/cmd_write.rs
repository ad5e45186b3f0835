//! Writing in the wiki: `note`, `edit`, `suggestion`, `claim`, `rename`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::json;
use wikimind::config::Overrides;
use wikimind::wiki::Wiki;

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// Arguments of `wikimind note`.
#[derive(Debug, Args)]
pub struct NoteArgs {
    #[command(subcommand)]
    action: NoteAction,
}

#[derive(Debug, Subcommand)]
enum NoteAction {
    /// Write a new note: `-` reads its text from standard input, else the editor
    /// ($VISUAL, then $EDITOR) opens.
    New {
        /// Its title (default: its front matter `title` or first `# ` heading). A lone `-`
        /// (`note new -`) reads standard input and takes the title from the text.
        title: Option<String>,
        /// `-`: read the text from standard input.
        #[arg(value_name = "-")]
        stdin: Option<String>,
    },
    /// Edit a note in the editor ($VISUAL, then $EDITOR), or from standard input with `-`.
    Edit {
        /// The note: its id, its source id or its title.
        #[arg(value_name = "ID|TITLE")]
        note: String,
        /// `-`: read the new text from standard input.
        #[arg(value_name = "-")]
        stdin: Option<String>,
        /// Give the note this title.
        #[arg(long)]
        title: Option<String>,
    },
    /// List the notes.
    List,
    /// Print a note's text.
    Show {
        /// The note: its id, its source id or its title.
        #[arg(value_name = "ID|TITLE")]
        note: String,
    },
    /// Remove a note (its contributions leave the pages it fed).
    Rm {
        /// The note: its id, its source id or its title.
        #[arg(value_name = "ID|TITLE")]
        note: String,
    },
}

fn open(global: &Global) -> anyhow::Result<Wiki> {
    context::open(&context::settings(global, Overrides::default())?)
}

/// `Some(true)` for `-`, an error for any other word.
fn dash(arg: Option<&str>) -> anyhow::Result<bool> {
    match arg {
        None => Ok(false),
        Some("-") => Ok(true),
        Some(other) => Err(UsageError(format!(
            "unexpected argument {other:?} (only `-` reads standard input)"
        ))
        .into()),
    }
}

/// `note new [TITLE] [-]`: the title, and whether the text comes from standard input. Both
/// words are optional, so clap puts a lone `-` in the title's place: it means standard
/// input (the title then comes from the note's front matter or first heading), never a
/// note titled "-".
fn note_new_args(
    title: Option<String>,
    stdin: Option<&str>,
) -> anyhow::Result<(Option<String>, bool)> {
    match (title, stdin) {
        (Some(t), None) if t == "-" => Ok((None, true)),
        (title, stdin) => Ok((title, dash(stdin)?)),
    }
}

/// A required name given as a lone `-` (`wikimind edit -`, `note edit -`): the person meant
/// standard input and left out the name, so say so rather than look up a page called "-".
fn name_before_dash(name: &str, stdin: Option<&str>, usage: &str) -> anyhow::Result<()> {
    if name == "-" && stdin.is_none() {
        return Err(UsageError(format!(
            "`-` reads standard input, but the {usage} comes first"
        ))
        .into());
    }
    Ok(())
}

fn read_stdin() -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin().lock().read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "standard input is not UTF-8 text (at byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The editor a person set: `$VISUAL`, else `$EDITOR` (a command, split on whitespace).
fn editor() -> anyhow::Result<Vec<String>> {
    for var in ["VISUAL", "EDITOR"] {
        if let Ok(value) = std::env::var(var) {
            let words: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
            if !words.is_empty() {
                return Ok(words);
            }
        }
    }
    Err(UsageError(
        "no editor: set $VISUAL or $EDITOR, or give `-` to read standard input".to_owned(),
    )
    .into())
}

/// Opens `text` in the editor (a temporary `name.md`) and gives back what the person saved.
fn edit_in_editor(name: &str, text: &str) -> anyhow::Result<String> {
    let command = editor()?;
    let dir = tempdir()?;
    let file = dir.join(format!("{name}.md"));
    std::fs::write(&file, text)?;
    let status = std::process::Command::new(&command[0])
        .args(&command[1..])
        .arg(&file)
        .status()
        .map_err(|e| anyhow::anyhow!("cannot start the editor {:?}: {e}", command[0]))?;
    let edited = std::fs::read_to_string(&file);
    let _ = std::fs::remove_dir_all(&dir);
    if !status.success() {
        anyhow::bail!(
            "the editor {:?} exited with {status}: nothing was saved",
            command[0]
        );
    }
    Ok(edited?)
}

/// A fresh private folder for the editor's file.
fn tempdir() -> anyhow::Result<PathBuf> {
    let base = std::env::temp_dir();
    for n in 0..100u32 {
        let dir = base.join(format!("wikimind-edit-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
    anyhow::bail!("cannot make a folder for the editor in {}", base.display())
}

/// A file name for `title`: its letters, digits, spaces and dashes.
fn file_name(title: &str) -> String {
    let name: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    if name.trim_matches('-').is_empty() {
        "note".to_owned()
    } else {
        name
    }
}

/// Runs `wikimind note`.
pub fn note(global: &Global, args: NoteArgs) -> anyhow::Result<Done> {
    let wiki = open(global)?;
    let mut out = context::out();
    match args.action {
        NoteAction::New { title, stdin } => {
            let (title, from_stdin) = note_new_args(title, stdin.as_deref())?;
            let text = if from_stdin {
                read_stdin()?
            } else {
                let start = title
                    .as_deref()
                    .map_or_else(String::new, |t| format!("# {t}\n\n"));
                edit_in_editor(&file_name(title.as_deref().unwrap_or("note")), &start)?
            };
            if text.trim().is_empty() {
                return Err(UsageError("the note is empty: nothing was saved".to_owned()).into());
            }
            let saved = wiki.new_note(title.as_deref(), &text)?;
            if global.json {
                print_json(&saved)?;
            } else {
                writeln!(
                    out,
                    "wrote note {} \"{}\" (source #{}); `wikimind compile` compiles it",
                    saved.note.note_id, saved.note.title, saved.note.source_id
                )?;
            }
        }
        NoteAction::Edit { note, stdin, title } => {
            name_before_dash(
                &note,
                stdin.as_deref(),
                "note: `wikimind note edit ID|TITLE -`",
            )?;
            let mut saved = None;
            if let Some(title) = &title {
                saved = Some(wiki.rename_note(&note, title)?);
            }
            let key = saved
                .as_ref()
                .map_or(note.clone(), |s| s.note.note_id.clone());
            if dash(stdin.as_deref())? {
                saved = Some(wiki.save_note(&key, &read_stdin()?)?);
            } else if title.is_none() {
                let current = wiki.note(&key)?;
                let text = edit_in_editor(&file_name(&current.summary.title), &current.text)?;
                saved = Some(wiki.save_note(&key, &text)?);
            }
            let saved = saved.expect("a title, standard input or the editor");
            if global.json {
                print_json(&saved)?;
            } else {
                writeln!(
                    out,
                    "note {} \"{}\": {} ({})",
                    saved.note.note_id,
                    saved.note.title,
                    saved.outcome.as_str(),
                    saved.note.status.as_str()
                )?;
            }
        }
        NoteAction::List => {
            let notes = wiki.notes()?;
            if global.json {
                print_json(&notes)?;
            } else if notes.is_empty() {
                writeln!(out, "no notes yet: `wikimind note new TITLE` writes one")?;
            } else {
                for n in notes {
                    writeln!(out, "{}  {}  [{}]", n.note_id, n.title, n.status.as_str())?;
                }
            }
        }
        NoteAction::Show { note } => {
            let note = wiki.note(&note)?;
            if global.json {
                print_json(&note)?;
            } else {
                write!(out, "{}", note.text)?;
            }
        }
        NoteAction::Rm { note } => {
            let removed = wiki.remove_note(&note)?;
            if global.json {
                print_json(&json!({"removed": removed}))?;
            } else {
                writeln!(
                    out,
                    "removed note {} \"{}\"; the pages it fed were updated",
                    removed.note_id, removed.title
                )?;
            }
        }
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind edit`.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// The page: its title, an alias or its id.
    title: String,
    /// `-`: read the new body from standard input.
    #[arg(value_name = "-")]
    stdin: Option<String>,
    /// Read the new body from this file.
    #[arg(long, value_name = "F", conflicts_with = "stdin")]
    body_file: Option<PathBuf>,
    /// The version the edit was made on (default: the current one); when the page has a
    /// newer version, the edit is merged into it instead of overwriting it.
    #[arg(long, value_name = "N")]
    on_version: Option<u32>,
}

/// Runs `wikimind edit`.
pub fn edit(global: &Global, args: EditArgs) -> anyhow::Result<Done> {
    name_before_dash(
        &args.title,
        args.stdin.as_deref(),
        "page's title: `wikimind edit TITLE -`",
    )?;
    let wiki = open(global)?;
    let id = wiki.page_named(&args.title)?;
    let page = wiki
        .shown_page(id)?
        .ok_or_else(|| anyhow::anyhow!("page {id} is gone"))?;
    let body = if dash(args.stdin.as_deref())? {
        read_stdin()?
    } else if let Some(file) = &args.body_file {
        read_file(file)?
    } else {
        edit_in_editor(&file_name(&page.title), &page.article_body)?
    };
    let on = args.on_version.unwrap_or(page.version);
    let saved = wiki.edit_page(&args.title, Some(on), &body)?;
    if global.json {
        print_json(&json!({"page_id": id, "title": page.title, "saved": saved}))?;
    } else {
        let mut out = context::out();
        if !saved.changed {
            writeln!(
                out,
                "\"{}\" is unchanged (version {})",
                page.title, saved.version
            )?;
        } else if saved.merged {
            writeln!(
                out,
                "\"{}\" changed since version {on}: your edit was merged into it as version {} \
                 ({} section(s) kept yours and hold a suggestion: `wikimind show`)",
                page.title, saved.version, saved.suggestions
            )?;
        } else {
            writeln!(out, "saved \"{}\" as version {}", page.title, saved.version)?;
        }
    }
    Ok(Done::Success)
}

fn read_file(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
}

/// Arguments of `wikimind suggestion`.
#[derive(Debug, Args)]
pub struct SuggestionArgs {
    /// `accept` (the model's text replaces the section) or `dismiss`.
    #[arg(value_parser = ["accept", "dismiss"])]
    action: String,
    /// The page: its title, an alias or its id.
    title: String,
    /// The suggestion's id (`show --json` lists them under `suggestions`).
    id: i64,
}

/// Runs `wikimind suggestion`.
pub fn suggestion(global: &Global, args: SuggestionArgs) -> anyhow::Result<Done> {
    let wiki = open(global)?;
    let version = if args.action == "accept" {
        Some(wiki.accept_suggestion(&args.title, args.id)?)
    } else {
        wiki.dismiss_suggestion(&args.title, args.id)?;
        None
    };
    if global.json {
        print_json(&json!({"action": args.action, "suggestion": args.id, "version": version}))?;
    } else {
        match version {
            Some(v) => writeln!(
                context::out(),
                "accepted suggestion {}: version {v}",
                args.id
            )?,
            None => writeln!(context::out(), "dismissed suggestion {}", args.id)?,
        }
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind claim`.
#[derive(Debug, Args)]
pub struct ClaimArgs {
    #[command(subcommand)]
    action: ClaimAction,
}

#[derive(Debug, Subcommand)]
enum ClaimAction {
    /// Add a claim of your own to a page (shown as yours, never `sourced`).
    Add {
        /// The page: its title, an alias or its id.
        title: String,
        /// The claim.
        text: String,
    },
    /// Remove claim N of a page (numbered from 1 as `show` lists them); it stays removed
    /// when the page is written again.
    Rm {
        /// The page: its title, an alias or its id.
        title: String,
        /// The claim's number.
        n: usize,
    },
}

/// Runs `wikimind claim`.
pub fn claim(global: &Global, args: ClaimArgs) -> anyhow::Result<Done> {
    let wiki = open(global)?;
    let mut out = context::out();
    match args.action {
        ClaimAction::Add { title, text } => {
            let version = wiki.add_claim(&title, &text)?;
            if global.json {
                print_json(&json!({"version": version}))?;
            } else {
                writeln!(out, "added your claim: version {version}")?;
            }
        }
        ClaimAction::Rm { title, n } => {
            let (version, text) = wiki.remove_claim(&title, wikimind::WhichClaim::Number(n))?;
            if global.json {
                print_json(&json!({"version": version, "removed": text}))?;
            } else {
                writeln!(out, "removed claim {n} ({text}): version {version}")?;
            }
        }
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind rename`.
#[derive(Debug, Args)]
pub struct RenameArgs {
    /// The page: its title, an alias or its id.
    old: String,
    /// Its new title (the old one stays as an alias, so links still resolve).
    new: String,
}

/// Runs `wikimind rename`.
pub fn rename(global: &Global, args: RenameArgs) -> anyhow::Result<Done> {
    let wiki = open(global)?;
    let id = wiki.rename_page(&args.old, &args.new)?;
    let title = wiki.shown_page(id)?.map(|p| p.title).unwrap_or_default();
    if global.json {
        print_json(&json!({"page_id": id, "title": title, "alias": args.old}))?;
    } else {
        writeln!(
            context::out(),
            "renamed \"{}\" to \"{title}\" (the old title stays as an alias)",
            args.old
        )?;
    }
    Ok(Done::Success)
}
