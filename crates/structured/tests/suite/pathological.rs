//! Pathological inputs: each must finish (a generous deadline detects hangs; no timing is
//! asserted otherwise) and must not overflow the stack, proved by parsing in a thread with
//! a small stack: the engine must not recurse on the input's nesting.

use std::sync::mpsc;
use std::time::Duration;

use wikimind_structured::{parse_json, parse_jsonl, JsonStream, JsonlStream, Mode, Schema};

const DEADLINE: Duration = Duration::from_secs(30);
/// 256 KiB in optimised builds. Unoptimised, `serde_json` (the strict reader and lenient's
/// fast path) needs more for the 127 levels it accepts, which is bounded recursion; 1 MiB
/// still cannot hold 100 000 levels of any recursion (at least 16 bytes a frame).
const SMALL_STACK: usize = if cfg!(debug_assertions) {
    1024 * 1024
} else {
    256 * 1024
};

/// What a case must come out as.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Any result, as long as it finishes.
    Finishes,
    /// Lenient `json` fails (no value can honestly be made of it).
    Refused,
    /// Lenient `json` returns a value marked truncated.
    Truncated,
}

/// Runs every entry point on `input` in a small-stack thread; panics (naming the case) on
/// a hang, a panic, or a result other than `expect`.
fn run(name: &'static str, input: String, expect: Expect) {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(name.into())
        .stack_size(SMALL_STACK)
        .spawn(move || {
            let any = Schema::any();
            let lenient = parse_json(&input, &any, Mode::Lenient);
            let _ = parse_json(&input, &any, Mode::Strict);
            let lines = parse_jsonl(&input, &any, Mode::Lenient);
            let _ = parse_jsonl(&input, &any, Mode::Strict);
            // The streaming parsers, fed in chunks as a model would send them.
            let mut jsonl = JsonlStream::new(any.clone(), Mode::Lenient);
            let mut json = JsonStream::new();
            for chunk in input.as_bytes().chunks(64 * 1024) {
                let chunk = String::from_utf8_lossy(chunk);
                jsonl.push(&chunk);
                json.push(&chunk);
            }
            jsonl.finish();
            let _ = json.finish(&any, Mode::Lenient);
            let _ = tx.send((
                lenient
                    .as_ref()
                    .map(|o| o.truncated)
                    .map_err(|e| e.to_string()),
                lines.values.len(),
            ));
        })
        .expect("a thread");
    let (lenient, _) = match rx.recv_timeout(DEADLINE) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let _ = handle.join();
            panic!("{name}: panicked (or overflowed its {SMALL_STACK}-byte stack)");
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{name}: still running after {DEADLINE:?}: a hang or worse than linear time")
        }
    };
    handle.join().expect("the worker ends");
    match expect {
        Expect::Finishes => {}
        Expect::Refused => assert!(
            lenient.is_err(),
            "{name}: expected a refusal, got {lenient:?}"
        ),
        Expect::Truncated => assert_eq!(lenient, Ok(true), "{name}: expected a truncated value"),
    }
}

const MB: usize = 1024 * 1024;

#[test]
fn unclosed_string_of_2_mb() {
    let input = format!(
        "{{\"article_body\": \"{}",
        "lorem ipsum ".repeat(2 * MB / 12)
    );
    run("2 MB unclosed string", input, Expect::Truncated);
}

#[test]
fn unclosed_string_of_2_mb_with_quotes_inside() {
    // Every inner quote makes the reader look ahead; the look-ahead must stay bounded.
    let input = format!("{{\"a\": \"{}", "say \"hi\", x ".repeat(2 * MB / 13));
    run("2 MB unclosed string with quotes", input, Expect::Truncated);
}

#[test]
fn hundred_thousand_open_brackets() {
    run("100 000 [", "[".repeat(100_000), Expect::Refused);
}

#[test]
fn hundred_thousand_open_brackets_closed() {
    let input = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    run("100 000 [ then ]", input, Expect::Refused);
}

#[test]
fn hundred_thousand_nested_objects() {
    run(
        "100 000 {\"a\":",
        "{\"a\":".repeat(100_000),
        Expect::Refused,
    );
}

#[test]
fn ten_mb_of_prose() {
    let input = "The quick brown fox jumps over the lazy dog. ".repeat(10 * MB / 45);
    run("10 MB of prose", input, Expect::Refused);
}

#[test]
fn ten_mb_of_prose_with_stray_brackets() {
    // Each `{` or `[` is a place the JSON might start; trying them must stay bounded.
    let input = "See [note] and {this}: it's \"quoted\". ".repeat(10 * MB / 39);
    run("10 MB of prose with brackets", input, Expect::Finishes);
}

#[test]
fn one_mb_of_double_quotes() {
    run("1 MB of \"", "\"".repeat(MB), Expect::Finishes);
}

#[test]
fn one_mb_of_double_quotes_in_an_object() {
    run(
        "{\"a\": 1 MB of \"",
        format!("{{\"a\": {}", "\"".repeat(MB)),
        Expect::Finishes,
    );
}

#[test]
fn one_mb_of_commas() {
    run("1 MB of ,", ",".repeat(MB), Expect::Finishes);
    run(
        "[ then 1 MB of ,",
        format!("[{}", ",".repeat(MB)),
        Expect::Finishes,
    );
    run(
        "{ then 1 MB of ,",
        format!("{{{}", ",".repeat(MB)),
        Expect::Finishes,
    );
}

#[test]
fn one_mb_of_backticks_and_newlines() {
    run("1 MB of ```", "```".repeat(MB / 3), Expect::Finishes);
    run("1 MB of ```\\n", "```\n".repeat(MB / 4), Expect::Finishes);
}

#[test]
fn deeply_nested_then_truncated() {
    // Within the nesting limit: closed and kept.
    let input = format!("{}\"cut off here", "{\"a\": [".repeat(60));
    run("60 levels then cut", input, Expect::Truncated);
    // Past it: refused, not overflowed.
    let input = format!("{}\"cut off here", "{\"a\": [".repeat(50_000));
    run("100 000 levels then cut", input, Expect::Refused);
}

#[test]
fn many_small_values_in_a_long_array() {
    let input = format!("[{}", "1, 'a', {b: None}, ".repeat(MB / 19));
    run(
        "1 MB array of repaired items, truncated",
        input,
        Expect::Truncated,
    );
}

#[test]
fn long_jsonl_answer() {
    let input = "{\"type\": \"claim\", \"text\": \"x\"}\n".repeat(MB / 32);
    run("1 MB of jsonl", input, Expect::Finishes);
}
