//! Arbitrary text as the word boxes `pdftotext -bbox-layout` prints: markdown whose page
//! ranges lie on character boundaries inside it, or an error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind_documents::pdf::markdown_from_word_boxes;

fuzz_target!(|data: &[u8]| {
    let xhtml = String::from_utf8_lossy(data);
    let _ = markdown_from_word_boxes(&xhtml);
});
