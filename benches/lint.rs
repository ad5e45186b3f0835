//! `wikimind lint` over a wiki of 100,000 pages and 300,000 links: the time of every
//! deterministic check, and its ratio to a bare SQL count of the links in the same run
//! (`SELECT COUNT(*) FROM page_links`); then the staleness check of 100,000 file sources,
//! which stats every file and reads only those whose size or time changed.
//!
//! The wiki is written straight into SQLite (one transaction), since compiling 100,000
//! sources is not what is measured: each page has a three-sentence body, one grounded
//! claim, one file source (a real small file, its size and time recorded as ingest records
//! them) and three links — 90% to other pages, 10% to 5,000 names no page has (wanted); one
//! page in a hundred links to a heading of another page, half of them to a heading it does
//! not have. The files go under the system's temp dir (`TMPDIR`; a tmpfs keeps the disk out
//! of the figure).
//!
//! `cargo bench -p wikimind --bench lint` (optionally `-- PAGES FILES`).

use std::time::{Duration, Instant};

use rusqlite::params;
use wikimind::lint::{lint, Check, LintOptions};
use wikimind::store::{page_key, Store};
use wikimind::wiki::Wiki;

/// A tiny deterministic generator (xorshift), so every run measures the same wiki.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "alpha", "brew", "crema", "dose", "extract", "filter", "grind", "heat", "infuse", "jug",
    "kettle", "latte", "milk", "nozzle", "origin", "pressure", "quench", "roast", "steam", "tamp",
    "umami", "valve", "water", "yield", "zest",
];

fn title(rng: &mut Rng, id: usize) -> String {
    let a = WORDS[rng.below(WORDS.len())];
    let b = WORDS[rng.below(WORDS.len())];
    format!("{a} {b} {id}")
}

fn build(dir: &std::path::Path, files: &std::path::Path, pages: usize, with_files: usize) {
    let path = dir.join("wikimind.db");
    drop(Store::open(&path).expect("a new wiki"));
    let mut conn = rusqlite::Connection::open(&path).expect("open");
    let tx = conn.transaction().expect("transaction");
    let mut rng = Rng(7);
    let titles: Vec<String> = (1..=pages).map(|id| title(&mut rng, id)).collect();
    {
        let mut source = tx
            .prepare(
                "INSERT INTO sources (id, origin, kind, text, content_hash, status, file_size,
                                      file_mtime_ns)
                 VALUES (?1, ?2, 'file', ?3, ?4, 'compiled', ?5, ?6)",
            )
            .expect("prepare");
        let mut page = tx
            .prepare(
                "INSERT INTO pages (id, kind, title, title_key, summary, body, version)
                 VALUES (?1, 'topic', ?2, ?3, 'A page.', ?4, 1)",
            )
            .expect("prepare");
        let mut feeds = tx
            .prepare("INSERT INTO page_sources (page_id, source_id) VALUES (?1, ?1)")
            .expect("prepare");
        let mut claim = tx
            .prepare(
                "INSERT INTO page_claims (page_id, position, claim, confidence, quote, grounded)
                 VALUES (?1, 0, ?2, 'sourced', ?2, 1)",
            )
            .expect("prepare");
        let mut link = tx
            .prepare(
                "INSERT OR IGNORE INTO page_links (page_id, position, target_title, target_key)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .expect("prepare");
        let mut names = tx
            .prepare(
                "INSERT OR IGNORE INTO digest_names (source_id, name_key, name)
                 VALUES (?1, ?2, ?3)",
            )
            .expect("prepare");
        for id in 1..=pages {
            let t = &titles[id - 1];
            let text = format!("# {t}\n\n{t} is brewed with care. It has a body.\n");
            let origin = files.join(format!("{id}.md"));
            let (size, mtime) = if id <= with_files {
                std::fs::write(&origin, &text).expect("write a note");
                let stamp =
                    wikimind::ingest::FileStamp::of(&std::fs::metadata(&origin).expect("stat"))
                        .expect("a modification time");
                (Some(stamp.size as i64), Some(stamp.mtime_ns))
            } else {
                (None, None)
            };
            source
                .execute(params![
                    id as i64,
                    origin.to_str().expect("a UTF-8 temp dir"),
                    text,
                    wikimind::store::content_hash(&text),
                    size,
                    mtime
                ])
                .expect("source");
            let mut body = format!(
                "## Method\n\n{t} is brewed with care. It is served hot. It has a body of its own."
            );
            if id % 100 == 0 {
                let to = &titles[rng.below(pages)];
                let heading = if id % 200 == 0 { "Method" } else { "Missing" };
                body.push_str(&format!(" See [[{to}#{heading}]]."));
            }
            page.execute(params![id as i64, t, page_key(t), body])
                .expect("page");
            feeds.execute([id as i64]).expect("feeds");
            claim
                .execute(params![id as i64, format!("{t} is brewed with care")])
                .expect("claim");
            for position in 0..3 {
                let target = if rng.below(10) == 0 {
                    format!("wanted name {}", rng.below(5_000))
                } else {
                    titles[rng.below(pages)].clone()
                };
                let key = page_key(&target);
                link.execute(params![id as i64, position, target, key])
                    .expect("link");
                if target.starts_with("wanted") {
                    names
                        .execute(params![id as i64, key, target])
                        .expect("name");
                }
            }
        }
    }
    tx.commit().expect("commit");
}

fn timed<T>(run: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = run();
    (value, start.elapsed())
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.parse::<usize>().expect("PAGES and FILES are numbers"));
    let pages = args.next().unwrap_or(100_000);
    let with_files = args.next().unwrap_or(pages).min(pages);
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir for the notes");
    let (_, built) = timed(|| build(dir.path(), files.path(), pages, with_files));
    let wiki = Wiki::open(dir.path()).expect("open");
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    println!(
        "wiki: {pages} pages, {} links, {with_files} files (built in {:.1}s)",
        conn.query_row("SELECT COUNT(*) FROM page_links", [], |r| r
            .get::<_, i64>(0))
            .expect("count"),
        built.as_secs_f64()
    );

    // Warm the page cache once so neither side pays for the first read.
    lint(&wiki, &LintOptions::default()).expect("lint");
    let (links, bare) = timed(|| {
        conn.query_row("SELECT COUNT(*) FROM page_links", [], |r| {
            r.get::<_, i64>(0)
        })
        .expect("count")
    });
    let not_stale = LintOptions {
        checks: Check::ALL
            .into_iter()
            .filter(|c| *c != Check::Stale)
            .collect(),
    };
    let (report, checks) = timed(|| lint(&wiki, &not_stale).expect("lint"));
    let (_, bare_again) = timed(|| {
        conn.query_row("SELECT COUNT(*) FROM page_links", [], |r| {
            r.get::<_, i64>(0)
        })
        .expect("count")
    });
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
    let (report, stale) = timed(|| lint(&wiki, &stale_only).expect("lint"));
    println!(
        "stale over {with_files} unchanged files (stat only): {:.3}s, {} findings",
        stale.as_secs_f64(),
        report.findings.len()
    );
    let changed = 100.min(with_files);
    for id in 1..=changed {
        let path = files.path().join(format!("{id}.md"));
        std::fs::write(&path, format!("# Changed {id}\n\nNew text.\n")).expect("edit");
    }
    let (report, stale) = timed(|| lint(&wiki, &stale_only).expect("lint"));
    println!(
        "stale with {changed} files edited (those read again): {:.3}s, {} findings",
        stale.as_secs_f64(),
        report.findings.len()
    );
    let (report, all) = timed(|| lint(&wiki, &LintOptions::default()).expect("lint"));
    println!(
        "every check: {:.3}s, {} findings; ratio to the bare count {:.0}x",
        all.as_secs_f64(),
        report.findings.len(),
        all.as_secs_f64() / bare.as_secs_f64().max(1e-9)
    );
}
