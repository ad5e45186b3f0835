//! YAML front matter: the `---` block at the very top of a note.

use serde_yaml_ng::Value;

/// Front matter longer than this (in bytes) is not parsed: it is kept as text with a
/// warning. Real notes' front matter is a few hundred bytes.
pub const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// The most aliases or tags kept from one note's front matter.
const MAX_ITEMS: usize = 100;

/// The longest alias or tag kept, in characters.
const MAX_ITEM_CHARS: usize = 200;

/// What a note's front matter says, as far as WikiMind uses it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// The byte range of the whole block in the raw text, fences included (`0..end`).
    pub range: std::ops::Range<usize>,
    /// `title`, when a non-blank string (or number).
    pub title: Option<String>,
    /// `aliases` (or `alias`): a list, or one string as one alias.
    pub aliases: Vec<String>,
    /// `tags` (or `tag`): a list, or one string of tags separated by commas or spaces;
    /// without their `#`.
    pub tags: Vec<String>,
}

/// Front matter that is there but could not be read; the block stays in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterError {
    /// The 1-based line of the raw text the problem is on.
    pub line: usize,
    /// What is wrong, in a few words.
    pub message: String,
}

/// The `---` block at the top of `raw` (only at byte 0, closed by a `---` or `...` line):
/// `None` when there is none, else the block read or why it could not be.
pub fn front_matter(raw: &str) -> Option<Result<FrontMatter, FrontMatterError>> {
    let (yaml, end) = split(raw)?;
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return Some(Err(FrontMatterError {
            line: 1,
            message: format!(
                "front matter of {} bytes is longer than the {MAX_FRONT_MATTER_BYTES} read",
                yaml.len()
            ),
        }));
    }
    if yaml.trim().is_empty() {
        return Some(Ok(FrontMatter {
            range: 0..end,
            ..FrontMatter::default()
        }));
    }
    let value: Value = match crate::yaml::from_str(yaml) {
        Ok(value) => value,
        Err(error) => {
            // The YAML starts on line 2 (after the opening `---`).
            return Some(Err(FrontMatterError {
                line: error.line.map_or(1, |l| l + 1),
                message: error.message,
            }));
        }
    };
    let Value::Mapping(map) = value else {
        return Some(Err(FrontMatterError {
            line: 2,
            message: "front matter is not a mapping of keys to values".to_owned(),
        }));
    };
    let get = |key: &str| {
        map.iter()
            .find(|(k, _)| k.as_str().is_some_and(|k| k.eq_ignore_ascii_case(key)))
            .map(|(_, v)| v)
    };
    let title = get("title").and_then(scalar).and_then(|t| one_line(&t));
    let aliases = get("aliases")
        .or_else(|| get("alias"))
        .map(|v| strings(v, false))
        .unwrap_or_default();
    let tags = get("tags")
        .or_else(|| get("tag"))
        .map(|v| strings(v, true))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|t| clean_tag(&t))
        .collect::<Vec<_>>();
    Some(Ok(FrontMatter {
        range: 0..end,
        title,
        aliases: dedup(aliases),
        tags: dedup(tags),
    }))
}

/// The YAML between the fences and the end of the closing fence line.
fn split(raw: &str) -> Option<(&str, usize)> {
    let rest = raw
        .strip_prefix("---\n")
        .or_else(|| raw.strip_prefix("---\r\n"))?;
    let start = raw.len() - rest.len();
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return Some((&rest[..offset], start + offset + line.len()));
        }
        offset += line.len();
    }
    None
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A list of scalars, or one scalar: one item, or for tags several split at commas and
/// whitespace.
fn strings(value: &Value, split_words: bool) -> Vec<String> {
    let items: Vec<String> = match value {
        Value::Sequence(items) => items.iter().filter_map(scalar).collect(),
        other => match scalar(other) {
            Some(s) if split_words => s
                .split(|c: char| c == ',' || c.is_whitespace())
                .map(str::to_owned)
                .collect(),
            Some(s) => vec![s],
            None => Vec::new(),
        },
    };
    items
        .iter()
        .filter_map(|s| one_line(s))
        .filter(|s| s.chars().count() <= MAX_ITEM_CHARS)
        .take(MAX_ITEMS)
        .collect()
}

/// Whitespace collapsed to single spaces; `None` when blank.
fn one_line(text: &str) -> Option<String> {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then_some(line)
}

/// A tag as shown: without its `#`, `None` when nothing is left or it is only digits
/// (Obsidian's rule: `#1984` is not a tag).
pub fn clean_tag(tag: &str) -> Option<String> {
    let tag = tag.trim().trim_start_matches('#').trim();
    if tag.is_empty() || tag.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(tag.to_owned())
}

/// `items` without repeats (case-insensitive), first spelling kept.
fn dedup(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|i| seen.insert(i.to_lowercase()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> FrontMatter {
        front_matter(raw)
            .expect("front matter")
            .unwrap_or_else(|e| panic!("{raw:?}: {e:?}"))
    }

    #[test]
    fn reads_title_aliases_and_tags_in_their_forms() {
        let fm = read(
            "---\ntitle: \"Cold Brew\"\naliases: [Cold brew coffee, Kyoto drip]\n\
             tags:\n  - coffee\n  - '#method/slow'\n---\n# Body\n",
        );
        assert_eq!(fm.title.as_deref(), Some("Cold Brew"));
        assert_eq!(fm.aliases, ["Cold brew coffee", "Kyoto drip"]);
        assert_eq!(fm.tags, ["coffee", "method/slow"]);
        let raw = "---\ntitle: x\n---\n# Body";
        assert_eq!(read(raw).range, 0..raw.find('#').unwrap());

        let fm = read("---\nalias: Only One, With Comma\ntags: \"a, b #c 1984\"\n---\n");
        assert_eq!(fm.aliases, ["Only One, With Comma"]);
        assert_eq!(fm.tags, ["a", "b", "c"]);

        let fm = read("---\nTitle: 2024\naliases:\n---\ntext");
        assert_eq!(fm.title.as_deref(), Some("2024"));
        assert!(fm.aliases.is_empty());
        assert!(read("---\n---\n").title.is_none());
    }

    #[test]
    fn only_a_block_at_the_very_top_is_front_matter() {
        for raw in [
            "text\n---\ntitle: x\n---\n",
            " ---\ntitle: x\n---\n",
            "---\ntitle: x\n",
        ] {
            assert!(front_matter(raw).is_none(), "{raw:?}");
        }
    }

    #[test]
    fn bad_front_matter_says_which_line() {
        let e = front_matter("---\ntitle: ok\nbad: [unclosed\n---\nbody")
            .unwrap()
            .unwrap_err();
        assert!(e.line >= 3, "{e:?}");
        let e = front_matter("---\n- a list\n---\n").unwrap().unwrap_err();
        assert!(e.message.contains("mapping"), "{e:?}");
        let bomb = "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n---\n";
        assert!(
            front_matter(bomb).unwrap().is_err(),
            "an alias bomb is refused"
        );
        let huge = format!("---\nx: '{}'\n---\n", "a".repeat(MAX_FRONT_MATTER_BYTES));
        assert!(front_matter(&huge).unwrap().is_err());
    }

    #[test]
    fn deep_front_matter_is_refused_before_it_is_parsed() {
        let depth = MAX_FRONT_MATTER_BYTES / 2 - 10;
        let raw = format!(
            "---\ntitle: Deep\ntags: {}{}\n---\n# Body\n",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let e = front_matter(&raw).unwrap().unwrap_err();
        assert_eq!(e.line, 3, "{e:?}");
        assert!(
            e.message.contains("nested more than 64 levels deep"),
            "{e:?}"
        );
        // Block nesting too, within the size read (300 levels of one-space steps).
        let block: String = (0..300).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert!(block.len() < MAX_FRONT_MATTER_BYTES);
        let e = front_matter(&format!("---\n{block}---\n"))
            .unwrap()
            .unwrap_err();
        assert!(e.message.contains("nested more than"), "{e:?}");
    }
}
