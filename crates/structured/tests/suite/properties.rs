//! Property tests of the lenient engine:
//!
//! - with no schema, lenient reads any valid JSON exactly as strict does;
//! - no input makes lenient `json` or `jsonl` parsing panic;
//! - whatever lenient returns is valid JSON that strict reads back to the same value;
//! - an answer cut off at any byte keeps what it had, as far as it goes.

use proptest::prelude::*;
use serde_json::{json, Map, Number, Value};
use wikimind_structured::{decode, parse_json, parse_jsonl, Mode, Schema};

fn compilation() -> Schema {
    Schema::from_json(include_str!(
        "../../../../schemas/compilation_result.schema.json"
    ))
    .expect("the contract schema loads")
}

// ---------------------------------------------------------------------------------------
// Strategies

/// Characters that stress string reading: quotes, backslashes, control characters,
/// non-ASCII (2-, 3- and 4-byte UTF-8), and JSON punctuation.
fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => proptest::char::range('a', 'z'),
        1 => Just('"'),
        1 => Just('\''),
        1 => Just('\\'),
        1 => Just('\n'),
        1 => Just('\t'),
        1 => Just('\r'),
        1 => proptest::char::range('\u{0}', '\u{1f}'),
        1 => prop_oneof![Just('{'), Just('}'), Just('['), Just(']'), Just(','), Just(':')],
        1 => prop_oneof![Just('`'), Just('/'), Just('*'), Just(' ')],
        1 => prop_oneof![Just('é'), Just('€'), Just('😀'), Just('\u{feff}'), Just('\u{2028}')],
        1 => any::<char>(),
    ]
}

fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(tricky_char(), 0..24)
            .prop_map(|cs| cs.into_iter().collect::<String>()),
        // Strings that themselves look like JSON or markdown.
        1 => prop_oneof![
            Just(r#"{"a": 1}"#.to_string()),
            Just("```json\n{\"x\": [1, 2]}\n```".to_string()),
            Just("true".to_string()),
            Just("None".to_string()),
            Just("it's \"quoted\"".to_string()),
            Just("C:\\Users\\x".to_string()),
        ],
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        any::<u64>().prop_map(|n| Value::Number(n.into())),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        (-1000i32..1000, -30i32..30).prop_filter_map("finite", |(m, e)| {
            Number::from_f64(f64::from(m) * 10f64.powi(e)).map(Value::Number)
        }),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        tricky_string().prop_map(Value::String),
    ]
}

/// Nested JSON values up to a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::vec((tricky_string(), inner), 0..8)
                .prop_map(|kvs| Value::Object(kvs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Text built from JSON-ish tokens, so that arbitrary input reaches deep into the reader.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("{"),
        Just("}"),
        Just("["),
        Just("]"),
        Just(","),
        Just(":"),
        Just("\""),
        Just("'"),
        Just("\\"),
        Just("\\u"),
        Just("d83d"),
        Just("true"),
        Just("True"),
        Just("None"),
        Just("nul"),
        Just("1"),
        Just("-"),
        Just("."),
        Just("e"),
        Just("+"),
        Just("\n"),
        Just("\r\n"),
        Just(" "),
        Just("//"),
        Just("/*"),
        Just("*/"),
        Just("```"),
        Just("```json\n"),
        Just("<think>"),
        Just("</think>"),
        Just("\u{feff}"),
        Just("key"),
        Just("\"title\""),
        Just("\"key_claims\""),
        Just("é"),
        Just("\u{0}"),
        Just("Sure! Here it is:"),
    ];
    proptest::collection::vec(token, 0..60).prop_map(|ts| ts.concat())
}

// ---------------------------------------------------------------------------------------
// Helpers

fn strict_value(raw: &str, schema: &Schema) -> Result<Value, String> {
    parse_json(raw, schema, Mode::Strict)
        .map(|o| o.value)
        .map_err(|e| e.to_string())
}

fn lenient_value(raw: &str, schema: &Schema) -> Result<Value, String> {
    parse_json(raw, schema, Mode::Lenient)
        .map(|o| o.value)
        .map_err(|e| e.to_string())
}

/// Whatever lenient returns is valid against the schema, and strict mode reads its
/// serialisation back to the same value.
fn check_output(raw: &str, schema: &Schema) -> Result<(), TestCaseError> {
    if let Ok(out) = parse_json(raw, schema, Mode::Lenient) {
        prop_assert!(schema.is_valid(&out.value), "invalid output for {raw:?}");
        let json = serde_json::to_string(&out.value).expect("a value serialises");
        let again = strict_value(&json, schema);
        prop_assert_eq!(again, Ok(out.value), "round trip of {:?}", raw);
    }
    Ok(())
}

fn check_jsonl_output(raw: &str, schema: &Schema) -> Result<(), TestCaseError> {
    let out = parse_jsonl(raw, schema, Mode::Lenient);
    for v in &out.values {
        prop_assert!(v.is_object(), "jsonl value {v} is not an object");
        prop_assert!(schema.is_valid(v), "invalid jsonl value {v}");
        let json = serde_json::to_string(v).expect("a value serialises");
        let again = strict_value(&json, schema);
        prop_assert_eq!(again.as_ref(), Ok(v));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// (a) lenient = strict on valid JSON, no schema

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lenient_reads_valid_json_as_strict_does(v in json_value()) {
        let any = Schema::any();
        for raw in [
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string_pretty(&v).unwrap(),
            format!("  \n{}\n", serde_json::to_string(&v).unwrap()),
        ] {
            let strict = strict_value(&raw, &any);
            prop_assert_eq!(strict.as_ref(), Ok(&v), "strict on {}", raw);
            prop_assert_eq!(lenient_value(&raw, &any), strict, "lenient on {}", raw);
        }
    }

    /// The same value in the wrapping models send (prose and a `json` fence) comes out
    /// unchanged: extraction never alters a valid object or array.
    #[test]
    fn fenced_valid_json_comes_out_unchanged(
        // Objects and arrays only (a scalar is wrapped: rejecting scalars made proptest
        // give up after 1024 rejects on long runs).
        v in json_value().prop_map(|v| if v.is_object() || v.is_array() { v } else { json!([v]) })
    ) {
        let any = Schema::any();
        for body in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            let raw = format!("Sure! Here is the JSON:\n```json\n{body}\n```\nHope this helps.");
            prop_assert_eq!(lenient_value(&raw, &any), Ok(v.clone()), "lenient on {}", raw);
        }
    }
}

// ---------------------------------------------------------------------------------------
// (b) no panics, (c) output is valid JSON that strict reads back

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_strings_never_panic(raw in ".{0,200}") {
        let any = Schema::any();
        check_output(&raw, &any)?;
        check_jsonl_output(&raw, &any)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let any = Schema::any();
        let (text, _) = decode(&bytes, Mode::Lenient).expect("lenient decode never fails");
        check_output(&text, &any)?;
        check_jsonl_output(&text, &any)?;
        // Strict mode must not panic either.
        if let Ok((text, _)) = decode(&bytes, Mode::Strict) {
            let _ = parse_json(&text, &any, Mode::Strict);
            let _ = parse_jsonl(&text, &any, Mode::Strict);
        }
    }

    #[test]
    fn jsonish_text_is_repaired_into_valid_json_or_refused(raw in jsonish()) {
        check_output(&raw, &Schema::any())?;
        check_output(&raw, &compilation())?;
        check_jsonl_output(&raw, &Schema::any())?;
        check_jsonl_output(&raw, &jsonl_schema())?;
    }

    /// Damaged serialisations of arbitrary values: the repair path, not the fast path.
    #[test]
    fn damaged_json_is_repaired_into_valid_json_or_refused(
        v in json_value(),
        cut in any::<prop::sample::Index>(),
        edit in 0usize..6,
    ) {
        let text = serde_json::to_string_pretty(&v).unwrap();
        let damaged = match edit {
            0 => text.replace('"', "'"),
            1 => text.replace('}', ",}").replace(']', ",]"),
            2 => text.replace("\\n", "\n").replace("\\t", "\t"),
            3 => text.replace("true", "True").replace("null", "None"),
            4 => text.replace(",\n", "\n"),
            _ => text.clone(),
        };
        let mut at = cut.index(damaged.len() + 1);
        while !damaged.is_char_boundary(at) {
            at -= 1;
        }
        check_output(&damaged[..at], &Schema::any())?;
        check_output(&damaged, &Schema::any())?;
    }
}

// ---------------------------------------------------------------------------------------
// (d) truncation at every byte

/// A realistic CompilationResult answer with a long markdown body.
fn compilation_fixture() -> Value {
    let mut body = String::from(
        "# Borrow checking\n\nThe *borrow checker* enforces “aliasing XOR mutation”.\n\n",
    );
    for i in 0..12 {
        body.push_str(&format!(
            "## Section {i}\n\nA paragraph with \"quotes\", 'apostrophes', a backslash \\ and a path C:\\tmp\\{i}. \
             Unicode: café, 日本語, emoji 🦀. A [[Wiki Link {i}]] and `inline code`.\n\n\
             ```rust\nfn f{i}(x: &str) -> String {{\n\tformat!(\"{{x}}: {{}}\", \"{i}\")\n}}\n```\n\n\
             > A quote: \"it's fine\", she said.\n\n"
        ));
    }
    let claims: Vec<Value> = (0..6)
        .map(|i| {
            json!({
                "claim": format!("Claim {i} says \"something\" about lifetimes."),
                "confidence": (["sourced", "inferred", "opinion"][i % 3]),
                "quote": if i % 2 == 0 { json!(format!("quote {i}: a 'quoted' bit")) } else { Value::Null },
            })
        })
        .collect();
    json!({
        "title": "Borrow checking in Rust",
        "summary": "How the borrow checker keeps references valid. It rejects aliasing with mutation.",
        "key_claims": claims,
        "concepts": ["ownership", "lifetimes", "borrowing"],
        "backlink_suggestions": ["Ownership", "Lifetimes"],
        "open_questions": ["How do two-phase borrows work?"],
        "article_body": body,
    })
}

/// Whether `partial` is what is left of `full` when its text is cut off: every complete
/// part equal, the last open part a prefix of its full counterpart.
fn is_cut_of(partial: &Value, full: &Value) -> bool {
    match (partial, full) {
        (Value::String(p), Value::String(f)) => f.starts_with(p.as_str()),
        (Value::Array(p), Value::Array(f)) => {
            p.len() <= f.len()
                && p.iter().zip(f).enumerate().all(|(i, (pv, fv))| {
                    if i + 1 == p.len() {
                        is_cut_of(pv, fv)
                    } else {
                        pv == fv
                    }
                })
        }
        (Value::Object(p), Value::Object(f)) => {
            let fk: Vec<&String> = f.keys().collect();
            p.len() <= f.len()
                && p.iter().enumerate().all(|(i, (k, pv))| {
                    fk.get(i) == Some(&k)
                        && if i + 1 == p.len() {
                            is_cut_of(pv, &f[k])
                        } else {
                            pv == &f[k]
                        }
                })
        }
        (p, f) => p == f,
    }
}

#[test]
fn an_answer_cut_at_any_byte_keeps_what_it_had() {
    let full = compilation_fixture();
    let text = serde_json::to_string_pretty(&full).unwrap();
    assert!(
        text.len() > 4000,
        "the fixture is long ({} bytes)",
        text.len()
    );
    let any = Schema::any();
    let schema = compilation();
    let mut failures = Vec::new();
    let mut accepted_with_schema = 0;
    for at in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        let cut = &text[..at];
        match parse_json(cut, &any, Mode::Lenient) {
            Ok(out) => {
                let json = serde_json::to_string(&out.value).unwrap();
                if strict_value(&json, &any).as_ref() != Ok(&out.value) {
                    failures.push(format!("{at}: output does not round-trip"));
                }
                if !out.truncated {
                    failures.push(format!("{at}: not marked truncated"));
                }
                if !is_cut_of(&out.value, &full) {
                    failures.push(format!("{at}: {} is not a cut of the answer", out.value));
                }
            }
            Err(e) => {
                // Only the very start (nothing but `{` and space) may fail.
                if cut.trim().len() > 1 {
                    failures.push(format!("{at}: refused: {e}"));
                }
            }
        }
        if let Ok(out) = parse_json(cut, &schema, Mode::Lenient) {
            accepted_with_schema += 1;
            assert!(schema.is_valid(&out.value));
            // Required fields are never invented: the body must have been started.
            if !cut.contains("\"article_body\": \"") {
                failures.push(format!("{at}: accepted before the body began"));
            }
        }
        if failures.len() > 20 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        accepted_with_schema > 0,
        "a cut inside the body is accepted with the schema"
    );
    // The complete answer reads back exactly.
    assert_eq!(lenient_value(&text, &schema), Ok(full));
}

/// The per-object schema of a recorded `jsonl` answer: a discriminated union.
fn jsonl_schema() -> Schema {
    Schema::from_json(
        r#"{
        "oneOf": [
            {"type": "object", "properties": {
                "type": {"const": "claim"},
                "text": {"type": "string"},
                "confidence": {"enum": ["sourced", "inferred", "opinion"], "default": "inferred"}
            }, "required": ["type", "text"]},
            {"type": "object", "properties": {
                "type": {"const": "concept"},
                "name": {"type": "string"},
                "aliases": {"type": "array", "items": {"type": "string"}, "default": []}
            }, "required": ["type", "name"]}
        ]
    }"#,
    )
    .expect("the jsonl schema loads")
}

const JSONL_ANSWER: &str = concat!(
    "{\"type\": \"claim\", \"text\": \"The borrow checker rejects \\\"aliasing\\\" with mutation.\", \"confidence\": \"sourced\"}\n",
    "{\"type\": \"concept\", \"name\": \"ownership\", \"aliases\": [\"owning\", \"owner\"]}\n",
    "{\"type\": \"claim\", \"text\": \"Lifetimes are inferred — mostly; 日本語 🦀.\", \"confidence\": \"inferred\"}\n",
    "\n",
    "{\"type\": \"concept\", \"name\": \"lifetimes\", \"aliases\": []}\r\n",
    "{\"type\": \"claim\", \"text\": \"Two-phase borrows { are } [subtle], she said: 'yes'.\", \"confidence\": \"opinion\"}\n",
    "{\"type\": \"concept\", \"name\": \"borrowing\", \"aliases\": [\"borrow\"]}\n",
);

#[test]
fn a_jsonl_answer_cut_at_any_byte_keeps_its_complete_lines() {
    let schema = jsonl_schema();
    let full = parse_jsonl(JSONL_ANSWER, &schema, Mode::Lenient);
    assert_eq!(full.values.len(), 6, "warnings: {:?}", full.warnings);
    let mut failures = Vec::new();
    for at in (0..=JSONL_ANSWER.len()).filter(|&i| JSONL_ANSWER.is_char_boundary(i)) {
        let cut = &JSONL_ANSWER[..at];
        let complete = cut
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n') && !l.trim().is_empty())
            .count();
        let out = parse_jsonl(cut, &schema, Mode::Lenient);
        if out.values.len() < complete {
            failures.push(format!(
                "{at}: {} objects, {complete} complete lines",
                out.values.len()
            ));
        }
        if out.values.len() > full.values.len() || out.values[..] != full.values[..out.values.len()]
        {
            failures.push(format!(
                "{at}: objects {:?} are not a prefix of the answer's",
                out.values
            ));
        }
        if let Some(bad) = out.values.iter().find(|v| !schema.is_valid(v)) {
            failures.push(format!("{at}: invalid object {bad}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
