//! Which names a model proposes may become pages: names that are names, said by the sources.
//!
//! A title, concept or link target from a model becomes a page (or a wanted page) only when
//! it passes both tests:
//!
//! 1. **It is a name** ([`not_a_name`]): not empty after normalisation, not only punctuation
//!    or digits (`{`, `1:16`), not starting with markdown syntax (`#`, `>`, `-`, `|`, `*`,
//!    `---`), not an attachment's file name (`photo.jpg`), at most [`MAX_NAME_CHARS`]
//!    characters and [`MAX_NAME_WORDS`] words, not a bare function word (`This`, `What`),
//!    and not a clause: a name holding a finite form of *be*, *have* or *do* or a modal
//!    (`The textbook pressure is nine bars`) says something about a topic instead of naming
//!    it. Page names are noun phrases; a model that fills a link or concept with a run of
//!    a sentence gives neither.
//! 2. **A source says it** ([`NameEvidence::says`]): every content word of the name (its
//!    words by [`crate::key::topic_key`], so case, diacritics and plurals do not matter;
//!    function words aside) appears in the text, own title or file name of the source that
//!    gives it.
//!
//! A source's own title is always a name, and so is the question of a saved answer: these
//! rules are for the names a model proposes. So is a name the source itself writes as a
//! link (`[[Who Is Afraid of Virginia Woolf]]`): its author named it, and only the rules
//! on form (empty, no letters, markdown syntax, attachment) apply to it.

use std::collections::HashSet;

use crate::key::topic_key;
use crate::markdown::link::is_attachment;
use crate::markdown::{split_wiki_links, Piece};

/// The longest name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// The most words in a name a model proposes. Page names are short noun phrases (most
/// encyclopedia titles hold one to four words); a longer run is a sentence's, and a link
/// the source itself writes is exempt.
pub const MAX_NAME_WORDS: usize = 6;

/// Why a proposed name is not a page's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAName {
    /// Nothing is left of it after normalisation.
    Empty,
    /// It holds no letter: only punctuation or digits (`{`, `1:16`).
    NoLetters,
    /// It starts with markdown syntax (`#`, `>`, `-`, `|`, `*`, `---`).
    MarkdownSyntax,
    /// It is the file name of an attachment (`photo.jpg`).
    Attachment,
    /// It is longer than a title should be.
    TooLong,
    /// It is a bare function word (`This`, `What`).
    FunctionWord,
    /// It reads as a clause, not a name: it holds a finite verb of *be*, *have*, *do* or a
    /// modal (`The textbook pressure is nine bars`).
    Clause,
    /// No source that gives it says it.
    NotInSource,
}

impl NotAName {
    /// A short stable name of the reason (`empty`, `no_letters`, `markdown_syntax`,
    /// `attachment`, `too_long`, `function_word`, `clause`, `not_in_source`).
    pub fn as_str(self) -> &'static str {
        match self {
            NotAName::Empty => "empty",
            NotAName::NoLetters => "no_letters",
            NotAName::MarkdownSyntax => "markdown_syntax",
            NotAName::Attachment => "attachment",
            NotAName::TooLong => "too_long",
            NotAName::FunctionWord => "function_word",
            NotAName::Clause => "clause",
            NotAName::NotInSource => "not_in_source",
        }
    }
}

impl std::fmt::Display for NotAName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NotAName::Empty => "empty",
            NotAName::NoLetters => "only punctuation or digits",
            NotAName::MarkdownSyntax => "starts with markdown syntax",
            NotAName::Attachment => "an attachment's file name",
            NotAName::TooLong => "longer than a title should be",
            NotAName::FunctionWord => "a bare function word",
            NotAName::Clause => "a clause, not a name",
            NotAName::NotInSource => "not said by the source",
        })
    }
}

/// Words that carry no topic of their own: articles, pronouns, prepositions, conjunctions,
/// question words and common auxiliaries (English). A name made of these alone is no
/// name, and they need not appear in a source for a name holding them to be said by it.
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "either",
    "else", "etc", "every", "few", "for", "from", "further", "had", "has", "have", "having", "he",
    "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "least", "less", "may", "me", "might", "more", "most", "much", "must", "my",
    "neither", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other",
    "our", "ours", "out", "over", "own", "same", "shall", "she", "should", "so", "some", "such",
    "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "upon", "us", "very", "via", "was",
    "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose",
    "why", "will", "with", "within", "without", "would", "yet", "you", "your", "yours",
];

/// Finite forms of *be*, *have* and *do*, and modals, as written (lowercased): a name that
/// holds one says something. Forms that are also common names or nouns (`may`, `will`,
/// `can`, `must`, `do`) are left out, and so are the infinitive and participles (`Being
/// and Time`).
const FINITE_VERBS: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "am",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "has",
    "have",
    "had",
    "hasn't",
    "haven't",
    "hadn't",
    "does",
    "did",
    "doesn't",
    "didn't",
    "don't",
    "would",
    "could",
    "should",
    "shall",
    "might",
    "wouldn't",
    "couldn't",
    "shouldn't",
    "won't",
    "can't",
    "cannot",
];

/// Whether `name` holds a finite verb of [`FINITE_VERBS`] as a word.
fn holds_finite_verb(name: &str) -> bool {
    name.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .any(|w| {
            let w = w.to_lowercase().replace('’', "'");
            FINITE_VERBS.contains(&w.as_str())
        })
}

/// Whether `word` (a word of a topic key) is a function word.
fn is_function_word(word: &str) -> bool {
    // Keys bring plurals to one form (`these` → `thes`): compare keys with keys.
    static KEYS: std::sync::LazyLock<HashSet<String>> =
        std::sync::LazyLock::new(|| FUNCTION_WORDS.iter().map(|w| topic_key(w)).collect());
    KEYS.contains(word)
}

/// Why `name` is no name whatever the sources say (test 1 of the module documentation);
/// `None` when it may be one.
pub fn not_a_name(name: &str) -> Option<NotAName> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Some(NotAName::Empty);
    }
    if trimmed.starts_with(['#', '>', '-', '|', '*', '+', '=', '`', '~'])
        || trimmed.starts_with("---")
        || trimmed.starts_with("[[")
        || trimmed.starts_with("![")
    {
        return Some(NotAName::MarkdownSyntax);
    }
    if is_attachment(trimmed) {
        return Some(NotAName::Attachment);
    }
    let key = topic_key(trimmed);
    if key.is_empty() {
        return Some(NotAName::Empty);
    }
    if !trimmed.chars().any(char::is_alphabetic) {
        return Some(NotAName::NoLetters);
    }
    if trimmed.chars().count() > MAX_NAME_CHARS || key.split(' ').count() > MAX_NAME_WORDS {
        return Some(NotAName::TooLong);
    }
    if key.split(' ').all(is_function_word) {
        return Some(NotAName::FunctionWord);
    }
    if holds_finite_verb(trimmed) {
        return Some(NotAName::Clause);
    }
    None
}

/// Whether `reason` is about a name's form alone (empty, no letters, markdown syntax, an
/// attachment): such a name is none even when its author wrote it as a link.
fn is_form(reason: NotAName) -> bool {
    matches!(
        reason,
        NotAName::Empty | NotAName::NoLetters | NotAName::MarkdownSyntax | NotAName::Attachment
    )
}

/// Why `name`, which its author wrote as a link or a title, names no page; `None` when it
/// may (only the rules on form apply: see the module documentation).
pub fn not_a_written_name(name: &str) -> Option<NotAName> {
    not_a_name(name).filter(|reason| is_form(*reason))
}

/// The words a source says, by key: of its text, own title and file name.
#[derive(Debug, Clone, Default)]
pub struct NameEvidence {
    words: HashSet<String>,
    /// The keys of the link targets the texts write: names their author gave.
    linked: HashSet<String>,
}

impl NameEvidence {
    /// The words of `texts` (a source's readable text, its own title, its file name). A
    /// wiki link says its folder, target, heading and shown text (`[[Grind Size#Burrs|burrs]]`
    /// says `Grind Size`, `Burrs` and `burrs`), each read on its own.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> NameEvidence {
        let mut words = HashSet::new();
        let mut linked = HashSet::new();
        let mut add = |text: &str| {
            for word in topic_key(text).split(' ').filter(|w| !w.is_empty()) {
                words.insert(word.to_owned());
            }
        };
        for text in texts {
            for piece in split_wiki_links(text) {
                match piece {
                    Piece::Text(text) => add(text),
                    Piece::Link(link) => {
                        add(&link.target);
                        linked.insert(topic_key(&link.target));
                        if let Some(folder) = &link.folder {
                            add(folder);
                        }
                        if let Some(anchor) = &link.anchor {
                            add(&anchor.written());
                        }
                        if let Some(shown) = &link.shown {
                            add(shown);
                        }
                    }
                }
            }
        }
        NameEvidence { words, linked }
    }

    /// Whether the texts write `name` as a link's target.
    pub fn links(&self, name: &str) -> bool {
        self.linked.contains(&topic_key(name))
    }

    /// Whether every content word of `name` is among the source's words.
    pub fn says(&self, name: &str) -> bool {
        let key = topic_key(name);
        let mut content = key
            .split(' ')
            .filter(|w| !w.is_empty() && !is_function_word(w));
        content.all(|w| self.words.contains(w))
    }

    /// Why `name` may not name a page for this source (both tests of the module
    /// documentation); `None` when it may.
    pub fn judge(&self, name: &str) -> Option<NotAName> {
        if self.links(name) {
            return not_a_written_name(name);
        }
        not_a_name(name).or_else(|| (!self.says(name)).then_some(NotAName::NotInSource))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_names() {
        let cases: &[(&str, Option<NotAName>)] = &[
            ("Espresso", None),
            ("2024-01-15 notes", None),
            ("C++", None),
            ("Node.js", None),
            ("", Some(NotAName::Empty)),
            ("  ", Some(NotAName::Empty)),
            ("{", Some(NotAName::Empty)),
            ("1:16", Some(NotAName::NoLetters)),
            ("# 1:2", Some(NotAName::MarkdownSyntax)),
            ("#status bar", Some(NotAName::MarkdownSyntax)),
            ("> quoted", Some(NotAName::MarkdownSyntax)),
            ("- item", Some(NotAName::MarkdownSyntax)),
            ("| cell", Some(NotAName::MarkdownSyntax)),
            ("---", Some(NotAName::MarkdownSyntax)),
            ("Engelbart.jpg", Some(NotAName::Attachment)),
            ("This", Some(NotAName::FunctionWord)),
            ("These", Some(NotAName::FunctionWord)),
            ("What", Some(NotAName::FunctionWord)),
            ("of the", Some(NotAName::FunctionWord)),
            ("Being and Time", None),
            ("May Day", None),
            ("The Will to Power", None),
            ("one two three four five six seven", Some(NotAName::TooLong)),
            (
                "A burr grinder crushes coffee between two hardened",
                Some(NotAName::TooLong),
            ),
            ("The textbook pressure is nine bars", Some(NotAName::Clause)),
            ("Why crema doesn't last", Some(NotAName::Clause)),
            ("Espresso Was Invented", Some(NotAName::Clause)),
            ("Grinders should be cleaned", Some(NotAName::Clause)),
        ];
        for (name, want) in cases {
            assert_eq!(not_a_name(name), *want, "{name:?}");
        }
        assert_eq!(not_a_name(&"x".repeat(101)), Some(NotAName::TooLong));
    }

    #[test]
    fn a_name_must_be_said_by_its_source() {
        let evidence = NameEvidence::new([
            "Cold brew steeps coarse grounds in cold water for hours. See \
             [[Grind Size#Burr grinders|the burrs]].",
            "Cold Brew",
            "cold-brew",
        ]);
        for said in [
            "Cold Brew",
            "cold brews",
            "Coarse Grounds",
            "The Cold Water",
            "COLD-BREW",
            "Grind Size",
            "Burr grinders",
        ] {
            assert!(evidence.says(said), "{said:?}");
            assert_eq!(evidence.judge(said), None, "{said:?}");
        }
        for invented in ["The 100% Natural Coffee", "Coffee", "Espresso Extraction"] {
            assert_eq!(
                evidence.judge(invented),
                Some(NotAName::NotInSource),
                "{invented:?}"
            );
        }
        assert_eq!(evidence.judge("What"), Some(NotAName::FunctionWord));
    }

    #[test]
    fn a_name_the_source_links_is_its_authors() {
        let evidence = NameEvidence::new([
            "Reread [[Who Is Afraid of Virginia Woolf]] and [[The Long Dark Tea-Time of the \
             Soul and more]] and [[#heading]] and [[photo.jpg]]. Pressure is nine bars.",
        ]);
        assert_eq!(evidence.judge("Who Is Afraid of Virginia Woolf"), None);
        assert_eq!(
            evidence.judge("The Long Dark Tea-Time of the Soul and more"),
            None
        );
        assert_eq!(evidence.judge("photo.jpg"), Some(NotAName::Attachment));
        // Said, but not linked: a clause is no name.
        assert_eq!(
            evidence.judge("Pressure is nine bars"),
            Some(NotAName::Clause)
        );
        assert_eq!(not_a_written_name("Who Is Afraid of Virginia Woolf"), None);
        assert_eq!(
            not_a_written_name("> quote"),
            Some(NotAName::MarkdownSyntax)
        );
    }
}
