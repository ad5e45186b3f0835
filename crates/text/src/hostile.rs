//! Hostile text for property tests: every kind of whitespace, combining marks, emoji
//! sequences, CRLF and the Unicode line and paragraph separators, markdown and wiki-link
//! syntax, mixed with arbitrary characters. Code that slices text at computed byte
//! offsets is tested against it.

use proptest::prelude::*;

/// Pieces that break byte arithmetic: multibyte whitespace (`White_Space` beyond ASCII),
/// zero-width characters, combining marks, ZWJ and flag sequences, line-ending variants,
/// markdown and wiki-link syntax.
const PIECES: &[&str] = &[
    "word",
    "Wörter",
    "漢字",
    "e\u{301}\u{302}",
    "👍🏽",
    "👨\u{200D}👩\u{200D}👧",
    "🇫🇷",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r\n\r\n",
    "\u{B}",
    "\u{C}",
    "\r",
    "\u{85}",
    "\u{A0}",
    "\u{1680}",
    "\u{2000}",
    "\u{2003}",
    "\u{2009}",
    "\u{200A}",
    "\u{2028}",
    "\u{2029}",
    "\u{202F}",
    "\u{205F}",
    "\u{3000}",
    "\u{FEFF}",
    "\u{200B}",
    ". ",
    "# Title\n",
    "## Part\n",
    "#",
    "\u{10FFFF}",
    "[[",
    "]]",
    "|",
    "**",
    "`",
    "```\n",
    "---\n",
    "…",
    "...",
    "’",
];

/// Text of up to `max_pieces` hostile pieces and arbitrary characters.
pub fn text(max_pieces: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(PIECES).prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ],
        0..max_pieces,
    )
    .prop_map(|pieces| pieces.concat())
}
