//! The readers on files written by independent libraries (reportlab, python-docx,
//! ebooklib; see tests/data/make_fixtures.py), broken and hostile ones included. The PDF
//! tests need Poppler's `pdftotext` and `qpdf` (scripts/setup.sh installs them).

use std::path::Path;

use wikimind_documents::docx::read_docx;
use wikimind_documents::epub::read_epub;
use wikimind_documents::pdf::read_pdf;
use wikimind_documents::{Document, DocumentError, Limits};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pdf(name: &str) -> Result<Document, DocumentError> {
    read_pdf(
        &fixture(name),
        Some(name.trim_end_matches(".pdf")),
        &Limits::default(),
    )
}

fn before(text: &str, a: &str, b: &str) {
    let (Some(x), Some(y)) = (text.find(a), text.find(b)) else {
        panic!("{a:?} or {b:?} missing from:\n{text}");
    };
    assert!(x < y, "{a:?} should come before {b:?} in:\n{text}");
}

#[test]
fn columns_are_read_one_after_another() {
    // The files draw their lines across the page, left column then right, line by line:
    // only a reader that orders by layout reads the columns in order.
    let one = pdf("columns-1.pdf").unwrap();
    before(&one.text, "C1L29", "C1L30");
    let two = pdf("columns-2.pdf").unwrap();
    before(&two.text, "C1L01", "C1L02");
    before(&two.text, "C1L30", "C2L01");
    before(&two.text, "C2L01", "C2L30");
    let three = pdf("columns-3.pdf").unwrap();
    before(&three.text, "C1L30", "C2L01");
    before(&three.text, "C2L30", "C3L01");
    assert!(
        three.text.starts_with("# A paper in 3 columns"),
        "{}",
        three.text
    );
    assert_eq!(three.pages.len(), 1);
    assert_eq!(three.title.as_deref(), Some("3 columns"));
}

#[test]
fn hyphenated_words_are_joined() {
    let doc = pdf("hyphenation.pdf").unwrap();
    assert!(doc.text.contains("extraordinary"), "{}", doc.text);
    assert!(doc.text.contains("discussion"), "{}", doc.text);
    assert!(doc.text.contains("well-known"), "{}", doc.text);
}

#[test]
fn running_headers_and_page_numbers_are_dropped_and_pages_kept() {
    let doc = pdf("running-headers.pdf").unwrap();
    assert!(
        !doc.text.contains("Proceedings of the Fixture Society"),
        "{}",
        doc.text
    );
    assert_eq!(doc.pages.len(), 6);
    for (i, page) in doc.pages.iter().enumerate() {
        let n = i + 1;
        assert_eq!(page.number as usize, n);
        let text = &doc.text[page.start..page.end];
        assert!(text.contains(&format!("BODY{n} ")), "page {n}: {text}");
        assert!(
            !text.lines().any(|l| l.trim() == n.to_string()),
            "page number left on page {n}: {text}"
        );
        let at = doc.text.find(&format!("BODY{n} ")).unwrap();
        assert_eq!(doc.page_at(at).unwrap().number as usize, n);
    }
}

#[test]
fn ligatures_and_accents_are_letters() {
    let doc = pdf("ligatures.pdf").unwrap();
    assert!(
        doc.text.contains("The final flow of fish was fine."),
        "{}",
        doc.text
    );
    assert!(doc.text.contains("Café naïve über"), "{}", doc.text);
}

#[test]
fn a_simple_table_is_a_pipe_table() {
    let doc = pdf("table.pdf").unwrap();
    assert!(
        doc.text.contains(
            "| Crop | Year | Tonnes |\n| --- | --- | --- |\n| Barley | 2021 | 410 |\n| Oats | 2022 | 385 |\n| Rye | 2023 | 97 |"
        ),
        "{}",
        doc.text
    );
    before(&doc.text, "Harvest by year", "| Crop");
    before(&doc.text, "| Rye", "three harvests");
}

#[test]
fn page_labels_are_read() {
    let doc = pdf("page-labels.pdf").unwrap();
    let labels: Vec<Option<&str>> = doc.pages.iter().map(|p| p.label.as_deref()).collect();
    assert_eq!(
        labels,
        [Some("i"), Some("ii"), Some("1"), Some("2"), Some("3")]
    );
    let at = doc.text.find("PHYS3").unwrap();
    let page = doc.page_at(at).unwrap();
    assert_eq!((page.number, page.label.as_deref()), (3, Some("1")));
}

#[test]
fn broken_and_hostile_pdfs_are_refused_with_the_reason() {
    let scan = pdf("scan.pdf").unwrap_err();
    assert_eq!(scan, DocumentError::NoTextLayer { pages: 2 });
    assert!(scan.to_string().contains("no OCR"), "{scan}");
    assert_eq!(pdf("encrypted.pdf").unwrap_err(), DocumentError::Encrypted);
    let truncated = pdf("truncated.pdf").unwrap_err().to_string();
    assert!(
        truncated.contains("damaged") && truncated.contains("trailer"),
        "{truncated}"
    );
    let looping = pdf("page-tree-loop.pdf").unwrap_err().to_string();
    assert!(looping.contains("page tree loops"), "{looping}");
    let text = pdf("not-a-pdf.pdf").unwrap_err().to_string();
    assert!(text.contains("not a PDF file"), "{text}");
}

#[test]
fn a_slow_pdf_is_stopped_at_the_time_limit() {
    let limits = Limits {
        timeout: std::time::Duration::ZERO,
        ..Limits::default()
    };
    let err = read_pdf(&fixture("columns-3.pdf"), None, &limits).unwrap_err();
    assert_eq!(err, DocumentError::TimedOut { seconds: 0 });
}

#[test]
fn epub_chapters_come_in_spine_order_with_their_titles() {
    let doc = read_epub(&fixture("book.epub"), Some("book"), &Limits::default()).unwrap();
    assert_eq!(doc.title.as_deref(), Some("The Lighthouse Keeper"));
    // The spine reads Departure, Arrival, The Storm (not the manifest's order).
    before(&doc.text, "# Departure", "# Arrival");
    before(&doc.text, "# Arrival", "# The Storm");
    assert!(
        doc.text.contains("He brought three crates of oil."),
        "{}",
        doc.text
    );
    assert!(
        doc.text.contains("- Wind from the west\n- Rain all night"),
        "{}",
        doc.text
    );
    assert!(doc.pages.is_empty());
    let untitled = read_epub(
        &fixture("untitled.epub"),
        Some("untitled"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(untitled.title.as_deref(), Some("Notes from the Harbour"));
}

#[test]
fn bad_epubs_are_refused_with_the_reason() {
    let limits = Limits::default();
    let err = |name: &str| {
        read_epub(&fixture(name), None, &limits)
            .unwrap_err()
            .to_string()
    };
    assert!(err("not-an-epub.epub").contains("no META-INF/container.xml"));
    assert!(err("entity-bomb.epub").contains("entity bomb"));
    assert!(err("escape.epub").contains("outside the archive"));
    assert!(err("not-a-zip.docx").contains("not a zip archive"));
}

#[test]
fn docx_headings_lists_tables_and_footnotes() {
    let doc = read_docx(
        &fixture("footnotes.docx"),
        Some("footnotes"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(doc.title.as_deref(), Some("Field Notes on Rivers"));
    let text = &doc.text;
    assert!(text.starts_with("# Field Notes on Rivers\n\n"), "{text}");
    assert!(
        text.contains("Rivers carry sediment from the hills to the sea. Bold words"),
        "{text}"
    );
    assert!(text.contains("## Measurements"), "{text}");
    assert!(
        text.contains("- First point on depth\n- Second point on speed"),
        "{text}"
    );
    assert!(text.contains("1. Step one\n1. Step two"), "{text}");
    assert!(
        text.contains("| River | Length | Mouth |\n| --- | --- | --- |\n| Rhine | 1230 | North Sea |\n| Loire | 1006 | Atlantic \\| Bay |"),
        "{text}"
    );
    assert!(
        text.contains("The Rhine is longer than the Loire.[^1]"),
        "{text}"
    );
    assert!(text.ends_with("[^1]: Measured at Basel in 2020."), "{text}");
}

#[test]
fn a_generic_docx_title_gives_way_to_the_first_heading() {
    let doc = read_docx(
        &fixture("generic-title.docx"),
        Some("generic-title"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(doc.title.as_deref(), Some("Minutes of the Garden Club"));
}

#[test]
fn hostile_docx_files_are_refused() {
    let limits = Limits::default();
    let bomb = read_docx(&fixture("zip-bomb.docx"), None, &limits).unwrap_err();
    assert_eq!(
        bomb,
        DocumentError::TooLarge {
            what: "word/document.xml once inflated".to_owned(),
            limit: limits.max_part_bytes
        }
    );
    let entities = read_docx(&fixture("entity-bomb.docx"), None, &limits)
        .unwrap_err()
        .to_string();
    assert!(
        entities.contains("word/document.xml: declares XML entities"),
        "{entities}"
    );
    let not_zip = read_docx(&fixture("not-a-zip.docx"), None, &limits)
        .unwrap_err()
        .to_string();
    assert!(not_zip.starts_with("not a DOCX file"), "{not_zip}");
    let epub_as_docx = read_docx(&fixture("book.epub"), None, &limits)
        .unwrap_err()
        .to_string();
    assert!(
        epub_as_docx.contains("no word/document.xml"),
        "{epub_as_docx}"
    );
}

/// A citation on page 2 of a five-page PDF shown as a picture: the page is rendered as a
/// PNG of the asked size, and the highlight covers the quote's words on that page only
/// (the same words stand on page 4 too), inside the image.
#[test]
fn a_quote_on_page_two_is_highlighted_on_that_page_image() {
    use wikimind_documents::pdf::{highlight_boxes, page_words, quote_words, render_page};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/page-labels.pdf");
    let limits = Limits::default();
    let image = render_page(&path, 2, 1000, &limits).unwrap();
    assert_eq!(&image.png[1..4], b"PNG");
    assert_eq!(
        image.height, 1000,
        "A4 portrait: the longer side is the height"
    );
    assert!((700..=720).contains(&image.width), "{}", image.width);

    let words = page_words(&path, 2, &limits).unwrap();
    let texts: Vec<&str> = words.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(texts[3..6], ["PHYS2", "garden", "field"], "{texts:?}");
    let chosen = quote_words(&words.words, "PHYS2 garden field", "Physical page 2: ");
    assert_eq!(chosen, vec![3, 4, 5]);
    let boxes = highlight_boxes(&words, &chosen, image.width, image.height);
    assert_eq!(boxes.len(), 1, "one line: one box");
    let b = boxes[0];
    let (w, h) = (f64::from(image.width), f64::from(image.height));
    assert!(b.x >= 0.0 && b.y >= 0.0 && b.x + b.width <= w && b.y + b.height <= h);
    // It covers the three words and neither neighbour.
    let scale = w / words.width;
    let centre = |i: usize| (words.words[i].x_min + words.words[i].x_max) / 2.0 * scale;
    for i in [3, 4, 5] {
        assert!(
            b.x < centre(i) && centre(i) < b.x + b.width,
            "word {i} covered"
        );
    }
    for i in [2, 6] {
        assert!(
            !(b.x < centre(i) && centre(i) < b.x + b.width),
            "word {i} not covered"
        );
    }
    // A quote the page does not hold finds nothing there.
    assert!(quote_words(&words.words, "PHYS4 stone market", "").is_empty());

    // A page the file does not have is refused with a reason.
    let error = render_page(&path, 9, 1000, &limits).unwrap_err();
    assert!(matches!(error, DocumentError::Broken(_)), "{error}");
}

/// Reading with progress tells the page count first (none read), then the pages read as
/// Poppler reads them, up to every page, never going back; what is read is the same.
#[test]
fn a_pdf_read_with_progress_reports_its_pages_as_they_are_read() {
    use wikimind_documents::pdf::{read_pdf_with_progress, PagesRead};
    let bytes = fixture("page-labels.pdf");
    let mut reports: Vec<PagesRead> = Vec::new();
    let read = read_pdf_with_progress(
        &bytes,
        Some("page-labels"),
        &Limits::default(),
        Some(&mut |p: PagesRead| reports.push(p)),
    )
    .unwrap();
    assert_eq!(read, pdf("page-labels.pdf").unwrap());
    assert_eq!(
        reports.first(),
        Some(&PagesRead {
            read: 0,
            pages: Some(5)
        })
    );
    assert_eq!(
        reports.last(),
        Some(&PagesRead {
            read: 5,
            pages: Some(5)
        })
    );
    assert!(
        reports.windows(2).all(|w| w[0].read < w[1].read),
        "{reports:?}"
    );
}
