//! Compiling a schema document into nodes: every keyword read once, every `$ref`
//! resolved to a node index, every keyword the engine cannot check refused.
//!
//! A keyword that is neither checked nor a pure annotation makes the schema fail to load:
//! ignoring it would let values through that the schema's author meant to refuse.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::formats::Format;
use super::ids::Ids;
use super::node::{Additional, Condition, Node, Pattern};
use super::types::JsonType;
use super::{SchemaError, MAX_DEPTH};
use crate::outcome::push_pointer;

/// Keywords that only describe (they never make a value invalid), and `$defs` (a place
/// for schemas that `$ref` reaches).
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
];

/// Keywords that name a schema for `$ref` (see `ids`).
const IDENTIFIERS: &[&str] = &["$id", "$anchor"];

/// Keywords the engine checks.
const CHECKED: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
];

pub(super) struct Compiler<'d> {
    pub(super) doc: &'d Value,
    pub(super) nodes: Vec<Node>,
    pub(super) by_pointer: HashMap<String, usize>,
    pub(super) ids: Ids,
}

/// Reads the keywords of one schema object.
struct Keywords<'m> {
    map: &'m Map<String, Value>,
    pointer: &'m str,
}

impl Keywords<'_> {
    fn err(&self, message: String) -> SchemaError {
        SchemaError {
            path: if self.pointer.is_empty() {
                "/".into()
            } else {
                self.pointer.to_string()
            },
            message,
        }
    }

    fn child(&self, key: &str) -> String {
        let mut p = self.pointer.to_string();
        push_pointer(&mut p, key);
        p
    }

    /// A non-negative integer keyword (`2.0` counts as 2).
    fn count(&self, key: &str) -> Result<Option<u64>, SchemaError> {
        let Some(v) = self.map.get(key) else {
            return Ok(None);
        };
        let n = v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        });
        n.map(Some)
            .ok_or_else(|| self.err(format!("{key} must be a non-negative integer")))
    }

    fn number(&self, key: &str) -> Result<Option<f64>, SchemaError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.err(format!("{key} must be a number"))),
        }
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>, SchemaError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => string_list(v)
                .map(Some)
                .ok_or_else(|| self.err(format!("{key} must be a list of strings"))),
        }
    }

    fn regex(&self, key: &str, source: &Value) -> Result<Pattern, SchemaError> {
        let source = source
            .as_str()
            .ok_or_else(|| self.err(format!("{key} must be a string")))?;
        Pattern::new(source).map_err(|e| {
            self.err(format!(
                "{key} {source:?} is not a regular expression the engine can check: {e}"
            ))
        })
    }
}

fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect()
}

impl<'d> Compiler<'d> {
    pub(super) fn compile(&mut self, pointer: &str, depth: usize) -> Result<usize, SchemaError> {
        if let Some(&id) = self.by_pointer.get(pointer) {
            return Ok(id);
        }
        let empty = Map::new();
        let here = Keywords {
            map: &empty,
            pointer,
        };
        if depth > MAX_DEPTH {
            return Err(here.err("schema nested too deeply".into()));
        }
        let value = self
            .doc
            .pointer(pointer)
            .ok_or_else(|| here.err("no schema here".into()))?;
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_pointer.insert(pointer.to_string(), id);
        let map = match value {
            Value::Bool(b) => {
                self.nodes[id] = Node {
                    boolean: Some(*b),
                    ..Node::default()
                };
                return Ok(id);
            }
            Value::Object(map) => map,
            _ => return Err(here.err("a schema must be a JSON object or a boolean".into())),
        };
        let k = Keywords { map, pointer };
        for key in map.keys() {
            let known = CHECKED.contains(&key.as_str())
                || ANNOTATIONS.contains(&key.as_str())
                || IDENTIFIERS.contains(&key.as_str());
            if !known {
                return Err(k.err(format!(
                    "the keyword {key:?} is not one the engine checks, so the schema is refused rather than the keyword ignored"
                )));
            }
        }
        if let Some(dialect) = map.get("$schema") {
            let known = dialect.as_str().is_some_and(|d| {
                let d = d.trim_end_matches('#');
                let d = d
                    .strip_prefix("https://")
                    .or_else(|| d.strip_prefix("http://"));
                matches!(
                    d,
                    Some(
                        "json-schema.org/draft/2020-12/schema"
                            | "json-schema.org/draft/2019-09/schema"
                            | "json-schema.org/draft-07/schema"
                    )
                )
            });
            if !known {
                return Err(k.err(format!(
                    "$schema {dialect} is not a dialect the engine knows (2020-12, 2019-09 or draft-07), so it cannot tell which keywords the schema uses"
                )));
            }
        }
        for key in ["$defs", "definitions"] {
            if map.get(key).is_some_and(|d| !d.is_object()) {
                return Err(k.err(format!("{key} must be an object of schemas")));
            }
        }
        let node = self.keywords(&k, depth)?;
        self.nodes[id] = node;
        Ok(id)
    }

    fn sub(&mut self, k: &Keywords, key: &str, depth: usize) -> Result<Option<usize>, SchemaError> {
        match k.map.get(key) {
            None => Ok(None),
            Some(Value::Object(_) | Value::Bool(_)) => {
                Ok(Some(self.compile(&k.child(key), depth + 1)?))
            }
            Some(_) => Err(k.err(format!("{key} must be a schema"))),
        }
    }

    fn sub_list(
        &mut self,
        k: &Keywords,
        key: &str,
        depth: usize,
    ) -> Result<Option<Vec<usize>>, SchemaError> {
        let Some(list) = k.map.get(key) else {
            return Ok(None);
        };
        let list = list
            .as_array()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| k.err(format!("{key} must be a non-empty list of schemas")))?;
        let base = k.child(key);
        let mut ids = Vec::with_capacity(list.len());
        for i in 0..list.len() {
            let mut p = base.clone();
            push_pointer(&mut p, &i.to_string());
            ids.push(self.compile(&p, depth + 1)?);
        }
        Ok(Some(ids))
    }

    /// Subschemas by name (`properties`, `dependentSchemas`), in the document's order.
    fn sub_map(
        &mut self,
        k: &Keywords,
        key: &str,
        depth: usize,
    ) -> Result<Option<Vec<(String, usize)>>, SchemaError> {
        let Some(map) = k.map.get(key) else {
            return Ok(None);
        };
        let map = map
            .as_object()
            .ok_or_else(|| k.err(format!("{key} must be an object of schemas")))?;
        let base = k.child(key);
        let mut list = Vec::with_capacity(map.len());
        for name in map.keys() {
            let mut p = base.clone();
            push_pointer(&mut p, name);
            list.push((name.clone(), self.compile(&p, depth + 1)?));
        }
        Ok(Some(list))
    }

    fn keywords(&mut self, k: &Keywords, depth: usize) -> Result<Node, SchemaError> {
        let map = k.map;
        let mut node = Node::default();
        if let Some(r) = map.get("$ref") {
            let r = r
                .as_str()
                .ok_or_else(|| k.err("$ref must be a string".into()))?;
            let target = self
                .ids
                .target(k.pointer, r)
                .filter(|t| self.doc.pointer(t).is_some())
                .ok_or_else(|| k.err(format!("$ref {r} does not point inside this schema")))?;
            node.reference = Some(self.compile(&target, depth + 1)?);
        }
        node.types = match map.get("type") {
            Some(Value::String(t)) => Some(
                JsonType::parse(t)
                    .map(|t| vec![t])
                    .ok_or_else(|| k.err(format!("unknown type {t:?}")))?,
            ),
            Some(Value::Array(ts)) => Some(
                ts.iter()
                    .map(|t| t.as_str().and_then(JsonType::parse))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| k.err("unknown type in the type list".into()))?,
            ),
            Some(_) => return Err(k.err("type must be a string or a list of strings".into())),
            None => None,
        };
        node.enumeration = match map.get("enum") {
            None => None,
            Some(Value::Array(options)) => Some(options.clone()),
            Some(_) => return Err(k.err("enum must be a list".into())),
        };
        node.constant = map.get("const").cloned();
        node.min_length = k.count("minLength")?;
        node.max_length = k.count("maxLength")?;
        node.min_items = k.count("minItems")?;
        node.max_items = k.count("maxItems")?;
        node.min_contains = k.count("minContains")?;
        node.max_contains = k.count("maxContains")?;
        node.min_properties = k.count("minProperties")?;
        node.max_properties = k.count("maxProperties")?;
        node.minimum = k.number("minimum")?;
        node.maximum = k.number("maximum")?;
        node.exclusive_minimum = k.number("exclusiveMinimum")?;
        node.exclusive_maximum = k.number("exclusiveMaximum")?;
        node.multiple_of = k.number("multipleOf")?;
        if node.multiple_of.is_some_and(|m| m <= 0.0) {
            return Err(k.err("multipleOf must be greater than 0".into()));
        }
        if let Some(p) = map.get("pattern") {
            node.pattern = Some(k.regex("pattern", p)?);
        }
        if let Some(f) = map.get("format") {
            let name = f
                .as_str()
                .ok_or_else(|| k.err("format must be a string".into()))?;
            node.format = Some(Format::parse(name).ok_or_else(|| {
                k.err(format!(
                    "the format {name:?} is not one the engine checks (it checks {})",
                    Format::NAMES.join(", ")
                ))
            })?);
        }
        node.unique_items = match map.get("uniqueItems") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(k.err("uniqueItems must be a boolean".into())),
        };
        if map.get("items").is_some_and(Value::is_array) {
            return Err(k.err(
                "items must be one schema (a list of schemas is written prefixItems)".into(),
            ));
        }
        node.items = self.sub(k, "items", depth)?;
        node.prefix_items = self.sub_list(k, "prefixItems", depth)?;
        node.contains = self.sub(k, "contains", depth)?;
        node.properties = self.sub_map(k, "properties", depth)?;
        if let Some(pp) = map.get("patternProperties") {
            let pp = pp
                .as_object()
                .ok_or_else(|| k.err("patternProperties must be an object of schemas".into()))?;
            let base = k.child("patternProperties");
            for (source, _) in pp {
                let pattern = k.regex("patternProperties", &Value::String(source.clone()))?;
                let mut p = base.clone();
                push_pointer(&mut p, source);
                node.pattern_properties
                    .push((pattern, self.compile(&p, depth + 1)?));
            }
        }
        node.required = k.strings("required")?.unwrap_or_default();
        node.required_index = node
            .required
            .iter()
            .map(|r| node.properties.as_ref()?.iter().position(|(n, _)| n == r))
            .collect();
        node.additional = match map.get("additionalProperties") {
            None => Additional::Unspecified,
            Some(Value::Bool(true)) => Additional::Allow,
            Some(Value::Bool(false)) => Additional::Deny,
            Some(Value::Object(_)) => {
                Additional::Schema(self.compile(&k.child("additionalProperties"), depth + 1)?)
            }
            Some(_) => {
                return Err(k.err("additionalProperties must be a boolean or a schema".into()))
            }
        };
        node.property_names = self.sub(k, "propertyNames", depth)?;
        if let Some(dr) = map.get("dependentRequired") {
            let dr = dr
                .as_object()
                .ok_or_else(|| k.err("dependentRequired must be an object of lists".into()))?;
            for (name, list) in dr {
                let list = string_list(list).ok_or_else(|| {
                    k.err(format!(
                        "dependentRequired/{name} must be a list of strings"
                    ))
                })?;
                node.dependent_required.push((name.clone(), list));
            }
        }
        node.dependent_schemas = self
            .sub_map(k, "dependentSchemas", depth)?
            .unwrap_or_default();
        node.all_of = self.sub_list(k, "allOf", depth)?;
        node.any_of = self.sub_list(k, "anyOf", depth)?;
        node.one_of = self.sub_list(k, "oneOf", depth)?;
        node.not = self.sub(k, "not", depth)?;
        node.unevaluated_items = self.sub(k, "unevaluatedItems", depth)?;
        node.unevaluated_properties = self.sub(k, "unevaluatedProperties", depth)?;
        // `then` and `else` without `if` have no effect; they are still read, so a
        // keyword in them the engine cannot check is still refused.
        let when = self.sub(k, "if", depth)?;
        let then = self.sub(k, "then", depth)?;
        let otherwise = self.sub(k, "else", depth)?;
        node.condition = when.map(|when| Condition {
            when,
            then,
            otherwise,
        });
        node.default = map.get("default").cloned();
        Ok(node)
    }
}

/// A node on a cycle of edges that check the same value again (`$ref`, `anyOf`, `oneOf`,
/// `allOf`, `not`, `if`/`then`/`else`, `dependentSchemas`), if any: such a schema could
/// only be checked by looping (or branching exponentially) on one value. Iterative, so a
/// deep schema cannot overflow the stack.
pub(super) fn loop_without_descent(nodes: &[Node]) -> Option<usize> {
    let same_value = |n: &Node| -> Vec<usize> {
        let mut out: Vec<usize> = n.reference.into_iter().collect();
        for list in [&n.any_of, &n.one_of, &n.all_of].into_iter().flatten() {
            out.extend(list.iter().copied());
        }
        out.extend(n.not);
        if let Some(c) = &n.condition {
            out.push(c.when);
            out.extend(c.then);
            out.extend(c.otherwise);
        }
        out.extend(n.dependent_schemas.iter().map(|(_, s)| *s));
        out
    };
    // 0 = not seen, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(start, same_value(&nodes[start]))];
        state[start] = 1;
        while let Some((id, next)) = stack.last_mut() {
            match next.pop() {
                Some(n) if n < nodes.len() => match state[n] {
                    1 => return Some(n),
                    0 => {
                        state[n] = 1;
                        let edges = same_value(&nodes[n]);
                        stack.push((n, edges));
                    }
                    _ => {}
                },
                Some(_) => {}
                None => {
                    state[*id] = 2;
                    stack.pop();
                }
            }
        }
    }
    None
}
