//! What a `[[T#Heading]]` or `[[T#^block]]` link can point at in a body: the slugs of its
//! headings and its block ids, read the way the renderer reads them.

use std::collections::BTreeSet;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::link::{heading_slug, Anchor};
use super::readable::block_id_start;

/// The places of a body a link can point at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BodyAnchors {
    /// The slug ([`heading_slug`]) of every heading.
    pub headings: BTreeSet<String>,
    /// Every block id (` ^abc` at the end of a line), without the `^`.
    pub blocks: BTreeSet<String>,
}

impl BodyAnchors {
    /// Whether `anchor` names a heading or block of the body (headings compared by slug,
    /// block ids exactly).
    pub fn has(&self, anchor: &Anchor) -> bool {
        match anchor {
            Anchor::Heading(h) => self.headings.contains(&heading_slug(h)),
            Anchor::Block(b) => self.blocks.contains(b),
        }
    }
}

/// The headings and block ids of a markdown body (outside code blocks).
pub fn body_anchors(markdown: &str) -> BodyAnchors {
    let mut anchors = BodyAnchors::default();
    let mut heading: Option<String> = None;
    let mut in_code = false;
    for event in Parser::new_ext(markdown, super::options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(text) | Event::Code(text) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    anchors.headings.insert(heading_slug(&h));
                }
            }
            _ => {}
        }
    }
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let line = line.trim_end();
        if let Some(start) = block_id_start(line) {
            if let Some(caret) = line[start..].find('^') {
                anchors.blocks.insert(line[start + caret + 1..].to_owned());
            }
        }
    }
    anchors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_headings_by_slug_and_block_ids() {
        let body = "# Espresso Basics\n\nText. ^intro\n\n## Crema & *foam*\n\n```\n## not one ^nope\n```\n\n^solo\n";
        let anchors = body_anchors(body);
        assert_eq!(
            anchors.headings.iter().cloned().collect::<Vec<_>>(),
            ["crema-foam", "espresso-basics"]
        );
        assert_eq!(
            anchors.blocks.iter().cloned().collect::<Vec<_>>(),
            ["intro", "solo"]
        );
        assert!(anchors.has(&Anchor::Heading("espresso basics".into())));
        assert!(anchors.has(&Anchor::Block("intro".into())));
        assert!(!anchors.has(&Anchor::Heading("Brewing".into())));
        assert!(!anchors.has(&Anchor::Block("nope".into())));
    }
}
