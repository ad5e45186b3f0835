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
//! **No name carries link syntax**, whatever door it enters by — a source's own title, an
//! H1, a model's title, concepts, backlink suggestions, link targets, aliases from front
//! matter: a name written as one whole link (`[[T#h|s]]`, `![[T]]`, `[t](T.md)`, `T|s`,
//! `T#^b`) is reduced to the page it names ([`reduce_link_syntax`]); a name that still holds
//! `[`, `]`, `|` or `^` — a sentence with a link in it (`You can add [[Supported formats]]
//! to …`), a link cut off (`… uses [[Sync`) — is refused ([`NotAName::LinkSyntax`]). A `#`
//! that is part of a name stays (`C#`, `F# basics`). A source's own title reads its links
//! as their text ([`title_without_link_syntax`]). And a **fragment of a link target** — a
//! proper word prefix of a target the source links (`Supported` of `[[Supported formats]]`)
//! that the source never says on its own — is no name ([`NotAName::LinkFragment`]).
//!
//! A source's own title is always a name, and so is the question of a saved answer: these
//! rules are for the names a model proposes. So is a name the source itself writes as a
//! link (`[[Who Is Afraid of Virginia Woolf]]`): its author named it, and only the rules
//! on form (empty, no letters, markdown syntax, attachment) apply to it.

use std::collections::HashSet;

use crate::key::topic_key;
use crate::markdown::link::{is_attachment, reduce_name, LinkRef};
use crate::markdown::note_links::{markdown_links, Destination};
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
    /// It carries link syntax that does not reduce to one page's name: a link inside a
    /// sentence, an unbalanced bracket, a `|` or `^`.
    LinkSyntax,
    /// It is a word prefix of a link target its source writes (`Supported` of
    /// `[[Supported formats]]`) that the source never says on its own.
    LinkFragment,
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
    /// `link_syntax`, `link_fragment`, `attachment`, `too_long`, `function_word`, `clause`, `not_in_source`).
    pub fn as_str(self) -> &'static str {
        match self {
            NotAName::Empty => "empty",
            NotAName::NoLetters => "no_letters",
            NotAName::MarkdownSyntax => "markdown_syntax",
            NotAName::LinkSyntax => "link_syntax",
            NotAName::LinkFragment => "link_fragment",
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
            NotAName::LinkSyntax => "carries link syntax",
            NotAName::LinkFragment => "a fragment of a link's target",
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
    if carries_link_syntax(trimmed) {
        return Some(NotAName::LinkSyntax);
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
        NotAName::Empty
            | NotAName::NoLetters
            | NotAName::MarkdownSyntax
            | NotAName::LinkSyntax
            | NotAName::Attachment
    )
}

/// The characters of link syntax no name may keep: brackets, the `|` before a link's shown
/// text and the `^` of a block id. (`#` may be part of a name: `C#`.)
const LINK_CHARACTERS: [char; 4] = ['[', ']', '|', '^'];

/// Whether `name` holds link syntax (see `LINK_CHARACTERS`).
pub fn carries_link_syntax(name: &str) -> bool {
    name.contains(LINK_CHARACTERS)
}

/// The page a markdown link names: the file name of a note it points at (no folder, no
/// extension, no anchor), else its text.
fn markdown_link_name(shown: &str, destination: &Destination) -> Option<String> {
    match destination {
        Destination::Note { path, .. } => {
            let base = path.rsplit('/').next().unwrap_or(path);
            let stem = base
                .strip_suffix(".md")
                .or_else(|| base.strip_suffix(".markdown"))
                .unwrap_or(base)
                .trim();
            (!stem.is_empty()).then(|| stem.to_owned())
        }
        // A document's page goes by the document's own title, which only the wiki knows: its
        // file name is no name.
        Destination::Document { .. } | Destination::Attachment(_) | Destination::Nothing => None,
        Destination::Here(_) | Destination::External(_) => {
            let shown = shown.trim();
            (!shown.is_empty()).then(|| shown.to_owned())
        }
    }
}

/// `name` as it may enter the wiki by any door: a name written as one whole link —
/// `[[T#h|s]]`, `![[T]]`, `[t](Folder/T.md#h)`, `T|shown`, `T#Heading`, `T#^block` — is
/// reduced to the page it names; what still carries link syntax after that (a sentence
/// with a link in it, an unbalanced bracket, a stray `|` or `^`) is refused
/// ([`NotAName::LinkSyntax`]); a link to no page (`#Heading`, `photo.jpg`) is refused as
/// such. Only the form is judged here: [`not_a_name`] and [`NameEvidence::judge`] judge the
/// rest.
pub fn reduce_link_syntax(name: &str) -> Result<String, NotAName> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(NotAName::Empty);
    }
    // One whole markdown link (or image): the page it names.
    let unbanged = trimmed.strip_prefix('!').unwrap_or(trimmed);
    if unbanged.starts_with('[') && !unbanged.starts_with("[[") && trimmed.ends_with(')') {
        let links = markdown_links(trimmed, "");
        if let [link] = links.as_slice() {
            if link.range.start <= trimmed.len() - unbanged.len() && link.range.end == trimmed.len()
            {
                let reduced = markdown_link_name(&link.shown, &link.destination)
                    .ok_or(NotAName::MarkdownSyntax)?;
                return if carries_link_syntax(&reduced) {
                    Err(NotAName::LinkSyntax)
                } else {
                    Ok(reduced)
                };
            }
        }
        if trimmed.starts_with('!') {
            // An image: an attachment, never a page.
            return Err(NotAName::Attachment);
        }
    }
    // One whole wiki link: exactly one `[[` … `]]` around everything.
    let whole_wiki = unbanged.starts_with("[[")
        && unbanged.ends_with("]]")
        && unbanged.matches("[[").count() == 1
        && unbanged.matches("]]").count() == 1;
    if !whole_wiki && trimmed.contains(['[', ']']) {
        return Err(NotAName::LinkSyntax);
    }
    match reduce_name(trimmed) {
        Some(reduced) if carries_link_syntax(&reduced) => Err(NotAName::LinkSyntax),
        Some(reduced) if reduced.trim().is_empty() => Err(NotAName::Empty),
        Some(reduced) => Ok(reduced.trim().to_owned()),
        None if is_attachment(trimmed.trim_start_matches(['!', '[']).trim_end_matches(']')) => {
            Err(NotAName::Attachment)
        }
        None => Err(NotAName::MarkdownSyntax),
    }
}

/// A title its author wrote (a front matter `title`, an H1, an HTML title, a file name)
/// with its links read as a reader sees them: `[[T|shown]]` as `shown`, `[[T]]` as `T`,
/// `[text](dest)` as `text`; embeds and images left out; a `^block` id and any `[`, `]`,
/// `|` or `^` left over dropped, and whitespace collapsed. Never carries link syntax.
pub fn title_without_link_syntax(title: &str) -> String {
    let mut out = String::new();
    for piece in split_wiki_links(title) {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Link(link) if link.embed => {}
            Piece::Link(link) => out.push_str(&link_text(&link)),
        }
    }
    // Markdown links: their text (images: nothing).
    let links = markdown_links(&out, "");
    if !links.is_empty() {
        let mut read = String::new();
        let mut at = 0;
        for link in links {
            if link.range.start < at || link.range.end > out.len() {
                continue;
            }
            read.push_str(&out[at..link.range.start]);
            let image = out[link.range.clone()].starts_with('!');
            if !image {
                read.push_str(&link.shown);
            }
            at = link.range.end;
        }
        read.push_str(&out[at..]);
        out = read;
    }
    // Images pulldown does not call links, and what is left of link syntax.
    let mut cleaned = String::with_capacity(out.len());
    for word in out.split_whitespace() {
        // An Obsidian block id (`^abc123`) is no word of a title.
        if word.starts_with('^')
            && word.len() > 1
            && word[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            continue;
        }
        let word: String = word
            .chars()
            .filter(|c| !LINK_CHARACTERS.contains(c))
            .collect();
        if word.is_empty() {
            continue;
        }
        if !cleaned.is_empty() {
            cleaned.push(' ');
        }
        cleaned.push_str(&word);
    }
    cleaned
}

/// What a reader sees of a wiki link in a title: its shown text, else its target (its
/// heading for a link inside the page).
fn link_text(link: &LinkRef) -> String {
    if let Some(shown) = &link.shown {
        return shown.clone();
    }
    if link.target.is_empty() {
        return link
            .anchor
            .as_ref()
            .map(|a| a.written())
            .unwrap_or_default();
    }
    link.target.clone()
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
    /// The keys of the texts outside links (and of links' shown text), each padded with
    /// spaces: where a name is said on its own.
    plain: Vec<String>,
}

impl NameEvidence {
    /// The words of `texts` (a source's readable text, its own title, its file name). A
    /// wiki link says its folder, target, heading and shown text (`[[Grind Size#Burrs|burrs]]`
    /// says `Grind Size`, `Burrs` and `burrs`), each read on its own.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> NameEvidence {
        let mut words = HashSet::new();
        let mut linked = HashSet::new();
        let mut plain = Vec::new();
        let mut add = |text: &str| {
            for word in topic_key(text).split(' ').filter(|w| !w.is_empty()) {
                words.insert(word.to_owned());
            }
        };
        for text in texts {
            for piece in split_wiki_links(text) {
                match piece {
                    Piece::Text(text) => {
                        add(text);
                        // Markdown links: their target is a name their author gave; their
                        // text is said.
                        let mut outside = String::new();
                        let mut at = 0;
                        for link in markdown_links(text, "") {
                            if link.range.start < at || link.range.end > text.len() {
                                continue;
                            }
                            outside.push_str(&text[at..link.range.start]);
                            outside.push(' ');
                            at = link.range.end;
                            let target = markdown_link_name("", &link.destination);
                            // A link's text says a name on its own only when it is not
                            // the target itself.
                            if target
                                .as_deref()
                                .is_none_or(|t| topic_key(t) != topic_key(&link.shown))
                            {
                                outside.push_str(&link.shown);
                                outside.push(' ');
                            }
                            if let Some(name) = target {
                                add(&name);
                                linked.insert(topic_key(&name));
                            }
                        }
                        outside.push_str(&text[at..]);
                        plain.push(format!(" {} ", topic_key(&outside)));
                    }
                    Piece::Link(link) => {
                        if let Some(shown) = &link.shown {
                            if topic_key(shown) != topic_key(&link.target) {
                                plain.push(format!(" {} ", topic_key(shown)));
                            }
                        }
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
        NameEvidence {
            words,
            linked,
            plain,
        }
    }

    /// Whether `name` is a proper word prefix of a link target the texts write that the
    /// texts never say on their own (`Supported` of `[[Supported formats]]`).
    pub fn is_link_fragment(&self, name: &str) -> bool {
        let key = topic_key(name);
        if key.is_empty() {
            return false;
        }
        let prefix = format!("{key} ");
        let padded = format!(" {key} ");
        self.linked.iter().any(|target| target.starts_with(&prefix))
            && !self.plain.iter().any(|text| text.contains(&padded))
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
        not_a_name(name)
            .or_else(|| {
                self.is_link_fragment(name)
                    .then_some(NotAName::LinkFragment)
            })
            .or_else(|| (!self.says(name)).then_some(NotAName::NotInSource))
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

    #[test]
    fn names_written_as_links_reduce_to_their_target_and_sentences_with_links_are_refused() {
        let cases: &[(&str, Result<&str, NotAName>)] = &[
            ("Espresso", Ok("Espresso")),
            ("[[Espresso]]", Ok("Espresso")),
            ("[[Espresso#History|the history]]", Ok("Espresso")),
            ("![[Espresso]]", Ok("Espresso")),
            ("[[Notes/Espresso#^b1]]", Ok("Espresso")),
            ("Espresso|the drink", Ok("Espresso")),
            ("Espresso#^b1", Ok("Espresso")),
            ("[[C#]]", Ok("C#")),
            ("C#", Ok("C#")),
            ("[[F# basics]]", Ok("F# basics")),
            (
                "[Supported formats](Supported%20formats.md)",
                Ok("Supported formats"),
            ),
            (
                "[the guide](<Guides/Sync setup.md#Steps>)",
                Ok("Sync setup"),
            ),
            ("[Obsidian](https://obsidian.md)", Ok("Obsidian")),
            (
                "You can add [[Supported formats]] to a vault",
                Err(NotAName::LinkSyntax),
            ),
            ("The app uses [[Sync", Err(NotAName::LinkSyntax)),
            ("Sync]] settings", Err(NotAName::LinkSyntax)),
            ("See [the guide](guide.md) first", Err(NotAName::LinkSyntax)),
            ("[[A]] and [[B]]", Err(NotAName::LinkSyntax)),
            ("a ^ b", Err(NotAName::LinkSyntax)),
            ("![chart](chart.png)", Err(NotAName::Attachment)),
            ("[[#Heading]]", Err(NotAName::MarkdownSyntax)),
            ("[[photo.jpg]]", Err(NotAName::Attachment)),
            ("  ", Err(NotAName::Empty)),
        ];
        for (name, want) in cases {
            let got = reduce_link_syntax(name);
            assert_eq!(got.as_deref().map_err(|e| *e), *want, "{name:?}");
        }
        assert_eq!(not_a_name("Sync]] settings"), Some(NotAName::LinkSyntax));
        assert_eq!(not_a_written_name("a|b"), Some(NotAName::LinkSyntax));
    }

    #[test]
    fn an_authors_title_reads_its_links_as_text() {
        let cases = [
            ("Using [[Obsidian Sync|Sync]] at work", "Using Sync at work"),
            ("[[Espresso]] notes", "Espresso notes"),
            ("Setup ![[logo.png]] guide", "Setup guide"),
            (
                "Read [the docs](https://example.org) first",
                "Read the docs first",
            ),
            ("Heading with a block ^abc123", "Heading with a block"),
            ("Cats | Dogs", "Cats Dogs"),
            ("C# and F# basics", "C# and F# basics"),
            ("Notes [draft]", "Notes draft"),
        ];
        for (title, want) in cases {
            assert_eq!(title_without_link_syntax(title), want, "{title:?}");
        }
    }

    #[test]
    fn a_word_prefix_of_a_link_target_the_source_never_says_alone_is_no_name() {
        let evidence = NameEvidence::new([
            "You can add [[Supported formats]] to a vault. See [Sync settings](Sync%20settings.md).",
        ]);
        assert_eq!(evidence.judge("Supported"), Some(NotAName::LinkFragment));
        assert_eq!(evidence.judge("Sync"), Some(NotAName::LinkFragment));
        assert_eq!(evidence.judge("Supported formats"), None);
        assert_eq!(evidence.judge("Sync settings"), None);
        // Said on its own elsewhere: a name.
        let said = NameEvidence::new(["Sync is fast. Read [[Sync settings]]."]);
        assert_eq!(said.judge("Sync"), None);
    }

    /// Names made of every markdown construct a model or a note may write.
    fn any_name() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("Espresso".to_owned()),
            Just("Supported formats".to_owned()),
            Just("C#".to_owned()),
            Just("F# basics".to_owned()),
            Just("[[Sync]]".to_owned()),
            Just("[[Sync".to_owned()),
            Just("Sync]]".to_owned()),
            Just("[[Folder/Note#Heading|shown]]".to_owned()),
            Just("![[photo.png]]".to_owned()),
            Just("![[Espresso]]".to_owned()),
            Just("[[#Heading]]".to_owned()),
            Just("[[T#^block]]".to_owned()),
            Just("[text](Note%20name.md)".to_owned()),
            Just("[text](<Other note.md>)".to_owned()),
            Just("[t](../Up/Note.md#Heading)".to_owned()),
            Just("[site](https://example.org)".to_owned()),
            Just("![alt](img.png)".to_owned()),
            Just("|".to_owned()),
            Just("^".to_owned()),
            Just("^abc".to_owned()),
            Just("[".to_owned()),
            Just("]".to_owned()),
            Just("(".to_owned()),
            Just(")".to_owned()),
            Just("#".to_owned()),
            Just("You can add".to_owned()),
            Just("to a vault.".to_owned()),
            "[a-z]{1,8}",
        ];
        proptest::collection::vec(piece, 1..6).prop_map(|parts| parts.join(" "))
    }

    proptest::proptest! {
        /// Every door of the leaf crate: whatever a name holds, what it gives a page never
        /// carries link syntax.
        #[test]
        fn no_door_lets_link_syntax_into_a_name(name in any_name(), joined in any_name()) {
            if let Ok(reduced) = reduce_link_syntax(&name) {
                proptest::prop_assert!(!carries_link_syntax(&reduced), "{:?} -> {:?}", name, reduced);
            }
            if let Some(title) = crate::markdown::clean_title(&name) {
                proptest::prop_assert!(!carries_link_syntax(&title), "{:?} -> {:?}", name, title);
            }
            if not_a_name(&name).is_none() || not_a_written_name(&name).is_none() {
                proptest::prop_assert!(!carries_link_syntax(&name), "{:?}", name);
            }
            let note = format!("---\naliases: [\"{}\"]\n---\n# {name}\n\n{joined}\n", name.replace('"', ""));
            let read = crate::markdown::read_note(&note, Some(&joined));
            for n in read.title.iter().chain(&read.aliases) {
                proptest::prop_assert!(!carries_link_syntax(n), "{:?}", n);
            }
            let evidence = NameEvidence::new([joined.as_str()]);
            if evidence.judge(&name).is_none() {
                proptest::prop_assert!(!carries_link_syntax(&name), "{:?}", name);
            }
        }
    }
}
