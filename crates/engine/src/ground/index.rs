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
pub use wikimind_text::fold::{normalise, normalise_char};

/// A source prepared for many quote look-ups, each in time about proportional to the
/// quote's length, whatever the source's.
///
/// The normalised source is cut into words (runs of letters and digits) and the separators
/// between them, each interned as a number. A quote piece is checked verbatim at the places
/// its rarest word occurs (always for a short piece, only when those are few for a long
/// one); a long piece not found so is matched against a suffix automaton of the source's
/// words, built once, on first need. Building costs time and memory proportional to the
/// source: build it once per source and reuse it for every quote of every answer.
pub struct GroundingIndex {
    /// Every distinct word and separator of the source (a word is never equal to a
    /// separator). A quote word not in it is not in the source.
    vocab: HashMap<Box<str>, u32>,
    /// The source's words, in order.
    words: Vec<u32>,
    /// After each word, the separator up to the next word (`NONE` after the last).
    separators: Vec<u32>,
    /// Where each word occurs: the positions of word `w` are
    /// `positions[position_starts[w]..position_starts[w + 1]]`.
    position_starts: Vec<u32>,
    positions: Vec<u32>,
    /// The words' suffix automaton, built for the first long piece not found verbatim
    /// cheaply (most quotes are verbatim).
    automaton: OnceLock<SuffixAutomaton>,
}

/// A piece of a quote as source token numbers (`None`: not in the source).
struct Piece {
    words: Vec<Option<u32>>,
    /// The separator after each word but the last.
    separators: Vec<Option<u32>>,
}

impl GroundingIndex {
    /// Normalises `source` and indexes it for look-ups.
    pub fn new(source: &str) -> GroundingIndex {
        let text = normalise(source);
        let mut vocab: HashMap<Box<str>, u32> = HashMap::new();
        let mut words = Vec::new();
        let mut separators = Vec::new();
        for (is_word, token) in tokens(&text) {
            let id = match vocab.get(token) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(vocab.len()).expect("under 4 billion tokens");
                    vocab.insert(token.into(), id);
                    id
                }
            };
            if is_word {
                words.push(id);
                separators.push(NONE);
            } else if let Some(last) = separators.last_mut() {
                *last = id;
            }
        }
        // The separator after the last word is not between two words.
        if let Some(last) = separators.last_mut() {
            *last = NONE;
        }
        let mut position_starts = vec![0u32; vocab.len() + 1];
        for &w in &words {
            position_starts[w as usize + 1] += 1;
        }
        for i in 1..position_starts.len() {
            position_starts[i] += position_starts[i - 1];
        }
        let mut filled = position_starts.clone();
        let mut positions = vec![0u32; words.len()];
        for (at, &w) in words.iter().enumerate() {
            positions[filled[w as usize] as usize] = at as u32;
            filled[w as usize] += 1;
        }
        GroundingIndex {
            vocab,
            words,
            separators,
            position_starts,
            positions,
            automaton: OnceLock::new(),
        }
    }

    fn automaton(&self) -> &SuffixAutomaton {
        self.automaton
            .get_or_init(|| SuffixAutomaton::new(&self.words, self.vocab.len()))
    }

    /// Whether `quote` is found in the source, by the rule `docs/compiling.md` states: a quote of
    /// one piece has at least two words and is found (verbatim, or with small differences
    /// from six words on); a quote of several pieces (cut by `...` or `…`) has at least three
    /// words in each, and they are found verbatim, in order, within a window of
    /// [`WINDOW_FACTOR`] times the quote's words.
    pub fn contains(&self, quote: &str) -> bool {
        let Some(pieces) = quote_pieces(quote) else {
            return false;
        };
        if let [only] = &pieces[..] {
            return self.piece_found(&self.piece(only));
        }
        let starts: Vec<Vec<usize>> = pieces
            .iter()
            .map(|p| self.verbatim_starts(&self.piece(p)))
            .collect();
        let lengths: Vec<usize> = pieces.iter().map(|p| words_of(p).count()).collect();
        in_order_within(&starts, &lengths)
    }

    fn piece(&self, piece: &str) -> Piece {
        let mut out = Piece {
            words: Vec::new(),
            separators: Vec::new(),
        };
        for (is_word, token) in tokens(piece) {
            let id = self.vocab.get(token).copied();
            if is_word {
                out.words.push(id);
            } else {
                out.separators.push(id);
            }
        }
        out
    }

    /// Whether one normalised piece of a quote (starting and ending with a letter or digit)
    /// is in the source: verbatim, starting and ending at word boundaries ("wner at" is not
    /// found in "owner at"), or, from six words on, with small differences: at least 80%
    /// of its word pairs appear in the source and one exact run covers 60% of it.
    fn piece_found(&self, piece: &Piece) -> bool {
        let n = piece.words.len();
        if n < 6 {
            return self.verbatim(piece, usize::MAX) == Some(true);
        }
        // From six words on, a verbatim piece also passes the looser test (all its pairs
        // are in the source and its whole length is one run), so the verbatim check is only
        // a shortcut, taken when its rarest word is rare enough to make it cheap; it spares
        // building the automaton when every quote is verbatim.
        if self.verbatim(piece, CHEAP_CANDIDATES) == Some(true) {
            return true;
        }
        let automaton = self.automaton();
        let hits = piece
            .words
            .windows(2)
            .filter(|pair| match (pair[0], pair[1]) {
                (Some(a), Some(b)) => automaton
                    .next(ROOT, a)
                    .and_then(|s| automaton.next(s, b))
                    .is_some(),
                _ => false,
            })
            .count();
        if hits * 5 < (n - 1) * 4 {
            return false;
        }
        // The pairs must also line up: one exact run covers 60% of the quote.
        automaton.longest_common_run(&piece.words) * 5 >= n * 3
    }

    /// Whether the piece's words and separators are, in order, words and separators of the
    /// source: checked where its rarest word occurs, unless that is at more than `limit`
    /// places (`None`: not checked).
    fn verbatim(&self, piece: &Piece, limit: usize) -> Option<bool> {
        self.verbatim_at(piece, limit, true)
            .map(|starts| !starts.is_empty())
    }

    /// Every word position where the piece starts verbatim, in order.
    fn verbatim_starts(&self, piece: &Piece) -> Vec<usize> {
        self.verbatim_at(piece, usize::MAX, false)
            .unwrap_or_default()
    }

    /// The word positions where the piece starts verbatim, in order (only the first when
    /// `first_only`), checked where its rarest word occurs unless that is at more than
    /// `limit` places (`None`: not checked).
    fn verbatim_at(&self, piece: &Piece, limit: usize, first_only: bool) -> Option<Vec<usize>> {
        let (Some(words), Some(separators)) = (
            piece.words.iter().copied().collect::<Option<Vec<u32>>>(),
            piece
                .separators
                .iter()
                .copied()
                .collect::<Option<Vec<u32>>>(),
        ) else {
            return Some(Vec::new());
        };
        let occurrences = |w: u32| {
            let w = w as usize;
            &self.positions[self.position_starts[w] as usize..self.position_starts[w + 1] as usize]
        };
        let Some((rarest, _)) = words
            .iter()
            .enumerate()
            .min_by_key(|(_, &w)| occurrences(w).len())
        else {
            return Some(Vec::new());
        };
        let candidates = occurrences(words[rarest]);
        if candidates.len() > limit {
            return None;
        }
        let at_start = |at: &u32| {
            let start = (*at as usize).checked_sub(rarest)?;
            let end = start + words.len();
            (end <= self.words.len()
                && self.words[start..end] == words[..]
                && self.separators[start..end - 1] == separators[..])
                .then_some(start)
        };
        let mut starts = candidates.iter().filter_map(at_start);
        Some(if first_only {
            starts.next().into_iter().collect()
        } else {
            starts.collect()
        })
    }
}

/// How many places of its rarest word a long piece is checked verbatim at before the
/// automaton is used instead.
const CHEAP_CANDIDATES: usize = 256;

/// The root state of a suffix automaton (the empty string).
const ROOT: u32 = 0;
/// No state, no edge, or no token.
const NONE: u32 = u32::MAX;

/// The smallest automaton accepting every substring of a token sequence (Blumer et al.,
/// 1985), built in time linear in the sequence. A run of the sequence is a path from the
/// root, so the longest run a quote shares with the source is found in one pass over the
/// quote.
struct SuffixAutomaton {
    states: Vec<State>,
    /// The root's transitions, by token: the root has one per distinct token and is
    /// visited on most steps.
    root: Vec<u32>,
    /// Transitions beyond each state's first: (state, token) to state.
    more: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    /// Per transition in `more`: its token and the next one of the same state, to copy a
    /// state's transitions.
    more_list: Vec<(u32, u32)>,
}

/// A state of the automaton. Most states have a single transition, kept inline.
#[derive(Clone, Copy)]
struct State {
    /// The length of the longest run reaching it.
    len: u32,
    /// Its suffix link: the state of its longest suffix that also ends elsewhere.
    link: u32,
    /// Its first transition's token (`NONE` if none) and target.
    token: u32,
    to: u32,
    /// The head of its list of further transitions in `more_list` (`NONE` if none).
    more: u32,
}

impl SuffixAutomaton {
    /// The automaton of `tokens`, each below `alphabet`.
    fn new(tokens: &[u32], alphabet: usize) -> SuffixAutomaton {
        let mut a = SuffixAutomaton {
            states: Vec::with_capacity(tokens.len() * 2 + 1),
            root: vec![NONE; alphabet],
            more: HashMap::with_capacity_and_hasher(tokens.len(), Default::default()),
            more_list: Vec::with_capacity(tokens.len()),
        };
        a.add_state(0, NONE);
        let mut last = ROOT;
        for &t in tokens {
            let cur = a.add_state(a.states[last as usize].len + 1, NONE);
            let mut p = last;
            while p != NONE && a.next(p, t).is_none() {
                a.add_transition(p, t, cur);
                p = a.states[p as usize].link;
            }
            if p == NONE {
                a.states[cur as usize].link = ROOT;
            } else {
                let q = a.next(p, t).expect("the loop stopped at a transition");
                let p_len = a.states[p as usize].len;
                if p_len + 1 == a.states[q as usize].len {
                    a.states[cur as usize].link = q;
                } else {
                    let original = a.states[q as usize];
                    let clone = a.add_state(p_len + 1, original.link);
                    a.states[clone as usize].token = original.token;
                    a.states[clone as usize].to = original.to;
                    let mut e = original.more;
                    while e != NONE {
                        let (token, after) = a.more_list[e as usize];
                        let to = a.more[&key(q, token)];
                        a.add_transition(clone, token, to);
                        e = after;
                    }
                    while p != NONE && a.next(p, t) == Some(q) {
                        a.redirect(p, t, clone);
                        p = a.states[p as usize].link;
                    }
                    a.states[q as usize].link = clone;
                    a.states[cur as usize].link = clone;
                }
            }
            last = cur;
        }
        a
    }

    fn add_state(&mut self, len: u32, link: u32) -> u32 {
        self.states.push(State {
            len,
            link,
            token: NONE,
            to: NONE,
            more: NONE,
        });
        u32::try_from(self.states.len() - 1).expect("under 2 billion words")
    }

    fn add_transition(&mut self, from: u32, token: u32, to: u32) {
        if from == ROOT {
            self.root[token as usize] = to;
            return;
        }
        let state = &mut self.states[from as usize];
        if state.token == NONE {
            state.token = token;
            state.to = to;
        } else {
            self.more.insert(key(from, token), to);
            self.more_list.push((token, state.more));
            state.more = (self.more_list.len() - 1) as u32;
        }
    }

    fn redirect(&mut self, from: u32, token: u32, to: u32) {
        if from == ROOT {
            self.root[token as usize] = to;
            return;
        }
        let state = &mut self.states[from as usize];
        if state.token == token {
            state.to = to;
        } else {
            self.more.insert(key(from, token), to);
        }
    }

    fn next(&self, state: u32, token: u32) -> Option<u32> {
        if state == ROOT {
            return self
                .root
                .get(token as usize)
                .copied()
                .filter(|&to| to != NONE);
        }
        let s = &self.states[state as usize];
        if s.token == token {
            Some(s.to)
        } else if s.more != NONE {
            self.more.get(&key(state, token)).copied()
        } else {
            None
        }
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
                state = self.states[state as usize].link;
                run = self.states[state as usize].len;
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
    ground_claims_with(claims, &|quote| index.contains(quote))
}

/// Checks every claim with `grounds` (whether a quote is found in the material),
/// downgrading sourced claims whose quote is not found.
pub fn ground_claims_with(claims: &[Claim], grounds: &dyn Fn(&str) -> bool) -> Vec<CheckedClaim> {
    claims
        .iter()
        .map(|c| {
            let found = c.quote.as_deref().is_some_and(grounds);
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

/// Grounds a page's claims again against `sources` (id and text, as they are now): a
/// claim with a quote is held by the sources whose text holds it, and a `sourced` claim that
/// none holds becomes `inferred` with `grounded: false`, keeping its quote. Claims of a
/// saved answer (with a cited page) ground against the page they cite, not these sources,
/// and are left as they are. What a restored version's claims go through: the source ids
/// it stored may name sources that left or changed since.
pub fn reground_page_claims(
    claims: &mut [crate::store::PageClaim],
    sources: &[(crate::store::SourceId, String)],
) {
    let indexes: Vec<(crate::store::SourceId, GroundingIndex)> = sources
        .iter()
        .map(|(id, text)| (*id, GroundingIndex::new(text)))
        .collect();
    for claim in claims.iter_mut().filter(|c| c.cited_page.is_none()) {
        let Some(quote) = claim.claim.quote.as_deref() else {
            claim.source_ids.clear();
            continue;
        };
        claim.source_ids = indexes
            .iter()
            .filter(|(_, index)| index.contains(quote))
            .map(|(id, _)| *id)
            .collect();
        let found = !claim.source_ids.is_empty();
        if claim.claim.confidence == Confidence::Sourced && !found {
            claim.claim.confidence = Confidence::Inferred;
        }
        claim.claim.grounded = found;
    }
}

/// The fewest words a quote of one piece must have to ground a claim: one word ("the",
/// "owner") is in almost any source.
const MIN_QUOTE_WORDS: usize = 2;

/// The fewest words each piece of a quote cut by an ellipsis must have: pieces of one or two
/// words, found anywhere, would let a quote stitched from common words ground anything.
pub const MIN_PIECE_WORDS: usize = 3;

/// How far apart the pieces of a quote may lie: the span from the first piece's first word
/// to the last piece's last word is at most this many times the quote's words.
pub const WINDOW_FACTOR: usize = 4;

/// A quote's pieces, normalised, trimmed to letters and digits at both ends, empty pieces
/// dropped — or `None` when the quote cannot ground anything by its shape: no piece, a
/// single piece under [`MIN_QUOTE_WORDS`] words, or several pieces one of which is under
/// [`MIN_PIECE_WORDS`] words.
fn quote_pieces(quote: &str) -> Option<Vec<String>> {
    let pieces: Vec<String> = split_ellipsis(quote)
        .into_iter()
        .map(normalise)
        .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
        .filter(|p| !p.is_empty())
        .collect();
    let least = if pieces.len() == 1 {
        MIN_QUOTE_WORDS
    } else {
        MIN_PIECE_WORDS
    };
    let shaped = !pieces.is_empty() && pieces.iter().all(|p| words_of(p).count() >= least);
    shaped.then_some(pieces)
}

/// Whether pieces of `lengths` words, each starting at one of its `starts` (word positions,
/// ascending), follow each other in order without overlapping, the whole spanning at most
/// [`WINDOW_FACTOR`] times the words of all pieces. For each start of the first piece, the
/// earliest start of each next piece ends the chain soonest, so that one chain is checked.
fn in_order_within(starts: &[Vec<usize>], lengths: &[usize]) -> bool {
    let window = WINDOW_FACTOR * lengths.iter().sum::<usize>();
    let Some((first, rest)) = starts.split_first() else {
        return false;
    };
    'first: for &from in first {
        let mut end = from + lengths[0];
        for (next, length) in rest.iter().zip(&lengths[1..]) {
            let at = next.partition_point(|&s| s < end);
            let Some(&start) = next.get(at) else {
                // No later start for this piece: none for a later first start either.
                return false;
            };
            end = start + length;
            if end - from > window {
                continue 'first;
            }
        }
        return true;
    }
    false
}

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

pub mod reference {
    //! What grounding means, written plainly: the quadratic matcher this module used
    //! before the index, kept as the reference the indexed one must agree with (the unit
    //! tests and the `ground` fuzz target check it; verbatim matches may overlap a false
    //! start only in the indexed one). Far too slow for real input: never call it there.

    use super::{in_order_within, quote_pieces, words_of};

    /// Whether `quote` grounds in `source`, by the rule
    /// [`GroundingIndex::contains`](super::GroundingIndex::contains) implements.
    pub fn contains(source: &str, quote: &str) -> bool {
        let text = super::normalise(source);
        let words: Vec<&str> = words_of(&text).collect();
        let Some(pieces) = quote_pieces(quote) else {
            return false;
        };
        if let [only] = &pieces[..] {
            return piece_found(&text, &words, only);
        }
        let starts: Vec<Vec<usize>> = pieces.iter().map(|p| verbatim_starts(&text, p)).collect();
        let lengths: Vec<usize> = pieces.iter().map(|p| words_of(p).count()).collect();
        in_order_within(&starts, &lengths)
    }

    /// The word positions where `piece` occurs verbatim in `text`, on word boundaries.
    fn verbatim_starts(text: &str, piece: &str) -> Vec<usize> {
        let edge = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        let mut starts: Vec<usize> = text
            .char_indices()
            .filter(|&(at, _)| {
                text[at..].starts_with(piece)
                    && edge(text[..at].chars().next_back())
                    && edge(text[at + piece.len()..].chars().next())
            })
            .map(|(at, _)| words_of(&text[..at]).count())
            .collect();
        starts.dedup();
        starts
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

/// The grounding indexes of sources' current texts (their readable text, as a compile reads
/// it), each read from the store once: what asks whether a stored quote still holds in one
/// of the sources it was found in (the `ungrounded` check, the re-grounding backfill).
pub struct SourceIndexes<'a> {
    store: &'a dyn SourceTexts,
    indexes: HashMap<crate::store::SourceId, Option<GroundingIndex>>,
}

/// Where sources' current texts are read from (the store): the one thing
/// [`SourceIndexes`] asks of it.
pub trait SourceTexts {
    /// The raw text of `source`; `None` when it is gone or cannot be read.
    fn source_text(&self, source: crate::store::SourceId) -> Option<String>;
}

impl SourceTexts for crate::store::Store {
    fn source_text(&self, source: crate::store::SourceId) -> Option<String> {
        crate::store::Store::source_text(self, source)
            .ok()
            .flatten()
    }
}

impl<'a> SourceIndexes<'a> {
    /// No source read yet.
    pub fn new(store: &'a dyn SourceTexts) -> Self {
        SourceIndexes {
            store,
            indexes: HashMap::new(),
        }
    }

    /// Whether `quote` is found in the current text of one of `sources` (a source gone or
    /// unreadable holds nothing).
    pub fn holds(&mut self, sources: &[crate::store::SourceId], quote: &str) -> bool {
        sources.iter().any(|&source| {
            let store = self.store;
            self.indexes
                .entry(source)
                .or_insert_with(|| {
                    store
                        .source_text(source)
                        .map(|text| GroundingIndex::new(&crate::ground::readable::readable(&text)))
                })
                .as_ref()
                .is_some_and(|index| index.contains(quote))
        })
    }
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
            // Pieces of one or two words, found anywhere, are not evidence.
            ("ownership ... owner", false),
            ("the ... the", false),
            ("Rust … time", false),
            ("ownership model ... one owner", false),
            // Pieces of three words or more, in the source's order and near each other.
            ("Each value in Rust ... called its owner", true),
            ("one owner at a time ... Rust's ownership model", false),
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

    mod properties {
        use proptest::prelude::*;

        use super::super::reference;
        use super::super::GroundingIndex;

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

        /// Plain words and separators (no ellipsis, which would cut a quote into pieces).
        const PLAIN: &[&str] = &[
            "espresso", "pressure", "the", "water", "grind", "a", "coffee", "crema", "bean", "of",
            "Café", "42",
        ];
        const PLAIN_SEPARATORS: &[&str] = &[" ", ", ", ". ", "\u{A0}", "-", "\n", " — "];

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
            fn stitched_words_never_ground_and_real_runs_always_do(
                parts in prop::collection::vec(
                    (prop::sample::select(PLAIN), prop::sample::select(PLAIN_SEPARATORS)),
                    4..80,
                ),
                picks in prop::collection::vec((any::<prop::sample::Index>(), 1usize..=2), 1..6),
                run in (any::<prop::sample::Index>(), 2usize..12),
            ) {
                let source: String = parts.iter().map(|(w, s)| format!("{w}{s}")).collect();
                let index = GroundingIndex::new(&source);
                // Pieces of one or two consecutive source words, from anywhere: a lone
                // word, or several pieces joined by an ellipsis, never ground.
                let pieces: Vec<String> = picks
                    .iter()
                    .map(|(at, len)| {
                        let from = at.index(parts.len());
                        let to = (from + len).min(parts.len());
                        let words: Vec<&str> = parts[from..to].iter().map(|(w, _)| *w).collect();
                        words.join(" ")
                    })
                    .collect();
                let stitched = if pieces.len() == 1 {
                    pieces[0].split(' ').next().unwrap_or_default().to_string()
                } else {
                    pieces.join(" ... ")
                };
                prop_assert!(!index.contains(&stitched), "{stitched:?} grounded in {source:?}");
                prop_assert!(!reference::contains(&source, &stitched));
                // A run of two words or more, as the source writes it, always grounds.
                let from = run.0.index(parts.len() - 1);
                let to = (from + run.1).min(parts.len());
                let mut quote = String::new();
                for (i, (word, sep)) in parts[from..to].iter().enumerate() {
                    quote.push_str(word);
                    if from + i + 1 < to {
                        quote.push_str(sep);
                    }
                }
                prop_assert!(index.contains(&quote), "{quote:?} not found in {source:?}");
            }

            #[test]
            fn arbitrary_text_never_panics(source in any::<String>(), quote in any::<String>()) {
                let index = GroundingIndex::new(&source);
                let _ = index.contains(&quote);
            }
        }
    }
}
