//! The one markdown reader: CommonMark, GFM and the Obsidian dialect, read the same way by
//! ingest, prompts, grounding, rendering and export.
//!
//! - [`read_note`]: a note's front matter, own title, aliases, tags and readable text.
//! - [`readable`]: the text a reader reads, with a map back to the raw bytes.
//! - [`link`]: what a wiki link points at, in every form, and the same rule for names a
//!   model gives ([`link::reduce_name`]).
//! - [`wikilinks`]: finding wiki links in a body, outside code.
//! - [`note_links`]: markdown links to notes (`[t](Note.md)`), and which note a path names.
//! - [`front_matter`]: the YAML block at the top.
//! - [`anchors`]: the headings and block ids a body offers to `[[T#…]]` links.

pub mod anchors;
pub mod front_matter;
pub mod link;
pub mod note_links;
pub mod readable;
pub mod sections;
pub mod wikilinks;

use pulldown_cmark::{Options, Parser};

pub use anchors::{body_anchors, BodyAnchors};
pub use front_matter::{FrontMatter, FrontMatterError};
pub use link::{heading_slug, reduce_name, Anchor, LinkRef};
pub use note_links::{markdown_links, resolve_note, Destination, MarkdownLink, NotePaths};
pub use readable::Readable;
pub use sections::{merge_sections, sections, Section, SectionMerge, SectionSuggestion};
pub use wikilinks::{
    rewrite_links, split_wiki_links, text_runs, wiki_links, Item, Piece, WikiLink,
};

/// Titles longer than this (in characters) are cut; a title is a label, not a paragraph.
pub const MAX_TITLE_CHARS: usize = 300;

/// The markdown extensions every reader of WikiMind turns on: tables, strikethrough, task
/// lists, footnotes.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

/// A note as read: what its front matter and text say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The readable text (front matter, comments, block ids, callout markers out).
    pub readable: Readable,
    /// Its own title: front matter `title`, else the first H1, else the file stem given.
    pub title: Option<String>,
    /// Other names from the front matter (`aliases`).
    pub aliases: Vec<String>,
    /// Tags from the front matter and inline `#tags`, without `#`, first spelling of each.
    pub tags: Vec<String>,
    /// Front matter that could not be read (it stays in the readable text).
    pub front_matter_error: Option<FrontMatterError>,
}

/// The readable text of a source's raw text (see [`readable`]): what prompts, grounding
/// and quotes use. Front matter is left out when it parses (else it stays, as text).
pub fn readable_text(raw: &str) -> Readable {
    let skip = match front_matter::front_matter(raw) {
        Some(Ok(front)) => front.range.end,
        _ => 0,
    };
    readable::readable(raw, skip)
}

/// Reads a note: `raw` as stored, `file_stem` the name of its file without extension (for
/// the title of a note with neither front matter title nor H1).
pub fn read_note(raw: &str, file_stem: Option<&str>) -> Note {
    let (front, error) = match front_matter::front_matter(raw) {
        Some(Ok(front)) => (front, None),
        Some(Err(error)) => (FrontMatter::default(), Some(error)),
        None => (FrontMatter::default(), None),
    };
    let readable = readable::readable(raw, front.range.end);
    let title = front
        .title
        .as_deref()
        .and_then(clean_title)
        .or_else(|| first_h1(&readable.text))
        .or_else(|| file_stem.and_then(clean_title));
    let mut tags = front.tags;
    let mut seen: std::collections::HashSet<String> =
        tags.iter().map(|t| t.to_lowercase()).collect();
    for tag in inline_tags(&readable.text) {
        if seen.insert(tag.to_lowercase()) {
            tags.push(tag);
        }
    }
    // An alias is a name like any other: written as a link, it is the link's target; one
    // that still carries link syntax is none.
    let mut aliases: Vec<String> = Vec::new();
    for alias in front.aliases {
        if let Ok(alias) = crate::name_rule::reduce_link_syntax(&alias) {
            if !aliases.contains(&alias) {
                aliases.push(alias);
            }
        }
    }
    Note {
        readable,
        title,
        aliases,
        tags,
        front_matter_error: error,
    }
}

/// Trims a title, reads its links as their text and drops what is left of link syntax
/// ([`crate::name_rule::title_without_link_syntax`]), collapses its whitespace and cuts it
/// to [`MAX_TITLE_CHARS`]; `None` when blank.
pub fn clean_title(raw: &str) -> Option<String> {
    // A title never carries link syntax: its links read as their text.
    let mut title = crate::name_rule::title_without_link_syntax(raw);
    if title.is_empty() {
        return None;
    }
    if let Some((cut, _)) = title.char_indices().nth(MAX_TITLE_CHARS) {
        title.truncate(cut);
        title.push('…');
    }
    Some(title)
}

/// The longest first line of a plain text file that may be its title, in characters.
pub const MAX_FIRST_LINE_TITLE_CHARS: usize = 80;

/// The title a plain text file gives itself: its first line when that line stands alone —
/// short (at most [`MAX_FIRST_LINE_TITLE_CHARS`] characters, not ending a sentence with
/// `.`, `,`, `;` or `:`) and followed by a blank line. `None` otherwise (the file's name is
/// its title then).
pub fn plain_text_title(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let first = lines.next()?.trim();
    let next = lines.next()?;
    if !next.trim().is_empty() || first.is_empty() {
        return None;
    }
    if first.chars().count() > MAX_FIRST_LINE_TITLE_CHARS || first.ends_with(['.', ',', ';', ':']) {
        return None;
    }
    clean_title(first)
}

/// Whether a file named `stem` (without extension) is the index of its folder, as docs
/// sites and GitHub name them: `README` (any case), `index` or `_index` (lower case: an
/// Obsidian vault's `Index.md` is a note named `Index`).
pub fn is_index_file(stem: &str) -> bool {
    let stem = stem.trim();
    stem.eq_ignore_ascii_case("readme") || stem == "index" || stem == "_index"
}

/// `stem` without the id a Notion export appends to every file and folder name
/// (`Page title 1a2b…` with 32 hex digits after a space); as it is otherwise.
pub fn without_notion_id(stem: &str) -> &str {
    let trimmed = stem.trim_end();
    match trimmed.rsplit_once(' ') {
        Some((title, id))
            if id.len() == 32
                && id.bytes().all(|b| b.is_ascii_hexdigit())
                && !title.trim().is_empty() =>
        {
            title.trim_end()
        }
        _ => stem,
    }
}

/// The title a file's name gives its note: the name as written (`stem`, without
/// extension) without a Notion export's id; for a folder's index file (`README.md`,
/// `index.md`, see [`is_index_file`]) the name of its `folder` instead, when it has one.
/// Never carries link syntax ([`clean_title`]).
pub fn file_name_title(stem: &str, folder: Option<&str>) -> Option<String> {
    if is_index_file(stem) {
        if let Some(title) = folder.map(without_notion_id).and_then(clean_title) {
            return Some(title);
        }
    }
    clean_title(without_notion_id(stem))
}

/// The text of the first level-one ATX heading (`# Title`) outside code fences, with
/// its closing `#`s and block id left out.
pub fn first_h1(body: &str) -> Option<String> {
    let mut fence: Option<(char, usize)> = None;
    for line in body.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim_start_matches(' ');
        let fence_run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        if indent <= 3 {
            for marker in ['`', '~'] {
                let run = fence_run(marker);
                if run >= 3 {
                    match fence {
                        None => fence = Some((marker, run)),
                        Some((open, len)) if open == marker && run >= len => fence = None,
                        Some(_) => {}
                    }
                }
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let heading = if let Some(rest) = trimmed.strip_prefix("# ") {
            rest
        } else if let Some(rest) = trimmed.strip_prefix("#\t") {
            rest
        } else {
            continue;
        };
        // A closing sequence of `#` is not part of the heading.
        let heading = heading.trim_end();
        let heading = match heading.trim_end_matches('#') {
            stripped if stripped.is_empty() || stripped.ends_with([' ', '\t']) => stripped,
            _ => heading,
        };
        if let Some(title) = clean_title(heading) {
            return Some(title);
        }
    }
    None
}

/// Inline `#tags` of a markdown text, outside code, links and headings' markers: `#` after
/// a line start or whitespace, then letters, digits, `_`, `-` and `/`, not only digits.
pub fn inline_tags(markdown: &str) -> Vec<String> {
    let mut tags = Vec::new();
    for item in text_runs(Parser::new_ext(markdown, options())) {
        let Item::Text(run) = item else { continue };
        // A `#` right after a wiki link is not at a word's start.
        let mut prev: Option<char> = None;
        for piece in split_wiki_links(&run) {
            let Piece::Text(text) = piece else {
                prev = Some(']');
                continue;
            };
            for (i, c) in text.char_indices() {
                if c == '#' && prev.is_none_or(char::is_whitespace) {
                    let rest = &text[i + 1..];
                    let len = rest
                        .char_indices()
                        .find(|&(_, c)| !(c.is_alphanumeric() || "_-/".contains(c)))
                        .map_or(rest.len(), |(j, _)| j);
                    if let Some(tag) = front_matter::clean_tag(&rest[..len]) {
                        if tag.chars().count() <= 100 && !tags.contains(&tag) {
                            tags.push(tag);
                        }
                    }
                }
                prev = Some(c);
            }
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notes_own_title_comes_from_front_matter_then_h1_then_file() {
        let cases: &[(&str, Option<&str>, Option<&str>)] = &[
            (
                "---\ntitle: From Front\n---\n# From H1\n",
                Some("f"),
                Some("From Front"),
            ),
            (
                "---\ntags: [a]\n---\n# From H1\n",
                Some("f"),
                Some("From H1"),
            ),
            ("Intro\n\n# Later H1 #\n", Some("f"), Some("Later H1")),
            (
                "no heading\n## H2 only\n",
                Some("2024-01-15"),
                Some("2024-01-15"),
            ),
            ("no heading\n", None, None),
            ("```\n# in code\n```\n", None, None),
            ("---\ntitle: [broken\n---\n# H1\n", None, Some("H1")),
        ];
        for (raw, stem, want) in cases {
            assert_eq!(read_note(raw, *stem).title.as_deref(), *want, "{raw:?}");
        }
    }

    #[test]
    fn a_note_keeps_aliases_and_tags_and_reports_bad_front_matter() {
        let note = read_note(
            "---\naliases: [Adv MD]\ntags: [Writing]\n---\n# Advanced\n\nUses #markdown and \
             #writing, not `#code` or [#link](x) or #123.\n",
            None,
        );
        assert_eq!(note.aliases, ["Adv MD"]);
        assert_eq!(note.tags, ["Writing", "markdown"]);
        assert!(!note.readable.text.contains("aliases"));
        assert!(note.front_matter_error.is_none());

        let note = read_note("---\ntitle: [unclosed\n---\nbody\n", Some("x"));
        let error = note.front_matter_error.expect("an error");
        assert!((2..=3).contains(&error.line), "{error:?}");
        assert!(note.readable.text.starts_with("---\ntitle"), "kept as text");
    }

    #[test]
    fn a_plain_text_file_is_titled_by_its_first_line_when_it_stands_alone() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Cold Brew\n\nSteep coarse grounds for 12 hours.\n",
                Some("Cold Brew"),
            ),
            ("  Cold   Brew  \n   \nText.", Some("Cold Brew")),
            ("Cold brew steeps coarse grounds.\n\nMore.", None),
            ("Cold Brew\nSteep coarse grounds.\n", None),
            ("Cold Brew", None),
            ("\n\nText.", None),
            (&"word ".repeat(20), None),
        ];
        for (text, want) in cases {
            assert_eq!(plain_text_title(text).as_deref(), *want, "{text:?}");
        }
    }

    #[test]
    fn a_file_name_gives_a_title_without_a_notion_id_and_an_index_its_folders_name() {
        let id = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d";
        assert_eq!(
            file_name_title(&format!("Meeting notes {id}"), None).as_deref(),
            Some("Meeting notes")
        );
        assert_eq!(
            file_name_title("cold-brew", None).as_deref(),
            Some("cold-brew")
        );
        assert_eq!(
            file_name_title("index", Some("Getting started")).as_deref(),
            Some("Getting started")
        );
        assert_eq!(
            file_name_title("README", Some(&format!("Projects {id}"))).as_deref(),
            Some("Projects")
        );
        assert_eq!(file_name_title("readme", None).as_deref(), Some("readme"));
        // Not an id: too short, not hex, or the whole name.
        assert_eq!(without_notion_id("Release 2024"), "Release 2024");
        assert_eq!(without_notion_id(id), id);
        assert_eq!(
            without_notion_id("Plan 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6z"),
            "Plan 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6z"
        );
    }

    #[test]
    fn inline_tags_skip_headings_code_and_numbers() {
        assert_eq!(
            inline_tags(
                "# Heading\n\n#one two#not #a/b-c_d #1984 `#code` [[#Local]] [[T|#x]]\n\n    #indented\n"
            ),
            ["one", "a/b-c_d"]
        );
    }
}

#[cfg(test)]
mod hostile_tests {
    use super::*;
    use proptest::prelude::*;

    /// Inputs that break naive readers: each is read whole, without a panic, in bounded
    /// time, and gives what a person would expect.
    #[test]
    fn hostile_notes_read_as_text() {
        let long_line = format!("[[{}", "a".repeat(10 * 1024 * 1024));
        let nested = format!("{}x{}", "[[".repeat(10_000), "]]".repeat(10_000));
        let cases: Vec<(&str, String, usize)> = vec![
            ("unclosed link", "see [[Espresso and more".into(), 0),
            ("a 10 MB line with an unclosed link", long_line, 0),
            ("nested brackets", nested, 1),
            ("link in a code block", "```\n[[Not]]\n```\n".into(), 0),
            ("link in a code span", "`[[Not]]` and [[Yes]]".into(), 1),
            ("empty link", "[[]] [[ ]] [[|]] [[#]]".into(), 0),
            ("only front matter fence", "---\n".into(), 0),
            (
                "unclosed front matter",
                "---\ntitle: x\n[[Link]]\n".into(),
                1,
            ),
            ("unclosed comment", "%% [[Hidden?]]".into(), 1),
            ("closed comment", "%% [[Hidden]] %% [[Shown]]".into(), 1),
            ("embed of an image", "![[a.png]] ![[b.svg|20]]".into(), 0),
            ("control characters", "\u{0}[[A\u{1}]]\u{7f}".into(), 1),
        ];
        for (what, raw, links) in cases {
            let note = read_note(&raw, Some("stem"));
            let found = wiki_links(&note.readable.text).len();
            assert_eq!(found, links, "{what}");
            assert!(note.readable.text.len() <= raw.len(), "{what}");
            let _ = rewrite_links(&raw, &|l| Some(l.display()));
        }
    }

    proptest! {
        #[test]
        fn reading_any_note_never_panics(
            text in crate::hostile::text(80),
            stem in proptest::option::of("[a-z.#|\\[\\] ]{0,12}"),
        ) {
            let note = read_note(&text, stem.as_deref());
            for i in 0..=note.readable.text.len() {
                prop_assert!(note.readable.raw_offset(i) <= text.len());
            }
            for link in wiki_links(&text) {
                prop_assert!(!link.target.is_empty());
            }
            let rewritten = rewrite_links(&text, &|l| Some(l.target.clone()));
            prop_assert!(!rewritten.contains("[[") || text.contains("[["));
            let _ = inline_tags(&text);
            let _ = first_h1(&text);
            for piece in split_wiki_links(&text) {
                if let Piece::Link(l) = piece {
                    let _ = (l.display(), l.written());
                }
            }
            let _ = reduce_name(&text);
            let _ = crate::name_rule::not_a_name(&text);
        }
    }
}
