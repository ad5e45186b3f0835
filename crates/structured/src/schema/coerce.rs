//! Schema-aligned coercion: bends a value toward the schema where the intent is
//! unambiguous, recording each change. What cannot be coerced is left for validation.

use serde_json::{Map, Value};

use super::node::Additional;
use super::types::JsonType;
use super::validate::push_index;
use super::{Schema, MAX_DEPTH};
use crate::outcome::{push_pointer, Repair, RepairKind};

impl Schema {
    pub(super) fn coerce_at(
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
                // Over its bound: the items after it are cut (the first ones are kept).
                if let Some(max) = node.max_items.and_then(|m| usize::try_from(m).ok()) {
                    if items.len() > max {
                        items.truncate(max);
                        repairs.push(Repair::new(RepairKind::CutToBound, path.clone()));
                    }
                }
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
                if let Some(max) = node.max_length.and_then(|m| usize::try_from(m).ok()) {
                    if cut_to_chars(s, max) {
                        repairs.push(Repair::new(RepairKind::CutToBound, path.clone()));
                    }
                }
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
        // Extra fields are dropped when the schema does not allow them by another name
        // (`unevaluatedProperties` with a schema or `true`).
        let extra_allowed = node
            .unevaluated_properties
            .is_some_and(|u| self.nodes[u].boolean != Some(false));
        if matches!(node.additional, Additional::Unspecified | Additional::Deny)
            && !extra_allowed
            && obj.keys().any(|k| node.is_additional(k))
        {
            let unknown: Vec<String> = obj
                .keys()
                .filter(|k| node.is_additional(k))
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
            for (k, child) in obj.iter_mut().filter(|(k, _)| node.is_additional(k)) {
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

/// Cuts `s` to at most `max` characters (as JSON Schema counts them: code points), at the
/// last space when one falls in the last fifth of the bound so a word is not split.
/// Whether it was cut.
pub(crate) fn cut_to_chars(s: &mut String, max: usize) -> bool {
    let Some((end, _)) = s.char_indices().nth(max) else {
        return false;
    };
    let head = &s[..end];
    let floor = head.len() - head.len() / 5;
    let end = match head.rfind(char::is_whitespace) {
        Some(space) if space >= floor && space > 0 => space,
        _ => end,
    };
    s.truncate(end);
    let trimmed = s.trim_end().len();
    s.truncate(trimmed);
    true
}

#[cfg(test)]
mod cut_tests {
    use super::cut_to_chars;

    #[test]
    fn a_string_is_cut_at_its_bound_in_characters_and_at_a_space_near_it() {
        let mut s = "ééééé".to_string();
        assert!(cut_to_chars(&mut s, 3));
        assert_eq!(s, "ééé");
        let mut s = "one two three four five".to_string();
        assert!(cut_to_chars(&mut s, 16));
        assert_eq!(s, "one two three");
        let mut s = "short".to_string();
        assert!(!cut_to_chars(&mut s, 5));
        assert_eq!(s, "short");
        let mut s = "x".repeat(40);
        assert!(cut_to_chars(&mut s, 0));
        assert_eq!(s, "");
    }
}
