//! Every YAML read, bounded: the one door through which WikiMind parses YAML (a note's front
//! matter, an eval dataset and its sidecar).
//!
//! The parser underneath refuses nesting deeper than 128 levels, but only after it has read
//! every event of the document, and a document nested 100,000 levels deep (200 KB of `[`)
//! costs it tens of seconds of CPU to refuse. So [`from_str`] first measures how deep the
//! text nests with [`check_depth`] — one pass over the text, no allocation per level beyond a
//! stack of indentation columns — and refuses anything deeper than [`MAX_DEPTH`] before
//! the parser sees it.

use serde::de::DeserializeOwned;

/// The deepest nesting of collections read. Real front matter and eval files nest a few
/// levels; the parser's own limit is 128.
pub const MAX_DEPTH: usize = 64;

/// YAML nested deeper than the limit, found before parsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("nested more than {limit} levels deep (at line {line}): refused unread")]
pub struct TooDeep {
    /// The 1-based line of the text where the nesting passed the limit.
    pub line: usize,
    /// The limit it passed.
    pub limit: usize,
}

/// YAML that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// The 1-based column of the problem, when known.
    pub column: Option<usize>,
    /// What is wrong, without the location.
    pub message: String,
}

/// Parses `text` as YAML into a `T`, after [`check_depth`] with [`MAX_DEPTH`].
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    if let Err(deep) = check_depth(text, MAX_DEPTH) {
        return Err(YamlError {
            line: Some(deep.line),
            column: None,
            message: format!(
                "nested more than {} levels deep: refused before it was read",
                deep.limit
            ),
        });
    }
    serde_yaml_ng::from_str(text).map_err(|e| YamlError {
        line: e.location().map(|l| l.line()),
        column: e.location().map(|l| l.column()),
        message: without_location(&e.to_string()),
    })
}

/// The parser's message without the " at line L column C" it puts in, once or twice (the
/// location is given apart); the rest (", while parsing a flow sequence") is kept.
fn without_location(message: &str) -> String {
    const AT: &str = " at line ";
    let digits = |s: &str| s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let mut out = String::new();
    let mut rest = message;
    while let Some(i) = rest.find(AT) {
        out.push_str(&rest[..i]);
        let after = &rest[i + AT.len()..];
        let after = &after[after.len() - digits(after)..];
        rest = match after.strip_prefix(" column ") {
            Some(column) => &column[column.len() - digits(column)..],
            None => after,
        };
    }
    out.push_str(rest);
    out
}

/// Refuses `text` when its collections nest more than `limit` deep, counting both styles:
/// flow brackets (`[`, `{`) and block levels (a new, deeper indentation that opens a mapping
/// entry, and each `- `, `? ` or `: ` indicator, so `- - - a` is three levels).
///
/// It reads the text once, as the YAML scanner would at the level of lines and tokens:
/// brackets inside quoted strings, plain text (`title: a [b`), comments and block scalars
/// (`|`, `>`) do not count. It may count a level more than the parser would on odd text
/// (flow keys, tags), never fewer on the shapes that nest: a refusal only needs to be
/// cheap and to leave every document of ordinary depth alone.
pub fn check_depth(text: &str, limit: usize) -> Result<(), TooDeep> {
    let mut scan = Scan {
        limit,
        line: 0,
        block: Vec::new(),
        flow: 0,
        quote: None,
        block_scalar: None,
    };
    for (i, line) in text.lines().enumerate() {
        scan.line = i + 1;
        scan.read_line(line)?;
    }
    Ok(())
}

/// The state carried from line to line.
struct Scan {
    limit: usize,
    /// The current 1-based line.
    line: usize,
    /// The columns of the open block collections, innermost last.
    block: Vec<usize>,
    /// Open flow brackets.
    flow: usize,
    /// Inside a quoted string that runs on to the next line: its quote mark.
    quote: Option<u8>,
    /// Inside a block scalar's text: the column its lines must be indented past.
    block_scalar: Option<usize>,
}

impl Scan {
    fn read_line(&mut self, line: &str) -> Result<(), TooDeep> {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let blank = line.trim().is_empty();
        if let Some(parent) = self.block_scalar {
            if blank || indent > parent {
                return Ok(());
            }
            self.block_scalar = None;
        }
        let mut at = 0;
        if let Some(mark) = self.quote {
            match end_of_quote(bytes, 0, mark) {
                Some(end) => {
                    self.quote = None;
                    at = end;
                }
                None => return Ok(()),
            }
        }
        if self.flow > 0 || at > 0 {
            return self.flow_rest(bytes, at);
        }
        if blank || bytes[indent] == b'#' {
            return Ok(());
        }
        let marker = (line.starts_with("---") || line.starts_with("..."))
            && bytes.get(3).is_none_or(|&n| n == b' ' || n == b'\t');
        if marker {
            // A new document (or the end of one): its block levels start again.
            self.block.clear();
            return self.value(bytes, 3);
        }
        // Block context: the indicators, then the node.
        let mut at = indent;
        while let Some(&c) = bytes.get(at) {
            let indicator = matches!(c, b'-' | b'?' | b':')
                && bytes.get(at + 1).is_none_or(|&n| n == b' ' || n == b'\t');
            if !indicator {
                break;
            }
            self.open(at)?;
            at = skip_spaces(bytes, at + 1);
        }
        if at >= bytes.len() {
            return Ok(());
        }
        let node = at;
        match bytes[at] {
            b'[' | b'{' => self.flow_rest(bytes, at),
            b'\'' | b'"' => {
                let Some(end) = end_of_quote(bytes, at + 1, bytes[at]) else {
                    self.quote = Some(bytes[at]);
                    return Ok(());
                };
                if let Some(value) = after_key(bytes, end) {
                    self.open(node)?;
                    return self.value(bytes, value);
                }
                Ok(())
            }
            b'#' => Ok(()),
            _ => {
                if let Some(value) = plain_key(bytes, at) {
                    self.open(node)?;
                    return self.value(bytes, value);
                }
                // A scalar alone on its line (or a block scalar header after indicators).
                self.value(bytes, at)
            }
        }
    }

    /// A block collection whose entries start at `column`: the levels deeper than it
    /// close, and it opens unless it is already the innermost.
    fn open(&mut self, column: usize) -> Result<(), TooDeep> {
        while self.block.last().is_some_and(|&top| top > column) {
            self.block.pop();
        }
        if self.block.last() != Some(&column) {
            self.block.push(column);
            self.check()?;
        }
        Ok(())
    }

    fn check(&self) -> Result<(), TooDeep> {
        if self.block.len() + self.flow > self.limit {
            return Err(TooDeep {
                line: self.line,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// A value in block context starting at `at` (after `key:` or the indicators): a flow
    /// collection, a quoted string, a block scalar header, or plain text.
    fn value(&mut self, bytes: &[u8], at: usize) -> Result<(), TooDeep> {
        let mut at = skip_spaces(bytes, at);
        // Anchors and tags before the value.
        while matches!(bytes.get(at), Some(b'&' | b'!')) {
            while bytes.get(at).is_some_and(|&b| b != b' ' && b != b'\t') {
                at += 1;
            }
            at = skip_spaces(bytes, at);
        }
        match bytes.get(at) {
            Some(b'[' | b'{') => self.flow_rest(bytes, at),
            Some(&mark @ (b'\'' | b'"')) => {
                if end_of_quote(bytes, at + 1, mark).is_none() {
                    self.quote = Some(mark);
                }
                Ok(())
            }
            Some(b'|' | b'>') if is_block_scalar_header(&bytes[at..]) => {
                // Its text is every following line indented past the line's node.
                let indent = bytes.iter().take_while(|&&b| b == b' ').count();
                self.block_scalar = Some(self.block.last().copied().unwrap_or(indent));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Flow context from `at` to the end of the line: brackets counted, quoted strings and
    /// comments skipped. Back at depth 0, the rest of the line is a block value (`[a]: b`).
    fn flow_rest(&mut self, bytes: &[u8], mut at: usize) -> Result<(), TooDeep> {
        while at < bytes.len() {
            let c = bytes[at];
            let starts_token =
                at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b'[' | b'{' | b',' | b':');
            match c {
                b'[' | b'{' => {
                    self.flow += 1;
                    self.check()?;
                }
                b']' | b'}' => {
                    self.flow = self.flow.saturating_sub(1);
                    if self.flow == 0 {
                        return match after_key(bytes, at + 1) {
                            Some(value) => self.value(bytes, value),
                            None => Ok(()),
                        };
                    }
                }
                b'\'' | b'"' if starts_token => match end_of_quote(bytes, at + 1, c) {
                    Some(end) => {
                        at = end;
                        continue;
                    }
                    None => {
                        self.quote = Some(c);
                        return Ok(());
                    }
                },
                b'#' if at == 0 || matches!(bytes[at - 1], b' ' | b'\t') => return Ok(()),
                _ => {}
            }
            at += 1;
        }
        Ok(())
    }
}

/// The index just past the quote that closes a string opened with `mark`, reading from
/// `at`; `None` when it runs past the line. `''` inside single quotes and `\` escapes
/// inside double quotes do not close it.
fn end_of_quote(bytes: &[u8], mut at: usize, mark: u8) -> Option<usize> {
    while at < bytes.len() {
        let c = bytes[at];
        if mark == b'"' && c == b'\\' {
            at += 2;
            continue;
        }
        if c == mark {
            if mark == b'\'' && bytes.get(at + 1) == Some(&b'\'') {
                at += 2;
                continue;
            }
            return Some(at + 1);
        }
        at += 1;
    }
    None
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

/// After a key that ends at `at` (a quoted or flow key): the start of its value when a `:`
/// indicator follows.
fn after_key(bytes: &[u8], at: usize) -> Option<usize> {
    let at = skip_spaces(bytes, at);
    (bytes.get(at) == Some(&b':') && bytes.get(at + 1).is_none_or(|&n| n == b' ' || n == b'\t'))
        .then_some(at + 1)
}

/// A plain key starting at `at`: the start of its value when the line holds `key:` (a `:`
/// followed by a space or the end of the line, before any comment).
fn plain_key(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'#' if i > at && matches!(bytes[i - 1], b' ' | b'\t') => return None,
            b':' if bytes.get(i + 1).is_none_or(|&n| n == b' ' || n == b'\t') => {
                return Some(i + 1)
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `|` or `>` with its optional indentation and chomping indicators, then nothing but a
/// comment.
fn is_block_scalar_header(rest: &[u8]) -> bool {
    let mut i = 1;
    while rest
        .get(i)
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-'))
    {
        i += 1;
    }
    let tail = skip_spaces(rest, i);
    tail == rest.len() || (rest[tail] == b'#' && tail > i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(depth: usize) -> String {
        format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth))
    }

    fn block_map(depth: usize) -> String {
        (0..depth)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect::<String>()
            + " x\n"
    }

    fn block_seq(depth: usize) -> String {
        format!("{}x\n", "- ".repeat(depth))
    }

    #[test]
    fn ordinary_yaml_passes_and_deep_nesting_is_refused() {
        let long_block_scalar = format!(
            "code: |\n{}\nafter: 1\n",
            (0..200)
                .map(|i| format!("  {}{{ [", " ".repeat(i)))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let cases: Vec<(&str, String, Option<usize>)> = vec![
            ("empty", String::new(), None),
            (
                "a sidecar",
                "dataset: hidden-ten\ndescription: Sources no model has seen\n\
                 execution: {target: openai, model: [a, b]}\nexpected:\n  checks:\n    \
                 - name: x\n      args: {min: 1}\n    - [1, [2, [3]]]\n"
                    .into(),
                None,
            ),
            (
                "front matter",
                "title: \"Cold Brew\"\naliases: [Cold brew, Kyoto drip]\ntags:\n  - coffee\n  \
                 - '#method/slow'\n"
                    .into(),
                None,
            ),
            (
                "quoted brackets",
                format!("a: '{}'\nb: \"{}\"\n", "[".repeat(500), "{".repeat(500)),
                None,
            ),
            (
                "quoted brackets in flow",
                format!("a: [\"{}\", '{}''[']\n", "[".repeat(500), "[".repeat(500)),
                None,
            ),
            (
                "plain text with brackets",
                format!(
                    "title: a {} b\nnext: b {}\n",
                    "[".repeat(500),
                    "{".repeat(500)
                ),
                None,
            ),
            (
                "comments",
                format!("a: 1 # {}\n# {}\n", "[".repeat(500), "{".repeat(500)),
                None,
            ),
            (
                "a multi-line quote",
                format!("a: \"one\n  {} two\"\nb: [1]\n", "[".repeat(500)),
                None,
            ),
            ("a block scalar", long_block_scalar, None),
            ("many siblings", "- a\n".repeat(10_000), None),
            ("flow at the limit", flow(MAX_DEPTH - 1), None),
            ("block map at the limit", block_map(MAX_DEPTH - 1), None),
            ("flow 100k deep", flow(100_000), Some(1)),
            (
                "flow over lines",
                format!("a:\n{}", "  [\n".repeat(100_000)),
                Some(MAX_DEPTH + 1),
            ),
            (
                "block map 100k deep",
                block_map(100_000),
                Some(MAX_DEPTH + 1),
            ),
            ("block seq 100k deep", block_seq(100_000), Some(1)),
            (
                "mixed",
                format!("{}{}\n", "- ".repeat(40), "{a: ".repeat(40)),
                Some(1),
            ),
            (
                "after a quote",
                format!("a: 'x'\nb: {}\n", "[".repeat(100)),
                Some(2),
            ),
        ];
        for (name, text, refused_at) in cases {
            let got = check_depth(&text, MAX_DEPTH).err().map(|e| e.line);
            assert_eq!(got, refused_at, "{name}");
        }
    }

    #[test]
    fn what_passes_the_scan_still_parses() {
        let value: serde_yaml_ng::Value =
            from_str("a: '[[['\nb: [1, {c: \"]]\"}]\ncode: |\n  [[[\n").unwrap();
        assert_eq!(value["a"].as_str(), Some("[[["));
        assert_eq!(value["code"].as_str(), Some("[[[\n"));
        let e = from_str::<serde_yaml_ng::Value>(&flow(100_000)).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("nested more than 64 levels"), "{e:?}");
        let e = from_str::<serde_yaml_ng::Value>("a: [1\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)));
        assert_eq!(
            e.message,
            "did not find expected ',' or ']', while parsing a flow sequence"
        );
    }

    proptest::proptest! {
        /// Any text is scanned without a panic, and what the scan lets through never
        /// reaches the parser's own depth limit (128): the scan never counts fewer levels
        /// than the parser by half.
        #[test]
        fn the_scan_never_panics_and_lets_no_deep_text_through(
            text in proptest::prop_oneof![
                "[\\[\\]{}'\"#:|>?, \n\tab-]{0,400}",
                "(- |  |\\[|\\{|a: |\n|'|\"){0,300}",
                crate::hostile::text(12),
            ]
        ) {
            if check_depth(&text, MAX_DEPTH).is_ok() {
                if let Err(e) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&text) {
                    proptest::prop_assert!(!e.to_string().contains("recursion limit"), "{e}");
                }
            }
        }
    }

    #[test]
    fn hostile_text_never_panics() {
        for text in [
            "\"",
            "'",
            "- ",
            ":",
            "?",
            "|",
            "]]]]",
            "a: \"\\",
            "[\n'\n",
            "\u{feff}- [é",
        ] {
            let _ = check_depth(text, MAX_DEPTH);
        }
    }
}
