//! The notes a file note links with markdown links (`[shown](Other/Note.md#Heading)`,
//! reference links, percent-encoded and angle-bracket paths), resolved to the notes this
//! wiki holds, as links of the note's digest: the vault's own links reach the pages of the
//! notes they name whether or not the model writes them again.
//!
//! A destination is read by the one markdown reader ([`wikimind_text::markdown::note_links`])
//! and resolved in Obsidian's order ([`wikimind_text::markdown::resolve_note`]): the exact
//! path from the linking note, then the path as written from the root, then the one path
//! that ends with it, then, for a bare name, the shortest path with that file name. The candidates are the
//! file sources the wiki holds (paths are never read here: a destination that names no
//! source of the wiki, or leaves the folder tree, links nothing). A link names the note's
//! own title (front matter `title`, first H1, else its file name), as a wiki link to that
//! note would.
//!
//! A link to a document (`![[paper.pdf]]`, `[[paper.pdf]]`, `[t](paper.pdf)`; PDF, EPUB,
//! DOCX) is read the same way, among the documents of the wiki ingested from the same tree
//! ([`NoteIndex::document`]): it names the document's own title and leads to its page. A
//! document the wiki does not hold stays an attachment and links nothing.

use wikimind_text::markdown::link::is_document;
use wikimind_text::markdown::{markdown_links, rewrite_links, wiki_links, Destination, LinkRef};

use crate::identity::{body_links, NoteIndex};
use crate::store::{NewLink, Source, SourceKind, StoreError};

/// The longest sentence kept around a link, in characters.
const MAX_CONTEXT_CHARS: usize = 300;

/// The notes of this wiki that `source` (a file; others link none this way) links with
/// markdown links, and with wiki links written as a path (`[[Parser/constructor]]`) or by a
/// name several notes share (`[[constructor]]`), each as a link naming the title the note
/// goes by ([`NoteIndex`]) with the line around it, in order. Links to the source itself are
/// left for the store to drop.
pub fn links_to_notes(index: &NoteIndex, source: &Source) -> Result<Vec<NewLink>, StoreError> {
    let Some(me) = index.note(source.id) else {
        return Ok(Vec::new());
    };
    if source.kind != SourceKind::File {
        return Ok(Vec::new());
    }
    // The wiki links first, then the markdown links, each kind in the order written.
    let mut out: Vec<NewLink> = Vec::new();
    if source.text.contains("[[") {
        // Wiki links as the reader finds them, with the folder each was written with.
        let mut written = body_links(&source.text).into_iter();
        for link in wiki_links(&source.text) {
            let Some(linked) = written.find(|l| l.target == link.target) else {
                break;
            };
            if let Some(title) =
                index.relinked(Some(source.id), linked.folder.as_deref(), &link.target)
            {
                out.push(NewLink {
                    target: title,
                    context: link.context,
                });
            }
        }
        // Links and embeds of documents (`![[paper.pdf]]`), which the reader finds as
        // attachments.
        for link in document_wiki_links(&source.text) {
            let written = match &link.folder {
                Some(folder) => format!("{folder}/{}", link.target),
                None => link.target.clone(),
            };
            if let Some(document) = index.document(Some(source.id), &written, &written) {
                let at = source.text.find(link.target.as_str()).unwrap_or(0);
                out.push(NewLink {
                    target: document.title.clone(),
                    context: line_around(&source.text, at),
                });
            }
        }
    }
    let may_link = source.text.contains("](") || source.text.contains("]:");
    if may_link {
        let links = markdown_links(&source.text, &me.path);
        if links.iter().any(|l| {
            matches!(
                l.destination,
                Destination::Note { .. } | Destination::Document { .. }
            )
        }) {
            for link in links {
                let title = match &link.destination {
                    Destination::Note { path, written, .. } => index
                        .note_at(Some(&me.root), path, written)
                        .map(|note| note.title.clone()),
                    Destination::Document { path, written } => index
                        .document(Some(source.id), path, written)
                        .map(|document| document.title.clone()),
                    _ => None,
                };
                let Some(title) = title else {
                    continue;
                };
                out.push(NewLink {
                    target: title,
                    context: line_around(&source.text, link.range.start),
                });
            }
        }
    }
    Ok(out)
}

/// The wiki links and embeds of `markdown` that name a document file (`![[paper.pdf]]`,
/// `[[Papers/Book.epub|the book]]`), in order, as the reader finds them (outside code and
/// markdown links).
fn document_wiki_links(markdown: &str) -> Vec<LinkRef> {
    if !markdown.contains("[[") {
        return Vec::new();
    }
    let found = std::cell::RefCell::new(Vec::new());
    rewrite_links(markdown, &|link: &LinkRef| {
        if link.attachment && is_document(&link.target) {
            found.borrow_mut().push(link.clone());
        }
        None
    });
    found.into_inner()
}

/// The line of `text` around byte `at`, trimmed and cut to [`MAX_CONTEXT_CHARS`].
fn line_around(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end]
        .trim()
        .chars()
        .take(MAX_CONTEXT_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewSource, Store};

    fn file(store: &Store, origin: &str, title: Option<&str>, text: &str) -> Source {
        let id = store
            .ingest_source(&NewSource {
                origin: origin.to_owned(),
                kind: SourceKind::File,
                title: title.map(str::to_owned),
                text: text.to_owned(),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: None,
            })
            .unwrap()
            .source_id();
        store.source(id).unwrap().unwrap()
    }

    #[test]
    fn a_notes_markdown_links_name_the_notes_of_the_wiki_they_point_at() {
        let store = Store::open_in_memory().unwrap();
        file(
            &store,
            "/v/Guides/Setup.md",
            Some("Setting up"),
            "# Setting up\n",
        );
        file(&store, "/v/Other/Deep Note.md", None, "No heading here.\n");
        file(&store, "/v/Reference/API.md", Some("API"), "# API\n");
        let intro = file(
            &store,
            "/v/Guides/Intro.md",
            Some("Intro"),
            "# Intro\n\nFirst [set it up](Setup.md#Steps).\n\
             Then read [the deep note](../Other/Deep%20Note.md) and [api][r].\n\
             Also [missing](Nope.md), [web](https://example.org), [out](../../../etc/passwd),\n\
             `[code](Setup.md)` and [by name](<API.md>).\n\n[r]: /Reference/API.md\n",
        );
        let links = links_to_notes(&NoteIndex::of(&store).unwrap(), &intro).unwrap();
        let got: Vec<(&str, &str)> = links
            .iter()
            .map(|l| (l.target.as_str(), l.context.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("Setting up", "First [set it up](Setup.md#Steps)."),
                (
                    "Deep Note",
                    "Then read [the deep note](../Other/Deep%20Note.md) and [api][r]."
                ),
                (
                    "API",
                    "Then read [the deep note](../Other/Deep%20Note.md) and [api][r]."
                ),
                ("API", "`[code](Setup.md)` and [by name](<API.md>)."),
            ]
        );
    }

    #[test]
    fn links_to_a_document_of_the_tree_name_the_documents_title_and_others_stay_attachments() {
        let store = Store::open_in_memory().unwrap();
        file(
            &store,
            "/v/Papers/Brew Guide.pdf",
            Some("The Brewing Guide"),
            "# The Brewing Guide\n\nGrind finer for espresso.\n",
        );
        file(
            &store,
            "/v/Books/Coffee.epub",
            Some("Coffee Atlas"),
            "Beans.\n",
        );
        let intro = file(
            &store,
            "/v/Notes/Intro.md",
            Some("Intro"),
            "# Intro\n\n![[Brew Guide.pdf]]\n\nRead [[Books/Coffee.epub|the atlas]] too.\n\
             Then [the guide](../Papers/Brew%20Guide.pdf#page=2), not [[missing.pdf]] \
             nor [that](gone.docx) nor ![[photo.png]].\n",
        );
        let links = links_to_notes(&NoteIndex::of(&store).unwrap(), &intro).unwrap();
        let got: Vec<(&str, &str)> = links
            .iter()
            .map(|l| (l.target.as_str(), l.context.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("The Brewing Guide", "![[Brew Guide.pdf]]"),
                ("Coffee Atlas", "Read [[Books/Coffee.epub|the atlas]] too."),
                (
                    "The Brewing Guide",
                    "Then [the guide](../Papers/Brew%20Guide.pdf#page=2), not [[missing.pdf]] \
                     nor [that](gone.docx) nor ![[photo.png]]."
                ),
            ]
        );
    }

    #[test]
    fn a_source_that_is_no_file_links_no_note_this_way() {
        let store = Store::open_in_memory().unwrap();
        file(&store, "/v/Setup.md", Some("Setup"), "# Setup\n");
        let id = store
            .ingest_source(&NewSource {
                origin: "text:abc".to_owned(),
                kind: SourceKind::Text,
                title: None,
                text: "See [setup](/v/Setup.md).".to_owned(),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: None,
            })
            .unwrap()
            .source_id();
        let pasted = store.source(id).unwrap().unwrap();
        assert!(links_to_notes(&NoteIndex::of(&store).unwrap(), &pasted)
            .unwrap()
            .is_empty());
    }
}
