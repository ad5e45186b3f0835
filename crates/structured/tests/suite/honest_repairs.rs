//! Issue 12, "the structured engine never returns a wrong value with exit 0": one table
//! row per class of damaged answer. Each row says what the answer should give: a value
//! (with the repair kinds that must be recorded) when the intent is unambiguous, or a
//! refusal when it is not. A refusal is honest; a different value that succeeds is not.

use serde_json::{json, Value};
use wikimind_structured::{parse_json, Mode, RepairKind, Schema};

/// What one answer must give.
enum Want {
    /// This value, these repair kinds among the recorded ones, and this `truncated` flag.
    Value(Value, Vec<RepairKind>, bool),
    /// This value, and a warning containing these words.
    Warned(Value, &'static str),
    /// An error whose text contains these words (where, or what is wrong).
    Refused(&'static str),
}

use Want::*;

fn schema(doc: Option<Value>) -> Schema {
    match doc {
        Some(d) => Schema::new(d).expect("a test schema loads"),
        None => Schema::any(),
    }
}

fn check(cases: Vec<(&str, &str, Option<Value>, Want)>) {
    let mut failures = Vec::new();
    for (name, raw, doc, want) in cases {
        let got = parse_json(raw, &schema(doc), Mode::Lenient);
        match (want, got) {
            (Value(v, kinds, truncated), Ok(out)) => {
                if out.value != v {
                    failures.push(format!("{name}: got {} expected {v}", out.value));
                }
                let got: Vec<RepairKind> = out.repairs.iter().map(|r| r.kind).collect();
                for k in kinds {
                    if !got.contains(&k) {
                        failures.push(format!("{name}: repairs {got:?} lack {k:?}"));
                    }
                }
                if out.truncated != truncated {
                    failures.push(format!("{name}: truncated = {}", out.truncated));
                }
            }
            (Warned(v, words), Ok(out)) => {
                if out.value != v {
                    failures.push(format!("{name}: got {} expected {v}", out.value));
                }
                if !out.warnings.iter().any(|w| w.contains(words)) {
                    failures.push(format!(
                        "{name}: no warning saying {words:?} in {:?}",
                        out.warnings
                    ));
                }
            }
            (Refused(words), Err(e)) => {
                if !e.to_string().contains(words) {
                    failures.push(format!("{name}: refused, but not saying {words:?}: {e}"));
                }
            }
            (Refused(_), Ok(out)) => {
                failures.push(format!("{name}: should be refused, got {}", out.value));
            }
            (_, Err(e)) => failures.push(format!("{name}: refused: {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn numbers() -> Option<Value> {
    Some(json!({"type": "array", "items": {"type": "number"}}))
}

fn object_with(field: &str, schema: Value) -> Option<Value> {
    Some(json!({"type": "object", "properties": {field: schema}, "additionalProperties": false}))
}

/// A string left open just before the closers that end the answer: the quote is missing,
/// the answer is complete.
#[test]
fn a_missing_closing_quote_before_the_final_closers() {
    use RepairKind::*;
    check(vec![
        (
            "array in object",
            r#"{"tags": ["espresso]}"#,
            None,
            Value(
                json!({"tags": ["espresso"]}),
                vec![InsertedMissingQuote],
                false,
            ),
        ),
        (
            "object",
            r#"{"a": 1, "b": "x}"#,
            None,
            Value(json!({"a": 1, "b": "x"}), vec![InsertedMissingQuote], false),
        ),
        (
            "closers with space",
            "[\"a\", \"b ]\n",
            None,
            Value(json!(["a", "b"]), vec![InsertedMissingQuote], false),
        ),
        // The text opens a bracket the closer may close: cut off, not a missing quote.
        (
            "closer that closes the text's own bracket",
            r#"{"a": "f(x) {y}"#,
            None,
            Value(json!({"a": "f(x) {y}"}), vec![ClosedTruncated], true),
        ),
        // Closers that do not close what is open are text.
        (
            "closers that do not match",
            r#"{"a": "x]"#,
            None,
            Value(json!({"a": "x]"}), vec![ClosedTruncated], true),
        ),
    ]);
}

/// A quote lost before the comma that precedes the next key, or a quote lost at the start
/// of a key or a value: the other quote says where the string is.
#[test]
fn other_missing_quotes() {
    use RepairKind::*;
    check(vec![
        (
            "closing quote before the next key",
            r#"{"a": "b, "c": 1}"#,
            None,
            Value(json!({"a": "b", "c": 1}), vec![InsertedMissingQuote], false),
        ),
        (
            "opening quote of a key",
            r#"{a": 1}"#,
            None,
            Value(json!({"a": 1}), vec![UnquotedKey], false),
        ),
        (
            "opening quote of a value",
            r#"{"a": b", "c": 1}"#,
            None,
            Value(json!({"a": "b", "c": 1}), vec![UnquotedString], false),
        ),
        // In an array, `, "yes", ` may be quoted words inside the text: it stays text.
        (
            "quoted words inside an item",
            r#"["He said, "yes", and left"]"#,
            None,
            Value(
                json!(["He said, \"yes\", and left"]),
                vec![EscapedInnerQuote],
                false,
            ),
        ),
    ]);
}

#[test]
fn strings_in_other_notations() {
    use RepairKind::*;
    check(vec![
        (
            "concatenation",
            r#"{"a": "foo" + "bar", "b": ["x" +
 'y']}"#,
            None,
            Value(
                json!({"a": "foobar", "b": ["xy"]}),
                vec![ConcatenatedStrings],
                false,
            ),
        ),
        (
            "typographic quotes",
            "{“title”: “It’s here”, ‘b’: ‘x’}",
            None,
            Value(
                json!({"title": "It’s here", "b": "x"}),
                vec![TypographicQuotes],
                false,
            ),
        ),
    ]);
}

#[test]
fn a_string_with_more_text_after_it_is_not_the_answer() {
    check(vec![
        ("alternatives", r#""yes" or "no""#, None, Refused("line 1")),
        (
            "a member without its object",
            r#""a": 1, "b": 2"#,
            None,
            Refused("line 1"),
        ),
    ]);
}

/// Two guesses about one string contradict each other: no reading is sure.
#[test]
fn contradicting_quote_guesses_are_refused() {
    use RepairKind::*;
    check(vec![
        (
            "an inner quote and a missing closing quote",
            r#"{"key": "value" extra}"#,
            None,
            Refused("line 1, column 15"),
        ),
        (
            "closed with the other quote",
            r#"{"a": '1', "b": "2'}"#,
            None,
            Value(
                json!({"a": "1", "b": "2"}),
                vec![InsertedMissingQuote],
                false,
            ),
        ),
        (
            "doubled commas after a string",
            r#"{"a" : "b",,, "c": "d"}"#,
            None,
            Value(
                json!({"a": "b", "c": "d"}),
                vec![RemovedTrailingComma],
                false,
            ),
        ),
    ]);
}

/// Unescaped quotes inside a string are text only when that is the one reading. When the
/// quote that would end the string needs a missing comma after it, and it may as well close
/// a quote left open inside the string (the string's own closing quote then missing), both
/// readings need a repair: the answer is refused there, at that quote.
#[test]
fn inner_quotes_with_two_readings_are_refused() {
    use RepairKind::*;
    check(vec![
        // `He said "hi` and a missing comma, or `He said "hi"` and a missing quote?
        (
            "a quoted word, then a key without its comma",
            r#"{"a": "He said "hi" "there": 1}"#,
            None,
            Refused("line 1, column 19"),
        ),
        // `"value` and a cut-off key, or `"value"` and a missing quote?
        (
            "a value in doubled quotes at the end of the object",
            r#"{"key": ""value""}"#,
            None,
            Refused("line 1, column 16"),
        ),
        (
            "a quoted word, then an item without its comma",
            r#"["say "hi" "there"]"#,
            None,
            Refused("line 1, column 10"),
        ),
        // Neighbours with one reading stay repaired.
        (
            "a value in doubled quotes before the next member",
            r#"{"key": ""value"", "b": 2}"#,
            None,
            Value(
                json!({"key": "\"value\"", "b": 2}),
                vec![EscapedInnerQuote],
                false,
            ),
        ),
        (
            "a single inner quote followed by prose",
            r#"{"a": "the 12" pipe is long"}"#,
            None,
            Value(
                json!({"a": "the 12\" pipe is long"}),
                vec![EscapedInnerQuote],
                false,
            ),
        ),
        (
            "a single inner quote inside a word",
            r#"{"key": "val"ue"}"#,
            None,
            Value(json!({"key": "val\"ue"}), vec![EscapedInnerQuote], false),
        ),
        // The quoted word is closed, so the quote after `now` cannot close it.
        (
            "a closed quoted word, then a key on the next line without its comma",
            "{\"a\": \"say \"hi\" now\"\n\"b\": 1}",
            None,
            Value(
                json!({"a": "say \"hi\" now", "b": 1}),
                vec![EscapedInnerQuote, InsertedMissingComma],
                false,
            ),
        ),
        (
            "a closed quoted word, then an item without its comma",
            r#"["a "b" c" "d"]"#,
            None,
            Value(
                json!(["a \"b\" c", "d"]),
                vec![EscapedInnerQuote, InsertedMissingComma],
                false,
            ),
        ),
        (
            "no inner quote, then a key without its comma",
            r#"{"a": "x" "b": 1}"#,
            None,
            Value(json!({"a": "x", "b": 1}), vec![InsertedMissingComma], false),
        ),
    ]);
}

#[test]
fn unicode_spaces_and_bare_values() {
    use RepairKind::*;
    check(vec![
        (
            "no-break space before a key",
            "{\u{a0}\"a\":\u{3000}2}",
            None,
            Value(json!({"a": 2}), vec![UnicodeWhitespace], false),
        ),
        (
            "a single-quoted item before bare items",
            r#"["a", 'b', c, 1, true]"#,
            None,
            Value(
                json!(["a", "b", "c", 1, true]),
                vec![SingleQuotedString, UnquotedString],
                false,
            ),
        ),
        // A call with quoted arguments is neither text nor a value.
        (
            "a wrapped value",
            r#"{"a": ObjectId("507f1f77")}"#,
            None,
            Refused("line 1"),
        ),
        (
            "quotes in bare text",
            r#"{"a": He said "hi"}"#,
            None,
            Refused("line 1"),
        ),
    ]);
}

/// A value inside an answer that could not be read is a fragment, not the answer.
#[test]
fn a_fragment_of_a_broken_value_is_not_the_answer() {
    check(vec![
        (
            "inner array",
            r#"{"value": [1,2,3]4}"#,
            None,
            Refused("line 1"),
        ),
        (
            "inner object",
            r#"{"a": {"b": 1} ; "c": 2}"#,
            None,
            Refused("line 1"),
        ),
    ]);
}

/// A bare word that may be a misspelt literal is text only where text is asked for.
#[test]
fn words_that_may_be_literals() {
    use RepairKind::*;
    let text = || object_with("b", json!({"type": "string"}));
    let flag = || object_with("b", json!({"type": "boolean"}));
    check(vec![
        (
            "cut short, no schema",
            r#"{"b": fals}"#,
            None,
            Refused("/b"),
        ),
        (
            "another language, no schema",
            r#"{"b": none}"#,
            None,
            Refused("/b"),
        ),
        (
            "undefined, no schema",
            r#"{"b": undefined}"#,
            None,
            Refused("/b"),
        ),
        (
            "text asked for",
            r#"{"b": none}"#,
            text(),
            Value(json!({"b": "none"}), vec![UnquotedString], false),
        ),
        (
            "a boolean asked for",
            r#"{"b": TRUE}"#,
            flag(),
            Value(json!({"b": true}), vec![ParsedScalarString], false),
        ),
        (
            "an ordinary word",
            r#"{"b": sourced}"#,
            None,
            Value(json!({"b": "sourced"}), vec![UnquotedString], false),
        ),
    ]);
}

#[test]
fn hash_comments() {
    use RepairKind::*;
    check(vec![
        (
            "to the end of the answer",
            r#"{"a": "x" # note }"#,
            None,
            Value(json!({"a": "x"}), vec![RemovedComment], false),
        ),
        (
            "to the end of the line",
            "{\"a\": 1, # why\n \"b\": [2, # two\n 3]}",
            None,
            Value(json!({"a": 1, "b": [2, 3]}), vec![RemovedComment], false),
        ),
        // `#2` is not a comment (no space after `#`): not a value either.
        ("a hashtag", "[1, #2]", None, Refused("line 1")),
    ]);
}

#[test]
fn missing_commas_between_strings() {
    use RepairKind::*;
    check(vec![
        (
            "two members on one line",
            r#"{"title": "X" "summary": "Y"}"#,
            None,
            Value(
                json!({"title": "X", "summary": "Y"}),
                vec![InsertedMissingComma],
                false,
            ),
        ),
        (
            "a single-quoted key after",
            r#"{"a": "x" 'b': 'y'}"#,
            None,
            Value(
                json!({"a": "x", "b": "y"}),
                vec![InsertedMissingComma],
                false,
            ),
        ),
        (
            "three items",
            r#"["a" "b" "c"]"#,
            None,
            Value(json!(["a", "b", "c"]), vec![InsertedMissingComma], false),
        ),
        (
            "an unquoted value before a member",
            r#"{"k": v1 "b": 2}"#,
            None,
            Value(
                json!({"k": "v1", "b": 2}),
                vec![UnquotedString, InsertedMissingComma],
                false,
            ),
        ),
        // A key without its value swallows nothing: it is refused.
        (
            "a key alone",
            r#"{"a": 1, "b", "c": 2}"#,
            None,
            Refused("line 1"),
        ),
        (
            "a string then a lone key",
            r#"{"a": "x" "b"}"#,
            None,
            Refused("line 1"),
        ),
        // An inner quote that is not followed by a key is still text.
        (
            "inner quotes",
            r#"{"a": "say "hi" now", "b": 1}"#,
            None,
            Value(
                json!({"a": "say \"hi\" now", "b": 1}),
                vec![EscapedInnerQuote],
                false,
            ),
        ),
    ]);
}

#[test]
fn stray_words_between_members() {
    use RepairKind::*;
    check(vec![
        (
            "after a number",
            r#"{"a": 1, NOTE "b": 2}"#,
            None,
            Value(json!({"a": 1, "b": 2}), vec![SkippedStrayText], false),
        ),
        (
            "after a string",
            r#"{"a": "x", see below "b": 2}"#,
            None,
            Value(json!({"a": "x", "b": 2}), vec![SkippedStrayText], false),
        ),
        // An unquoted key still needs its colon.
        (
            "no key follows",
            r#"{"a": 1, NOTE 2}"#,
            None,
            Refused("line 1"),
        ),
        // A word after a value with no comma is not a new member.
        (
            "prose after a number",
            r#"{"n": 2 or 3}"#,
            None,
            Refused("line 1"),
        ),
        (
            "prose after an item",
            r#"[1, 2 or 3]"#,
            None,
            Refused("line 1"),
        ),
    ]);
}

#[test]
fn a_cut_off_answer_keeps_its_outer_value() {
    use RepairKind::*;
    check(vec![
        (
            "cut in a nested array",
            r#"{"headers": ["A","B"], "rows": [["x", ""#,
            None,
            Value(
                json!({"headers": ["A", "B"], "rows": [["x", ""]]}),
                vec![ClosedTruncated],
                true,
            ),
        ),
        (
            "cut after a nested array",
            r#"{"headers": ["A","B"], "rows": [["x", "y"], "#,
            None,
            Value(
                json!({"headers": ["A", "B"], "rows": [["x", "y"]]}),
                vec![ClosedTruncated],
                true,
            ),
        ),
    ]);
}

#[test]
fn thousands_separators_only_where_a_number_is_asked() {
    use RepairKind::*;
    check(vec![
        (
            "object member",
            r#"{"n": 12,111}"#,
            object_with("n", json!({"type": "number"})),
            Value(json!({"n": 12111}), vec![JoinedDigitGroups], false),
        ),
        (
            "object member then more",
            r#"{"n": 1,234,567, "m": 2}"#,
            Some(
                json!({"type": "object", "properties": {"n": {"type": "integer"}, "m": {"type": "integer"}}}),
            ),
            Value(
                json!({"n": 1234567, "m": 2}),
                vec![JoinedDigitGroups],
                false,
            ),
        ),
        (
            "object member, no schema",
            r#"{"n": 12,111}"#,
            None,
            Refused("/n"),
        ),
        (
            "object member, a string schema",
            r#"{"n": 12,111}"#,
            object_with("n", json!({"type": "string"})),
            Refused("/n"),
        ),
        (
            "array items",
            "[-2,000.00, 5]",
            numbers(),
            Value(json!([-2000.0, 5]), vec![JoinedDigitGroups], false),
        ),
        (
            "array items, no schema",
            "[-2,000.00, 5]",
            None,
            Refused("/0"),
        ),
        // Valid JSON is read as it is: `[1,234]` is two numbers.
        (
            "valid JSON",
            "[1,234]",
            numbers(),
            Value(json!([1, 234]), vec![], false),
        ),
    ]);
}

#[test]
fn a_number_with_words_after_it_is_not_a_number() {
    check(vec![
        (
            "fraction",
            "1/5",
            Some(json!({"type": "number"})),
            Refused("line 1"),
        ),
        (
            "alternatives",
            "2 or 3",
            Some(json!({"type": "number"})),
            Refused("line 1"),
        ),
        ("fraction, no schema", "1/5", None, Refused("line 1")),
        (
            "a string schema gets the text",
            "1/5",
            Some(json!({"type": "string"})),
            Value(json!("1/5"), vec![], false),
        ),
        (
            "a string schema gets the words",
            "2 or 3",
            Some(json!({"type": "string"})),
            Value(json!("2 or 3"), vec![], false),
        ),
    ]);
}

#[test]
fn number_tokens() {
    use RepairKind::*;
    check(vec![
        (
            "digits then letters are one word",
            "[1, 2notanumber]",
            None,
            Value(json!([1, "2notanumber"]), vec![UnquotedString], false),
        ),
        (
            "digits then letters, a number asked",
            "[1, 2notanumber]",
            numbers(),
            Refused("/1"),
        ),
        (
            "underscores",
            "1_000",
            None,
            Value(json!(1000), vec![FixedNumber], false),
        ),
        (
            "underscores in a list",
            "[1_000, 2_500.5]",
            None,
            Value(json!([1000, 2500.5]), vec![FixedNumber], false),
        ),
    ]);
}

#[test]
fn python_forms() {
    use RepairKind::*;
    check(vec![
        (
            "triple-quoted string",
            "{\"a\": \"\"\"two\nlines with \"quotes\"\"\"\"}",
            None,
            Value(
                json!({"a": "two\nlines with \"quotes\""}),
                vec![TripleQuotedString],
                false,
            ),
        ),
        (
            "single triple quotes",
            "{'a': '''it's'''}",
            None,
            Value(json!({"a": "it's"}), vec![TripleQuotedString], false),
        ),
        (
            "tuple",
            "(1, 2)",
            None,
            Value(json!([1, 2]), vec![PythonCollection], false),
        ),
        (
            "tuple in an object",
            "{'a': (1, 'x'), 'b': ()}",
            None,
            Value(
                json!({"a": [1, "x"], "b": []}),
                vec![PythonCollection],
                false,
            ),
        ),
        (
            "set",
            "{'a', 'b'}",
            None,
            Value(json!(["a", "b"]), vec![PythonCollection], false),
        ),
        (
            "set of numbers",
            "{1, 2, 3,}",
            None,
            Value(json!([1, 2, 3]), vec![PythonCollection], false),
        ),
        // One element and no comma: an object missing its value, not a set.
        ("a key alone", r#"{"a"}"#, None, Refused("line 1")),
        (
            "non-string keys",
            r#"{5: "b", null: "n", -1.5: true}"#,
            None,
            Value(
                json!({"5": "b", "null": "n", "-1.5": true}),
                vec![UnquotedKey],
                false,
            ),
        ),
    ]);
}

#[test]
fn ellipses_are_elided_items() {
    check(vec![
        (
            "array",
            "[1, 2, ...]",
            None,
            Warned(json!([1, 2]), "elided"),
        ),
        (
            "unicode",
            "[\"a\", \"b\", …]",
            None,
            Warned(json!(["a", "b"]), "elided"),
        ),
        (
            "object",
            r#"{"a": 1, ...}"#,
            None,
            Warned(json!({"a": 1}), "elided"),
        ),
        (
            "middle",
            "[1, ..., 9]",
            None,
            Warned(json!([1, 9]), "elided"),
        ),
    ]);
}

#[test]
fn plain_text_where_text_is_asked() {
    use RepairKind::*;
    check(vec![
        (
            "enum",
            "two",
            Some(json!({"enum": ["ONE", "TWO"]})),
            Value(json!("TWO"), vec![EnumCase], false),
        ),
        (
            "string",
            "hello",
            Some(json!({"type": "string"})),
            Value(json!("hello"), vec![], false),
        ),
        ("no schema", "hello", None, Refused("hello")),
        (
            "not one of the enum",
            "three",
            Some(json!({"enum": ["ONE", "TWO"]})),
            Refused("three"),
        ),
    ]);
}

#[test]
fn several_values_keep_the_first_that_fits_and_say_so() {
    check(vec![
        (
            "no schema",
            "{\"a\": 1}\n{\"b\": 2}",
            None,
            Warned(json!({"a": 1}), "more than one"),
        ),
        (
            "the second fits",
            "{\"a\": 1}\n[2]",
            Some(json!({"type": "array"})),
            Warned(json!([2]), "more than one"),
        ),
    ]);
}
