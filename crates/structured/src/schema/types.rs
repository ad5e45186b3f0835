//! The JSON types a schema names, and which values have them.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    String,
    Number,
    Integer,
}

impl JsonType {
    pub(super) fn parse(name: &str) -> Option<JsonType> {
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

    pub(super) fn name(self) -> &'static str {
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

    pub(super) fn described(self) -> &'static str {
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

    pub(super) fn matches(self, v: &Value) -> bool {
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
