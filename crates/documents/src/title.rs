//! A document's own title: the metadata title unless it is generic, then the first
//! heading, then the file name. A junk title ("Untitled", "Microsoft Word - Document1", a
//! file name) must not become a topic under which strangers merge.

use wikimind_text::markdown::clean_title;

/// Extensions a metadata title that is really a file name ends with.
const FILE_EXTENSIONS: &[&str] = &[
    "pdf", "doc", "docx", "dot", "dotx", "odt", "rtf", "txt", "tex", "dvi", "ps", "eps", "epub",
    "html", "htm", "xhtml", "md", "indd", "pages", "ppt", "pptx", "xls", "xlsx", "qxd", "pub",
    "wpd", "fm",
];

/// Whole titles (after lower-casing and trimming) that say nothing.
const GENERIC: &[&str] = &[
    "untitled",
    "untitled document",
    "no title",
    "title",
    "document",
    "unknown",
    "none",
    "null",
    "anonymous",
    "blank",
    "new document",
    "book",
    "ebook",
    "cover",
    "default",
];

/// Whether a metadata title says nothing of the document: blank, a placeholder
/// ("Untitled", "Document1", "Microsoft Word - …"), a file name (`report_v2.docx`), or the
/// file's own stem.
pub fn is_generic_title(title: &str, file_stem: Option<&str>) -> bool {
    let lower = title.trim().to_lowercase();
    if lower.is_empty() || !lower.chars().any(char::is_alphanumeric) {
        return true;
    }
    if GENERIC.contains(&lower.as_str()) {
        return true;
    }
    // "Document1", "Untitled-3", "untitled document 2".
    let without_digits =
        lower.trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ' || c == '-' || c == '_');
    if without_digits != lower && GENERIC.contains(&without_digits) {
        return true;
    }
    // What Word's "Print to PDF" and Acrobat write: "Microsoft Word - report.docx".
    for prefix in [
        "microsoft word - ",
        "microsoft powerpoint - ",
        "microsoft excel - ",
    ] {
        if lower.starts_with(prefix) {
            return true;
        }
    }
    if let Some((_, extension)) = lower.rsplit_once('.') {
        if FILE_EXTENSIONS.contains(&extension) && !lower.contains(' ') {
            return true;
        }
        if FILE_EXTENSIONS.contains(&extension) && (lower.contains('/') || lower.contains('\\')) {
            return true;
        }
    }
    if let Some(stem) = file_stem {
        let stem = stem.trim().to_lowercase();
        if !stem.is_empty()
            && (lower == stem || lower.replace(['_', '-'], " ") == stem.replace(['_', '-'], " "))
        {
            return true;
        }
    }
    false
}

/// A document's own title: `metadata` unless generic, then `first_heading`, then the file
/// stem; each cleaned ([`clean_title`]).
pub fn own_title(
    metadata: Option<&str>,
    first_heading: Option<&str>,
    file_stem: Option<&str>,
) -> Option<String> {
    metadata
        .filter(|title| !is_generic_title(title, file_stem))
        .and_then(clean_title)
        .or_else(|| first_heading.and_then(clean_title))
        .or_else(|| file_stem.and_then(clean_title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_titles_give_way() {
        // (metadata title, first heading, file stem, the title wanted)
        type Case<'a> = (
            Option<&'a str>,
            Option<&'a str>,
            Option<&'a str>,
            Option<&'a str>,
        );
        let cases: &[Case] = &[
            (
                Some("Field Notes on Rivers"),
                Some("Intro"),
                Some("notes"),
                Some("Field Notes on Rivers"),
            ),
            (
                Some("Microsoft Word - Document1"),
                Some("Minutes"),
                Some("m"),
                Some("Minutes"),
            ),
            (
                Some("Untitled"),
                Some("Harbour"),
                Some("h"),
                Some("Harbour"),
            ),
            (
                Some("untitled document 2"),
                Some("Harbour"),
                None,
                Some("Harbour"),
            ),
            (Some("Document1"), None, Some("report"), Some("report")),
            (
                Some("report_v2.docx"),
                Some("Annual Report"),
                None,
                Some("Annual Report"),
            ),
            (
                Some("C:\\Users\\me\\thesis final.doc"),
                Some("Thesis"),
                None,
                Some("Thesis"),
            ),
            (
                Some("paper-draft"),
                Some("On Rivers"),
                Some("paper-draft"),
                Some("On Rivers"),
            ),
            (Some("   "), None, Some("stem"), Some("stem")),
            (Some("—"), None, None, None),
            (None, None, None, None),
            // A real title that merely mentions a format is kept.
            (
                Some("Reading PDF files. A guide"),
                None,
                None,
                Some("Reading PDF files. A guide"),
            ),
            (Some("Book of Days"), None, None, Some("Book of Days")),
        ];
        for (metadata, heading, stem, want) in cases {
            assert_eq!(
                own_title(*metadata, *heading, *stem).as_deref(),
                *want,
                "{metadata:?} {heading:?} {stem:?}"
            );
        }
    }
}
