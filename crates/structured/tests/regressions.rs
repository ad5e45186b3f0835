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
