//! One compiled (sub)schema: its keywords, parsed once, with subschemas as node indices.

use serde_json::{Map, Value};

use super::types::JsonType;

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
    pub(super) items: Option<usize>,
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

    pub(super) fn union(&self) -> Option<&[usize]> {
        self.any_of.as_deref().or(self.one_of.as_deref())
    }
}
