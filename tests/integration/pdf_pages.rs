//! PDFs an older build stored without their pages (before `source_pages`): the `pdf-pages`
//! backfill reads them again so their citations say their page.

use wikimind::contract::{CheckedClaim, Confidence};
use wikimind::ingest::{ingest_path, IngestOptions};
use wikimind::store::{SourceId, Store};

use crate::seed::{add, result, save_with_claims};

/// Whether Poppler's `pdftotext` is missing here (never under CI, where scripts/setup.sh
/// installs it: a test that needs it fails there rather than skipping).
fn poppler_missing() -> bool {
    if wikimind_documents::pdf::available() {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "poppler-utils is needed (scripts/setup.sh)"
    );
    eprintln!("SKIPPED: poppler-utils is not installed");
    true
}

/// The fixture PDF of five pages labelled i, ii, 1, 2, 3, copied to `dir/name`; its text
/// as ingest reads it, and its origin.
fn pdf_copy(dir: &std::path::Path, name: &str) -> (String, String) {
    let path = dir.join(name);
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/documents/tests/data/page-labels.pdf"),
        &path,
    )
    .expect("copy");
    let read = ingest_path(&path, &IngestOptions::default()).expect("read");
    let source = read.sources.into_iter().next().expect("one source");
    assert_eq!(source.pages.len(), 5, "the fixture has five pages");
    (source.origin, source.text)
}

/// The quote's citations in `source`: (page, label).
fn cited_page(store: &Store, source: SourceId, quote: &str) -> Vec<(Option<u32>, Option<String>)> {
    store
        .citations(&[(vec![source], Some(quote.to_owned()))])
        .expect("citations")
        .remove(0)
        .into_iter()
        .map(|c| (c.page, c.page_label))
        .collect()
}

/// A PDF stored as a build before pages were kept stored it (its text, no pages): the
/// backfill reads the file again, records its pages, and its claim's citation says "p. ii";
/// a PDF gone from its path and one changed since it was read are named in the notice and
/// kept as they are. Done once.
#[test]
fn the_pdf_pages_backfill_gives_pdfs_of_older_builds_their_pages() {
    if poppler_missing() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    let store = Store::open(&dir.path().join("wikimind.db")).expect("open");
    let (origin, text) = pdf_copy(dir.path(), "labels.pdf");
    let (gone_origin, gone_text) = pdf_copy(dir.path(), "gone.pdf");
    let (changed_origin, _) = pdf_copy(dir.path(), "changed.pdf");
    let source = add(&store, &origin, &text);
    let gone = add(&store, &gone_origin, &gone_text);
    let changed = add(&store, &changed_origin, "What an older reader made of it.");
    std::fs::remove_file(&gone_origin).expect("remove");
    let quote = "PHYS2 garden field";
    let claim = CheckedClaim {
        claim: "Page two names a garden.".to_owned(),
        confidence: Confidence::Sourced,
        quote: Some(quote.to_owned()),
        grounded: true,
    };
    save_with_claims(
        &store,
        source,
        &result("Labels", "b"),
        std::slice::from_ref(&claim),
        &[],
    );
    save_with_claims(&store, gone, &result("Gone", "b"), &[claim], &[]);
    assert_eq!(cited_page(&store, source, quote), [(None, None)]);

    let reports = wikimind::backfill::run_backfills(&store).expect("backfill");
    let report = reports
        .iter()
        .find(|r| r.name == "pdf-pages")
        .expect("the pages backfill ran");
    assert_eq!((report.checked, report.changed), (3, 1));
    let notice = report.notice().expect("a notice");
    assert!(notice.contains("read the pages of 1 PDFs"), "{notice}");
    assert!(notice.contains("2 could not be read as stored"), "{notice}");
    assert!(notice.contains("gone.pdf (the file is gone)"), "{notice}");
    assert!(
        notice.contains("changed.pdf (the file changed since it was read)"),
        "{notice}"
    );

    assert_eq!(store.pages_of_source(source).expect("pages").len(), 5);
    assert_eq!(
        cited_page(&store, source, quote),
        [(Some(2), Some("ii".to_owned()))]
    );
    // The others keep what they had.
    assert!(store.pages_of_source(gone).expect("pages").is_empty());
    assert!(store.pages_of_source(changed).expect("pages").is_empty());
    assert_eq!(cited_page(&store, gone, quote), [(None, None)]);

    // Done once: a second run reads nothing.
    let again = wikimind::backfill::run_backfills(&store).expect("again");
    assert!(again.iter().all(|r| r.name != "pdf-pages"), "{again:?}");
}

/// A PDF added through a wiki that reports reading progress tells its pages as they are
/// read: first none of five, then up to five of five, never going back, with the line a
/// shell shows; and last that its reading ended.
#[test]
fn adding_a_pdf_reports_its_pages_as_they_are_read() {
    use std::sync::{Arc, Mutex};
    use wikimind::ingest::{ReadingProgress, ReadingSink};
    if poppler_missing() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    pdf_copy(dir.path(), "labels.pdf");
    let pdf = dir.path().join("labels.pdf");
    let told: Arc<Mutex<Vec<ReadingProgress>>> = Arc::default();
    let sink = {
        let told = Arc::clone(&told);
        ReadingSink(Arc::new(move |p: &ReadingProgress| {
            told.lock().expect("lock").push(p.clone())
        }))
    };
    let wiki = wikimind::wiki::Wiki::open(&dir.path().join("data"))
        .expect("open")
        .with_reading_progress(sink);
    let options = wiki.ingest_options().clone();
    let added = wiki.ingest_path(&pdf, &options).expect("ingest");
    assert_eq!(added.sources.len(), 1);
    let told = told.lock().expect("lock").clone();
    let what = pdf.display().to_string();
    assert_eq!(
        told.first()
            .map(|p| (p.what.as_str(), p.pages_read, p.pages)),
        Some((what.as_str(), 0, Some(5)))
    );
    // The last report says the reading ended; the one before, every page read.
    let (last, reading) = told.split_last().expect("told");
    assert_eq!(
        (last.pages_read, last.pages, last.reading, last.line.clone()),
        (5, Some(5), false, format!("Read {what}"))
    );
    let before = reading.last().expect("reports while reading");
    assert_eq!((before.pages_read, before.pages), (5, Some(5)));
    assert_eq!(before.line, format!("Reading {what}: page 5 of 5"));
    assert!(reading.iter().all(|p| p.reading), "{told:?}");
    assert!(
        reading
            .windows(2)
            .all(|w| w[0].pages_read < w[1].pages_read),
        "{told:?}"
    );
}
