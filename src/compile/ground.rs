//! Grounding: every `sourced` claim's quote must be found in the source text.
//!
//! Text is normalised before matching (case, whitespace, curly quotes and dashes,
//! punctuation at the quote's ends), a quote with `...` is matched piece by piece, and
//! small differences are allowed for quotes of six words or more: at least 80% of the
//! quote's word pairs must appear in the source, and one exact run must cover 60% of it. A
//! quote not found downgrades the claim to `inferred`, keeping the quote, with
//! `grounded: false`; a reader never sees an invented quote labelled sourced.

use std::collections::HashSet;

use crate::contract::{CheckedClaim, Claim, Confidence};

/// A source prepared for many quote look-ups.
pub struct GroundingIndex {
    text: String,
    /// Words and word pairs, built on the first fuzzy look-up (most quotes match exactly).
    fuzzy: std::sync::OnceLock<Fuzzy>,
}

struct Fuzzy {
    words: Vec<String>,
    pairs: HashSet<(String, String)>,
}

impl GroundingIndex {
    /// Normalises `source` for look-ups.
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

    /// Whether `quote` is found in the source.
    pub fn contains(&self, quote: &str) -> bool {
        let pieces: Vec<String> = split_ellipsis(quote)
            .into_iter()
            .map(normalise)
            .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .filter(|p| !p.is_empty())
            .collect();
        // One word is not a quote: "the" or "owner" is in almost any source.
        let words: usize = pieces.iter().map(|p| words_of(p).count()).sum();
        if words < MIN_QUOTE_WORDS {
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
        // The pairs must also line up: one exact run covers 60% of the quote.
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

/// Checks every claim against the source, downgrading sourced claims whose quote is not in
/// it.
pub fn ground_claims(claims: &[Claim], source: &str) -> Vec<CheckedClaim> {
    let index = GroundingIndex::new(source);
    claims
        .iter()
        .map(|c| {
            let found = c.quote.as_deref().is_some_and(|q| index.contains(q));
            let confidence = match c.confidence {
                Confidence::Sourced if !found => Confidence::Inferred,
                other => other,
            };
            CheckedClaim {
                claim: c.claim.clone(),
                confidence,
                quote: c.quote.clone(),
                grounded: found,
            }
        })
        .collect()
}

/// The fewest words a quote must have to ground a claim.
const MIN_QUOTE_WORDS: usize = 2;

/// Whether `piece` occurs in `text` starting and ending at word boundaries ("wner at"
/// is not found in "owner at").
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

/// The words of normalised text: runs of letters and digits.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

fn split_ellipsis(quote: &str) -> Vec<&str> {
    quote.split("...").flat_map(|p| p.split('…')).collect()
}

/// Lowercases, unifies quote characters and dashes, and collapses whitespace.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = true;
    for c in text.chars() {
        match normalise_char(c) {
            None => {
                if !space {
                    out.push(' ');
                }
                space = true;
            }
            Some(lower) => {
                out.extend(lower);
                space = false;
            }
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// One character as [`normalise`] writes it: `None` for whitespace (and markdown emphasis
/// marks, read as spaces), else its lowercase with quote characters and dashes unified.
pub(crate) fn normalise_char(c: char) -> Option<std::char::ToLowercase> {
    let c = match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' | '`' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '«' | '»' => '"',
        '\u{2010}'..='\u{2015}' => '-',
        '*' | '_' => return None,
        c if c.is_whitespace() => return None,
        c => c,
    };
    Some(c.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "Rust’s ownership model guarantees memory safety   without a garbage collector.\n\
        Each value in Rust has a variable that’s called its *owner*. There can only be one owner at a time.";

    fn claim(quote: &str) -> Claim {
        Claim {
            claim: "c".into(),
            confidence: Confidence::Sourced,
            quote: Some(quote.into()),
        }
    }

    #[test]
    fn table_of_quotes() {
        let cases = [
            ("guarantees memory safety without a garbage collector", true),
            ("Rust's ownership model guarantees memory safety", true),
            ("RUST'S OWNERSHIP MODEL", true),
            ("\"There can only be one owner at a time.\"", true),
            ("a variable that's called its owner", true),
            ("Rust's ownership model ... one owner at a time", true),
            (
                "Each value in Rust has a variable that is called its owner",
                true,
            ),
            ("Rust has a garbage collector", false),
            ("memory safety is guaranteed by the borrow checker", false),
            ("owner", false),
            ("one owner", true),
            ("wner at a", false),
            ("only be one own", false),
            ("ownership model", true),
            ("", false),
            ("...", false),
        ];
        let index = GroundingIndex::new(SOURCE);
        for (quote, want) in cases {
            assert_eq!(index.contains(quote), want, "{quote:?}");
        }
    }

    #[test]
    fn invented_quotes_are_downgraded_but_kept() {
        let claims = vec![
            claim("one owner at a time"),
            claim("Rust was designed by a committee of wizards"),
            Claim {
                claim: "no quote".into(),
                confidence: Confidence::Sourced,
                quote: None,
            },
            Claim {
                claim: "an opinion".into(),
                confidence: Confidence::Opinion,
                quote: None,
            },
        ];
        let checked = ground_claims(&claims, SOURCE);
        assert_eq!(checked[0].confidence, Confidence::Sourced);
        assert!(checked[0].grounded);
        assert_eq!(checked[1].confidence, Confidence::Inferred);
        assert!(!checked[1].grounded);
        assert_eq!(
            checked[1].quote.as_deref(),
            Some("Rust was designed by a committee of wizards")
        );
        assert_eq!(checked[2].confidence, Confidence::Inferred);
        assert_eq!(checked[3].confidence, Confidence::Opinion);
    }
}
