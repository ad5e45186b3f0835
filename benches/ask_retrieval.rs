//! Retrieval for `ask` in a wiki of 100,000 pages: the time from a question to the pages
//! it reads (content words, pages the question names, full-text BM25 over five columns,
//! pages one link away), p50 and p95 over 300 questions, against a bare FTS5 query for the
//! same words in the same run (`SELECT rowid … MATCH … ORDER BY rank LIMIT 8`).
//!
//! The wiki is the store's bulk seed (`Store::seed_bulk`: pages, 3 links each, one
//! transaction), cached by size under the target directory (`support/seeded.rs`), since
//! compiling 100,000 sources through a model is not what is measured. Its words come from a
//! 6,000-word vocabulary with a Zipf-like skew, so common words match thousands of pages
//! and rare ones a handful, as in a real wiki. Half the questions name a page's title words,
//! half take three words of a page's summary (so they follow the same skew).
//!
//! `cargo bench -p wikimind --bench ask_retrieval` (optionally `-- PAGES QUESTIONS`).

use std::time::{Duration, Instant};

use wikimind::store::BulkSeed;
use wikimind::wiki::Wiki;

#[path = "support/seeded.rs"]
mod seeded;

/// A tiny deterministic generator (xorshift), so every run asks the same questions.
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let pages = args.first().copied().unwrap_or(100_000);
    let questions = args.get(1).copied().unwrap_or(300);
    let dir = tempfile::tempdir().expect("tempdir");

    let copy = seeded::seed_into(dir.path(), &BulkSeed::new(pages)).expect("seed the wiki");
    println!("{}", copy.describe());
    println!("built {pages} pages in {:.1} s", copy.took.as_secs_f64());

    let wiki = Wiki::open(dir.path()).expect("open the wiki");
    let listed = wiki.store_for_tests().pages().expect("list the pages");
    let titles: Vec<&str> = listed.iter().map(|p| p.title.as_str()).collect();
    // A summary reads "Title is w1 w2 …": its words after the title.
    let summaries: Vec<Vec<&str>> = listed
        .iter()
        .map(|p| {
            p.summary[p.title.len()..]
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty() && *w != "is")
                .collect()
        })
        .collect();
    let conn = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    let mut bare = conn
        .prepare("SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?1 ORDER BY rank LIMIT 8")
        .expect("prepare");

    let started = Instant::now();
    wiki.retrieve("the first question of a new process")
        .expect("retrieve");
    println!(
        "first question of a process: {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );

    let mut rng = Rng(7);
    let mut ours = Vec::with_capacity(questions);
    let mut baseline = Vec::with_capacity(questions);
    let mut read = 0usize;
    for i in 0..questions {
        // Half the questions name a page's topic words, half are just words.
        let question = if i % 2 == 0 {
            let title = titles[rng.below(titles.len())];
            let words: Vec<&str> = title.split(' ').take(2).collect();
            format!("What does the wiki say about {} {}?", words[0], words[1])
        } else {
            let summary = &summaries[rng.below(summaries.len())];
            let w: Vec<&str> = (0..3).map(|_| summary[rng.below(summary.len())]).collect();
            format!("How is {} related to {} and {}?", w[0], w[1], w[2])
        };
        let words = wikimind::ask::words::content_words(&question);
        let fts: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
        let fts = fts.join(" OR ");

        let mut run_bare = || {
            let t = Instant::now();
            let found: Vec<i64> = bare
                .query_map([&fts], |row| row.get(0))
                .expect("query")
                .collect::<rusqlite::Result<_>>()
                .expect("rows");
            std::hint::black_box(found);
            t.elapsed()
        };
        let run_ours = || {
            let t = Instant::now();
            let retrieval = wiki.retrieve(&question).expect("retrieve");
            (t.elapsed(), retrieval.pages().count())
        };
        // Whichever runs second finds the pages its words touch in the cache: take turns.
        let (b, (o, n)) = if i % 4 < 2 {
            let b = run_bare();
            (b, run_ours())
        } else {
            let o = run_ours();
            (run_bare(), o)
        };
        baseline.push(b);
        ours.push(o);
        read += n;
    }
    ours.sort();
    baseline.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (o50, o95) = (percentile(&ours, 0.5), percentile(&ours, 0.95));
    let (b50, b95) = (percentile(&baseline, 0.5), percentile(&baseline, 0.95));
    println!(
        "{questions} questions over {pages} pages ({:.1} pages read per question)",
        read as f64 / questions as f64
    );
    println!(
        "bare FTS5 query:   p50 {:.2} ms  p95 {:.2} ms",
        ms(b50),
        ms(b95)
    );
    println!(
        "ask retrieval:     p50 {:.2} ms  p95 {:.2} ms",
        ms(o50),
        ms(o95)
    );
    println!(
        "ratio to bare FTS5: p50 {:.2}x  p95 {:.2}x",
        ms(o50) / ms(b50).max(1e-6),
        ms(o95) / ms(b95).max(1e-6)
    );
}
