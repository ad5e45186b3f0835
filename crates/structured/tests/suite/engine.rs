//! Table tests: raw model answer in, value (and repairs) out.

use serde_json::{json, Value};
use wikimind_structured::{
    parse, parse_json, parse_jsonl, JsonStream, JsonlEvent, JsonlStream, Mode, Parsed, Reason,
    RepairKind, ResponseType, Schema,
};

const COMPILATION: &str = include_str!("../../../../schemas/compilation_result.schema.json");

fn compilation() -> Schema {
    Schema::from_json(COMPILATION).unwrap()
}

fn kinds(repairs: &[wikimind_structured::Repair]) -> Vec<RepairKind> {
    repairs.iter().map(|r| r.kind).collect()
}

/// Lenient with no schema: input → expected value, and the repair kinds that must appear.
#[test]
fn repairs_what_models_break() {
    use RepairKind::*;
    let cases: Vec<(&str, &str, Value, Vec<RepairKind>)> = vec![
        ("clean", r#"{"a": 1}"#, json!({"a": 1}), vec![]),
        (
            "bom",
            "\u{feff}{\"a\": 1}",
            json!({"a": 1}),
            vec![StrippedBom],
        ),
        (
            "leading prose",
            "Sure! Here is the JSON you asked for:\n{\"a\": 1}",
            json!({"a": 1}),
            vec![SkippedLeadingText],
        ),
        (
            "trailing prose",
            "{\"a\": 1}\n\nLet me know if you need anything else!",
            json!({"a": 1}),
            vec![SkippedTrailingText],
        ),
        (
            "fence",
            "Here you go:\n```json\n{\"a\": [1, 2]}\n```\nDone.",
            json!({"a": [1, 2]}),
            vec![RemovedCodeFence],
        ),
        (
            "think block",
            "<think>\nThe user wants {json}. Let me think.\n</think>\n{\"a\": true}",
            json!({"a": true}),
            vec![RemovedThinkBlock],
        ),
        (
            "repeated object",
            "{\"a\": 1}\n{\"a\": 1}",
            json!({"a": 1}),
            vec![DroppedRepeatedValue],
        ),
        (
            "trailing commas",
            r#"{"a": [1, 2,], "b": 3,}"#,
            json!({"a": [1, 2], "b": 3}),
            vec![RemovedTrailingComma],
        ),
        (
            "comments",
            "{\n  // the title\n  \"a\": 1, /* why */ \"b\": 2\n}",
            json!({"a": 1, "b": 2}),
            vec![RemovedComment],
        ),
        (
            "single quotes",
            r#"{'a': 'it\'s fine', 'b': "x"}"#,
            json!({"a": "it's fine", "b": "x"}),
            vec![SingleQuotedString],
        ),
        (
            "apostrophe inside single quotes",
            "{'a': 'it's fine'}",
            json!({"a": "it's fine"}),
            vec![SingleQuotedString, EscapedInnerQuote],
        ),
        (
            "unquoted keys",
            r#"{a: 1, b_c: "x"}"#,
            json!({"a": 1, "b_c": "x"}),
            vec![UnquotedKey],
        ),
        (
            "python literals",
            r#"{"a": True, "b": False, "c": None}"#,
            json!({"a": true, "b": false, "c": null}),
            vec![PythonLiteral],
        ),
        (
            "raw newlines and tabs in a markdown body",
            "{\"body\": \"# Title\n\n- one\n\t- two\"}",
            json!({"body": "# Title\n\n- one\n\t- two"}),
            vec![EscapedControlCharacter],
        ),
        (
            "unescaped inner quotes",
            r#"{"a": "He said "hello" to me", "b": 1}"#,
            json!({"a": "He said \"hello\" to me", "b": 1}),
            vec![EscapedInnerQuote],
        ),
        (
            "inner quote before a comma",
            r#"{"a": "the "best", she said", "b": 1}"#,
            json!({"a": "the \"best\", she said", "b": 1}),
            vec![EscapedInnerQuote],
        ),
        (
            "invalid escapes",
            r#"{"re": "\d+ in C:\Users"}"#,
            json!({"re": "\\d+ in C:\\Users"}),
            vec![FixedInvalidEscape],
        ),
        (
            "missing commas",
            "{\"a\": 1\n \"b\": [1 2 3]\n \"c\": \"x\"}",
            json!({"a": 1, "b": [1, 2, 3], "c": "x"}),
            vec![InsertedMissingComma],
        ),
        (
            "missing comma between string members",
            "{\"a\": \"x\"\n\"b\": \"y\"}",
            json!({"a": "x", "b": "y"}),
            vec![InsertedMissingComma],
        ),
        (
            "truncated in a string",
            r#"{"title": "T", "article_body": "The body goes on and"#,
            json!({"title": "T", "article_body": "The body goes on and"}),
            vec![ClosedTruncated],
        ),
        (
            "truncated after a key",
            r#"{"title": "T", "concepts": ["a", "b"], "summary":"#,
            json!({"title": "T", "concepts": ["a", "b"]}),
            vec![ClosedTruncated],
        ),
        (
            "truncated inside a key",
            r#"{"title": "T", "summa"#,
            json!({"title": "T"}),
            vec![ClosedTruncated],
        ),
        (
            "truncated in nested arrays",
            r#"{"a": [[1, 2], [3"#,
            json!({"a": [[1, 2], [3]]}),
            vec![ClosedTruncated],
        ),
        (
            "mismatched bracket",
            r#"{"a": [1, 2}"#,
            json!({"a": [1, 2]}),
            vec![InsertedMissingBracket],
        ),
        (
            "unquoted string value",
            "{\"a\": sourced, \"b\": 1}",
            json!({"a": "sourced", "b": 1}),
            vec![UnquotedString],
        ),
        (
            "non-JSON numbers",
            r#"{"a": +1, "b": .5, "c": 007}"#,
            json!({"a": 1, "b": 0.5, "c": 7}),
            vec![FixedNumber],
        ),
        (
            "unicode escapes and surrogate pairs",
            r#"{"a": "caf\u00e9 \ud83d\ude00", 'b': 1}"#,
            json!({"a": "café 😀", "b": 1}),
            vec![SingleQuotedString],
        ),
    ];
    let mut failures = Vec::new();
    for (name, input, expected, must) in cases {
        match parse_json(input, &Schema::any(), Mode::Lenient) {
            Ok(out) => {
                if out.value != expected {
                    failures.push(format!("{name}: got {} expected {expected}", out.value));
                }
                let got = kinds(&out.repairs);
                for k in &must {
                    if !got.contains(k) {
                        failures.push(format!("{name}: repairs {got:?} lack {k:?}"));
                    }
                }
                if must.is_empty() && !got.is_empty() {
                    failures.push(format!("{name}: unexpected repairs {got:?}"));
                }
                let truncated = must.contains(&ClosedTruncated);
                if out.truncated != truncated {
                    failures.push(format!("{name}: truncated = {}", out.truncated));
                }
            }
            Err(e) => failures.push(format!("{name}: failed: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn strict_mode_repairs_nothing() {
    for input in [
        "```json\n{\"a\": 1}\n```",
        "{\"a\": 1,}",
        "{'a': 1}",
        "\u{feff}{}",
        "Sure: {\"a\": 1}",
        "{\"a\": \"x\ny\"}",
    ] {
        let err = parse_json(input, &Schema::any(), Mode::Strict).unwrap_err();
        assert!(
            matches!(err.reason, Reason::Syntax { .. }),
            "{input:?}: {err}"
        );
        assert!(err.repairs.is_empty());
    }
    let out = parse_json(" [1, \"x\", null] ", &Schema::any(), Mode::Strict).unwrap();
    assert_eq!(out.value, json!([1, "x", null]));
}

/// An answer over the contract's ceilings (`key_claims` `maxItems`, `article_body`
/// `maxLength`): lenient mode cuts it at the bound and records the cut; strict mode refuses.
#[test]
fn lenient_cuts_what_is_over_its_bound_and_strict_refuses_it() {
    let claims: Vec<Value> = (0..60)
        .map(|i| json!({"claim": format!("c{i}"), "confidence": "inferred"}))
        .collect();
    let answer = json!({
        "title": "T", "summary": "S", "key_claims": claims,
        "article_body": "word ".repeat(4_000),
    })
    .to_string();
    let err = parse_json(&answer, &compilation(), Mode::Strict).unwrap_err();
    let lines = err.lines();
    assert!(
        lines.iter().any(|l| l.starts_with("/key_claims:")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("/article_body:")),
        "{lines:?}"
    );
    let out = parse_json(&answer, &compilation(), Mode::Lenient).unwrap();
    let kept = out.value["key_claims"].as_array().unwrap();
    assert_eq!(kept.len(), 50);
    assert_eq!(kept[49]["claim"], "c49", "the first items are kept");
    let body = out.value["article_body"].as_str().unwrap();
    assert!(body.chars().count() <= 16_000 && body.chars().count() > 15_000);
    assert!(body.ends_with("word"), "cut at a space");
    let cuts: Vec<&str> = out
        .repairs
        .iter()
        .filter(|r| r.kind == RepairKind::CutToBound)
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(cuts, ["/key_claims", "/article_body"]);
}

#[test]
fn strict_mode_validates_without_coercing() {
    let answer = r#"{"title":"T","summary":"S","key_claims":[{"claim":"c","confidence":"Sourced"}],"article_body":"B"}"#;
    let err = parse_json(answer, &compilation(), Mode::Strict).unwrap_err();
    assert_eq!(
        err.lines(),
        vec![r#"/key_claims/0/confidence: "Sourced" is not one of sourced, inferred, opinion"#]
    );
    // The same answer in lenient mode is fixed, and the fix is recorded.
    let out = parse_json(answer, &compilation(), Mode::Lenient).unwrap();
    assert_eq!(out.value["key_claims"][0]["confidence"], "sourced");
    assert!(out
        .repairs
        .iter()
        .any(|r| r.kind == RepairKind::EnumCase && r.path == "/key_claims/0/confidence"));
}

#[test]
fn every_violation_is_listed_with_its_path() {
    let answer = json!({
        "title": 7,
        "key_claims": [
            {"claim": "a", "confidence": "sourced", "quote": "q"},
            {"claim": "b"},
            {"claim": "c", "confidence": "certain"}
        ],
        "article_body": "x"
    })
    .to_string();
    let err = parse_json(&answer, &compilation(), Mode::Strict).unwrap_err();
    let lines = err.lines();
    assert!(
        lines.contains(&"/title: expected a string, found the number 7".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"/: missing required field \"summary\"".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(
            &"/key_claims/2/confidence: \"certain\" is not one of sourced, inferred, opinion"
                .to_string()
        ),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
}

#[test]
fn lenient_coerces_toward_the_compilation_contract() {
    let answer = r#"Here is the article:
```json
{
  "title": "Ownership in Rust",
  "summary": "How Rust manages memory.",
  "key_claims": [
    "Each value has one owner.",
    {"claim": "Borrowing avoids copies", "confidence": "SOURCED", "quote": "borrow"}
  ],
  "concepts": "ownership, borrowing , lifetimes",
  "article_body": "See [[Borrowing]].",
  "extra_field": 1
}
```"#;
    let out = parse_json(answer, &compilation(), Mode::Lenient).unwrap();
    assert_eq!(
        out.value,
        json!({
            "title": "Ownership in Rust",
            "summary": "How Rust manages memory.",
            "key_claims": [
                {"claim": "Each value has one owner.", "confidence": "inferred", "quote": null},
                {"claim": "Borrowing avoids copies", "confidence": "sourced", "quote": "borrow"}
            ],
            "concepts": ["ownership", "borrowing", "lifetimes"],
            "backlink_suggestions": [],
            "open_questions": [],
            "article_body": "See [[Borrowing]]."
        })
    );
    let got: Vec<(RepairKind, &str)> = out
        .repairs
        .iter()
        .map(|r| (r.kind, r.path.as_str()))
        .collect();
    for want in [
        (RepairKind::RemovedCodeFence, ""),
        (RepairKind::StringToObject, "/key_claims/0"),
        (RepairKind::EnumCase, "/key_claims/1/confidence"),
        (RepairKind::SplitCommaString, "/concepts"),
        (RepairKind::DefaultFilled, "/backlink_suggestions"),
        (RepairKind::DroppedUnknownField, "/extra_field"),
    ] {
        assert!(got.contains(&want), "{want:?} missing from {got:?}");
    }
    assert!(out.was_repaired() && out.was_coerced());
}

#[test]
fn unwraps_double_encoding_and_single_element_arrays_only_toward_a_schema() {
    let inner = r#"{"title":"T","summary":"S","key_claims":[],"article_body":"B"}"#;
    let encoded = serde_json::to_string(inner).unwrap();
    let out = parse_json(&encoded, &compilation(), Mode::Lenient).unwrap();
    assert_eq!(out.value["title"], "T");
    assert!(kinds(&out.repairs).contains(&RepairKind::UnwrappedDoubleEncoded));
    // Without a schema asking for an object the string is the answer.
    let out = parse_json(&encoded, &Schema::any(), Mode::Lenient).unwrap();
    assert_eq!(out.value, Value::String(inner.to_string()));

    let wrapped = format!("[{inner}]");
    let out = parse_json(&wrapped, &compilation(), Mode::Lenient).unwrap();
    assert_eq!(out.value["title"], "T");
    assert!(kinds(&out.repairs).contains(&RepairKind::UnwrappedSingleElementArray));
    let out = parse_json(&wrapped, &Schema::any(), Mode::Lenient).unwrap();
    assert!(out.value.is_array());
}

#[test]
fn never_invents_a_required_field() {
    // Cut off before `article_body`: the truncated answer fails, naming what is missing.
    let answer = r#"{"title": "T", "summary": "S", "key_claims": [{"claim": "a", "confidence": "sourced", "quote": "x"}], "conce"#;
    let err = parse_json(answer, &compilation(), Mode::Lenient).unwrap_err();
    assert!(err.truncated);
    let lines = err.lines();
    assert_eq!(lines[0], "the answer was cut off before it was complete");
    assert!(
        lines.contains(&"/: missing required field \"article_body\"".to_string()),
        "{lines:?}"
    );

    // Cut off inside the body, with every required field present: kept, marked truncated.
    let answer =
        r#"{"title": "T", "summary": "S", "key_claims": [], "article_body": "Once upon a ti"#;
    let out = parse_json(answer, &compilation(), Mode::Lenient).unwrap();
    assert!(out.truncated);
    assert_eq!(out.value["article_body"], "Once upon a ti");
    assert_eq!(out.value["concepts"], json!([]));
}

#[test]
fn clear_reasons_for_answers_that_are_not_json() {
    let err = parse_json("", &compilation(), Mode::Lenient).unwrap_err();
    assert_eq!(err.reason, Reason::Empty);
    let err = parse_json(
        "<think>I am still thinking about",
        &compilation(),
        Mode::Lenient,
    )
    .unwrap_err();
    assert_eq!(err.reason, Reason::Empty);
    let err = parse_json(
        "I cannot help with that request.",
        &compilation(),
        Mode::Lenient,
    )
    .unwrap_err();
    assert!(matches!(err.reason, Reason::NoJson { .. }), "{err}");
    assert!(err.to_string().contains("I cannot help"), "{err}");
    let err = parse_json("{\"a\": 1 ; \"b\": 2}", &Schema::any(), Mode::Lenient).unwrap_err();
    match err.reason {
        Reason::Syntax { line, column, .. } => assert_eq!((line, column), (1, 9)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn numbers_clamp_and_strings_convert() {
    let schema = Schema::new(json!({
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "count": {"type": "integer"},
            "ok": {"type": "boolean"},
            "name": {"type": "string"}
        }
    }))
    .unwrap();
    let out = parse_json(
        r#"{"score": 1.7, "count": "12", "ok": "TRUE", "name": 42}"#,
        &schema,
        Mode::Lenient,
    )
    .unwrap();
    assert_eq!(
        out.value,
        json!({"score": 1, "count": 12, "ok": true, "name": "42"})
    );
    let k = kinds(&out.repairs);
    assert!(k.contains(&RepairKind::ClampedNumber));
    assert!(k.contains(&RepairKind::ParsedScalarString));
    assert!(k.contains(&RepairKind::StringifiedScalar));
    let err = parse_json(r#"{"count": "many"}"#, &schema, Mode::Lenient).unwrap_err();
    assert_eq!(
        err.lines(),
        vec![r#"/count: expected an integer, found the string "many""#]
    );
}

fn notes_schema() -> Schema {
    Schema::new(json!({
        "oneOf": [
            {"type": "object", "properties": {
                "type": {"const": "claim"},
                "text": {"type": "string"},
                "confidence": {"enum": ["sourced", "inferred", "opinion"]},
                "quote": {"type": ["string", "null"]}
            }, "required": ["type", "text", "confidence"]},
            {"type": "object", "properties": {
                "type": {"const": "definition"},
                "entity": {"type": "string"},
                "definition": {"type": "string"}
            }, "required": ["type", "entity", "definition"]},
            {"type": "object", "properties": {
                "type": {"const": "question"},
                "text": {"type": "string"}
            }, "required": ["type", "text"]}
        ]
    }))
    .unwrap()
}

#[test]
fn jsonl_keeps_good_lines_and_names_bad_ones() {
    let answer = "```jsonl\r\n\
{\"type\": \"claim\", \"text\": \"a\", \"confidence\": \"sourced\", \"quote\": \"q\"}\r\n\
\r\n\
{\"type\": \"definition\", \"entity\": \"E\", \"definition\": \"D\"}\r\n\
this line is prose\r\n\
{\"type\": \"claim\", \"text\": \"b\", \"confidence\": \"certain\"}\r\n\
{\"type\": \"relationship\", \"subject\": \"s\"}\r\n\
{'type': 'Question', 'text': 'why?',}\r\n\
```\r\n\
{\"type\": \"question\", \"text\": \"how";
    let out = parse_jsonl(answer, &notes_schema(), Mode::Lenient);
    let types: Vec<&str> = out
        .values
        .iter()
        .map(|v| v["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, vec!["claim", "definition", "question"]);
    assert_eq!(out.values[2]["text"], "why?");
    let warned: Vec<usize> = out.warnings.iter().map(|w| w.line).collect();
    assert_eq!(warned, vec![5, 6, 7, 10], "{:?}", out.warnings);
    assert!(
        out.warnings[1]
            .reason
            .contains("/confidence: \"certain\" is not one of sourced, inferred, opinion"),
        "{:?}",
        out.warnings[1]
    );
    assert!(
        out.warnings[2]
            .reason
            .contains("\"relationship\" is not one of claim, definition, question"),
        "{:?}",
        out.warnings[2]
    );
    assert!(out.truncated, "the last line was cut off");
    assert!(
        out.repairs
            .iter()
            .any(|r| r.kind == RepairKind::EnumCase && r.path == "/2/type"),
        "{:?}",
        out.repairs
    );
}

#[test]
fn jsonl_edge_cases() {
    let schema = notes_schema();
    // Empty answer: an empty list, no warnings.
    let out = parse_jsonl("", &schema, Mode::Lenient);
    assert!(out.values.is_empty() && out.warnings.is_empty() && !out.truncated);
    // A complete last line without a final newline is kept.
    let out = parse_jsonl(
        "{\"type\":\"question\",\"text\":\"a\"}\n{\"type\":\"question\",\"text\":\"b\"}",
        &schema,
        Mode::Strict,
    );
    assert_eq!(out.values.len(), 2);
    assert!(!out.truncated);
    // A JSON array of objects is taken as its elements.
    let out = parse_jsonl(
        "[{\"type\":\"question\",\"text\":\"a\"},{\"type\":\"question\",\"text\":\"b\"}]",
        &schema,
        Mode::Lenient,
    );
    assert_eq!(out.values.len(), 2);
    // Strict mode skips what lenient would repair.
    let out = parse_jsonl(
        "{'type':'question','text':'a'}\n{\"type\":\"question\",\"text\":\"b\"}\n",
        &schema,
        Mode::Strict,
    );
    assert_eq!(out.values.len(), 1);
    assert_eq!(out.warnings[0].line, 1);
}

#[test]
fn jsonl_stream_emits_each_object_when_its_line_ends() {
    let mut stream = JsonlStream::new(notes_schema(), Mode::Lenient);
    assert!(stream.push("{\"type\":\"question\",").is_empty());
    let events = stream.push("\"text\":\"a\"}\n{\"type\":\"que");
    assert!(matches!(&events[..], [JsonlEvent::Object(v)] if v["text"] == "a"));
    let events = stream.push("stion\",\"text\":\"b\"}\n");
    assert_eq!(events.len(), 1);
    assert!(stream.finish().is_empty());
    assert_eq!(stream.outcome().values.len(), 2);
}

#[test]
fn json_stream_shows_fields_while_the_model_writes() {
    let answer = r#"{"title": "Ownership in Rust", "summary": "How Rust manages memory without a collector.", "key_claims": [], "article_body": "Rust's ownership model ... and more text that keeps coming"}"#;
    let mut stream = JsonStream::new();
    let mut saw_title_while_open = false;
    for chunk in answer.as_bytes().chunks(7) {
        stream.push(std::str::from_utf8(chunk).unwrap());
        if stream.complete_field("title").is_some()
            && stream
                .partial()
                .and_then(|p| p.get("article_body"))
                .is_none()
        {
            saw_title_while_open = true;
        }
    }
    assert!(
        saw_title_while_open,
        "the title was not known before the body arrived"
    );
    let out = stream.finish(&compilation(), Mode::Lenient).unwrap();
    assert_eq!(out.value["title"], "Ownership in Rust");
}

#[test]
fn any_response_type_through_one_entry_point() {
    match parse(
        "plain words",
        ResponseType::Text,
        &Schema::any(),
        Mode::Lenient,
    )
    .unwrap()
    {
        Parsed::Text(t) => assert_eq!(t, "plain words"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse(
            "{\"a\":1}",
            ResponseType::Json,
            &Schema::any(),
            Mode::Strict
        )
        .unwrap(),
        Parsed::Json(_)
    ));
}

#[test]
fn repair_kind_names_are_unique_snake_case() {
    let mut names: Vec<&str> = RepairKind::ALL.iter().map(|k| k.as_str()).collect();
    for n in &names {
        assert!(
            n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{n}"
        );
        let via_serde =
            serde_json::to_value(RepairKind::ALL.iter().find(|k| k.as_str() == *n).unwrap())
                .unwrap();
        assert_eq!(via_serde, Value::String(n.to_string()));
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), RepairKind::ALL.len());
}

/// Regression: brackets and quotes in the prose before the answer (a wiki link, a footnote,
/// a quoted title) were taken for the answer itself.
#[test]
fn prose_with_brackets_before_the_answer_does_not_hide_it() {
    let article =
        r#"{"title":"Espresso","summary":"S","key_claims":[],"article_body":"See [[Crema]]."}"#;
    let with_schema = [
        format!("Here is the article on [[Espresso]]:\n{article}"),
        format!("\"Espresso\" is the title I chose. {article}"),
        format!("Notes [1], [2] and [see below] first.\n{article}\nThat is all [3]."),
        format!("[[Espresso]] {{draft}} [x] [y] [z] [w] [v]\n{article}"),
    ];
    for raw in &with_schema {
        let out = parse_json(raw, &compilation(), Mode::Lenient)
            .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        assert_eq!(out.value["title"], "Espresso", "{raw:?}");
        assert_eq!(out.value["article_body"], "See [[Crema]].", "{raw:?}");
        assert!(
            kinds(&out.repairs).contains(&RepairKind::SkippedLeadingText),
            "{raw:?}: {:?}",
            out.repairs
        );
    }
    // With no schema the object after a bracketed phrase wins over the phrase too.
    let raw = "Here is the article on [[Espresso]]:\n{\"a\": 1}";
    let out = parse_json(raw, &Schema::any(), Mode::Lenient).unwrap();
    assert_eq!(out.value, json!({"a": 1}));
    // A wrapped answer is still unwrapped toward the schema after prose.
    let raw = format!("Sure:\n[{article}]");
    let out = parse_json(&raw, &compilation(), Mode::Lenient).unwrap();
    assert_eq!(out.value["title"], "Espresso");
    // An answer that is only prose in brackets is still read as what it is.
    let out = parse_json("[see below]", &Schema::any(), Mode::Lenient).unwrap();
    assert_eq!(out.value, json!(["see below"]));
}

/// The outcome says in words what a person should know: a cut-off answer, a second value.
#[test]
fn warnings_say_what_was_cut_off_or_dropped() {
    let out = parse_json(
        r#"{"a": "the body goes on and"#,
        &Schema::any(),
        Mode::Lenient,
    )
    .unwrap();
    assert!(out.truncated);
    assert!(
        out.warnings.iter().any(|w| w.contains("cut off")),
        "{:?}",
        out.warnings
    );
    let out = parse_json("{\"a\": 1}\n{\"a\": 2}", &Schema::any(), Mode::Lenient).unwrap();
    assert_eq!(out.value, json!({"a": 1}));
    assert!(
        out.warnings.iter().any(|w| w.contains("only the first")),
        "{:?}",
        out.warnings
    );
    let out = parse_json("{\"a\": 1}", &Schema::any(), Mode::Lenient).unwrap();
    assert!(out.warnings.is_empty());
}
