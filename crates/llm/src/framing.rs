//! Cutting a byte stream into protocol frames: NDJSON lines (Ollama) and server-sent events
//! (OpenAI). Both work on bytes and decode a frame only once it is complete, so a
//! multi-byte UTF-8 character split across network chunks is decoded correctly; invalid
//! UTF-8 becomes U+FFFD instead of an error. Frames larger than a limit are refused, so a
//! hostile server cannot make the buffer grow without bound.

/// The largest frame accepted (a streamed answer chunk is a few bytes; a non-streamed
/// answer is one frame and can be large).
pub(crate) const MAX_FRAME: usize = 32 * 1024 * 1024;

/// A frame grew past [`MAX_FRAME`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FrameTooLarge;

/// Splits bytes into lines ending in `\n` (a trailing `\r` is dropped).
#[derive(Debug, Default)]
pub(crate) struct LineSplitter {
    buf: Vec<u8>,
}

impl LineSplitter {
    /// Adds bytes and returns every line they complete.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, FrameTooLarge> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            self.buf.extend_from_slice(&rest[..pos]);
            lines.push(take_line(&mut self.buf));
            rest = &rest[pos + 1..];
        }
        self.buf.extend_from_slice(rest);
        if self.buf.len() > MAX_FRAME {
            return Err(FrameTooLarge);
        }
        Ok(lines)
    }

    /// The unterminated last line, if any (call at the end of the stream).
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.buf.is_empty() {
            None
        } else {
            Some(take_line(&mut self.buf))
        }
    }
}

fn take_line(buf: &mut Vec<u8>) -> String {
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    let line = String::from_utf8_lossy(buf).into_owned();
    buf.clear();
    line
}

/// Decodes a `text/event-stream` into the `data` of each event.
///
/// Follows the WHATWG rules: lines end in `\n`, `\r\n` or `\r`; lines starting with `:` are
/// comments; `data:` lines of one event are joined with `\n`; a blank line ends the event;
/// other fields (`event`, `id`, `retry`) are ignored. One leniency: servers that forget the
/// blank line between events still work, because a `data:` line that follows a complete
/// JSON value starts a new event.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    line: Vec<u8>,
    after_cr: bool,
    data: Option<String>,
}

impl SseDecoder {
    /// Adds bytes and returns the data of every event they complete.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, FrameTooLarge> {
        let mut events = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue; // the \n of a \r\n pair
                }
            }
            match b {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                _ => self.line.push(b),
            }
        }
        let pending = self.line.len() + self.data.as_ref().map_or(0, String::len);
        if pending > MAX_FRAME {
            return Err(FrameTooLarge);
        }
        Ok(events)
    }

    /// The data of an event the stream ended in without a blank line, if any.
    pub(crate) fn finish(&mut self) -> Option<String> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.end_line(&mut events);
        events.pop()
    }

    fn end_line(&mut self, events: &mut Vec<String>) {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                events.push(data);
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        if field != "data" {
            return;
        }
        match &mut self.data {
            Some(data)
                if !data.is_empty()
                    && serde_json::from_str::<serde::de::IgnoredAny>(data).is_ok() =>
            {
                events.push(std::mem::replace(data, value.to_string()));
            }
            Some(data) => {
                data.push('\n');
                data.push_str(value);
            }
            None => self.data = Some(value.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the input one byte at a time, then whole, and checks both give `expected`.
    fn sse(input: &[u8]) -> Vec<String> {
        let mut whole = SseDecoder::default();
        let mut a = whole.push(input).unwrap();
        a.extend(whole.finish());
        let mut bytewise = SseDecoder::default();
        let mut b = Vec::new();
        for byte in input {
            b.extend(bytewise.push(std::slice::from_ref(byte)).unwrap());
        }
        b.extend(bytewise.finish());
        assert_eq!(a, b, "chunking changed the events");
        a
    }

    #[test]
    fn sse_events_in_every_line_ending() {
        let cases: &[(&[u8], &[&str])] = &[
            (
                b"data: {\"a\":1}\n\ndata: [DONE]\n\n",
                &["{\"a\":1}", "[DONE]"],
            ),
            (
                b"data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n",
                &["{\"a\":1}", "[DONE]"],
            ),
            (b"data: {\"a\":1}\r\rdata: x\r\r", &["{\"a\":1}", "x"]),
            (
                b": keep-alive\n\nevent: message\nid: 3\ndata:{\"b\":2}\n\n",
                &["{\"b\":2}"],
            ),
            (b"data: {\"a\":\ndata: 1}\n\n", &["{\"a\":\n1}"]),
            (
                b"data: {\"a\":1}\ndata: {\"a\":2}\n",
                &["{\"a\":1}", "{\"a\":2}"],
            ),
            (
                b"data: tail-without-blank-line",
                &["tail-without-blank-line"],
            ),
            (b"\n\n\n", &[]),
        ];
        for (input, expected) in cases {
            assert_eq!(
                sse(input),
                *expected,
                "input {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn utf8_split_across_chunks_is_decoded() {
        let text = "data: {\"c\":\"héllo 😀\"}\n\n".as_bytes();
        let mut d = SseDecoder::default();
        let mut events = Vec::new();
        for piece in text.chunks(3) {
            events.extend(d.push(piece).unwrap());
        }
        assert_eq!(events, vec!["{\"c\":\"héllo 😀\"}"]);

        let mut lines = LineSplitter::default();
        let mut out = Vec::new();
        for piece in "ä😀\r\nb\n".as_bytes().chunks(1) {
            out.extend(lines.push(piece).unwrap());
        }
        assert_eq!(out, vec!["ä😀", "b"]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let mut lines = LineSplitter::default();
        assert_eq!(
            lines.push(b"a\xff\xfeb\n").unwrap(),
            vec!["a\u{fffd}\u{fffd}b"]
        );
        lines.push(b"tail").unwrap();
        assert_eq!(lines.finish().as_deref(), Some("tail"));
        assert_eq!(lines.finish(), None);
    }

    #[test]
    fn endless_lines_are_refused() {
        let mut lines = LineSplitter::default();
        let big = vec![b'x'; MAX_FRAME + 1];
        assert_eq!(lines.push(&big), Err(FrameTooLarge));
        let mut sse = SseDecoder::default();
        assert_eq!(sse.push(&big), Err(FrameTooLarge));
    }
}
