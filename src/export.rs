//! Export: the wiki as a folder of Obsidian-friendly markdown files.
//!
//! One `.md` file per page, named from its title, with YAML front matter (title, aliases,
//! tags, summary, concepts, sources, confidence mix), the body with its wiki links as written
//! (`[[T#Heading|shown]]`), then `## Key claims`, `## Open questions` and `## Sources`
//! (markdown links to the digests, so they are no topics when the export is read again).
//! A `.wikimind-export` file marks the folder, so `wikimind ingest` of an export reads its
//! pages and skips its `sources/` (and later `notes/`) copies. Each
//! source's digest (what that one source says) is a file of the same shape in the `sources/`
//! folder; digests may share a title, so their names get ` (2)`, ` (3)` as needed. Titles are untrusted model output, so file
//! names are sanitised for every common file system and can never leave the export folder.
//! When the file name had to differ from the title, the title is listed under `aliases`,
//! which Obsidian uses to resolve `[[Title]]` links to the file.
//!
//! The export folder may already hold anything, symlinks included. A file is never written
//! through a link, and a `sources` link is replaced by a folder, never followed: each one is written to a new temporary file in the folder and renamed
//! over the destination, which replaces a link instead of following it. Names are unique as
//! macOS and Windows compare them (ignoring case and Unicode normalisation), written in
//! NFC, and free of invisible characters (controls, bidi overrides, zero-width marks).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use crate::contract::CheckedClaim;
use crate::render::one_line;
use crate::store::ArticleId;

/// The longest file stem written, in bytes (file systems allow 255 for the whole name).
const MAX_STEM_BYTES: usize = 120;

/// How many of an article's claims have each confidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ConfidenceMix {
    /// Claims backed by a quote from a source.
    pub sourced: u32,
    /// Claims that follow from the sources without being stated.
    pub inferred: u32,
    /// Judgements.
    pub opinion: u32,
}

/// Where the digests go, inside the export folder.
pub const DIGEST_FOLDER: &str = "sources";

/// Where the notes written in the wiki go, inside the export folder.
pub const NOTE_FOLDER: &str = "notes";

/// Writes each note (title, markdown as written) to the [`NOTE_FOLDER`] of `dir`, one file
/// each, named like pages (unique, safe everywhere); a note's text is written as it is.
pub fn export_notes(
    dir: impl AsRef<Path>,
    notes: &[(String, String)],
) -> Result<Vec<ExportedFile>, ExportError> {
    let dir = dir.as_ref().join(NOTE_FOLDER);
    let mut files = Vec::new();
    if notes.is_empty() {
        return Ok(files);
    }
    real_folder(&dir).map_err(|source| ExportError::Io {
        path: dir.clone(),
        source,
    })?;
    let mut taken: HashSet<String> = HashSet::new();
    for (title, text) in notes {
        let stem = unique_stem(&file_stem(title), &mut taken);
        let path = dir.join(format!("{stem}.md"));
        write_replacing(&dir, &path, text.as_bytes()).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        files.push(ExportedFile {
            title: title.clone(),
            path,
        });
    }
    Ok(files)
}

/// One page or digest to export.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportArticle {
    /// The title.
    pub title: String,
    /// Other names of a page (its file also answers to them in Obsidian).
    pub aliases: Vec<String>,
    /// The tags of the notes whose topic it is (written as `tags`, which Obsidian reads).
    pub tags: Vec<String>,
    /// The summary.
    pub summary: String,
    /// Concept names.
    pub concepts: Vec<String>,
    /// Origins of the sources it was written from.
    pub sources: Vec<String>,
    /// For a page, the digests feeding it (ids given to [`export_markdown`] with each
    /// digest), listed under `## Sources`.
    pub digests: Vec<ArticleId>,
    /// How the article's claims are supported.
    pub confidence_mix: ConfidenceMix,
    /// The body in markdown, with `[[wiki links]]`.
    pub body: String,
    /// The key claims after grounding.
    pub claims: Vec<CheckedClaim>,
    /// Where each claim's quote stands (by the claim's index; a claim past its end, or
    /// with none, cites nothing): written as footnotes.
    pub citations: Vec<Vec<ExportCitation>>,
    /// Questions the sources leave open.
    pub open_questions: Vec<String>,
    /// A saved answer (a page of kind `answer`): named after every topic, so a topic
    /// always keeps its own file name and `[[Topic]]` opens the topic.
    pub answer: bool,
}

/// Where a claim's quote stands, as an export's footnote says it: `[^1]: Source title,
/// p. 12`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportCitation {
    /// The source's title.
    pub source_title: String,
    /// Where in it: `p. LABEL`, `p. PAGE` or `§ Heading`
    /// ([`crate::reading::citation_place`]); `None` says only the source.
    pub place: Option<String>,
    /// For a PDF file source, its path and the 1-based physical page: the footnote links
    /// to `file.pdf#page=N` when the file lies inside the export folder.
    pub pdf: Option<(PathBuf, u32)>,
}

/// One file written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportedFile {
    /// The article title.
    pub title: String,
    /// The file written, inside the export folder.
    pub path: PathBuf,
}

/// What [`export_markdown`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExportReport {
    /// The pages' files, in the order of the pages given.
    pub files: Vec<ExportedFile>,
    /// The digests' files (in [`DIGEST_FOLDER`]), in the order of the digests given.
    pub digests: Vec<ExportedFile>,
    /// The notes written in the wiki (in [`NOTE_FOLDER`]), as [`export_notes`] wrote them.
    #[serde(default)]
    pub notes: Vec<ExportedFile>,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// Creating the folder or writing a file failed.
    #[error("{}: cannot write: {source} — check that the folder is writable", .path.display())]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Writes one markdown file per page into `dir` (created if missing) and one per digest
/// into its [`DIGEST_FOLDER`]. Files with the same names are replaced, so exporting again
/// refreshes the folder; other files are left alone. A symlink with a file's name is
/// replaced by the file, and one named like the digest folder by a folder: never written
/// through. File names are unique within their folder, compared ignoring case and Unicode
/// normalisation; topics get theirs first, saved answers after (an answer titled like a
/// topic gets `Title (2).md`, never the topic's file).
pub fn export_markdown(
    dir: impl AsRef<Path>,
    pages: &[ExportArticle],
    digests: &[(ArticleId, ExportArticle)],
) -> Result<ExportReport, ExportError> {
    let dir = dir.as_ref();
    let io_error = |path: &Path| {
        let path = path.to_owned();
        move |source| ExportError::Io { path, source }
    };
    fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut report = ExportReport::default();
    // The mark by which ingest knows an export (and reads only its pages).
    let marker = dir.join(crate::ingest::EXPORT_MARKER);
    write_replacing(
        dir,
        &marker,
        b"This folder was written by `wikimind export`. Ingesting it again reads its pages, \
          not its sources/ and notes/ copies.\n",
    )
    .map_err(io_error(&marker))?;

    // PDFs inside the export folder are linked to from footnotes, relative to the file.
    let real_dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let digest_dir = dir.join(DIGEST_FOLDER);
    if !digests.is_empty() {
        real_folder(&digest_dir).map_err(io_error(&digest_dir))?;
    }
    let mut taken: HashSet<String> = HashSet::new();
    let mut digest_links: std::collections::HashMap<ArticleId, (String, String)> =
        Default::default();
    for (id, digest) in digests {
        let stem = unique_stem(&file_stem(&digest.title), &mut taken);
        let path = digest_dir.join(format!("{stem}.md"));
        let contents = article_markdown(digest, &stem, &[], &|pdf| beside(&real_dir, pdf, 1));
        write_replacing(&digest_dir, &path, contents.as_bytes()).map_err(io_error(&path))?;
        digest_links.insert(
            *id,
            (digest.title.clone(), format!("{DIGEST_FOLDER}/{stem}")),
        );
        report.digests.push(ExportedFile {
            title: digest.title.clone(),
            path,
        });
    }

    // Topics first, then answers, so a topic is never pushed off its own name.
    let mut taken: HashSet<String> = HashSet::new();
    let mut stems: Vec<String> = vec![String::new(); pages.len()];
    let by_kind = |answer: bool| {
        pages
            .iter()
            .enumerate()
            .filter(move |(_, p)| p.answer == answer)
    };
    for (i, page) in by_kind(false).chain(by_kind(true)) {
        stems[i] = unique_stem(&page_stem(&page.title), &mut taken);
    }
    for (page, stem) in pages.iter().zip(&stems) {
        // A note told apart by its folders (`Parser/constructor`) is written in them
        // (`Parser/constructor.md`), as the vault had it.
        let mut folder = dir.to_owned();
        let parts: Vec<&str> = stem.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            folder.push(part);
            real_folder(&folder).map_err(io_error(&folder))?;
        }
        let up = "../".repeat(parts.len() - 1);
        let path = folder.join(format!("{}.md", parts[parts.len() - 1]));
        let links: Vec<(&str, String)> = page
            .digests
            .iter()
            .filter_map(|id| {
                digest_links
                    .get(id)
                    .map(|(title, link)| (title.as_str(), format!("{up}{link}")))
            })
            .collect();
        let links: Vec<(&str, &str)> = links.iter().map(|(t, l)| (*t, l.as_str())).collect();
        let depth = parts.len() - 1;
        let contents = article_markdown(page, stem, &links, &|pdf| beside(&real_dir, pdf, depth));
        write_replacing(&folder, &path, contents.as_bytes()).map_err(io_error(&path))?;
        report.files.push(ExportedFile {
            title: page.title.clone(),
            path,
        });
    }
    Ok(report)
}

/// The link from a file `depth` folders below the export folder `dir` to `pdf`, when that
/// file lies inside `dir` (with `/` between the parts, percent-encoding left to the `<…>`
/// form of the link); `None` when it lies elsewhere or is gone.
fn beside(dir: &Path, pdf: &Path, depth: usize) -> Option<String> {
    let real = fs::canonicalize(pdf).ok()?;
    let inside = real.strip_prefix(dir).ok()?;
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    if parts.is_empty() || parts.iter().any(|p| p.contains(['<', '>', '\n'])) {
        return None;
    }
    Some(format!("{}{}", "../".repeat(depth), parts.join("/")))
}

/// Makes `path` a real folder: kept when it is one, else created; a symlink (or a file)
/// in its place is removed first, never followed.
fn real_folder(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => fs::remove_file(path)?,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    fs::create_dir(path)
}

/// Writes `contents` to `path` (a file directly in `dir`) without following a symlink that
/// may already be there: the bytes go to a new temporary file in `dir` (created exclusively,
/// so an existing link or file of that name is never opened), which is then renamed over
/// `path`. A rename replaces the link itself, and readers never see a half-written file.
/// Every file WikiMind writes into a folder a person names (an export, an eval's report)
/// is written by this.
pub fn write_replacing(dir: &Path, path: &Path, contents: &[u8]) -> io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut attempt = 0u32;
    let (temp, mut file) = loop {
        let temp = dir.join(format!(
            ".{name}.{}-{attempt}.wikimind-tmp",
            std::process::id()
        ));
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        match options.open(&temp) {
            Ok(file) => break (temp, file),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => {
                attempt += 1;
            }
            Err(error) => return Err(error),
        }
    };
    let written = file.write_all(contents).and_then(|()| {
        drop(file);
        fs::rename(&temp, path)
    });
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// Characters that show as nothing (or reorder what follows) and so must not hide in a
/// file name: bidi embeddings, overrides, isolates and marks, zero-width spaces and joiners,
/// the byte order mark, the soft hyphen, invisible operators and tag characters.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{34f}'
            | '\u{61c}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fffb}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

/// A file stem for a title: in NFC, no path separators or characters that Windows, macOS,
/// Linux or Obsidian links reject, no invisible characters (see [`is_invisible`]), no
/// leading dots, not a reserved Windows device name, not empty.
fn file_stem(title: &str) -> String {
    let mut stem = String::new();
    for c in title.nfc() {
        if is_invisible(c) {
            continue;
        }
        let replaced = if c.is_control()
            || matches!(
                c,
                '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' | '#' | '^' | '[' | ']'
            ) {
            ' '
        } else {
            c
        };
        if replaced.is_whitespace() {
            if !stem.is_empty() && !stem.ends_with(' ') {
                stem.push(' ');
            }
        } else {
            stem.push(replaced);
        }
    }
    let mut stem = stem
        .trim_start_matches(['.', ' '])
        .trim_end_matches(['.', ' '])
        .to_owned();
    if stem.len() > MAX_STEM_BYTES {
        let mut cut = MAX_STEM_BYTES;
        while !stem.is_char_boundary(cut) {
            cut -= 1;
        }
        stem.truncate(cut);
        stem = stem.trim_end_matches(['.', ' ']).to_owned();
    }
    if stem.is_empty() {
        return "Untitled".to_owned();
    }
    // Windows reserves device names even with an extension (`CON.txt`).
    let device_len = stem.find('.').unwrap_or(stem.len());
    let device = stem[..device_len].to_ascii_uppercase();
    let reserved = matches!(device.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((device.starts_with("COM") || device.starts_with("LPT"))
            && device.len() == 4
            && device.as_bytes()[3].is_ascii_digit());
    if reserved {
        stem.insert(device_len, '_');
    }
    stem
}

/// The path (without extension) a page's file gets: [`file_stem`] of its title, or for a
/// title written as a path (`Parser/constructor`, a note told apart by its folders) each
/// part made a safe name, so the page is written in those folders. A path whose first part
/// is the export's own `sources` or `notes` folder, that has a part of only dots (`..`) or
/// none, or that has more than [`MAX_PAGE_FOLDERS`] folders, is one file name.
fn page_stem(title: &str) -> String {
    let parts: Vec<&str> = title.split('/').map(str::trim).collect();
    let reserved =
        |p: &str| p.eq_ignore_ascii_case(DIGEST_FOLDER) || p.eq_ignore_ascii_case(NOTE_FOLDER);
    if parts.len() < 2
        || parts.len() > MAX_PAGE_FOLDERS + 1
        || parts.iter().any(|p| p.trim_matches(['.', ' ']).is_empty())
        || reserved(parts[0])
    {
        return file_stem(title);
    }
    let parts: Vec<String> = parts.into_iter().map(file_stem).collect();
    if reserved(&parts[0]) {
        return file_stem(title);
    }
    parts.join("/")
}

/// The most folders a page's file is written in (see [`page_stem`]).
const MAX_PAGE_FOLDERS: usize = 8;

/// `stem`, or `stem (2)`, `stem (3)`, ... whichever is not taken yet as macOS and Windows
/// compare names (see [`name_key`]).
fn unique_stem(stem: &str, taken: &mut HashSet<String>) -> String {
    let mut candidate = stem.to_owned();
    let mut n = 2u32;
    while !taken.insert(name_key(&candidate)) {
        candidate = format!("{stem} ({n})");
        n = n.saturating_add(1);
    }
    candidate
}

/// What two file names that a case-insensitive, normalisation-insensitive file system (APFS,
/// HFS+, NTFS) treats as one have in common: each character case-folded (upper then lower
/// case, so `ς`, `Σ` and `σ` agree, and `ß` matches `ss`), in NFC. It may join names that a
/// given file system keeps apart, which only costs a ` (2)`; it never keeps apart two names
/// that one of them joins.
fn name_key(name: &str) -> String {
    let folded: String = name
        .nfd()
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .collect();
    folded.nfc().collect()
}

/// The file for a page or digest named `stem`; `digest_links` are the digest files (without
/// `.md`, relative to the export folder) listed under `## Sources`.
fn article_markdown(
    article: &ExportArticle,
    stem: &str,
    digest_links: &[(&str, &str)],
    pdf_link: &dyn Fn(&Path) -> Option<String>,
) -> String {
    let mut out = String::from("---\n");
    let _ = writeln!(out, "title: {}", yaml_string(&article.title));
    let mut aliases: Vec<String> = Vec::new();
    if stem != article.title {
        aliases.push(article.title.clone());
    }
    for alias in &article.aliases {
        if alias != stem && !aliases.contains(alias) {
            aliases.push(alias.clone());
        }
    }
    if !aliases.is_empty() {
        yaml_list(&mut out, "aliases", &aliases);
    }
    if !article.tags.is_empty() {
        yaml_list(&mut out, "tags", &article.tags);
    }
    let _ = writeln!(out, "summary: {}", yaml_string(&article.summary));
    yaml_list(&mut out, "concepts", &article.concepts);
    yaml_list(&mut out, "sources", &article.sources);
    let mix = article.confidence_mix;
    out.push_str("confidence_mix:\n");
    let _ = writeln!(out, "  sourced: {}", mix.sourced);
    let _ = writeln!(out, "  inferred: {}", mix.inferred);
    let _ = writeln!(out, "  opinion: {}", mix.opinion);
    out.push_str("---\n\n");

    let body = article.body.trim();
    if !body.is_empty() {
        out.push_str(body);
        out.push_str("\n\n");
    }
    let mut footnotes: Vec<String> = Vec::new();
    if !article.claims.is_empty() {
        out.push_str("## Key claims\n\n");
        for (i, claim) in article.claims.iter().enumerate() {
            let grounding = if claim.grounded { ", quote found" } else { "" };
            let marks: String = article
                .citations
                .get(i)
                .into_iter()
                .flatten()
                .map(|c| footnote_mark(&mut footnotes, c, pdf_link))
                .collect();
            let _ = writeln!(
                out,
                "- {} *({}{grounding})*{marks}",
                one_line(&claim.claim),
                claim.confidence.as_str()
            );
            if let Some(quote) = claim.quote.as_deref().filter(|q| !q.trim().is_empty()) {
                let _ = writeln!(out, "  > {}", one_line(quote));
            }
        }
        out.push('\n');
    }
    if !article.open_questions.is_empty() {
        out.push_str("## Open questions\n\n");
        for question in &article.open_questions {
            let _ = writeln!(out, "- {}", one_line(question));
        }
        out.push('\n');
    }
    if !digest_links.is_empty() {
        // Markdown links, not wiki links: a digest is no topic, so ingesting the export
        // again makes no link (nor wanted page) of it. Obsidian opens them all the same.
        out.push_str("## Sources\n\n");
        for (title, link) in digest_links {
            let _ = writeln!(
                out,
                "- [{}](<{link}.md>)",
                one_line(title).replace(['[', ']'], "")
            );
        }
        out.push('\n');
    }
    for (i, note) in footnotes.iter().enumerate() {
        let _ = writeln!(out, "[^{}]: {note}", i + 1);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The footnote mark (`[^2]`) of citation `c`, its footnote added to `footnotes` unless an
/// identical one is there: `Source title, p. 12`, a link to `file.pdf#page=12` when the
/// PDF lies inside the export folder.
fn footnote_mark(
    footnotes: &mut Vec<String>,
    c: &ExportCitation,
    pdf_link: &dyn Fn(&Path) -> Option<String>,
) -> String {
    let title = one_line(&c.source_title);
    let text = match &c.place {
        Some(place) => format!("{title}, {place}"),
        None => title,
    };
    let note = match c
        .pdf
        .as_ref()
        .and_then(|(path, page)| pdf_link(path).map(|link| (link, page)))
    {
        Some((link, page)) => format!("[{}](<{link}#page={page}>)", text.replace(['[', ']'], "")),
        None => text,
    };
    let at = match footnotes.iter().position(|n| *n == note) {
        Some(at) => at,
        None => {
            footnotes.push(note);
            footnotes.len() - 1
        }
    };
    format!("[^{}]", at + 1)
}

fn yaml_list(out: &mut String, key: &str, values: &[String]) {
    if values.is_empty() {
        let _ = writeln!(out, "{key}: []");
        return;
    }
    let _ = writeln!(out, "{key}:");
    for value in values {
        let _ = writeln!(out, "  - {}", yaml_string(value));
    }
}

/// A YAML double-quoted scalar: safe for any text (no type guessing, no injection).
fn yaml_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Confidence;

    fn article(title: &str) -> ExportArticle {
        ExportArticle {
            title: title.to_owned(),
            aliases: vec![],
            tags: vec![],
            summary: "A summary.".to_owned(),
            concepts: vec![],
            sources: vec![],
            digests: vec![],
            confidence_mix: ConfidenceMix::default(),
            body: "Body.".to_owned(),
            claims: vec![],
            citations: vec![],
            open_questions: vec![],
            answer: false,
        }
    }

    #[test]
    fn a_title_told_apart_by_its_folders_is_written_in_them() {
        assert_eq!(page_stem("Parser/constructor"), "Parser/constructor");
        assert_eq!(page_stem("a/b:c/Index"), "a/b c/Index");
        assert_eq!(page_stem("../../escape"), "escape");
        assert_eq!(page_stem("sources/x"), "sources x");
        assert_eq!(page_stem("TCP/"), "TCP");
    }

    #[test]
    fn file_stems_are_safe_everywhere() {
        let cases: &[(&str, &str)] = &[
            ("Rust", "Rust"),
            ("../../etc/passwd", "etc passwd"),
            (
                "a/b\\c:d*e?f\"g<h>i|j#k^l[m]n",
                "a b c d e f g h i j k l m n",
            ),
            ("  .hidden  ", "hidden"),
            ("...", "Untitled"),
            ("", "Untitled"),
            ("\u{0}\n\t", "Untitled"),
            ("CON", "CON_"),
            ("com1.txt", "com1_.txt"),
            ("Console", "Console"),
            ("Ends with dot.", "Ends with dot"),
            ("Émile  Zola\nnotes", "Émile Zola notes"),
        ];
        for (title, want) in cases {
            assert_eq!(file_stem(title), *want, "for {title:?}");
        }
        let long = file_stem(&"é".repeat(200));
        assert!(long.len() <= MAX_STEM_BYTES && long.chars().all(|c| c == 'é'));
    }

    #[test]
    fn yaml_strings_are_quoted_safely() {
        assert_eq!(yaml_string("plain"), "\"plain\"");
        assert_eq!(
            yaml_string("say \"hi\"\\\nnext: yes\t\u{7}"),
            "\"say \\\"hi\\\"\\\\\\nnext: yes\\t\\u0007\""
        );
        assert_eq!(yaml_string("---"), "\"---\"");
    }

    #[test]
    fn exports_one_file_per_article_with_front_matter_and_sections() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("vault");
        let mut first = article("Rust: a language");
        first.concepts = vec!["Memory safety".to_owned(), "Ownership \"rules\"".to_owned()];
        first.sources = vec![
            "/notes/rust.md".to_owned(),
            "https://example.com/".to_owned(),
        ];
        first.confidence_mix = ConfidenceMix {
            sourced: 1,
            inferred: 1,
            opinion: 0,
        };
        first.body = "See [[Cargo]] and [[Borrow checker|the checker]].\n".to_owned();
        first.claims = vec![
            CheckedClaim {
                claim: "Rust has\nno GC.".to_owned(),
                confidence: Confidence::Sourced,
                quote: Some("no garbage collector".to_owned()),
                grounded: true,
            },
            CheckedClaim {
                claim: "It is fast.".to_owned(),
                confidence: Confidence::Inferred,
                quote: None,
                grounded: false,
            },
        ];
        first.open_questions = vec!["What about async?".to_owned()];
        let articles = vec![
            first,
            article("rust: A Language"),
            article("../../escape"),
            article("Cargo"),
        ];

        let report = export_markdown(&out, &articles, &[]).unwrap();
        let names: Vec<String> = report
            .files
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "Rust a language.md",
                "rust A Language (2).md",
                "escape.md",
                "Cargo.md"
            ]
        );
        for file in &report.files {
            assert_eq!(file.path.parent(), Some(out.as_path()));
            assert!(file.path.is_file());
        }
        assert_eq!(
            fs::read_dir(&out).unwrap().count(),
            5,
            "four pages and the export's marker"
        );

        let text = fs::read_to_string(&report.files[0].path).unwrap();
        let want = "---\n\
            title: \"Rust: a language\"\n\
            aliases:\n  - \"Rust: a language\"\n\
            summary: \"A summary.\"\n\
            concepts:\n  - \"Memory safety\"\n  - \"Ownership \\\"rules\\\"\"\n\
            sources:\n  - \"/notes/rust.md\"\n  - \"https://example.com/\"\n\
            confidence_mix:\n  sourced: 1\n  inferred: 1\n  opinion: 0\n\
            ---\n\n\
            See [[Cargo]] and [[Borrow checker|the checker]].\n\n\
            ## Key claims\n\n\
            - Rust has no GC. *(sourced, quote found)*\n  > no garbage collector\n\
            - It is fast. *(inferred)*\n\n\
            ## Open questions\n\n\
            - What about async?\n";
        assert_eq!(text, want);

        let cargo = fs::read_to_string(&report.files[3].path).unwrap();
        assert!(
            cargo.starts_with("---\ntitle: \"Cargo\"\nsummary:"),
            "{cargo}"
        );
        assert!(cargo.contains("concepts: []\nsources: []\n"), "{cargo}");
        assert!(cargo.ends_with("---\n\nBody.\n"), "{cargo}");
    }

    #[test]
    fn pages_list_their_aliases_and_digests_which_go_to_the_sources_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut page = article("Espresso");
        page.aliases = vec!["espresso".to_owned(), "Espressos".to_owned()];
        page.tags = vec!["coffee".to_owned()];
        page.digests = vec![ArticleId(1), ArticleId(2)];
        page.sources = vec!["/notes/a.md".to_owned(), "/notes/b.md".to_owned()];
        let digests = [
            (ArticleId(1), article("Espresso")),
            (ArticleId(2), article("espresso")),
        ];

        let report = export_markdown(dir.path(), &[page], &digests).unwrap();
        let names: Vec<String> = report
            .digests
            .iter()
            .map(|f| {
                f.path
                    .strip_prefix(dir.path())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        assert_eq!(names, ["sources/Espresso.md", "sources/espresso (2).md"]);
        let text = fs::read_to_string(dir.path().join("Espresso.md")).unwrap();
        assert!(
            text.contains("aliases:\n  - \"espresso\"\n  - \"Espressos\"\n"),
            "{text}"
        );
        assert!(
            text.contains("sources:\n  - \"/notes/a.md\"\n  - \"/notes/b.md\"\n"),
            "{text}"
        );
        assert!(text.contains("tags:\n  - \"coffee\"\n"), "{text}");
        assert!(
            dir.path().join(crate::ingest::EXPORT_MARKER).is_file(),
            "ingest knows an export by its marker"
        );
        assert!(
            text.ends_with(
                "## Sources\n\n- [Espresso](<sources/Espresso.md>)\n\
                 - [espresso](<sources/espresso (2).md>)\n"
            ),
            "{text}"
        );
    }

    /// A `sources` symlink in the export folder is replaced by a folder, never followed.
    #[cfg(unix)]
    #[test]
    fn the_digest_folder_is_never_a_followed_link() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        let vault = dir.path().join("vault");
        fs::create_dir_all(&vault).unwrap();
        symlink(&outside, vault.join(DIGEST_FOLDER)).unwrap();

        export_markdown(&vault, &[], &[(ArticleId(1), article("A"))]).unwrap();
        assert_eq!(
            fs::read_dir(&outside).unwrap().count(),
            0,
            "written through"
        );
        let meta = fs::symlink_metadata(vault.join(DIGEST_FOLDER)).unwrap();
        assert!(meta.is_dir() && !meta.file_type().is_symlink());
        assert!(vault.join("sources/A.md").is_file());
    }

    /// Regression: a symlink already in the export folder was written through, so an export
    /// could overwrite (or create) a file anywhere the link pointed.
    #[cfg(unix)]
    #[test]
    fn export_never_writes_through_a_symlink() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        let victim = outside.join("victim.txt");
        fs::write(&victim, "precious").unwrap();
        let vault = dir.path().join("vault");
        fs::create_dir_all(&vault).unwrap();
        symlink(&victim, vault.join("A.md")).unwrap();
        symlink(outside.join("new.txt"), vault.join("B.md")).unwrap();

        let report = export_markdown(&vault, &[article("A"), article("B")], &[]).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            !outside.join("new.txt").exists(),
            "a dangling link was followed"
        );
        for file in &report.files {
            let meta = fs::symlink_metadata(&file.path).unwrap();
            assert!(meta.is_file() && !meta.file_type().is_symlink(), "{file:?}");
            assert!(fs::read_to_string(&file.path)
                .unwrap()
                .starts_with("---\ntitle:"));
        }
        assert_eq!(
            fs::read_dir(&vault).unwrap().count(),
            3,
            "two pages and the marker, no temporary files left"
        );
    }

    /// Regression: names equal on macOS and Windows (case folding, Unicode normalisation)
    /// were written as two files, and the second replaced the first there.
    #[test]
    fn file_names_are_unique_under_case_folding_and_normalisation() {
        let dir = tempfile::tempdir().unwrap();
        let titles = [
            "caf\u{e9}",
            "cafe\u{301}",
            "ΟΔΟΣ",
            "οδοσ",
            "Straße",
            "STRASSE",
            "Kelvin",
            "\u{212a}elvin",
        ];
        let articles: Vec<ExportArticle> = titles.iter().map(|t| article(t)).collect();
        let report = export_markdown(dir.path(), &articles, &[]).unwrap();
        let names: Vec<String> = report
            .files
            .iter()
            .map(|f| f.path.file_name().unwrap().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "caf\u{e9}.md",
                "caf\u{e9} (2).md",
                "ΟΔΟΣ.md",
                "οδοσ (2).md",
                "Straße.md",
                "STRASSE (2).md",
                "Kelvin.md",
                "Kelvin (2).md",
            ]
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            titles.len() + 1,
            "one file per title, and the marker"
        );
        // The title as given stays findable as an alias when the name had to change.
        let nfd = fs::read_to_string(&report.files[1].path).unwrap();
        assert!(nfd.contains("aliases:\n  - \"cafe\u{301}\""), "{nfd}");
    }

    /// Regression: bidi overrides and other invisible characters survived into file names,
    /// so `evil\u{202e}dm.exe` showed as `evilexe.md`.
    #[test]
    fn invisible_controls_are_stripped_from_file_names() {
        let cases: &[(&str, &str)] = &[
            ("evil\u{202e}dm.exe", "evildm.exe"),
            ("a\u{202a}b\u{202b}c\u{202c}d\u{202d}e", "abcde"),
            ("\u{2066}iso\u{2067}late\u{2068}d\u{2069}", "isolated"),
            (
                "zero\u{200b}width\u{200c}\u{200d}\u{2060}\u{feff}",
                "zerowidth",
            ),
            ("marks\u{200e}\u{200f}\u{61c}", "marks"),
            ("\u{85}next\u{9f}line", "next line"),
            ("\u{202e}\u{200b}", "Untitled"),
        ];
        for (title, want) in cases {
            assert_eq!(file_stem(title), *want, "for {title:?}");
        }
    }

    #[test]
    fn exporting_into_an_unwritable_place_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        fs::write(&file, "x").unwrap();
        let error = export_markdown(file.join("sub"), &[article("A")], &[]).unwrap_err();
        assert!(error.to_string().contains("a-file"), "{error}");
    }

    mod hostile {
        use proptest::prelude::*;

        use super::*;
        use crate::hostile_text;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]

            /// The stem is cut to a byte budget.
            #[test]
            fn any_title_gets_a_short_safe_stem(title in hostile_text::text(200)) {
                let stem = file_stem(&title);
                prop_assert!(!stem.is_empty());
                prop_assert!(stem.len() <= MAX_STEM_BYTES + 1, "{} bytes", stem.len());
                prop_assert!(!stem.contains(['/', '\\', ':', '|', '[', ']']));
                prop_assert!(!stem.starts_with('.') && !stem.ends_with(['.', ' ']));
            }

            /// A page's path never leaves the export: every part is a safe stem.
            #[test]
            fn any_title_gets_a_safe_page_path(title in hostile_text::text(200)) {
                let path = page_stem(&title);
                let parts: Vec<&str> = path.split('/').collect();
                prop_assert!(parts.len() <= MAX_PAGE_FOLDERS + 1);
                for part in parts {
                    prop_assert!(!part.is_empty() && !part.starts_with('.'));
                    prop_assert!(!part.contains(['\\', ':', '|', '[', ']']));
                }
            }
        }
    }
}
