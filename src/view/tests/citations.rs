//! Citations into documents: a PDF's passage and its highlighted page image.

use super::*;

/// A PDF's digest with one sourced claim quoting page 2 of the five-page fixture: its
/// passage shows the quote in its sentence with `p. ii` and the file's title, and its page
/// image comes from the PDF with the quote's words highlighted on it, from the cache the
/// second time; a PDF gone from its path says so in the passage and refuses the image.
#[test]
fn a_pdf_citation_shows_its_passage_and_its_page_with_the_quote_highlighted() {
    use crate::contract::{CheckedClaim, CompilationResult, Confidence};
    use crate::store::{fixtures, SaveArticle};
    if !wikimind_documents::pdf::available() || !wikimind_documents::pdf::renderer_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "poppler-utils is needed (scripts/setup.sh)"
        );
        eprintln!("SKIPPED: poppler-utils is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("notes").join("page-labels.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/documents/tests/data/page-labels.pdf"),
        &pdf,
    )
    .unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let added = wiki.ingest_paths_view(&[pdf.display().to_string()]);
    assert_eq!(added.added.len(), 1, "{added:?}");
    let source = all_sources(&wiki)[0].id;
    let quote = "PHYS2 garden field";
    let result = CompilationResult {
        title: "Pages".into(),
        summary: "Five pages.".into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: "Five pages.".into(),
    };
    wiki.store()
        .save_article(&SaveArticle {
            claims: &[CheckedClaim {
                claim: "Page two names a garden.".into(),
                confidence: Confidence::Sourced,
                quote: Some(quote.into()),
                grounded: true,
            }],
            ..fixtures::digest(source, &result)
        })
        .unwrap();

    let digest = wiki
        .source_detail_view(source)
        .unwrap()
        .unwrap()
        .digest
        .unwrap();
    let passages = &digest.claims[0].passages;
    assert_eq!(passages.len(), 1, "{passages:?}");
    let p = &passages[0];
    assert_eq!(p.quote, quote);
    assert_eq!(p.before, "Physical page 2: ");
    assert!(p.after.starts_with(" meadow orchard cobalt"), "{p:?}");
    assert_eq!(p.place.as_deref(), Some("p. ii"));
    assert_eq!(p.title, "page-labels");
    assert_eq!(
        (p.pdf_page, p.page_image_problem.as_deref(), p.file_exists),
        (Some(2), None, true)
    );

    let image = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap();
    assert_eq!((image.page, image.page_label.as_deref()), (2, Some("ii")));
    assert!(image.image.starts_with("data:image/png;base64,iVBORw0KGgo"));
    assert_eq!(
        image.height, PAGE_IMAGE_SIDE,
        "A4 portrait: the height is the long side"
    );
    assert_eq!(image.boxes.len(), 1, "one line: {:?}", image.boxes);
    let b = image.boxes[0];
    assert!(b.x > 0.0 && b.y > 0.0);
    assert!(b.x + b.width < f64::from(image.width) && b.y + b.height < f64::from(image.height));
    // The three words, not the line: it starts after "Physical page 2:" and ends before
    // "meadow" (the line runs from 60 to 385 points of the page's 595).
    let points = |x: f64| x * 595.2756 / f64::from(image.width);
    assert!((145.0..152.0).contains(&points(b.x)), "{}", points(b.x));
    assert!(
        (256.0..262.0).contains(&points(b.x + b.width)),
        "{}",
        points(b.x + b.width)
    );
    assert_eq!((image.changed, image.note.as_deref()), (false, None));
    let cached = std::fs::read_dir(dir.path().join("data/cache/page-images"))
        .unwrap()
        .count();
    assert_eq!(cached, 1, "the page is kept in the cache");
    let again = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap();
    assert_eq!(again, image, "the cached page is the same image");

    // Where pdftoppm is missing the passage still shows, and says what the page image
    // needs.
    let shown = wiki.shown_digest(source).unwrap().unwrap();
    let without = super::passages::Passages::new(&wiki)
        .assuming_renderer(false)
        .of(&shown.key_claims[0].citations)
        .unwrap();
    assert_eq!(without[0].quote, quote);
    assert_eq!(without[0].pdf_page, Some(2));
    let problem = without[0].page_image_problem.as_deref().unwrap();
    assert!(
        problem.contains("poppler-utils") && problem.contains("pdftoppm"),
        "{problem}"
    );

    // A range that is not in the text is refused with a reason.
    let error = wiki.citation_page_image(source, 0, 1 << 30).unwrap_err();
    assert!(error.to_string().contains("not a quote"), "{error}");

    // The file gone: the passage still shows and says why there is no page image.
    std::fs::remove_file(&pdf).unwrap();
    let digest = wiki
        .source_detail_view(source)
        .unwrap()
        .unwrap()
        .digest
        .unwrap();
    let p = &digest.claims[0].passages[0];
    assert_eq!(p.quote, quote);
    assert!(!p.file_exists);
    assert!(
        p.page_image_problem
            .as_deref()
            .unwrap()
            .contains("no longer at"),
        "{p:?}"
    );
    let error = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap_err();
    assert!(error.to_string().contains("no longer at"), "{error}");
}
