//! Arbitrary bytes through lenient parsing: `decode`, then `parse_json` with no schema and
//! with the contract schema, then `parse_jsonl`. Nothing may panic, and whatever lenient
//! `parse_json` returns must be valid against its schema and re-read identically by strict
//! mode once serialised.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use wikimind_structured::{decode, parse_json, parse_jsonl, Mode, Schema};

static COMPILATION: &str = include_str!("../../schemas/compilation_result.schema.json");

fn schemas() -> &'static (Schema, Schema) {
    static SCHEMAS: OnceLock<(Schema, Schema)> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        (
            Schema::any(),
            Schema::from_json(COMPILATION).expect("the contract schema loads"),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let (any, compilation) = schemas();
    let Ok((text, _)) = decode(data, Mode::Lenient) else {
        panic!("lenient decode never fails");
    };
    for schema in [any, compilation] {
        if let Ok(out) = parse_json(&text, schema, Mode::Lenient) {
            assert!(
                schema.is_valid(&out.value),
                "lenient returned an invalid value"
            );
            let json = serde_json::to_string(&out.value).expect("a value serialises");
            let again = parse_json(&json, schema, Mode::Strict).expect("strict re-reads it");
            assert_eq!(again.value, out.value);
        }
    }
    let lines = parse_jsonl(&text, any, Mode::Lenient);
    assert!(lines.values.iter().all(|v| v.is_object()));
    let _ = parse_jsonl(&text, compilation, Mode::Lenient);
});
