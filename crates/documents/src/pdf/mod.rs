//! PDF: the text layer, page by page, in reading order.
//!
//! The text is read by Poppler's `pdftotext -bbox-layout`, run as a separate process with
//! a time limit ([`crate::Limits::timeout`]): it orders the words of a page as a reader
//! does (columns one after another, whatever order the file draws them in) and gives each
//! word's box. Poppler is GPL, so it is never linked, only run; docs/documents.md has the
//! measurement that chose it over pdfium and the pure-Rust readers. Page labels (`iv`,
//! `A-3`) come from `qpdf --json` (Apache-2.0), also run as a process; where `qpdf` is
//! missing the pages have no labels and a warning says why. Where `pdftotext` is missing,
//! reading a PDF fails with [`DocumentError::ToolMissing`], which says what to install.
//!
//! From the words this module writes markdown (its `layout` part): running headers and footers
//! (a line repeating near the top or bottom of most pages) dropped, words hyphenated at a
//! line's end joined, ligatures turned into letters, simple tables as pipe tables, large
//! type as headings; and where each page's text lies.
//!
//! A page is also shown as a picture (its `page` part): rendered by `pdftoppm`, with the
//! boxes of a quote's words from `pdftotext -bbox-layout`, for a citation's page.

mod labels;
mod layout;
mod page;
mod tool;

pub use page::{
    highlight_boxes, page_words, parse_page_words, png_dimensions, quote_words, render_page,
    renderer_available, PageImage, PageWord, PageWords, Rect, MAX_PAGE_IMAGE_BYTES,
    MAX_PAGE_IMAGE_SIDE, RENDERER,
};

use std::io::Write;

use crate::{own_title, Document, DocumentError, Limits, Page, Result};

/// The package that brings `pdftotext` on Debian and Ubuntu.
pub const POPPLER_PACKAGE: &str = "poppler-utils";

/// The most bytes `pdftotext -bbox-layout` may print for one file (about 25 times the
/// text it holds: a 5,000-page book prints about 250 MB); past it the tool is stopped.
const MAX_BBOX_BYTES: usize = 512 * 1024 * 1024;

/// Whether `pdftotext` can be run here (a PDF can be read).
pub fn available() -> bool {
    std::process::Command::new("pdftotext")
        .arg("-v")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// How far the reading of a PDF has come: what [`read_pdf_with_progress`] reports as
/// Poppler reads its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagesRead {
    /// The pages read so far.
    pub read: u32,
    /// How many pages the file has (at most [`Limits::max_pages`] are read), where
    /// `pdfinfo` could tell; `None` otherwise.
    pub pages: Option<u32>,
}

/// Reads a PDF's bytes into markdown with its pages. `file_stem` is the last resort for
/// its title.
///
/// Refused with a reason: a file that is not a PDF or is damaged past reading (with
/// Poppler's own words for where), an encrypted one ([`DocumentError::Encrypted`]), one
/// whose page tree loops, one with no text layer ([`DocumentError::NoTextLayer`]), one
/// that takes longer than the limit.
pub fn read_pdf(bytes: &[u8], file_stem: Option<&str>, limits: &Limits) -> Result<Document> {
    read_pdf_with_progress(bytes, file_stem, limits, None)
}

/// [`read_pdf`], telling `progress` (when given) how many pages are read as Poppler reads
/// them, on the calling thread: first with none read and the file's page count (from
/// `pdfinfo`, where it can tell), then as pages are read.
pub fn read_pdf_with_progress(
    bytes: &[u8],
    file_stem: Option<&str>,
    limits: &Limits,
    mut progress: Option<&mut dyn FnMut(PagesRead)>,
) -> Result<Document> {
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(DocumentError::Broken(
            "not a PDF file: it does not start with `%PDF-`".to_owned(),
        ));
    }
    // The tools read a private copy, so what they read is exactly what was size-checked.
    let mut file = tempfile::Builder::new()
        .prefix("wikimind-")
        .suffix(".pdf")
        .tempfile()
        .map_err(|e| tool_failed("a temporary file", e.to_string()))?;
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|e| tool_failed("a temporary file", e.to_string()))?;
    let path = file.path();

    let max_pages = limits.max_pages.to_string();
    let pages = match progress.as_mut() {
        Some(report) => {
            let pages = page_count(path, limits).map(|n| n.min(limits.max_pages));
            report(PagesRead { read: 0, pages });
            pages
        }
        None => None,
    };
    let output = tool::run_counting(
        "pdftotext",
        &["-bbox-layout", "-enc", "UTF-8", "-l", &max_pages],
        path,
        &["-"],
        limits,
        MAX_BBOX_BYTES,
        if progress.is_some() { b"</page>" } else { b"" },
        &mut |read| {
            if let Some(report) = progress.as_mut() {
                report(PagesRead { read, pages });
            }
        },
    )
    .map_err(|e| tool_error(e, "pdftotext", limits))?;
    let complaint = first_errors(&output.stderr);
    if output.stderr.contains("Loop in Pages tree") {
        return Err(DocumentError::Broken(
            "the PDF's page tree loops back on itself (the file is damaged or built to \
             hang readers)"
                .to_owned(),
        ));
    }
    if !output.success {
        if output.stderr.contains("Incorrect password") {
            return Err(DocumentError::Encrypted);
        }
        return Err(DocumentError::Broken(match complaint {
            Some(words) => format!("the PDF is damaged and cannot be read (Poppler: {words})"),
            None => format!(
                "the PDF cannot be read (pdftotext exited with {})",
                output
                    .code
                    .map_or("a signal".to_owned(), |c| format!("code {c}"))
            ),
        }));
    }
    let xhtml = String::from_utf8_lossy(&output.stdout);
    let parsed = layout::parse_bbox(&xhtml)?;
    let page_count = u32::try_from(parsed.pages.len()).unwrap_or(u32::MAX);
    if parsed.pages.is_empty() {
        return Err(DocumentError::Broken("the PDF has no pages".to_owned()));
    }
    if parsed.pages.iter().all(|page| page.is_blank()) {
        return Err(DocumentError::NoTextLayer { pages: page_count });
    }
    let mut warnings = Vec::new();
    if let Some(words) = complaint {
        warnings.push(format!("parts of the PDF are damaged (Poppler: {words})"));
    }
    if page_count >= limits.max_pages {
        warnings.push(format!(
            "only the first {} pages were read (the limit)",
            limits.max_pages
        ));
    }
    let labels = match labels::page_labels(path, page_count, limits) {
        Ok(labels) => labels,
        Err(warning) => {
            warnings.push(warning);
            vec![None; parsed.pages.len()]
        }
    };
    let written = layout::write_markdown(&parsed.pages);
    if written.text.len() > limits.max_text_bytes {
        return Err(DocumentError::TooLarge {
            what: "the text".to_owned(),
            limit: limits.max_text_bytes as u64,
        });
    }
    let pages = written
        .pages
        .iter()
        .zip(1u32..)
        .map(|(range, number)| Page {
            number,
            label: labels.get(number as usize - 1).cloned().flatten(),
            start: range.start,
            end: range.end,
        })
        .collect();
    Ok(Document {
        title: own_title(
            parsed.title.as_deref(),
            written.first_heading.as_deref(),
            file_stem,
        ),
        text: written.text,
        pages,
        warnings,
    })
}

/// How many pages the PDF at `path` has, as `pdfinfo` (Poppler's) says; `None` where it
/// is missing or cannot tell. Only a progress report needs it.
fn page_count(path: &std::path::Path, limits: &Limits) -> Option<u32> {
    let limits = Limits {
        timeout: limits.timeout.min(std::time::Duration::from_secs(10)),
        ..limits.clone()
    };
    let output = tool::run("pdfinfo", &[], path, &[], &limits, 64 * 1024).ok()?;
    if !output.success {
        return None;
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
}

/// The markdown written from `pdftotext -bbox-layout` output, and how many pages it has:
/// the part of [`read_pdf`] after the tool, for fuzzing without a process per input.
#[doc(hidden)]
pub fn markdown_from_word_boxes(xhtml: &str) -> Result<(String, usize)> {
    let parsed = layout::parse_bbox(xhtml)?;
    let written = layout::write_markdown(&parsed.pages);
    for range in &written.pages {
        if range.start > range.end
            || range.end > written.text.len()
            || !written.text.is_char_boundary(range.start)
            || !written.text.is_char_boundary(range.end)
        {
            return Err(DocumentError::Broken(format!("a bad page range {range:?}")));
        }
    }
    Ok((written.text, written.pages.len()))
}

/// Poppler's first complaints on standard error, on one line.
fn first_errors(stderr: &str) -> Option<String> {
    let mut lines: Vec<&str> = Vec::new();
    for line in stderr.lines().map(str::trim) {
        if line.contains("Error") && !lines.contains(&line) {
            lines.push(line);
            if lines.len() == 2 {
                break;
            }
        }
    }
    (!lines.is_empty()).then(|| {
        let mut joined = lines.join("; ");
        if let Some((cut, _)) = joined.char_indices().nth(300) {
            joined.truncate(cut);
        }
        joined
    })
}

fn tool_failed(tool: &'static str, message: String) -> DocumentError {
    DocumentError::ToolFailed { tool, message }
}

fn tool_error(error: tool::ToolError, tool: &'static str, limits: &Limits) -> DocumentError {
    match error {
        tool::ToolError::Missing => DocumentError::ToolMissing {
            format: "PDF",
            tool,
            package: POPPLER_PACKAGE,
        },
        tool::ToolError::TimedOut => DocumentError::TimedOut {
            seconds: limits.timeout.as_secs(),
        },
        tool::ToolError::TooMuchOutput => DocumentError::TooLarge {
            what: "the PDF's text".to_owned(),
            limit: MAX_BBOX_BYTES as u64,
        },
        tool::ToolError::OutOfMemory => DocumentError::TooLarge {
            what: format!("the memory `{tool}` needed to read it"),
            limit: limits.max_tool_memory,
        },
        tool::ToolError::Io(e) => tool_failed(tool, e.to_string()),
    }
}
