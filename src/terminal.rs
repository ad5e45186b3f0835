//! Text for a terminal: what WikiMind prints for people carries titles, bodies, claims and
//! reasons that came from model answers, files and web pages, any of which may hold
//! control characters. Printed raw, `ESC ] 0 ;` sets the window title, `ESC ] 52 ;` writes
//! the clipboard, `ESC [ 2 J` clears the screen, and a bidi override (U+202E) makes text
//! read other than it is.
//!
//! The rule: line feeds and tabs pass; every other control character (C0, DEL, C1) and
//! every bidi embedding, override or isolate is shown as a visible escape (`\u{1b}`), so
//! nothing is lost and nothing acts. A carriage return followed by a line feed is a line
//! ending and passes as one. JSON output does not go through this (it stays exact JSON).

use std::borrow::Cow;
use std::io::{self, Write};

/// `text` made safe to print: see the [module docs](self) for the rule.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) && !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if c == '\r' || needs_escape(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` acts on a terminal (or reorders text) instead of showing.
fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\r' => false,               // decided by what follows it
        c if c.is_control() => true, // C0, DEL and C1
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => true,
        '\u{061C}' => true, // the Arabic letter mark, a bidi control
        _ => false,
    }
}

/// A writer that passes everything written through [`printable`], for a shell's human
/// output. Bytes that are not UTF-8 are shown as U+FFFD; a character split across two
/// writes is held until it is whole.
pub struct Printable<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Printable<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Printable<W> {
        Printable {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for Printable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        // Keep back an incomplete character at the end (at most three bytes), and a
        // trailing carriage return, which only the next byte can decide.
        let mut whole = self.pending.len();
        match std::str::from_utf8(&self.pending) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() => whole = e.valid_up_to(),
            Err(_) => {}
        }
        if whole > 0 && self.pending[whole - 1] == b'\r' {
            whole -= 1;
        }
        let ready: Vec<u8> = self.pending.drain(..whole).collect();
        let text = String::from_utf8_lossy(&ready);
        self.inner.write_all(printable(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for Printable<W> {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let text = String::from_utf8_lossy(&self.pending).into_owned();
            let _ = self.inner.write_all(printable(&text).as_bytes());
            let _ = self.inner.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_that_act_on_a_terminal_are_shown_not_sent() {
        let cases = [
            ("\u{1b}]0;pwned\u{7}Title", "\\u{1b}]0;pwned\\u{7}Title"),
            ("\u{1b}]52;c;ZXZpbA==\u{7}", "\\u{1b}]52;c;ZXZpbA==\\u{7}"),
            ("\u{1b}[2J", "\\u{1b}[2J"),
            ("\u{9b}31m", "\\u{9b}31m"),
            ("abc\u{202E}fdp.exe", "abc\\u{202e}fdp.exe"),
            ("x\u{2066}y\u{2069}", "x\\u{2066}y\\u{2069}"),
            ("over\rwrite", "over\\u{d}write"),
            ("del\u{7f}", "del\\u{7f}"),
        ];
        for (raw, shown) in cases {
            assert_eq!(printable(raw), shown, "{raw:?}");
        }
    }

    #[test]
    fn ordinary_text_passes_untouched() {
        for text in [
            "Espresso — nine bars, « crème », 珈琲 ☕",
            "two\nlines\twith a tab",
            "",
        ] {
            assert!(matches!(printable(text), Cow::Borrowed(_)), "{text:?}");
        }
        assert_eq!(printable("windows\r\nline"), "windows\nline");
    }

    #[test]
    fn the_writer_holds_a_character_split_across_writes() {
        let mut out = Vec::new();
        {
            let mut w = Printable::new(&mut out);
            let text = "é\u{202E}\u{1b}[31m\r";
            for b in text.as_bytes() {
                w.write_all(std::slice::from_ref(b)).unwrap();
            }
            w.write_all(b"\n").unwrap();
            w.write_all(&[0xff, b'x']).unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "é\\u{202e}\\u{1b}[31m\n\u{fffd}x"
        );
    }
}
