//! Arbitrary text and budgets through the chunker. Nothing may panic; the chunks must cover
//! the text exactly, start and end on characters, and repeat at most `overlap` bytes of
//! the previous chunk, starting just after whitespace when there is any to start after.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikimind::compile::chunk::split;

fuzz_target!(|data: &[u8]| {
    let Some((budgets, text)) = data.split_first_chunk::<4>() else {
        return;
    };
    let max_bytes = usize::from(u16::from_le_bytes([budgets[0], budgets[1]]));
    let overlap = usize::from(u16::from_le_bytes([budgets[2], budgets[3]]));
    let text = String::from_utf8_lossy(text);
    let chunks = split(&text, max_bytes, overlap);
    let overlap = overlap.min(max_bytes.max(64) / 4);
    assert!(!chunks.is_empty());
    assert_eq!(chunks[0].start, 0);
    assert_eq!(chunks.last().map(|c| c.end), Some(text.len()));
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.index, i);
        assert!(c.start <= c.end);
        assert_eq!(c.text(&text).len(), c.end - c.start);
    }
    for pair in chunks.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(a.end < b.end && a.start <= b.start && b.start <= a.end);
        let repeated = &text[b.start..a.end];
        assert!(repeated.len() <= overlap);
        if !repeated.is_empty() {
            assert!(
                text[..b.start].ends_with(char::is_whitespace)
                    || !repeated.contains(char::is_whitespace) && repeated.len() + 3 >= overlap
            );
        }
    }
});
