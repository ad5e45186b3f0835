//! Bounds for grammar-constrained decoding, derived from a JSON Schema and the answer
//! budget.
//!
//! A grammar built from a plain schema lets a small model write one string forever (it
//! repeats itself until the token cap, and the cut-off answer is invalid JSON). This module
//! returns a *copy* of the schema with bounds the grammar can enforce — the schema sent as
//! the contract is never changed:
//!
//! - `maxItems` on every array that has none (8, lowered when the budget is small);
//! - `maxLength` on every string that has none, sized so the longest answer the grammar
//!   allows fits the budget: the budget in characters is shared out in units, a string
//!   that holds markdown (its description says so, or its name ends in `body`/`content`/
//!   `markdown`) gets 16 units, other strings outside arrays 2, strings inside arrays 1 per
//!   possible item;
//! - `additionalProperties: false` on objects that list their properties and say nothing
//!   else (measured: without it SmolLM2-135M invented keys until the budget ran out; the
//!   lenient parser drops unknown fields anyway);
//! - a tight whitespace pattern between JSON tokens (llguidance's `x-guidance` options).
//!
//! Existing bounds are kept when tighter: the narrower of the schema's bound (the
//! contract's ceiling, or a page's room) and the budget's is written. `$ref`s to `#/$defs/...` (and `#/definitions/...`)
//! are followed, so a definition used inside an array is bounded as such.

use serde_json::{json, Map, Value};

/// Characters one answer token stands for at the least: every token writes at least one
/// character, so an answer the bounds allow fits the budget even when a small model spells
/// a string out character by character (measured: at 2.5 characters per token SmolLM2-135M
/// still hit the budget, writing strings to their bound in short tokens).
pub const CHARS_PER_TOKEN: f64 = 1.0;
/// Items an array may hold when the schema does not say.
pub const DEFAULT_MAX_ITEMS: u64 = 8;
/// The shortest bound given to a string.
pub const MIN_STRING_CHARS: u64 = 24;
/// Whitespace allowed between JSON tokens: one space at most (compact JSON; a model that
/// would indent cannot spend its budget on newlines).
pub const WHITESPACE_PATTERN: &str = r" ?";

const LONG_WEIGHT: f64 = 16.0;
const TOP_WEIGHT: f64 = 2.0;
const ITEM_WEIGHT: f64 = 1.0;
const MAX_DEPTH: usize = 12;

/// A copy of `schema` with the bounds a grammar needs to end within `max_tokens` answer
/// tokens (see the module docs).
pub fn bound_schema(schema: &Value, max_tokens: u32) -> Value {
    let budget_chars = f64::from(max_tokens.max(16)) * CHARS_PER_TOKEN;
    let mut out = schema.clone();
    // Try a generous item count first; lower it until every string gets a usable bound.
    let mut plan = Plan::default();
    for max_items in [DEFAULT_MAX_ITEMS, 4, 2, 1] {
        plan = Plan::default();
        plan.max_items = max_items;
        plan.walk(schema, schema, 1.0, false, "", 0);
        let unit = plan.unit(budget_chars);
        if unit >= MIN_STRING_CHARS as f64 || max_items == 1 {
            break;
        }
    }
    let unit = plan.unit(budget_chars);
    apply(&mut out, &plan, unit, "");
    if let Value::Object(root) = &mut out {
        let guidance = root
            .entry("x-guidance")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(g) = guidance {
            g.entry("whitespace_pattern")
                .or_insert_with(|| json!(WHITESPACE_PATTERN));
        }
    }
    out
}

/// What the walk found: every unbounded string (by JSON pointer) with its weight, and the
/// characters taken by keys and punctuation.
#[derive(Default)]
struct Plan {
    max_items: u64,
    /// (pointer, total weight over every path that reaches it, units per occurrence)
    strings: Vec<(String, f64, f64)>,
    overhead: f64,
}

impl Plan {
    fn unit(&self, budget_chars: f64) -> f64 {
        let units: f64 = self.strings.iter().map(|(_, w, _)| w).sum();
        if units <= 0.0 {
            return budget_chars;
        }
        ((budget_chars - self.overhead).max(0.0) / units).floor()
    }

    fn add_string(&mut self, pointer: &str, weight: f64, class: f64) {
        match self.strings.iter_mut().find(|(p, _, _)| p == pointer) {
            Some(entry) => {
                entry.1 += weight;
                entry.2 = entry.2.max(class);
            }
            None => self.strings.push((pointer.to_string(), weight, class)),
        }
    }

    /// Walks `node` (at `pointer` in `root`), reached `multiplicity` times in the worst case.
    fn walk(
        &mut self,
        root: &Value,
        node: &Value,
        multiplicity: f64,
        in_array: bool,
        pointer: &str,
        depth: usize,
    ) {
        self.walk_named(root, node, multiplicity, in_array, pointer, depth, "");
    }

    #[allow(clippy::too_many_arguments)]
    fn walk_named(
        &mut self,
        root: &Value,
        node: &Value,
        multiplicity: f64,
        in_array: bool,
        pointer: &str,
        depth: usize,
        name: &str,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let Value::Object(obj) = node else {
            return;
        };
        if let Some(Value::String(target)) = obj.get("$ref") {
            if let Some((target_ptr, target_node)) = resolve(root, target) {
                self.walk_named(
                    root,
                    target_node,
                    multiplicity,
                    in_array,
                    &target_ptr,
                    depth + 1,
                    name,
                );
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(alts)) = obj.get(key) {
                for (i, alt) in alts.iter().enumerate() {
                    let p = format!("{pointer}/{key}/{i}");
                    self.walk_named(root, alt, multiplicity, in_array, &p, depth + 1, name);
                }
            }
        }
        let types = types_of(obj);
        if types.iter().any(|t| t == "string")
            && !obj.contains_key("enum")
            && !obj.contains_key("const")
            && !obj.contains_key("format")
            && !obj.contains_key("pattern")
        {
            let class = if is_long_text(name, obj) {
                LONG_WEIGHT
            } else if in_array {
                ITEM_WEIGHT
            } else {
                TOP_WEIGHT
            };
            // Quotes and escapes.
            self.overhead += 4.0 * multiplicity;
            match obj.get("maxLength").and_then(Value::as_u64) {
                // A bound tight enough to take as it is.
                Some(n) if (n as f64) <= f64::from(MIN_STRING_CHARS as u32) * class => {
                    self.overhead += n as f64 * multiplicity;
                }
                // A looser bound (the contract's ceiling) is shared out like no bound, and
                // the narrower of the two is written.
                _ => self.add_string(pointer, class * multiplicity, class),
            }
        }
        if types.iter().any(|t| t == "array") {
            let items = obj
                .get("maxItems")
                .and_then(Value::as_u64)
                .unwrap_or(self.max_items)
                .min(self.max_items.max(1)) as f64;
            if let Some(item) = obj.get("items") {
                let p = format!("{pointer}/items");
                self.overhead += 8.0 * multiplicity * items;
                self.walk_named(root, item, multiplicity * items, true, &p, depth + 1, name);
            }
        }
        if types.iter().any(|t| t == "object") || obj.contains_key("properties") {
            if let Some(Value::Object(props)) = obj.get("properties") {
                for (key, prop) in props {
                    // The key, its quotes, the colon, a comma and some whitespace.
                    self.overhead += (key.len() as f64 + 8.0) * multiplicity;
                    let p = format!("{pointer}/properties/{}", escape_pointer(key));
                    self.walk_named(root, prop, multiplicity, in_array, &p, depth + 1, key);
                }
            }
        }
        if types
            .iter()
            .any(|t| matches!(t.as_str(), "number" | "integer"))
        {
            self.overhead += 24.0 * multiplicity;
        }
    }
}

/// Writes the bounds into the copy.
fn apply(node: &mut Value, plan: &Plan, unit: f64, pointer: &str) {
    let Value::Object(obj) = node else {
        return;
    };
    let types = types_of(obj);
    if obj.contains_key("properties") && !obj.contains_key("additionalProperties") {
        obj.insert("additionalProperties".into(), json!(false));
    }
    if types.iter().any(|t| t == "array") {
        let current = obj.get("maxItems").and_then(Value::as_u64);
        let bound = current.map_or(plan.max_items, |c| c.min(plan.max_items.max(1)));
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        obj.insert("maxItems".into(), json!(bound.max(min)));
    }
    if let Some((_, _, class)) = plan.strings.iter().find(|(p, _, _)| p == pointer) {
        let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let mut bound = ((unit * class) as u64).max(MIN_STRING_CHARS).max(min);
        if let Some(existing) = obj.get("maxLength").and_then(Value::as_u64) {
            bound = bound.min(existing);
        }
        obj.insert("maxLength".into(), json!(bound));
    }
    let keys: Vec<String> = obj.keys().cloned().collect();
    for key in keys {
        let child_ptr = format!("{pointer}/{}", escape_pointer(&key));
        match obj.get_mut(&key) {
            Some(Value::Object(_)) => {
                if let Some(child) = obj.get_mut(&key) {
                    apply(child, plan, unit, &child_ptr);
                }
            }
            Some(Value::Array(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    apply(item, plan, unit, &format!("{child_ptr}/{i}"));
                }
            }
            _ => {}
        }
    }
}

fn types_of(obj: &Map<String, Value>) -> Vec<String> {
    match obj.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn is_long_text(name: &str, obj: &Map<String, Value>) -> bool {
    let name = name.to_ascii_lowercase();
    let described = obj
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.to_ascii_lowercase().contains("markdown"));
    described || name.ends_with("body") || name.ends_with("content") || name.ends_with("markdown")
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<(String, &'a Value)> {
    let pointer = reference.strip_prefix('#')?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return None;
    }
    root.pointer(pointer).map(|v| (pointer.to_string(), v))
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract() -> Value {
        serde_json::from_str(include_str!(
            "../../../schemas/compilation_result.schema.json"
        ))
        .expect("the golden compilation schema is JSON")
    }

    fn max_len(schema: &Value, pointer: &str) -> u64 {
        schema
            .pointer(&format!("{pointer}/maxLength"))
            .and_then(Value::as_u64)
            .unwrap_or_else(|| panic!("no maxLength at {pointer}: {schema:#}"))
    }

    /// The longest answer (in characters) a bounded schema allows, roughly: every string at
    /// its bound, every array full.
    fn worst_case(root: &Value, node: &Value, depth: usize) -> u64 {
        if depth > 20 {
            return 0;
        }
        let Some(obj) = node.as_object() else {
            return 0;
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            let target = root.pointer(r.trim_start_matches('#')).unwrap();
            return worst_case(root, target, depth + 1);
        }
        let types = types_of(obj);
        let mut total = 0;
        if types.iter().any(|t| t == "string") {
            total += obj.get("maxLength").and_then(Value::as_u64).unwrap_or(20) + 2;
        }
        if let Some(items) = obj.get("items") {
            total += obj["maxItems"].as_u64().unwrap() * (worst_case(root, items, depth + 1) + 1);
        }
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            for (k, p) in props {
                total += k.len() as u64 + 4 + worst_case(root, p, depth + 1);
            }
        }
        total
    }

    #[test]
    fn the_contract_gets_bounds_that_fit_the_budget() {
        let schema = contract();
        for budget in [512u32, 1024, 4096] {
            let bounded = bound_schema(&schema, budget);
            let body = max_len(&bounded, "/properties/article_body");
            let title = max_len(&bounded, "/properties/title");
            let claim = max_len(&bounded, "/$defs/Claim/properties/claim");
            assert!(
                body > title && title > claim / 2,
                "{budget}: {body} {title} {claim}"
            );
            for array in [
                "key_claims",
                "concepts",
                "open_questions",
                "backlink_suggestions",
            ] {
                let n = bounded["properties"][array]["maxItems"].as_u64().unwrap();
                assert!((1..=DEFAULT_MAX_ITEMS).contains(&n), "{array}: {n}");
            }
            let worst = worst_case(&bounded, &bounded, 0) as f64;
            let budget_chars = f64::from(budget) * CHARS_PER_TOKEN;
            assert!(
                worst <= budget_chars * 1.1,
                "budget {budget}: worst case {worst} chars > {budget_chars}"
            );
            assert_eq!(
                bounded["x-guidance"]["whitespace_pattern"],
                json!(WHITESPACE_PATTERN)
            );
        }
        let big = bound_schema(&schema, 4096);
        assert!(max_len(&big, "/properties/article_body") >= 600);
    }

    #[test]
    fn the_contract_itself_is_not_changed() {
        let schema = contract();
        let before = schema.clone();
        let bounded = bound_schema(&schema, 4096);
        assert_eq!(schema, before);
        assert_ne!(bounded, before);
        assert!(schema.pointer("/properties/title/maxLength").is_none());
        assert_eq!(bounded["additionalProperties"], json!(false));
        assert_eq!(
            bounded["$defs"]["Claim"]["additionalProperties"],
            json!(false)
        );
    }

    #[test]
    fn a_page_room_narrower_than_the_budget_is_kept_and_a_looser_one_narrowed() {
        let mut page = contract();
        page["properties"]["key_claims"]["maxItems"] = json!(3);
        page["properties"]["article_body"]["maxLength"] = json!(200);
        let b = bound_schema(&page, 8192);
        assert_eq!(b["properties"]["key_claims"]["maxItems"], 3);
        assert_eq!(b["properties"]["article_body"]["maxLength"], 200);
        // The contract's ceiling (16,000 characters) is looser than a small budget's.
        let small = bound_schema(&contract(), 512);
        assert!(max_len(&small, "/properties/article_body") < 512);
    }

    #[test]
    fn existing_tighter_bounds_are_kept_and_enums_left_alone() {
        let schema = json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "maxLength": 5},
                "kind": {"type": "string", "enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "many": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "name": {"type": "string", "minLength": 40}
            }
        });
        let b = bound_schema(&schema, 4096);
        assert_eq!(b["properties"]["code"]["maxLength"], 5);
        assert!(b["properties"]["kind"].get("maxLength").is_none());
        assert_eq!(b["properties"]["tags"]["maxItems"], 3);
        assert!(b["properties"]["many"]["maxItems"].as_u64().unwrap() >= 2);
        assert!(b["properties"]["name"]["maxLength"].as_u64().unwrap() >= 40);
        assert!(
            b["properties"]["tags"]["items"]["maxLength"]
                .as_u64()
                .unwrap()
                >= MIN_STRING_CHARS
        );
    }

    #[test]
    fn odd_schemas_do_not_panic() {
        for schema in [
            json!(true),
            json!({}),
            json!({"type": "string"}),
            json!({"$ref": "#/nowhere"}),
            json!({"$ref": "#"}),
            json!({"type": "array"}),
            json!({"type": ["string", "null"]}),
            json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#"}}]}),
        ] {
            let b = bound_schema(&schema, 100);
            if schema.get("type") == Some(&json!("string")) {
                assert!(b["maxLength"].as_u64().unwrap() >= MIN_STRING_CHARS);
            }
        }
    }
}
