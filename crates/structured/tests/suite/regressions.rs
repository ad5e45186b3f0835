//! Inputs found by fuzzing, each kept as a test so the bug stays fixed.

use wikimind_structured::{parse_json, Mode, Schema};

/// Re-reads lenient's output with strict mode after serialising it.
fn round_trips(raw: &str) {
    let any = Schema::any();
    let out = parse_json(raw, &any, Mode::Lenient).expect("lenient reads it");
    let json = serde_json::to_string(&out.value).unwrap();
    let again = parse_json(&json, &any, Mode::Strict).expect("strict re-reads it");
    assert_eq!(again.value, out.value, "{raw:?} -> {json}");
}

/// Fuzz crash `[1.8011670033376514H-308]`: without correctly rounded float parsing,
/// serde_json reads 1.8011670033376514 as a float whose shortest form reads back as a
/// different float, so a value the engine returned did not survive being written out and
/// read again.
#[test]
fn floats_survive_a_round_trip() {
    round_trips("[1.8011670033376514H-308]");
    round_trips("[1.8011670033376514]");
    round_trips("{\"x\": 1.8011670033376514, 'y': 2.2250738585072011e-308,}");
}

/// Fuzz crash: 128 nested arrays. Lenient read them while strict mode (serde_json, which
/// accepts 127 levels) could not read lenient's own output back. Up to the limit both modes
/// agree; past it, whatever lenient returns must still be readable by strict mode.
#[test]
fn lenient_and_strict_agree_on_the_nesting_limit() {
    let any = Schema::any();
    for depth in 120..=132 {
        let raw = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let strict = parse_json(&raw, &any, Mode::Strict).map(|o| o.value);
        let lenient = parse_json(&raw, &any, Mode::Lenient).map(|o| o.value);
        assert_eq!(strict.is_ok(), depth <= 127, "depth {depth}");
        if let Ok(s) = strict {
            assert_eq!(lenient, Ok(s), "depth {depth}");
        } else if lenient.is_ok() {
            round_trips(&raw);
        }
        // Lenient's repair path (here: a trailing comma) has the same limit.
        let damaged = format!("{}1,{}", "[".repeat(depth), "]".repeat(depth));
        if parse_json(&damaged, &any, Mode::Lenient).is_ok() {
            round_trips(&damaged);
        }
    }
}

/// Property-test find: a fenced answer whose strings hold a code fence (any markdown body
/// with a code block) was cut at the inner fence, and the body was lost.
#[test]
fn a_fence_inside_a_string_does_not_close_the_answer_fence() {
    let schema = Schema::from_json(include_str!(
        "../../../../schemas/compilation_result.schema.json"
    ))
    .unwrap();
    let body = "Intro\n```rust\nfn main() {}\n```\nEnd";
    let value = serde_json::json!({
        "title": "T", "summary": "S", "key_claims": [], "article_body": body,
        "concepts": [], "backlink_suggestions": [], "open_questions": [],
    });
    for json in [
        serde_json::to_string(&value).unwrap(),
        serde_json::to_string_pretty(&value).unwrap(),
    ] {
        let raw = format!("Here is the result:\n```json\n{json}\n```\nDone.");
        let out = parse_json(&raw, &schema, Mode::Lenient).expect("lenient reads it");
        assert_eq!(out.value, value, "{raw}");
        assert!(!out.truncated);
        let out = parse_json(&raw, &Schema::any(), Mode::Lenient).expect("lenient reads it");
        assert_eq!(out.value, value, "{raw}");
    }
    // A closing fence on the same line as the JSON still ends it.
    let out = parse_json(
        "Sure:\n```json\n{\"a\": [1, 2]}```\nBye",
        &Schema::any(),
        Mode::Lenient,
    )
    .expect("lenient reads it");
    assert_eq!(out.value, serde_json::json!({"a": [1, 2]}));
}

/// 128 nested arrays are one level too deep: the answer fails as a whole instead of coming
/// back as a fragment read from inside it.
#[test]
fn too_deep_input_fails_instead_of_returning_a_fragment() {
    let input = "[".repeat(128) + &"]".repeat(128);
    let err = wikimind_structured::parse_json(
        &input,
        &wikimind_structured::Schema::any(),
        wikimind_structured::Mode::Lenient,
    )
    .unwrap_err();
    assert!(err.to_string().contains("nesting deeper than"), "{err}");
}

/// A run of commas is one repair, not one per comma.
#[test]
fn repeated_repairs_at_one_place_are_recorded_once() {
    let input = format!("[1{}]", ",".repeat(10_000));
    let out = wikimind_structured::parse_json(
        &input,
        &wikimind_structured::Schema::any(),
        wikimind_structured::Mode::Lenient,
    )
    .unwrap();
    assert_eq!(out.value, serde_json::json!([1]));
    assert_eq!(
        out.repairs.len(),
        1,
        "{:?}",
        &out.repairs[..out.repairs.len().min(3)]
    );
}

/// A fenced answer whose string holds a code block written with raw newlines: the inner
/// closing fence starts a line, but the answer goes on to the real closing fence.
#[test]
fn raw_newline_code_block_inside_a_fenced_answer() {
    let input = "Sure:\n```json\n{\"a\": \"x\n```rust\ncode\n```\ny\"}\n```\nDone.";
    let out = wikimind_structured::parse_json(
        input,
        &wikimind_structured::Schema::any(),
        wikimind_structured::Mode::Lenient,
    )
    .unwrap();
    assert_eq!(
        out.value,
        serde_json::json!({"a": "x\n```rust\ncode\n```\ny"})
    );
    assert!(!out.truncated);
}

/// Property-test find (CI run killed for memory): a bare word made only of Unicode
/// whitespace (U+3000, U+2028, U+0085…) inside a container. The unquoted-string repair
/// trimmed it to nothing and did not move on, so the reader pushed empty strings forever.
/// Each input runs in its own thread so a regression fails here instead of hanging.
#[test]
fn unicode_whitespace_as_a_bare_word_does_not_loop() {
    for raw in [
        "[\u{3000},1]",
        "[\u{2028}]",
        "{\"a\": \u{85}, \"b\": 2}",
        "[x\u{3000}, \u{3000}y]",
        "{\"a\": [\u{a0}\u{a0}\n]}",
    ] {
        let (tx, rx) = std::sync::mpsc::channel();
        let input = raw.to_string();
        std::thread::spawn(move || {
            let any = Schema::any();
            let out = parse_json(&input, &any, Mode::Lenient).map(|o| o.value);
            let _ = tx.send(out);
        });
        let out = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{raw:?} did not finish"));
        if out.is_ok() {
            round_trips(raw);
        }
    }
}
