//! `wikimind parse` as a person uses it: raw answer in, value out, repairs on stderr.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn wikimind() -> Command {
    Command::cargo_bin("wikimind").unwrap()
}

#[test]
fn repairs_a_fenced_answer_against_the_contract() {
    let answer = "Sure!\n```json\n{'title': 'Rust', \"summary\": \"S\", \"key_claims\": [\"Each value has one owner.\"], \"article_body\": \"line1\nline2\",}\n```";
    let out = wikimind()
        .args(["parse", "--schema", "compilation"])
        .write_stdin(answer)
        .assert()
        .success()
        .stderr(predicate::str::contains("repaired: removed_code_fence"))
        .stderr(predicate::str::contains(
            "repaired: string_to_object at /key_claims/0",
        ))
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["key_claims"][0]["confidence"], "inferred");
    assert_eq!(v["article_body"], "line1\nline2");
}

#[test]
fn json_flag_prints_one_report_object() {
    let out = wikimind()
        .args(["--json", "parse"])
        .write_stdin("{\"a\": [1, 2,")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["value"], serde_json::json!({"a": [1, 2]}));
    assert_eq!(v["truncated"], true);
    assert_eq!(v["repairs"][0]["kind"], "closed_truncated");
    assert!(v["warnings"].is_array());
}

#[test]
fn strict_failure_lists_each_violation_and_exits_1() {
    wikimind()
        .args(["parse", "--strict", "--schema", "compilation"])
        .write_stdin(r#"{"title": 3, "summary": "s", "key_claims": [{"claim": "c", "confidence": "certain"}], "article_body": "b"}"#)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("/title: expected a string, found the number 3\n"))
        .stderr(predicate::str::contains(
            "/key_claims/0/confidence: \"certain\" is not one of sourced, inferred, opinion\n",
        ));
}

#[test]
fn jsonl_prints_one_object_per_line_and_warns_about_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("answer.txt");
    std::fs::write(&file, "{\"n\": 1}\nnot json\n{\"n\": 2}\n{\"n\": 3}").unwrap();
    wikimind()
        .args(["parse", "--response-type", "jsonl"])
        .arg(&file)
        .assert()
        .success()
        .stdout("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
        .stderr(predicate::str::contains("warning: line 2: not JSON"));
    // A last line cut off mid-object is dropped, everything before it kept.
    wikimind()
        .args(["parse", "--response-type", "jsonl"])
        .write_stdin("{\"n\": 1}\n{\"n\": 2, \"te")
        .assert()
        .success()
        .stdout("{\"n\":1}\n")
        .stderr(predicate::str::contains("warning: line 2: cut off"));
}

#[test]
fn wrong_usage_exits_2() {
    wikimind()
        .args(["parse", "--response-type", "xml"])
        .assert()
        .code(2);
    wikimind()
        .args(["parse", "--schema", "/definitely/not/here.json"])
        .write_stdin("{}")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read the schema file"));
}

#[test]
fn prose_without_json_fails_with_the_reason() {
    wikimind()
        .args(["parse", "--schema", "compilation"])
        .write_stdin("I'm sorry, I can't do that.")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no JSON value found in the answer",
        ));
}

/// Regression: `{"a": "He said "hi" "there": 1}` and `{"key": ""value""}` were accepted
/// with a guessed value; each has two readings, so the answer is refused naming where.
#[test]
fn inner_quotes_with_two_readings_exit_1_naming_the_quote() {
    for (answer, column) in [
        (r#"{"a": "He said "hi" "there": 1}"#, "line 1, column 19"),
        (r#"{"key": ""value""}"#, "line 1, column 16"),
    ] {
        wikimind()
            .arg("parse")
            .write_stdin(answer)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(column))
            .stderr(predicate::str::contains("no reading is sure"));
    }
}
