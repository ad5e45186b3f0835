//! JSON Schema validation with JSON-Pointer paths, and schema-aligned coercion.
//!
//! The supported keywords are the ones model contracts use: `type` (one or a list),
//! `enum`, `const`, `properties`, `required`, `additionalProperties`, `items`,
//! `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum` (and the exclusive
//! forms), `anyOf`/`oneOf`/`allOf`, `$ref` into the same document (`#/$defs/…`,
//! `#/definitions/…`) and `default`. Other keywords (`format`, `pattern`, `title`,
//! `description`, …) are accepted and ignored.

use serde_json::{Map, Value};

use crate::outcome::{brief, push_pointer, Repair, RepairKind};

/// How many `$ref` hops are followed before a schema is called cyclic.
const MAX_REF_HOPS: usize = 32;

/// How deep validation and coercion descend (values are at most this deep anyway).
const MAX_DEPTH: usize = 256;

/// A JSON Schema the engine validates and coerces against.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    root: Value,
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
    pub fn new(root: Value) -> Result<Schema, SchemaError> {
        if !root.is_object() && !root.is_boolean() {
            return Err(SchemaError {
                path: "/".into(),
                message: "a schema must be a JSON object or a boolean".into(),
            });
        }
        let schema = Schema { root };
        schema.check_refs(&schema.root, &mut String::new(), 0)?;
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
            root: Value::Bool(true),
        }
    }

    /// The schema document.
    pub fn as_value(&self) -> &Value {
        &self.root
    }

    /// Every way `value` breaks the schema; empty when it is valid.
    pub fn validate(&self, value: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        self.check(value, &self.root, &mut String::new(), &mut out, 0);
        out
    }

    /// Whether `value` is valid against the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        let mut out = Vec::new();
        self.check(value, &self.root, &mut String::new(), &mut out, 0);
        out.is_empty()
    }

    /// Bends `value` toward the schema where the intent is unambiguous, recording each
    /// change. What cannot be coerced is left for validation to report.
    pub fn coerce(&self, value: &mut Value, repairs: &mut Vec<Repair>) {
        self.coerce_at(value, &self.root, &mut String::new(), repairs, 0);
    }

    /// The JSON types the schema's root accepts (`None` when it accepts any).
    pub fn root_types(&self) -> Option<Vec<&str>> {
        self.types_of(&self.root)
    }

    fn check_refs(&self, node: &Value, path: &mut String, depth: usize) -> Result<(), SchemaError> {
        if depth > MAX_DEPTH {
            return Err(SchemaError {
                path: path.clone(),
                message: "schema nested too deeply".into(),
            });
        }
        match node {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref") {
                    let Some(r) = r.as_str() else {
                        return Err(SchemaError {
                            path: path.clone(),
                            message: "$ref must be a string".into(),
                        });
                    };
                    if self.lookup(r).is_none() {
                        return Err(SchemaError {
                            path: path.clone(),
                            message: format!("$ref {r} does not point inside this schema"),
                        });
                    }
                }
                for (k, v) in map {
                    if k == "enum" || k == "const" || k == "default" || k == "examples" {
                        continue;
                    }
                    let len = path.len();
                    push_pointer(path, k);
                    self.check_refs(v, path, depth + 1)?;
                    path.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let len = path.len();
                    push_pointer(path, &i.to_string());
                    self.check_refs(v, path, depth + 1)?;
                    path.truncate(len);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn lookup(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(&self.root);
        }
        self.root.pointer(pointer)
    }

    /// Follows `$ref` from `node` to the schema it names (the node itself when it has none).
    fn target<'s>(&'s self, node: &'s Value) -> &'s Value {
        let mut node = node;
        for _ in 0..MAX_REF_HOPS {
            match node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.lookup(r))
            {
                Some(next) => node = next,
                None => return node,
            }
        }
        node
    }

    /// A keyword from the node, else from the schema its `$ref` names.
    fn keyword<'s>(&'s self, node: &'s Value, key: &str) -> Option<&'s Value> {
        node.get(key).or_else(|| {
            if node.get("$ref").is_some() {
                self.target(node).get(key)
            } else {
                None
            }
        })
    }

    fn types_of<'s>(&'s self, node: &'s Value) -> Option<Vec<&'s str>> {
        let node_t = self.target(node);
        match self.keyword(node, "type") {
            Some(Value::String(t)) => Some(vec![t.as_str()]),
            Some(Value::Array(ts)) => Some(ts.iter().filter_map(Value::as_str).collect()),
            _ => {
                // anyOf/oneOf: the union of the branches' types.
                let branches = node_t
                    .get("anyOf")
                    .or_else(|| node_t.get("oneOf"))
                    .and_then(Value::as_array)?;
                let mut out = Vec::new();
                for b in branches {
                    out.extend(self.types_of(b)?);
                }
                Some(out)
            }
        }
    }

    fn allows_null(&self, node: &Value) -> bool {
        match self.types_of(node) {
            Some(ts) => ts.contains(&"null"),
            None => false,
        }
    }

    fn default_of<'s>(&'s self, node: &'s Value) -> Option<&'s Value> {
        self.keyword(node, "default")
    }

    // ---- validation ----

    fn check(
        &self,
        v: &Value,
        node: &Value,
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let map = match node {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                out.push(violation(path, "no value is allowed here".into()));
                return;
            }
            Value::Object(map) => map,
            _ => return,
        };
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            if let Some(t) = self.lookup(r) {
                self.check(v, t, path, out, depth + 1);
            }
        }
        if let Some(t) = map.get("type") {
            let allowed: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !allowed.is_empty() && !allowed.iter().any(|t| type_matches(v, t)) {
                out.push(violation(
                    path,
                    format!(
                        "expected {}, found {}",
                        describe_types(&allowed),
                        describe_value(v)
                    ),
                ));
                return;
            }
        }
        if let Some(Value::Array(options)) = map.get("enum") {
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
        if let Some(c) = map.get("const") {
            if c != v {
                out.push(violation(
                    path,
                    format!("{} must be {}", brief(v), brief(c)),
                ));
            }
        }
        match v {
            Value::String(s) => {
                let len = s.chars().count() as u64;
                if let Some(min) = map.get("minLength").and_then(Value::as_u64) {
                    if len < min {
                        out.push(violation(
                            path,
                            format!(
                                "text of {len} characters is shorter than the minimum of {min}"
                            ),
                        ));
                    }
                }
                if let Some(max) = map.get("maxLength").and_then(Value::as_u64) {
                    if len > max {
                        out.push(violation(
                            path,
                            format!("text of {len} characters is longer than the maximum of {max}"),
                        ));
                    }
                }
            }
            Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    let bound = |k: &str| map.get(k).and_then(Value::as_f64);
                    if let Some(min) = bound("minimum") {
                        if x < min {
                            out.push(violation(
                                path,
                                format!("{n} is less than the minimum of {min}"),
                            ));
                        }
                    }
                    if let Some(max) = bound("maximum") {
                        if x > max {
                            out.push(violation(
                                path,
                                format!("{n} is greater than the maximum of {max}"),
                            ));
                        }
                    }
                    if let Some(min) = bound("exclusiveMinimum") {
                        if x <= min {
                            out.push(violation(path, format!("{n} must be greater than {min}")));
                        }
                    }
                    if let Some(max) = bound("exclusiveMaximum") {
                        if x >= max {
                            out.push(violation(path, format!("{n} must be less than {max}")));
                        }
                    }
                }
            }
            Value::Array(items) => {
                let len = items.len() as u64;
                if let Some(min) = map.get("minItems").and_then(Value::as_u64) {
                    if len < min {
                        out.push(violation(
                            path,
                            format!("{len} items, fewer than the minimum of {min}"),
                        ));
                    }
                }
                if let Some(max) = map.get("maxItems").and_then(Value::as_u64) {
                    if len > max {
                        out.push(violation(
                            path,
                            format!("{len} items, more than the maximum of {max}"),
                        ));
                    }
                }
                if let Some(item_schema) = map.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        let plen = path.len();
                        push_pointer(path, &i.to_string());
                        self.check(item, item_schema, path, out, depth + 1);
                        path.truncate(plen);
                    }
                }
            }
            Value::Object(obj) => {
                if let Some(Value::Array(required)) = map.get("required") {
                    for name in required.iter().filter_map(Value::as_str) {
                        if !obj.contains_key(name) {
                            out.push(violation(
                                path,
                                format!("missing required field \"{name}\""),
                            ));
                        }
                    }
                }
                let props = map.get("properties").and_then(Value::as_object);
                for (k, child) in obj {
                    let plen = path.len();
                    push_pointer(path, k);
                    match props.and_then(|p| p.get(k)) {
                        Some(prop) => self.check(child, prop, path, out, depth + 1),
                        None => match map.get("additionalProperties") {
                            Some(Value::Bool(false)) => {
                                path.truncate(plen);
                                out.push(violation(path, format!("unexpected field \"{k}\"")));
                            }
                            Some(extra @ Value::Object(_)) => {
                                self.check(child, extra, path, out, depth + 1)
                            }
                            _ => {}
                        },
                    }
                    path.truncate(plen);
                }
            }
            _ => {}
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            for branch in all {
                self.check(v, branch, path, out, depth + 1);
            }
        }
        for (keyword, exactly_one) in [("anyOf", false), ("oneOf", true)] {
            if let Some(Value::Array(branches)) = map.get(keyword) {
                self.check_union(v, branches, exactly_one, path, out, depth);
            }
        }
    }

    fn check_union(
        &self,
        v: &Value,
        branches: &[Value],
        exactly_one: bool,
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
        let mut results: Vec<Vec<Violation>> = Vec::with_capacity(branches.len());
        for branch in branches {
            let mut errs = Vec::new();
            self.check(v, branch, path, &mut errs, depth + 1);
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
        // Nothing matched. A union of constants (an enum written as `oneOf`) lists them.
        let consts: Option<Vec<String>> = branches
            .iter()
            .map(|b| {
                let b = self.target(b);
                b.get("const")
                    .or_else(
                        || match b.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
                            Some([one]) => Some(one),
                            _ => None,
                        },
                    )
                    .map(|c| match c {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
            })
            .collect();
        if let Some(consts) = consts.filter(|c| !c.is_empty()) {
            out.push(violation(
                path,
                format!("{} is not one of {}", brief(v), consts.join(", ")),
            ));
            return;
        }
        // A discriminated union reports the branch its tag names.
        if let Some((tag_key, tags)) = self.discriminator(branches) {
            match v.get(tag_key).and_then(Value::as_str) {
                Some(tag) => {
                    if let Some(i) = tags.iter().position(|t| t.as_deref() == Some(tag)) {
                        out.append(&mut results[i]);
                        return;
                    }
                    let plen = path.len();
                    push_pointer(path, tag_key);
                    let names: Vec<&str> = tags.iter().flatten().map(String::as_str).collect();
                    out.push(violation(
                        path,
                        format!("\"{tag}\" is not one of {}", names.join(", ")),
                    ));
                    path.truncate(plen);
                    return;
                }
                None if v.is_object() => {
                    out.push(violation(
                        path,
                        format!("missing required field \"{tag_key}\""),
                    ));
                    return;
                }
                None => {}
            }
        }
        // Otherwise the branch that came closest.
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

    /// For a union whose branches are objects told apart by a constant field, that field's
    /// name and each branch's tag.
    fn discriminator<'s>(
        &'s self,
        branches: &'s [Value],
    ) -> Option<(&'s str, Vec<Option<String>>)> {
        let mut key: Option<&str> = None;
        let mut tags = Vec::new();
        for b in branches {
            let b = self.target(b);
            let props = b.get("properties").and_then(Value::as_object)?;
            let mut found = None;
            for (name, prop) in props {
                let prop = self.target(prop);
                let tag = prop.get("const").and_then(Value::as_str).or_else(|| {
                    match prop
                        .get("enum")
                        .and_then(Value::as_array)
                        .map(Vec::as_slice)
                    {
                        Some([Value::String(s)]) => Some(s.as_str()),
                        _ => None,
                    }
                });
                if let Some(tag) = tag {
                    if key.is_none() || key == Some(name.as_str()) {
                        found = Some((name.as_str(), tag.to_string()));
                        break;
                    }
                }
            }
            let (name, tag) = found?;
            key = Some(name);
            tags.push(Some(tag));
        }
        key.map(|k| (k, tags))
    }

    // ---- coercion ----

    fn coerce_at(
        &self,
        v: &mut Value,
        node: &Value,
        path: &mut String,
        repairs: &mut Vec<Repair>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH || !node.is_object() {
            return;
        }
        let node = self.target(node);
        // Unions: keep a branch the value already fits, else the branch its tag names,
        // else the first branch coercion can make it fit.
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = node.get(keyword) {
                self.coerce_union(v, branches, path, repairs, depth);
                return;
            }
        }
        if let Some(Value::Array(all)) = node.get("allOf") {
            for branch in all {
                self.coerce_at(v, branch, path, repairs, depth + 1);
            }
        }
        let types = self.types_of(node).unwrap_or_default();
        if !types.is_empty() && !types.iter().any(|t| type_matches(v, t)) {
            self.convert(v, node, &types, path, repairs);
        }
        match v {
            Value::Object(obj) => self.coerce_object(obj, node, path, repairs, depth),
            Value::Array(items) => {
                if let Some(item_schema) = node.get("items") {
                    for (i, item) in items.iter_mut().enumerate() {
                        let plen = path.len();
                        push_pointer(path, &i.to_string());
                        self.coerce_at(item, item_schema, path, repairs, depth + 1);
                        path.truncate(plen);
                    }
                }
            }
            Value::String(s) => {
                let options: Vec<&Value> = match (node.get("enum"), node.get("const")) {
                    (Some(Value::Array(opts)), _) => opts.iter().collect(),
                    (_, Some(c)) => vec![c],
                    _ => vec![],
                };
                if !options.is_empty() && !options.iter().any(|o| o.as_str() == Some(s.as_str())) {
                    let wanted = s.trim();
                    if let Some(hit) = options
                        .iter()
                        .filter_map(|o| o.as_str())
                        .find(|o| o.eq_ignore_ascii_case(wanted))
                    {
                        *s = hit.to_string();
                        repairs.push(Repair::new(RepairKind::EnumCase, path.clone()));
                    }
                }
            }
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(0.0);
                let min = node.get("minimum").and_then(Value::as_f64);
                let max = node.get("maximum").and_then(Value::as_f64);
                let clamped = match (min, max) {
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
        branches: &[Value],
        path: &mut String,
        repairs: &mut Vec<Repair>,
        depth: usize,
    ) {
        if let Some(b) = branches.iter().find(|b| {
            let mut e = Vec::new();
            self.check(v, b, &mut path.clone(), &mut e, depth + 1);
            e.is_empty()
        }) {
            self.coerce_at(v, b, path, repairs, depth + 1);
            return;
        }
        if let (Some((tag_key, tags)), Some(obj)) =
            (self.discriminator(branches), v.as_object_mut())
        {
            if let Some(Value::String(tag)) = obj.get_mut(tag_key) {
                let wanted = tag.trim().to_string();
                if let Some(i) = tags.iter().position(|t| {
                    t.as_deref()
                        .is_some_and(|t| t.eq_ignore_ascii_case(&wanted))
                }) {
                    let exact = tags[i].clone().unwrap_or_default();
                    if *tag != exact {
                        *tag = exact;
                        let plen = path.len();
                        push_pointer(path, tag_key);
                        repairs.push(Repair::new(RepairKind::EnumCase, path.clone()));
                        path.truncate(plen);
                    }
                    self.coerce_at(v, &branches[i], path, repairs, depth + 1);
                    return;
                }
            }
        }
        for b in branches {
            let mut trial = v.clone();
            let mut trial_repairs = Vec::new();
            self.coerce_at(&mut trial, b, path, &mut trial_repairs, depth + 1);
            let mut e = Vec::new();
            self.check(&trial, b, &mut path.clone(), &mut e, depth + 1);
            if e.is_empty() {
                *v = trial;
                repairs.extend(trial_repairs);
                return;
            }
        }
    }

    fn coerce_object(
        &self,
        obj: &mut Map<String, Value>,
        node: &Value,
        path: &mut String,
        repairs: &mut Vec<Repair>,
        depth: usize,
    ) {
        let Some(props) = node.get("properties").and_then(Value::as_object) else {
            if let Some(extra @ Value::Object(_)) = node.get("additionalProperties") {
                for (k, child) in obj.iter_mut() {
                    let plen = path.len();
                    push_pointer(path, k);
                    self.coerce_at(child, extra, path, repairs, depth + 1);
                    path.truncate(plen);
                }
            }
            return;
        };
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let extra = node.get("additionalProperties");
        let keep_unknown = matches!(extra, Some(Value::Bool(true)) | Some(Value::Object(_)));
        if !keep_unknown {
            let unknown: Vec<String> = obj
                .keys()
                .filter(|k| !props.contains_key(*k))
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
        for (name, prop) in props {
            let plen = path.len();
            push_pointer(path, name);
            match obj.get_mut(name) {
                Some(child) => {
                    if child.is_null()
                        && !self.allows_null(prop)
                        && !required.contains(&name.as_str())
                    {
                        // `"concepts": null` for an optional list: the default is meant.
                        if let Some(fill) = self.fill_for_missing(prop) {
                            *child = fill;
                            repairs.push(Repair::new(RepairKind::DefaultFilled, path.clone()));
                        }
                    }
                    self.coerce_at(child, prop, path, repairs, depth + 1);
                }
                None => {
                    let fill = match self.default_of(prop) {
                        Some(d) => Some(d.clone()),
                        None if required.contains(&name.as_str()) => None,
                        None => self.fill_for_missing(prop),
                    };
                    if let Some(fill) = fill {
                        obj.insert(name.clone(), fill);
                        repairs.push(Repair::new(RepairKind::DefaultFilled, path.clone()));
                    }
                }
            }
            path.truncate(plen);
        }
        if let Some(extra @ Value::Object(_)) = extra {
            for (k, child) in obj.iter_mut().filter(|(k, _)| !props.contains_key(*k)) {
                let plen = path.len();
                push_pointer(path, k);
                self.coerce_at(child, extra, path, repairs, depth + 1);
                path.truncate(plen);
            }
        }
    }

    /// What a missing optional field becomes: its default, `[]` for a list, `null` when
    /// nullable; `None` when nothing is unambiguous.
    fn fill_for_missing(&self, prop: &Value) -> Option<Value> {
        if let Some(d) = self.default_of(prop) {
            return Some(d.clone());
        }
        let types = self.types_of(prop)?;
        if types.contains(&"array") {
            Some(Value::Array(Vec::new()))
        } else if types.contains(&"null") {
            Some(Value::Null)
        } else {
            None
        }
    }

    /// Converts a value of the wrong type where the intent is clear.
    fn convert(
        &self,
        v: &mut Value,
        node: &Value,
        types: &[&str],
        path: &str,
        repairs: &mut Vec<Repair>,
    ) {
        let wants = |t: &str| types.contains(&t);
        let record =
            |repairs: &mut Vec<Repair>, kind| repairs.push(Repair::new(kind, path.to_string()));
        let taken = std::mem::take(v);
        *v = match taken {
            // A JSON string holding the JSON that was asked for.
            Value::String(s)
                if (wants("object") || wants("array"))
                    && matches!(s.trim_start().as_bytes().first(), Some(b'{' | b'[')) =>
            {
                match crate::read_lenient_value(&s) {
                    Some(inner) if types.iter().any(|t| type_matches(&inner, t)) => {
                        record(repairs, RepairKind::UnwrappedDoubleEncoded);
                        inner
                    }
                    _ => self.convert_string(s, node, types, path, repairs),
                }
            }
            Value::String(s) => self.convert_string(s, node, types, path, repairs),
            Value::Array(mut items)
                if wants("object") && items.len() == 1 && items[0].is_object() =>
            {
                record(repairs, RepairKind::UnwrappedSingleElementArray);
                items.pop().unwrap_or_default()
            }
            Value::Null if wants("array") => {
                record(repairs, RepairKind::DefaultFilled);
                Value::Array(Vec::new())
            }
            other @ (Value::Object(_) | Value::Number(_) | Value::Bool(_)) if wants("array") => {
                let item_types = node.get("items").and_then(|i| self.types_of(i));
                let fits = item_types.is_none_or(|ts| ts.iter().any(|t| type_matches(&other, t)));
                if fits {
                    record(repairs, RepairKind::WrappedInArray);
                    Value::Array(vec![other])
                } else {
                    other
                }
            }
            Value::Number(n) if wants("string") => {
                record(repairs, RepairKind::StringifiedScalar);
                Value::String(n.to_string())
            }
            Value::Bool(b) if wants("string") => {
                record(repairs, RepairKind::StringifiedScalar);
                Value::String(b.to_string())
            }
            other => other,
        };
    }

    fn convert_string(
        &self,
        s: String,
        node: &Value,
        types: &[&str],
        path: &str,
        repairs: &mut Vec<Repair>,
    ) -> Value {
        let wants = |t: &str| types.contains(&t);
        let t = s.trim();
        if wants("integer") || wants("number") {
            if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(t) {
                let v = Value::Number(n);
                if types.iter().any(|ty| type_matches(&v, ty)) {
                    repairs.push(Repair::new(
                        RepairKind::ParsedScalarString,
                        path.to_string(),
                    ));
                    return v;
                }
            }
        }
        if wants("boolean") && (t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false")) {
            repairs.push(Repair::new(
                RepairKind::ParsedScalarString,
                path.to_string(),
            ));
            return Value::Bool(t.eq_ignore_ascii_case("true"));
        }
        if wants("array") {
            let item_node = node.get("items");
            let item_types = item_node.and_then(|i| self.types_of(i)).unwrap_or_default();
            if item_types.contains(&"string") {
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
            if item_types.contains(&"object") {
                // `key_claims: "one claim"`: a list of one claim made from the string.
                if let Some(obj) = item_node.and_then(|i| self.string_to_object(&s, i)) {
                    repairs.push(Repair::new(RepairKind::WrappedInArray, path.to_string()));
                    return Value::Array(vec![obj]);
                }
            }
        }
        if wants("object") {
            if let Some(obj) = self.string_to_object(&s, node) {
                repairs.push(Repair::new(RepairKind::StringToObject, path.to_string()));
                return obj;
            }
        }
        Value::String(s)
    }

    /// A bare string where an object is expected: the object with the string in its first
    /// required string field and every other field at its default, `[]` or `null`.
    fn string_to_object(&self, s: &str, node: &Value) -> Option<Value> {
        let node = self.target(node);
        let props = node.get("properties")?.as_object()?;
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let text_field = required.iter().find(|name| {
            props
                .get(**name)
                .and_then(|p| self.types_of(p))
                .is_some_and(|ts| ts.contains(&"string"))
        })?;
        let mut obj = Map::new();
        for (name, prop) in props {
            if name == text_field {
                obj.insert(name.clone(), Value::String(s.to_string()));
            } else if let Some(fill) = self.fill_for_missing(prop) {
                obj.insert(name.clone(), fill);
            } else if required.contains(&name.as_str()) {
                return None;
            }
        }
        Some(Value::Object(obj))
    }
}

fn violation(path: &str, message: String) -> Violation {
    Violation {
        path: path.to_string(),
        message,
    }
}

fn type_matches(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => match v {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        _ => true,
    }
}

fn describe_types(types: &[&str]) -> String {
    let names: Vec<&str> = types
        .iter()
        .map(|t| match *t {
            "object" => "an object",
            "array" => "an array",
            "string" => "a string",
            "number" => "a number",
            "integer" => "an integer",
            "boolean" => "a boolean",
            "null" => "null",
            other => other,
        })
        .collect();
    names.join(" or ")
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
