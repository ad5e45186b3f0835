//! Validation: every way a value breaks its schema, each with a JSON Pointer.

use serde_json::{Map, Value};

use super::node::{Additional, Node};
use super::{Schema, Violation, MAX_DEPTH};
use crate::outcome::{brief, push_pointer};

impl Schema {
    pub(super) fn check(
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
            if !options.iter().any(|o| json_eq(o, v)) {
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
            if !json_eq(c, v) {
                out.push(violation(
                    path,
                    format!("{} must be {}", brief(v), brief(c)),
                ));
            }
        }
        match v {
            Value::String(s) => check_string(node, s, path, out),
            Value::Number(n) => check_number(node, n, path, out),
            Value::Array(items) => {
                self.check_array(node, items, path, out, depth);
                if let Some(u) = node.unevaluated_items {
                    let mut marks = vec![false; items.len()];
                    self.mark_items(v, items, id, false, &mut marks, path, depth);
                    for (i, it) in items.iter().enumerate().filter(|(i, _)| !marks[*i]) {
                        let plen = path.len();
                        push_index(path, i);
                        self.check(it, u, path, out, depth + 1);
                        path.truncate(plen);
                    }
                }
            }
            Value::Object(obj) => {
                self.check_object(node, obj, path, out, depth);
                if let Some(u) = node.unevaluated_properties {
                    let mut marks = vec![false; obj.len()];
                    self.mark_keys(v, obj, id, false, &mut marks, path, depth);
                    for ((k, child), _) in obj.iter().zip(&marks).filter(|(_, m)| !**m) {
                        let plen = path.len();
                        push_pointer(path, k);
                        self.check(child, u, path, out, depth + 1);
                        path.truncate(plen);
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
        if let Some(not) = node.not {
            if self.fits(v, not, path, depth) {
                out.push(violation(
                    path,
                    format!("{} matches a shape that is not allowed", describe_value(v)),
                ));
            }
        }
        if let Some(c) = node.condition {
            let branch = if self.fits(v, c.when, path, depth) {
                c.then
            } else {
                c.otherwise
            };
            if let Some(b) = branch {
                self.check(v, b, path, out, depth + 1);
            }
        }
    }

    /// The subschemas that apply to `v` where `id` applies, and whose evaluations count
    /// for `unevaluated*`: `$ref`, and the branches of `allOf`, `anyOf`, `oneOf`,
    /// `if`/`then`/`else` and `dependentSchemas` that `v` is valid against.
    fn applied(&self, v: &Value, id: usize, path: &mut String, depth: usize) -> Vec<usize> {
        let node = &self.nodes[id];
        let mut out: Vec<usize> = Vec::new();
        let mut candidates: Vec<usize> = node.reference.into_iter().collect();
        for list in [&node.all_of, &node.any_of, &node.one_of]
            .into_iter()
            .flatten()
        {
            candidates.extend(list);
        }
        if let Some(c) = node.condition {
            if self.fits(v, c.when, path, depth) {
                out.push(c.when);
                candidates.extend(c.then);
            } else {
                candidates.extend(c.otherwise);
            }
        }
        if let Value::Object(obj) = v {
            candidates.extend(
                node.dependent_schemas
                    .iter()
                    .filter(|(name, _)| obj.contains_key(name))
                    .map(|(_, s)| *s),
            );
        }
        out.extend(
            candidates
                .into_iter()
                .filter(|&b| self.fits(v, b, path, depth)),
        );
        out
    }

    /// Marks the members of `obj` that node `id` evaluates (`properties`,
    /// `patternProperties`, `additionalProperties`, a nested `unevaluatedProperties`
    /// when `with_unevaluated`, and what the subschemas it applies evaluate).
    #[allow(clippy::too_many_arguments)]
    fn mark_keys(
        &self,
        v: &Value,
        obj: &Map<String, Value>,
        id: usize,
        with_unevaluated: bool,
        marks: &mut [bool],
        path: &mut String,
        depth: usize,
    ) {
        let node = &self.nodes[id];
        if depth > MAX_DEPTH || node.boolean.is_some() {
            return;
        }
        let all = (with_unevaluated && node.unevaluated_properties.is_some())
            || !matches!(node.additional, Additional::Unspecified);
        for (mark, k) in marks.iter_mut().zip(obj.keys()) {
            if all || !node.is_additional(k) {
                *mark = true;
            }
        }
        for b in self.applied(v, id, path, depth) {
            self.mark_keys(v, obj, b, true, marks, path, depth + 1);
        }
    }

    /// Marks the items of `items` that node `id` evaluates (`prefixItems`, `items`,
    /// `contains`, a nested `unevaluatedItems` when `with_unevaluated`, and what the
    /// subschemas it applies evaluate).
    #[allow(clippy::too_many_arguments)]
    fn mark_items(
        &self,
        v: &Value,
        items: &[Value],
        id: usize,
        with_unevaluated: bool,
        marks: &mut [bool],
        path: &mut String,
        depth: usize,
    ) {
        let node = &self.nodes[id];
        if depth > MAX_DEPTH || node.boolean.is_some() {
            return;
        }
        let prefix = node.prefix_items.as_ref().map_or(0, Vec::len);
        let all = (with_unevaluated && node.unevaluated_items.is_some()) || node.items.is_some();
        for (i, mark) in marks.iter_mut().enumerate() {
            if all || i < prefix {
                *mark = true;
            }
        }
        if let Some(c) = node.contains {
            for (i, it) in items.iter().enumerate() {
                if !marks[i] && self.fits(it, c, path, depth) {
                    marks[i] = true;
                }
            }
        }
        for b in self.applied(v, id, path, depth) {
            self.mark_items(v, items, b, true, marks, path, depth + 1);
        }
    }

    /// Whether `v` is valid against node `id`.
    fn fits(&self, v: &Value, id: usize, path: &mut String, depth: usize) -> bool {
        let mut e = Vec::new();
        self.check(v, id, path, &mut e, depth + 1);
        e.is_empty()
    }

    fn check_array(
        &self,
        node: &Node,
        items: &[Value],
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
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
        let prefix = node.prefix_items.as_deref().unwrap_or(&[]);
        for (i, it) in items.iter().enumerate() {
            let schema = prefix.get(i).copied().or(node.items);
            if let Some(schema) = schema {
                let plen = path.len();
                push_index(path, i);
                self.check(it, schema, path, out, depth + 1);
                path.truncate(plen);
            }
        }
        if let Some(contains) = node.contains {
            let matching = items
                .iter()
                .filter(|it| self.fits(it, contains, path, depth))
                .count() as u64;
            let min = node.min_contains.unwrap_or(1);
            if matching < min {
                out.push(violation(
                    path,
                    format!("{matching} items of the required shape, fewer than {min}"),
                ));
            }
            if let Some(max) = node.max_contains.filter(|&m| matching > m) {
                out.push(violation(
                    path,
                    format!("{matching} items of the limited shape, more than {max}"),
                ));
            }
        }
        if node.unique_items {
            let repeated =
                (1..items.len()).find(|&j| (0..j).any(|i| json_eq(&items[i], &items[j])));
            if let Some(j) = repeated {
                out.push(violation(
                    path,
                    format!("item {j} repeats an earlier item; items must be unique"),
                ));
            }
        }
    }

    fn check_object(
        &self,
        node: &Node,
        obj: &Map<String, Value>,
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
        let len = obj.len() as u64;
        if let Some(min) = node.min_properties.filter(|&m| len < m) {
            out.push(violation(
                path,
                format!("{len} fields, fewer than the minimum of {min}"),
            ));
        }
        if let Some(max) = node.max_properties.filter(|&m| len > m) {
            out.push(violation(
                path,
                format!("{len} fields, more than the maximum of {max}"),
            ));
        }
        let present = node.present(obj);
        for (r, name) in node.required.iter().enumerate() {
            if !node.has_required(r, present, obj) {
                out.push(violation(
                    path,
                    format!("missing required field \"{name}\""),
                ));
            }
        }
        for (name, needs) in &node.dependent_required {
            if obj.contains_key(name) {
                for need in needs.iter().filter(|n| !obj.contains_key(n.as_str())) {
                    out.push(violation(
                        path,
                        format!("field \"{name}\" needs field \"{need}\", which is missing"),
                    ));
                }
            }
        }
        for (name, schema) in &node.dependent_schemas {
            if obj.contains_key(name) {
                self.check_object_as(obj, *schema, path, out, depth);
            }
        }
        if let Some(names) = node.property_names {
            for k in obj.keys() {
                if !self.fits(&Value::String(k.clone()), names, path, depth) {
                    out.push(violation(
                        path,
                        format!("the field name \"{k}\" is not an allowed name"),
                    ));
                }
            }
        }
        let checks_children = node.properties.is_some()
            || !node.pattern_properties.is_empty()
            || matches!(node.additional, Additional::Deny | Additional::Schema(_));
        if !checks_children {
            return;
        }
        for (k, child) in obj {
            let mut declared = false;
            let plen = path.len();
            push_pointer(path, k);
            if let Some(prop) = node.property(k) {
                declared = true;
                self.check(child, prop, path, out, depth + 1);
            }
            for (pattern, schema) in &node.pattern_properties {
                if pattern.is_match(k) {
                    declared = true;
                    self.check(child, *schema, path, out, depth + 1);
                }
            }
            path.truncate(plen);
            if declared {
                continue;
            }
            match node.additional {
                Additional::Deny => out.push(violation(path, format!("unexpected field \"{k}\""))),
                Additional::Schema(extra) => {
                    push_pointer(path, k);
                    self.check(child, extra, path, out, depth + 1);
                    path.truncate(plen);
                }
                _ => {}
            }
        }
    }

    /// Checks an object (given as its map) against node `id`.
    fn check_object_as(
        &self,
        obj: &Map<String, Value>,
        id: usize,
        path: &mut String,
        out: &mut Vec<Violation>,
        depth: usize,
    ) {
        // The object is cloned once per dependent schema that applies; such schemas are
        // rare and small.
        self.check(&Value::Object(obj.clone()), id, path, out, depth + 1);
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

    pub(super) fn branch_fits(&self, v: &Value, b: usize, path: &mut String, depth: usize) -> bool {
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
}

pub(super) fn push_index(path: &mut String, i: usize) {
    use std::fmt::Write;
    let _ = write!(path, "/{i}");
}

pub(super) fn violation(path: &str, message: String) -> Violation {
    Violation {
        path: path.to_string(),
        message,
    }
}

pub(super) fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => format!("the string {}", brief(v)),
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

fn check_string(node: &Node, s: &str, path: &str, out: &mut Vec<Violation>) {
    if node.min_length.is_some() || node.max_length.is_some() {
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
    if let Some(p) = &node.pattern {
        if !p.is_match(s) {
            out.push(violation(
                path,
                format!(
                    "{} does not match the pattern {}",
                    brief(&Value::String(s.to_string())),
                    p.source()
                ),
            ));
        }
    }
    if let Some(f) = node.format {
        if !f.check(s) {
            out.push(violation(
                path,
                format!(
                    "{} is not a valid {}",
                    brief(&Value::String(s.to_string())),
                    f.name()
                ),
            ));
        }
    }
}

fn check_number(node: &Node, n: &serde_json::Number, path: &str, out: &mut Vec<Violation>) {
    let Some(x) = n.as_f64() else {
        return;
    };
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
    if let Some(m) = node.multiple_of {
        if !is_multiple(n, m) {
            out.push(violation(path, format!("{n} is not a multiple of {m}")));
        }
    }
}

/// Whether `n` is a whole multiple of `m`: exactly for integers, within rounding error
/// of the division for fractions (`0.0075` is a multiple of `0.0001`).
fn is_multiple(n: &serde_json::Number, m: f64) -> bool {
    if let (Some(a), true) = (n.as_i64(), m.fract() == 0.0 && m.abs() < 9.0e15) {
        return a % (m as i64) == 0;
    }
    let x = n.as_f64().unwrap_or(0.0);
    let q = x / m;
    if !q.is_finite() {
        // Too large to divide: a whole number is still a multiple of 1/k.
        return x.fract() == 0.0 && (1.0 / m).fract() == 0.0;
    }
    (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}

/// JSON equality, where numbers are equal by value (`1` equals `1.0`).
pub(super) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| json_eq(p, q)))
        }
        _ => a == b,
    }
}
