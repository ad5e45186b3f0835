//! Export: the wiki as a folder of Obsidian-friendly markdown files.
//!
//! One `.md` file per article, named from its title, with YAML front matter (title, aliases,
//! summary, concepts, sources, confidence mix), the body with its `[[wiki links]]` as written,
//! then `## Key claims` and `## Open questions`. Titles are untrusted model output, so file
//! names are sanitised for every common file system and can never leave the export folder.
//! When the file name had to differ from the title, the title is listed under `aliases`,
//! which Obsidian uses to resolve `[[Title]]` links to the file.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::contract::CheckedClaim;

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

/// One article to export.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportArticle {
    /// The article title.
    pub title: String,
    /// The summary.
    pub summary: String,
    /// Concept names.
    pub concepts: Vec<String>,
    /// Origins of the sources the article was compiled from.
    pub sources: Vec<String>,
    /// How the article's claims are supported.
    pub confidence_mix: ConfidenceMix,
    /// The body in markdown, with `[[wiki links]]`.
    pub body: String,
    /// The key claims after grounding.
    pub claims: Vec<CheckedClaim>,
    /// Questions the sources leave open.
    pub open_questions: Vec<String>,
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
    /// The files, in the order of the articles given.
    pub files: Vec<ExportedFile>,
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

/// Writes one markdown file per article into `dir` (created if missing). Files with the same
/// names are overwritten, so exporting again refreshes the folder; other files are left
/// alone. File names are unique within one export, compared case-insensitively.
pub fn export_markdown(
    dir: impl AsRef<Path>,
    articles: &[ExportArticle],
) -> Result<ExportReport, ExportError> {
    let dir = dir.as_ref();
    fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut taken: HashSet<String> = HashSet::new();
    let mut report = ExportReport::default();
    for article in articles {
        let stem = unique_stem(&file_stem(&article.title), &mut taken);
        let path = dir.join(format!("{stem}.md"));
        let contents = article_markdown(article, &stem);
        fs::write(&path, contents).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        report.files.push(ExportedFile {
            title: article.title.clone(),
            path,
        });
    }
    Ok(report)
}

/// A file stem for a title: no path separators or characters that Windows, macOS, Linux or
/// Obsidian links reject, no leading dots, not a reserved Windows device name, not empty.
fn file_stem(title: &str) -> String {
    let mut stem = String::new();
    for c in title.chars() {
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

/// `stem`, or `stem (2)`, `stem (3)`, ... whichever is not taken yet (case-insensitively).
fn unique_stem(stem: &str, taken: &mut HashSet<String>) -> String {
    let mut candidate = stem.to_owned();
    let mut n = 2u32;
    while !taken.insert(candidate.to_lowercase()) {
        candidate = format!("{stem} ({n})");
        n = n.saturating_add(1);
    }
    candidate
}

fn article_markdown(article: &ExportArticle, stem: &str) -> String {
    let mut out = String::from("---\n");
    let _ = writeln!(out, "title: {}", yaml_string(&article.title));
    if stem != article.title {
        out.push_str("aliases:\n");
        let _ = writeln!(out, "  - {}", yaml_string(&article.title));
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
    if !article.claims.is_empty() {
        out.push_str("## Key claims\n\n");
        for claim in &article.claims {
            let grounding = if claim.grounded { ", quote found" } else { "" };
            let _ = writeln!(
                out,
                "- {} *({}{grounding})*",
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
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Whitespace (newlines included) collapsed, so a list item stays one item.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
            summary: "A summary.".to_owned(),
            concepts: vec![],
            sources: vec![],
            confidence_mix: ConfidenceMix::default(),
            body: "Body.".to_owned(),
            claims: vec![],
            open_questions: vec![],
        }
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

        let report = export_markdown(&out, &articles).unwrap();
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
        assert_eq!(fs::read_dir(&out).unwrap().count(), 4);

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
    fn exporting_into_an_unwritable_place_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        fs::write(&file, "x").unwrap();
        let error = export_markdown(file.join("sub"), &[article("A")]).unwrap_err();
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
        }
    }
}
