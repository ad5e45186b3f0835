//! One page of a PDF shown as a picture: the page rendered by Poppler's `pdftoppm` as a PNG,
//! and the boxes of a quote's words on it from `pdftotext -bbox-layout` (the same tool and
//! word order the text was read with, so a quote taken from the text finds its words).
//!
//! Both tools run as separate processes with the time limit of [`Limits::timeout`] and a
//! cap on what they print (Poppler is GPL: never linked). Where `pdftoppm` is missing,
//! [`render_page`] fails with [`DocumentError::ToolMissing`] naming it and its package;
//! [`renderer_available`] says so beforehand without starting a process.

use std::path::Path;

use quick_xml::events::Event;
use quick_xml::Reader;
use unicode_normalization::UnicodeNormalization;

use super::{tool, POPPLER_PACKAGE};
use crate::{plain_letters, DocumentError, Limits, Result};

/// The program that renders a page.
pub const RENDERER: &str = "pdftoppm";

/// The most bytes a rendered page may take (PNG); past it `pdftoppm` is stopped.
pub const MAX_PAGE_IMAGE_BYTES: usize = 8 * 1024 * 1024;

/// The most pixels the longer side of a rendered page may have.
pub const MAX_PAGE_IMAGE_SIDE: u32 = 4000;

/// The most bytes `pdftotext -bbox-layout` may print for one page.
const MAX_PAGE_WORDS_BYTES: usize = 16 * 1024 * 1024;

/// A page rendered as a PNG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageImage {
    /// The PNG file's bytes.
    pub png: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// One word on a page, where Poppler read it: a box in PDF points, from the page's top
/// left corner.
#[derive(Debug, Clone, PartialEq)]
pub struct PageWord {
    /// The word as printed (ligatures as letters, NFC).
    pub text: String,
    /// Left edge.
    pub x_min: f64,
    /// Top edge.
    pub y_min: f64,
    /// Right edge.
    pub x_max: f64,
    /// Bottom edge.
    pub y_max: f64,
    /// Which line of the page it is on (0-based, in reading order).
    pub line: usize,
}

/// The words of one page and its size in PDF points.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageWords {
    /// The page's width.
    pub width: f64,
    /// The page's height.
    pub height: f64,
    /// Its words in reading order.
    pub words: Vec<PageWord>,
}

/// A rectangle in the pixels of a rendered page: what a highlight covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// Whether `pdftoppm` can be run here, found on `PATH` without starting it (a page image
/// can be shown).
pub fn renderer_available() -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        let candidate = dir.join(RENDERER);
        candidate.is_file() || candidate.with_extension("exe").is_file()
    })
}

/// Renders page `page` (1-based) of the PDF at `path` as a PNG whose longer side is
/// `longest_side` pixels (at most [`MAX_PAGE_IMAGE_SIDE`]).
///
/// Fails with [`DocumentError::ToolMissing`] where `pdftoppm` is not installed, with
/// [`DocumentError::TimedOut`] past the limit, with [`DocumentError::TooLarge`] when the
/// image would pass [`MAX_PAGE_IMAGE_BYTES`], and with [`DocumentError::Broken`] when the
/// file has no such page or cannot be read.
pub fn render_page(
    path: &Path,
    page: u32,
    longest_side: u32,
    limits: &Limits,
) -> Result<PageImage> {
    render_page_with(RENDERER, path, page, longest_side, limits)
}

/// [`render_page`] by the program `program` (a test names one that is not installed).
fn render_page_with(
    program: &str,
    path: &Path,
    page: u32,
    longest_side: u32,
    limits: &Limits,
) -> Result<PageImage> {
    let page_arg = page.max(1).to_string();
    let side = longest_side.clamp(16, MAX_PAGE_IMAGE_SIDE).to_string();
    let output = tool::run(
        program,
        &[
            "-png",
            "-f",
            &page_arg,
            "-l",
            &page_arg,
            "-singlefile",
            "-scale-to",
            &side,
        ],
        path,
        &[],
        limits,
        MAX_PAGE_IMAGE_BYTES,
    )
    .map_err(|e| tool_error(e, RENDERER, MAX_PAGE_IMAGE_BYTES, "the page image", limits))?;
    if output.stderr.contains("Incorrect password") {
        return Err(DocumentError::Encrypted);
    }
    if !output.success || output.stdout.is_empty() {
        return Err(DocumentError::Broken(format!(
            "page {page} of the PDF cannot be rendered{}",
            super::first_errors(&output.stderr)
                .map(|words| format!(" (Poppler: {words})"))
                .unwrap_or_default()
        )));
    }
    let (width, height) = png_dimensions(&output.stdout).ok_or_else(|| {
        DocumentError::Broken(format!("{RENDERER} did not write a PNG for page {page}"))
    })?;
    Ok(PageImage {
        png: output.stdout,
        width,
        height,
    })
}

/// The words of page `page` (1-based) of the PDF at `path`, with their boxes, as
/// `pdftotext -bbox-layout` reads them.
pub fn page_words(path: &Path, page: u32, limits: &Limits) -> Result<PageWords> {
    let page_arg = page.max(1).to_string();
    let output = tool::run(
        "pdftotext",
        &[
            "-bbox-layout",
            "-enc",
            "UTF-8",
            "-f",
            &page_arg,
            "-l",
            &page_arg,
        ],
        path,
        &["-"],
        limits,
        MAX_PAGE_WORDS_BYTES,
    )
    .map_err(|e| {
        tool_error(
            e,
            "pdftotext",
            MAX_PAGE_WORDS_BYTES,
            "the page's words",
            limits,
        )
    })?;
    if output.stderr.contains("Incorrect password") {
        return Err(DocumentError::Encrypted);
    }
    if !output.success {
        return Err(DocumentError::Broken(format!(
            "the words of page {page} cannot be read{}",
            super::first_errors(&output.stderr)
                .map(|words| format!(" (Poppler: {words})"))
                .unwrap_or_default()
        )));
    }
    parse_page_words(&String::from_utf8_lossy(&output.stdout))
}

/// Reads the first page of `pdftotext -bbox-layout`'s XHTML into words with boxes.
pub fn parse_page_words(xhtml: &str) -> Result<PageWords> {
    let mut reader = Reader::from_str(xhtml);
    reader.config_mut().expand_empty_elements = true;
    let mut words = PageWords::default();
    let mut pages = 0;
    let mut line: Option<usize> = None;
    let mut lines = 0;
    let mut word: Option<PageWord> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            DocumentError::Broken(format!("pdftotext's word boxes do not parse: {e}"))
        })?;
        match event {
            Event::Start(tag) => {
                let attr = |name: &str| {
                    tag.try_get_attribute(name)
                        .ok()
                        .flatten()
                        .and_then(|a| {
                            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .ok()
                                .and_then(|v| v.parse::<f64>().ok())
                        })
                        .filter(|v| v.is_finite())
                        .unwrap_or(0.0)
                };
                match tag.local_name().as_ref() as &str {
                    "page" => {
                        pages += 1;
                        if pages > 1 {
                            break;
                        }
                        words.width = attr("width");
                        words.height = attr("height");
                    }
                    "line" if pages == 1 => {
                        line = Some(lines);
                        lines += 1;
                    }
                    "word" if pages == 1 => {
                        word = Some(PageWord {
                            text: String::new(),
                            x_min: attr("xMin"),
                            y_min: attr("yMin"),
                            x_max: attr("xMax"),
                            y_max: attr("yMax"),
                            line: line.unwrap_or(lines),
                        })
                    }
                    _ => {}
                }
            }
            Event::End(tag) if (tag.local_name().as_ref() as &str) == "word" => {
                if let Some(mut w) = word.take() {
                    w.text = plain_letters(&w.text).nfc().collect();
                    if !w.text.trim().is_empty() {
                        words.words.push(w);
                    }
                }
            }
            Event::Text(text) => {
                if let Some(w) = word.as_mut() {
                    w.text.push_str(&text.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                let resolved: Option<String> = match reference.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    _ => quick_xml::escape::resolve_predefined_entity(&reference.xml10_content())
                        .map(str::to_owned),
                };
                if let (Some(w), Some(resolved)) = (word.as_mut(), resolved) {
                    w.text.push_str(&resolved);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(words)
}

/// The characters a word or quote is matched by: letters and digits only, each folded as
/// the quote fold folds it ([`wikimind_text::fold::normalise_char`]: case, quote marks and
/// dashes), after compatibility normalisation (ligatures, full-width forms). Spaces,
/// punctuation and a hyphen that split a word at a line's end do not count, so a quote
/// read from the text finds its words whichever line they stand on.
fn match_chars(text: &str) -> Vec<char> {
    let mut out = Vec::new();
    for c in plain_letters(text).nfkc() {
        if let Some(folded) = wikimind_text::fold::normalise_char(c) {
            out.extend(folded.filter(|c| c.is_alphanumeric()));
        }
    }
    out
}

/// Which of `words` (by index) hold `quote`, comparing letters and digits only, folded as
/// the quote fold folds them (case, quote marks, dashes; ligatures and full-width forms as
/// their letters), so spaces, punctuation and line-end hyphens do not count. `before` (text
/// that came just before the quote in the source) chooses between several occurrences:
/// the one the most of its last characters also precede, else the first in reading order.
/// Empty when the page does not hold the quote.
pub fn quote_words(words: &[PageWord], quote: &str, before: &str) -> Vec<usize> {
    let needle = match_chars(quote);
    if needle.is_empty() {
        return Vec::new();
    }
    let mut hay: Vec<char> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        for c in match_chars(&word.text) {
            hay.push(c);
            owner.push(i);
        }
    }
    let context = match_chars(before);
    let mut best: Option<(usize, usize)> = None;
    let mut at = 0;
    while at + needle.len() <= hay.len() {
        if hay[at..at + needle.len()] == needle[..] {
            let agree = context
                .iter()
                .rev()
                .zip(hay[..at].iter().rev())
                .take_while(|(a, b)| a == b)
                .count();
            if best.is_none_or(|(_, score)| agree > score) {
                best = Some((at, agree));
            }
        }
        at += 1;
    }
    let Some((start, _)) = best else {
        return Vec::new();
    };
    let mut found: Vec<usize> = owner[start..start + needle.len()].to_vec();
    found.dedup();
    found
}

/// The boxes to draw over `chosen` words of `page` on an image `width` × `height` pixels:
/// one per run of chosen words on one line, scaled from PDF points, padded by a pixel or
/// two and kept inside the image.
pub fn highlight_boxes(page: &PageWords, chosen: &[usize], width: u32, height: u32) -> Vec<Rect> {
    if page.width <= 0.0 || page.height <= 0.0 {
        return Vec::new();
    }
    let sx = f64::from(width) / page.width;
    let sy = f64::from(height) / page.height;
    let mut runs: Vec<(usize, f64, f64, f64, f64)> = Vec::new();
    for &i in chosen {
        let Some(w) = page.words.get(i) else { continue };
        match runs.last_mut() {
            Some(run) if run.0 == w.line => {
                run.1 = run.1.min(w.x_min);
                run.2 = run.2.min(w.y_min);
                run.3 = run.3.max(w.x_max);
                run.4 = run.4.max(w.y_max);
            }
            _ => runs.push((w.line, w.x_min, w.y_min, w.x_max, w.y_max)),
        }
    }
    let pad = 2.0;
    runs.into_iter()
        .map(|(_, x0, y0, x1, y1)| {
            let x = (x0 * sx - pad).clamp(0.0, f64::from(width));
            let y = (y0 * sy - pad).clamp(0.0, f64::from(height));
            let right = (x1 * sx + pad).clamp(0.0, f64::from(width));
            let bottom = (y1 * sy + pad).clamp(0.0, f64::from(height));
            Rect {
                x,
                y,
                width: (right - x).max(0.0),
                height: (bottom - y).max(0.0),
            }
        })
        .filter(|r| r.width > 0.0 && r.height > 0.0)
        .collect()
}

/// The width and height a PNG's header gives (`None` for anything not a PNG).
pub fn png_dimensions(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
    (width > 0 && height > 0).then_some((width, height))
}

fn tool_error(
    error: tool::ToolError,
    tool: &'static str,
    cap: usize,
    what: &str,
    limits: &Limits,
) -> DocumentError {
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
            what: what.to_owned(),
            limit: cap as u64,
        },
        tool::ToolError::OutOfMemory => DocumentError::TooLarge {
            what: format!("the memory `{tool}` needed"),
            limit: limits.max_tool_memory,
        },
        tool::ToolError::Io(e) => DocumentError::ToolFailed {
            tool,
            message: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, x: f64, line: usize) -> PageWord {
        PageWord {
            text: text.to_owned(),
            x_min: x,
            y_min: 10.0 * line as f64,
            x_max: x + 8.0,
            y_max: 10.0 * line as f64 + 8.0,
            line,
        }
    }

    #[test]
    fn a_quote_over_a_line_break_and_a_hyphen_finds_its_words() {
        let words = vec![
            word("The", 0.0, 0),
            word("quick", 10.0, 0),
            word("hyphen-", 20.0, 0),
            word("ated", 0.0, 1),
            word("word,", 10.0, 1),
            word("then", 20.0, 1),
        ];
        assert_eq!(
            quote_words(&words, "quick hyphenated word", ""),
            vec![1, 2, 3, 4]
        );
        let page = PageWords {
            width: 100.0,
            height: 100.0,
            words,
        };
        // Two lines: two boxes.
        let boxes = highlight_boxes(&page, &[1, 2, 3, 4], 200, 200);
        assert_eq!(boxes.len(), 2);
        assert!(boxes.iter().all(|b| b.x >= 0.0 && b.x + b.width <= 200.0));
    }

    #[test]
    fn the_context_chooses_between_two_occurrences() {
        let words = vec![
            word("alpha", 0.0, 0),
            word("river", 10.0, 0),
            word("beta", 20.0, 0),
            word("river", 30.0, 0),
        ];
        assert_eq!(quote_words(&words, "river", "alpha"), vec![1]);
        assert_eq!(
            quote_words(&words, "river", "some text then beta "),
            vec![3]
        );
        assert!(quote_words(&words, "gamma", "").is_empty());
        assert!(quote_words(&words, " ,. ", "").is_empty());
    }

    #[test]
    fn cjk_without_spaces_and_ligatures_match() {
        let words = vec![
            word("東京は日本の", 0.0, 0),
            word("首都です。", 10.0, 0),
            word("\u{FB01}nal", 20.0, 0),
        ];
        assert_eq!(quote_words(&words, "日本の首都", ""), vec![0, 1]);
        assert_eq!(quote_words(&words, "FINAL", ""), vec![2]);
    }

    #[test]
    fn a_missing_renderer_says_which_tool_and_package() {
        let error = render_page_with(
            "wikimind-no-such-pdftoppm",
            Path::new("any.pdf"),
            1,
            800,
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(
            error,
            DocumentError::ToolMissing {
                format: "PDF",
                tool: RENDERER,
                package: POPPLER_PACKAGE,
            }
        );
        assert!(error.to_string().contains("poppler-utils"), "{error}");
    }

    #[test]
    fn a_png_header_gives_its_size_and_anything_else_none() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend(708u32.to_be_bytes());
        png.extend(1000u32.to_be_bytes());
        assert_eq!(png_dimensions(&png), Some((708, 1000)));
        assert_eq!(png_dimensions(b"GIF89a"), None);
    }
}
