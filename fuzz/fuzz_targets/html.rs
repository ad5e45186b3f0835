//! Arbitrary text as an HTML page: readable text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind_documents::html::readable_html;

fuzz_target!(|data: &[u8]| {
    let page = String::from_utf8_lossy(data);
    let _ = readable_html(&page);
});
