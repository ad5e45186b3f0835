//! The official JSON-Schema-Test-Suite, draft 2020-12, in strict mode, from the snapshot of
//! `../shared/data/JSON-Schema-Test-Suite` kept in `tests/data/JSON-Schema-Test-Suite` (or
//! the folder named by `JSON_SCHEMA_TEST_SUITE_DIR`), so every clone runs it.
//!
//! A schema the engine cannot check completely is refused when it is loaded, so each
//! group of cases either loads, and then every case must come out as the suite says, or is
//! refused as a whole. The table printed (`--nocapture`) gives per keyword (one file per
//! keyword) how many cases ran and passed and how many were refused.
//!
//! One deliberate difference: the engine asserts `format` (a wrong date is an error, as
//! a model contract means it), where draft 2020-12 makes it an annotation by default. The
//! cases that say "only an annotation by default" are counted apart, and `format` is
//! measured with the suite's assertion cases in `optional/format/` instead. The other
//! optional cases (`optional/*.json`) are run the same way.
//!
//! A missing suite fails: it never passes untested.

use std::path::{Path, PathBuf};

use serde_json::Value;
use wikimind_structured::{parse_json, Mode, Schema};

fn suite_dir() -> PathBuf {
    let dir = match std::env::var_os("JSON_SCHEMA_TEST_SUITE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/JSON-Schema-Test-Suite/tests/draft2020-12"),
    };
    assert!(
        dir.is_dir(),
        "JSON-Schema-Test-Suite not found at {} (set JSON_SCHEMA_TEST_SUITE_DIR to its tests/draft2020-12 folder)",
        dir.display()
    );
    dir
}

/// What one file (one keyword) gave.
#[derive(Default)]
struct Tally {
    /// Cases whose schema loaded.
    ran: usize,
    /// Of those, cases that came out as the suite says.
    passed: usize,
    /// Cases whose schema was refused at load time.
    refused: usize,
    /// Cases of the deliberate `format` difference.
    asserted_format: usize,
    failures: Vec<String>,
}

fn run_file(path: &Path) -> Tally {
    let text = std::fs::read_to_string(path).expect("a readable suite file");
    let groups: Vec<Value> = serde_json::from_str(&text).expect("a suite file is JSON");
    let mut tally = Tally::default();
    for group in groups {
        let tests = group["tests"].as_array().expect("a group has tests");
        let schema = match Schema::new(group["schema"].clone()) {
            Ok(s) => s,
            Err(_) => {
                tally.refused += tests.len();
                continue;
            }
        };
        for test in tests {
            let description = test["description"].as_str().unwrap_or("");
            if description.contains("only an annotation by default") {
                tally.asserted_format += 1;
                continue;
            }
            tally.ran += 1;
            let want = test["valid"]
                .as_bool()
                .expect("a case says whether it is valid");
            let data = serde_json::to_string(&test["data"]).expect("data serialises");
            let got = parse_json(&data, &schema, Mode::Strict);
            if got.is_ok() == want {
                tally.passed += 1;
            } else {
                tally.failures.push(format!(
                    "{} / {} / {}: expected {}, got {}",
                    path.file_name().unwrap().to_string_lossy(),
                    group["description"].as_str().unwrap_or(""),
                    description,
                    if want { "valid" } else { "invalid" },
                    match &got {
                        Ok(_) => "valid".to_string(),
                        Err(e) => format!("invalid ({e})"),
                    }
                ));
            }
        }
    }
    tally
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the suite folder is readable")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Runs the files and prints one line per keyword; returns every failure.
fn run_all(files: &[PathBuf], title: &str) -> (Vec<String>, Vec<(String, Tally)>) {
    println!("{title}");
    println!(
        "{:<28} {:>6} {:>6} {:>8} {:>8}",
        "keyword", "ran", "passed", "refused", "pass"
    );
    let mut failures = Vec::new();
    let mut tallies = Vec::new();
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let mut t = run_file(path);
        let rate = if t.ran == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * t.passed as f64 / t.ran as f64)
        };
        println!(
            "{name:<28} {:>6} {:>6} {:>8} {:>8}{}",
            t.ran,
            t.passed,
            t.refused,
            rate,
            if t.asserted_format > 0 {
                format!(
                    "  ({} format cases asserted, not annotations)",
                    t.asserted_format
                )
            } else {
                String::new()
            }
        );
        failures.append(&mut t.failures);
        tallies.push((name, t));
    }
    (failures, tallies)
}

/// Keywords the engine checks: their files must load, at least in part.
const CHECKED: &[&str] = &[
    "additionalProperties",
    "anchor",
    "allOf",
    "anyOf",
    "boolean_schema",
    "const",
    "contains",
    "default",
    "dependentRequired",
    "dependentSchemas",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "if-then-else",
    "items",
    "maxContains",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minContains",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "patternProperties",
    "prefixItems",
    "properties",
    "propertyNames",
    "ref",
    "required",
    "type",
    "uniqueItems",
    "unevaluatedItems",
    "unevaluatedProperties",
];

#[test]
fn draft2020_12_in_strict_mode() {
    let dir = suite_dir();
    let (failures, tallies) = run_all(&json_files(&dir), "draft 2020-12");
    for keyword in CHECKED {
        let tally = tallies.iter().find(|(n, _)| n == keyword);
        assert!(
            tally.is_some_and(|(_, t)| t.ran > 0),
            "no case of the checked keyword {keyword} ran"
        );
    }
    assert!(
        failures.is_empty(),
        "{} cases came out wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The optional cases (big numbers, ECMA-262 regular expressions in `pattern`, …): every
/// case of a schema that loads passes here too.
#[test]
fn draft2020_12_optional_cases() {
    let dir = suite_dir();
    let (failures, tallies) = run_all(&json_files(&dir.join("optional")), "optional");
    for file in [
        "bignum",
        "ecmascript-regex",
        "float-overflow",
        "non-bmp-regex",
    ] {
        let tally = tallies.iter().find(|(n, _)| n == file);
        assert!(
            tally.is_some_and(|(_, t)| t.ran > 0),
            "no case of the optional file {file} ran"
        );
    }
    assert!(
        failures.is_empty(),
        "{} cases came out wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Formats the engine checks: their assertion cases must pass.
const FORMATS: &[&str] = &[
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uuid",
];

#[test]
fn draft2020_12_formats_as_assertions() {
    let dir = suite_dir();
    let (failures, tallies) = run_all(&json_files(&dir.join("optional/format")), "formats");
    for format in FORMATS {
        let tally = tallies.iter().find(|(n, _)| n == format);
        assert!(
            tally.is_some_and(|(_, t)| t.ran > 0),
            "no case of the checked format {format} ran"
        );
    }
    assert!(
        failures.is_empty(),
        "{} cases came out wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
