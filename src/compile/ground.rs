//! Grounding: every `sourced` claim's quote must be found in the source text.
//!
//! Text is normalised before matching (case, whitespace, curly quotes and dashes,
//! punctuation at the quote's ends), a quote with `...` is matched piece by piece, and
//! small differences are allowed for quotes of six words or more: at least 80% of the
//! quote's word pairs must appear in the source, and one exact run must cover 60% of it. A
//! quote not found downgrades the claim to `inferred`, keeping the quote, with
//! `grounded: false`; a reader never sees an invented quote labelled sourced.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::contract::{CheckedClaim, Claim, Confidence};

/// A source prepared for many quote look-ups, each in time proportional to the quote's
/// length, whatever the source's.
///
/// The normalised source is cut into tokens, each a word (a run of letters and digits) or
/// the separator between two words, and two suffix automata are built over them: one over
/// words and separators (a quote found verbatim), one over words alone (a quote that
/// differs a little). Building costs time and memory proportional to the source; build it
/// once per source and reuse it for every quote of every answer.
pub struct GroundingIndex {
    /// Every distinct token of the source. A quote token not in it is not in the source.
    vocab: HashMap<Box<str>, u32>,
    /// Words and separators, in order.
    exact: SuffixAutomaton,
    /// Words alone, built on the first fuzzy look-up (most quotes match exactly).
    fuzzy: OnceLock<SuffixAutomaton>,
    /// The source's words as token ids, for the fuzzy automaton.
    words: Vec<u32>,
}

impl GroundingIndex {
    /// Normalises `source` and indexes it for look-ups.
    pub fn new(source: &str) -> GroundingIndex {
        let text = normalise(source);
        let mut vocab: HashMap<Box<str>, u32> = HashMap::new();
        let mut all = Vec::new();
        let mut words = Vec::new();
        for (is_word, token) in tokens(&text) {
            let id = match vocab.get(token) {
                Some(&id) => id,
                None => {
                    let id = vocab.len() as u32;
                    vocab.insert(token.into(), id);
                    id
                }
            };
            all.push(id);
            if is_word {
                words.push(id);
            }
        }
        GroundingIndex {
            vocab,
            exact: SuffixAutomaton::new(&all),
            fuzzy: OnceLock::new(),
            words,
        }
    }

    fn fuzzy(&self) -> &SuffixAutomaton {
        self.fuzzy.get_or_init(|| SuffixAutomaton::new(&self.words))
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

    /// Whether one normalised piece of a quote (starting and ending with a letter or digit)
    /// is in the source: verbatim, starting and ending at word boundaries ("wner at" is not
    /// found in "owner at"), or, from six words on, with small differences: at least 80%
    /// of its word pairs appear in the source and one exact run covers 60% of it.
    fn piece_found(&self, piece: &str) -> bool {
        // The piece starts with a word, so a path through the automaton is an occurrence
        // starting at a word of the source; it ends with a whole word of the source too,
        // since a word token is only equal to a whole word.
        let verbatim = tokens(piece)
            .map(|(_, t)| self.vocab.get(t).copied())
            .try_fold(ROOT, |state, id| self.exact.next(state, id?));
        if verbatim.is_some() {
            return true;
        }
        let words: Vec<Option<u32>> = words_of(piece)
            .map(|w| self.vocab.get(w).copied())
            .collect();
        if words.len() < 6 {
            return false;
        }
        let fuzzy = self.fuzzy();
        let hits = words
            .windows(2)
            .filter(|pair| match (pair[0], pair[1]) {
                (Some(a), Some(b)) => fuzzy.next(ROOT, a).and_then(|s| fuzzy.next(s, b)).is_some(),
                _ => false,
            })
            .count();
        if hits * 5 < (words.len() - 1) * 4 {
            return false;
        }
        // The pairs must also line up: one exact run covers 60% of the quote.
        fuzzy.longest_common_run(&words) * 5 >= words.len() * 3
    }
}

/// The root state of a suffix automaton (the empty string).
const ROOT: u32 = 0;
/// No state, or no edge.
const NONE: u32 = u32::MAX;

/// The smallest automaton accepting every substring of a token sequence (Blumer et al.,
/// 1985), built in time linear in the sequence. A substring of the sequence is a path from
/// the root, so a quote is looked up in time linear in its own length.
struct SuffixAutomaton {
    /// Per state: the length of the longest string reaching it.
    len: Vec<u32>,
    /// Per state: its suffix link (the state of its longest suffix reaching elsewhere).
    link: Vec<u32>,
    /// Per state: the head of its list of outgoing tokens, to copy a state's edges.
    first_edge: Vec<u32>,
    /// Per edge: its token and the next edge of the same state.
    edges: Vec<(u32, u32)>,
    /// Transitions: (state, token) to state.
    next: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
}

impl SuffixAutomaton {
    fn new(tokens: &[u32]) -> SuffixAutomaton {
        let mut a = SuffixAutomaton {
            len: Vec::with_capacity(tokens.len() * 2 + 1),
            link: Vec::with_capacity(tokens.len() * 2 + 1),
            first_edge: Vec::with_capacity(tokens.len() * 2 + 1),
            edges: Vec::with_capacity(tokens.len() * 3),
            next: HashMap::with_capacity_and_hasher(tokens.len() * 3, Default::default()),
        };
        a.add_state(0, NONE);
        let mut last = ROOT;
        for &t in tokens {
            let cur = a.add_state(a.len[last as usize] + 1, NONE);
            let mut p = last;
            while p != NONE && a.next(p, t).is_none() {
                a.add_edge(p, t, cur);
                p = a.link[p as usize];
            }
            if p == NONE {
                a.link[cur as usize] = ROOT;
            } else {
                let q = a.next(p, t).expect("the loop stopped at an edge");
                if a.len[p as usize] + 1 == a.len[q as usize] {
                    a.link[cur as usize] = q;
                } else {
                    let clone = a.add_state(a.len[p as usize] + 1, a.link[q as usize]);
                    let mut e = a.first_edge[q as usize];
                    while e != NONE {
                        let (token, after) = a.edges[e as usize];
                        let to = a.next(q, token).expect("listed edges exist");
                        a.add_edge(clone, token, to);
                        e = after;
                    }
                    while p != NONE && a.next(p, t) == Some(q) {
                        a.next.insert(key(p, t), clone);
                        p = a.link[p as usize];
                    }
                    a.link[q as usize] = clone;
                    a.link[cur as usize] = clone;
                }
            }
            last = cur;
        }
        a
    }

    fn add_state(&mut self, len: u32, link: u32) -> u32 {
        self.len.push(len);
        self.link.push(link);
        self.first_edge.push(NONE);
        (self.len.len() - 1) as u32
    }

    fn add_edge(&mut self, from: u32, token: u32, to: u32) {
        self.next.insert(key(from, token), to);
        self.edges.push((token, self.first_edge[from as usize]));
        self.first_edge[from as usize] = (self.edges.len() - 1) as u32;
    }

    fn next(&self, state: u32, token: u32) -> Option<u32> {
        self.next.get(&key(state, token)).copied()
    }

    /// The length of the longest run of `tokens` that is also a run of the sequence
    /// (`None` is a token not in the sequence): one pass, following suffix links on a
    /// mismatch.
    fn longest_common_run(&self, tokens: &[Option<u32>]) -> usize {
        let (mut state, mut run, mut best) = (ROOT, 0u32, 0u32);
        for &t in tokens {
            let Some(t) = t else {
                (state, run) = (ROOT, 0);
                continue;
            };
            while state != ROOT && self.next(state, t).is_none() {
                state = self.link[state as usize];
                run = self.len[state as usize];
            }
            match self.next(state, t) {
                Some(s) => {
                    state = s;
                    run += 1;
                }
                None => (state, run) = (ROOT, 0),
            }
            best = best.max(run);
        }
        best as usize
    }
}

fn key(state: u32, token: u32) -> u64 {
    (u64::from(state) << 32) | u64::from(token)
}

/// A fast hasher for the automaton's integer keys (the default hasher resists hash
/// flooding, which ids we assign ourselves do not need, at several times the cost).
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        // Multiply and fold the high half down, so both ends of the hash are well mixed.
        let m = u128::from(self.0 ^ n) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

/// Checks every claim against the source, downgrading sourced claims whose quote is not in
/// it. Indexes the source first: to check several answers against one source, build a
/// [`GroundingIndex`] once and call [`ground_claims_in`].
pub fn ground_claims(claims: &[Claim], source: &str) -> Vec<CheckedClaim> {
    ground_claims_in(claims, &GroundingIndex::new(source))
}

/// Checks every claim against an indexed source, downgrading sourced claims whose quote is
/// not in it.
pub fn ground_claims_in(claims: &[Claim], index: &GroundingIndex) -> Vec<CheckedClaim> {
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

/// The words of normalised text: runs of letters and digits.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Normalised text as tokens: words (`true`) and the separators between them (`false`),
/// in order, together covering the whole text.
fn tokens(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let is_word = first.is_alphanumeric();
        let end = rest
            .char_indices()
            .find(|(_, c)| c.is_alphanumeric() != is_word)
            .map_or(rest.len(), |(i, _)| i);
        let (token, after) = rest.split_at(end);
        rest = after;
        Some((is_word, token))
    })
}

fn split_ellipsis(quote: &str) -> Vec<&str> {
    quote.split("...").flat_map(|p| p.split('…')).collect()
}

/// Lowercases, unifies quote characters and dashes, and collapses whitespace.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = true;
    for c in text.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' | '`' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '«' | '»' => '"',
            '\u{2010}'..='\u{2015}' => '-',
            '*' | '_' => ' ',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        if c == ' ' {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            for l in c.to_lowercase() {
                out.push(l);
            }
            space = false;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
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

    /// `words` words cycling through ten, the next one after word `from` first.
    fn cycle(from: usize, words: usize) -> Vec<String> {
        (from..from + words)
            .map(|i| format!("word{}", i % 10))
            .collect()
    }

    /// Regression: a 1,501-word quote that almost matches a 30,000-word source repeating ten
    /// words took longer than 45 s (every source word was compared with every quote word,
    /// then runs extended from each). It is now one pass over the quote.
    #[test]
    fn near_miss_quote_against_a_repetitive_source() {
        let source = cycle(0, 30_000).join(" ");
        let index = GroundingIndex::new(&source);
        let with_stranger_at = |at: usize| {
            let mut quote = cycle(3, 1_501);
            quote[at] = "stranger".into();
            quote.join(" ")
        };
        // 1,498 of 1,500 pairs are in the source, but the longest exact run is 750 words,
        // under 60% of the quote.
        assert!(!index.contains(&with_stranger_at(750)));
        // The longest run is 1,200 words, over 60%.
        assert!(index.contains(&with_stranger_at(1_200)));
        // Two words swapped: 1,497 pairs of 1,500, longest run 1,000.
        let mut swapped = cycle(3, 1_501);
        swapped.swap(1_000, 1_001);
        assert!(index.contains(&swapped.join(" ")));
        assert!(index.contains(&cycle(7, 1_501).join(" ")));
        // The same quote word for word, every 4th word replaced: under 80% of pairs.
        let sparse: Vec<String> = cycle(3, 1_501)
            .into_iter()
            .enumerate()
            .map(|(i, w)| if i % 4 == 0 { "stranger".into() } else { w })
            .collect();
        assert!(!index.contains(&sparse.join(" ")));
    }

    /// A verbatim match is found even where an earlier, overlapping occurrence of the same
    /// text does not start at a word (scanning for non-overlapping matches missed it).
    #[test]
    fn verbatim_match_overlapping_a_false_start() {
        let index = GroundingIndex::new("xa a a");
        assert!(index.contains("a a"));
        assert!(!GroundingIndex::new("xa a").contains("a a"));
    }

    #[test]
    fn separators_and_word_boundaries_count_for_verbatim_quotes() {
        let index = GroundingIndex::new("Café au lait, s’il vous plaît. 漢字 かな\u{A0}mixed");
        assert!(index.contains("café au lait"));
        assert!(index.contains("s'il vous"));
        assert!(!index.contains("s il vous"));
        assert!(!index.contains("lait s'il"));
        assert!(index.contains("lait, s'il"));
        assert!(index.contains("かな mixed"));
        assert!(!index.contains("afé au"));
    }

    mod reference {
        //! The quadratic matcher this module used before, kept as the reference the indexed
        //! one must agree with (except that verbatim matches may overlap a false start).

        use super::super::{normalise, split_ellipsis, words_of, MIN_QUOTE_WORDS};

        pub fn contains(source: &str, quote: &str) -> bool {
            let text = normalise(source);
            let words: Vec<&str> = words_of(&text).collect();
            let pieces: Vec<String> = split_ellipsis(quote)
                .into_iter()
                .map(normalise)
                .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
                .filter(|p| !p.is_empty())
                .collect();
            let count: usize = pieces.iter().map(|p| words_of(p).count()).sum();
            count >= MIN_QUOTE_WORDS && pieces.iter().all(|p| piece_found(&text, &words, p))
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
            let quote: Vec<&str> = words_of(piece).collect();
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

    mod properties {
        use proptest::prelude::*;

        use super::super::GroundingIndex;
        use super::reference;

        const WORDS: &[&str] = &[
            "the",
            "The",
            "owner",
            "café",
            "CAFÉ",
            "e\u{301}",
            "漢字",
            "straße",
            "İstanbul",
            "42",
            "a",
            "ǅ",
            "👍",
            "x\u{200D}y",
        ];
        const SEPARATORS: &[&str] = &[
            " ", "  ", ", ", ". ", "\u{A0}", "\u{3000}", "-", "—", "’", "'", "\r\n", "\u{2028}",
            "*", "...", "…", "\"", "\t",
        ];

        /// Text from a few words and separators, so quotes often match, nearly match or
        /// match with other punctuation.
        fn text(max_words: usize) -> impl Strategy<Value = String> {
            prop::collection::vec(
                (
                    prop::sample::select(WORDS),
                    prop::sample::select(SEPARATORS),
                ),
                0..max_words,
            )
            .prop_map(|parts| parts.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
        }

        /// A quote: a run of the source's words, perhaps altered, or text of its own.
        fn source_and_quote() -> impl Strategy<Value = (String, String)> {
            (
                text(60),
                any::<prop::sample::Index>(),
                0usize..20,
                text(4),
                any::<bool>(),
            )
                .prop_map(|(source, at, len, noise, own)| {
                    if own {
                        return (source, noise);
                    }
                    let starts: Vec<usize> = source.char_indices().map(|(i, _)| i).collect();
                    if starts.is_empty() {
                        return (source, noise);
                    }
                    let from = starts[at.index(starts.len())];
                    let run: String = source[from..].chars().take(len * 6).collect();
                    let half = run.chars().count() / 2;
                    let (a, b): (String, String) = (
                        run.chars().take(half).collect(),
                        run.chars().skip(half).collect(),
                    );
                    let quote = format!("{a}{noise}{b}");
                    (source, quote)
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn indexed_grounding_agrees_with_the_reference((source, quote) in source_and_quote()) {
                let index = GroundingIndex::new(&source);
                prop_assert_eq!(index.contains(&quote), reference::contains(&source, &quote));
            }

            #[test]
            fn arbitrary_text_never_panics(source in any::<String>(), quote in any::<String>()) {
                let index = GroundingIndex::new(&source);
                let _ = index.contains(&quote);
            }
        }
    }
}
