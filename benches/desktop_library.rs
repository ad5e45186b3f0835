//! How the desktop app's library behaves with many articles (a bench binary).
//!
//! ```text
//! cargo bench -p wikimind --bench desktop_library               # 10 000 articles
//! cargo bench -p wikimind --bench desktop_library -- 2000       # another size
//! cargo bench -p wikimind --bench desktop_library -- seed DIR N # a data dir of N pages, for the app
//! ```
//!
//! The wiki is the store's bulk seed (`Store::seed_bulk`: N pages, 3N links, one
//! transaction), cached by N under the target directory (`support/seeded.rs`) and copied
//! into a temporary data dir; `seed DIR N` copies it into `DIR` (which must hold no wiki).
//!
//! The timed part is what happens between launch and an interactive library on the Rust
//! side (open the store, build the library view with its first rows, serialise it as the
//! IPC layer does), the rows asked for as the list scrolls, and
//! the round trip of search-as-you-type (query and serialise the hits) for prefixes typed
//! one letter at a time. The window's own share (painting the virtualised list) is
//! not measured here.

use std::time::{Duration, Instant};

use wikimind::store::BulkSeed;
use wikimind::view::LibrarySort;
use wikimind::wiki::Wiki;

#[path = "support/seeded.rs"]
mod seeded;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// The `p`th percentile (0.0–1.0) of `v`, by nearest rank.
fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

/// This process's resident memory, its peak so far, and how much of it is file pages (the
/// database file read through its memory map, shared with the system's cache), in MB
/// (`VmRSS`, `VmHWM`, `RssFile` of `/proc/self/status`; `None` where there is no such file).
fn memory_mb() -> Option<(f64, f64, f64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: f64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb / 1024.0)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?, field("RssFile:")?))
}

fn bench(n: usize) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = seeded::seed_into(dir.path(), &BulkSeed::new(n))?;
    println!("{}", copy.describe());
    println!("seeded {n} articles in {:.1} s", copy.took.as_secs_f64());

    let mut open_to_library = Vec::new();
    let mut bytes = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let wiki = Wiki::open(dir.path()).map_err(|e| e.to_string())?;
        let lib = wiki
            .library(LibrarySort::Title, None)
            .map_err(|e| e.to_string())?;
        let json = serde_json::to_string(&lib).map_err(|e| e.to_string())?;
        open_to_library.push(t.elapsed());
        bytes = json.len();
        if lib.topic_count as usize != n
            || lib.entries.len() != n.min(wikimind::view::LIBRARY_FIRST_ROWS)
            || lib.counts.pages != n as u64
        {
            return Err(format!(
                "library lists {} of {} topics ({} pages) of the {n} seeded pages",
                lib.entries.len(),
                lib.topic_count,
                lib.counts.pages
            ));
        }
    }
    // Baseline, same run: the least work that yields the same list — one raw query of
    // every article's id, title and summary on a fresh connection, serialised.
    let db = dir.path().join("wikimind.db");
    let mut raw_list = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let conn = rusqlite::Connection::open(&db).map_err(|e| e.to_string())?;
        let mut stmt = conn
            .prepare("SELECT id, title, summary FROM articles ORDER BY title")
            .map_err(|e| e.to_string())?;
        let rows: Vec<(i64, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|e| e.to_string())?;
        let _ = serde_json::to_string(&rows).map_err(|e| e.to_string())?;
        raw_list.push(t.elapsed());
    }
    let (ours, base) = (median(open_to_library), median(raw_list));
    println!(
        "open + library view + JSON ({} KB): median {} over 5; baseline raw query + JSON {}; ratio {:.1}x",
        bytes / 1024,
        ms(ours),
        ms(base),
        ours.as_secs_f64() / base.as_secs_f64()
    );

    let wiki = Wiki::open(dir.path()).map_err(|e| e.to_string())?;
    // The window shows the library first (by title), then asks for rows and other orders.
    wiki.library(LibrarySort::Title, None)
        .map_err(|e| e.to_string())?;
    // Rows scrolled into view far down the list: a window of 200 asked for as the window does.
    let mut windows = Vec::new();
    for k in 1..=5 {
        let t = Instant::now();
        let rows = wiki
            .library_rows(LibrarySort::Title, None, k * n / 6, 200)
            .map_err(|e| e.to_string())?;
        let _ = serde_json::to_string(&rows).map_err(|e| e.to_string())?;
        windows.push(t.elapsed());
    }
    println!(
        "library rows scrolled into view (200 rows, 5 places down the list): median {}",
        ms(median(windows))
    );
    let t = Instant::now();
    let lib = wiki
        .library(LibrarySort::Updated, None)
        .map_err(|e| e.to_string())?;
    let _ = serde_json::to_string(&lib).map_err(|e| e.to_string())?;
    println!("re-sort by updated (warm): {}", ms(t.elapsed()));

    let typed = "extraction pres";
    let mut per_key = Vec::new();
    let mut worst = Duration::ZERO;
    for round in 0..5 {
        for end in 1..=typed.len() {
            let t = Instant::now();
            let hits = wiki.search_view(&typed[..end]).map_err(|e| e.to_string())?;
            let _ = serde_json::to_string(&hits).map_err(|e| e.to_string())?;
            let d = t.elapsed();
            if round > 0 {
                per_key.push(d);
                worst = worst.max(d);
            }
        }
    }
    // Baseline, same run: the bare FTS5 prefix query for the same keystrokes.
    let conn = rusqlite::Connection::open(&db).map_err(|e| e.to_string())?;
    let mut raw_keys = Vec::new();
    for end in 1..=typed.len() {
        let words: Vec<String> = typed[..end]
            .split_whitespace()
            .map(|w| format!("\"{w}\"*"))
            .collect();
        let t = Instant::now();
        let mut stmt = conn
            .prepare_cached("SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?1 LIMIT 50")
            .map_err(|e| e.to_string())?;
        let ids: Vec<i64> = stmt
            .query_map([words.join(" ")], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| e.to_string())?;
        std::hint::black_box(ids);
        raw_keys.push(t.elapsed());
    }
    let (ours, base) = (median(per_key.clone()), median(raw_keys.clone()));
    println!(
        "search as you type {typed:?}, one keystroke at a time: median {}, worst {} ({} queries); baseline bare FTS5 prefix query {}; ratio {:.1}x",
        ms(ours),
        ms(worst),
        per_key.len(),
        ms(base),
        ours.as_secs_f64() / base.as_secs_f64()
    );
    println!(
        "search as you type, per keystroke: p50 {}, p95 {}, worst {}; baseline bare FTS5 prefix query p50 {}, p95 {}, worst {}",
        ms(percentile(per_key.clone(), 0.5)),
        ms(percentile(per_key.clone(), 0.95)),
        ms(worst),
        ms(percentile(raw_keys.clone(), 0.5)),
        ms(percentile(raw_keys.clone(), 0.95)),
        ms(percentile(raw_keys, 1.0)),
    );
    let t = Instant::now();
    let page = wiki
        .page_view(wikimind::PageId(1))
        .map_err(|e| e.to_string())?;
    println!(
        "open one page (render + backlinks + sources + history): {} ({})",
        ms(t.elapsed()),
        page.map(|p| p.title).unwrap_or_default()
    );
    // Pages spread over the wiki (each opened once, as a person clicks through), against
    // a bare read of the same page's row.
    let ids: Vec<i64> = (0..50).map(|k| 1 + (k * n as i64 / 50)).collect();
    let mut opens = Vec::new();
    let mut rows = Vec::new();
    let mut stmt = conn
        .prepare_cached("SELECT title, summary, body FROM pages WHERE id = ?1")
        .map_err(|e| e.to_string())?;
    for id in &ids {
        let t = Instant::now();
        let page = wiki
            .page_view(wikimind::PageId(*id))
            .map_err(|e| e.to_string())?;
        let _ = serde_json::to_string(&page).map_err(|e| e.to_string())?;
        opens.push(t.elapsed());
        let t = Instant::now();
        let row: (String, String, String) = stmt
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| e.to_string())?;
        std::hint::black_box(row);
        rows.push(t.elapsed());
    }
    println!(
        "open a page, {} pages across the wiki (view + JSON): p50 {}, worst {}; baseline bare row read p50 {}",
        ids.len(),
        ms(percentile(opens.clone(), 0.5)),
        ms(percentile(opens, 1.0)),
        ms(percentile(rows, 0.5)),
    );
    if let Some((rss, peak, file)) = memory_mb() {
        println!(
            "memory with the wiki open (this process, after the reads above): resident {rss:.0} MB, peak {peak:.0} MB; of the resident, file pages {file:.0} MB (the database read through its memory map, shared with the system's cache)"
        );
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let result = match args.first().map(String::as_str) {
        Some("seed") => match args.get(1) {
            Some(dir) => {
                let n = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10_000);
                seeded::seed_into(std::path::Path::new(dir), &BulkSeed::new(n)).map(|copy| {
                    println!("{}", copy.describe());
                    println!(
                        "seeded {n} articles into {dir} in {:.1} s",
                        copy.took.as_secs_f64()
                    );
                })
            }
            None => Err("usage: desktop_library seed DIR [N]".into()),
        },
        Some(n) => match n.parse() {
            Ok(n) => bench(n),
            Err(_) => Err("usage: desktop_library [N] | seed DIR [N]".into()),
        },
        None => bench(10_000),
    };
    if let Err(e) = result {
        eprintln!("desktop_library: {e}");
        std::process::exit(1);
    }
}
