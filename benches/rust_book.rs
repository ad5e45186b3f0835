//! The Rust Book, and the test corpus of 34 notes on coffee, compiled into topic pages
//! through the stand-in model server (issue 13, "Evidence"): sources, pages, topics with
//! more than one source, link occurrences and how many resolve, orphan pages, model calls
//! per source, and the time spent in WikiMind.
//!
//! ```text
//! cargo bench -p wikimind --bench rust_book              # the book under `rustc --print sysroot`
//! cargo bench -p wikimind --bench rust_book -- BOOK_DIR  # a book elsewhere (its HTML folder)
//! ```
//!
//! The book is read from its HTML as it ships with the toolchain docs
//! (`share/doc/rust/html/book`): the chapter pages (`ch<digit>*.html`) and the appendix pages
//! (`appendix-*.html`), one source each; files with such names that only redirect to another
//! page are left out. Every source is compiled and then every stale page written, one call
//! at a time, through the stand-in server (`wikimind_testserver`) running in this process;
//! the time the server spends making its answers is counted apart.
//!
//! What the stand-in answers bounds what the figures can say: its article for a source takes
//! the first heading as the title, quotes three sentences, and takes links and concepts only
//! from what the source marks (`[[links]]`, `**bold**`). The notes mark both; the book's
//! HTML, once read as text, marks neither (its `<a>` and `<strong>` become plain text). So the
//! book is run three ways: as WikiMind reads it today; with each page cut down to its
//! `<main>` element first (the reader keeps mdBook's menu bar and help popup, whose heading
//! `Keyboard shortcuts` comes first in every chapter); and cut down, with the stand-in also
//! linking every title its compile prompt lists that occurs in the source, as a model told
//! to link known titles would ([`wiki_lab::link_listed_titles`]). The figures measure
//! WikiMind, not a model.

mod wiki_lab;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wiki_lab::{ms, percent, Answers, Figures, Lab};

/// The context the stand-in model reports: one every chapter fits in, as today's common
/// models have. At WikiMind's default of 8,192 tokens 64 of the 109 chapters are read in
/// parts, and the stand-in server answers the last call of such a source (the article from
/// the notes) as if the prompt were the source, titling it with the prompt's first line.
const CONTEXT: u64 = 32_768;

/// What compiling one corpus came to.
struct Run {
    name: String,
    figures: Figures,
    wanted: u64,
    compile_calls: u64,
    page_calls: u64,
    page_parts_calls: u64,
    pages_read_in_parts: usize,
    failed_sources: Vec<String>,
    read_in_parts: usize,
    pages_written: usize,
    no_new_information: usize,
    pages_flagged: usize,
    pages_failed: usize,
    wall: Duration,
    model: Duration,
    chats: u64,
}

/// Ingests `files` into a new wiki, compiles every source and writes every stale page.
fn run(name: &str, files: &[PathBuf], answers: Answers) -> Run {
    let lab = Lab::with_answers(CONTEXT, answers);
    let mark = lab.model.mark();
    let started = Instant::now();
    let sources: Vec<_> = files.iter().flat_map(|f| lab.add_path(f)).collect();
    let mut compile_calls = 0;
    let mut failed_sources = Vec::new();
    let mut read_in_parts = 0;
    for &id in &sources {
        let report = lab.try_compile(id);
        compile_calls += u64::from(report.usage.calls);
        read_in_parts += usize::from(report.large.is_some());
        if !report.ok {
            failed_sources.push(format!(
                "source {id}: {}",
                report.reason.unwrap_or_default()
            ));
        }
    }
    let pages = lab.write_stale_pages();
    let wall = started.elapsed();
    let model = lab.model.busy() - mark.busy;
    let chats = lab.model.chats() - mark.chats;
    let figures = Figures::of(lab.store_for_tests());
    let wanted = lab.store_for_tests().page_counts().expect("counts").wanted;
    for reason in &pages.reasons {
        // The first attempt's reason says it; the retries repeat it.
        let reason: String = reason
            .split(" (tried:")
            .next()
            .unwrap_or(reason)
            .chars()
            .take(300)
            .collect();
        println!("{name}: page {reason}");
    }
    Run {
        name: name.to_owned(),
        figures,
        wanted,
        compile_calls,
        page_calls: pages.calls,
        page_parts_calls: pages.parts_calls,
        pages_read_in_parts: pages.read_in_parts,
        failed_sources,
        read_in_parts,
        pages_written: pages.written,
        no_new_information: pages.no_new_information,
        pages_flagged: pages.flagged,
        pages_failed: pages.failed,
        wall,
        model,
        chats,
    }
}

/// The HTML folder of the Rust Book: the argument, else the one under `rustc`'s sysroot.
fn book_dir() -> PathBuf {
    // `cargo bench` passes `--bench`; any other argument is the folder.
    if let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")) {
        return PathBuf::from(dir);
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let out = std::process::Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .unwrap_or_else(|e| panic!("run {rustc} --print sysroot: {e}"));
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Path::new(&sysroot).join("share/doc/rust/html/book")
}

/// The chapter and appendix pages of the book, in order, and how many files with such a
/// name are only redirects to another page (left out).
fn book_pages(dir: &Path) -> (Vec<PathBuf>, usize) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| {
        panic!(
            "no Rust Book at {} ({e}): install the rust-docs component or pass the \
             book's HTML folder",
            dir.display()
        )
    });
    let mut pages: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let chapter = name
                .strip_prefix("ch")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
            (chapter || name.starts_with("appendix-")) && name.ends_with(".html")
        })
        .collect();
    pages.sort();
    let before = pages.len();
    pages.retain(|p| {
        let html = std::fs::read_to_string(p).unwrap_or_default();
        !html.contains("http-equiv=\"refresh\"")
    });
    let redirects = before - pages.len();
    (pages, redirects)
}

/// Copies of `pages` in `into` holding only each page's title and its `<main>` element:
/// the chapter without mdBook's menu bar, help popup, sidebar and navigation, which the
/// HTML reader keeps today (its help popup's heading, `Keyboard shortcuts`, is the first
/// heading of every chapter as read).
fn main_only(pages: &[PathBuf], into: &Path) -> Vec<PathBuf> {
    pages
        .iter()
        .map(|page| {
            let html = std::fs::read_to_string(page).expect("read a page");
            let between = |open: &str, close: &str| -> String {
                html.find(open)
                    .and_then(|start| {
                        let rest = &html[start..];
                        rest.find(close)
                            .map(|end| rest[..end + close.len()].to_owned())
                    })
                    .unwrap_or_default()
            };
            let copy = into.join(page.file_name().expect("a file name"));
            let text = format!(
                "<html><head>{}</head><body>{}</body></html>",
                between("<title>", "</title>"),
                between("<main>", "</main>")
            );
            std::fs::write(&copy, text).expect("write a copy");
            copy
        })
        .collect()
}

/// The notes of the test corpus, in order.
fn corpus_notes() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/topics/notes");
    let mut notes: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the test corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    notes.sort();
    notes
}

fn print(runs: &[Run]) {
    let row = |label: &str, cell: &dyn Fn(&Run) -> String| {
        let cells: Vec<String> = runs.iter().map(cell).collect();
        println!("| {label} | {} |", cells.join(" | "));
    };
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    println!("| measure | {} |", names.join(" | "));
    println!("|---|{}", "---|".repeat(runs.len()));
    row("sources", &|r| r.figures.sources.to_string());
    row("sources that failed to compile", &|r| {
        r.failed_sources.len().to_string()
    });
    row("sources read in parts", &|r| r.read_in_parts.to_string());
    row("pages", &|r| r.figures.pages.to_string());
    row("pages with more than one source", &|r| {
        format!(
            "{} ({:.0}%)",
            r.figures.multi_source,
            percent(r.figures.multi_source, r.figures.pages)
        )
    });
    row("link occurrences (one per target per page)", &|r| {
        r.figures.links.to_string()
    });
    row("links that resolve", &|r| {
        format!(
            "{} ({:.1}%)",
            r.figures.resolved,
            percent(r.figures.resolved, r.figures.links)
        )
    });
    row("wanted pages", &|r| r.wanted.to_string());
    row("orphan pages (no backlinks)", &|r| {
        format!(
            "{} ({:.1}%)",
            r.figures.orphans,
            percent(r.figures.orphans, r.figures.pages)
        )
    });
    row("stale pages left", &|r| r.figures.stale.to_string());
    row("compile calls", &|r| r.compile_calls.to_string());
    row("page calls", &|r| r.page_calls.to_string());
    row("pages read in parts (calls for the parts)", &|r| {
        format!("{} ({})", r.pages_read_in_parts, r.page_parts_calls)
    });
    row(
        "pages written with a call / with no new information / flagged / failed",
        &|r| {
            format!(
                "{} / {} / {} / {}",
                r.pages_written, r.no_new_information, r.pages_flagged, r.pages_failed
            )
        },
    );
    row("model calls per source", &|r| {
        format!(
            "{:.2}",
            (r.compile_calls + r.page_calls) as f64 / r.figures.sources.max(1) as f64
        )
    });
    row("wall time", &|r| format!("{:.2} s", r.wall.as_secs_f64()));
    row("of it, the stand-in server making answers", &|r| {
        format!("{:.0} ms", ms(r.model))
    });
    row("time in WikiMind (wall time minus the server's)", &|r| {
        format!("{:.2} s", r.wall.saturating_sub(r.model).as_secs_f64())
    });
    row("time in WikiMind per source", &|r| {
        format!(
            "{:.1} ms",
            ms(r.wall.saturating_sub(r.model)) / r.figures.sources.max(1) as f64
        )
    });
    for r in runs {
        assert_eq!(
            r.chats,
            r.compile_calls + r.page_calls,
            "the reports count every call"
        );
        if !r.figures.orphan_titles.is_empty() && r.figures.orphan_titles.len() <= 20 {
            println!(
                "\n{}: orphan pages: {}",
                r.name,
                r.figures.orphan_titles.join(", ")
            );
        }
        for failed in r.failed_sources.iter().take(5) {
            println!("{}: {failed}", r.name);
        }
    }
}

fn main() {
    let dir = book_dir();
    let (pages, redirects) = book_pages(&dir);
    let copies = tempfile::tempdir().expect("a temporary directory");
    let mains = main_only(&pages, copies.path());
    println!(
        "Rust Book: {} chapter and appendix pages from {} ({redirects} more such files only \
         redirect to another page: left out); test corpus: {} notes; the model reports a \
         context of {CONTEXT} tokens\n",
        pages.len(),
        dir.display(),
        corpus_notes().len()
    );
    println!("Columns:");
    println!("- book, as read: the pages as WikiMind's HTML reader reads them today;");
    println!("- book, <main>: each page's <main> element only (what the reader would give if it dropped mdBook's page furniture);");
    println!("- book, <main>, linked: the same, the stand-in also linking the titles the compile prompt lists that occur in the source;");
    println!("- corpus: tests/data/topics/notes, canned answers.\n");
    let runs = [
        run("book, as read", &pages, Answers::Canned),
        run("book, <main>", &mains, Answers::Canned),
        run("book, <main>, linked", &mains, Answers::LinkListedTitles),
        run("corpus", &corpus_notes(), Answers::Canned),
    ];
    print(&runs);
}
