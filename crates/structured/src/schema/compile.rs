//! Compiling a schema document into nodes: every keyword read once, every `$ref`
//! resolved to a node index, every keyword the engine cannot check refused.

use std::collections::HashMap;

use serde_json::Value;

use super::node::{Additional, Node};
use super::types::JsonType;
use super::{SchemaError, MAX_DEPTH};
use crate::outcome::push_pointer;

pub(super) struct Compiler<'d> {
    pub(super) doc: &'d Value,
    pub(super) nodes: Vec<Node>,
    pub(super) by_pointer: HashMap<String, usize>,
}

impl<'d> Compiler<'d> {
    pub(super) fn compile(&mut self, pointer: &str, depth: usize) -> Result<usize, SchemaError> {
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

/// A node on a cycle of edges that check the same value again (`$ref`, `anyOf`, `oneOf`,
/// `allOf`), if any: such a schema could only be checked by looping (or branching
/// exponentially) on one value. Iterative, so a deep schema cannot overflow the stack.
pub(super) fn loop_without_descent(nodes: &[Node]) -> Option<usize> {
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
