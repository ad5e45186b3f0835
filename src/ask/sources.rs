//! Asking the raw sources instead of the pages: the eval's "does the wiki help?" side.
//!
//! 1. **The index**, built once per eval ([`SourceIndex::build`]): every source's text is cut
//!    into passages of about [`PASSAGE_BYTES`] at paragraph breaks (a paragraph longer than
//!    that at word breaks, [`cut_passages`]), and the passages go into a throwaway
//!    full-text index ([`PassageIndex`], SQLite FTS5 in memory), searchable by their
//!    source's name and their text.
//! 2. **Retrieval**, no model: the question's content words ([`super::words`], the same
//!    terms as the pages' search) rank the passages by BM25; the best [`PASSAGE_LIMIT`]
//!    (as many blocks as a question may read of the wiki: its matches and their
//!    neighbours) are shown, as many as fit the model's context, each as a block titled by
//!    its source ([`passage_block`](super::material::passage_block)). No passage matching
//!    a word: the sources do not cover the question, and no model is called.
//! 3. **The answer and the check**: the same `ask` template, schema and engine as asking
//!    the wiki ([`Compiler::answer_question`]); a `sourced` claim's quote must be found in
//!    the whole text of the source it cites (by the name its blocks are titled with),
//!    whether or not that passage was shown.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use crate::compile::{Compiler, GroundingIndex, ProgressFn};
use crate::llm::CancellationToken;
use crate::store::{page_key, PassageIndex, SourceId, Store};
use crate::wiki::{Wiki, WikiError};

use super::check::Grounding;
use super::material::Block;
use super::{quoted, words, AskReport, MATCH_LIMIT, NEIGHBOUR_LIMIT};

/// The longest passage, in bytes (characters, for most text): a few paragraphs.
pub const PASSAGE_BYTES: usize = 1200;
/// How many passages a question reads at most: as many blocks as asking the wiki may read
/// (its matches and their neighbours).
pub const PASSAGE_LIMIT: usize = MATCH_LIMIT + NEIGHBOUR_LIMIT;

/// Cuts `text` into passages of at most `max` bytes, in order, covering all its words:
/// whole paragraphs (runs of non-blank lines) while they fit together; a paragraph longer
/// than `max` is cut at the last space or line break that keeps a piece in bounds (at a
/// character when a word is longer than half of `max`). Passages are trimmed; none is
/// empty.
pub fn cut_passages(text: &str, max: usize) -> Vec<&str> {
    passage_ranges(text, max)
        .into_iter()
        .map(|r| &text[r])
        .collect()
}

/// [`cut_passages`] as byte ranges of `text`.
pub fn passage_ranges(text: &str, max: usize) -> Vec<Range<usize>> {
    let max = max.max(1);
    let mut passages: Vec<Range<usize>> = Vec::new();
    // The passage being gathered.
    let mut current: Option<Range<usize>> = None;
    for (start, end) in paragraphs(text) {
        if let Some(open) = current.take() {
            if end - open.start <= max {
                current = Some(open.start..end);
                continue;
            }
            passages.push(open);
        }
        let mut at = start;
        while end - at > max {
            let piece = piece_end(text, at, max);
            passages.push(at..piece);
            at = piece + text[piece..end].len() - text[piece..end].trim_start().len();
        }
        if at < end {
            current = Some(at..end);
        }
    }
    passages.extend(current);
    passages
        .into_iter()
        .map(|r| {
            let piece = &text[r.clone()];
            let start = r.start + (piece.len() - piece.trim_start().len());
            start..start + piece.trim().len()
        })
        .filter(|r| !r.is_empty())
        .collect()
}

/// The paragraphs of `text`: byte ranges of runs of non-blank lines, trimmed.
fn paragraphs(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            out.extend(open.take());
            continue;
        }
        let first = start + (line.len() - line.trim_start().len());
        let last = first + trimmed.len();
        open = Some(match open {
            Some((s, _)) => (s, last),
            None => (first, last),
        });
    }
    out.extend(open);
    out
}

/// Where the piece of at most `max` bytes starting at `at` ends: at its last space or line
/// break past half of `max`, else at the last character boundary in bounds.
fn piece_end(text: &str, at: usize, max: usize) -> usize {
    let mut end = (at + max).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end <= at {
        // A single character longer than `max`: take it whole.
        return at + text[at..].chars().next().map_or(1, char::len_utf8);
    }
    match text[at..end].rfind(char::is_whitespace) {
        Some(i) if i > max / 2 => at + i,
        _ => end,
    }
}

/// A source as its blocks are titled: its title, else the last part of its origin (a file
/// name), else its id.
pub fn source_name(id: SourceId, title: Option<&str>, origin: &str) -> String {
    if let Some(t) = title.map(crate::render::one_line).filter(|t| !t.is_empty()) {
        return t;
    }
    let last = origin
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .map(crate::render::one_line)
        .unwrap_or_default();
    if last.is_empty() {
        format!("source {id}")
    } else {
        last
    }
}

/// One source of the index: its id, the name its blocks are titled with, its text, and
/// that text indexed for quotes on its first citation.
struct IndexedSource {
    id: SourceId,
    name: String,
    text: String,
    quotes: OnceLock<GroundingIndex>,
}

/// One passage: its source (by position) and where it lies in the source's text.
struct Passage {
    source: usize,
    range: Range<usize>,
}

/// The wiki's sources as passages in a full-text index, and their whole texts for checking
/// quotes (see the module documentation).
pub struct SourceIndex {
    index: PassageIndex,
    passages: Vec<Passage>,
    sources: Vec<IndexedSource>,
    /// Each source's position by the key of its name ([`page_key`]).
    by_key: HashMap<String, usize>,
}

impl std::fmt::Debug for SourceIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceIndex")
            .field("sources", &self.sources.len())
            .field("passages", &self.passages.len())
            .finish()
    }
}

/// The passages a question finds, before any model is asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PassageRetrieval {
    /// The question's content words.
    pub words: Vec<String>,
    /// The passages found, best first, by their position in the index.
    pub passages: Vec<usize>,
}

impl SourceIndex {
    /// Indexes every source of `store`, whatever its compile status: the raw material the
    /// person gave, compiled or not.
    pub fn build(store: &Store) -> crate::store::Result<SourceIndex> {
        let mut texts = Vec::new();
        for summary in store.sources()? {
            if let Some(source) = store.source(summary.id)? {
                let name = source_name(source.id, source.title.as_deref(), &source.origin);
                texts.push((source.id, name, source.text));
            }
        }
        SourceIndex::of_texts(texts)
    }

    /// Indexes these sources, each an id, a name and a text. Two sources with one name
    /// (by [`page_key`]) are told apart by a number: `Notes`, `Notes (2)`.
    pub fn of_texts(texts: Vec<(SourceId, String, String)>) -> crate::store::Result<SourceIndex> {
        let mut sources = Vec::new();
        let mut passages = Vec::new();
        let mut by_key = HashMap::new();
        for (id, name, text) in texts {
            let mut unique = name.clone();
            let mut n = 1;
            while by_key.contains_key(&page_key(&unique)) {
                n += 1;
                unique = format!("{name} ({n})");
            }
            by_key.insert(page_key(&unique), sources.len());
            for range in passage_ranges(&text, PASSAGE_BYTES) {
                passages.push(Passage {
                    source: sources.len(),
                    range,
                });
            }
            sources.push(IndexedSource {
                id,
                name: unique,
                text,
                quotes: OnceLock::new(),
            });
        }
        let index = PassageIndex::build(passages.iter().map(|p| {
            let source = &sources[p.source];
            (source.name.as_str(), &source.text[p.range.clone()])
        }))?;
        Ok(SourceIndex {
            index,
            passages,
            sources,
            by_key,
        })
    }

    /// How many sources it holds.
    pub fn sources(&self) -> usize {
        self.sources.len()
    }

    /// How many passages it holds.
    pub fn passages(&self) -> usize {
        self.passages.len()
    }

    /// The passages `question` finds, best first, at most [`PASSAGE_LIMIT`].
    pub fn retrieve(&self, question: &str) -> crate::store::Result<PassageRetrieval> {
        let words = words::content_words(question);
        let terms = words::query_terms(&words);
        let passages = self
            .index
            .search(&terms, PASSAGE_LIMIT)?
            .into_iter()
            .map(|(i, _)| i)
            .filter(|&i| i < self.passages.len())
            .collect();
        Ok(PassageRetrieval { words, passages })
    }

    /// The block of passage `i`, titled by its source.
    fn block(&self, i: usize) -> Block {
        let passage = &self.passages[i];
        let source = &self.sources[passage.source];
        Block::passage(&source.name, &source.text[passage.range.clone()])
    }

    /// Where the source named `name` holds `quote`: its name when a source has it, and
    /// whether its whole text holds the quote (an empty quote is found nowhere).
    pub fn grounds(&self, name: &str, quote: &str) -> Grounding {
        let Some(&at) = self.by_key.get(&page_key(&super::check::cited_name(name))) else {
            return Grounding::default();
        };
        let source = &self.sources[at];
        let found = !quote.trim().is_empty()
            && source
                .quotes
                .get_or_init(|| GroundingIndex::new(&crate::compile::readable(&source.text)))
                .contains(quote);
        Grounding {
            page_id: None,
            title: Some(source.name.clone()),
            found,
            source_ids: if found { vec![source.id] } else { Vec::new() },
        }
    }
}

/// What a question that no passage matches is told.
fn not_covered(words: &[String]) -> String {
    if words.is_empty() {
        return "The question has no words to look for in the sources: ask about a topic.".into();
    }
    format!(
        "The sources do not cover this: no source mentions {}.",
        quoted(words)
    )
}

/// Names each once, in order.
fn each_once(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

impl Wiki {
    /// The wiki's sources as a passage index, for [`ask_sources`].
    pub fn source_index(&self) -> Result<SourceIndex, WikiError> {
        Ok(SourceIndex::build(self.store())?)
    }
}

/// Answers `question` from the raw sources in `index` with `compiler` (see the module
/// documentation): an [`AskReport`] like the wiki's, whose `pages_read` and claims' `page`
/// name sources.
pub async fn ask_sources(
    compiler: &Compiler,
    index: &SourceIndex,
    question: &str,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<AskReport, WikiError> {
    let question = question.trim();
    let retrieval = index.retrieve(question)?;
    let covered = !retrieval.passages.is_empty();
    let mut report = AskReport::empty(question, covered);
    if !covered {
        report.answer = not_covered(&retrieval.words);
        return Ok(report);
    }
    let blocks: Vec<Block> = retrieval.passages.iter().map(|&i| index.block(i)).collect();
    let grounds = |name: &str, quote: &str| index.grounds(name, quote);
    let run = compiler
        .answer_question(question, &blocks, &grounds, events, cancel)
        .await
        .map_err(|e| WikiError::Compile(Box::new(e)))?;
    let names = |at: &[usize]| each_once(at.iter().map(|&i| blocks[i].title.clone()).collect());
    let (read, cut) = (names(&run.read), names(&run.cut));
    report.take_run(run, read, cut);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        text.split_whitespace().collect()
    }

    #[test]
    fn paragraphs_stay_whole_while_they_fit_and_long_ones_are_cut_at_words() {
        let text = "First para one.\nStill first.\n\n  \nSecond para.\n\nThird para is here.\n";
        assert_eq!(
            cut_passages(text, 1000),
            ["First para one.\nStill first.\n\n  \nSecond para.\n\nThird para is here."]
        );
        assert_eq!(
            cut_passages(text, 30),
            [
                "First para one.\nStill first.",
                "Second para.",
                "Third para is here."
            ]
        );
        let long = "word ".repeat(100);
        let pieces = cut_passages(&long, 42);
        assert!(pieces.iter().all(|p| p.len() <= 42 && !p.is_empty()));
        assert!(pieces.iter().all(|p| p.split(' ').all(|w| w == "word")));
        assert_eq!(words(&pieces.join(" ")), words(&long), "no word lost");
    }

    #[test]
    fn every_word_is_kept_in_order_and_no_passage_is_too_long() {
        let mut text = String::new();
        for i in 0..60 {
            text.push_str(&format!(
                "Paragraph {i} says café {} ",
                "ünïcödé ".repeat(i % 7)
            ));
            text.push_str(&"x".repeat(i * 3));
            text.push_str(if i % 5 == 0 { "\n\n\n" } else { "\n\n" });
        }
        for max in [1, 7, 64, 300, PASSAGE_BYTES] {
            let pieces = cut_passages(&text, max);
            let joined = pieces.join("\n");
            let whole: String = words(&text).concat();
            assert_eq!(words(&joined).concat(), whole, "max {max}");
            assert!(
                pieces
                    .iter()
                    .all(|p| p.len() <= max.max(4) && !p.is_empty()),
                "max {max}"
            );
        }
        assert!(cut_passages("", 100).is_empty());
        assert!(cut_passages(" \n\n \t\n", 100).is_empty());
    }

    #[test]
    fn sources_are_named_by_title_else_file_name_and_told_apart() {
        let id = SourceId(7);
        assert_eq!(source_name(id, Some(" Cold\n Brew "), "x.txt"), "Cold Brew");
        assert_eq!(
            source_name(id, None, "/notes/methods/pour-over.md"),
            "pour-over.md"
        );
        assert_eq!(source_name(id, Some("  "), "C:\\notes\\tea.md"), "tea.md");
        assert_eq!(source_name(id, None, ""), "source 7");
        let index = SourceIndex::of_texts(vec![
            (
                SourceId(1),
                "Notes".into(),
                "Espresso is brewed at nine bars.".into(),
            ),
            (
                SourceId(2),
                "notes".into(),
                "Green tea is steamed.\n\nIt is pan-fired too.".into(),
            ),
        ])
        .unwrap();
        assert_eq!((index.sources(), index.passages()), (2, 2));
        let tea = index.grounds("[[Notes (2)|the tea notes]]", "pan-fired too");
        assert_eq!(
            (tea.title.as_deref(), tea.found, tea.source_ids),
            (Some("notes (2)"), true, vec![SourceId(2)])
        );
        let wrong = index.grounds("Notes", "pan-fired too");
        assert!(
            !wrong.found && wrong.source_ids.is_empty(),
            "another source's words"
        );
        assert_eq!(index.grounds("Coffee", "nine bars"), Grounding::default());
        let found = index.retrieve("How is green tea made?").unwrap();
        assert_eq!(found.passages, [1]);
        assert_eq!(index.block(1).title, "notes (2)");
        assert!(index
            .block(1)
            .text
            .starts_with("<<<PAGE notes (2)\nText:\nGreen tea"));
    }
}
