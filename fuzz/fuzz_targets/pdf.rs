//! Arbitrary bytes as a PDF, through Poppler's real `pdftotext` and `qpdf` (a process per
//! input, so slow): an error or a document whose pages lie inside its text, never a panic
//! or a hang past the time limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind_documents::{pdf::read_pdf, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        timeout: std::time::Duration::from_secs(5),
        ..Limits::default()
    };
    if let Ok(doc) = read_pdf(data, None, &limits) {
        for page in &doc.pages {
            assert!(page.start <= page.end && page.end <= doc.text.len());
        }
    }
});
