//! `wikimind lint` over a wiki of 100,000 pages and 300,000 links: the time of every
//! deterministic check, and its ratio to a bare SQL count of the links in the same run
//! (`SELECT COUNT(*) FROM page_links`); then the staleness check of 100,000 file sources,
//! which stats every file and reads only those whose size or time changed.
//!
//! The wiki is the store's bulk seed (`Store::seed_bulk`, one transaction; cached by size
//! under the target directory, `support/seeded.rs`), its sources notes of a vault, since
//! compiling 100,000 sources is not what is measured: each page has a body of two sections,
//! three claims (one grounded in its note; one page in fifty is a stub with none), a note
//! (its size and time recorded as ingest records them) and three links — about 90% to other
//! pages, 10% to names no page has (wanted); one page in a hundred links to a heading of
//! another page, half of them to a heading it does not have. The notes are written for each
//! run under the system's temp dir (`TMPDIR`; a tmpfs keeps the disk out of the figure).
//!
//! Lint keeps what its checks found while the wiki does not change: each cold figure is
//! taken on a wiki opened afresh, and the last line times a second run with nothing
//! changed against the first.
//!
//! `cargo bench -p wikimind --bench lint` (optionally `-- PAGES FILES`).

use std::time::{Duration, Instant};

use wikimind::lint::{lint, Check, LintOptions};
use wikimind::store::BulkSeed;
use wikimind::wiki::Wiki;

#[path = "support/seeded.rs"]
mod seeded;

/// Where the seeded notes are: a fixed folder per size, so the cached wiki's origins find
/// them.
fn vault(pages: usize) -> String {
    std::env::temp_dir()
        .join(format!("wikimind-bench-notes-{pages}"))
        .to_str()
        .expect("a UTF-8 temp dir")
        .to_owned()
}

fn build(dir: &std::path::Path, pages: usize, with_files: usize) -> Vec<std::path::PathBuf> {
    let vault = vault(pages);
    let copy = seeded::seed_into(
        dir,
        &BulkSeed {
            vault: Some(vault.clone()),
            ..BulkSeed::new(pages)
        },
    )
    .expect("seed the wiki");
    println!("{}", copy.describe());
    let _ = std::fs::remove_dir_all(&vault);
    let wiki = Wiki::open(dir).expect("open");
    seeded::write_notes(&wiki, with_files).expect("write the notes")
}

fn timed<T>(run: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = run();
    (value, start.elapsed())
}

/// The median of three timed runs (`run` times its own, each on a wiki opened afresh):
/// lint's checks run side by side, and one run alone moved by a quarter from one to the
/// next.
fn median_of_three<T>(mut run: impl FnMut() -> (T, Duration)) -> (T, Duration) {
    let mut runs: Vec<(T, Duration)> = (0..3).map(|_| run()).collect();
    runs.sort_by_key(|(_, took)| *took);
    runs.swap_remove(1)
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.parse::<usize>().expect("PAGES and FILES are numbers"));
    let pages = args.next().unwrap_or(100_000);
    let with_files = args.next().unwrap_or(pages).min(pages);
    let dir = tempfile::tempdir().expect("tempdir");
    let (notes, built) = timed(|| build(dir.path(), pages, with_files));
    // Lint keeps what its checks found while the wiki does not change; each cold figure is
    // taken on a wiki opened afresh, so it holds nothing yet.
    let open = || Wiki::open(dir.path()).expect("open");
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    println!(
        "wiki: {pages} pages, {} links, {with_files} files (built in {:.1}s)",
        conn.query_row("SELECT COUNT(*) FROM page_links", [], |r| r
            .get::<_, i64>(0))
            .expect("count"),
        built.as_secs_f64()
    );

    // Warm the page cache once so neither side pays for the first read.
    lint(&open(), &LintOptions::default()).expect("lint");
    // The bare count at its quickest of three: the first after another connection wrote
    // reads the schema again.
    let count = || {
        (0..3)
            .map(|_| {
                timed(|| {
                    conn.query_row("SELECT COUNT(*) FROM page_links", [], |r| {
                        r.get::<_, i64>(0)
                    })
                    .expect("count")
                })
            })
            .min_by_key(|(_, took)| *took)
            .expect("three counts")
    };
    let (links, bare) = count();
    let not_stale = LintOptions {
        checks: Check::ALL
            .into_iter()
            .filter(|c| *c != Check::Stale)
            .collect(),
    };
    let (report, checks) = median_of_three(|| {
        let wiki = open();
        timed(|| lint(&wiki, &not_stale).expect("lint"))
    });
    let (_, bare_again) = count();
    let bare = bare.min(bare_again);
    let s = &report.summary;
    println!(
        "lint without stale: {:.3}s for {} findings ({} broken links, {} wanted, {} orphans, {} duplicates, {} thin; {}% of links resolve)",
        checks.as_secs_f64(),
        report.findings.len(),
        s.broken_links.unwrap_or(0),
        s.wanted.unwrap_or(0),
        s.orphans.unwrap_or(0),
        s.duplicates.unwrap_or(0),
        s.thin.unwrap_or(0),
        s.link_resolution
    );
    println!(
        "bare SELECT COUNT(*) FROM page_links ({links}): {:.3}ms; ratio {:.0}x",
        bare.as_secs_f64() * 1000.0,
        checks.as_secs_f64() / bare.as_secs_f64().max(1e-9)
    );

    let mut each = Vec::new();
    for check in Check::ALL {
        let one = LintOptions {
            checks: vec![check],
        };
        let wiki = open();
        let (_, took) = timed(|| lint(&wiki, &one).expect("lint"));
        each.push(format!("{} {:.3}s", check.as_str(), took.as_secs_f64()));
    }
    println!(
        "each check alone (with the link counts every run makes): {}",
        each.join(", ")
    );

    let stale_only = LintOptions {
        checks: vec![Check::Stale],
    };
    let wiki = open();
    let (report, stale) = timed(|| lint(&wiki, &stale_only).expect("lint"));
    println!(
        "stale over {with_files} unchanged files (stat only): {:.3}s, {} findings",
        stale.as_secs_f64(),
        report.findings.len()
    );
    let changed = 100.min(with_files);
    for (id, path) in notes.iter().take(changed).enumerate() {
        std::fs::write(path, format!("# Changed {id}\n\nNew text.\n")).expect("edit");
    }
    let wiki = open();
    let (report, stale) = timed(|| lint(&wiki, &stale_only).expect("lint"));
    println!(
        "stale with {changed} files edited (those read again): {:.3}s, {} findings",
        stale.as_secs_f64(),
        report.findings.len()
    );
    let (report, all) = median_of_three(|| {
        let wiki = open();
        timed(|| lint(&wiki, &LintOptions::default()).expect("lint"))
    });
    let wiki = open();
    lint(&wiki, &LintOptions::default()).expect("lint");
    println!(
        "every check: {:.3}s, {} findings; ratio to the bare count {:.0}x",
        all.as_secs_f64(),
        report.findings.len(),
        all.as_secs_f64() / bare.as_secs_f64().max(1e-9)
    );
    // The same wiki again with nothing changed (a second look at Health): what the checks
    // found is held, and only the staleness check (which reads the disk) runs.
    let (again, held) = timed(|| lint(&wiki, &LintOptions::default()).expect("lint"));
    assert_eq!(again.findings.len(), report.findings.len());
    println!(
        "every check again, nothing changed (held; stale checked): {:.3}s; ratio to every check {:.2}x",
        held.as_secs_f64(),
        held.as_secs_f64() / all.as_secs_f64().max(1e-9)
    );
    let _ = std::fs::remove_dir_all(vault(pages));
}
