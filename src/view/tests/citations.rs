//! Citations into documents: a PDF's passage and its highlighted page image.

use super::*;

/// The quote on page 2 (`ii`) of the five-page fixture.
const GARDEN: &str = "PHYS2 garden field";

/// Whether Poppler's tools are missing here (never under CI, where scripts/setup.sh
/// installs them: a test that needs them fails there rather than skipping).
fn poppler_missing() -> bool {
    if wikimind_documents::pdf::available() && wikimind_documents::pdf::renderer_available() {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "poppler-utils is needed (scripts/setup.sh)"
    );
    eprintln!("SKIPPED: poppler-utils is not installed");
    true
}

/// The five-page fixture PDF (pages labelled i, ii, 1, 2, 3).
fn fixture_pdf() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/documents/tests/data/page-labels.pdf")
}

/// Saves a digest of `source` with one sourced claim quoting [`GARDEN`], and returns the
/// digest as the window shows it.
fn cite_page_two(wiki: &Wiki, source: crate::store::SourceId) -> crate::view::DigestView {
    use crate::contract::{CheckedClaim, Confidence};
    use crate::store::{fixtures, SaveArticle};
    let result = fixtures::result("Pages", "Five pages.");
    wiki.store()
        .save_article(&SaveArticle {
            claims: &[CheckedClaim {
                claim: "Page two names a garden.".into(),
                confidence: Confidence::Sourced,
                quote: Some(GARDEN.into()),
                grounded: true,
            }],
            ..fixtures::digest(source, &result)
        })
        .unwrap();
    wiki.source_detail_view(source)
        .unwrap()
        .unwrap()
        .digest
        .unwrap()
}

/// A PDF's digest with one sourced claim quoting page 2 of the five-page fixture: its
/// passage shows the quote in its sentence with `p. ii` and the file's title, and its page
/// image comes from the PDF with the quote's words highlighted on it, from the cache the
/// second time; a PDF gone from its path says so in the passage and refuses the image.
#[test]
fn a_pdf_citation_shows_its_passage_and_its_page_with_the_quote_highlighted() {
    if poppler_missing() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("notes").join("page-labels.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    std::fs::copy(fixture_pdf(), &pdf).unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let added = wiki.ingest_paths_view(&[pdf.display().to_string()]);
    assert_eq!(added.added.len(), 1, "{added:?}");
    let source = all_sources(&wiki)[0].id;
    let quote = GARDEN;
    let digest = cite_page_two(&wiki, source);
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

/// Serves `body` as `application/pdf` to one request on a local port; returns its URL.
fn serve_pdf_once(body: Vec<u8>) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut request = Vec::new();
        let mut buf = [0u8; 1024];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => request.extend_from_slice(&buf[..n]),
            }
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&body);
    });
    format!("http://{address}/papers/page-labels.pdf")
}

/// A PDF read from a URL has no file to show its pages from: the wiki keeps a copy of
/// what it downloaded, so a citation's page shows as an image with the quote highlighted,
/// as for a file; the copy goes with the source.
#[test]
fn a_downloaded_pdf_shows_a_citations_page_from_the_copy_the_wiki_keeps() {
    if poppler_missing() {
        return;
    }
    let bytes = std::fs::read(fixture_pdf()).unwrap();
    let url = serve_pdf_once(bytes.clone());
    let dir = tempfile::tempdir().unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let options = wiki.ingest_options().clone();
    let added = runtime.block_on(wiki.ingest_url(&url, &options)).unwrap();
    let source = added.sources[0].source_id;
    let copy = dir
        .path()
        .join("data/documents")
        .join(format!("source-{source}.pdf"));
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        bytes,
        "the copy is what was read"
    );

    let digest = cite_page_two(&wiki, source);
    let p = &digest.claims[0].passages[0];
    assert_eq!(
        (p.quote.as_str(), p.place.as_deref()),
        (GARDEN, Some("p. ii"))
    );
    assert_eq!(
        (p.pdf_page, p.page_image_problem.as_deref(), p.file_exists),
        (Some(2), None, true)
    );
    let image = wiki
        .citation_page_image(source, p.start as usize, p.end as usize)
        .unwrap();
    assert_eq!((image.page, image.page_label.as_deref()), (2, Some("ii")));
    assert_eq!(image.boxes.len(), 1, "the quote's line: {:?}", image.boxes);
    assert_eq!((image.changed, image.note.as_deref()), (false, None));
    assert_eq!(wiki.cited_pdf(source).unwrap(), copy);

    assert!(wiki.remove_source(source).unwrap());
    assert!(!copy.exists(), "the copy goes with its source");
}
