//! Retrieval for `ask` in a wiki of 100,000 pages: the time from a question to the pages
//! it reads (content words, pages the question names, full-text BM25 over five columns,
//! pages one link away), p50 and p95 over 300 questions, against a bare FTS5 query for the
//! same words in the same run (`SELECT rowid … MATCH … ORDER BY rank LIMIT 8`).
//!
//! The wiki is written straight into SQLite (one transaction; the triggers keep the index),
//! since compiling 100,000 sources through a model is not what is measured. Pages are made
//! of words drawn from a 6,000-word vocabulary with a Zipf-like skew, so common words match
//! thousands of pages and rare ones a handful, as in a real wiki.
//!
//! `cargo bench -p wikimind --bench ask_retrieval` (optionally `-- PAGES QUESTIONS`).

use std::time::{Duration, Instant};

use rusqlite::params;
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

    /// An index in `0..n` skewed toward 0 (about Zipf with exponent 1).
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

/// Pronounceable made-up words: `ka`, `tolu`, `mirsane`, …
fn vocabulary(n: usize) -> Vec<String> {
    const ONSETS: &[&str] = &["k", "t", "m", "r", "s", "l", "v", "d", "n", "b", "p", "g"];
    const VOWELS: &[&str] = &["a", "e", "i", "o", "u"];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut words = std::collections::BTreeSet::new();
    while words.len() < n {
        let syllables = 2 + rng.below(3);
        let word: String = (0..syllables)
            .map(|_| {
                format!(
                    "{}{}",
                    ONSETS[rng.below(ONSETS.len())],
                    VOWELS[rng.below(VOWELS.len())]
                )
            })
            .collect();
        words.insert(word);
    }
    let mut words: Vec<String> = words.into_iter().collect();
    // Shuffle so the skew does not follow the alphabet.
    for i in (1..words.len()).rev() {
        words.swap(i, rng.below(i + 1));
    }
    words
}

fn sentence(rng: &mut Rng, vocab: &[String], words: usize) -> String {
    let mut s: Vec<&str> = (0..words)
        .map(|_| vocab[rng.skewed(vocab.len())].as_str())
        .collect();
    s.dedup();
    let mut text = s.join(" ");
    if let Some(first) = text.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    text.push('.');
    text
}

fn build(dir: &std::path::Path, pages: usize, vocab: &[String]) -> Vec<String> {
    let path = dir.join("wikimind.db");
    drop(Store::open(&path).expect("a new wiki"));
    let mut conn = rusqlite::Connection::open(&path).expect("open");
    let tx = conn.transaction().expect("transaction");
    let mut rng = Rng(42);
    let mut titles: Vec<String> = Vec::with_capacity(pages);
    {
        let mut page = tx
            .prepare(
                "INSERT INTO pages (id, kind, title, title_key, summary, body, version)
                 VALUES (?1, 'topic', ?2, ?3, ?4, ?5, 1)",
            )
            .expect("prepare");
        let mut claim = tx
            .prepare(
                "INSERT INTO page_claims (page_id, position, claim, confidence, quote, grounded)
                 VALUES (?1, ?2, ?3, 'sourced', ?4, 1)",
            )
            .expect("prepare");
        let mut alias = tx
            .prepare("INSERT INTO aliases (page_id, name, name_key) VALUES (?1, ?2, ?3)")
            .expect("prepare");
        for id in 1..=pages {
            // Titles from the rarer half of the vocabulary, numbered to stay unique.
            let a = &vocab[vocab.len() / 2 + rng.below(vocab.len() / 2)];
            let b = &vocab[vocab.len() / 4 + rng.below(vocab.len() * 3 / 4)];
            let title = format!("{a} {b} {id}");
            let summary = sentence(&mut rng, vocab, 18);
            let body: Vec<String> = (0..6).map(|_| sentence(&mut rng, vocab, 16)).collect();
            let body = format!("{}\n\nSee [[{}]].", body.join(" "), title);
            page.execute(params![id as i64, title, page_key(&title), summary, body])
                .expect("page");
            for position in 0..3 {
                let quote = sentence(&mut rng, vocab, 10);
                claim
                    .execute(params![id as i64, position, quote.clone(), quote])
                    .expect("claim");
            }
            if id % 10 == 0 {
                let name = format!("{a} {id}");
                alias
                    .execute(params![id as i64, name, page_key(&name)])
                    .expect("alias");
            }
            titles.push(title);
        }
        let mut link = tx
            .prepare(
                "INSERT OR IGNORE INTO page_links (page_id, position, target_title, target_key)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .expect("prepare");
        for id in 1..=pages {
            for position in 0..3 {
                let target = &titles[rng.below(pages)];
                link.execute(params![id as i64, position, target, page_key(target)])
                    .expect("link");
            }
        }
    }
    tx.commit().expect("commit");
    titles
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
    let vocab = vocabulary(6_000);
    let dir = tempfile::tempdir().expect("tempdir");

    let started = Instant::now();
    let titles = build(dir.path(), pages, &vocab);
    println!(
        "built {pages} pages in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let wiki = Wiki::open(dir.path()).expect("open the wiki");
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
            let title = &titles[rng.below(titles.len())];
            let words: Vec<&str> = title.split(' ').take(2).collect();
            format!("What does the wiki say about {} {}?", words[0], words[1])
        } else {
            let w: Vec<&str> = (0..3)
                .map(|_| vocab[rng.skewed(vocab.len())].as_str())
                .collect();
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
