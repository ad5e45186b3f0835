//! Grounding speed: a 1 MB source indexed and 100 quotes of up to 2,000 words looked up in
//! it (goal: well under 100 ms in all), and the old quadratic matcher, kept below as the
//! baseline, against the new one on a small case in the same run, as a ratio. Run with
//! `cargo bench --bench grounding`.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use wikimind::compile::ground::normalise;
use wikimind::compile::GroundingIndex;

#[path = "support/lcg.rs"]
mod lcg;
use lcg::Lcg;

/// Prose of about `bytes` bytes from a vocabulary of 3,000 words, in sentences and
/// paragraphs, with some accents and curly quotes; returned as words with what follows each.
fn prose(bytes: usize, rng: &mut Lcg) -> Vec<String> {
    let syllables = [
        "ka", "lo", "mi", "ra", "te", "su", "né", "vo", "di", "qu", "an", "el",
    ];
    let vocab: Vec<String> = (0..3_000)
        .map(|_| {
            (0..1 + rng.below(3))
                .map(|_| syllables[rng.below(12)])
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    let mut len = 0;
    while len < bytes {
        let word = &vocab[rng.below(vocab.len())];
        let after = match rng.below(40) {
            0 => ". ",
            1 => ", ",
            2 => ".\n\n",
            3 => "’s ",
            _ => " ",
        };
        let token = format!("{word}{after}");
        len += token.len();
        out.push(token);
    }
    out
}

/// 100 quotes of 2 to `max_words` words: a third verbatim, a third with one word changed
/// (most of them still grounded), a third invented from the same vocabulary.
fn quotes(words: &[String], max_words: usize, rng: &mut Lcg) -> Vec<String> {
    (0..100)
        .map(|i| {
            let n = 2 + rng.below(max_words - 1);
            let from = rng.below(words.len() - n);
            let mut run: Vec<String> = words[from..from + n].to_vec();
            match i % 3 {
                0 => {}
                1 => {
                    let at = rng.below(n);
                    run[at] = "changed ".into();
                }
                _ => {
                    for w in &mut run {
                        *w = words[rng.below(words.len())].clone();
                    }
                }
            }
            run.concat()
        })
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Indexes `source` and looks every quote up: (index time, look-up time, how many found).
fn new_matcher(source: &str, quotes: &[String]) -> (Duration, Duration, Vec<bool>) {
    let t = Instant::now();
    let index = GroundingIndex::new(source);
    let built = t.elapsed();
    let t = Instant::now();
    let found = quotes.iter().map(|q| index.contains(q)).collect();
    (built, t.elapsed(), found)
}

fn main() {
    let mut rng = Lcg(12);

    // 1 MB, new matcher only (the old one takes minutes here).
    let words = prose(1 << 20, &mut rng);
    let source = words.concat();
    let big_quotes = quotes(&words, 2_000, &mut rng);
    let mut builds = Vec::new();
    let mut lookups = Vec::new();
    let mut totals = Vec::new();
    let mut found = Vec::new();
    for _ in 0..7 {
        let (b, l, f) = new_matcher(&source, &big_quotes);
        builds.push(b);
        lookups.push(l);
        totals.push(b + l);
        found = f;
    }
    let quote_words: usize = big_quotes.iter().map(|q| q.split(' ').count()).sum();
    println!(
        "1 MB source ({} words), 100 quotes ({quote_words} words, {} grounded): median {:.1} ms in all (index {:.1} ms, look-ups {:.2} ms; goal well under 100 ms)",
        words.len(),
        found.iter().filter(|f| **f).count(),
        ms(median(totals)),
        ms(median(builds)),
        ms(median(lookups)),
    );

    // The common case: every quote verbatim, so the automaton for near misses is never
    // built.
    let verbatim: Vec<String> = big_quotes.iter().step_by(3).cloned().collect();
    let mut totals = Vec::new();
    for _ in 0..7 {
        let (b, l, f) = new_matcher(&source, &verbatim);
        assert!(f.iter().all(|f| *f));
        totals.push(b + l);
    }
    println!(
        "the same source, its {} verbatim quotes only: median {:.1} ms in all",
        verbatim.len(),
        ms(median(totals)),
    );

    // A small case both matchers finish: 20 KB, quotes of up to 200 words.
    let words = prose(20 * 1024, &mut rng);
    let source = words.concat();
    let small_quotes = quotes(&words, 200, &mut rng);
    let mut new_times = Vec::new();
    let mut old_times = Vec::new();
    for _ in 0..7 {
        let (b, l, new_found) = new_matcher(&source, &small_quotes);
        new_times.push(b + l);
        let t = Instant::now();
        let old = old::GroundingIndex::new(&source);
        let old_found: Vec<bool> = small_quotes.iter().map(|q| old.contains(q)).collect();
        old_times.push(t.elapsed());
        assert_eq!(new_found, old_found, "both matchers agree");
    }
    let (new, old) = (median(new_times), median(old_times));
    println!(
        "20 KB source, 100 quotes of up to 200 words: new {:.2} ms, old {:.2} ms; old/new {:.0}x",
        ms(new),
        ms(old),
        old.as_secs_f64() / new.as_secs_f64()
    );

    // The old matcher's worst case, small enough for it to finish: a source repeating ten
    // words and a near-miss quote (one word changed in the middle, so no run is long
    // enough and every source word matches many quote words).
    let cycle = |from: usize, n: usize| -> Vec<String> {
        (from..from + n)
            .map(|i| format!("word{}", i % 10))
            .collect()
    };
    let source = cycle(0, 3_000).join(" ");
    let mut quote = cycle(3, 301);
    quote[150] = "stranger".into();
    let quote = vec![quote.join(" ")];
    let mut new_times = Vec::new();
    let mut old_times = Vec::new();
    for _ in 0..7 {
        let (b, l, found) = new_matcher(&source, &quote);
        new_times.push(b + l);
        assert_eq!(found, [false]);
        let t = Instant::now();
        assert!(!old::GroundingIndex::new(&source).contains(&quote[0]));
        old_times.push(t.elapsed());
    }
    let (new, old) = (median(new_times), median(old_times));
    println!(
        "3,000 repeating words, one 301-word near miss: new {:.2} ms, old {:.2} ms; old/new {:.0}x",
        ms(new),
        ms(old),
        old.as_secs_f64() / new.as_secs_f64()
    );
}

/// The matcher before the index: a verbatim search through the whole text per quote, then
/// for near misses every source word against every quote word.
mod old {
    use super::*;

    pub struct GroundingIndex {
        text: String,
        fuzzy: std::sync::OnceLock<Fuzzy>,
    }

    struct Fuzzy {
        words: Vec<String>,
        pairs: HashSet<(String, String)>,
    }

    impl GroundingIndex {
        pub fn new(source: &str) -> GroundingIndex {
            GroundingIndex {
                text: normalise(source),
                fuzzy: std::sync::OnceLock::new(),
            }
        }

        fn fuzzy(&self) -> &Fuzzy {
            self.fuzzy.get_or_init(|| {
                let words: Vec<String> = words_of(&self.text).map(str::to_string).collect();
                let pairs = words
                    .windows(2)
                    .map(|w| (w[0].clone(), w[1].clone()))
                    .collect();
                Fuzzy { words, pairs }
            })
        }

        pub fn contains(&self, quote: &str) -> bool {
            let pieces: Vec<String> = quote
                .split("...")
                .flat_map(|p| p.split('…'))
                .map(normalise)
                .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
                .filter(|p| !p.is_empty())
                .collect();
            let words: usize = pieces.iter().map(|p| words_of(p).count()).sum();
            if words < 2 {
                return false;
            }
            pieces.iter().all(|p| self.piece_found(p))
        }

        fn piece_found(&self, piece: &str) -> bool {
            if contains_words(&self.text, piece) {
                return true;
            }
            let words: Vec<&str> = words_of(piece).collect();
            if words.len() < 6 {
                return false;
            }
            let pairs: Vec<(String, String)> = words
                .windows(2)
                .map(|w| (w[0].to_string(), w[1].to_string()))
                .collect();
            let hits = pairs
                .iter()
                .filter(|p| self.fuzzy().pairs.contains(*p))
                .count();
            if hits * 5 < pairs.len() * 4 {
                return false;
            }
            self.longest_run(&words) * 5 >= words.len() * 3
        }

        fn longest_run(&self, quote: &[&str]) -> usize {
            let words = &self.fuzzy().words;
            let mut best = 0;
            for start in 0..words.len() {
                if words[start] != quote[0] && !quote.contains(&words[start].as_str()) {
                    continue;
                }
                for (qi, q) in quote.iter().enumerate() {
                    if *q != words[start] {
                        continue;
                    }
                    let mut n = 0;
                    while qi + n < quote.len()
                        && start + n < words.len()
                        && quote[qi + n] == words[start + n]
                    {
                        n += 1;
                    }
                    best = best.max(n);
                }
            }
            best
        }
    }

    fn contains_words(text: &str, piece: &str) -> bool {
        let edge_ok = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        text.match_indices(piece).any(|(at, m)| {
            let before = text[..at].chars().next_back();
            let after = text[at + m.len()..].chars().next();
            let starts_word = piece.chars().next().is_some_and(char::is_alphanumeric);
            let ends_word = piece.chars().next_back().is_some_and(char::is_alphanumeric);
            (!starts_word || edge_ok(before)) && (!ends_word || edge_ok(after))
        })
    }

    fn words_of(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    }
}
