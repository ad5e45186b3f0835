//! JSON Schema validation with JSON-Pointer paths, and schema-aligned coercion.
//!
//! The supported keywords are the ones model contracts use: `type` (one or a list),
//! `enum`, `const`, `properties`, `required`, `additionalProperties`, `items`,
//! `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum` (and the exclusive
//! forms), `anyOf`/`oneOf`/`allOf`, `$ref` into the same document (`#/$defs/…`,
//! `#/definitions/…`) and `default`. Other keywords (`format`, `pattern`, `title`,
//! `description`, …) are accepted and ignored.
//!
//! A schema is compiled once into an arena of nodes with every `$ref` resolved to a node
//! index, so validating and coercing never look keywords up by name or parse pointers.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::outcome::{brief, push_pointer, Repair, RepairKind};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    String,
    Number,
    Integer,
}

impl JsonType {
    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
        }
    }

    fn described(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Object => "an object",
            JsonType::Array => "an array",
            JsonType::String => "a string",
            JsonType::Number => "a number",
            JsonType::Integer => "an integer",
        }
    }

    fn matches(self, v: &Value) -> bool {
        match self {
            JsonType::Null => v.is_null(),
            JsonType::Boolean => v.is_boolean(),
            JsonType::Object => v.is_object(),
            JsonType::Array => v.is_array(),
            JsonType::String => v.is_string(),
            JsonType::Number => v.is_number(),
            JsonType::Integer => match v {
                Value::Number(n) => {
                    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
                }
                _ => false,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
enum Additional {
    /// Not said: allowed by validation, dropped by lenient coercion when `properties` exist.
    #[default]
    Unspecified,
    Allow,
    Deny,
    Schema(usize),
}

/// One compiled (sub)schema.
#[derive(Debug, Clone, PartialEq, Default)]
struct Node {
    /// `true` or `false` schemas.
    boolean: Option<bool>,
    reference: Option<usize>,
    types: Option<Vec<JsonType>>,
    enumeration: Option<Vec<Value>>,
    constant: Option<Value>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    items: Option<usize>,
    properties: Option<Vec<(String, usize)>>,
    required: Vec<String>,
    /// For each required name, its index in `properties` (to test presence without hashing).
    required_index: Vec<Option<usize>>,
    additional: Additional,
    any_of: Option<Vec<usize>>,
    one_of: Option<Vec<usize>>,
    all_of: Option<Vec<usize>>,
    default: Option<Value>,
    /// For a union of objects told apart by a constant field: the field and each branch's tag.
    tag: Option<(String, Vec<String>)>,
    /// For a union of constants (an enum written as `oneOf`): the constants, for messages.
    consts: Option<Vec<String>>,
    /// The types this node accepts after following `$ref` and unions (`None`: any).
    effective: Option<Vec<JsonType>>,
}

impl Node {
    fn property(&self, name: &str) -> Option<usize> {
        self.properties
            .as_ref()?
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, id)| *id)
    }

    /// Which of the first 64 declared properties `obj` has, as bits.
    fn present(&self, obj: &Map<String, Value>) -> u64 {
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
    fn has_required(&self, r: usize, present: u64, obj: &Map<String, Value>) -> bool {
        match self.required_index.get(r).copied().flatten() {
            Some(i) if i < 64 => present & (1 << i) != 0,
            _ => obj.contains_key(&self.required[r]),
        }
    }

    fn union(&self) -> Option<&[usize]> {
        self.any_of.as_deref().or(self.one_of.as_deref())
    }
}

struct Compiler<'d> {
    doc: &'d Value,
    nodes: Vec<Node>,
    by_pointer: HashMap<String, usize>,
}

impl<'d> Compiler<'d> {
    fn compile(&mut self, pointer: &str, depth: usize) -> Result<usize, SchemaError> {
        if let Some(&id) = self.by_pointer.get(pointer) {
            return Ok(id);
        }
        let err = |message: String| SchemaError {
            path: if pointer.is_empty() {
                "/".into()
            } else {
                pointer.to_string()
            },
            message,
        };
        if depth > MAX_DEPTH {
            return Err(err("schema nested too deeply".into()));
        }
        let value = self
            .doc
            .pointer(pointer)
            .ok_or_else(|| err("no schema here".into()))?;
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_pointer.insert(pointer.to_string(), id);
        let mut node = Node::default();
        let map = match value {
            Value::Bool(b) => {
                node.boolean = Some(*b);
                self.nodes[id] = node;
                return Ok(id);
            }
            Value::Object(map) => map,
            _ => return Err(err("a schema must be a JSON object or a boolean".into())),
        };
        let child = |key: &str| {
            let mut p = pointer.to_string();
            push_pointer(&mut p, key);
            p
        };
        if let Some(r) = map.get("$ref") {
            let r = r
                .as_str()
                .ok_or_else(|| err("$ref must be a string".into()))?;
            let target = r
                .strip_prefix('#')
                .filter(|t| self.doc.pointer(t).is_some())
                .ok_or_else(|| err(format!("$ref {r} does not point inside this schema")))?;
            node.reference = Some(self.compile(target, depth + 1)?);
        }
        node.types = match map.get("type") {
            Some(Value::String(t)) => Some(
                JsonType::parse(t)
                    .map(|t| vec![t])
                    .ok_or_else(|| err(format!("unknown type {t:?}")))?,
            ),
            Some(Value::Array(ts)) => Some(
                ts.iter()
                    .map(|t| t.as_str().and_then(JsonType::parse))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| err("unknown type in the type list".into()))?,
            ),
            Some(_) => return Err(err("type must be a string or a list of strings".into())),
            None => None,
        };
        node.enumeration = map.get("enum").and_then(Value::as_array).cloned();
        node.constant = map.get("const").cloned();
        let uint = |k: &str| map.get(k).and_then(Value::as_u64);
        let float = |k: &str| map.get(k).and_then(Value::as_f64);
        node.min_length = uint("minLength");
        node.max_length = uint("maxLength");
        node.min_items = uint("minItems");
        node.max_items = uint("maxItems");
        node.minimum = float("minimum");
        node.maximum = float("maximum");
        node.exclusive_minimum = float("exclusiveMinimum");
        node.exclusive_maximum = float("exclusiveMaximum");
        node.default = map.get("default").cloned();
        if map
            .get("items")
            .is_some_and(|i| i.is_object() || i.is_boolean())
        {
            node.items = Some(self.compile(&child("items"), depth + 1)?);
        }
        if let Some(props) = map.get("properties").and_then(Value::as_object) {
            let mut list = Vec::with_capacity(props.len());
            let base = child("properties");
            for name in props.keys() {
                let mut p = base.clone();
                push_pointer(&mut p, name);
                list.push((name.clone(), self.compile(&p, depth + 1)?));
            }
            node.properties = Some(list);
        }
        node.required = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
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
                Additional::Schema(self.compile(&child("additionalProperties"), depth + 1)?)
            }
            Some(_) => {
                return Err(err(
                    "additionalProperties must be a boolean or a schema".into()
                ))
            }
        };
        for (key, slot) in [
            ("anyOf", &mut node.any_of),
            ("oneOf", &mut node.one_of),
            ("allOf", &mut node.all_of),
        ] {
            if let Some(list) = map.get(key) {
                let list = list
                    .as_array()
                    .ok_or_else(|| err(format!("{key} must be a list of schemas")))?;
                let base = child(key);
                let mut ids = Vec::with_capacity(list.len());
                for i in 0..list.len() {
                    let mut p = base.clone();
                    push_pointer(&mut p, &i.to_string());
                    ids.push(self.compile(&p, depth + 1)?);
                }
                *slot = Some(ids);
            }
        }
        self.nodes[id] = node;
        Ok(id)
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
        let mut c = Compiler {
            doc: &doc,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
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
                message: "the schema refers back to itself ($ref, anyOf, oneOf or allOf) without descending into a property or an item, so checking a value against it would never end".into(),
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
        let mut ids = vec![self.root];
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            let mut next = Vec::new();
            for id in ids {
                self.subschemas_at(id, &token, &mut next, 0);
            }
            if next.is_empty() {
                return false;
            }
            ids = next;
        }
        ids.iter().all(|&id| {
            self.types_of(id, 0).is_some_and(|ts| {
                !ts.is_empty()
                    && ts
                        .iter()
                        .all(|t| matches!(t, JsonType::Number | JsonType::Integer))
            })
        })
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
            None => {
                if let Additional::Schema(x) = node.additional {
                    out.push(x);
                }
            }
        }
        if token.parse::<usize>().is_ok() {
            if let Some(i) = node.items {
                out.push(i);
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

    // ---- validation ----

    fn check(
        &self,
        v: &Value,
        id: usize,
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let node = &self.nodes[id];
        match node.boolean {
            Some(true) => return,
            Some(false) => {
                out.push(violation(path, "no value is allowed here".into()));
                return;
            }
            None => {}
        }
        if let Some(r) = node.reference {
            self.check(v, r, path, out, depth + 1);
        }
        if let Some(types) = &node.types {
            if !types.is_empty() && !types.iter().any(|t| t.matches(v)) {
                let names: Vec<&str> = types.iter().map(|t| t.described()).collect();
                out.push(violation(
                    path,
                    format!(
                        "expected {}, found {}",
                        names.join(" or "),
                        describe_value(v)
                    ),
                ));
                return;
            }
        }
        if let Some(options) = &node.enumeration {
            if !options.contains(v) {
                let names: Vec<String> = options
                    .iter()
                    .map(|o| match o {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                out.push(violation(
                    path,
                    format!("{} is not one of {}", brief(v), names.join(", ")),
                ));
            }
        }
        if let Some(c) = &node.constant {
            if c != v {
                out.push(violation(
                    path,
                    format!("{} must be {}", brief(v), brief(c)),
                ));
            }
        }
        match v {
            Value::String(s) if node.min_length.is_some() || node.max_length.is_some() => {
                let len = s.chars().count() as u64;
                if let Some(min) = node.min_length.filter(|&m| len < m) {
                    out.push(violation(
                        path,
                        format!("text of {len} characters is shorter than the minimum of {min}"),
                    ));
                }
                if let Some(max) = node.max_length.filter(|&m| len > m) {
                    out.push(violation(
                        path,
                        format!("text of {len} characters is longer than the maximum of {max}"),
                    ));
                }
            }
            Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    if let Some(min) = node.minimum.filter(|&m| x < m) {
                        out.push(violation(
                            path,
                            format!("{n} is less than the minimum of {min}"),
                        ));
                    }
                    if let Some(max) = node.maximum.filter(|&m| x > m) {
                        out.push(violation(
                            path,
                            format!("{n} is greater than the maximum of {max}"),
                        ));
                    }
                    if let Some(min) = node.exclusive_minimum.filter(|&m| x <= m) {
                        out.push(violation(path, format!("{n} must be greater than {min}")));
                    }
                    if let Some(max) = node.exclusive_maximum.filter(|&m| x >= m) {
                        out.push(violation(path, format!("{n} must be less than {max}")));
                    }
                }
            }
            Value::Array(items) => {
                let len = items.len() as u64;
                if let Some(min) = node.min_items.filter(|&m| len < m) {
                    out.push(violation(
                        path,
                        format!("{len} items, fewer than the minimum of {min}"),
                    ));
                }
                if let Some(max) = node.max_items.filter(|&m| len > m) {
                    out.push(violation(
                        path,
                        format!("{len} items, more than the maximum of {max}"),
                    ));
                }
                if let Some(item) = node.items {
                    for (i, it) in items.iter().enumerate() {
                        let plen = path.len();
                        push_index(path, i);
                        self.check(it, item, path, out, depth + 1);
                        path.truncate(plen);
                    }
                }
            }
            Value::Object(obj) => {
                let present = node.present(obj);
                for (r, name) in node.required.iter().enumerate() {
                    if !node.has_required(r, present, obj) {
                        out.push(violation(
                            path,
                            format!("missing required field \"{name}\""),
                        ));
                    }
                }
                let checks_children = node.properties.is_some()
                    || matches!(node.additional, Additional::Deny | Additional::Schema(_));
                if checks_children {
                    for (k, child) in obj {
                        match node.property(k) {
                            Some(prop) => {
                                let plen = path.len();
                                push_pointer(path, k);
                                self.check(child, prop, path, out, depth + 1);
                                path.truncate(plen);
                            }
                            None => match node.additional {
                                Additional::Deny => {
                                    out.push(violation(path, format!("unexpected field \"{k}\"")))
                                }
                                Additional::Schema(extra) => {
                                    let plen = path.len();
                                    push_pointer(path, k);
                                    self.check(child, extra, path, out, depth + 1);
                                    path.truncate(plen);
                                }
                                _ => {}
                            },
                        }
                    }
                }
            }
            _ => {}
        }
        if let Some(all) = &node.all_of {
            for &b in all {
                self.check(v, b, path, out, depth + 1);
            }
        }
        if let Some(branches) = &node.any_of {
            self.check_union(v, id, branches, false, path, out, depth);
        }
        if let Some(branches) = &node.one_of {
            self.check_union(v, id, branches, true, path, out, depth);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_union(
        &self,
        v: &Value,
        id: usize,
        branches: &[usize],
        exactly_one: bool,
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
        let node = &self.nodes[id];
        // A discriminated union only has to look at the branch its tag names.
        if let (Some((key, tags)), Some(obj)) = (&node.tag, v.as_object()) {
            if let Some(Value::String(tag)) = obj.get(key.as_str()) {
                if let Some(i) = tags.iter().position(|t| t == tag) {
                    self.check(v, branches[i], path, out, depth + 1);
                    return;
                }
                let plen = path.len();
                push_pointer(path, key);
                out.push(violation(
                    path,
                    format!("\"{tag}\" is not one of {}", tags.join(", ")),
                ));
                path.truncate(plen);
                return;
            }
            // No tag (or not a string): the branches are checked one by one below.
        }
        let mut results: Vec<Vec<Violation>> = Vec::with_capacity(branches.len());
        for &b in branches {
            let mut errs = Vec::new();
            self.check(v, b, path, &mut errs, depth + 1);
            results.push(errs);
        }
        let matching = results.iter().filter(|e| e.is_empty()).count();
        if matching == 1 || (matching > 1 && !exactly_one) {
            return;
        }
        if matching > 1 {
            out.push(violation(
                path,
                "matches more than one of the allowed shapes".into(),
            ));
            return;
        }
        if let Some(consts) = &node.consts {
            out.push(violation(
                path,
                format!("{} is not one of {}", brief(v), consts.join(", ")),
            ));
            return;
        }
        let best = results.into_iter().min_by_key(Vec::len).unwrap_or_default();
        if best.len() == 1 {
            out.extend(best);
        } else {
            out.push(violation(
                path,
                format!(
                    "{} does not match any of the allowed shapes",
                    describe_value(v)
                ),
            ));
        }
    }

    fn branch_fits(&self, v: &Value, b: usize, path: &mut String, depth: usize) -> bool {
        // A constant branch is decided without building messages.
        let node = &self.nodes[self.target(b)];
        if let Some(c) = &node.constant {
            if node.properties.is_none() && node.union().is_none() {
                return c == v
                    && node
                        .types
                        .as_ref()
                        .is_none_or(|ts| ts.iter().any(|t| t.matches(v)));
            }
        }
        let mut e = Vec::new();
        self.check(v, b, path, &mut e, depth + 1);
        e.is_empty()
    }

    // ---- coercion ----

    fn coerce_at(
        &self,
        v: &mut Value,
        id: usize,
        path: &mut String,
        repairs: &mut Vec<Repair>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH || self.nodes[id].boolean.is_some() {
            return;
        }
        let t = self.target(id);
        let node = &self.nodes[t];
        // Unions: keep a branch the value already fits, else the branch its tag names,
        // else the first branch coercion can make it fit.
        if let Some(branches) = node.union() {
            self.coerce_union(v, t, branches, path, repairs, depth);
            return;
        }
        if let Some(all) = &node.all_of {
            for &b in all {
                self.coerce_at(v, b, path, repairs, depth + 1);
            }
        }
        if let Some(types) = self.types_of(id, 0) {
            if !types.is_empty() && !types.iter().any(|ty| ty.matches(v)) {
                self.convert(v, t, types, path, repairs);
            }
        }
        match v {
            Value::Object(obj) => self.coerce_object(obj, t, path, repairs, depth),
            Value::Array(items) => {
                if let Some(item) = node.items {
                    for (i, it) in items.iter_mut().enumerate() {
                        let plen = path.len();
                        push_index(path, i);
                        self.coerce_at(it, item, path, repairs, depth + 1);
                        path.truncate(plen);
                    }
                }
            }
            Value::String(s) => {
                let options: &[Value] = match (&node.enumeration, &node.constant) {
                    (Some(opts), _) => opts,
                    (_, Some(c)) => std::slice::from_ref(c),
                    _ => &[],
                };
                if !options.is_empty() && !options.iter().any(|o| o.as_str() == Some(s.as_str())) {
                    let wanted = s.trim();
                    if let Some(hit) = options
                        .iter()
                        .filter_map(Value::as_str)
                        .find(|o| o.eq_ignore_ascii_case(wanted))
                    {
                        *s = hit.to_string();
                        repairs.push(Repair::new(RepairKind::EnumCase, path.clone()));
                    }
                }
            }
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(0.0);
                let clamped = match (node.minimum, node.maximum) {
                    (Some(lo), _) if x < lo => Some(lo),
                    (_, Some(hi)) if x > hi => Some(hi),
                    _ => None,
                };
                if let Some(c) = clamped.and_then(crate::repair::number_from_f64) {
                    *v = c;
                    repairs.push(Repair::new(RepairKind::ClampedNumber, path.clone()));
                }
            }
            _ => {}
        }
    }

    fn coerce_union(
        &self,
        v: &mut Value,
        id: usize,
        branches: &[usize],
        path: &mut String,
        repairs: &mut Vec<Repair>,
        depth: usize,
    ) {
        let node = &self.nodes[id];
        // The branch a tag names (matched ignoring case).
        if let (Some((key, tags)), Some(obj)) = (&node.tag, v.as_object_mut()) {
            if let Some(Value::String(tag)) = obj.get_mut(key.as_str()) {
                let wanted = tag.trim().to_string();
                if let Some(i) = tags.iter().position(|t| t.eq_ignore_ascii_case(&wanted)) {
                    if *tag != tags[i] {
                        *tag = tags[i].clone();
                        let plen = path.len();
                        push_pointer(path, key);
                        repairs.push(Repair::new(RepairKind::EnumCase, path.clone()));
                        path.truncate(plen);
                    }
                    self.coerce_at(v, branches[i], path, repairs, depth + 1);
                    return;
                }
            }
        }
        if let Some(&b) = branches
            .iter()
            .find(|&&b| self.branch_fits(v, b, &mut *path, depth))
        {
            self.coerce_at(v, b, path, repairs, depth + 1);
            return;
        }
        for &b in branches {
            let mut trial = v.clone();
            let mut trial_repairs = Vec::new();
            self.coerce_at(&mut trial, b, path, &mut trial_repairs, depth + 1);
            if self.branch_fits(&trial, b, path, depth) {
                *v = trial;
                repairs.extend(trial_repairs);
                return;
            }
        }
    }

    fn coerce_object(
        &self,
        obj: &mut Map<String, Value>,
        id: usize,
        path: &mut String,
        repairs: &mut Vec<Repair>,
        depth: usize,
    ) {
        let node = &self.nodes[id];
        let Some(props) = &node.properties else {
            if let Additional::Schema(extra) = node.additional {
                for (k, child) in obj.iter_mut() {
                    let plen = path.len();
                    push_pointer(path, k);
                    self.coerce_at(child, extra, path, repairs, depth + 1);
                    path.truncate(plen);
                }
            }
            return;
        };
        if matches!(node.additional, Additional::Unspecified | Additional::Deny)
            && obj.keys().any(|k| node.property(k).is_none())
        {
            let unknown: Vec<String> = obj
                .keys()
                .filter(|k| node.property(k).is_none())
                .cloned()
                .collect();
            for k in unknown {
                obj.shift_remove(&k);
                let plen = path.len();
                push_pointer(path, &k);
                repairs.push(Repair::new(RepairKind::DroppedUnknownField, path.clone()));
                path.truncate(plen);
            }
        }
        // Fields that are there: coerce each (a null optional list means its default).
        let mut present = 0u64;
        for (k, child) in obj.iter_mut() {
            let Some(i) = props.iter().position(|(n, _)| n == k) else {
                continue;
            };
            if i < 64 {
                present |= 1 << i;
            }
            let prop = props[i].1;
            let plen = path.len();
            push_pointer(path, k);
            let required = node.required.iter().any(|r| r == k);
            if child.is_null() && !required && !self.allows_null(prop) {
                if let Some(fill) = self.fill_for_missing(prop) {
                    *child = fill;
                    repairs.push(Repair::new(RepairKind::DefaultFilled, path.clone()));
                }
            }
            self.coerce_at(child, prop, path, repairs, depth + 1);
            path.truncate(plen);
        }
        // Fields that are missing: their default, `[]` or `null` — never a required one
        // without a declared default.
        for (i, (name, prop)) in props.iter().enumerate() {
            let missing = if i < 64 {
                present & (1 << i) == 0
            } else {
                !obj.contains_key(name)
            };
            if !missing {
                continue;
            }
            let required = node.required.iter().any(|r| r == name);
            let fill = match self.default_of(*prop) {
                Some(d) => Some(d.clone()),
                None if required => None,
                None => self.fill_for_missing(*prop),
            };
            if let Some(fill) = fill {
                obj.insert(name.clone(), fill);
                let plen = path.len();
                push_pointer(path, name);
                repairs.push(Repair::new(RepairKind::DefaultFilled, path.clone()));
                path.truncate(plen);
            }
        }
        if let Additional::Schema(extra) = node.additional {
            for (k, child) in obj.iter_mut().filter(|(k, _)| node.property(k).is_none()) {
                let plen = path.len();
                push_pointer(path, k);
                self.coerce_at(child, extra, path, repairs, depth + 1);
                path.truncate(plen);
            }
        }
    }

    /// What a missing optional field becomes: its default, `[]` for a list, `null` when
    /// nullable; `None` when nothing is unambiguous.
    fn fill_for_missing(&self, id: usize) -> Option<Value> {
        if let Some(d) = self.default_of(id) {
            return Some(d.clone());
        }
        let types = self.types_of(id, 0)?;
        if types.contains(&JsonType::Array) {
            Some(Value::Array(Vec::new()))
        } else if types.contains(&JsonType::Null) {
            Some(Value::Null)
        } else {
            None
        }
    }

    /// Converts a value of the wrong type where the intent is clear.
    fn convert(
        &self,
        v: &mut Value,
        id: usize,
        types: &[JsonType],
        path: &str,
        repairs: &mut Vec<Repair>,
    ) {
        let wants = |t: JsonType| types.contains(&t);
        let record =
            |repairs: &mut Vec<Repair>, kind| repairs.push(Repair::new(kind, path.to_string()));
        let taken = std::mem::take(v);
        *v = match taken {
            // A JSON string holding the JSON that was asked for.
            Value::String(s)
                if (wants(JsonType::Object) || wants(JsonType::Array))
                    && matches!(s.trim_start().as_bytes().first(), Some(b'{' | b'[')) =>
            {
                match crate::read_lenient_value(&s) {
                    Some(inner) if types.iter().any(|t| t.matches(&inner)) => {
                        record(repairs, RepairKind::UnwrappedDoubleEncoded);
                        inner
                    }
                    _ => self.convert_string(s, id, types, path, repairs),
                }
            }
            Value::String(s) => self.convert_string(s, id, types, path, repairs),
            Value::Array(mut items)
                if wants(JsonType::Object) && items.len() == 1 && items[0].is_object() =>
            {
                record(repairs, RepairKind::UnwrappedSingleElementArray);
                items.pop().unwrap_or_default()
            }
            Value::Null if wants(JsonType::Array) => {
                record(repairs, RepairKind::DefaultFilled);
                Value::Array(Vec::new())
            }
            other @ (Value::Object(_) | Value::Number(_) | Value::Bool(_))
                if wants(JsonType::Array) =>
            {
                let item_types = self.nodes[id].items.and_then(|i| self.types_of(i, 0));
                let fits = item_types.is_none_or(|ts| ts.iter().any(|t| t.matches(&other)));
                if fits {
                    record(repairs, RepairKind::WrappedInArray);
                    Value::Array(vec![other])
                } else {
                    other
                }
            }
            Value::Number(n) if wants(JsonType::String) => {
                record(repairs, RepairKind::StringifiedScalar);
                Value::String(n.to_string())
            }
            Value::Bool(b) if wants(JsonType::String) => {
                record(repairs, RepairKind::StringifiedScalar);
                Value::String(b.to_string())
            }
            other => other,
        };
    }

    fn convert_string(
        &self,
        s: String,
        id: usize,
        types: &[JsonType],
        path: &str,
        repairs: &mut Vec<Repair>,
    ) -> Value {
        let wants = |t: JsonType| types.contains(&t);
        let t = s.trim();
        if wants(JsonType::Integer) || wants(JsonType::Number) {
            if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(t) {
                let v = Value::Number(n);
                if types.iter().any(|ty| ty.matches(&v)) {
                    repairs.push(Repair::new(
                        RepairKind::ParsedScalarString,
                        path.to_string(),
                    ));
                    return v;
                }
            }
        }
        if wants(JsonType::Boolean)
            && (t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false"))
        {
            repairs.push(Repair::new(
                RepairKind::ParsedScalarString,
                path.to_string(),
            ));
            return Value::Bool(t.eq_ignore_ascii_case("true"));
        }
        if wants(JsonType::Array) {
            let item = self.nodes[id].items;
            let item_types = item.and_then(|i| self.types_of(i, 0)).unwrap_or(&[]);
            if item_types.contains(&JsonType::String) {
                let parts: Vec<Value> = if s.contains(',') {
                    repairs.push(Repair::new(RepairKind::SplitCommaString, path.to_string()));
                    s.split(',')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(|p| Value::String(p.to_string()))
                        .collect()
                } else {
                    repairs.push(Repair::new(RepairKind::WrappedInArray, path.to_string()));
                    if t.is_empty() {
                        Vec::new()
                    } else {
                        vec![Value::String(t.to_string())]
                    }
                };
                return Value::Array(parts);
            }
            if item_types.contains(&JsonType::Object) {
                // `key_claims: "one claim"`: a list of one claim made from the string.
                if let Some(obj) = item.and_then(|i| self.string_to_object(&s, i)) {
                    repairs.push(Repair::new(RepairKind::WrappedInArray, path.to_string()));
                    return Value::Array(vec![obj]);
                }
            }
        }
        if wants(JsonType::Object) {
            if let Some(obj) = self.string_to_object(&s, id) {
                repairs.push(Repair::new(RepairKind::StringToObject, path.to_string()));
                return obj;
            }
        }
        Value::String(s)
    }

    /// A bare string where an object is expected: the object with the string in its first
    /// required string field and every other field at its default, `[]` or `null`.
    fn string_to_object(&self, s: &str, id: usize) -> Option<Value> {
        let node = &self.nodes[self.target(id)];
        let props = node.properties.as_ref()?;
        let text_field = node.required.iter().find(|name| {
            node.property(name)
                .and_then(|p| self.types_of(p, 0))
                .is_some_and(|ts| ts.contains(&JsonType::String))
        })?;
        let mut obj = Map::new();
        for (name, prop) in props {
            if name == text_field {
                obj.insert(name.clone(), Value::String(s.to_string()));
            } else if let Some(fill) = self.fill_for_missing(*prop) {
                obj.insert(name.clone(), fill);
            } else if node.required.contains(name) {
                return None;
            }
        }
        Some(Value::Object(obj))
    }
}

fn push_index(path: &mut String, i: usize) {
    use std::fmt::Write;
    let _ = write!(path, "/{i}");
}

fn violation(path: &str, message: String) -> Violation {
    Violation {
        path: path.to_string(),
        message,
    }
}

fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => format!("the string {}", brief(v)),
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// A node on a cycle of edges that check the same value again (`$ref`, `anyOf`, `oneOf`,
/// `allOf`), if any: such a schema could only be checked by looping (or branching
/// exponentially) on one value. Iterative, so a deep schema cannot overflow the stack.
fn loop_without_descent(nodes: &[Node]) -> Option<usize> {
    let same_value = |n: &Node| -> Vec<usize> {
        let mut out: Vec<usize> = n.reference.into_iter().collect();
        for list in [&n.any_of, &n.one_of, &n.all_of].into_iter().flatten() {
            out.extend(list.iter().copied());
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
