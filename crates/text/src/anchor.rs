//! Where a quote stands in a text, and finding it again after the text changed.
//!
//! A citation records the place a claim's quote was found in its source: the byte range,
//! the exact text there and about [`CONTEXT_CHARS`] characters on each side ([`Anchor`]).
//! [`locate_pieces`] finds a quote's pieces under the quote fold (case, white space, quote
//! marks and dashes, markdown emphasis: [`crate::fold`]); [`reanchor`] finds a recorded
//! place again in a changed text: the old range if the text there is unchanged, else the
//! exact text nearest the old place, else the text under the fold, else a fuzzy match
//! weighing the quote's words, the context around them and the distance from the old
//! place. A quote that is gone is not placed anywhere (`None`). [`heading_path`] names the
//! markdown headings above a place. Pure: no IO.

use std::collections::HashMap;
use std::ops::Range;

use crate::fold::{normalise, normalise_char};

/// How many characters of context an [`Anchor`] keeps on each side of its quote.
pub const CONTEXT_CHARS: usize = 32;

/// A quote's place in a text: its byte range, the text there, and the context around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// Where it starts (a UTF-8 byte offset on a character boundary).
    pub start: usize,
    /// Just past its end.
    pub end: usize,
    /// The text at `start..end`.
    pub exact: String,
    /// Up to [`CONTEXT_CHARS`] characters before it.
    pub prefix: String,
    /// Up to [`CONTEXT_CHARS`] characters after it.
    pub suffix: String,
}

impl Anchor {
    /// The anchor of `range` in `text` (moved out to character boundaries, clamped to the
    /// text).
    pub fn at(text: &str, range: Range<usize>) -> Anchor {
        let start = floor_boundary(text, range.start.min(text.len()));
        let end = ceil_boundary(text, range.end.clamp(start, text.len()));
        let before = &text[..start];
        let prefix_from = before
            .char_indices()
            .rev()
            .nth(CONTEXT_CHARS - 1)
            .map_or(0, |(at, _)| at);
        let after = &text[end..];
        let suffix_to = after
            .char_indices()
            .nth(CONTEXT_CHARS)
            .map_or(after.len(), |(at, _)| at);
        Anchor {
            start,
            end,
            exact: text[start..end].to_owned(),
            prefix: before[prefix_from..].to_owned(),
            suffix: after[..suffix_to].to_owned(),
        }
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Where each piece of `quote` (cut by `...` or `…`) stands in `text`, under the quote fold:
/// every piece found in order, starting and ending at word boundaries, gives one range each;
/// else a near match (three quoted words found, and the last three found after them) gives
/// one range for the whole. `None` when neither is found. Ranges are on character
/// boundaries of `text`. It does not decide whether the quote grounds (that is the
/// engine's rule); it only says where. To place many quotes in one text, use a
/// [`Haystack`].
pub fn locate_pieces(text: &str, quote: &str) -> Option<Vec<Range<usize>>> {
    Haystack::new(text).pieces(quote)
}

/// Where the place `anchor` recorded stands in `text` now ([`Haystack::reanchor`]).
pub fn reanchor(anchor: &Anchor, text: &str) -> Option<Range<usize>> {
    Haystack::new(text).reanchor(anchor)
}

/// A text prepared for placing many quotes and anchors in it: its folded form and its
/// word index are built once, on first need.
pub struct Haystack<'a> {
    text: std::borrow::Cow<'a, str>,
    folded: std::sync::OnceLock<Folded>,
    words: std::sync::OnceLock<WordIndex>,
}

/// The fuzzy match's words of the folded text and where each occurs.
struct WordIndex {
    /// Each word's folded byte range.
    spans: Vec<(usize, usize)>,
    /// The positions (in `spans`) of each word.
    places: HashMap<Box<str>, Vec<usize>>,
}

impl<'a> Haystack<'a> {
    /// `text`, nothing built yet.
    pub fn new(text: &'a str) -> Haystack<'a> {
        Haystack {
            text: std::borrow::Cow::Borrowed(text),
            folded: std::sync::OnceLock::new(),
            words: std::sync::OnceLock::new(),
        }
    }

    /// `text`, owned, nothing built yet.
    pub fn owned(text: String) -> Haystack<'static> {
        Haystack {
            text: std::borrow::Cow::Owned(text),
            folded: std::sync::OnceLock::new(),
            words: std::sync::OnceLock::new(),
        }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn folded(&self) -> &Folded {
        self.folded.get_or_init(|| Folded::new(&self.text))
    }

    fn words(&self) -> &WordIndex {
        self.words.get_or_init(|| {
            let folded = self.folded();
            let spans = fuzzy_words(&folded.text);
            let mut places: HashMap<Box<str>, Vec<usize>> = HashMap::new();
            for (at, &(s, e)) in spans.iter().enumerate() {
                places.entry(folded.text[s..e].into()).or_default().push(at);
            }
            WordIndex { spans, places }
        })
    }

    /// [`locate_pieces`] in this text.
    pub fn pieces(&self, quote: &str) -> Option<Vec<Range<usize>>> {
        let pieces: Vec<String> = quote
            .split("...")
            .flat_map(|p| p.split('…'))
            .map(normalise)
            .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
            .filter(|p| !p.is_empty())
            .collect();
        if pieces.is_empty() {
            return None;
        }
        let folded = self.folded();
        let exact = (|| {
            let mut from = 0;
            let mut ranges = Vec::with_capacity(pieces.len());
            for piece in &pieces {
                let at = find_words(&folded.text, piece, from)?;
                from = at + piece.len();
                ranges.push(folded.original(at..from));
            }
            Some(ranges)
        })();
        exact.or_else(|| near(&folded.text, &pieces).map(|r| vec![folded.original(r)]))
    }

    /// Where the place `anchor` recorded stands in this text now, or `None` when the quote
    /// is not there any more. In order: the old range when the text there is unchanged;
    /// else the exact text, where its context fits best and nearest the old place; else
    /// the same under the quote fold (case, white space, quote marks); else the best fuzzy
    /// match of the quote's words in order (at least [`FUZZY_SHARE`] of them, close
    /// together), weighing the words, the context and the distance from the old place.
    pub fn reanchor(&self, anchor: &Anchor) -> Option<Range<usize>> {
        let text: &str = &self.text;
        if anchor.exact.trim().is_empty() {
            return None;
        }
        if text.get(anchor.start..anchor.end) == Some(anchor.exact.as_str()) {
            return Some(anchor.start..anchor.end);
        }
        // Near the old place first: a place there whose context agrees in full is the one
        // the whole text would give (none farther can agree more or lie nearer), so a
        // document cited a few hundred times is not scanned whole for each citation.
        let lo = floor_boundary(
            text,
            anchor.start.saturating_sub(NEAR_BYTES).min(text.len()),
        );
        let hi = ceil_boundary(
            text,
            anchor
                .start
                .saturating_add(NEAR_BYTES)
                .saturating_add(anchor.exact.len())
                .min(text.len()),
        );
        let full = anchor.prefix.chars().count() + anchor.suffix.chars().count();
        let near: Vec<Range<usize>> = text[lo..hi]
            .match_indices(anchor.exact.as_str())
            .take(MAX_CANDIDATES)
            .map(|(at, m)| lo + at..lo + at + m.len())
            .collect();
        if let Some(best) = best_of(anchor, text, near) {
            if context_agreement(anchor, text, best.clone()) == full {
                return Some(best);
            }
        }
        let exact: Vec<Range<usize>> = text
            .match_indices(anchor.exact.as_str())
            .take(MAX_CANDIDATES)
            .map(|(at, m)| at..at + m.len())
            .collect();
        if let Some(best) = best_of(anchor, text, exact) {
            return Some(best);
        }
        let folded = self.folded();
        let wanted = normalise(&anchor.exact);
        if !wanted.is_empty() {
            let mut found = Vec::new();
            let mut from = 0;
            while let Some(at) = find_words(&folded.text, &wanted, from) {
                found.push(folded.original(at..at + wanted.len()));
                from = at + wanted.len().max(1);
                if found.len() >= MAX_CANDIDATES {
                    break;
                }
            }
            if let Some(best) = best_of(anchor, text, found) {
                return Some(best);
            }
        }
        fuzzy(anchor, text, folded, self.words())
    }
}

/// How far either side of its old place a quote is looked for first (the whole text
/// after, unless a place there keeps the quote's whole context).
const NEAR_BYTES: usize = 64 * 1024;

/// The most candidates weighed in one step of [`reanchor`].
const MAX_CANDIDATES: usize = 256;

/// The share of a quote's words a fuzzy match must keep, in order (and three at least).
pub const FUZZY_SHARE: f64 = 0.6;

/// Of several places holding the quote, the one whose context agrees most with the
/// anchor's, then the nearest to the old place.
fn best_of(anchor: &Anchor, text: &str, found: Vec<Range<usize>>) -> Option<Range<usize>> {
    found.into_iter().max_by(|a, b| {
        let score = |r: &Range<usize>| {
            (
                context_agreement(anchor, text, r.clone()),
                std::cmp::Reverse(r.start.abs_diff(anchor.start)),
            )
        };
        score(a).cmp(&score(b))
    })
}

/// How many characters of the anchor's prefix and suffix the text around `range` keeps
/// (the prefix read backwards from the range, the suffix forwards).
fn context_agreement(anchor: &Anchor, text: &str, range: Range<usize>) -> usize {
    let before = anchor
        .prefix
        .chars()
        .rev()
        .zip(text[..range.start].chars().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let after = anchor
        .suffix
        .chars()
        .zip(text[range.end..].chars())
        .take_while(|(a, b)| a == b)
        .count();
    before + after
}

/// A word of folded text, for the fuzzy match: a run of letters and digits, except that
/// each Han, kana and Hangul character is a word of its own (those scripts write no spaces).
fn fuzzy_words(text: &str) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    for (at, c) in text.char_indices() {
        if is_ideographic(c) {
            if let Some(s) = start.take() {
                words.push((s, at));
            }
            words.push((at, at + c.len_utf8()));
        } else if c.is_alphanumeric() {
            start.get_or_insert(at);
        } else if let Some(s) = start.take() {
            words.push((s, at));
        }
    }
    if let Some(s) = start {
        words.push((s, text.len()));
    }
    words
}

fn is_ideographic(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF       // hiragana, katakana
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0x20000..=0x2FFFF)
}

/// The fuzzy step of [`reanchor`]: the quote's words aligned (longest common subsequence)
/// with windows of the text's words that start where one of its rarer words occurs.
fn fuzzy(anchor: &Anchor, text: &str, folded: &Folded, index: &WordIndex) -> Option<Range<usize>> {
    let quote_text = normalise(&anchor.exact);
    let quote: Vec<&str> = fuzzy_words(&quote_text)
        .into_iter()
        .map(|(s, e)| &quote_text[s..e])
        .collect();
    // Two words found anywhere say nothing.
    if quote.len() < 3 || quote.len() > MAX_FUZZY_WORDS {
        return None;
    }
    let spans = &index.spans;
    let places = &index.places;
    let words: Vec<&str> = spans.iter().map(|&(s, e)| &folded.text[s..e]).collect();
    // Seed windows at the occurrences of the quote's rarer words, each aligned to where
    // the quote would start.
    let mut by_rarity: Vec<(usize, usize)> = quote
        .iter()
        .enumerate()
        .filter_map(|(j, w)| places.get(*w).map(|p| (p.len(), j)))
        .collect();
    by_rarity.sort();
    let mut starts: Vec<usize> = Vec::new();
    for (count, j) in by_rarity {
        if !starts.is_empty() && count > RARE_WORD {
            break;
        }
        starts.extend(places[quote[j]].iter().map(|&p| p.saturating_sub(j)));
        if starts.len() >= MAX_CANDIDATES * 4 {
            break;
        }
    }
    starts.sort_unstable();
    starts.dedup();
    if starts.is_empty() {
        return None;
    }
    let old_start = anchor.start;
    // Keep the candidates nearest the old place when there are too many.
    if starts.len() > MAX_CANDIDATES {
        let at_byte = |w: usize| folded.original_start(spans[w].0);
        starts.sort_by_key(|&w| at_byte(w).abs_diff(old_start));
        starts.truncate(MAX_CANDIDATES);
    }
    let n = quote.len();
    let prefix_text = normalise(&anchor.prefix);
    let suffix_text = normalise(&anchor.suffix);
    let prefix: Vec<&str> = fuzzy_words(&prefix_text)
        .into_iter()
        .map(|(s, e)| &prefix_text[s..e])
        .collect();
    let suffix: Vec<&str> = fuzzy_words(&suffix_text)
        .into_iter()
        .map(|(s, e)| &suffix_text[s..e])
        .collect();
    let mut best: Option<(f64, Range<usize>)> = None;
    for start in starts {
        let from = start.saturating_sub(n / 4);
        let to = (start + n + n / 2 + 2).min(words.len());
        if from >= to {
            continue;
        }
        let Some((kept, first, last)) = align(&quote, &words[from..to]) else {
            continue;
        };
        let (first, last) = (from + first, from + last);
        let share = kept as f64 / n as f64;
        // At least three words kept (two found anywhere say nothing), and they lie close
        // together: no more than half as many again between them.
        if kept < 3 || share < FUZZY_SHARE || last + 1 - first > n + n / 2 + 1 {
            continue;
        }
        let context_words = prefix.len() + suffix.len();
        let context = if context_words == 0 {
            0.0
        } else {
            let before = prefix
                .iter()
                .rev()
                .zip(words[..first].iter().rev())
                .filter(|(a, b)| a == b)
                .count();
            let after = suffix
                .iter()
                .zip(&words[last + 1..])
                .filter(|(a, b)| a == b)
                .count();
            (before + after) as f64 / context_words as f64
        };
        let range = folded.original(spans[first].0..spans[last].1);
        let distance = range.start.abs_diff(old_start) as f64 / text.len().max(1) as f64;
        let score = 0.7 * share + 0.2 * context + 0.1 * (1.0 - distance);
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, range));
        }
    }
    best.map(|(_, range)| range)
}

/// Quotes longer than this many words are not matched fuzzily (the alignment is quadratic).
const MAX_FUZZY_WORDS: usize = 400;

/// A quote word found at no more places than this is a seed for fuzzy windows.
const RARE_WORD: usize = 64;

/// The longest common subsequence of `quote` and `window`: how many words it keeps, and the
/// window positions of the first and last kept word (`None` when it keeps none).
fn align(quote: &[&str], window: &[&str]) -> Option<(usize, usize, usize)> {
    let (n, m) = (quote.len(), window.len());
    let mut table = vec![0u16; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[at(i, j)] = if quote[i] == window[j] {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let kept = usize::from(table[at(0, 0)]);
    if kept == 0 {
        return None;
    }
    let (mut i, mut j) = (0, 0);
    let (mut first, mut last) = (None, 0);
    while i < n && j < m {
        if quote[i] == window[j] {
            first.get_or_insert(j);
            last = j;
            i += 1;
            j += 1;
        } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    Some((kept, first?, last))
}

/// The path of markdown headings (`#` lines) that `at` (a byte offset of `text`) stands
/// under, outermost first: each heading before it, less those a later heading of the same
/// or a higher level closed. Headings inside fenced code and a leading front matter block
/// are not headings. For many places in one text, use [`Headings`].
pub fn heading_path(text: &str, at: usize) -> Vec<String> {
    Headings::new(text).path_at(at)
}

/// The headings of a markdown text, read once: for each heading line, where it starts and
/// the heading path it opens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headings {
    /// (where the heading's line starts, the path from the outermost heading to it).
    opened: Vec<(usize, Vec<String>)>,
}

impl Headings {
    /// The headings of `text`.
    pub fn new(text: &str) -> Headings {
        let skip = match crate::markdown::front_matter::front_matter(text) {
            Some(Ok(front)) => front.range.end,
            _ => 0,
        };
        let mut opened = Vec::new();
        let mut path: Vec<(usize, String)> = Vec::new();
        let mut fence: Option<(char, usize)> = None;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            if start < skip {
                continue;
            }
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            if indent <= 3 {
                if let Some(c) = trimmed.chars().next().filter(|c| *c == '`' || *c == '~') {
                    let n = trimmed.chars().take_while(|&x| x == c).count();
                    if n >= 3 {
                        match fence {
                            None => fence = Some((c, n)),
                            Some((f, m)) if f == c && n >= m && trimmed.trim_end().len() == n => {
                                fence = None
                            }
                            _ => {}
                        }
                        continue;
                    }
                }
            }
            if fence.is_some() || indent > 3 {
                continue;
            }
            let level = trimmed.chars().take_while(|&c| c == '#').count();
            if !(1..=6).contains(&level) {
                continue;
            }
            let rest = &trimmed[level..];
            if !(rest.is_empty() || rest.starts_with([' ', '\t', '\n', '\r'])) {
                continue;
            }
            let title = rest.trim().trim_end_matches('#').trim_end();
            if title.is_empty() {
                continue;
            }
            while path.last().is_some_and(|(l, _)| *l >= level) {
                path.pop();
            }
            path.push((level, title.to_owned()));
            opened.push((start, path.iter().map(|(_, t)| t.clone()).collect()));
        }
        Headings { opened }
    }

    /// The heading path byte `at` stands under (the last heading whose line starts before
    /// it), outermost first; empty before the first heading.
    pub fn path_at(&self, at: usize) -> Vec<String> {
        let i = self.opened.partition_point(|(start, _)| *start < at);
        i.checked_sub(1)
            .map(|i| self.opened[i].1.clone())
            .unwrap_or_default()
    }
}

/// Folded text ([`normalise`]'s rule) with, for each of its bytes, where its character
/// starts and ends in the original.
struct Folded {
    text: String,
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl Folded {
    fn new(original: &str) -> Folded {
        let mut text = String::with_capacity(original.len());
        let mut starts = Vec::with_capacity(original.len());
        let mut ends = Vec::with_capacity(original.len());
        let mut space = true;
        for (at, c) in original.char_indices() {
            let end = at + c.len_utf8();
            match normalise_char(c) {
                None => {
                    if !space {
                        text.push(' ');
                        starts.push(at);
                        ends.push(end);
                    }
                    space = true;
                }
                Some(lower) => {
                    for l in lower {
                        let before = text.len();
                        text.push(l);
                        starts.extend(std::iter::repeat_n(at, text.len() - before));
                        ends.extend(std::iter::repeat_n(end, text.len() - before));
                    }
                    space = false;
                }
            }
        }
        if text.ends_with(' ') {
            text.pop();
            starts.pop();
            ends.pop();
        }
        Folded { text, starts, ends }
    }

    /// The original byte range of the folded range `r` (not empty, within the text).
    fn original(&self, r: Range<usize>) -> Range<usize> {
        let last = r.end.saturating_sub(1).max(r.start);
        self.starts[r.start]..self.ends[last]
    }

    fn original_start(&self, at: usize) -> usize {
        self.starts.get(at).copied().unwrap_or(0)
    }
}

/// The first match of `piece` in `text` at or after `from`, starting and ending at word
/// boundaries (the rule grounding uses).
fn find_words(text: &str, piece: &str, from: usize) -> Option<usize> {
    let edge_ok = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
    let starts_word = piece.chars().next().is_some_and(char::is_alphanumeric);
    let ends_word = piece.chars().next_back().is_some_and(char::is_alphanumeric);
    let rest = text.get(from..)?;
    rest.match_indices(piece)
        .map(|(at, _)| from + at)
        .find(|&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + piece.len()..].chars().next();
            (!starts_word || edge_ok(before)) && (!ends_word || edge_ok(after))
        })
}

/// Three words of a near-match quote found in the source, and the last three found after
/// them: the part of the source the quote was grounded in.
fn near(text: &str, pieces: &[String]) -> Option<Range<usize>> {
    let words: Vec<&str> = pieces
        .iter()
        .flat_map(|p| p.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let window = words.len().min(3);
    if window == 0 {
        return None;
    }
    let phrases: Vec<String> = words.windows(window).map(|w| w.join(" ")).collect();
    let (first, start) = phrases
        .iter()
        .enumerate()
        .find_map(|(i, p)| find_words(text, p, 0).map(|at| (i, at)))?;
    let end = phrases[first..]
        .iter()
        .rev()
        .find_map(|p| find_words(text, p, start).map(|at| at + p.len()))?;
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text a range of `text` covers.
    fn at(text: &str, range: Option<Range<usize>>) -> Option<&str> {
        range.map(|r| &text[r])
    }

    const QUOTE: &str = "brewed at nine bars of pressure";

    fn anchored(text: &str, quote: &str) -> Anchor {
        let start = text.find(quote).expect("the quote is in the text");
        Anchor::at(text, start..start + quote.len())
    }

    #[test]
    fn an_anchor_keeps_the_quote_and_up_to_32_characters_each_side() {
        let text = "ééééééééééééééééééééééééééééééééééé: brewed at nine bars. ";
        let a = anchored(text, "brewed at nine bars");
        assert_eq!(a.exact, "brewed at nine bars");
        assert_eq!(a.prefix.chars().count(), CONTEXT_CHARS);
        assert!(a.prefix.ends_with("é: "));
        assert_eq!(a.suffix, ". ");
        // A range off a character boundary is moved out to one.
        let b = Anchor::at("né", 2..3);
        assert_eq!(b.exact, "é");
    }

    /// Re-anchoring, as a table: the text a quote was anchored in, the text after an
    /// edit, and what the anchor finds in it (`None`: the quote is gone).
    #[test]
    fn reanchoring_table() {
        let before = "Espresso is a coffee. It is brewed at nine bars of pressure, \
                      which gives crema. Milk is added later.";
        let cases: &[(&str, &str, &str, Option<&str>)] = &[
            ("unchanged", before, QUOTE, Some(QUOTE)),
            (
                "a word inserted before the quote",
                "Espresso is a strong coffee. It is brewed at nine bars of pressure, \
                 which gives crema. Milk is added later.",
                QUOTE,
                Some(QUOTE),
            ),
            (
                "a word inserted inside the quote",
                "Espresso is a coffee. It is brewed at nine full bars of pressure, \
                 which gives crema. Milk is added later.",
                QUOTE,
                Some("brewed at nine full bars of pressure"),
            ),
            (
                "the paragraph moved",
                "Milk is added later.\n\nAbout grinding: fine.\n\nEspresso is a coffee. \
                 It is brewed at nine bars of pressure, which gives crema.",
                QUOTE,
                Some(QUOTE),
            ),
            (
                "the quote deleted",
                "Espresso is a coffee. It gives crema. Milk is added later.",
                QUOTE,
                None,
            ),
            (
                "the quote's case and spacing changed",
                "Espresso is a coffee. It is Brewed at  nine bars\nof pressure, which \
                 gives crema.",
                QUOTE,
                Some("Brewed at  nine bars\nof pressure"),
            ),
            (
                "a word of the quote replaced",
                "Espresso is a coffee. It is brewed at nine bars of steam pressure, \
                 which gives crema.",
                QUOTE,
                Some("brewed at nine bars of steam pressure"),
            ),
        ];
        for (what, after, quote, want) in cases {
            let anchor = anchored(before, quote);
            assert_eq!(at(after, reanchor(&anchor, after)), *want, "{what}");
        }
    }

    #[test]
    fn reanchoring_cjk_rtl_and_multibyte_white_space() {
        // CJK: characters inserted before the quote, then one inside it.
        let cjk = "日本の首都は東京です。東京は大きな都市で、人口が多いです。";
        let quote = "東京は大きな都市で";
        let anchor = anchored(cjk, quote);
        let before = "はじめに。日本の首都は東京です。東京は大きな都市で、人口が多いです。";
        assert_eq!(at(before, reanchor(&anchor, before)), Some(quote));
        let inside = "日本の首都は東京です。東京はとても大きな都市で、人口が多いです。";
        assert_eq!(
            at(inside, reanchor(&anchor, inside)),
            Some("東京はとても大きな都市で")
        );
        // RTL (Hebrew): a word inserted before the quote.
        let rtl = "הקפה נטחן דק מאוד לפני החליטה בלחץ גבוה";
        let quote = "לפני החליטה בלחץ גבוה";
        let anchor = anchored(rtl, quote);
        let edited = "הקפה הטרי נטחן דק מאוד לפני החליטה בלחץ גבוה";
        assert_eq!(at(edited, reanchor(&anchor, edited)), Some(quote));
        // Multibyte white space: a no-break space in the quote became a plain one, and a
        // wide space was added before it.
        let nbsp = "Le café\u{00A0}est servi très chaud, dit-on.";
        let quote = "café\u{00A0}est servi très chaud";
        let anchor = anchored(nbsp, quote);
        let edited = "Le\u{3000}bon café est servi très chaud, dit-on.";
        assert_eq!(
            at(edited, reanchor(&anchor, edited)),
            Some("café est servi très chaud")
        );
    }

    /// The search near the old place gives way to the whole text when the copy there does
    /// not keep the quote's context and one far away does; where the near copy keeps it,
    /// it is taken over an equally good copy far away.
    #[test]
    fn a_copy_near_the_old_place_is_taken_only_when_its_context_is_whole() {
        let filler = "lorem ipsum dolor sit amet. ".repeat(10_000);
        let original = format!("{filler}Espresso is brewed at nine bars of pressure daily.");
        let at_old = original.find(QUOTE).unwrap();
        let anchor = Anchor::at(&original, at_old..at_old + QUOTE.len());
        // Near the old place the quote now stands in other words; the whole sentence went
        // to the start of the text, far away.
        let moved = format!(
            "Espresso is brewed at nine bars of pressure daily. {filler}Tea is {QUOTE} never."
        );
        let far = moved.find(QUOTE).unwrap();
        assert_eq!(
            reanchor(&anchor, &moved),
            Some(far..far + QUOTE.len()),
            "the copy in the same context"
        );
        // With the context kept near the old place too, the nearer copy wins.
        let both = format!("Espresso is brewed at nine bars of pressure daily. {original}");
        let near = both.rfind(QUOTE).unwrap();
        assert_eq!(reanchor(&anchor, &both), Some(near..near + QUOTE.len()));
    }

    #[test]
    fn of_several_places_the_one_in_the_same_context_is_taken() {
        let text = "First: brewed at nine bars here. Second: brewed at nine bars there.";
        let second = text.rfind("brewed").unwrap();
        let anchor = Anchor::at(text, second..second + "brewed at nine bars".len());
        // Both places moved; the one followed by " there" is the same place.
        let edited = format!("Intro. {text}");
        let got = reanchor(&anchor, &edited).unwrap();
        assert_eq!(&edited[got.start - 8..got.start], "Second: ");
    }

    #[test]
    fn pieces_of_a_quote_are_located_one_by_one() {
        let text = "Espresso is brewed at nine bars. Crema forms on top. It is served at once.";
        let ranges = locate_pieces(text, "brewed at nine bars ... served at once").unwrap();
        let got: Vec<&str> = ranges.into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["brewed at nine bars", "served at once"]);
        assert_eq!(locate_pieces(text, "no such words at all"), None);
    }

    #[test]
    fn the_heading_path_names_the_headings_above_a_place() {
        let text = "---\ntitle: x\n# not a heading\n---\n# Coffee\nintro\n## Espresso\n\
                    ### Pressure\nnine bars\n## Milk\n```\n# code\n```\nsteamed\n";
        assert_eq!(heading_path(text, text.find("intro").unwrap()), ["Coffee"]);
        assert_eq!(
            heading_path(text, text.find("nine bars").unwrap()),
            ["Coffee", "Espresso", "Pressure"]
        );
        assert_eq!(
            heading_path(text, text.find("steamed").unwrap()),
            ["Coffee", "Milk"]
        );
        assert!(heading_path("no headings", 3).is_empty());
    }

    #[test]
    fn hostile_input_never_panics() {
        for text in ["", "é", "\u{3000}\u{A0}", "日本", "a b c d e f"] {
            for quote in ["", "...", "é", "a b c", "日本"] {
                let _ = locate_pieces(text, quote);
                let anchor = Anchor::at(quote, 0..quote.len());
                let _ = reanchor(&anchor, text);
                for i in 0..=text.len() {
                    let _ = heading_path(text, i);
                }
            }
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::{reanchor, Anchor};

        const WORDS: &[&str] = &[
            "espresso",
            "café",
            "日本",
            "straße",
            "a",
            "the",
            "İstanbul",
            "42",
            "قهوة",
            "crema",
        ];

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]

            /// Text inserted anywhere outside a quote never loses it: the place found again
            /// holds the quote's exact text.
            #[test]
            fn a_quote_survives_text_inserted_outside_it(
                words in prop::collection::vec(prop::sample::select(WORDS), 6..60),
                from in any::<prop::sample::Index>(),
                len in 2usize..8,
                at in any::<prop::sample::Index>(),
                inserted in "[a-zé日 \u{A0}]{0,20}",
            ) {
                let text = words.join(" ");
                let first = from.index(words.len());
                let last = (first + len).min(words.len());
                let start: usize = words[..first].iter().map(|w| w.len() + 1).sum();
                let quote = words[first..last].join(" ");
                let anchor = Anchor::at(&text, start..start + quote.len());
                // A character boundary outside the quote.
                let outside: Vec<usize> = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([text.len()])
                    .filter(|&i| i <= anchor.start || i >= anchor.end)
                    .collect();
                let cut = outside[at.index(outside.len())];
                let edited = format!("{}{inserted}{}", &text[..cut], &text[cut..]);
                let found = reanchor(&anchor, &edited).expect("the quote is still there");
                prop_assert_eq!(&edited[found], quote.as_str());
            }

            #[test]
            fn reanchoring_any_text_keeps_to_character_boundaries(
                before in any::<String>(),
                after in any::<String>(),
                a in any::<prop::sample::Index>(),
                b in any::<prop::sample::Index>(),
            ) {
                let bytes = before.len() + 1;
                let anchor = Anchor::at(&before, a.index(bytes)..a.index(bytes) + b.index(40));
                if let Some(r) = reanchor(&anchor, &after) {
                    prop_assert!(r.start <= r.end && r.end <= after.len());
                    prop_assert!(after.is_char_boundary(r.start) && after.is_char_boundary(r.end));
                }
            }
        }
    }
}
