//! From the word boxes `pdftotext -bbox-layout` prints to markdown with page ranges.
//!
//! Poppler has already put each page's blocks in reading order; here the furniture goes
//! (running headers and footers), hyphenated words are joined, cells laid out in a grid
//! become a pipe table, and lines in large type become headings.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use quick_xml::events::Event;
use quick_xml::Reader;
use unicode_normalization::UnicodeNormalization;

use crate::{plain_letters, DocumentError, Result};

/// A page as Poppler laid it out.
#[derive(Debug, Default)]
pub(super) struct BoxPage {
    height: f64,
    blocks: Vec<Block>,
}

impl BoxPage {
    /// Whether no word on the page has any text.
    pub(super) fn is_blank(&self) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.lines)
            .flat_map(|l| &l.words)
            .all(|w| w.trim().is_empty())
    }
}

#[derive(Debug, Default)]
struct Block {
    lines: Vec<Line>,
}

#[derive(Debug, Default)]
struct Line {
    x0: f64,
    y0: f64,
    y1: f64,
    words: Vec<String>,
}

impl Line {
    fn height(&self) -> f64 {
        (self.y1 - self.y0).max(0.0)
    }
}

/// What the word boxes say.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// The document's metadata title (`<title>`), when it has one.
    pub title: Option<String>,
    /// Its pages.
    pub pages: Vec<BoxPage>,
}

fn number(value: Option<String>) -> f64 {
    value
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .unwrap_or(0.0)
}

/// Reads `pdftotext -bbox-layout`'s XHTML.
pub(super) fn parse_bbox(xhtml: &str) -> Result<Parsed> {
    let mut reader = Reader::from_str(xhtml);
    reader.config_mut().expand_empty_elements = true;
    let mut parsed = Parsed::default();
    let mut in_title = false;
    let mut title = String::new();
    let mut word: Option<String> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            DocumentError::Broken(format!("pdftotext's word boxes do not parse: {e}"))
        })?;
        match event {
            Event::Start(tag) => {
                let attr = |name: &str| {
                    tag.try_get_attribute(name).ok().flatten().and_then(|a| {
                        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .ok()
                            .map(|v| v.into_owned())
                    })
                };
                match tag.local_name().as_ref() as &str {
                    "title" => in_title = true,
                    "page" => parsed.pages.push(BoxPage {
                        height: number(attr("height")),
                        blocks: Vec::new(),
                    }),
                    "block" => {
                        if let Some(page) = parsed.pages.last_mut() {
                            page.blocks.push(Block::default());
                        }
                    }
                    "line" => {
                        if let Some(block) =
                            parsed.pages.last_mut().and_then(|p| p.blocks.last_mut())
                        {
                            block.lines.push(Line {
                                x0: number(attr("xMin")),
                                y0: number(attr("yMin")),
                                y1: number(attr("yMax")),
                                words: Vec::new(),
                            });
                        }
                    }
                    "word" => word = Some(String::new()),
                    _ => {}
                }
            }
            Event::End(tag) => match tag.local_name().as_ref() as &str {
                "title" => in_title = false,
                "word" => {
                    if let Some(text) = word.take() {
                        let line = parsed
                            .pages
                            .last_mut()
                            .and_then(|p| p.blocks.last_mut())
                            .and_then(|b| b.lines.last_mut());
                        if let Some(line) = line {
                            let text: String = plain_letters(&text).nfc().collect();
                            if !text.trim().is_empty() {
                                line.words.push(text);
                            }
                        }
                    }
                }
                _ => {}
            },
            Event::Text(text) => {
                let text = text.xml10_content();
                if let Some(word) = word.as_mut() {
                    word.push_str(&text);
                } else if in_title {
                    title.push_str(&text);
                }
            }
            Event::GeneralRef(reference) => {
                let resolved: Option<String> = match reference.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    _ => quick_xml::escape::resolve_predefined_entity(&reference.xml10_content())
                        .map(str::to_owned),
                };
                if let Some(resolved) = resolved {
                    if let Some(word) = word.as_mut() {
                        word.push_str(&resolved);
                    } else if in_title {
                        title.push_str(&resolved);
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    parsed.title = wikimind_text::markdown::clean_title(&plain_letters(&title));
    Ok(parsed)
}

/// The markdown of a document's pages.
#[derive(Debug, Default)]
pub(super) struct Written {
    /// The text: pages one after another, separated by a blank line.
    pub text: String,
    /// Where each page lies in it.
    pub pages: Vec<Range<usize>>,
    /// The first line set in large type, for a title.
    pub first_heading: Option<String>,
}

/// Writes the pages as markdown.
pub(super) fn write_markdown(pages: &[BoxPage]) -> Written {
    let dropped = running_lines(pages);
    let body_height = median_line_height(pages);
    let mut written = Written::default();
    for (p, page) in pages.iter().enumerate() {
        if !written.text.is_empty() {
            written.text.push_str("\n\n");
        }
        let start = written.text.len();
        let mut blocks: Vec<Vec<&Line>> = Vec::new();
        for (b, block) in page.blocks.iter().enumerate() {
            let lines: Vec<&Line> = block
                .lines
                .iter()
                .enumerate()
                .filter(|(l, line)| !line.words.is_empty() && !dropped.contains(&(p, b, *l)))
                .map(|(_, line)| line)
                .collect();
            if !lines.is_empty() {
                blocks.push(lines);
            }
        }
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < blocks.len() {
            // A run of one-line blocks may be the cells of a table.
            let run_end = (i..blocks.len())
                .find(|&k| blocks[k].len() != 1 || blocks[k][0].words.len() > 12)
                .unwrap_or(blocks.len());
            if run_end - i >= 4 {
                let cells: Vec<&Line> = blocks[i..run_end].iter().map(|b| b[0]).collect();
                parts.extend(table_or_lines(&cells));
                i = run_end;
                continue;
            }
            let block = &blocks[i];
            let paragraph = paragraph_text(block);
            match heading_level(block, body_height) {
                Some(level) => {
                    if written.first_heading.is_none() {
                        written.first_heading = Some(paragraph.replace('\n', " "));
                    }
                    parts.push(format!(
                        "{} {}",
                        "#".repeat(level),
                        paragraph.replace('\n', " ")
                    ));
                }
                None => parts.push(paragraph),
            }
            i += 1;
        }
        written.text.push_str(&parts.join("\n\n"));
        written.pages.push(start..written.text.len());
    }
    written
}

/// The words of a block's lines, a line per line, a word hyphenated at a line's end
/// joined with its rest on the next line.
fn paragraph_text(lines: &[&Line]) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let joined = line.words.join(" ");
        if i > 0 {
            let hyphenated = out.ends_with('-')
                && out[..out.len() - 1]
                    .chars()
                    .last()
                    .is_some_and(char::is_alphabetic)
                && joined.chars().next().is_some_and(char::is_lowercase);
            if hyphenated {
                out.pop();
            } else {
                out.push('\n');
            }
        }
        out.push_str(&joined);
    }
    out
}

/// `#` or `##` for a short block in type well above the body's, else `None`.
fn heading_level(lines: &[&Line], body: f64) -> Option<usize> {
    if body <= 0.0 || lines.len() > 3 {
        return None;
    }
    let words: usize = lines.iter().map(|l| l.words.len()).sum();
    if words > 20 {
        return None;
    }
    let smallest = lines
        .iter()
        .map(|l| l.height())
        .fold(f64::INFINITY, f64::min);
    if smallest >= 1.7 * body {
        Some(1)
    } else if smallest >= 1.3 * body {
        Some(2)
    } else {
        None
    }
}

fn median_line_height(pages: &[BoxPage]) -> f64 {
    let mut heights: Vec<f64> = pages
        .iter()
        .flat_map(|p| &p.blocks)
        .flat_map(|b| &b.lines)
        .flat_map(|l| std::iter::repeat_n(l.height(), l.words.len()))
        .collect();
    if heights.is_empty() {
        return 0.0;
    }
    let mid = heights.len() / 2;
    let (_, median, _) = heights.select_nth_unstable_by(mid, f64::total_cmp);
    *median
}

/// Near the top (`true`) or the bottom, and the text with numbers as `#`.
type FurnitureKey = (bool, String);

/// A line's page, block and place in its block.
type LineAt = (usize, usize, usize);

/// Lines near the top or bottom of a page whose text (digits aside) repeats there on most
/// pages ([`repeats`]): running headers, footers and page numbers.
fn running_lines(pages: &[BoxPage]) -> HashSet<LineAt> {
    let mut dropped = HashSet::new();
    if pages.len() < 3 {
        return dropped;
    }
    let mut seen: HashMap<FurnitureKey, HashSet<usize>> = HashMap::new();
    let mut at: Vec<(FurnitureKey, LineAt)> = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        if page.height <= 0.0 {
            continue;
        }
        for (b, block) in page.blocks.iter().enumerate() {
            for (l, line) in block.lines.iter().enumerate() {
                let top = line.y1 <= page.height * 0.12;
                let bottom = line.y0 >= page.height * 0.88;
                if !(top || bottom) || line.words.is_empty() {
                    continue;
                }
                let key = (top, furniture_key(&line.words.join(" ")));
                seen.entry(key.clone()).or_default().insert(p);
                at.push((key, (p, b, l)));
            }
        }
    }
    for (key, place) in at {
        if seen.get(&key).is_some_and(|on| repeats(on, pages.len())) {
            dropped.insert(place);
        }
    }
    dropped
}

/// Whether a line found on the pages `on` (0-based) of `total` is running furniture: on
/// more than half of all pages, or — a book's left and right pages carry different
/// headers — on more than half of the left or of the right pages; three pages at least.
fn repeats(on: &HashSet<usize>, total: usize) -> bool {
    let more_than_half = |count: usize, of: usize| count >= 3 && count > of / 2;
    let even = on.iter().filter(|p| *p % 2 == 0).count();
    more_than_half(on.len(), total)
        || more_than_half(even, total.div_ceil(2))
        || more_than_half(on.len() - even, total / 2)
}

/// A running line's text with its numbers (arabic or roman) as `#`, so "Page 3" and
/// "Page 4" are one line.
fn furniture_key(text: &str) -> String {
    text.split_whitespace()
        .map(|word| {
            let core = word.trim_matches(|c: char| !c.is_alphanumeric());
            let roman = !core.is_empty()
                && core.chars().all(|c| "ivxlcdmIVXLCDM".contains(c))
                && core.len() <= 6;
            if core.chars().any(|c| c.is_ascii_digit())
                || (roman && text.split_whitespace().count() <= 3)
            {
                word.chars()
                    .map(|c| if c.is_alphanumeric() { '#' } else { c })
                    .collect::<String>()
                    .split('#')
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("#")
                    + "#"
            } else {
                word.to_lowercase()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The cells of a run of one-line blocks as a pipe table where they form a grid (two rows
/// or more of the same number of cells, two or more, at the same height), else each as a
/// paragraph of its own.
fn table_or_lines(cells: &[&Line]) -> Vec<String> {
    // Rows: cells whose tops lie within a couple of points of each other.
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by(|&a, &b| {
        cells[a]
            .y0
            .total_cmp(&cells[b].y0)
            .then(cells[a].x0.total_cmp(&cells[b].x0))
    });
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for i in order {
        match rows.last_mut() {
            Some(row) if (cells[row[0]].y0 - cells[i].y0).abs() <= 2.5 => row.push(i),
            _ => rows.push(vec![i]),
        }
    }
    for row in &mut rows {
        row.sort_by(|&a, &b| cells[a].x0.total_cmp(&cells[b].x0));
    }
    // The longest stretch of rows with the same number of cells, two or more.
    let mut best: Option<Range<usize>> = None;
    let mut r = 0;
    while r < rows.len() {
        let width = rows[r].len();
        let mut end = r + 1;
        while end < rows.len() && rows[end].len() == width {
            end += 1;
        }
        if width >= 2 && end - r >= 2 && best.as_ref().is_none_or(|b| end - r > b.len()) {
            best = Some(r..end);
        }
        r = end;
    }
    let Some(table) = best else {
        return cells.iter().map(|line| paragraph_text(&[line])).collect();
    };
    let cell = |i: usize| cells[i].words.join(" ").replace('|', "\\|");
    let mut parts: Vec<String> = rows[..table.start]
        .iter()
        .flatten()
        .map(|&i| paragraph_text(&[cells[i]]))
        .collect();
    let mut grid = String::new();
    for (k, row) in rows[table.clone()].iter().enumerate() {
        grid.push_str("| ");
        grid.push_str(&row.iter().map(|&i| cell(i)).collect::<Vec<_>>().join(" | "));
        grid.push_str(" |");
        if k == 0 {
            grid.push('\n');
            grid.push_str(&"| --- ".repeat(row.len()));
            grid.push('|');
        }
        grid.push('\n');
    }
    parts.push(grid.trim_end().to_owned());
    parts.extend(
        rows[table.end..]
            .iter()
            .flatten()
            .map(|&i| paragraph_text(&[cells[i]])),
    );
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(x0: f64, y0: f64, words: &str) -> Line {
        Line {
            x0,
            y0,
            y1: y0 + 10.0,
            words: words.split(' ').map(str::to_owned).collect(),
        }
    }

    #[test]
    fn hyphenated_words_are_joined_and_compounds_kept() {
        let a = line(0.0, 0.0, "found it extra-");
        let b = line(0.0, 12.0, "ordinary and well-known,");
        let c = line(0.0, 24.0, "non-");
        let d = line(0.0, 36.0, "EU members");
        assert_eq!(
            paragraph_text(&[&a, &b, &c, &d]),
            "found it extraordinary and well-known,\nnon-\nEU members"
        );
    }

    #[test]
    fn a_line_on_most_pages_or_on_most_left_or_right_pages_is_furniture() {
        let on = |pages: &[usize]| pages.iter().copied().collect::<HashSet<usize>>();
        assert!(repeats(&on(&[0, 1, 2, 3, 4, 5]), 10));
        assert!(!repeats(&on(&[0, 1, 2, 3]), 10));
        // A book's title on every left page, its chapter on the right ones.
        assert!(repeats(&on(&[1, 3, 5, 7]), 10));
        assert!(repeats(&on(&[0, 2, 4]), 5));
        assert!(!repeats(&on(&[1, 3]), 4), "three pages at least");
        assert!(!repeats(&on(&[1, 5]), 10));
    }

    #[test]
    fn page_numbers_of_any_kind_share_a_key() {
        assert_eq!(furniture_key("Page 3"), furniture_key("Page 14"));
        assert_eq!(furniture_key("iv"), furniture_key("xii"));
        assert_eq!(furniture_key("— 3 —"), furniture_key("— 12 —"));
        assert_ne!(furniture_key("Chapter one"), furniture_key("Chapter two"));
    }

    #[test]
    fn a_grid_of_cells_is_a_table() {
        let cells = [
            line(0.0, 0.0, "Heading"),
            line(0.0, 20.0, "Crop"),
            line(100.0, 20.2, "Year"),
            line(0.0, 40.0, "Rye"),
            line(100.0, 40.0, "2023|4"),
            line(0.0, 60.0, "After"),
        ];
        let refs: Vec<&Line> = cells.iter().collect();
        assert_eq!(
            table_or_lines(&refs),
            [
                "Heading",
                "| Crop | Year |\n| --- | --- |\n| Rye | 2023\\|4 |",
                "After"
            ]
        );
        let loose = [
            line(0.0, 0.0, "a"),
            line(0.0, 20.0, "b"),
            line(0.0, 40.0, "c"),
        ];
        let refs: Vec<&Line> = loose.iter().collect();
        assert_eq!(table_or_lines(&refs), ["a", "b", "c"]);
    }
}
