//! A note's readable text: what a reader (and a model) reads of the raw markdown, with a
//! map back to the raw bytes.
//!
//! Left out: the front matter (when it parses), comments (Obsidian's `%%…%%` and HTML's
//! `<!-- … -->`), block ids (` ^abc` at a line's end) and callout markers (`[!tip]` after a
//! quote's `>`); highlights `==x==` read as `x`. Code spans and code blocks are kept exactly as written. Everything else,
//! wiki links included, is kept as it is, so a quote copied from the readable text is found
//! in the raw text by [`Readable::raw_range`].

use std::ops::Range;

/// The readable text of a note and where each of its bytes came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readable {
    /// The text.
    pub text: String,
    /// Kept runs: (start in `text`, start in the raw text, length), in order.
    runs: Vec<(usize, usize, usize)>,
}

impl Readable {
    /// The byte of the raw text that the readable text's byte `at` was read from; the end
    /// of the raw text for `at == text.len()`. `at` past the end counts as the end.
    pub fn raw_offset(&self, at: usize) -> usize {
        let at = at.min(self.text.len());
        let i = self.runs.partition_point(|&(start, _, _)| start <= at);
        match i.checked_sub(1).map(|i| self.runs[i]) {
            Some((start, raw, len)) => raw + (at - start).min(len),
            None => 0,
        }
    }

    /// The raw bytes a range of the readable text was read from (its first byte to just
    /// after its last).
    pub fn raw_range(&self, range: Range<usize>) -> Range<usize> {
        if range.is_empty() {
            let at = self.raw_offset(range.start);
            return at..at;
        }
        let start = self.raw_offset(range.start);
        let end = self.raw_offset(range.end - 1) + 1;
        start..end.max(start)
    }

    fn push(&mut self, raw: &str, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let at = self.text.len();
        match self.runs.last_mut() {
            Some((start, raw_start, len))
                if *start + *len == at && *raw_start + *len == range.start =>
            {
                *len += range.len();
            }
            _ => self.runs.push((at, range.start, range.len())),
        }
        self.text.push_str(&raw[range]);
    }
}

/// The readable text of `raw`, skipping its first `skip` bytes (the front matter, when it
/// parsed).
pub fn readable(raw: &str, skip: usize) -> Readable {
    let mut out = Readable {
        text: String::with_capacity(raw.len()),
        runs: Vec::new(),
    };
    let skip = if raw.is_char_boundary(skip) { skip } else { 0 };
    let mut fence: Option<(u8, usize)> = None;
    let mut in_comment: Option<Comment> = None;
    let mut offset = skip;
    for line in raw[skip..].split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if let Some(marker) = fence_marker(line) {
            match fence {
                None if in_comment.is_none() => fence = Some(marker),
                Some((c, n)) if c == marker.0 && marker.1 >= n && is_closing(line) => {
                    fence = None;
                    out.push(raw, start..offset);
                    continue;
                }
                _ => {}
            }
        }
        if fence.is_some() {
            out.push(raw, start..offset);
            continue;
        }
        in_comment = read_line(raw, start..offset, in_comment, &mut out);
    }
    out
}

/// A fence opening or closing line: its character and length.
fn fence_marker(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let c = *trimmed.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = trimmed.bytes().take_while(|&b| b == c).count();
    (n >= 3).then_some((c, n))
}

fn is_closing(line: &str) -> bool {
    let t = line.trim();
    t.bytes().all(|b| b == t.as_bytes()[0])
}

/// A comment, which a reader does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comment {
    /// Obsidian's `%%…%%`: left out only when it closes (an unclosed `%%` is text).
    Percent,
    /// HTML's `<!-- … -->`. Inside a line it is left out only when it closes (CommonMark's
    /// inline raw HTML); one that opens a line is an HTML block, which runs to its `-->` or,
    /// unclosed, to the end of the note — as CommonMark reads it, and as the rendered page
    /// shows it: not at all.
    Html,
}

impl Comment {
    fn closer(self) -> &'static str {
        match self {
            Comment::Percent => "%%",
            Comment::Html => "-->",
        }
    }
}

/// Reads one line outside code blocks into `out`; returns the comment still open at its
/// end, if any.
fn read_line(
    raw: &str,
    line: Range<usize>,
    mut in_comment: Option<Comment>,
    out: &mut Readable,
) -> Option<Comment> {
    let text = &raw[line.clone()];
    let base = line.start;
    let body_end = text.trim_end_matches(['\n', '\r']).len();
    let mut i = 0;
    // A callout marker after the quote markers: `> [!tip]+ Title`.
    if in_comment.is_none() {
        if let Some((keep, skip_to)) = callout(text) {
            out.push(raw, base..base + keep);
            i = skip_to;
        }
    }
    let block_id = block_id_start(&text[..body_end]);
    let end = block_id.unwrap_or(body_end);
    let mut kept_from = i;
    let bytes = text.as_bytes();
    while i < end {
        if let Some(comment) = in_comment {
            let closer = comment.closer();
            match text[i..end].find(closer) {
                Some(close) => {
                    i += close + closer.len();
                    kept_from = i;
                    in_comment = None;
                }
                None => {
                    i = end;
                    kept_from = end;
                }
            }
            continue;
        }
        match bytes[i] {
            b'`' => {
                // A code span is kept whole: find its closing run on this line.
                let run = text[i..end].bytes().take_while(|&b| b == b'`').count();
                let ticks = &text[i..i + run];
                match text[i + run..end].find(ticks) {
                    Some(close) => i += run + close + run,
                    None => i += run,
                }
            }
            b'%' if text[i..end].starts_with("%%") && comment_closes(raw, base + i + 2, "%%") => {
                out.push(raw, base + kept_from..base + i);
                in_comment = Some(Comment::Percent);
                i += 2;
            }
            b'<' if text[i..end].starts_with("<!--")
                && (text[..i].trim_start().is_empty()
                    || comment_closes(raw, base + i + 4, "-->")) =>
            {
                out.push(raw, base + kept_from..base + i);
                in_comment = Some(Comment::Html);
                i += 4;
            }
            b'=' if text[i..end].starts_with("==") => {
                // `==x==` on one line reads `x`.
                match text[i + 2..end].find("==") {
                    Some(close) if close > 0 && !text[i + 2..i + 2 + close].starts_with(' ') => {
                        out.push(raw, base + kept_from..base + i);
                        out.push(raw, base + i + 2..base + i + 2 + close);
                        i += 2 + close + 2;
                        kept_from = i;
                    }
                    _ => i += 2,
                }
            }
            _ => i += 1,
        }
        // Stay on a char boundary.
        while i < end && !text.is_char_boundary(i) {
            i += 1;
        }
    }
    if in_comment.is_none() {
        out.push(raw, base + kept_from.min(end)..base + end);
    }
    // The line break (and a `\r`) is kept, so lines stay lines, unless a comment hides it.
    if in_comment.is_none() {
        out.push(raw, base + body_end..line.end);
    }
    in_comment
}

/// Whether a comment opened at `from` closes (with `closer`) somewhere later.
fn comment_closes(raw: &str, from: usize, closer: &str) -> bool {
    raw[from..].contains(closer)
}

/// For a callout line (`>` markers then `[!type]`, optionally `+`/`-`, then a space):
/// the bytes to keep before the marker and where the text after it starts.
fn callout(line: &str) -> Option<(usize, usize)> {
    let mut i = 0;
    let bytes = line.as_bytes();
    let mut quoted = false;
    loop {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'>' {
            quoted = true;
            i += 1;
        } else {
            break;
        }
    }
    if !quoted || !line[i..].starts_with("[!") {
        return None;
    }
    let close = line[i..].find(']')? + i;
    let kind = &line[i + 2..close];
    if kind.is_empty()
        || !kind
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    let mut after = close + 1;
    if matches!(bytes.get(after), Some(b'+' | b'-')) {
        after += 1;
    }
    if bytes.get(after) == Some(&b' ') {
        after += 1;
    }
    Some((i, after))
}

/// Where a block id (` ^abc-1` at the end of a line, or a line that is only `^abc`) starts.
pub(crate) fn block_id_start(line: &str) -> Option<usize> {
    let caret = line.rfind('^')?;
    let id = &line[caret + 1..];
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return None;
    }
    let before = &line[..caret];
    if before.trim().is_empty() {
        return Some(0);
    }
    before
        .ends_with([' ', '\t'])
        .then(|| before.trim_end_matches([' ', '\t']).len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_out_what_a_reader_does_not_read() {
        let cases: &[(&str, &str)] = &[
            ("plain text\n", "plain text\n"),
            ("a %%hidden%% b\n", "a  b\n"),
            ("a %%multi\nline%% b\n", "a  b\n"),
            ("a %% unclosed\n", "a %% unclosed\n"),
            ("a <!-- hidden --> b\n", "a  b\n"),
            ("<!-- Do not edit: generated -->\n# Title\n", "\n# Title\n"),
            ("<!--\nmany\nlines\n-->\nafter\n", "\nafter\n"),
            (
                "a <!-- unclosed in a line\nb\n",
                "a <!-- unclosed in a line\nb\n",
            ),
            ("text\n<!-- a block never closed\nrest\n", "text\n"),
            ("`<!-- code -->` kept\n", "`<!-- code -->` kept\n"),
            ("a <!-- x %% y --> b %%z%%\n", "a  b \n"),
            ("para ^abc-1\n", "para\n"),
            ("^block\n", "\n"),
            ("x^2\n", "x^2\n"),
            ("> [!tip]+ Title\n> body\n", "> Title\n> body\n"),
            ("> > [!note] Nested\n", "> > Nested\n"),
            ("> [not a callout]\n", "> [not a callout]\n"),
            ("a ==high== b\n", "a high b\n"),
            ("a == b == c\n", "a == b == c\n"),
            ("`%%code%%` ==x==\n", "`%%code%%` x\n"),
            (
                "```\n%%kept%% ^id\n```\nafter %%x%%\n",
                "```\n%%kept%% ^id\n```\nafter \n",
            ),
            ("[[Link|shown]] stays\n", "[[Link|shown]] stays\n"),
            ("no newline ^end", "no newline"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(readable(raw, 0).text, *want, "for {raw:?}");
        }
    }

    #[test]
    fn every_readable_byte_maps_to_the_same_raw_byte() {
        let raw = "---\ntitle: T\n---\n# Head ^h1\n\n> [!tip] Callout ==marked== text\n\
                   a %%gone%% b ünï ^x\n```\ncode %%\n```\nend";
        let read = readable(raw, 17);
        assert!(!read.text.contains("title"), "{}", read.text);
        for (i, c) in read.text.char_indices() {
            let at = read.raw_offset(i);
            assert_eq!(
                raw[at..].chars().next(),
                Some(c),
                "byte {i} of {:?}",
                read.text
            );
        }
        let quote = "Callout marked text";
        let at = read.text.find(quote).unwrap();
        let raw_range = read.raw_range(at..at + quote.len());
        assert_eq!(&raw[raw_range], "Callout ==marked== text");
        assert_eq!(read.raw_offset(read.text.len()), raw.len());
    }

    #[test]
    fn never_panics_on_hostile_text() {
        use proptest::prelude::*;
        proptest!(|(text in crate::hostile::text(60), skip in 0usize..40)| {
            let read = readable(&text, skip);
            for i in 0..=read.text.len() {
                let at = read.raw_offset(i);
                prop_assert!(at <= text.len());
            }
        });
    }
}
