//! Page labels: the numbers a PDF prints on its pages (`i`, `ii`, then `1`, `2`; `A-3`),
//! from its `/PageLabels` tree as `qpdf --json` reads it, turned into text by the rules of
//! the PDF specification (ISO 32000, 12.4.2).

use std::path::Path;

use serde_json::Value;

use super::tool;
use crate::Limits;

/// The label of each of the first `pages` pages (`None` where the file gives none), or a
/// warning saying why they could not be read.
pub(super) fn page_labels(
    path: &Path,
    pages: u32,
    limits: &Limits,
) -> Result<Vec<Option<String>>, String> {
    let output = tool::run(
        "qpdf",
        &["--json=2", "--json-key=pagelabels"],
        path,
        &[],
        limits,
        64 * 1024 * 1024,
    )
    .map_err(|e| match e {
        tool::ToolError::Missing => {
            "page labels were not read: `qpdf` is not installed (install the qpdf package)"
                .to_owned()
        }
        tool::ToolError::TimedOut => "page labels were not read: qpdf took too long".to_owned(),
        tool::ToolError::TooMuchOutput => {
            "page labels were not read: the label tree is too large".to_owned()
        }
        tool::ToolError::OutOfMemory => {
            "page labels were not read: qpdf ran out of the memory it may take".to_owned()
        }
        tool::ToolError::Io(e) => format!("page labels were not read: qpdf failed: {e}"),
    })?;
    // qpdf exits 3 when it read the file with warnings: its JSON is still good.
    if !output.success && output.code != Some(3) {
        let words = output.stderr.lines().next().unwrap_or("").trim().to_owned();
        return Err(format!("page labels were not read: qpdf: {words}"));
    }
    let json: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("page labels were not read: qpdf's answer is not JSON ({e})"))?;
    let ranges = parse_ranges(&json);
    Ok(labels_for(&ranges, pages))
}

/// One range of the label tree: from page `index` (0-based) on, `style` numbers starting
/// at `start` after `prefix`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    index: u64,
    style: Option<char>,
    start: u64,
    prefix: String,
}

fn parse_ranges(json: &Value) -> Vec<Range> {
    let mut ranges: Vec<Range> = json
        .get("pagelabels")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    let index = item.get("index")?.as_u64()?;
                    let label = item.get("label")?;
                    let style = label
                        .get("/S")
                        .and_then(Value::as_str)
                        .and_then(|s| s.strip_prefix('/'))
                        .and_then(|s| s.chars().next());
                    let start = label.get("/St").and_then(Value::as_u64).unwrap_or(1).max(1);
                    let prefix = label
                        .get("/P")
                        .and_then(Value::as_str)
                        .map(json_string)
                        .unwrap_or_default();
                    Some(Range {
                        index,
                        style,
                        start,
                        prefix,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    ranges.sort_by_key(|range| range.index);
    ranges
}

/// A string in qpdf's JSON v2: `u:` text, `b:` hex bytes (read as UTF-16 with a byte
/// order mark, else Latin-1).
fn json_string(value: &str) -> String {
    if let Some(text) = value.strip_prefix("u:") {
        return text.to_owned();
    }
    let Some(hex) = value.strip_prefix("b:") else {
        return value.to_owned();
    };
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units = rest
            .chunks_exact(2)
            .map(|p| u16::from_be_bytes([p[0], p[1]]));
        return char::decode_utf16(units)
            .map(|c| c.unwrap_or('\u{FFFD}'))
            .collect();
    }
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn labels_for(ranges: &[Range], pages: u32) -> Vec<Option<String>> {
    (0..u64::from(pages))
        .map(|page| {
            let i = ranges.partition_point(|range| range.index <= page);
            let range = ranges.get(i.checked_sub(1)?)?;
            let n = range.start.saturating_add(page - range.index);
            let number = match range.style {
                Some('D') => n.to_string(),
                Some('R') => roman(n).to_uppercase(),
                Some('r') => roman(n),
                Some('A') => letters(n).to_uppercase(),
                Some('a') => letters(n),
                _ => String::new(),
            };
            let label = format!("{}{number}", range.prefix);
            (!label.trim().is_empty()).then_some(label)
        })
        .collect()
}

fn roman(mut n: u64) -> String {
    if n == 0 || n >= 40_000 {
        return n.to_string();
    }
    let table = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut out = String::new();
    for (value, digits) in table {
        while n >= value {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

/// `a`..`z`, then `aa`..`zz`, then `aaa`: the specification's letters (one letter
/// repeated).
fn letters(n: u64) -> String {
    if n == 0 || n > 26 * 1000 {
        return n.to_string();
    }
    let letter = char::from(b'a' + ((n - 1) % 26) as u8);
    std::iter::repeat_n(letter, ((n - 1) / 26 + 1) as usize).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_specification() {
        let json: Value = serde_json::from_str(
            r#"{"pagelabels":[
                {"index":0,"label":{"/P":"u:T-","/S":"/D","/St":1}},
                {"index":2,"label":{"/S":"/r","/St":1}},
                {"index":5,"label":{"/S":"/A","/St":26}},
                {"index":7,"label":{"/P":"b:feff0041","/St":1}},
                {"index":8,"label":{"/S":"/D","/St":9}}]}"#,
        )
        .unwrap();
        let labels = labels_for(&parse_ranges(&json), 10);
        let labels: Vec<&str> = labels.iter().map(|l| l.as_deref().unwrap_or("-")).collect();
        assert_eq!(
            labels,
            ["T-1", "T-2", "i", "ii", "iii", "Z", "AA", "A", "9", "10"]
        );
        assert_eq!(roman(1994), "mcmxciv");
        assert_eq!(letters(53), "aaa");
        assert_eq!(labels_for(&[], 2), [None, None]);
    }
}
