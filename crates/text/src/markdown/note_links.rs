//! Markdown links to notes: `[shown](dest)`, reference-style `[shown][r]` with `[r]: dest`,
//! and where each points — a note of the same folder tree, an external address, or nothing.
//!
//! Obsidian writes these when "Use `[[Wikilinks]]`" is off, and every folder of markdown from
//! elsewhere (a docs site, a GitHub wiki, a Notion or Bear export) links this way. The links
//! are found by the CommonMark reader itself (so code, escapes, angle brackets and reference
//! definitions read as CommonMark reads them); a destination is then read as a path:
//!
//! | written | reads |
//! |---|---|
//! | `[t](Note.md)`, `[t](Note)` | the note `Note`, relative to the linking note |
//! | `[t](Note%20name.md)`, `[t](<Note name.md>)` | the note `Note name` |
//! | `[t](../Other/Note.md#Heading)` | `Other/Note`, anchor `Heading` |
//! | `[t](Note#^block)` | `Note`, block anchor `^block` |
//! | `[t](/Folder/Note.md)` | `Folder/Note` from the root of the folder tree |
//! | `[t](#Heading)` | a heading of this note (no other note) |
//! | `[t](https://…)`, `[t](mailto:…)`, `<https://…>` | external |
//! | `[t](file:///…)`, `[t](../../etc/passwd)` (leaves the tree) | nothing: never read |
//! | `[t](paper.pdf)`, `[t](Book.epub)`, `[t](Report.docx)` | a document: its page when the wiki ingested it from this tree, else an attachment |
//! | `[t](photo.png)` | an attachment: never a page |
//!
//! Which note a path names is [`resolve_note`], in Obsidian's order.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Parser, Tag};

use super::link::{is_attachment, is_document};

/// Where a markdown link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A note of the folder tree: its path made relative to the tree's root
    /// (`/`-separated, `.` and `..` applied, percent-encoding decoded, no anchor).
    Note {
        /// The path from the root: joined onto the linking note's folder, or as written
        /// after a leading `/`.
        path: String,
        /// The path as written (decoded, no anchor), which [`resolve_note`] matches by its
        /// end when no note has `path` itself.
        written: String,
        /// The heading (`Heading`) or block (`^id`) it points at, if any.
        anchor: Option<String>,
    },
    /// A document WikiMind reads as a source (PDF, EPUB, DOCX): the page of that document
    /// when the wiki ingested it from the same folder tree (resolved as a note's path is,
    /// among the tree's documents), else an attachment.
    Document {
        /// The path from the root, as for a note.
        path: String,
        /// The path as written (decoded, no anchor).
        written: String,
    },
    /// A heading or block of the linking note itself (`#Heading`).
    Here(String),
    /// An address outside the folder tree (`https:`, `mailto:`, …).
    External(String),
    /// A file a note links that is never a page (an image, a PDF, …).
    Attachment(String),
    /// Nothing that may be read: a `file:` URL, a path that leaves the folder tree, an empty
    /// destination.
    Nothing,
}

/// A markdown link found in a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkdownLink {
    /// Its text as shown (markup left out).
    pub shown: String,
    /// Where it points.
    pub destination: Destination,
    /// Where the link stands in the markdown (bytes).
    pub range: Range<usize>,
}

/// The markdown links of `markdown`, a note at `note_path` (relative to the root of its
/// folder tree, `/`-separated, e.g. `Guides/Setup.md`), in order. Links in code are not
/// links; images (`![…](…)`) are not links to notes.
pub fn markdown_links(markdown: &str, note_path: &str) -> Vec<MarkdownLink> {
    let folder = parent(note_path);
    let mut links = Vec::new();
    let mut open: Option<(String, LinkType, usize, String)> = None;
    for (event, range) in Parser::new_ext(markdown, super::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            }) => open = Some((dest_url.to_string(), link_type, range.start, String::new())),
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, _, _, shown)) = open.as_mut() {
                    shown.push_str(&text);
                }
            }
            Event::End(pulldown_cmark::TagEnd::Link) => {
                if let Some((dest, link_type, start, shown)) = open.take() {
                    let destination = match link_type {
                        LinkType::Autolink | LinkType::Email => Destination::External(dest),
                        _ => destination(&dest, folder),
                    };
                    links.push(MarkdownLink {
                        shown,
                        destination,
                        range: start..range.end,
                    });
                }
            }
            _ => {}
        }
    }
    links
}

/// What a link destination `dest`, written in a note whose folder is `folder` (relative to
/// the root), points at.
pub fn destination(dest: &str, folder: &str) -> Destination {
    let dest = dest.trim();
    if dest.is_empty() {
        return Destination::Nothing;
    }
    if let Some(scheme) = scheme(dest) {
        return if scheme.eq_ignore_ascii_case("file") {
            Destination::Nothing
        } else {
            Destination::External(dest.to_owned())
        };
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((path, anchor)) => (path, Some(percent_decode(anchor))),
        None => (dest, None),
    };
    // A query is not part of a file's name.
    let path = path.split('?').next().unwrap_or_default();
    let path = percent_decode(path);
    if path.is_empty() {
        return match anchor {
            Some(anchor) if !anchor.is_empty() => Destination::Here(anchor),
            _ => Destination::Nothing,
        };
    }
    if path.contains('\\') || path.contains('\0') {
        return Destination::Nothing;
    }
    let from_root = path.starts_with('/');
    let joined = if from_root {
        path.trim_start_matches('/').to_owned()
    } else if folder.is_empty() {
        path.clone()
    } else {
        format!("{folder}/{path}")
    };
    let Some(normal) = normalise_path(&joined) else {
        return Destination::Nothing;
    };
    if normal.is_empty() {
        return Destination::Nothing;
    }
    if is_document(base_name(&normal)) {
        return Destination::Document {
            path: normal,
            written: path,
        };
    }
    if is_attachment(base_name(&normal)) {
        return Destination::Attachment(normal);
    }
    Destination::Note {
        path: normal,
        written: path,
        anchor: anchor.filter(|a| !a.is_empty()),
    }
}

/// A link destination written as a path (`../Parser/constructor.md#Usage`,
/// `Brew%20Guide.pdf`), read where no linking note's folder is known (a page, which is no
/// one note's): the path as [`written_path`] gives it and the anchor, if any. `None` for a
/// destination that is no path: an address with a scheme (`https:`, `file:`, …), a link
/// inside the page (`#Heading`), nothing left once the steps up are dropped.
pub fn written_destination(dest: &str) -> Option<(String, Option<String>)> {
    let dest = dest.trim();
    if dest.is_empty() || scheme(dest).is_some() {
        return None;
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((path, anchor)) => (path, Some(percent_decode(anchor))),
        None => (dest, None),
    };
    let path = percent_decode(path.split('?').next().unwrap_or_default());
    if path.contains('\\') || path.contains('\0') {
        return None;
    }
    let written = written_path(&path);
    (!written.is_empty()).then(|| (written, anchor.filter(|a| !a.is_empty())))
}

/// Which of `notes` (paths relative to the root, with their extensions) the note path
/// `path` names (as [`Destination::Note`] gives it, joined onto the linking note's folder;
/// `written` is the path as the link wrote it, for the steps that match by its end), in
/// Obsidian's order:
///
/// 1. the exact path (relative to the linking note, or from the root for `/x`);
/// 2. the path from the root of the tree, as written;
/// 3. the one path that ends with what was written (a unique suffix at a folder boundary);
/// 4. for a bare name (no folder written), the shortest path with that file name (ties:
///    byte order).
///
/// A written path without an extension matches a note with `.md` or `.markdown`. `None`
/// when no note answers.
pub fn resolve_note<'a>(path: &str, written: &str, notes: &[&'a str]) -> Option<&'a str> {
    let same = |candidate: &str, wanted: &str| {
        candidate == wanted || strip_note_extension(candidate) == Some(wanted)
    };
    if let Some(found) = notes.iter().find(|n| same(n, path)) {
        return Some(found);
    }
    let written = written_path(written);
    if written.is_empty() {
        return None;
    }
    if let Some(found) = notes.iter().find(|n| same(n, &written)) {
        return Some(found);
    }
    let ends_with = |candidate: &str| {
        let stem = strip_note_extension(candidate).unwrap_or(candidate);
        [candidate, stem].into_iter().any(|c| {
            c.strip_suffix(written.as_str())
                .is_some_and(|before| before.is_empty() || before.ends_with('/'))
        })
    };
    let suffixed: Vec<&&str> = notes.iter().filter(|n| ends_with(n)).collect();
    if let [one] = suffixed.as_slice() {
        return Some(one);
    }
    // A name with a folder that no note's path ends with names nothing: the shortest-path
    // rule is for a bare name (Obsidian's too).
    if written.contains('/') {
        return None;
    }
    let base = base_name(&written);
    notes
        .iter()
        .filter(|n| {
            let name = base_name(n);
            name == base || strip_note_extension(name) == Some(base)
        })
        .min_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)))
        .copied()
}

/// [`resolve_note`] over one list of note paths, answered by lookups instead of passes over
/// the list: built once (a few entries per path) and asked for every link of every note, so
/// that resolving a link costs the same in a vault of 100 notes as in one of 100,000.
/// [`NotePaths::resolve`] answers exactly as [`resolve_note`] over the same list.
#[derive(Debug, Clone, Default)]
pub struct NotePaths {
    /// Each path, and each path without its note extension, to the places of the paths it
    /// is, in order (step 1 and 2: the first place).
    same: HashMap<String, Vec<usize>>,
    /// Each end of a path (or of the path without its extension) at a folder boundary, to
    /// the places of the paths that end so (step 3: when there is one).
    tails: HashMap<String, Vec<usize>>,
    /// Each file name (and file name without its note extension) to the place of the
    /// shortest path with it (step 4; ties: byte order).
    names: HashMap<String, usize>,
}

impl NotePaths {
    /// The lookups over `paths` (relative to the root, with their extensions), in order:
    /// [`NotePaths::resolve`] gives a place in it.
    pub fn new<'p>(paths: impl IntoIterator<Item = &'p str>) -> NotePaths {
        let mut index = NotePaths::default();
        let mut listed: Vec<&str> = Vec::new();
        for (place, path) in paths.into_iter().enumerate() {
            listed.push(path);
            let stem = strip_note_extension(path);
            for spelled in std::iter::once(path).chain(stem) {
                index
                    .same
                    .entry(spelled.to_owned())
                    .or_default()
                    .push(place);
                let ends = std::iter::once(0).chain(
                    spelled
                        .char_indices()
                        .filter(|&(_, c)| c == '/')
                        .map(|(at, _)| at + 1),
                );
                for at in ends {
                    let places = index.tails.entry(spelled[at..].to_owned()).or_default();
                    if places.last() != Some(&place) {
                        places.push(place);
                    }
                }
            }
            let name = base_name(path);
            for spelled in std::iter::once(name).chain(strip_note_extension(name)) {
                let best = index.names.entry(spelled.to_owned()).or_insert(place);
                let shorter = |a: &str, b: &str| (a.len(), a) < (b.len(), b);
                if shorter(path, listed[*best]) {
                    *best = place;
                }
            }
        }
        index
    }

    /// The place of the path that `path` names (`written` as the link wrote it), by the
    /// rules of [`resolve_note`].
    pub fn resolve(&self, path: &str, written: &str) -> Option<usize> {
        let first = |wanted: &str| self.same.get(wanted).and_then(|places| places.first());
        if let Some(&place) = first(path) {
            return Some(place);
        }
        let written = written_path(written);
        if written.is_empty() {
            return None;
        }
        if let Some(&place) = first(&written) {
            return Some(place);
        }
        if let Some([one]) = self.tails.get(&written).map(Vec::as_slice) {
            return Some(*one);
        }
        if written.contains('/') {
            return None;
        }
        self.names.get(base_name(&written)).copied()
    }
}

/// A path as a link wrote it (decoded, no anchor), without the steps up or across at its
/// start that only made sense from the linking note's folder (`../Other/Note.md` is
/// `Other/Note.md`, `/Folder/Note.md` is `Folder/Note.md`), `.` and `..` applied after
/// that: what [`resolve_note`] matches by its end, and what a page (which is no one note's)
/// reads a path link as. Empty when nothing is left.
pub fn written_path(written: &str) -> String {
    let parts: Vec<&str> = written
        .split('/')
        .skip_while(|part| matches!(*part, "" | "." | ".."))
        .collect();
    normalise_path(&parts.join("/")).unwrap_or_default()
}

/// `path` without a note's extension (`.md`, `.markdown`, any case), or `None`.
fn strip_note_extension(path: &str) -> Option<&str> {
    let (stem, ext) = path.rsplit_once('.')?;
    (ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("markdown")).then_some(stem)
}

/// The folder part of a `/`-separated path (empty at the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// The last part of a `/`-separated path.
fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `path` with `.` and empty parts dropped and `..` applied; `None` when it leaves the root.
/// (Also how the document readers keep a name inside a zip archive.)
pub fn normalise_path(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The scheme of an absolute URL (`https` of `https://…`, `mailto` of `mailto:…`). A single
/// letter before `:` is a Windows drive, not a scheme.
fn scheme(dest: &str) -> Option<&str> {
    let (scheme, _) = dest.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (scheme.len() > 1
        && first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// `text` with `%XX` escapes decoded (as UTF-8; an escape that does not decode stays as
/// written).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let digit = |b: u8| (b as char).to_digit(16);
            if let (Some(high), Some(low)) = (digit(bytes[i + 1]), digit(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(path: &str, anchor: Option<&str>) -> Destination {
        Destination::Note {
            path: path.to_owned(),
            written: String::new(),
            anchor: anchor.map(str::to_owned),
        }
    }

    /// `d` without the path as written, to compare with [`note`].
    fn unwritten(d: Destination) -> Destination {
        match d {
            Destination::Note { path, anchor, .. } => Destination::Note {
                path,
                written: String::new(),
                anchor,
            },
            other => other,
        }
    }

    #[test]
    fn every_form_of_destination_reads_as_the_table_says() {
        let cases: &[(&str, &str, Destination)] = &[
            ("Note.md", "Guides", note("Guides/Note.md", None)),
            ("Note", "", note("Note", None)),
            ("Note%20name.md", "", note("Note name.md", None)),
            (
                "../Other/Note.md#Heading",
                "Guides",
                note("Other/Note.md", Some("Heading")),
            ),
            ("Note#^block", "", note("Note", Some("^block"))),
            ("/Folder/Note.md", "Deep/Er", note("Folder/Note.md", None)),
            ("./Note.md", "A", note("A/Note.md", None)),
            ("#Heading", "A", Destination::Here("Heading".into())),
            (
                "https://example.org/x",
                "",
                Destination::External("https://example.org/x".into()),
            ),
            (
                "mailto:a@b.c",
                "",
                Destination::External("mailto:a@b.c".into()),
            ),
            ("file:///etc/passwd", "", Destination::Nothing),
            ("../../etc/passwd", "A", Destination::Nothing),
            ("..", "", Destination::Nothing),
            ("", "", Destination::Nothing),
            (
                "photo.png",
                "A",
                Destination::Attachment("A/photo.png".into()),
            ),
            (
                "../Papers/Brew%20Guide.pdf#page=2",
                "Notes",
                Destination::Document {
                    path: "Papers/Brew Guide.pdf".into(),
                    written: "../Papers/Brew Guide.pdf".into(),
                },
            ),
            (
                "Book.EPUB",
                "",
                Destination::Document {
                    path: "Book.EPUB".into(),
                    written: "Book.EPUB".into(),
                },
            ),
            ("Note.md?plain=1", "", note("Note.md", None)),
            ("C:/x.md", "", note("C:/x.md", None)),
            ("bad%zzescape", "", note("bad%zzescape", None)),
            ("trail%2", "", note("trail%2", None)),
            ("%C3%A9t%C3%A9.md", "", note("été.md", None)),
            ("%E9%ff.md", "", note("%E9%ff.md", None)),
            ("é%2", "", note("é%2", None)),
        ];
        for (dest, folder, want) in cases {
            assert_eq!(
                &unwritten(destination(dest, folder)),
                want,
                "{dest:?} in {folder:?}"
            );
        }
    }

    #[test]
    fn a_path_in_a_page_reads_without_the_steps_only_its_note_could_take() {
        type Read<'a> = Option<(&'a str, Option<&'a str>)>;
        let cases: &[(&str, Read<'_>)] = &[
            (
                "../Lexer/constructor.md#Usage%20notes",
                Some(("Lexer/constructor.md", Some("Usage notes"))),
            ),
            ("/src/Parser/x.md", Some(("src/Parser/x.md", None))),
            (
                "./a/../b/Brew%20Guide.pdf",
                Some(("b/Brew Guide.pdf", None)),
            ),
            ("Note?plain=1#", Some(("Note", None))),
            ("https://example.org/x.md", None),
            ("javascript:alert(1)", None),
            ("file:///etc/passwd", None),
            ("#Heading", None),
            ("../..", None),
            ("a\\b.md", None),
            ("", None),
        ];
        for (dest, want) in cases {
            let got = written_destination(dest);
            let got = got.as_ref().map(|(p, a)| (p.as_str(), a.as_deref()));
            assert_eq!(got, *want, "{dest:?}");
        }
    }

    #[test]
    fn links_are_found_as_commonmark_reads_them() {
        let md = "See [the setup](Setup.md) and [docs][d], <https://x.org>, \
                  [spaced](<My Note.md>), `[code](Nope.md)` and ![img](pic.png).\n\n\
                  [d]: ../Docs/Index.md#Start\n\n```\n[fenced](Nope.md)\n```\n";
        let links = markdown_links(md, "Guides/Intro.md");
        let got: Vec<(&str, Destination)> = links
            .iter()
            .map(|l| (l.shown.as_str(), unwritten(l.destination.clone())))
            .collect();
        assert_eq!(
            got,
            [
                ("the setup", note("Guides/Setup.md", None)),
                ("docs", note("Docs/Index.md", Some("Start"))),
                (
                    "https://x.org",
                    Destination::External("https://x.org".into())
                ),
                ("spaced", note("Guides/My Note.md", None)),
            ]
        );
        assert_eq!(&md[links[0].range.clone()], "[the setup](Setup.md)");
        assert!(
            matches!(&links[1].destination, Destination::Note { written, .. } if written == "../Docs/Index.md"),
            "{:?}",
            links[1].destination
        );
    }

    proptest::proptest! {
        /// The lookups answer every link as the passes over the list do, whatever the
        /// paths: shared names, extensions or none, folders sharing ends, repeats.
        #[test]
        fn note_paths_resolve_as_resolve_note(
            paths in proptest::collection::vec(
                "(a/|b/|a/b/|c/a/)?(x|y|b|Same)(\\.md|\\.markdown|\\.MD|\\.pdf)?",
                0..14,
            ),
            path in "(a/|b/|c/|a/b/)?(x|y|b|Same|a)(\\.md|\\.pdf)?",
            written in "(\\.\\./|/|\\./)?(a/|b/|a/b/)?(x|y|b|Same)(\\.md)?",
        ) {
            let listed: Vec<&str> = paths.iter().map(String::as_str).collect();
            let lookups = NotePaths::new(listed.iter().copied());
            // The place, not only the path: among equal paths, the one the passes find.
            let expected = resolve_note(&path, &written, &listed)
                .and_then(|found| listed.iter().position(|p| std::ptr::eq(*p, found)));
            let found = lookups.resolve(&path, &written);
            proptest::prop_assert_eq!(found, expected, "{:?} {:?} in {:?}", path, written, listed);
        }
    }

    #[test]
    fn a_note_path_resolves_in_obsidians_order() {
        let notes = [
            "Guides/Setup.md",
            "Setup.md",
            "Parser/constructor.md",
            "Lexer/constructor.md",
            "Deep/Nested/Unique Name.md",
            "a/b/Same.md",
            "c/Same.md",
        ];
        // 1. Relative to the linking note.
        assert_eq!(
            resolve_note("Guides/Setup", "Setup", &notes),
            Some("Guides/Setup.md")
        );
        // 2. From the root, as written.
        assert_eq!(
            resolve_note("Other/Setup", "Setup", &notes),
            Some("Setup.md")
        );
        // 3. The one path that ends with what was written.
        assert_eq!(
            resolve_note("X/Nested/Unique Name", "Nested/Unique Name", &notes),
            Some("Deep/Nested/Unique Name.md")
        );
        assert_eq!(
            resolve_note("X/Parser/constructor", "Parser/constructor", &notes),
            Some("Parser/constructor.md")
        );
        // 4. The shortest path with that base name (ties: byte order).
        assert_eq!(resolve_note("X/Same", "Same", &notes), Some("c/Same.md"));
        assert_eq!(
            resolve_note("X/constructor", "constructor", &notes),
            Some("Lexer/constructor.md")
        );
        // A path that climbed out of the linking note's folder still ends with its note.
        assert_eq!(
            resolve_note("Nested/Unique Name", "../Nested/Unique Name.md", &notes),
            Some("Deep/Nested/Unique Name.md")
        );
        // Nothing answers.
        assert_eq!(resolve_note("X/Missing", "Missing", &notes), None);
        assert_eq!(resolve_note("", "", &notes), None);
        // A path with a folder is not matched by its file name alone: an export's
        // `sources/Same.md` copy is not the page `Same`.
        assert_eq!(
            resolve_note("X/sources/Same", "sources/Same.md", &notes),
            None
        );
        // A suffix counts only at a folder boundary.
        assert_eq!(resolve_note("X/que Name", "que Name", &notes), None);
    }

    proptest::proptest! {
        /// Any text, with links of every shape in it, reads without a panic, and every link
        /// found stands where it says.
        #[test]
        fn any_note_reads_without_a_panic(
            text in proptest::prop_oneof![
                crate::hostile::text(40),
                "(\\[[a-z%./#<> ]{0,12}\\]\\([a-z%./#<>:? ]{0,16}\\) ?){1,6}",
            ],
            folder in "[a-z./]{0,8}",
        ) {
            for link in markdown_links(&text, &format!("{folder}/n.md")) {
                proptest::prop_assert!(text.get(link.range.clone()).is_some());
                if let Destination::Note { path, .. } = &link.destination {
                    proptest::prop_assert!(!path.split('/').any(|p| p == ".."));
                    let notes = ["a.md", "b/c.md"];
                    let _ = resolve_note(path, path, &notes);
                }
            }
        }
    }
}
