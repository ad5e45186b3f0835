//! Plain text and markdown: normalisation, titles, pasted text and stdin.

use super::{IngestError, IngestedSource, Result, SourceKind};

#[cfg(test)]
use wikimind_text::markdown::MAX_TITLE_CHARS;

/// Turns pasted text into a source. Its origin is `text:<sha256 hex of the text>`; its title
/// is `title` when given and not blank, else the first `# ` heading or the front matter
/// `title:` of the text, else none. The text is normalised like a file (BOM stripped, line
/// endings `\n`). Blank text is refused.
pub fn ingest_text(text: &str, title: Option<&str>) -> Result<IngestedSource> {
    ingest_pasted(text, title, SourceKind::Text)
}

/// Like [`ingest_text`], for text read from standard input (kind [`SourceKind::Stdin`]).
pub fn ingest_stdin(text: &str, title: Option<&str>) -> Result<IngestedSource> {
    ingest_pasted(text, title, SourceKind::Stdin)
}

/// Like [`ingest_stdin`], for the raw bytes read from standard input: refused, like a file
/// named explicitly, when they are larger than `max_bytes` (`len` is how much was read;
/// reading may stop just past the limit), binary, or not UTF-8.
pub fn ingest_stdin_bytes(
    bytes: &[u8],
    title: Option<&str>,
    max_bytes: u64,
) -> Result<IngestedSource> {
    let path = std::path::PathBuf::from("standard input");
    if bytes.len() as u64 > max_bytes {
        return Err(IngestError::FileTooLarge {
            path,
            size: bytes.len() as u64,
            limit: max_bytes,
        });
    }
    if bytes.contains(&0) {
        return Err(IngestError::Binary { path });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| IngestError::NotUtf8 {
        path,
        offset: e.valid_up_to(),
    })?;
    ingest_stdin(text, title)
}

fn ingest_pasted(text: &str, title: Option<&str>, kind: SourceKind) -> Result<IngestedSource> {
    let text = normalise_text(text);
    if text.trim().is_empty() {
        return Err(IngestError::EmptyText {
            what: if kind == SourceKind::Stdin {
                "stdin"
            } else {
                "pasted text"
            },
        });
    }
    let meta = markdown_meta(&text, None);
    let title = title.and_then(clean_title).or(meta.title);
    Ok(IngestedSource {
        origin: text_origin(&text),
        kind,
        title,
        tags: meta.tags,
        aliases: meta.aliases,
        warnings: meta.warning.into_iter().collect(),
        text,
        pages: Vec::new(),
        document: None,
        final_url: None,
        file: None,
        root: None,
        original: None,
    })
}

/// `text:` followed by the lowercase hex SHA-256 of `text`.
pub(crate) fn text_origin(text: &str) -> String {
    format!("text:{}", wikimind_text::hash::content_hash(text))
}

/// Strips a leading UTF-8 byte order mark and turns `\r\n` and lone `\r` into `\n`.
pub fn normalise_text(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !text.contains('\r') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// Trims a title, collapses its whitespace and cuts it to a sane length; `None` when blank.
pub(crate) fn clean_title(raw: &str) -> Option<String> {
    wikimind_text::markdown::clean_title(raw)
}

/// What the markdown reader says of a markdown text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MarkdownMeta {
    /// Its own title: front matter `title`, else the first H1, else the stem given.
    pub title: Option<String>,
    /// Front matter and inline tags.
    pub tags: Vec<String>,
    /// Front matter aliases.
    pub aliases: Vec<String>,
    /// Why the front matter was not read, when it was not.
    pub warning: Option<String>,
}

/// Reads a markdown text's own title, tags and aliases ([`wikimind_text::markdown::read_note`]).
pub(crate) fn markdown_meta(text: &str, stem: Option<&str>) -> MarkdownMeta {
    let note = wikimind_text::markdown::read_note(text, stem);
    MarkdownMeta {
        title: note.title,
        tags: note.tags,
        aliases: note.aliases,
        warning: note.front_matter_error.map(|e| {
            format!(
                "line {}: the front matter is not valid YAML ({}); it was kept as text",
                e.line, e.message
            )
        }),
    }
}

/// The title of a markdown text: its front matter `title:`, else its first level-one `# `
/// heading outside code fences.
#[cfg(test)]
fn markdown_title(text: &str) -> Option<String> {
    markdown_meta(text, None).title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_bom_and_line_endings() {
        assert_eq!(normalise_text("\u{feff}a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(normalise_text("plain"), "plain");
    }

    #[test]
    fn markdown_titles() {
        let cases: &[(&str, Option<&str>)] = &[
            ("# Hello  world\ntext", Some("Hello world")),
            ("intro\n## Sub\n# Main #\n", Some("Main")),
            ("```\n# not a title\n```\n# Real", Some("Real")),
            (
                "---\ntitle: \"Quoted: yes\"\n---\nbody",
                Some("Quoted: yes"),
            ),
            ("---\ntitle: 'It''s'\n---\nbody", Some("It's")),
            (
                "---\ntitle: Plain # comment\n---\n# Heading loses",
                Some("Plain"),
            ),
            ("---\ntitle: Plain # comment\n---\nbody", Some("Plain")),
            ("#hashtag\nno title", None),
            ("", None),
            ("---\nunterminated: front matter", None),
        ];
        for (text, want) in cases {
            assert_eq!(markdown_title(text).as_deref(), *want, "for {text:?}");
        }
    }

    #[test]
    fn pasted_text_identity_is_its_hash() {
        let a = ingest_text("Some notes\r\n", None).unwrap();
        let b = ingest_stdin("Some notes\n", Some("  Given  ")).unwrap();
        assert_eq!(
            a.origin, b.origin,
            "same text after normalisation, same origin"
        );
        assert!(a.origin.starts_with("text:") && a.origin.len() == 5 + 64);
        assert_eq!(a.kind, SourceKind::Text);
        assert_eq!(b.kind, SourceKind::Stdin);
        assert_eq!(b.title.as_deref(), Some("Given"));
        assert_eq!(a.title, None);
        assert_eq!(
            text_origin("abc"),
            "text:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn blank_text_is_refused() {
        let err = ingest_stdin(" \n\t", None).unwrap_err();
        let big = ingest_stdin_bytes(b"0123456789", None, 9).unwrap_err();
        assert!(
            big.to_string().starts_with("standard input: too large"),
            "{big}"
        );
        let bin = ingest_stdin_bytes(b"PK\x03\x04\0\0", None, 100).unwrap_err();
        assert!(bin.to_string().contains("binary data"), "{bin}");
        let latin1 = ingest_stdin_bytes(b"caf\xe9 au lait", None, 100).unwrap_err();
        assert!(latin1.to_string().contains("offset 3"), "{latin1}");
        let ok = ingest_stdin_bytes("Notes on café\n".as_bytes(), None, 100).unwrap();
        assert_eq!(ok.text, "Notes on café\n");
        assert!(err.to_string().contains("stdin"), "{err}");
    }

    #[test]
    fn long_titles_are_cut() {
        let title = clean_title(&"x".repeat(1000)).unwrap();
        assert_eq!(title.chars().count(), MAX_TITLE_CHARS + 1);
    }

    mod hostile {
        use proptest::prelude::*;

        use super::*;
        use crate::hostile_text;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]

            /// Titles are cut to a length and front matter is split at byte offsets.
            #[test]
            fn titles_of_any_text_are_clean_and_short(text in hostile_text::text(400)) {
                match clean_title(&text) {
                    // No title only where nothing is left once links read as their
                    // text (`[[`, `[](x)`): a title never carries link syntax.
                    None => prop_assert!(
                        wikimind_text::name_rule::title_without_link_syntax(&text).is_empty()
                    ),
                    Some(title) => {
                        prop_assert!(title.chars().count() <= MAX_TITLE_CHARS + 1);
                        prop_assert_eq!(title.trim(), title.as_str());
                    }
                }
                let _ = markdown_title(&text);
                let _ = normalise_text(&text);
                let _ = ingest_text(&text, None);
                let _ = ingest_text(&text, Some(&text));
            }
        }
    }
}
