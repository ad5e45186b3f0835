//! EPUB: an e-book's chapters in spine order (the order a reader pages through them), each
//! read by the HTML reader, each starting with its title.
//!
//! The book is a zip archive: `META-INF/container.xml` names the package document (OPF),
//! whose manifest lists the files and whose spine orders the chapters; chapter titles come
//! from the table of contents (the EPUB 3 navigation document, else the EPUB 2 NCX). Every
//! name is resolved inside the archive; one that climbs out of it is refused.

use std::collections::HashMap;

use crate::html::readable_html;
use crate::xml::{self, Node};
use crate::zipped::{resolve, Archive};
use crate::{markdown_document, Document, DocumentError, Limits, Result};

/// One manifest entry.
struct Item {
    href: String,
    media_type: String,
    nav: bool,
}

/// Reads an EPUB's bytes into markdown. `file_stem` is the last resort for its title.
pub fn read_epub(bytes: &[u8], file_stem: Option<&str>, limits: &Limits) -> Result<Document> {
    let mut archive = Archive::open(bytes, "EPUB", limits)?;
    let container = archive
        .read_text("META-INF/container.xml")?
        .ok_or_else(|| {
            DocumentError::Broken(
                "not an EPUB file: the zip archive has no META-INF/container.xml".to_owned(),
            )
        })?;
    let container = xml::parse("META-INF/container.xml", &container)?;
    let rootfile = container
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "rootfile"))
        .find_map(|node| node.attr("full-path"))
        .ok_or_else(|| {
            DocumentError::Broken(
                "not an EPUB file: META-INF/container.xml names no package document".to_owned(),
            )
        })?;
    let opf_path = resolve("", rootfile).ok_or_else(|| {
        DocumentError::Broken(format!(
            "META-INF/container.xml names a package document outside the archive (`{rootfile}`)"
        ))
    })?;
    let opf_text = archive.read_text(&opf_path)?.ok_or_else(|| {
        DocumentError::Broken(format!(
            "the package document {opf_path} named by META-INF/container.xml is missing"
        ))
    })?;
    let opf = xml::parse(&opf_path, &opf_text)?;
    let base = folder_of(&opf_path);

    let mut metadata_title: Option<String> = None;
    let mut manifest: HashMap<String, Item> = HashMap::new();
    let mut spine: Vec<String> = Vec::new();
    let mut ncx_id: Option<String> = None;
    let mut in_title = false;
    for node in &opf {
        match node {
            Node::Open { name, .. } if name == "title" && metadata_title.is_none() => {
                in_title = true;
            }
            Node::Close { name } if name == "title" => in_title = false,
            Node::Text(text) if in_title => {
                metadata_title
                    .get_or_insert_with(String::new)
                    .push_str(text);
            }
            Node::Open { name, .. } if name == "item" => {
                if let (Some(id), Some(href)) = (node.attr("id"), node.attr("href")) {
                    manifest.insert(
                        id.to_owned(),
                        Item {
                            href: href.to_owned(),
                            media_type: node.attr("media-type").unwrap_or_default().to_owned(),
                            nav: node
                                .attr("properties")
                                .is_some_and(|p| p.split_whitespace().any(|p| p == "nav")),
                        },
                    );
                }
            }
            Node::Open { name, .. } if name == "spine" => {
                ncx_id = node.attr("toc").map(str::to_owned);
            }
            Node::Open { name, .. } if name == "itemref" => {
                if let Some(id) = node.attr("idref") {
                    spine.push(id.to_owned());
                }
            }
            _ => {}
        }
    }
    if spine.is_empty() {
        return Err(DocumentError::Broken(format!(
            "{opf_path}: the spine lists no chapters"
        )));
    }

    let mut warnings = Vec::new();
    let toc = table_of_contents(
        &mut archive,
        &manifest,
        ncx_id.as_deref(),
        &base,
        &mut warnings,
    );

    let mut text = String::new();
    for id in &spine {
        let Some(item) = manifest.get(id) else {
            warnings.push(format!(
                "{opf_path}: the spine names `{id}`, which the manifest does not list"
            ));
            continue;
        };
        if item.nav || !is_html(&item.media_type) {
            continue;
        }
        let Some(path) = resolve(&base, &item.href) else {
            warnings.push(format!(
                "{opf_path}: chapter `{}` lies outside the archive and was not read",
                item.href
            ));
            continue;
        };
        let Some(chapter) = archive.read(&path)? else {
            warnings.push(format!("chapter {path} is missing from the archive"));
            continue;
        };
        let chapter = String::from_utf8_lossy(&chapter);
        let readable = readable_html(&chapter);
        let body = readable.text.trim();
        let title = toc.get(&path);
        if body.is_empty() && title.is_none() {
            continue;
        }
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        if let Some(title) = title.filter(|_| !body.starts_with('#')) {
            text.push_str("# ");
            text.push_str(title);
            text.push_str("\n\n");
        }
        text.push_str(body);
        if text.len() > limits.max_text_bytes {
            return Err(DocumentError::TooLarge {
                what: "the book's text".to_owned(),
                limit: limits.max_text_bytes as u64,
            });
        }
    }
    markdown_document(
        text,
        "the book's text",
        metadata_title.as_deref(),
        file_stem,
        warnings,
        limits,
    )
}

fn is_html(media_type: &str) -> bool {
    matches!(
        media_type.trim().to_ascii_lowercase().as_str(),
        "application/xhtml+xml" | "text/html" | "application/xml" | "text/xml"
    )
}

/// The folder of an entry name, ending in `/` (empty at the root).
fn folder_of(path: &str) -> String {
    match path.rfind('/') {
        Some(i) => path[..=i].to_owned(),
        None => String::new(),
    }
}

/// The table of contents: a chapter's entry name to its title (the first entry naming
/// it), from the EPUB 3 navigation document, else the EPUB 2 NCX.
fn table_of_contents(
    archive: &mut Archive<'_>,
    manifest: &HashMap<String, Item>,
    ncx_id: Option<&str>,
    base: &str,
    warnings: &mut Vec<String>,
) -> HashMap<String, String> {
    let mut toc = HashMap::new();
    let nav = manifest.values().find(|item| item.nav);
    let ncx = ncx_id.and_then(|id| manifest.get(id));
    for (item, is_nav) in [(nav, true), (ncx, false)] {
        let Some(item) = item else { continue };
        let Some(path) = resolve(base, &item.href) else {
            continue;
        };
        let nodes = match archive
            .read_text(&path)
            .and_then(|text| text.map(|t| xml::parse(&path, &t)).transpose())
        {
            Ok(Some(nodes)) => nodes,
            Ok(None) => continue,
            Err(e) => {
                warnings.push(format!("the table of contents was not read: {e}"));
                continue;
            }
        };
        let folder = folder_of(&path);
        let mut label = String::new();
        let mut open = false;
        let mut link: Option<String> = None;
        for node in &nodes {
            match node {
                Node::Open { name, .. } if is_nav && name == "a" => {
                    open = true;
                    label.clear();
                    link = node.attr("href").and_then(|h| resolve(&folder, h));
                }
                Node::Close { name } if is_nav && name == "a" => {
                    open = false;
                    let title = label.split_whitespace().collect::<Vec<_>>().join(" ");
                    if let Some(href) = link.take().filter(|_| !title.is_empty()) {
                        toc.entry(href).or_insert(title);
                    }
                }
                Node::Open { name, .. } if !is_nav && name == "text" => {
                    open = true;
                    label.clear();
                }
                Node::Close { name } if !is_nav && name == "text" => open = false,
                Node::Open { name, .. } if !is_nav && name == "content" => {
                    let title = label.split_whitespace().collect::<Vec<_>>().join(" ");
                    if let Some(href) = node.attr("src").and_then(|h| resolve(&folder, h)) {
                        if !title.is_empty() {
                            toc.entry(href).or_insert(title);
                        }
                    }
                }
                Node::Text(text) if open => label.push_str(text),
                _ => {}
            }
        }
        toc.retain(|_, title| !title.is_empty());
        if !toc.is_empty() {
            break;
        }
    }
    toc
}
