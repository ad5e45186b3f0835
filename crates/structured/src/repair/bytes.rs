//! Byte classes and searches the reader is built on.

pub(crate) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// A byte of a bare word: letters, digits, `_`, `$`, and any non-ASCII byte.
pub(crate) fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// A byte that closes a container (`)` closes a Python tuple).
pub(crate) fn is_closer(c: u8) -> bool {
    matches!(c, b'}' | b']' | b')')
}

pub(crate) fn printable(c: u8) -> String {
    if c.is_ascii_graphic() {
        (c as char).to_string()
    } else {
        format!("\\x{c:02x}")
    }
}

/// The index of the first `needle` byte in `hay`.
pub(crate) fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

/// The index of the first occurrence of `needle` in `hay`.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    let first = needle[0];
    let mut from = 0;
    while let Some(i) = memchr(first, &hay[from..]) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The length of an ellipsis (`...` or `…`) at `i`, if one is there.
pub(crate) fn ellipsis_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i..)?;
    if rest.starts_with(b"...") {
        Some(3 + rest[3..].iter().take_while(|&&c| c == b'.').count())
    } else if rest.starts_with("…".as_bytes()) {
        Some("…".len())
    } else {
        None
    }
}

/// The length of a non-ASCII space at `i` (no-break, ideographic, en/em spaces, BOM…).
pub(crate) fn unicode_space_at(src: &str, i: usize) -> Option<usize> {
    if src.as_bytes().get(i).is_none_or(|&c| c < 0x80) {
        return None;
    }
    let c = src.get(i..)?.chars().next()?;
    matches!(
        c,
        '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
    .then(|| c.len_utf8())
}
