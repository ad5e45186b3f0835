//! Splitting a large source into chunks that fit a model's context: at headings first, then
//! at paragraphs, then at sentences and lines, with a small overlap, each chunk keeping its
//! place (byte range) in the source so quotes can point back into it.

/// One part of a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Its position among the chunks, from 0.
    pub index: usize,
    /// Byte offset in the source where it starts (including the overlap).
    pub start: usize,
    /// Byte offset in the source where it ends.
    pub end: usize,
    /// The heading it falls under (the last heading before or at its start), if any.
    pub section: Option<String>,
}

impl Chunk {
    /// Its text.
    ///
    /// Panics if the chunk was not made by [`split`] from this `source` (its offsets are then
    /// not known to fall on character boundaries).
    pub fn text<'s>(&self, source: &'s str) -> &'s str {
        &source[self.start..self.end]
    }
}

/// A block of the source: a heading line or a paragraph.
#[derive(Debug, Clone, Copy)]
struct Block {
    start: usize,
    end: usize,
    heading: bool,
}

/// The markdown headings of a source, in order (`#` lines), as `  `-indented lines.
pub fn outline(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(heading_of)
        .map(|(level, title)| format!("{}- {title}", "  ".repeat(level.saturating_sub(1))))
        .collect()
}

fn heading_of(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let level = t.bytes().take_while(|&c| c == b'#').count();
    if (1..=6).contains(&level) && t[level..].starts_with(' ') {
        let title = t[level..].trim();
        (!title.is_empty()).then_some((level, title))
    } else {
        None
    }
}

fn blocks(source: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut para_start: Option<usize> = None;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if let Some(s) = para_start.take() {
                out.push(Block {
                    start: s,
                    end: start,
                    heading: false,
                });
            }
            continue;
        }
        if heading_of(line).is_some() {
            if let Some(s) = para_start.take() {
                out.push(Block {
                    start: s,
                    end: start,
                    heading: false,
                });
            }
            out.push(Block {
                start,
                end: offset,
                heading: true,
            });
            continue;
        }
        if para_start.is_none() {
            para_start = Some(start);
        }
    }
    if let Some(s) = para_start {
        out.push(Block {
            start: s,
            end: source.len(),
            heading: false,
        });
    }
    out
}

/// Splits an over-long block at sentence ends, then line ends, then anywhere (on a char
/// boundary), into pieces of at most `max` bytes.
fn split_block(source: &str, block: Block, max: usize) -> Vec<Block> {
    let mut out = Vec::new();
    let mut start = block.start;
    while block.end - start > max {
        let window = &source[start..floor_char(source, start + max)];
        let cut = window
            .rfind(". ")
            .map(|i| i + 2)
            .or_else(|| window.rfind('\n').map(|i| i + 1))
            .or_else(|| window.rfind(' ').map(|i| i + 1))
            .filter(|&i| i > max / 4)
            .unwrap_or(window.len());
        // Never an empty piece: at worst one whole character.
        let cut = if cut == 0 {
            window.chars().next().map_or(1, char::len_utf8)
        } else {
            cut
        };
        out.push(Block {
            start,
            end: start + cut,
            heading: false,
        });
        start += cut;
    }
    if start < block.end {
        out.push(Block {
            start,
            end: block.end,
            heading: block.heading,
        });
    }
    out
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Splits `source` into chunks of at most `max_bytes` (plus `overlap` bytes repeated from
/// the end of the previous chunk). Every byte of the source is in at least one chunk.
pub fn split(source: &str, max_bytes: usize, overlap: usize) -> Vec<Chunk> {
    let max_bytes = max_bytes.max(64);
    let overlap = overlap.min(max_bytes / 4);
    let mut pieces: Vec<Block> = Vec::new();
    for b in blocks(source) {
        if b.end - b.start > max_bytes {
            pieces.extend(split_block(source, b, max_bytes));
        } else {
            pieces.push(b);
        }
    }
    // Section titles by position, to name each chunk's section.
    let headings: Vec<(usize, String)> = pieces
        .iter()
        .filter(|b| b.heading)
        .filter_map(|b| heading_of(&source[b.start..b.end]).map(|(_, t)| (b.start, t.to_string())))
        .collect();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut cur: Option<(usize, usize)> = None;
    for b in &pieces {
        match cur {
            None => cur = Some((b.start, b.end)),
            Some((s, e)) => {
                let fits = b.end - s <= max_bytes;
                // Prefer to start a chunk at a heading once the current one is half full.
                let heading_break = b.heading && (e - s) * 2 >= max_bytes;
                if fits && !heading_break {
                    cur = Some((s, b.end));
                } else {
                    ranges.push((s, e));
                    cur = Some((b.start, b.end));
                }
            }
        }
    }
    if let Some(r) = cur {
        ranges.push(r);
    }
    // Cover the gaps between blocks (blank lines) so nothing is left out, then add overlap.
    let n = ranges.len();
    let mut chunks = Vec::with_capacity(n);
    for i in 0..n {
        let own_start = if i == 0 { 0 } else { ranges[i].0 };
        let end = if i + 1 == n {
            source.len()
        } else {
            ranges[i + 1].0
        };
        let start = if i == 0 || overlap == 0 {
            own_start
        } else {
            // Rounded up to a character, so the overlap stays within its budget.
            let want = ceil_char(source, own_start.saturating_sub(overlap));
            // Start the overlap at a word boundary: just after the first whitespace
            // character, which may be several bytes long (a no-break or ideographic space).
            source[want..own_start]
                .char_indices()
                .find(|(_, c)| c.is_whitespace())
                .map_or(want, |(j, c)| want + j + c.len_utf8())
        };
        let section = headings
            .iter()
            .take_while(|(pos, _)| *pos <= ranges[i].0)
            .last()
            .map(|(_, t)| t.clone());
        chunks.push(Chunk {
            index: i,
            start,
            end,
            section,
        });
    }
    if chunks.is_empty() {
        chunks.push(Chunk {
            index: 0,
            start: 0,
            end: source.len(),
            section: None,
        });
    }
    debug_assert!(chunks
        .iter()
        .all(|c| source.is_char_boundary(c.start) && source.is_char_boundary(c.end)));
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> String {
        let mut s = String::from("# Book\n\nIntro paragraph.\n\n");
        for ch in 1..=5 {
            s.push_str(&format!("## Chapter {ch}\n\n"));
            for p in 0..6 {
                s.push_str(&format!("Chapter {ch} paragraph {p} says something worth reading. It goes on a little.\n\n"));
            }
        }
        s
    }

    #[test]
    fn chunks_cover_everything_fit_and_start_at_headings() {
        let src = doc();
        let chunks = split(&src, 600, 60);
        assert!(chunks.len() > 3);
        let mut covered = 0;
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.index, i);
            assert!(c.start <= covered, "gap before chunk {i}");
            covered = covered.max(c.end);
            assert!(
                c.end - c.start <= 600 + 60 + 2,
                "chunk {i} is {} bytes",
                c.end - c.start
            );
        }
        assert_eq!(covered, src.len());
        // Most chunks begin right at a chapter heading (after the overlap).
        let at_heading = chunks
            .iter()
            .filter(|c| c.text(&src).contains("## Chapter"))
            .count();
        assert!(at_heading >= 4);
        assert_eq!(chunks.last().unwrap().section.as_deref(), Some("Chapter 5"));
    }

    #[test]
    fn one_huge_paragraph_is_split_at_sentences() {
        let src = "A sentence that keeps going. ".repeat(500);
        let chunks = split(&src, 1000, 0);
        assert!(chunks.len() >= 14);
        for c in &chunks[..chunks.len() - 1] {
            assert!(
                c.text(&src).ends_with(". "),
                "{:?}",
                &c.text(&src)[c.text(&src).len() - 10..]
            );
        }
        assert_eq!(
            chunks.iter().map(|c| c.end - c.start).sum::<usize>(),
            src.len()
        );
    }

    #[test]
    fn multibyte_text_never_splits_a_char() {
        let src = "ü".repeat(5000);
        for c in split(&src, 333, 17) {
            assert!(src.is_char_boundary(c.start) && src.is_char_boundary(c.end));
        }
    }

    /// Regression: the overlap started one byte after a whitespace character, inside a
    /// no-break space (U+00A0, two bytes) or an ideographic space (U+3000, three bytes), and
    /// `Chunk::text` panicked on the resulting range.
    #[test]
    fn overlap_after_multibyte_whitespace_starts_on_a_char() {
        let nbsp = "word\u{A0}".repeat(134 * 1024 / 6);
        let cjk: String = (0..20_000)
            .map(|i| if i % 7 == 6 { '\u{3000}' } else { '漢' })
            .collect();
        for src in [nbsp, cjk] {
            for (max, overlap) in [(1000, 200), (4096, 300), (333, 17)] {
                let chunks = split(&src, max, overlap);
                assert!(chunks.len() > 1);
                for c in &chunks {
                    assert!(!c.text(&src).is_empty());
                }
            }
        }
    }

    /// Regression: the notes of a chunk are located inside `Chunk::text`, which panicked for
    /// a chunk starting inside a multibyte whitespace character.
    #[test]
    fn notes_of_a_chunk_after_a_no_break_space() {
        let src = "alpha\u{A0}beta\u{A0}".repeat(5000);
        let chunks = split(&src, 1000, 200);
        let quote = serde_json::json!({"type": "claim", "text": "t", "quote": "alpha\u{A0}beta"});
        for c in &chunks {
            assert!(crate::tasks::parts::notes::Note::from_value(&quote, c, &src).is_some());
        }
    }

    #[test]
    fn outline_lists_headings() {
        assert_eq!(
            outline("# A\ntext\n## B\n#nope\n### C"),
            vec!["- A", "  - B", "    - C"]
        );
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::split;
        use crate::hostile_text;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1000))]

            #[test]
            fn chunks_cover_the_text_exactly_and_never_split_a_char(
                text in hostile_text::text(600),
                max_bytes in 0usize..700,
                overlap in 0usize..400,
            ) {
                let chunks = split(&text, max_bytes, overlap);
                let overlap = overlap.min(max_bytes.max(64) / 4);
                prop_assert!(!chunks.is_empty());
                prop_assert_eq!(chunks[0].start, 0);
                prop_assert_eq!(chunks.last().unwrap().end, text.len());
                for (i, c) in chunks.iter().enumerate() {
                    prop_assert_eq!(c.index, i);
                    prop_assert!(text.is_char_boundary(c.start) && text.is_char_boundary(c.end));
                    prop_assert!(c.start <= c.end);
                    prop_assert_eq!(c.text(&text).len(), c.end - c.start);
                }
                for pair in chunks.windows(2) {
                    let (a, b) = (&pair[0], &pair[1]);
                    // Each chunk's own part starts where the previous one ends: together
                    // they are the text, byte for byte.
                    prop_assert!(a.end < b.end, "chunks move forward");
                    prop_assert!(b.start <= a.end, "no gap");
                    prop_assert!(b.start >= a.start);
                    // The overlap is at most `overlap` bytes and starts just after a
                    // whitespace character; if the last `overlap` bytes hold none, it is
                    // all of them (to the character).
                    let repeated = &text[b.start..a.end];
                    prop_assert!(repeated.len() <= overlap);
                    if !repeated.is_empty() {
                        let after_space = text[..b.start].ends_with(char::is_whitespace);
                        let whole_window = !repeated.contains(char::is_whitespace)
                            && repeated.len() + 3 >= overlap;
                        prop_assert!(
                            after_space || whole_window,
                            "overlap {:?} does not start at a word",
                            repeated
                        );
                    }
                }
            }
        }
    }
}
