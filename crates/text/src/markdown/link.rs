//! What a wiki link points at: `[[T]]`, `[[T|shown]]`, `[[T#Heading]]`, `[[T#^block]]`,
//! `[[#Heading]]`, `[[folder/T]]`, `[[T.md]]`, and embeds `![[x]]`.
//!
//! The same rule reads a link in a note, in a page body the model wrote, and a name the
//! model gave as a concept or backlink suggestion ([`reduce_name`]), so a name is the same
//! name wherever it was written.

use serde::Serialize;

/// The longest target plus shown text accepted between `[[` and `]]`, in bytes.
pub const MAX_INNER_BYTES: usize = 512;

/// File extensions (lower case) of attachments: files a note embeds or links that are
/// never pages of their own. Notes (`.md`) are not here. The documents WikiMind reads as
/// sources ([`DOCUMENT_EXTENSIONS`]) are here too: a link to one is an attachment unless the
/// document was ingested from the same folder tree, when it leads to that document's page
/// (which only the wiki, knowing its sources, can tell).
pub const ATTACHMENT_EXTENSIONS: &[&str] = &[
    // images
    "png",
    "jpg",
    "jpeg",
    "gif",
    "bmp",
    "svg",
    "webp",
    "avif",
    "ico",
    "tif",
    "tiff",
    "heic",
    // audio
    "mp3",
    "wav",
    "m4a",
    "ogg",
    "flac",
    "3gp",
    "aac",
    "opus", // video
    "mp4",
    "webm",
    "ogv",
    "mov",
    "mkv",
    "avi", // documents (the first three are read as sources: DOCUMENT_EXTENSIONS)
    "pdf",
    "epub",
    "docx",
    "doc",
    "xlsx",
    "xls",
    "pptx",
    "ppt",
    "odt",
    "ods",
    "odp",
    "rtf",
    // Obsidian's own files and archives
    "canvas",
    "base",
    "excalidraw",
    "zip",
    "gz",
    "tar",
    "7z",
    "csv",
    "json",
];

/// File extensions (lower case) of the documents WikiMind reads as sources (PDF, EPUB,
/// DOCX): a link to one (`![[paper.pdf]]`, `[[paper.pdf]]`, `[t](paper.pdf)`) leads to the
/// document's page when the wiki ingested that document from the linking note's folder tree,
/// and is an attachment otherwise.
pub const DOCUMENT_EXTENSIONS: &[&str] = &["pdf", "epub", "docx"];

/// Where in the target page a link points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Anchor {
    /// A heading (`[[T#Heading]]`), as written.
    Heading(String),
    /// A block id (`[[T#^abc]]`), without the `^`.
    Block(String),
}

impl Anchor {
    /// The anchor as written after the `#` (`Heading`, `^abc`).
    pub fn written(&self) -> String {
        match self {
            Anchor::Heading(h) => h.clone(),
            Anchor::Block(b) => format!("^{b}"),
        }
    }
}

/// A parsed wiki link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkRef {
    /// The page it names: trimmed, without folder, `.md` extension, anchor or shown text.
    /// Empty for a link inside the same page (`[[#Heading]]`).
    pub target: String,
    /// The folder written before the name (`a/b` in `[[a/b/T]]`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// The heading or block it points at, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// The text shown instead of the name, when given and not blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// Written as an embed (`![[x]]`).
    pub embed: bool,
    /// The target is a file that is not a note (an image, a PDF, a canvas): an attachment,
    /// never a page.
    pub attachment: bool,
}

impl LinkRef {
    /// Parses what is between `[[` and `]]`. `None` when it is not a link: empty, too long,
    /// holding brackets or a line break, or naming nothing (`[[|x]]`, `[[#]]`).
    ///
    /// `\|` (how a link is written inside a table cell) separates like `|`. The target
    /// ends at the first `#` that is followed by text (`[[C#]]` names `C#`); `#^id` is a
    /// block anchor. A folder is cut off (`[[a/Index]]` names `Index`), and so is a `.md`
    /// extension.
    pub fn parse(inner: &str, embed: bool) -> Option<LinkRef> {
        if inner.len() > MAX_INNER_BYTES || inner.contains(['[', ']', '\n', '\r']) {
            return None;
        }
        let (target_part, shown) = split_shown(inner);
        let shown = shown.map(str::trim).filter(|s| !s.is_empty());
        let (name, anchor) = split_anchor(target_part);
        let name = name.trim();
        let (folder, name) = match name.rsplit_once('/') {
            Some((folder, last)) if !last.trim().is_empty() => {
                let folder = folder.trim().trim_matches('/');
                ((!folder.is_empty()).then(|| folder.to_owned()), last.trim())
            }
            _ => (None, name),
        };
        let name = strip_note_extension(name);
        let name = if name.trim_matches('#').is_empty() {
            ""
        } else {
            name
        };
        if name.is_empty() && anchor.is_none() {
            return None;
        }
        Some(LinkRef {
            attachment: is_attachment(name),
            target: name.to_owned(),
            folder,
            anchor,
            shown: shown.map(str::to_owned),
            embed,
        })
    }

    /// Whether the link points inside the page it is written on (`[[#Heading]]`).
    pub fn is_same_page(&self) -> bool {
        self.target.is_empty()
    }

    /// Whether the link names a page (not an attachment, not the page it is on).
    pub fn names_page(&self) -> bool {
        !self.attachment && !self.is_same_page()
    }

    /// What a reader sees: the shown text, else `Target > Heading` for a section link
    /// (`Heading` inside the same page), else the target.
    pub fn display(&self) -> String {
        if let Some(shown) = &self.shown {
            return shown.clone();
        }
        match (&self.anchor, self.target.is_empty()) {
            (Some(Anchor::Heading(h)), true) => h.clone(),
            (Some(Anchor::Heading(h)), false) => format!("{} > {h}", self.target),
            (Some(Anchor::Block(_)), true) => "this page".to_owned(),
            _ => self.target.clone(),
        }
    }

    /// The link written back in the Obsidian form (`[[T#Heading|shown]]`, `![[x]]`).
    pub fn written(&self) -> String {
        let mut out = String::new();
        if self.embed {
            out.push('!');
        }
        out.push_str("[[");
        out.push_str(&self.target);
        if let Some(anchor) = &self.anchor {
            out.push('#');
            out.push_str(&anchor.written());
        }
        if let Some(shown) = &self.shown {
            out.push('|');
            out.push_str(shown);
        }
        out.push_str("]]");
        out
    }
}

/// Splits `T|shown` (or `T\|shown`) at the first separator.
fn split_shown(inner: &str) -> (&str, Option<&str>) {
    match inner.find('|') {
        Some(bar) => {
            let target = &inner[..bar];
            let target = target.strip_suffix('\\').unwrap_or(target);
            (target, Some(&inner[bar + 1..]))
        }
        None => (inner, None),
    }
}

/// Splits `T#Heading` / `T#^block` at the first `#` followed by text.
fn split_anchor(target: &str) -> (&str, Option<Anchor>) {
    let mut from = 0;
    while let Some(hash) = target[from..].find('#').map(|i| i + from) {
        let rest = target[hash + 1..].trim();
        // `C#`, `F# basics`: a `#` right after a letter or `+` ends a name, not a heading,
        // unless a heading follows it after a space-free name (`T#Heading`).
        let glued = target[..hash]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '+')
            && target[hash + 1..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '#');
        if rest.is_empty() || glued {
            from = hash + 1;
            continue;
        }
        let anchor = match rest.strip_prefix('^') {
            Some(block) if !block.trim().is_empty() => Anchor::Block(block.trim().to_owned()),
            _ => Anchor::Heading(rest.trim_start_matches('#').trim().to_owned()),
        };
        return (&target[..hash], Some(anchor));
    }
    (target, None)
}

/// `name` without a `.md` or `.markdown` extension (any case).
fn strip_note_extension(name: &str) -> &str {
    for ext in [".md", ".markdown"] {
        if name.len() > ext.len()
            && name.is_char_boundary(name.len() - ext.len())
            && name[name.len() - ext.len()..].eq_ignore_ascii_case(ext)
        {
            return name[..name.len() - ext.len()].trim_end();
        }
    }
    name
}

/// Whether `name` is a file name with an attachment's extension (`Engelbart.jpg`,
/// `lucide-heart.svg`, `Plan.canvas`); see [`ATTACHMENT_EXTENSIONS`].
pub fn is_attachment(name: &str) -> bool {
    let Some((stem, ext)) = name.trim().rsplit_once('.') else {
        return false;
    };
    !stem.trim().is_empty()
        && ATTACHMENT_EXTENSIONS
            .iter()
            .any(|known| ext.eq_ignore_ascii_case(known))
}

/// Whether `name` is a file name with the extension of a document WikiMind reads
/// ([`DOCUMENT_EXTENSIONS`]): `paper.pdf`, `Book.EPUB`.
pub fn is_document(name: &str) -> bool {
    let Some((stem, ext)) = name.trim().rsplit_once('.') else {
        return false;
    };
    !stem.trim().is_empty()
        && DOCUMENT_EXTENSIONS
            .iter()
            .any(|known| ext.eq_ignore_ascii_case(known))
}

/// A name the model gave (a concept, a backlink suggestion, a title) reduced to the page it
/// names, by the rule of [`LinkRef::parse`]: `[[T#h|s]]`, `![[T]]`, `T|shown` and
/// `T#Heading` all name `T`. Outside brackets a `/` is part of the name (`TCP/IP`); inside
/// brackets it separates folders, as in a note. `None` when it names no page: blank, a link
/// inside a page (`#Heading`, `[[#h]]`) or an attachment (`photo.jpg`).
pub fn reduce_name(name: &str) -> Option<String> {
    let trimmed = name.trim();
    let unbanged = trimmed.strip_prefix('!').unwrap_or(trimmed).trim_start();
    let link = match unbanged
        .strip_prefix("[[")
        .and_then(|rest| rest.strip_suffix("]]"))
    {
        Some(inner) => LinkRef::parse(inner, false)?,
        None => {
            if trimmed.starts_with('#') {
                return None;
            }
            // A bare name keeps its slashes: read it as one folder-less name.
            let (target, _) = split_shown(trimmed);
            let (target, anchor) = split_anchor(target);
            let target = strip_note_extension(target.trim());
            if target.is_empty() && anchor.is_some() {
                return None;
            }
            LinkRef {
                attachment: is_attachment(target),
                target: target.to_owned(),
                folder: None,
                anchor,
                shown: None,
                embed: false,
            }
        }
    };
    link.names_page().then_some(link.target)
}

/// The id a heading gets in rendered HTML (without the renderer's `wm-` prefix) and the
/// slug a `[[T#Heading]]` link points at: lowercase letters and digits of any script kept,
/// every run of whitespace, `-` and `_` one `-`, everything else dropped, no `-` at the ends;
/// `section` when nothing is left. Two headings with one slug are told apart by the renderer
/// (`-1`, `-2`, … in order).
pub fn heading_slug(heading: &str) -> String {
    let mut slug = String::new();
    let mut dash = false;
    for c in heading.chars() {
        if c.is_alphanumeric() {
            if dash && !slug.is_empty() {
                slug.push('-');
            }
            dash = false;
            slug.extend(c.to_lowercase());
        } else if c.is_whitespace() || c == '-' || c == '_' {
            dash = true;
        }
    }
    if slug.is_empty() {
        slug.push_str("section");
    }
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(inner: &str) -> LinkRef {
        LinkRef::parse(inner, false).unwrap_or_else(|| panic!("{inner:?} should parse"))
    }

    #[test]
    fn every_link_form_names_its_target() {
        let heading = |h: &str| Some(Anchor::Heading(h.to_owned()));
        let cases: &[(&str, &str, Option<Anchor>, Option<&str>)] = &[
            ("T", "T", None, None),
            (" Title ", "Title", None, None),
            ("T|shown", "T", None, Some("shown")),
            ("T|", "T", None, None),
            ("T#Heading", "T", heading("Heading"), None),
            ("T#Heading|shown", "T", heading("Heading"), Some("shown")),
            ("T#^abc-1", "T", Some(Anchor::Block("abc-1".into())), None),
            ("#Heading", "", heading("Heading"), None),
            ("folder/T", "T", None, None),
            ("a/b/T.md", "T", None, None),
            ("T.md", "T", None, None),
            ("Notes.MARKDOWN", "Notes", None, None),
            ("T\\|shown", "T", None, Some("shown")),
            (
                "Core plugins|core plugin",
                "Core plugins",
                None,
                Some("core plugin"),
            ),
            (
                "Basic formatting syntax#External images",
                "Basic formatting syntax",
                heading("External images"),
                None,
            ),
            ("C#", "C#", None, None),
            ("F# basics", "F# basics", None, None),
            ("C++", "C++", None, None),
            ("T#H#I", "T", heading("H#I"), None),
        ];
        for (inner, target, anchor, shown) in cases {
            let link = parse(inner);
            assert_eq!(link.target, *target, "{inner:?}");
            assert_eq!(link.anchor, *anchor, "{inner:?}");
            assert_eq!(link.shown.as_deref(), *shown, "{inner:?}");
        }
        assert_eq!(parse("a/Index").folder.as_deref(), Some("a"));
        for not_a_link in ["", " ", "|x", "#", "a[b", "a\nb", &"x".repeat(600)] {
            assert_eq!(LinkRef::parse(not_a_link, false), None, "{not_a_link:?}");
        }
    }

    #[test]
    fn attachments_are_never_pages() {
        for name in [
            "Engelbart.jpg",
            "lucide-heart.svg",
            "Plan.canvas",
            "paper.PDF",
        ] {
            assert!(parse(name).attachment, "{name}");
            assert!(!parse(name).names_page(), "{name}");
        }
        for name in ["Node.js", "ASP.NET", "Mr. Smith", "v1.2", ".jpg"] {
            assert!(!is_attachment(name), "{name}");
        }
        assert!(parse("image.png|200").attachment);
    }

    #[test]
    fn names_from_a_model_reduce_to_their_target() {
        let cases: &[(&str, Option<&str>)] = &[
            ("Espresso", Some("Espresso")),
            ("[[Espresso]]", Some("Espresso")),
            ("[[Espresso#History|the history]]", Some("Espresso")),
            ("![[Espresso]]", Some("Espresso")),
            ("Core plugins|core plugin", Some("Core plugins")),
            (
                "Introduction to Obsidian Sync|Obsidian Sync",
                Some("Introduction to Obsidian Sync"),
            ),
            (
                "Basic formatting syntax#External images",
                Some("Basic formatting syntax"),
            ),
            ("TCP/IP", Some("TCP/IP")),
            ("[[a/Index]]", Some("Index")),
            ("C#", Some("C#")),
            ("#status bar", None),
            ("[[#Heading]]", None),
            ("Engelbart.jpg", None),
            ("![[lucide-heart.svg|20]]", None),
            ("  ", None),
        ];
        for (name, want) in cases {
            assert_eq!(reduce_name(name).as_deref(), *want, "{name:?}");
        }
    }

    #[test]
    fn links_read_and_write_back_alike() {
        for written in ["[[T]]", "[[T#Heading|shown]]", "![[x.png]]", "[[T#^b1]]"] {
            let inner = written.trim_start_matches('!');
            let inner = &inner[2..inner.len() - 2];
            let link = LinkRef::parse(inner, written.starts_with('!')).unwrap();
            assert_eq!(link.written(), *written);
        }
        assert_eq!(parse("T#Heading").display(), "T > Heading");
        assert_eq!(parse("#Heading").display(), "Heading");
    }

    #[test]
    fn heading_slugs() {
        let cases = [
            ("External images", "external-images"),
            ("  Hello,   World! ", "hello-world"),
            ("C++ & Rust_2", "c-rust-2"),
            ("Ünïcode Überschrift", "ünïcode-überschrift"),
            ("日本語 見出し", "日本語-見出し"),
            ("!!!", "section"),
            ("", "section"),
        ];
        for (heading, slug) in cases {
            assert_eq!(heading_slug(heading), slug, "{heading:?}");
        }
    }
}
