//! The XML parts of DOCX and EPUB files (and Poppler's word boxes), read into a flat list
//! of nodes.
//!
//! quick-xml never expands entities a document declares, so an entity bomb cannot grow;
//! a part that declares entities at all is refused (Word and EPUB writers never do), and
//! a reference to an undeclared entity is an error naming the part. Nesting is bounded.

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::{DocumentError, Result};

/// How deep elements may nest before a part is refused.
const MAX_DEPTH: usize = 512;

/// How many elements, attributes and runs of text a part may hold before it is refused:
/// each becomes a node of a few dozen bytes, so a part of empty elements (`<a/>`, four
/// bytes each) would otherwise take some 40 times its size in memory. A 1,000-page Word
/// document holds well under a million.
const MAX_NODES: usize = 4_000_000;

/// One node of an XML part: names are local names (without their namespace prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// An opening tag (an empty element gives an `Open` and a `Close`).
    Open {
        /// The local name.
        name: String,
        /// Attributes by local name, values unescaped.
        attrs: Vec<(String, String)>,
    },
    /// A closing tag.
    Close {
        /// The local name.
        name: String,
    },
    /// Text, entity and character references resolved.
    Text(String),
}

impl Node {
    /// The value of attribute `name` of an opening tag.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        match self {
            Node::Open { attrs, .. } => attrs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str()),
            _ => None,
        }
    }
}

/// Reads an XML part. `part` names it in errors (`word/document.xml`).
pub(crate) fn parse(part: &str, xml: &str) -> Result<Vec<Node>> {
    let broken = |what: String| DocumentError::Broken(format!("{part}: {what}"));
    let mut reader = Reader::from_str(xml);
    let config = reader.config_mut();
    config.expand_empty_elements = true;
    config.check_end_names = true;
    let mut nodes = Vec::new();
    let mut depth = 0usize;
    let mut attributes = 0usize;
    loop {
        if nodes.len() + attributes > MAX_NODES {
            return Err(broken(format!(
                "more than {MAX_NODES} elements, attributes and runs of text: refused as too \
                 large to read"
            )));
        }
        let event = reader.read_event().map_err(|e| {
            broken(format!(
                "not well-formed XML at byte {}: {e}",
                reader.buffer_position()
            ))
        })?;
        match event {
            Event::Start(start) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(broken(format!(
                        "elements nest deeper than {MAX_DEPTH} levels"
                    )));
                }
                let name = start.local_name().as_ref().to_owned();
                let mut attrs = Vec::new();
                for attr in start.attributes().with_checks(false) {
                    let attr =
                        attr.map_err(|e| broken(format!("a bad attribute in <{name}>: {e}")))?;
                    let key = attr.key.local_name().as_ref().to_owned();
                    let value = attr
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map_err(|e| broken(format!("attribute {key} of <{name}>: {e}")))?
                        .into_owned();
                    attrs.push((key, value));
                    attributes += 1;
                    if nodes.len() + attributes > MAX_NODES {
                        return Err(broken(format!(
                            "more than {MAX_NODES} elements, attributes and runs of text: \
                             refused as too large to read"
                        )));
                    }
                }
                nodes.push(Node::Open { name, attrs });
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                let name = end.local_name().as_ref().to_owned();
                nodes.push(Node::Close { name });
            }
            Event::Text(text) => push_text(&mut nodes, &text.xml10_content()),
            Event::CData(data) => push_text(&mut nodes, &data.xml10_content()),
            Event::GeneralRef(reference) => {
                if let Some(c) = reference
                    .resolve_char_ref()
                    .map_err(|e| broken(format!("a bad character reference: {e}")))?
                {
                    push_text(&mut nodes, c.encode_utf8(&mut [0; 4]));
                } else {
                    let name = reference.xml10_content();
                    match quick_xml::escape::resolve_predefined_entity(&name) {
                        Some(text) => push_text(&mut nodes, text),
                        None => {
                            return Err(broken(format!(
                                "refers to the entity &{name}; which XML does not define"
                            )))
                        }
                    }
                }
            }
            Event::DocType(doctype) => {
                if doctype.xml10_content().contains("<!ENTITY") {
                    return Err(broken(
                        "declares XML entities (<!ENTITY>), which no DOCX or EPUB writer does: \
                         refused as a possible entity bomb"
                            .to_owned(),
                    ));
                }
            }
            Event::Eof => break,
            Event::Empty(_) | Event::Comment(_) | Event::Decl(_) | Event::PI(_) => {}
        }
    }
    Ok(nodes)
}

fn push_text(nodes: &mut Vec<Node>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Node::Text(last)) = nodes.last_mut() {
        last.push_str(text);
    } else {
        nodes.push(Node::Text(text.to_owned()));
    }
}

/// An XML part's bytes as text: UTF-8 (a byte order mark dropped) or UTF-16 with its
/// byte order mark, as XML allows.
pub(crate) fn decode(part: &str, bytes: &[u8]) -> Result<String> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return utf8(part, rest);
    }
    let utf16 = |le: bool, rest: &[u8]| {
        let units = rest.chunks_exact(2).map(|pair| {
            if le {
                u16::from_le_bytes([pair[0], pair[1]])
            } else {
                u16::from_be_bytes([pair[0], pair[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<std::result::Result<String, _>>()
            .map_err(|_| DocumentError::Broken(format!("{part}: not valid UTF-16")))
    };
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return utf16(true, rest);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return utf16(false, rest);
    }
    utf8(part, bytes)
}

fn utf8(part: &str, bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        DocumentError::Broken(format!(
            "{part}: not valid UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_resolved_or_refused() {
        let nodes = parse(
            "p",
            "<a x=\"1 &amp; 2\">A &lt;b&gt; &#233;<![CDATA[<c>]]></a>",
        )
        .unwrap();
        assert_eq!(nodes[0].attr("x"), Some("1 & 2"));
        assert_eq!(nodes[1], Node::Text("A <b> é<c>".into()));
        let bomb = "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aa\"><!ENTITY b \"&a;&a;\">]><r>&b;</r>";
        let err = parse("word/document.xml", bomb).unwrap_err().to_string();
        assert!(
            err.starts_with("word/document.xml: declares XML entities"),
            "{err}"
        );
        let undeclared = parse("p", "<r>&nbsp;</r>").unwrap_err().to_string();
        assert!(undeclared.contains("&nbsp;"), "{undeclared}");
        let deep = "<a>".repeat(MAX_DEPTH + 1);
        assert!(parse("p", &deep)
            .unwrap_err()
            .to_string()
            .contains("nest deeper"));
        assert!(parse("p", "<a><b></a>").is_err());
    }

    #[test]
    fn utf16_parts_are_decoded() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in "<a>é</a>".encode_utf16() {
            bytes.extend(unit.to_le_bytes());
        }
        assert_eq!(decode("p", &bytes).unwrap(), "<a>é</a>");
        assert!(decode("p", b"\xff\x00<").is_err());
    }
}
