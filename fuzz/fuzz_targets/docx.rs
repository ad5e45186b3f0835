//! Arbitrary bytes as a DOCX file: an error or a document, never a panic, and never more
//! text than the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind_documents::{docx::read_docx, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_part_bytes: 4 * 1024 * 1024,
        max_total_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    };
    if let Ok(doc) = read_docx(data, Some("fuzz"), &limits) {
        assert!(doc.text.len() <= limits.max_text_bytes);
        assert!(doc.title.is_some());
    }
});
