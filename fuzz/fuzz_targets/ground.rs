//! Arbitrary source and quote through grounding: the indexed matcher must not panic and
//! must agree with a plain reference matcher (quadratic, so only fine on fuzz-sized input).
//! The input is the source, a 0xFF byte (never in UTF-8), then the quote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind::compile::GroundingIndex;

fuzz_target!(|data: &[u8]| {
    let (source, quote) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &data[data.len() / 2..]),
    };
    let source = String::from_utf8_lossy(source);
    let quote = String::from_utf8_lossy(quote);
    let index = GroundingIndex::new(&source);
    assert_eq!(
        index.contains(&quote),
        reference::contains(&source, &quote),
        "source {source:?}, quote {quote:?}"
    );
});

/// What grounding means, written plainly: normalise both, split the quote at ellipses,
/// then each piece is found verbatim at word boundaries, or (six words or more) 80% of its
/// word pairs are in the source and one run of its words covers 60% of it.
mod reference {
    use wikimind::compile::ground::normalise;

    fn words_of(text: &str) -> Vec<&str> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect()
    }

    pub fn contains(source: &str, quote: &str) -> bool {
        let text = normalise(source);
        let words = words_of(&text);
        let pieces: Vec<String> = quote
            .split("...")
            .flat_map(|p| p.split('…'))
            .map(normalise)
            .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let count: usize = pieces.iter().map(|p| words_of(p).len()).sum();
        count >= 2 && pieces.iter().all(|p| piece_found(&text, &words, p))
    }

    fn piece_found(text: &str, words: &[&str], piece: &str) -> bool {
        let edge = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        let verbatim = text.char_indices().any(|(at, _)| {
            text[at..].starts_with(piece)
                && edge(text[..at].chars().next_back())
                && edge(text[at + piece.len()..].chars().next())
        });
        if verbatim {
            return true;
        }
        let quote = words_of(piece);
        if quote.len() < 6 {
            return false;
        }
        let hits = quote
            .windows(2)
            .filter(|q| words.windows(2).any(|w| w == *q))
            .count();
        if hits * 5 < (quote.len() - 1) * 4 {
            return false;
        }
        let mut best = 0;
        for start in 0..words.len() {
            for qi in 0..quote.len() {
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
        best * 5 >= quote.len() * 3
    }
}
