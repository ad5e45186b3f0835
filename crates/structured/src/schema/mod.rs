//! JSON Schema validation with JSON-Pointer paths, and schema-aligned coercion.
//!
//! Validation means what the schema says. The checked keywords are those of draft
//! 2020-12's core applicators and validation vocabulary: `type`, `enum`, `const`,
//! `multipleOf`, `minimum`/`maximum` (and the exclusive forms), `minLength`/`maxLength`,
//! `pattern`, `format` (as an assertion, for the formats in `formats`), `items`,
//! `prefixItems`, `minItems`/`maxItems`, `uniqueItems`, `contains` with
//! `minContains`/`maxContains`, `properties`, `patternProperties`, `additionalProperties`,
//! `required`, `minProperties`/`maxProperties`, `propertyNames`, `dependentRequired`,
//! `dependentSchemas`, `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`,
//! `unevaluatedItems`/`unevaluatedProperties`, and `$ref` to any schema of the same
//! document (by JSON Pointer, `$id` or `$anchor`; see `ids`). Annotations (`title`,
//! `description`, `default`, `examples`, …) are accepted. Any other keyword
//! (`$dynamicRef`, `$dynamicAnchor`, an unknown `format`, a pattern `regex` cannot check,
//! …) and any `$ref` outside the document make the schema fail to load with the place and
//! the keyword named: the engine never ignores what a schema asks, and fetches nothing.
//!
//! A schema is compiled once into an arena of nodes with every `$ref` resolved to a node
//! index, so validating and coercing never look keywords up by name or parse pointers.
//! One concern per file: `types` (JSON types), `node` (a compiled subschema),
//! `compile` (keywords to nodes), `validate`, `coerce`, `formats` and
//! `hostname` (the `format` checks), `ids` (what `$ref` points to).

use std::collections::HashMap;

mod coerce;
mod compile;
mod formats;
mod hostname;
mod ids;
mod node;
mod types;
mod validate;

use serde_json::Value;

use crate::outcome::Repair;
use compile::{loop_without_descent, Compiler};
use node::{Additional, Node};
use types::JsonType;

/// How many `$ref` hops are followed before a schema is called cyclic.
const MAX_REF_HOPS: usize = 32;

/// How deep validation, coercion and compilation descend.
const MAX_DEPTH: usize = 256;

/// A JSON Schema the engine validates and coerces against.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    doc: Value,
    nodes: Vec<Node>,
    root: usize,
}

/// A schema that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON Schema at {path}: {message}")]
pub struct SchemaError {
    /// Where in the schema (a JSON Pointer).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// One way a value breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Where in the value, as a JSON Pointer (`""` is the whole value).
    pub path: String,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

impl Schema {
    /// Takes a JSON Schema document. It must be an object or a boolean, and every `$ref`
    /// in it must point inside it.
    pub fn new(doc: Value) -> Result<Schema, SchemaError> {
        if !doc.is_object() && !doc.is_boolean() {
            return Err(SchemaError {
                path: "/".into(),
                message: "a schema must be a JSON object or a boolean".into(),
            });
        }
        let ids = ids::Ids::new(&doc).map_err(|(path, message)| SchemaError {
            path: if path.is_empty() { "/".into() } else { path },
            message,
        })?;
        let mut c = Compiler {
            doc: &doc,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            ids,
        };
        let root = c.compile("", 0)?;
        if let Some(id) = loop_without_descent(&c.nodes) {
            let pointer = c
                .by_pointer
                .iter()
                .filter(|(_, &v)| v == id)
                .map(|(k, _)| k.as_str())
                .min()
                .unwrap_or("");
            return Err(SchemaError {
                path: if pointer.is_empty() { "/".into() } else { pointer.into() },
                message: "the schema refers back to itself ($ref, anyOf, oneOf, allOf, not, if/then/else or dependentSchemas) without descending into a property or an item, so checking a value against it would never end".into(),
            });
        }
        let nodes = c.nodes;
        let mut schema = Schema { doc, nodes, root };
        // Precompute, now that refs resolve: effective types, and for unions their
        // discriminators and constant lists.
        for id in 0..schema.nodes.len() {
            schema.nodes[id].effective = schema.compute_types(id, 0);
        }
        for id in 0..schema.nodes.len() {
            if let Some(branches) = schema.nodes[id].union().map(<[usize]>::to_vec) {
                let tag = schema.discriminator(&branches);
                let consts = schema.union_consts(&branches);
                schema.nodes[id].tag = tag;
                schema.nodes[id].consts = consts;
            }
        }
        Ok(schema)
    }

    /// Parses a JSON Schema from text.
    pub fn from_json(text: &str) -> Result<Schema, SchemaError> {
        let value: Value = serde_json::from_str(text).map_err(|e| SchemaError {
            path: "/".into(),
            message: format!("not valid JSON: {e}"),
        })?;
        Schema::new(value)
    }

    /// The schema that accepts any value.
    pub fn any() -> Schema {
        Schema {
            doc: Value::Bool(true),
            nodes: vec![Node {
                boolean: Some(true),
                ..Node::default()
            }],
            root: 0,
        }
    }

    /// The schema document.
    pub fn as_value(&self) -> &Value {
        &self.doc
    }

    /// Every way `value` breaks the schema; empty when it is valid.
    pub fn validate(&self, value: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        self.check(value, self.root, &mut String::new(), &mut out, 0);
        out
    }

    /// Whether `value` is valid against the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validate(value).is_empty()
    }

    /// Bends `value` toward the schema where the intent is unambiguous, recording each
    /// change. What cannot be coerced is left for validation to report.
    pub fn coerce(&self, value: &mut Value, repairs: &mut Vec<Repair>) {
        self.coerce_at(value, self.root, &mut String::new(), repairs, 0);
    }

    /// The JSON types the schema's root accepts (`None` when it accepts any).
    pub fn root_types(&self) -> Option<Vec<&str>> {
        self.types_of(self.root, 0)
            .map(|ts| ts.iter().map(|t| t.name()).collect())
    }

    /// Whether the schema's root asks for text: its type is `string`, or it is an enum or
    /// constant holding a string. (The schema that accepts anything does not: with it, a
    /// bare word is no answer.)
    pub(crate) fn root_accepts_text(&self) -> bool {
        if let Some(ts) = self.types_of(self.root, 0) {
            return ts.contains(&JsonType::String);
        }
        let node = &self.nodes[self.target(self.root)];
        node.enumeration
            .iter()
            .flatten()
            .chain(node.constant.iter())
            .any(Value::is_string)
    }

    /// Whether the schema asks for a number (and only a number) at `pointer`, a JSON
    /// Pointer into a value: every subschema that can apply there says `number` or
    /// `integer`.
    pub(crate) fn expects_number_at(&self, pointer: &str) -> bool {
        self.expects_at(pointer, |ts| {
            ts.iter()
                .all(|t| matches!(t, JsonType::Number | JsonType::Integer))
        })
    }

    /// Whether the schema asks for text at `pointer` (and not a boolean or null, which a
    /// word such as `none` or `TRUE` could also mean).
    pub(crate) fn expects_text_at(&self, pointer: &str) -> bool {
        self.expects_at(pointer, |ts| {
            ts.contains(&JsonType::String)
                && !ts.contains(&JsonType::Boolean)
                && !ts.contains(&JsonType::Null)
        }) || self.enum_of_text_at(pointer)
    }

    /// An enum or constant of strings at `pointer` (its value is text, told apart there).
    fn enum_of_text_at(&self, pointer: &str) -> bool {
        let Some(ids) = self.nodes_at(pointer) else {
            return false;
        };
        ids.iter().all(|&id| {
            let node = &self.nodes[self.target(id)];
            node.enumeration
                .iter()
                .flatten()
                .chain(node.constant.iter())
                .any(Value::is_string)
        })
    }

    fn expects_at(&self, pointer: &str, accept: impl Fn(&[JsonType]) -> bool) -> bool {
        let Some(ids) = self.nodes_at(pointer) else {
            return false;
        };
        ids.iter().all(|&id| {
            self.types_of(id, 0)
                .is_some_and(|ts| !ts.is_empty() && accept(ts))
        })
    }

    /// The subschemas that apply at `pointer`; `None` when none does.
    fn nodes_at(&self, pointer: &str) -> Option<Vec<usize>> {
        let mut ids = vec![self.root];
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            let mut next = Vec::new();
            for id in ids {
                self.subschemas_at(id, &token, &mut next, 0);
            }
            if next.is_empty() {
                return None;
            }
            ids = next;
        }
        Some(ids)
    }

    /// The subschemas that apply to the member or item `token` of a value checked
    /// against node `id`.
    fn subschemas_at(&self, id: usize, token: &str, out: &mut Vec<usize>, depth: usize) {
        if depth > MAX_REF_HOPS {
            return;
        }
        let t = self.target(id);
        let node = &self.nodes[t];
        if node.boolean.is_some() {
            out.push(t);
            return;
        }
        match node.property(token) {
            Some(p) => out.push(p),
            None if node.is_additional(token) => {
                if let Additional::Schema(x) = node.additional {
                    out.push(x);
                }
            }
            None => {}
        }
        for (pattern, s) in &node.pattern_properties {
            if pattern.is_match(token) {
                out.push(*s);
            }
        }
        if let Ok(i) = token.parse::<usize>() {
            match node.prefix_items.as_ref().and_then(|p| p.get(i)) {
                Some(&p) => out.push(p),
                None => out.extend(node.items),
            }
        }
        for list in [&node.any_of, &node.one_of, &node.all_of]
            .into_iter()
            .flatten()
        {
            for &b in list {
                self.subschemas_at(b, token, out, depth + 1);
            }
        }
    }

    /// Follows `$ref` from `id` to the node it names (`id` itself when it has none).
    fn target(&self, mut id: usize) -> usize {
        for _ in 0..MAX_REF_HOPS {
            match self.nodes[id].reference {
                Some(next) => id = next,
                None => return id,
            }
        }
        id
    }

    /// The types node `id` accepts (precomputed).
    fn types_of(&self, id: usize, _depth: usize) -> Option<&[JsonType]> {
        self.nodes[id].effective.as_deref()
    }

    fn compute_types(&self, id: usize, depth: usize) -> Option<Vec<JsonType>> {
        if depth > MAX_REF_HOPS {
            return None;
        }
        if let Some(ts) = &self.nodes[id].types {
            return Some(ts.clone());
        }
        let t = self.target(id);
        if let Some(ts) = &self.nodes[t].types {
            return Some(ts.clone());
        }
        let branches = self.nodes[t].union()?;
        let mut out = Vec::new();
        for &b in branches {
            out.extend(self.compute_types(b, depth + 1)?);
        }
        Some(out)
    }

    fn allows_null(&self, id: usize) -> bool {
        self.types_of(id, 0)
            .is_some_and(|ts| ts.contains(&JsonType::Null))
    }

    fn default_of(&self, id: usize) -> Option<&Value> {
        self.nodes[id]
            .default
            .as_ref()
            .or_else(|| self.nodes[self.target(id)].default.as_ref())
    }

    fn discriminator(&self, branches: &[usize]) -> Option<(String, Vec<String>)> {
        let mut key: Option<&str> = None;
        let mut tags = Vec::new();
        for &b in branches {
            let node = &self.nodes[self.target(b)];
            let props = node.properties.as_ref()?;
            let mut found = None;
            for (name, prop) in props {
                let prop = &self.nodes[self.target(*prop)];
                let single = match prop.enumeration.as_deref() {
                    Some([Value::String(s)]) => Some(s.as_str()),
                    _ => None,
                };
                let tag = prop.constant.as_ref().and_then(Value::as_str).or(single);
                if let Some(tag) = tag {
                    if key.is_none() || key == Some(name.as_str()) {
                        found = Some((name.as_str(), tag.to_string()));
                        break;
                    }
                }
            }
            let (name, tag) = found?;
            key = Some(name);
            tags.push(tag);
        }
        key.map(|k| (k.to_string(), tags))
    }

    fn union_consts(&self, branches: &[usize]) -> Option<Vec<String>> {
        let consts: Option<Vec<String>> = branches
            .iter()
            .map(|&b| {
                let node = &self.nodes[self.target(b)];
                node.constant
                    .as_ref()
                    .or(match node.enumeration.as_deref() {
                        Some([one]) => Some(one),
                        _ => None,
                    })
                    .map(|c| match c {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
            })
            .collect();
        consts.filter(|c| !c.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 12: `pattern`, `multipleOf` and `format` were ignored, so "abc", 7 and
    /// "nope" passed.
    #[test]
    fn pattern_multiple_of_and_format_are_checked() {
        let schema = Schema::new(json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[0-9]+$"},
                "step": {"type": "integer", "multipleOf": 5},
                "day": {"type": "string", "format": "date"}
            }
        }))
        .unwrap();
        let v = schema.validate(&json!({"code": "abc", "step": 7, "day": "nope"}));
        let paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
        assert_eq!(paths, vec!["/code", "/step", "/day"], "{v:?}");
        assert!(schema.is_valid(&json!({"code": "123", "step": 10, "day": "2024-02-29"})));
    }

    #[test]
    fn keywords_the_engine_cannot_check_are_refused_with_where() {
        for (doc, path, named) in [
            (
                json!({"properties": {"a": {"$dynamicRef": "#meta"}}}),
                "/properties/a",
                "$dynamicRef",
            ),
            (
                json!({"items": {"format": "uri-template"}}),
                "/items",
                "uri-template",
            ),
            (json!({"pattern": "a(?=b)"}), "/", "pattern"),
            (json!({"items": [{"type": "string"}]}), "/", "prefixItems"),
            (
                json!({"$schema": "http://example.com/my-dialect"}),
                "/",
                "dialect",
            ),
            (
                json!({"$defs": {"a": {"$id": "a.json"}}, "$ref": "#/$defs/a"}),
                "/$defs/a",
                "$id",
            ),
            (json!({"minLength": -1}), "/", "minLength"),
            (
                json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}}),
                "/properties/a",
                "does not point inside",
            ),
        ] {
            let err = Schema::new(doc.clone()).unwrap_err();
            assert_eq!(err.path, path, "{doc}: {err}");
            assert!(err.message.contains(named), "{doc}: {err}");
        }
        // Annotations are accepted.
        Schema::new(json!({"title": "T", "description": "D", "examples": [1], "$comment": "c", "deprecated": true})).unwrap();
    }

    /// Lenient coercion drops fields a schema does not declare; a field a
    /// `patternProperties` pattern declares is kept (and checked).
    #[test]
    fn coercion_keeps_fields_declared_by_a_pattern() {
        let schema = Schema::new(json!({
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "patternProperties": {"^x-": {"type": "integer"}}
        }))
        .unwrap();
        let mut v = json!({"id": "a", "x-count": "3", "other": 1});
        let mut repairs = Vec::new();
        schema.coerce(&mut v, &mut repairs);
        assert_eq!(v, json!({"id": "a", "x-count": "3"}));
        assert!(!schema.is_valid(&v), "x-count must be an integer");
    }

    #[test]
    fn a_loop_through_not_or_if_is_refused() {
        for bad in [json!({"not": {"$ref": "#"}}), json!({"if": {"$ref": "#"}})] {
            let err = Schema::new(bad.clone()).unwrap_err();
            assert!(
                err.message.contains("refers back to itself"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn bad_schemas_are_refused_with_where() {
        let err =
            Schema::new(json!({"properties": {"a": {"$ref": "#/$defs/Missing"}}})).unwrap_err();
        assert_eq!(err.path, "/properties/a");
        assert!(err.message.contains("does not point inside"), "{err}");
        let err = Schema::new(json!({"type": "strnig"})).unwrap_err();
        assert!(err.message.contains("unknown type"), "{err}");
        assert!(Schema::new(json!(3)).is_err());
    }

    /// Regression: a schema whose union refers back to itself branched exponentially on
    /// any value (`wikimind parse --schema` never returned).
    #[test]
    fn schemas_that_loop_on_one_value_are_refused() {
        for bad in [
            json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}),
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"oneOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
            json!({"properties": {"x": {"allOf": [{"$ref": "#/properties/x"}]}}}),
        ] {
            let err = Schema::new(bad.clone()).unwrap_err();
            assert!(
                err.message.contains("refers back to itself"),
                "{bad}: {err}"
            );
        }
        // Recursion through a property or an item is fine: it descends into the value.
        let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}});
        let s = Schema::new(tree).unwrap();
        assert!(s.is_valid(&json!({"kids": [{"kids": []}]})));
    }

    #[test]
    fn recursive_schemas_compile_and_validate() {
        let schema = Schema::new(json!({
            "$defs": {"Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}},
            "$ref": "#/$defs/Tree"
        }))
        .unwrap();
        assert!(schema.is_valid(&json!({"children": [{"children": []}]})));
        let v = schema.validate(&json!({"children": [{"children": 3}]}));
        assert_eq!(v[0].path, "/children/0/children");
    }
}
