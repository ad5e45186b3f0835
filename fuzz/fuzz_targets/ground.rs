//! Arbitrary source and quote through grounding: the indexed matcher must not panic and
//! must agree with the core's plain reference matcher (`ground::reference`, quadratic, so
//! only fine on fuzz-sized input).
//! The input is the source, a 0xFF byte (never in UTF-8), then the quote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind::compile::ground::reference;
use wikimind::compile::GroundingIndex;

fuzz_target!(|data: &[u8]| {
    let (source, quote) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &data[data.len() / 2..]),
    };
    let source = String::from_utf8_lossy(source);
    let quote = String::from_utf8_lossy(quote);
    let index = GroundingIndex::new(&source);
    assert_eq!(
        index.contains(&quote),
        reference::contains(&source, &quote),
        "source {source:?}, quote {quote:?}"
    );
});
