//! Validation: every way a value breaks its schema, each with a JSON Pointer.

use serde_json::Value;

use super::node::Additional;
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
