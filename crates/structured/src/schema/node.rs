//! One compiled (sub)schema: its keywords, parsed once, with subschemas as node indices.

use serde_json::{Map, Value};

use super::formats::Format;
use super::types::JsonType;

/// `if`, and the `then` and `else` it chooses between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Condition {
    pub(super) when: usize,
    pub(super) then: Option<usize>,
    pub(super) otherwise: Option<usize>,
}

/// A `pattern` (or a `patternProperties` name): an ECMA-262 regular expression, matched
/// anywhere in the text (not anchored), as JSON Schema says.
#[derive(Debug, Clone)]
pub(super) struct Pattern {
    regex: regex::Regex,
    /// As written in the schema.
    source: String,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl Pattern {
    /// Compiles an ECMA-262 pattern. Its `\d`, `\w` and `\s` classes are ASCII (and
    /// ECMA's whitespace) as in JavaScript, not Unicode as in Rust's `regex`. Lookaround
    /// and back-references are not supported: such a pattern is an error, so the schema
    /// is refused rather than the pattern ignored.
    pub(super) fn new(source: &str) -> Result<Pattern, String> {
        let translated = ecma_classes(source);
        regex::Regex::new(&translated)
            .map(|regex| Pattern {
                regex,
                source: source.to_string(),
            })
            .map_err(|e| {
                e.to_string()
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
    }

    /// The pattern as written in the schema.
    pub(super) fn source(&self) -> &str {
        &self.source
    }

    pub(super) fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// Rewrites ECMA-262 shorthand classes to their ECMA meaning in `regex` syntax.
fn ecma_classes(source: &str) -> String {
    const SPACE: &str = r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[A-Za-z0-9_]"),
            Some('W') => out.push_str("[^A-Za-z0-9_]"),
            Some('s') => out.push_str(&format!("[{SPACE}]")),
            Some('S') => out.push_str(&format!("[^{SPACE}]")),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(super) enum Additional {
    /// Not said: allowed by validation, dropped by lenient coercion when `properties` exist.
    #[default]
    Unspecified,
    Allow,
    Deny,
    Schema(usize),
}

/// One compiled (sub)schema.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Node {
    /// `true` or `false` schemas.
    pub(super) boolean: Option<bool>,
    pub(super) reference: Option<usize>,
    pub(super) types: Option<Vec<JsonType>>,
    pub(super) enumeration: Option<Vec<Value>>,
    pub(super) constant: Option<Value>,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    pub(super) minimum: Option<f64>,
    pub(super) maximum: Option<f64>,
    pub(super) exclusive_minimum: Option<f64>,
    pub(super) exclusive_maximum: Option<f64>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) multiple_of: Option<f64>,
    pub(super) pattern: Option<Pattern>,
    pub(super) format: Option<Format>,
    pub(super) items: Option<usize>,
    pub(super) prefix_items: Option<Vec<usize>>,
    pub(super) unique_items: bool,
    pub(super) contains: Option<usize>,
    pub(super) min_contains: Option<u64>,
    pub(super) max_contains: Option<u64>,
    pub(super) min_properties: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) pattern_properties: Vec<(Pattern, usize)>,
    pub(super) property_names: Option<usize>,
    pub(super) dependent_required: Vec<(String, Vec<String>)>,
    pub(super) dependent_schemas: Vec<(String, usize)>,
    pub(super) unevaluated_items: Option<usize>,
    pub(super) unevaluated_properties: Option<usize>,
    pub(super) not: Option<usize>,
    pub(super) condition: Option<Condition>,
    pub(super) properties: Option<Vec<(String, usize)>>,
    pub(super) required: Vec<String>,
    /// For each required name, its index in `properties` (to test presence without hashing).
    pub(super) required_index: Vec<Option<usize>>,
    pub(super) additional: Additional,
    pub(super) any_of: Option<Vec<usize>>,
    pub(super) one_of: Option<Vec<usize>>,
    pub(super) all_of: Option<Vec<usize>>,
    pub(super) default: Option<Value>,
    /// For a union of objects told apart by a constant field: the field and each branch's tag.
    pub(super) tag: Option<(String, Vec<String>)>,
    /// For a union of constants (an enum written as `oneOf`): the constants, for messages.
    pub(super) consts: Option<Vec<String>>,
    /// The types this node accepts after following `$ref` and unions (`None`: any).
    pub(super) effective: Option<Vec<JsonType>>,
}

impl Node {
    pub(super) fn property(&self, name: &str) -> Option<usize> {
        self.properties
            .as_ref()?
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, id)| *id)
    }

    /// Which of the first 64 declared properties `obj` has, as bits.
    pub(super) fn present(&self, obj: &Map<String, Value>) -> u64 {
        let Some(props) = &self.properties else {
            return 0;
        };
        let mut bits = 0u64;
        for k in obj.keys() {
            if let Some(i) = props.iter().position(|(n, _)| n == k).filter(|&i| i < 64) {
                bits |= 1 << i;
            }
        }
        bits
    }

    /// Whether `obj` has required field number `r`.
    pub(super) fn has_required(&self, r: usize, present: u64, obj: &Map<String, Value>) -> bool {
        match self.required_index.get(r).copied().flatten() {
            Some(i) if i < 64 => present & (1 << i) != 0,
            _ => obj.contains_key(&self.required[r]),
        }
    }

    /// Whether field `k` is neither declared in `properties` nor matched by a
    /// `patternProperties` pattern.
    pub(super) fn is_additional(&self, k: &str) -> bool {
        self.property(k).is_none() && !self.pattern_properties.iter().any(|(p, _)| p.is_match(k))
    }

    pub(super) fn union(&self) -> Option<&[usize]> {
        self.any_of.as_deref().or(self.one_of.as_deref())
    }
}
