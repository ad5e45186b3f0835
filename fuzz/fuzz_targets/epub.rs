//! Arbitrary bytes as an EPUB file: an error or a document, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind_documents::{epub::read_epub, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_part_bytes: 4 * 1024 * 1024,
        max_total_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    };
    if let Ok(doc) = read_epub(data, Some("fuzz"), &limits) {
        assert!(!doc.text.trim().is_empty());
        assert!(doc.title.is_some());
    }
});
