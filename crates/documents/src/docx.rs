//! DOCX: a Word document's body as markdown — headings (by their style, whatever language
//! the style's id is in), bulleted and numbered lists (by style or numbering), tables as
//! pipe tables, footnotes as `[^n]` with their text at the end.
//!
//! Only what Word shows is read: the text of runs (`w:t`), tabs and breaks; deleted text
//! of tracked changes and field codes are left out.

use std::collections::HashMap;

use crate::xml::{self, Node};
use crate::zipped::Archive;
use crate::{markdown_document, Document, DocumentError, Limits, Result};

const DOCUMENT: &str = "word/document.xml";

/// What a paragraph style makes of a paragraph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct StyleRole {
    heading: Option<usize>,
    list: Option<ListKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListKind {
    Bullet,
    Number,
}

/// Reads a DOCX file's bytes into markdown. `file_stem` is the last resort for its title.
pub fn read_docx(bytes: &[u8], file_stem: Option<&str>, limits: &Limits) -> Result<Document> {
    let mut archive = Archive::open(bytes, "DOCX", limits)?;
    let document = archive.read_text(DOCUMENT)?.ok_or_else(|| {
        DocumentError::Broken(format!(
            "not a DOCX file: the zip archive has no {DOCUMENT}"
        ))
    })?;
    let styles = match archive.read_text("word/styles.xml")? {
        Some(text) => styles(&xml::parse("word/styles.xml", &text)?),
        None => HashMap::new(),
    };
    let numbering = match archive.read_text("word/numbering.xml")? {
        Some(text) => numbering(&xml::parse("word/numbering.xml", &text)?),
        None => HashMap::new(),
    };
    let footnotes = match archive.read_text("word/footnotes.xml")? {
        Some(text) => notes(&xml::parse("word/footnotes.xml", &text)?),
        None => Vec::new(),
    };
    let metadata_title = match archive.read_text("docProps/core.xml")? {
        Some(text) => core_title(&xml::parse("docProps/core.xml", &text)?),
        None => None,
    };
    let body = xml::parse(DOCUMENT, &document)?;
    let mut text = body_markdown(&body, &styles, &numbering);
    // The notes the text refers to, found in one pass over it (not one search per note).
    let refs = footnote_refs(&text);
    let referenced: Vec<&(String, String)> = footnotes
        .iter()
        .filter(|(id, _)| refs.contains(id.as_str()))
        .collect();
    if !referenced.is_empty() {
        text.push_str("\n\n");
        let lines: Vec<String> = referenced
            .iter()
            .map(|(id, note)| format!("[^{id}]: {note}"))
            .collect();
        text.push_str(&lines.join("\n"));
    }
    markdown_document(
        text,
        "the document's text",
        metadata_title.as_deref(),
        file_stem,
        Vec::new(),
        limits,
    )
}

/// Paragraph styles by id: which are headings (by name `heading N` or `Title`, or an
/// outline level) and which are lists (`List Bullet…`, `List Number…`).
fn styles(nodes: &[Node]) -> HashMap<String, StyleRole> {
    let mut roles = HashMap::new();
    let mut current: Option<(String, StyleRole)> = None;
    for node in nodes {
        match node {
            Node::Open { name, .. } if name == "style" => {
                current = node
                    .attr("styleId")
                    .map(|id| (id.to_owned(), StyleRole::default()));
            }
            Node::Open { name, .. } if name == "name" => {
                if let (Some((_, role)), Some(value)) = (current.as_mut(), node.attr("val")) {
                    let lower = value.to_lowercase();
                    if let Some(level) = lower
                        .strip_prefix("heading ")
                        .and_then(|n| n.trim().parse::<usize>().ok())
                    {
                        role.heading = Some(level.clamp(1, 6));
                    } else if lower == "title" {
                        role.heading = Some(1);
                    } else if lower.starts_with("list bullet") {
                        role.list = Some(ListKind::Bullet);
                    } else if lower.starts_with("list number") {
                        role.list = Some(ListKind::Number);
                    }
                }
            }
            Node::Open { name, .. } if name == "outlineLvl" => {
                if let (Some((_, role)), Some(level)) = (
                    current.as_mut(),
                    node.attr("val").and_then(|v| v.parse::<usize>().ok()),
                ) {
                    if role.heading.is_none() && level < 9 {
                        role.heading = Some((level + 1).min(6));
                    }
                }
            }
            Node::Close { name } if name == "style" => {
                if let Some((id, role)) = current.take() {
                    roles.insert(id, role);
                }
            }
            _ => {}
        }
    }
    roles
}

/// Whether each (numbering id, level) is bulleted or numbered.
fn numbering(nodes: &[Node]) -> HashMap<(String, String), ListKind> {
    let mut abstract_levels: HashMap<String, HashMap<String, ListKind>> = HashMap::new();
    let mut num_to_abstract: HashMap<String, String> = HashMap::new();
    let mut abstract_id: Option<String> = None;
    let mut level: Option<String> = None;
    let mut num_id: Option<String> = None;
    for node in nodes {
        match node {
            Node::Open { name, .. } if name == "abstractNum" => {
                abstract_id = node.attr("abstractNumId").map(str::to_owned);
            }
            Node::Open { name, .. } if name == "lvl" => {
                level = node.attr("ilvl").map(str::to_owned)
            }
            Node::Open { name, .. } if name == "numFmt" => {
                if let (Some(a), Some(l), Some(format)) = (&abstract_id, &level, node.attr("val")) {
                    let kind = if format == "bullet" {
                        ListKind::Bullet
                    } else {
                        ListKind::Number
                    };
                    abstract_levels
                        .entry(a.clone())
                        .or_default()
                        .insert(l.clone(), kind);
                }
            }
            Node::Close { name } if name == "abstractNum" => abstract_id = None,
            Node::Open { name, .. } if name == "num" => {
                num_id = node.attr("numId").map(str::to_owned)
            }
            Node::Open { name, .. } if name == "abstractNumId" => {
                if let (Some(n), Some(a)) = (&num_id, node.attr("val")) {
                    num_to_abstract.insert(n.clone(), a.to_owned());
                }
            }
            _ => {}
        }
    }
    let mut kinds = HashMap::new();
    for (num, abstract_num) in num_to_abstract {
        if let Some(levels) = abstract_levels.get(&abstract_num) {
            for (level, kind) in levels {
                kinds.insert((num.clone(), level.clone()), *kind);
            }
        }
    }
    kinds
}

/// Footnotes by id (separators left out), each on one line.
fn notes(nodes: &[Node]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    let mut in_text = false;
    for node in nodes {
        match node {
            Node::Open { name, .. } if name == "footnote" => {
                let separator = node
                    .attr("type")
                    .is_some_and(|t| t.contains("eparator") || t == "continuationNotice");
                current = (!separator)
                    .then(|| node.attr("id").map(|id| (id.to_owned(), String::new())))
                    .flatten();
            }
            Node::Open { name, .. } if name == "t" => in_text = true,
            Node::Close { name } if name == "t" => in_text = false,
            Node::Open { name, .. } if name == "tab" => {
                if let Some((_, text)) = current.as_mut() {
                    text.push(' ');
                }
            }
            Node::Close { name } if name == "p" => {
                if let Some((_, text)) = current.as_mut() {
                    text.push(' ');
                }
            }
            Node::Text(t) if in_text => {
                if let Some((_, text)) = current.as_mut() {
                    text.push_str(t);
                }
            }
            Node::Close { name } if name == "footnote" => {
                if let Some((id, text)) = current.take() {
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !text.is_empty() {
                        out.push((id, text));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `dc:title` of `docProps/core.xml`.
fn core_title(nodes: &[Node]) -> Option<String> {
    let mut in_title = false;
    let mut title = String::new();
    for node in nodes {
        match node {
            Node::Open { name, .. } if name == "title" => in_title = true,
            Node::Close { name } if name == "title" => in_title = false,
            Node::Text(text) if in_title => title.push_str(text),
            _ => {}
        }
    }
    (!title.trim().is_empty()).then_some(title)
}

/// One paragraph being read.
#[derive(Default)]
struct Paragraph {
    text: String,
    style: Option<String>,
    num_id: Option<String>,
    level: usize,
    outline: Option<usize>,
}

/// The body as markdown.
fn body_markdown(
    nodes: &[Node],
    styles: &HashMap<String, StyleRole>,
    numbering: &HashMap<(String, String), ListKind>,
) -> String {
    let mut blocks: Vec<(String, bool)> = Vec::new(); // (markdown, is a list item)
    let mut paragraph: Option<Paragraph> = None;
    let mut in_text = false;
    // Tables: rows of cells of text; nested tables are read into the outer cell's text.
    let mut table_depth = 0usize;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cell: Option<String> = None;
    for node in nodes {
        match node {
            Node::Open { name, .. } => match name.as_str() {
                "tbl" => {
                    table_depth += 1;
                    if table_depth == 1 {
                        rows.clear();
                    }
                }
                "tr" if table_depth == 1 => rows.push(Vec::new()),
                "tc" if table_depth == 1 => cell = Some(String::new()),
                "p" => {
                    if table_depth == 0 {
                        paragraph = Some(Paragraph::default());
                    } else if let Some(cell) = cell.as_mut() {
                        if !cell.trim().is_empty() {
                            cell.push(' ');
                        }
                    }
                }
                "pStyle" => {
                    if let Some(p) = paragraph.as_mut() {
                        p.style = node.attr("val").map(str::to_owned);
                    }
                }
                "numId" => {
                    if let Some(p) = paragraph.as_mut() {
                        p.num_id = node.attr("val").filter(|v| *v != "0").map(str::to_owned);
                    }
                }
                "ilvl" => {
                    if let Some(p) = paragraph.as_mut() {
                        p.level = node
                            .attr("val")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0)
                            .min(8);
                    }
                }
                "outlineLvl" => {
                    if let Some(p) = paragraph.as_mut() {
                        p.outline = node
                            .attr("val")
                            .and_then(|v| v.parse::<usize>().ok())
                            .filter(|l| *l < 9);
                    }
                }
                "t" => in_text = true,
                "tab" | "br" | "cr" => push(
                    &mut paragraph,
                    &mut cell,
                    table_depth,
                    if name == "tab" { " " } else { "\n" },
                ),
                "footnoteReference" => {
                    if let Some(id) = node.attr("id") {
                        push(&mut paragraph, &mut cell, table_depth, &format!("[^{id}]"));
                    }
                }
                _ => {}
            },
            Node::Close { name } => match name.as_str() {
                "t" => in_text = false,
                "tc" if table_depth == 1 => {
                    if let (Some(text), Some(row)) = (cell.take(), rows.last_mut()) {
                        row.push(
                            text.split_whitespace()
                                .collect::<Vec<_>>()
                                .join(" ")
                                .replace('|', "\\|"),
                        );
                    }
                }
                "tbl" => {
                    table_depth = table_depth.saturating_sub(1);
                    if table_depth == 0 {
                        if let Some(table) = pipe_table(&rows) {
                            blocks.push((table, false));
                        }
                        rows.clear();
                    }
                }
                "p" if table_depth == 0 => {
                    if let Some(p) = paragraph.take() {
                        if let Some(block) = paragraph_markdown(p, styles, numbering) {
                            blocks.push(block);
                        }
                    }
                }
                _ => {}
            },
            Node::Text(text) if in_text => push(&mut paragraph, &mut cell, table_depth, text),
            Node::Text(_) => {}
        }
    }
    let mut out = String::new();
    let mut previous_list = false;
    for (block, list) in blocks {
        if !out.is_empty() {
            out.push_str(if list && previous_list { "\n" } else { "\n\n" });
        }
        out.push_str(&block);
        previous_list = list;
    }
    out
}

fn push(
    paragraph: &mut Option<Paragraph>,
    cell: &mut Option<String>,
    table_depth: usize,
    text: &str,
) {
    if table_depth > 0 {
        if let Some(cell) = cell.as_mut() {
            cell.push_str(text);
        }
    } else if let Some(p) = paragraph.as_mut() {
        p.text.push_str(text);
    }
}

fn paragraph_markdown(
    p: Paragraph,
    styles: &HashMap<String, StyleRole>,
    numbering: &HashMap<(String, String), ListKind>,
) -> Option<(String, bool)> {
    let text = p
        .text
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    if text.is_empty() {
        return None;
    }
    let role = p
        .style
        .as_deref()
        .and_then(|s| styles.get(s))
        .copied()
        .unwrap_or_default();
    let heading = role
        .heading
        .or(p.outline.map(|l| (l + 1).min(6)))
        .or_else(|| {
            // Without styles.xml: Word's own ids (`Heading1`, `Title`).
            let style = p.style.as_deref()?;
            if style == "Title" {
                return Some(1);
            }
            style
                .strip_prefix("Heading")
                .and_then(|n| n.parse::<usize>().ok())
                .map(|n| n.clamp(1, 6))
        });
    if let Some(level) = heading {
        return Some((
            format!("{} {}", "#".repeat(level), text.replace('\n', " ")),
            false,
        ));
    }
    let list = p
        .num_id
        .as_ref()
        .and_then(|id| numbering.get(&(id.clone(), p.level.to_string())).copied())
        .or(role.list)
        .or_else(|| p.num_id.as_ref().map(|_| ListKind::Bullet));
    match list {
        Some(kind) => {
            let marker = match kind {
                ListKind::Bullet => "-",
                ListKind::Number => "1.",
            };
            let indent = "   ".repeat(p.level);
            Some((
                format!("{indent}{marker} {}", text.replace('\n', " ")),
                true,
            ))
        }
        None => Some((text, false)),
    }
}

/// The ids of the footnote references (`[^id]`) in `text`.
fn footnote_refs(text: &str) -> std::collections::HashSet<&str> {
    text.match_indices("[^")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(']').map(|end| &rest[..end])
        })
        .collect()
}

/// The most columns a table is read with: the cells past it join the last column (a
/// table wider than this is not read as a grid by anyone, and padding every row to a
/// hostile width would multiply a small file into gigabytes).
const MAX_TABLE_COLUMNS: usize = 64;

fn pipe_table(rows: &[Vec<String>]) -> Option<String> {
    // Rows without text are no rows; trailing empty cells widen nothing.
    let rows: Vec<Vec<String>> = rows
        .iter()
        .filter(|row| row.iter().any(|cell| !cell.is_empty()))
        .map(|row| {
            let used = row
                .iter()
                .rposition(|cell| !cell.is_empty())
                .map_or(0, |i| i + 1);
            let mut cells: Vec<String> = row[..used.min(MAX_TABLE_COLUMNS)].to_vec();
            if used > MAX_TABLE_COLUMNS {
                let rest: Vec<&str> = row[MAX_TABLE_COLUMNS..used]
                    .iter()
                    .map(String::as_str)
                    .filter(|c| !c.is_empty())
                    .collect();
                if let Some(last) = cells.last_mut() {
                    last.push(' ');
                    last.push_str(&rest.join(" "));
                }
            }
            cells
        })
        .collect();
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if width == 0 {
        return None;
    }
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let mut cells = row.clone();
        cells.resize(width, String::new());
        out.push_str("| ");
        out.push_str(&cells.join(" | "));
        out.push_str(" |\n");
        if i == 0 {
            out.push_str(&"| --- ".repeat(width));
            out.push_str("|\n");
        }
    }
    Some(out.trim_end().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_table_is_read_in_proportion_to_its_text() {
        // One row of 50,000 cells with text, then 50,000 rows of one cell: padding every
        // row to the widest would write 7.5 GB.
        let mut rows = vec![vec!["x".to_owned(); 50_000]];
        rows.extend(std::iter::repeat_n(vec!["y".to_owned()], 50_000));
        let table = pipe_table(&rows).expect("a table");
        assert!(table.len() < 10_000_000, "{} bytes", table.len());
        let first = table.lines().next().expect("a header");
        assert_eq!(first.matches(" | ").count(), MAX_TABLE_COLUMNS - 1);
        // The cells past the widest column are kept, in the last one.
        assert!(first.contains(&"x ".repeat(100)));
    }

    #[test]
    fn empty_rows_and_trailing_empty_cells_widen_nothing() {
        let rows = vec![
            vec!["Name".to_owned(), "Value".to_owned(), String::new()],
            vec![String::new(); 40],
            vec!["a".to_owned(), "1".to_owned()],
        ];
        assert_eq!(
            pipe_table(&rows).as_deref(),
            Some("| Name | Value |\n| --- | --- |\n| a | 1 |")
        );
        assert_eq!(pipe_table(&[vec![String::new(); 3]]), None);
    }

    #[test]
    fn footnote_references_are_found_in_one_pass() {
        let refs = footnote_refs("A claim.[^1] Another[^note-2] and [^ unclosed");
        assert!(refs.contains("1") && refs.contains("note-2"));
        assert_eq!(refs.len(), 2, "{refs:?}");
    }
}
