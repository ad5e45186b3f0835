//! Citations as the window shows them: the passage around each cited quote (a sentence or
//! two of the source's text, sliced here on word boundaries, as plain text), and a PDF
//! citation's page as an image with the quote's words highlighted.
//!
//! Every rule is here, none in the window: where the passage starts and ends, whether the
//! page image can be shown and why not, which words the highlight covers (found on the page
//! by `pdftotext -bbox-layout`, compared as the quote fold compares text) and where the
//! boxes lie in the image's pixels. The page is rendered by Poppler's `pdftoppm` (a
//! separate process with a time limit, see [`wikimind_documents::pdf::render_page`]) and
//! kept in the wiki's cache (`<data dir>/cache/page-images/`), keyed by the source, the
//! file's size and time and its text's hash, the page and the size.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde::{Deserialize, Serialize};
use wikimind_documents::pdf;

use crate::store::{Citation, SourceId, SourceKind};
use crate::wiki::{Result, Wiki, WikiError};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// How much text a passage shows on each side of the quote at most, in characters (it is
/// then cut back to a sentence or a word boundary).
pub const PASSAGE_CONTEXT_CHARS: usize = 240;

/// How much of a long quote a passage shows, in characters (the rest reads `…`).
pub const PASSAGE_QUOTE_CHARS: usize = 600;

/// The longer side of a rendered page, in pixels: enough to read body text, small enough
/// to cross the wire quickly.
pub const PAGE_IMAGE_SIDE: u32 = 1400;

/// The largest page image sent to the window, in bytes of PNG (its `data:` URL is a third
/// larger). A page past it is rendered again smaller ([`PAGE_IMAGE_SMALL_SIDE`]), then
/// refused.
pub const PAGE_IMAGE_MAX_BYTES: usize = 3 * 1024 * 1024;

/// The longer side of a page rendered again because the first image was too large.
pub const PAGE_IMAGE_SMALL_SIDE: u32 = 800;

/// How many bytes of page images the wiki's cache keeps: past it, the images shown least
/// recently are removed as a new one is kept (a page shown again counts as new).
pub const PAGE_IMAGE_CACHE_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Where a claim's quote stands in one source, as the window shows it on hover or focus:
/// the quote in a sentence or two of its context, the place and the source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PassageView {
    /// The source.
    pub source_id: SourceId,
    /// Where the quote starts: a UTF-8 byte offset into the source's stored text (as
    /// `show --json` citations give it).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub start: u64,
    /// Just past its end.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub end: u64,
    /// The source's title (its own title, else its file or page name).
    pub title: String,
    /// Where in the source: `p. LABEL`, `p. PAGE` or `§ Heading`; `null` when the source
    /// has neither pages nor headings.
    pub place: Option<String>,
    /// The source text before the quote: from a sentence start (else a word boundary)
    /// within [`PASSAGE_CONTEXT_CHARS`], white space collapsed, plain text.
    pub before: String,
    /// The quote as the source spells it (at most [`PASSAGE_QUOTE_CHARS`], then `…`).
    pub quote: String,
    /// The text after it, to a sentence end (else a word boundary).
    pub after: String,
    /// Whether the text goes on before `before` within the quote's section (between its
    /// headings) and page: the passage was cut there.
    pub more_before: bool,
    /// Whether it goes on after `after` within them.
    pub more_after: bool,
    /// For a PDF file, the 1-based page the quote is on: the page image can be asked for
    /// ([`Wiki::citation_page_image`]); `null` for any other source.
    pub pdf_page: Option<u32>,
    /// Why the page image cannot be shown now (the PDF is gone from its path, or
    /// `pdftoppm` is not installed); `null` when it can, or when there is no page.
    pub page_image_problem: Option<String>,
    /// Whether the original file is where it was read from, so it can be opened in the
    /// system's viewer.
    pub file_exists: bool,
}

/// A highlight over a page image, in the image's pixels from its top left corner.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HighlightBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// A PDF citation's page as an image, with the boxes of the quote's words on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CitationPageView {
    /// The source.
    pub source_id: SourceId,
    /// The source's title.
    pub title: String,
    /// The 1-based physical page shown.
    pub page: u32,
    /// The label printed on it, where the file has labels.
    pub page_label: Option<String>,
    /// The page as a `data:image/png;base64,…` URL (at most [`PAGE_IMAGE_MAX_BYTES`] of
    /// PNG).
    pub image: String,
    /// The image's width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The quote's words on the page, one box per line they stand on (empty when they
    /// were not found there: see `note`).
    pub boxes: Vec<HighlightBox>,
    /// Whether the file changed on disk since it was read (its size or time differ): the
    /// page may no longer match the text the claim was grounded in.
    pub changed: bool,
    /// What a person should know about this image, if anything (the file changed, the
    /// quote's words are not on the page).
    pub note: Option<String>,
}

/// A passage: the quote with the text around it, cut and cleaned for the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Passage {
    pub before: String,
    pub quote: String,
    pub after: String,
    pub more_before: bool,
    pub more_after: bool,
}

/// Characters that end a sentence.
fn ends_sentence(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '．' | '…')
}

/// Characters after which a sentence ends with no space (scripts written without spaces).
fn ends_sentence_tight(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '．')
}

/// Byte offsets in `text` where a sentence starts: after a sentence end followed by white
/// space (or straight after a full-width one), and after a blank line.
fn sentence_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut newline = false;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().copied();
        if ends_sentence_tight(c) {
            starts.push(i + c.len_utf8());
        } else if ends_sentence(c) && next.is_some_and(|(_, n)| n.is_whitespace()) {
            starts.push(next.map_or(text.len(), |(j, _)| j));
        } else if c == '\n' {
            if newline {
                starts.push(i + 1);
            }
            newline = true;
            continue;
        }
        if !c.is_whitespace() {
            newline = false;
        }
    }
    starts
}

/// Where the markdown heading lines of `text` lie (each from its start to just past its line
/// break), in order.
fn heading_lines(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start_matches([' ', '\t']);
        let hashes = trimmed.len() - trimmed.trim_start_matches('#').len();
        let after = &trimmed[hashes..];
        if (1..=6).contains(&hashes) && (after.starts_with([' ', '\t', '\n']) || after.is_empty()) {
            out.push(at..at + line.len());
        }
        at += line.len();
    }
    out
}

/// The byte offset `chars` characters before `at` in `text` (0 when there are fewer).
fn back_chars(text: &str, at: usize, chars: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

/// The byte offset `chars` characters after `at` in `text` (its end when there are fewer).
fn forward_chars(text: &str, at: usize, chars: usize) -> usize {
    text[at..]
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| at + i)
}

/// Plain text for the window: markdown heading marks at line starts dropped, control
/// characters dropped, runs of white space as one space.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            space = true;
        }
        let trimmed = line.trim_start();
        let line = match trimmed.trim_start_matches('#') {
            rest if rest.len() < trimmed.len() && rest.starts_with(' ') => rest,
            _ => line,
        };
        for c in line.chars() {
            if c.is_whitespace() {
                space = true;
            } else if !c.is_control() {
                if space {
                    out.push(' ');
                }
                space = false;
                out.push(c);
            }
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// The passage around bytes `start..end` of `text`: from the first sentence start within
/// [`PASSAGE_CONTEXT_CHARS`] before the quote (else the first word boundary there) to the
/// last sentence end within as many after it (else the last word boundary); text written
/// without spaces is cut at a character. It stays within `bounds` (a PDF quote's page),
/// where the passage starts and ends as at the text's start and end. `None` when the range
/// does not lie on character boundaries of the text.
pub(crate) fn passage(
    text: &str,
    start: usize,
    end: usize,
    bounds: std::ops::Range<usize>,
) -> Option<Passage> {
    if start > end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return None;
    }
    let low = if bounds.start <= start && text.is_char_boundary(bounds.start) {
        bounds.start
    } else {
        0
    };
    let high = if bounds.end >= end && bounds.end <= text.len() && text.is_char_boundary(bounds.end)
    {
        bounds.end
    } else {
        text.len()
    };
    // A heading is the passage's place, not its text: the passage starts below the
    // heading above the quote and ends before the next one.
    let low = heading_lines(&text[low..start])
        .last()
        .map_or(low, |line| low + line.end);
    let high = heading_lines(&text[end..high])
        .first()
        .map_or(high, |line| end + line.start);
    let from = back_chars(text, start, PASSAGE_CONTEXT_CHARS).max(low);
    let cut_before = if from == low {
        low
    } else {
        let window = &text[from..start];
        match sentence_starts(window).first() {
            Some(&s) => from + s,
            None => window
                .char_indices()
                .find(|(_, c)| c.is_whitespace())
                .map_or(from, |(i, c)| from + i + c.len_utf8()),
        }
    };
    let to = forward_chars(text, end, PASSAGE_CONTEXT_CHARS).min(high);
    let cut_after = if to == high {
        to
    } else {
        let window = &text[end..to];
        let last_end = window
            .char_indices()
            .filter(|&(i, c)| {
                ends_sentence_tight(c)
                    || (ends_sentence(c)
                        && window[i + c.len_utf8()..]
                            .chars()
                            .next()
                            .is_some_and(char::is_whitespace))
            })
            .map(|(i, c)| i + c.len_utf8())
            .next_back();
        match last_end {
            Some(e) => end + e,
            None => window
                .char_indices()
                .rev()
                .find(|(_, c)| c.is_whitespace())
                .map_or(to, |(i, _)| end + i),
        }
    };
    let mut quote = plain(&text[start..end]).trim().to_owned();
    if quote.chars().count() > PASSAGE_QUOTE_CHARS {
        let cut = forward_chars(&quote, 0, PASSAGE_QUOTE_CHARS);
        let cut = quote[..cut].rfind(' ').filter(|&c| c > 0).unwrap_or(cut);
        quote.truncate(cut);
        quote.push_str(" …");
    }
    Some(Passage {
        before: plain(&text[cut_before..start]).trim_start().to_owned(),
        quote,
        after: plain(&text[end..cut_after]).trim_end().to_owned(),
        more_before: cut_before > low,
        more_after: cut_after < high,
    })
}

/// What a view needs of one source to show passages from it, read once per view.
struct SourceFacts {
    title: String,
    text: String,
    /// For a PDF file: its path.
    pdf: Option<PathBuf>,
    /// Whether its file is where it was read from (`false` for a source that is no file).
    file_exists: bool,
    /// Its pages (a PDF's), where each lies in `text`.
    pages: Vec<crate::store::SourcePage>,
}

/// The passages of claims, reading each source once: the cache a view fills as it goes.
pub(crate) struct Passages<'a> {
    wiki: &'a Wiki,
    sources: HashMap<SourceId, Option<SourceFacts>>,
    renderer: Option<bool>,
}

impl<'a> Passages<'a> {
    pub(crate) fn new(wiki: &'a Wiki) -> Passages<'a> {
        Passages {
            wiki,
            sources: HashMap::new(),
            renderer: None,
        }
    }

    /// These passages as where `pdftoppm` is (or is not) installed, whatever `PATH` holds.
    #[cfg(test)]
    pub(crate) fn assuming_renderer(mut self, available: bool) -> Passages<'a> {
        self.renderer = Some(available);
        self
    }

    /// The passages of a claim's citations, in order.
    pub(crate) fn of(&mut self, citations: &[Citation]) -> Result<Vec<PassageView>> {
        let mut out = Vec::with_capacity(citations.len());
        for c in citations {
            if !self.sources.contains_key(&c.source_id) {
                let facts = self.wiki.source_facts(c.source_id)?;
                self.sources.insert(c.source_id, facts);
            }
            let Some(Some(facts)) = self.sources.get(&c.source_id) else {
                continue;
            };
            let bounds = crate::store::page_at(&facts.pages, c.start)
                .map_or(0..facts.text.len(), |page| page.start..page.end);
            let Some(p) = passage(&facts.text, c.start, c.end, bounds) else {
                continue;
            };
            let pdf_page = facts.pdf.as_ref().and(c.page);
            let page_image_problem = match (&facts.pdf, pdf_page) {
                (Some(path), Some(_)) if !facts.file_exists => Some(format!(
                    "The PDF is no longer at {}: its page cannot be shown.",
                    path.display()
                )),
                (Some(_), Some(_)) => {
                    let available = *self.renderer.get_or_insert_with(pdf::renderer_available);
                    (!available).then(|| renderer_missing().to_string())
                }
                _ => None,
            };
            out.push(PassageView {
                source_id: c.source_id,
                start: c.start as u64,
                end: c.end as u64,
                title: facts.title.clone(),
                place: crate::reading::citation_place(c),
                before: p.before,
                quote: p.quote,
                after: p.after,
                more_before: p.more_before,
                more_after: p.more_after,
                pdf_page,
                page_image_problem,
                file_exists: facts.file_exists,
            });
        }
        Ok(out)
    }
}

/// What the window says where `pdftoppm` is missing.
fn renderer_missing() -> &'static str {
    "The page image needs poppler-utils (`pdftoppm` is not installed); the passage above is \
     the quote in its text."
}

/// The path of a file source's origin (`None` for one read from standard input).
fn origin_path(origin: &str) -> Option<&Path> {
    (!origin.starts_with(crate::ingest::BYTES_ORIGIN_PREFIX)).then(|| Path::new(origin))
}

/// Whether a path names a PDF by its extension.
fn is_pdf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

impl Wiki {
    /// What a view needs of source `id` to show passages, `None` when no source has it.
    fn source_facts(&self, id: SourceId) -> Result<Option<SourceFacts>> {
        let Some(source) = self.store().source(id)? else {
            return Ok(None);
        };
        // A downloaded PDF is shown from the copy the wiki keeps.
        let kept = (source.kind == SourceKind::Url)
            .then(|| self.kept_download(id))
            .flatten()
            .filter(|path| path.is_file());
        let path = match &kept {
            Some(copy) => Some(copy.as_path()),
            None => (source.kind == SourceKind::File)
                .then(|| origin_path(&source.origin))
                .flatten(),
        };
        let title = source.title.clone().unwrap_or_else(|| {
            (source.kind == SourceKind::File)
                .then(|| path.and_then(Path::file_name))
                .flatten()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| source.origin.clone())
        });
        let file_exists = path.is_some_and(Path::is_file);
        let pages = self.store().pages_of_source(id)?;
        Ok(Some(SourceFacts {
            pages,
            title,
            pdf: path.filter(|p| is_pdf(p)).map(Path::to_path_buf),
            file_exists,
            text: source.text,
        }))
    }

    /// The PDF file of source `id`, checked: a file source read from a PDF that is still
    /// where it was read from, or the copy the wiki keeps of a PDF downloaded from a URL.
    /// Refused, saying why, otherwise.
    pub fn cited_pdf(&self, id: SourceId) -> Result<PathBuf> {
        let facts = self.source_facts(id)?.ok_or_else(|| {
            WikiError::Refused(format!("no source #{id} (see `wikimind sources`)"))
        })?;
        let Some(path) = facts.pdf else {
            return Err(WikiError::Refused(format!(
                "source #{id} ({}) is not a PDF file",
                facts.title
            )));
        };
        if !facts.file_exists {
            return Err(WikiError::Refused(format!(
                "the PDF is no longer at {} (moved or deleted since it was read)",
                path.display()
            )));
        }
        Ok(path)
    }

    /// The page of a PDF citation as an image with the quote's words highlighted: the
    /// quote is bytes `start..end` of source `source_id`'s stored text (a citation's range,
    /// [`PassageView::start`]), its page the stored page holding `start`.
    ///
    /// Refused, saying why, when the source is not a PDF file, the file is gone, the range
    /// is not in its text, the page is unknown (a PDF ingested before pages were kept:
    /// ingest it again), `pdftoppm` is missing (install poppler-utils), or rendering fails
    /// or times out. A file that changed on disk since it was read is still shown, with
    /// [`CitationPageView::changed`] and a note. Rendered pages are cached in the wiki's
    /// data dir (none for a wiki in memory).
    pub fn citation_page_image(
        &self,
        id: SourceId,
        start: usize,
        end: usize,
    ) -> Result<CitationPageView> {
        let path = self.cited_pdf(id)?;
        let source_id = id;
        let source = self
            .store()
            .source(id)?
            .ok_or_else(|| WikiError::Refused(format!("no source #{source_id}")))?;
        let text = &source.text;
        if start > end
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            return Err(WikiError::Refused(format!(
                "bytes {start}..{end} are not a quote in source #{source_id}'s text (it may \
                 have changed: open the page again)"
            )));
        }
        let pages = self.store().pages_of_source(id)?;
        let Some(page) = crate::store::page_at(&pages, start) else {
            return Err(WikiError::Refused(
                "the PDF's pages are not known (it was read by an older build): ingest it \
                 again to show its pages"
                    .to_owned(),
            ));
        };
        if !pdf::renderer_available() {
            return Err(WikiError::Refused(renderer_missing().to_owned()));
        }
        let recorded = self.store().file_source(id)?;
        let now = std::fs::metadata(&path)
            .ok()
            .as_ref()
            .and_then(crate::ingest::FileStamp::of);
        let changed = match (&recorded, now) {
            (Some(r), Some(now)) => {
                r.file_size != Some(now.size) || r.file_mtime_ns != Some(now.mtime_ns)
            }
            _ => false,
        };
        let limits = wikimind_documents::Limits {
            timeout: std::time::Duration::from_secs(30),
            ..wikimind_documents::Limits::default()
        };
        let key = wikimind_text::hash::content_hash(&format!(
            "{}\n{:?}\n{:?}",
            source.content_hash,
            now.map(|n| n.size),
            now.map(|n| n.mtime_ns)
        ));
        let image = self.page_image(&path, source_id, &key, page.number, &limits)?;
        let words = pdf::page_words(&path, page.number, &limits).map_err(|e| page_error(&e))?;
        let before_from = back_chars(text, start, 80);
        let chosen = pdf::quote_words(&words.words, &text[start..end], &text[before_from..start]);
        let boxes: Vec<HighlightBox> =
            pdf::highlight_boxes(&words, &chosen, image.width, image.height)
                .into_iter()
                .map(|r| HighlightBox {
                    x: r.x,
                    y: r.y,
                    width: r.width,
                    height: r.height,
                })
                .collect();
        let note = match (changed, boxes.is_empty()) {
            (true, true) => Some(format!(
                "The file changed since it was read, and the quote's words are not on page {} \
                 any more: ingest it again.",
                page.number
            )),
            (true, false) => Some(
                "The file changed since it was read: this page may not match the text the \
                 claim was grounded in."
                    .to_owned(),
            ),
            (false, true) => Some(format!(
                "The quote's words were not found on the image of page {} (the text layer \
                 differs from what was read); the passage shows them in the text.",
                page.number
            )),
            (false, false) => None,
        };
        let facts_title = source.title.clone().unwrap_or_else(|| {
            (source.kind == SourceKind::File)
                .then(|| path.file_name())
                .flatten()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| source.origin.clone())
        });
        Ok(CitationPageView {
            source_id,
            title: facts_title,
            page: page.number,
            page_label: page.label.clone(),
            image: format!(
                "data:image/png;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&image.png)
            ),
            width: image.width,
            height: image.height,
            boxes,
            changed,
            note,
        })
    }

    /// Page `page` of the PDF at `path` as a PNG, from the cache when it holds it (under
    /// `key`, the file's and text's identity), else rendered and kept there; rendered
    /// again smaller when too large to send.
    fn page_image(
        &self,
        path: &Path,
        source_id: SourceId,
        key: &str,
        page: u32,
        limits: &wikimind_documents::Limits,
    ) -> Result<pdf::PageImage> {
        let cache = self
            .data_dir()
            .map(|dir| dir.join("cache").join("page-images"));
        for side in [PAGE_IMAGE_SIDE, PAGE_IMAGE_SMALL_SIDE] {
            let file = cache.as_ref().map(|dir| {
                dir.join(format!(
                    "s{source_id}-{}-p{page}-{side}.png",
                    &key[..key.len().min(16)]
                ))
            });
            if let Some(bytes) = file.as_ref().and_then(|f| std::fs::read(f).ok()) {
                if let Some((width, height)) = pdf::png_dimensions(&bytes) {
                    if bytes.len() <= PAGE_IMAGE_MAX_BYTES {
                        // Shown now: the last to go when the cache is pruned.
                        if let Some(f) = &file {
                            let _ = std::fs::File::options()
                                .write(true)
                                .open(f)
                                .and_then(|h| h.set_modified(std::time::SystemTime::now()));
                        }
                        return Ok(pdf::PageImage {
                            png: bytes,
                            width,
                            height,
                        });
                    }
                }
            }
            let image = pdf::render_page(path, page, side, limits).map_err(|e| page_error(&e))?;
            if image.png.len() > PAGE_IMAGE_MAX_BYTES {
                continue;
            }
            if let (Some(dir), Some(file)) = (&cache, &file) {
                // The cache is a convenience: a page that cannot be kept is still shown.
                let _ = std::fs::create_dir_all(dir).and_then(|()| {
                    let part = file.with_extension("part");
                    std::fs::write(&part, &image.png)?;
                    std::fs::rename(&part, file)
                });
                prune_page_images(dir, file, PAGE_IMAGE_CACHE_MAX_BYTES);
            }
            return Ok(image);
        }
        Err(WikiError::Refused(format!(
            "page {page} of the PDF is too large to show as an image (over {} MB even at \
             {PAGE_IMAGE_SMALL_SIDE} pixels); open the file instead",
            PAGE_IMAGE_MAX_BYTES / (1024 * 1024)
        )))
    }
}

/// Removes the page images of `dir` shown least recently (by their files' times) until
/// they hold at most `max_bytes`, never `keep` (the one just shown). A file that cannot be
/// read or removed is left; the cache is a convenience.
fn prune_page_images(dir: &Path, keep: &Path, max_bytes: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut images: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "png"))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    let mut total: u64 = images.iter().map(|(_, len, _)| len).sum();
    images.sort();
    for (_, len, path) in images {
        if total <= max_bytes {
            break;
        }
        if path != keep && std::fs::remove_file(&path).is_ok() {
            total = total.saturating_sub(len);
        }
    }
}

/// A reader's error while showing a page, as the window says it.
fn page_error(error: &wikimind_documents::DocumentError) -> WikiError {
    match error {
        wikimind_documents::DocumentError::ToolMissing { tool, package, .. } => {
            WikiError::Refused(format!(
                "showing a PDF page needs `{tool}`, which is not installed — install {package} \
                 (Debian and Ubuntu: `sudo apt install {package}`)"
            ))
        }
        other => WikiError::Refused(format!("the PDF page cannot be shown: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_image_cache_lets_the_least_recently_shown_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let at = |secs: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        // Four images of 100 bytes, shown at times 1..4; a note that is not an image.
        for (name, shown) in [("a.png", 3), ("b.png", 1), ("c.png", 4), ("d.png", 2)] {
            let path = dir.path().join(name);
            std::fs::write(&path, [0u8; 100]).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(at(shown)).unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), [0u8; 500]).unwrap();
        // b was shown first but is the one just shown again: it stays; d and a go.
        prune_page_images(dir.path(), &dir.path().join("b.png"), 200);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["b.png", "c.png", "notes.txt"]);
        // Under the bound, nothing goes.
        prune_page_images(dir.path(), &dir.path().join("c.png"), 1_000);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    fn around(text: &str, quote: &str) -> Passage {
        let start = text.find(quote).expect("the quote is in the text");
        passage(text, start, start + quote.len(), 0..text.len()).unwrap()
    }

    #[test]
    fn a_passage_is_the_sentences_around_the_quote_cut_on_boundaries() {
        let mut text = "Filler words come first and go on. ".repeat(20);
        text.push_str(
            "The river runs north in winter. It carries copper from the hills to the sea. ",
        );
        text.push_str("Boats wait. ");
        text.push_str(&"More words follow here without end ".repeat(20));
        let p = around(&text, "copper from the hills");
        assert_eq!(p.quote, "copper from the hills");
        assert!(p.before.ends_with("It carries "), "{:?}", p.before);
        // Starts at a sentence start, within the bound.
        assert!(p.before.starts_with(char::is_uppercase), "{:?}", p.before);
        assert!(p.before.chars().count() <= PASSAGE_CONTEXT_CHARS);
        assert!(p.after.starts_with(" to the sea."), "{:?}", p.after);
        assert!(p.after.ends_with("Boats wait."), "{:?}", p.after);
        assert!(p.more_before && p.more_after);
    }

    #[test]
    fn a_passage_without_sentence_ends_is_cut_between_words() {
        let text = format!(
            "{} target words here {}",
            "alpha ".repeat(100),
            "omega ".repeat(100)
        );
        let p = around(&text, "target words");
        assert!(p.before.starts_with("alpha"), "{:?}", p.before);
        assert!(p.before.chars().count() <= PASSAGE_CONTEXT_CHARS);
        assert!(p.after.trim_end().ends_with("omega"), "{:?}", p.after);
        assert!(p.more_before && p.more_after);
    }

    #[test]
    fn a_quote_at_the_start_or_the_end_of_the_text() {
        let text = "Opening words of the note. Then more. And the last words";
        let p = around(text, "Opening words");
        assert_eq!((p.before.as_str(), p.more_before), ("", false));
        assert!(!p.more_after);
        assert_eq!(p.after, " of the note. Then more. And the last words");
        let p = around(text, "the last words");
        assert_eq!((p.after.as_str(), p.more_after), ("", false));
        assert_eq!(p.before, "Opening words of the note. Then more. And ");
    }

    #[test]
    fn cjk_text_is_cut_at_a_sentence_or_a_character_never_inside_one() {
        let sentence = "東京は日本の首都です。";
        let text = format!(
            "{}川は北へ流れる。{}",
            sentence.repeat(40),
            sentence.repeat(40)
        );
        let p = around(&text, "北へ流れる");
        assert!(p.before.ends_with("川は"), "{:?}", p.before);
        assert!(p.before.starts_with('東'), "{:?}", p.before);
        assert!(p.before.chars().count() <= PASSAGE_CONTEXT_CHARS);
        assert!(p.after.starts_with("。"), "{:?}", p.after);
        assert!(p.after.ends_with('。'), "{:?}", p.after);
        // No sentence end at all: cut at a character within the bound.
        let text = format!("{}北へ流れる{}", "川".repeat(500), "水".repeat(500));
        let p = around(&text, "北へ流れる");
        assert_eq!(p.before.chars().count(), PASSAGE_CONTEXT_CHARS);
        assert_eq!(p.after.chars().count(), PASSAGE_CONTEXT_CHARS);
    }

    #[test]
    fn a_passage_stays_between_the_headings_around_it() {
        let text = "# Rivers\n\n## The Danube\n\nThe Danube rises in the Black Forest. It flows east.\n\n## The Rhine\n\nThe Rhine flows north.";
        let p = around(text, "It flows east");
        assert_eq!(p.before, "The Danube rises in the Black Forest. ");
        assert_eq!(p.after, ".");
        // The whole section is shown: nothing cut off within it.
        assert!(!p.more_before && !p.more_after);
    }

    #[test]
    fn a_passage_is_plain_text_and_a_long_quote_is_bounded() {
        let text = "Intro.\n\nSome <b>bold</b>\u{7}\n  text   spread\tout. The quote.";
        let p = around(text, "The quote.");
        assert_eq!(p.before, "Intro. Some <b>bold</b> text spread out. ");
        let long = "word ".repeat(400);
        let p = around(&long, long.trim_end());
        assert!(p.quote.ends_with(" …"));
        assert!(p.quote.chars().count() <= PASSAGE_QUOTE_CHARS + 2);
        assert!(passage("ab", 1, 5, 0..2).is_none());
        assert!(passage("é", 1, 2, 0..2).is_none());
        // Within a page's bounds: the page's start and end read as the text's.
        let text = "Page one ends here\n\nPage two holds the quote and more";
        let at = text.find("the quote").unwrap();
        let p = passage(text, at, at + 9, 20..text.len()).unwrap();
        assert_eq!(
            (p.before.as_str(), p.more_before),
            ("Page two holds ", false)
        );
    }
}
