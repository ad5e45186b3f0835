//! Readers of document formats with heavy dependencies: HTML, PDF, EPUB and DOCX, each read
//! into the one markdown form the rest of WikiMind's pipeline uses (what the markdown
//! reader of `wikimind-text` then turns into readable text with an offset map), plus, for
//! paged formats, where each page starts and ends in that text.
//!
//! - [`html`]: a web page or an XHTML chapter ([`html::readable_html`]).
//! - [`pdf`]: the text layer of a PDF, read by Poppler's `pdftotext` run as a separate
//!   process with a time limit (never linked: Poppler is GPL), page labels by `qpdf`
//!   (docs/documents.md says why these won the measurement).
//! - [`epub`]: an e-book's chapters in spine order with their titles.
//! - [`docx`]: a Word document's paragraphs, headings, lists, tables and footnotes.
//!
//! Everything read here is hostile until proven otherwise: every reader has size limits
//! ([`Limits`]), refuses a broken or hostile file with a [`DocumentError`] that says what is
//! wrong (the caller names the file), never panics, and never reads outside the bytes it is
//! given. It knows nothing of the wiki: it does no IO beyond the PDF tools' processes.
#![deny(missing_docs)]

pub mod docx;
pub mod epub;
pub mod html;
pub mod pdf;
mod title;
mod xml;
mod zipped;

use std::time::Duration;

use serde::Serialize;

pub use title::{is_generic_title, own_title};

/// A document read into markdown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Document {
    /// The document's own title: its metadata title unless that is generic (see
    /// [`is_generic_title`]), then its first heading, then the file stem given to the
    /// reader; `None` when none of those has any text.
    pub title: Option<String>,
    /// The document as markdown: headings as `#` lines, paragraphs separated by blank
    /// lines, lists as `- ` / `1. ` items, tables as pipe tables, footnotes as `[^n]`.
    pub text: String,
    /// For a paged format (PDF), where each page lies in [`Document::text`], in page order;
    /// empty for formats without pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<Page>,
    /// What was read with a problem that did not stop the reading (a page label tool that
    /// is missing, a chapter that could not be read), each saying what and where.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One page of a paged document and where its text lies in [`Document::text`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page {
    /// The 1-based physical page number (what `file.pdf#page=N` opens).
    pub number: u32,
    /// The label printed on the page where the file defines page labels (`iv`, `12`,
    /// `A-3`); `None` where it defines none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The UTF-8 byte offset in the text where the page's text starts.
    pub start: usize,
    /// The UTF-8 byte offset just past the page's text (the next page starts at or after
    /// it).
    pub end: usize,
}

impl Document {
    /// The page whose text holds byte `at` of [`Document::text`], if the document has pages;
    /// an offset between two pages (the blank line that separates them) belongs to the
    /// page after it.
    pub fn page_at(&self, at: usize) -> Option<&Page> {
        let i = self.pages.partition_point(|page| page.end <= at);
        self.pages.get(i).or_else(|| self.pages.last())
    }
}

/// The limits every reader keeps. The defaults suit a person's documents: a 600-page book
/// is far inside them, a zip bomb or a runaway PDF is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest markdown text a reader produces, in bytes.
    pub max_text_bytes: usize,
    /// The largest part of a zip archive (one XHTML chapter, `word/document.xml`) read,
    /// once inflated, in bytes.
    pub max_part_bytes: u64,
    /// The most bytes inflated from one archive in all, in bytes.
    pub max_total_bytes: u64,
    /// The most entries an archive may hold.
    pub max_entries: usize,
    /// The most pages of a PDF read.
    pub max_pages: u32,
    /// How long an external tool (`pdftotext`, `qpdf`) may run on one file.
    pub timeout: Duration,
    /// The most memory (address space, in bytes) an external tool may take on one file: a
    /// PDF built to make Poppler allocate without end is refused, never the machine's
    /// memory (unix: `RLIMIT_AS` of the tool's process).
    pub max_tool_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_text_bytes: 64 * 1024 * 1024,
            max_part_bytes: 64 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
            max_entries: 20_000,
            max_pages: 5_000,
            timeout: Duration::from_secs(120),
            max_tool_memory: 2 * 1024 * 1024 * 1024,
        }
    }
}

/// Why a document could not be read. Messages say what is wrong and what to do; the
/// caller puts the file's name in front.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// A tool the format needs is not installed.
    #[error(
        "reading {format} needs `{tool}`, which is not installed — install {package} \
         (Debian and Ubuntu: `sudo apt install {package}`)"
    )]
    ToolMissing {
        /// The format (`PDF`).
        format: &'static str,
        /// The program (`pdftotext`).
        tool: &'static str,
        /// The package that brings it (`poppler-utils`).
        package: &'static str,
    },
    /// An external tool could not be run or failed in a way that says nothing of the file.
    #[error("`{tool}` failed: {message}")]
    ToolFailed {
        /// The program.
        tool: &'static str,
        /// What went wrong.
        message: String,
    },
    /// Reading took longer than [`Limits::timeout`].
    #[error("reading took longer than {seconds} s and was stopped — the file may be damaged or built to be slow")]
    TimedOut {
        /// The limit in seconds.
        seconds: u64,
    },
    /// The PDF is encrypted and needs a password.
    #[error("the PDF is encrypted (it needs a password) — save an unencrypted copy and add that")]
    Encrypted,
    /// The PDF's pages hold no text: a scan or pictures of text.
    #[error(
        "none of its {pages} pages has a text layer (a scan or pictures of text) — WikiMind \
         does not read text from images yet (no OCR); run OCR on it first (for example \
         `ocrmypdf`) and add the result"
    )]
    NoTextLayer {
        /// How many pages it has.
        pages: u32,
    },
    /// The file is not what its name says, or is damaged.
    #[error("{0}")]
    Broken(String),
    /// Something in the file is larger than a limit.
    #[error("{what} is larger than the limit of {limit} bytes — split the document or save a smaller copy")]
    TooLarge {
        /// What grew too large (`word/document.xml once inflated`, `the text`).
        what: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The document has no readable text.
    #[error("there is no readable text in it")]
    Empty,
}

/// The result type of this crate.
pub type Result<T, E = DocumentError> = std::result::Result<T, E>;

/// A markdown document read from an archive, checked: refused when its text is larger
/// than the limit or blank; titled by its metadata title, else its first heading, else
/// the file stem ([`own_title`]).
pub(crate) fn markdown_document(
    text: String,
    what: &str,
    metadata_title: Option<&str>,
    file_stem: Option<&str>,
    warnings: Vec<String>,
    limits: &Limits,
) -> Result<Document> {
    if text.len() > limits.max_text_bytes {
        return Err(DocumentError::TooLarge {
            what: what.to_owned(),
            limit: limits.max_text_bytes as u64,
        });
    }
    if text.trim().is_empty() {
        return Err(DocumentError::Empty);
    }
    let first_heading = text
        .lines()
        .find(|line| line.starts_with('#') && line.trim_start_matches('#').starts_with(' '))
        .map(|line| line.trim_start_matches('#').trim().to_owned());
    Ok(Document {
        title: own_title(metadata_title, first_heading.as_deref(), file_stem),
        text,
        pages: Vec::new(),
        warnings,
    })
}

/// Ligatures and other presentation forms a PDF's fonts map to one character, as the
/// letters they stand for; soft hyphens dropped. Everything else is kept as it is.
pub(crate) fn plain_letters(text: &str) -> std::borrow::Cow<'_, str> {
    let odd = |c: char| matches!(c, '\u{FB00}'..='\u{FB06}' | '\u{00AD}' | '\u{FFFD}' | '\0');
    if !text.contains(odd) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            '\u{00AD}' | '\u{FFFD}' | '\0' => {}
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ligatures_become_letters() {
        assert_eq!(
            plain_letters("the \u{FB01}nal \u{FB02}ow, e\u{FB03}cient, co\u{00AD}op"),
            "the final flow, efficient, coop"
        );
        assert!(matches!(
            plain_letters("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn page_at_finds_the_page_of_an_offset() {
        let doc = Document {
            pages: vec![
                Page {
                    number: 1,
                    label: None,
                    start: 0,
                    end: 10,
                },
                Page {
                    number: 2,
                    label: Some("ii".into()),
                    start: 12,
                    end: 20,
                },
            ],
            ..Document::default()
        };
        assert_eq!(doc.page_at(0).unwrap().number, 1);
        assert_eq!(doc.page_at(9).unwrap().number, 1);
        assert_eq!(doc.page_at(11).unwrap().number, 2);
        assert_eq!(doc.page_at(19).unwrap().number, 2);
        assert_eq!(doc.page_at(500).unwrap().number, 2);
        assert!(Document::default().page_at(0).is_none());
    }
}
