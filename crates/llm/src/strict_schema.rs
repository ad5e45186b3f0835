//! Adapting a JSON Schema to what OpenAI's strict structured outputs accept.
//!
//! Strict mode wants every object closed (`additionalProperties: false`) with every
//! property listed in `required`, and accepts only a subset of keywords. An optional
//! property therefore becomes a required one that may be `null`; the structured engine
//! later treats `null` like a missing field (and applies the contract's default).

use serde_json::{json, Map, Value};

/// Keywords strict mode understands; everything else is dropped.
const KEPT: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "anyOf",
    "enum",
    "$ref",
    "$defs",
    "definitions",
    "description",
];

/// Rewrites a JSON Schema for OpenAI strict mode: every object gets
/// `additionalProperties: false` and all its properties in `required`; properties that
/// were optional become nullable; `oneOf` becomes `anyOf`, `const` a one-value `enum`;
/// keywords strict mode rejects (`default`, `format`, `minLength`, `pattern`, `minimum`,
/// `title`, `$schema`, ...) are removed. `$defs` and `$ref` are kept (and rewritten too).
///
/// Maps (`additionalProperties: <schema>`) cannot be expressed in strict mode and become
/// closed objects.
pub fn openai_strict_schema(schema: &Value) -> Value {
    strict(schema)
}

fn strict(schema: &Value) -> Value {
    let Some(object) = schema.as_object() else {
        return schema.clone(); // `true`/`false` schemas and garbage pass through
    };
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "oneOf" | "anyOf" => {
                let items = value.as_array().map(|a| a.iter().map(strict).collect());
                if let Some(items) = items {
                    out.insert("anyOf".to_string(), Value::Array(items));
                }
            }
            "const" => {
                out.insert("enum".to_string(), json!([value]));
            }
            "items" => {
                out.insert(key.clone(), strict(value));
            }
            "$defs" | "definitions" => {
                let defs = value.as_object().map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), strict(v)))
                        .collect::<Map<_, _>>()
                });
                if let Some(defs) = defs {
                    out.insert(key.clone(), Value::Object(defs));
                }
            }
            "properties" | "required" | "additionalProperties" => {} // below
            k if KEPT.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    let is_object = object.get("type").is_some_and(|t| {
        t == "object"
            || t.as_array()
                .is_some_and(|a| a.iter().any(|x| x == "object"))
    }) || object.contains_key("properties");
    if is_object {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut properties = Map::new();
        let empty = Map::new();
        let declared = object
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        for (name, property) in declared {
            let property = strict(property);
            let property = if required.contains(&name.as_str()) {
                property
            } else {
                nullable(property)
            };
            properties.insert(name.clone(), property);
        }
        let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        out.insert("properties".to_string(), Value::Object(properties));
        out.insert("required".to_string(), Value::Array(names));
        out.insert("additionalProperties".to_string(), Value::Bool(false));
        if !out.contains_key("type") {
            out.insert("type".to_string(), json!("object"));
        }
    }
    Value::Object(out)
}

/// Lets a schema also accept `null`.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    if let Some(any_of) = object.get_mut("anyOf").and_then(Value::as_array_mut) {
        if !any_of.iter().any(|s| s["type"] == "null") {
            any_of.push(json!({"type": "null"}));
        }
        return Value::Object(object);
    }
    if object.contains_key("$ref") {
        return json!({"anyOf": [Value::Object(object), {"type": "null"}]});
    }
    let ty = object.get("type").cloned();
    let ty = match ty {
        Some(Value::String(t)) if t == "null" => return Value::Object(object),
        Some(Value::String(t)) => json!([t, "null"]),
        Some(Value::Array(mut types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
            Value::Array(types)
        }
        _ => return json!({"anyOf": [Value::Object(object), {"type": "null"}]}),
    };
    object.insert("type".to_string(), ty);
    if let Some(values) = object.get_mut("enum").and_then(Value::as_array_mut) {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_closed_and_optional_properties_become_nullable() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "CompilationResult",
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "description": "The title"},
                "concepts": {"type": "array", "items": {"type": "string", "format": "x"}, "default": []},
                "confidence": {"type": "string", "enum": ["sourced", "inferred"], "default": "inferred"},
                "claim": {"$ref": "#/$defs/Claim"},
                "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]}
            },
            "required": ["title", "claim"],
            "$defs": {
                "Claim": {
                    "type": "object",
                    "properties": {"quote": {"type": ["string", "null"], "default": null}},
                    "required": []
                }
            }
        });
        let strict = openai_strict_schema(&schema);
        let expected = json!({
            "type": "object",
            "$defs": {
                "Claim": {
                    "type": "object",
                    "properties": {"quote": {"type": ["string", "null"]}},
                    "required": ["quote"],
                    "additionalProperties": false
                }
            },
            "properties": {
                "title": {"type": "string", "description": "The title"},
                "concepts": {"type": ["array", "null"], "items": {"type": "string"}},
                "confidence": {"type": ["string", "null"], "enum": ["sourced", "inferred", null]},
                "claim": {"$ref": "#/$defs/Claim"},
                "kind": {"anyOf": [{"enum": ["a"]}, {"enum": ["b"]}, {"type": "null"}]}
            },
            "required": ["title", "concepts", "confidence", "claim", "kind"],
            "additionalProperties": false
        });
        assert_eq!(strict, expected);
    }

    #[test]
    fn optional_references_become_nullable_unions() {
        let schema = json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}});
        let strict = openai_strict_schema(&schema);
        assert_eq!(
            strict["properties"]["c"],
            json!({"anyOf": [{"$ref": "#/$defs/C"}, {"type": "null"}]})
        );
        assert_eq!(openai_strict_schema(&json!(true)), json!(true));
    }
}
