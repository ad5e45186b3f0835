//! Parse and repair speed on a realistic CompilationResult answer, with `llm_json` (a Rust
//! port of Python's json_repair) measured beside ours in the same run.
//!
//! - `valid`: `serde_json::from_str` + `Schema::validate` alone (the baseline) against our
//!   `parse_json` in strict and lenient mode (goal: at most 1.3× the baseline);
//! - `repair/<damage>`: throughput on damaged variants of the same answer, ours and
//!   `llm_json` side by side;
//! - `pathological/<case>`: ours in-process; `llm_json`'s in a child process (this binary
//!   re-run with `WM_BENCH_CHILD` set), because it aborts on deep nesting.
//!
//! Before measuring, a table says whether each engine returns the intended value.
//!
//! `cargo bench -p wikimind-structured --bench parse -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use serde_json::{json, Map, Value};
use wikimind_structured::{parse_json, Mode, Schema};

const CHILD_ENV: &str = "WM_BENCH_CHILD";

fn compilation_schema() -> Schema {
    Schema::from_json(include_str!(
        "../../../schemas/compilation_result.schema.json"
    ))
    .expect("the contract schema loads")
}

// ---------------------------------------------------------------------------------------
// The answer

/// A CompilationResult as a model would write it: 25 claims and a markdown body of about
/// 8 KB with code fences, quotes and non-ASCII text.
fn answer_value() -> Value {
    let mut body = String::from(
        "# Ownership and borrowing in Rust\n\n\
         Rust's *ownership* model — “one owner, many readers” — is checked at compile time.\n\n",
    );
    let mut i = 0;
    while body.len() < 8 * 1024 {
        body.push_str(&format!(
            "## {n}. Moving and borrowing\n\n\
             A value has one owner; the compiler tracks each move. He wrote: it is \"the heart of \
             the language\" and added that `&mut` means exclusive. See [[Lifetimes]] and \
             [[Smart pointers]]; café, naïve, 日本語, Ελληνικά, emoji 🦀.\n\n\
             ```rust\nfn longest<'a>(x: &'a str, y: &'a str) -> &'a str {{\n\
             \tif x.len() > y.len() {{ x }} else {{ y }} // step {n}\n}}\n```\n\n\
             > \"Fighting the borrow checker\" is a rite of passage.\n\n\
             - a path like C:\\\\Users\\\\rust\\\\{n}\n- a tab\there and a bell-free line\n\n",
            n = i + 1
        ));
        i += 1;
    }
    let confidences = ["sourced", "inferred", "opinion"];
    let claims: Vec<Value> = (0..25)
        .map(|i| {
            json!({
                "claim": format!("Claim {i}: the borrow checker rejects aliasing with mutation in case {i}."),
                "confidence": confidences[i % 3],
                "quote": if i % 3 == 0 {
                    json!(format!("it is the heart of the language ({i})"))
                } else {
                    Value::Null
                },
            })
        })
        .collect();
    json!({
        "title": "Ownership and borrowing in Rust",
        "summary": "How Rust's ownership model and borrow checker keep memory safe without a garbage collector. Moves, borrows and lifetimes, with examples.",
        "key_claims": claims,
        "concepts": ["ownership", "borrowing", "lifetimes", "move semantics", "aliasing"],
        "backlink_suggestions": ["Lifetimes", "Smart pointers", "Memory safety"],
        "open_questions": ["How do two-phase borrows interact with method calls?"],
        "article_body": body,
    })
}

// ---------------------------------------------------------------------------------------
// Damage: a small writer that spells the same value the ways models get it wrong

#[derive(Clone, Copy, Default)]
struct Style {
    single_quotes: bool,
    unquoted_keys: bool,
    trailing_commas: bool,
    python_literals: bool,
    raw_newlines: bool,
    raw_inner_quotes: bool,
    comments: bool,
}

fn write_string(out: &mut String, s: &str, style: Style) {
    let quote = if style.single_quotes { '\'' } else { '"' };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\n' if style.raw_newlines => out.push('\n'),
            '\t' if style.raw_newlines => out.push('\t'),
            '"' if style.single_quotes || style.raw_inner_quotes => out.push('"'),
            '\'' if style.single_quotes => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn write_value(out: &mut String, v: &Value, style: Style, indent: usize) {
    let pad = |n: usize| "  ".repeat(n);
    match v {
        Value::Null => out.push_str(if style.python_literals {
            "None"
        } else {
            "null"
        }),
        Value::Bool(b) => out.push_str(match (b, style.python_literals) {
            (true, true) => "True",
            (false, true) => "False",
            (true, false) => "true",
            (false, false) => "false",
        }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s, style),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push('\n');
                out.push_str(&pad(indent + 1));
                write_value(out, item, style, indent + 1);
                if i + 1 < items.len() || style.trailing_commas {
                    out.push(',');
                }
            }
            if !items.is_empty() {
                out.push('\n');
                out.push_str(&pad(indent));
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                out.push('\n');
                out.push_str(&pad(indent + 1));
                if style.comments && i % 2 == 0 {
                    out.push_str(if i % 4 == 0 {
                        "// the next field\n"
                    } else {
                        "/* a note, with \"quotes\" and, commas */ "
                    });
                    out.push_str(&pad(indent + 1));
                }
                if style.unquoted_keys {
                    out.push_str(k);
                } else {
                    write_string(out, k, style);
                }
                out.push_str(": ");
                write_value(out, item, style, indent + 1);
                if i + 1 < map.len() || style.trailing_commas {
                    out.push(',');
                }
            }
            if !map.is_empty() {
                out.push('\n');
                out.push_str(&pad(indent));
            }
            out.push('}');
        }
    }
}

fn spell(v: &Value, style: Style) -> String {
    let mut out = String::new();
    write_value(&mut out, v, style, 0);
    out
}

/// A damaged answer and the value it was meant to be.
struct Case {
    name: &'static str,
    text: String,
    intended: Value,
}

fn damaged_cases(v: &Value) -> Vec<Case> {
    let s = |f: fn(&mut Style)| {
        let mut style = Style::default();
        f(&mut style);
        spell(v, style)
    };
    let mut cases = vec![
        Case {
            name: "trailing_commas",
            text: s(|st| st.trailing_commas = true),
            intended: v.clone(),
        },
        Case {
            name: "single_quotes",
            text: s(|st| st.single_quotes = true),
            intended: v.clone(),
        },
        Case {
            name: "unquoted_keys",
            text: s(|st| st.unquoted_keys = true),
            intended: v.clone(),
        },
        Case {
            name: "python_literals",
            text: s(|st| st.python_literals = true),
            intended: v.clone(),
        },
        Case {
            name: "raw_newlines",
            text: s(|st| st.raw_newlines = true),
            intended: v.clone(),
        },
        Case {
            name: "inner_quotes",
            text: s(|st| st.raw_inner_quotes = true),
            intended: v.clone(),
        },
        Case {
            name: "comments",
            text: s(|st| st.comments = true),
            intended: v.clone(),
        },
        Case {
            name: "fences_prose",
            text: format!(
                "<think>The user wants JSON.</think>\nSure! Here is the result:\n\n```json\n{}\n```\n\nLet me know if you need changes.",
                serde_json::to_string_pretty(v).unwrap()
            ),
            intended: v.clone(),
        },
    ];
    // Cut off two thirds into the body (the last field), between two characters.
    let body = v["article_body"].as_str().unwrap();
    let mut k = body.len() * 2 / 3;
    while !body.is_char_boundary(k) {
        k -= 1;
    }
    let mut cut = v.clone();
    cut["article_body"] = Value::String(String::new());
    let whole = serde_json::to_string_pretty(&cut).unwrap();
    let head = whole
        .strip_suffix("\"\n}")
        .expect("the body is the last field");
    let prefix = serde_json::to_string(&body[..k]).unwrap();
    cut["article_body"] = Value::String(body[..k].to_string());
    cases.push(Case {
        name: "truncated",
        text: format!("{head}{}", &prefix[1..prefix.len() - 1]),
        intended: cut,
    });
    cases
}

/// Small cases RECIPES.md lists as known failures of llm_json.
fn small_cases() -> Vec<Case> {
    let mut obj = Map::new();
    obj.insert("a".into(), Value::String("it's fine".into()));
    vec![
        Case {
            name: "escaped_apostrophe",
            text: r"{'a': 'it\'s fine'}".into(),
            intended: Value::Object(obj.clone()),
        },
        Case {
            name: "bare_apostrophe",
            text: r"{'a': 'it's fine'}".into(),
            intended: Value::Object(obj),
        },
        Case {
            name: "raw_newline_small",
            text: "{\"a\": \"line one\nline two\"}".into(),
            intended: json!({"a": "line one\nline two"}),
        },
    ]
}

// ---------------------------------------------------------------------------------------
// Pathological inputs

fn pathological() -> Vec<(&'static str, String)> {
    const MB: usize = 1024 * 1024;
    vec![
        (
            "unclosed_string_2mb",
            format!(
                "{{\"article_body\": \"{}",
                "lorem ipsum ".repeat(2 * MB / 12)
            ),
        ),
        ("open_brackets_100k", "[".repeat(100_000)),
        ("nested_objects_100k", "{\"a\":".repeat(100_000)),
        (
            "prose_10mb",
            "The quick brown fox jumps over the lazy dog. ".repeat(10 * MB / 45),
        ),
        ("quotes_1mb", "\"".repeat(MB)),
        ("commas_in_array_1mb", format!("[{}", ",".repeat(MB))),
    ]
}

/// In the child process: run llm_json on one pathological case and report.
fn child(case: &str) {
    let (_, input) = pathological()
        .into_iter()
        .find(|(n, _)| *n == case)
        .expect("a known case");
    let opts = llm_json::RepairOptions::default();
    let mut times = Vec::new();
    let mut summary = String::new();
    for _ in 0..5 {
        let t = Instant::now();
        let out = llm_json::loads(black_box(&input), &opts);
        times.push(t.elapsed());
        summary = match &out {
            Ok(v) => {
                let s = v.to_string();
                format!(
                    "value of {} bytes: {}",
                    s.len(),
                    s.chars().take(40).collect::<String>()
                )
            }
            Err(e) => format!(
                "error: {}",
                e.to_string().chars().take(60).collect::<String>()
            ),
        };
    }
    times.sort();
    println!("{} {}", times[times.len() / 2].as_nanos(), summary);
}

/// In the parent: run a child per case, with a deadline, and print what happened.
fn llm_json_pathological() {
    let exe = std::env::current_exe().expect("the bench binary");
    println!("\nllm_json on pathological inputs (child process each, median of 5):");
    println!("{:<22} {:>12} {:>10}  result", "case", "time", "MB/s");
    for (name, input) in pathological() {
        let mut cmd = Command::new(&exe);
        cmd.env(CHILD_ENV, name)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let mut proc = cmd.spawn().expect("the child starts");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = proc.try_wait().expect("the child can be waited on") {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(120) {
                let _ = proc.kill();
                let _ = proc.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = proc
            .wait_with_output()
            .map(|o| o.stdout)
            .unwrap_or_default();
        let out = String::from_utf8_lossy(&out);
        match status {
            None => println!("{name:<22} {:>12} {:>10}  killed after 120 s", "-", "-"),
            Some(s) if !s.success() => {
                println!("{name:<22} {:>12} {:>10}  crashed ({s})", "-", "-")
            }
            Some(_) => {
                let (nanos, summary) = out.trim().split_once(' ').unwrap_or(("0", ""));
                let nanos: f64 = nanos.parse().unwrap_or(0.0);
                let mbs = input.len() as f64 / (nanos / 1e9) / 1e6;
                println!(
                    "{name:<22} {:>9.3} ms {:>10.1}  {summary}",
                    nanos / 1e6,
                    mbs
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Correctness table

fn ours(text: &str, schema: &Schema) -> Result<Value, String> {
    parse_json(text, schema, Mode::Lenient)
        .map(|o| o.value)
        .map_err(|e| e.to_string())
}

fn theirs(text: &str) -> Result<Value, String> {
    llm_json::loads(text, &llm_json::RepairOptions::default()).map_err(|e| e.to_string())
}

/// Where two values first differ, as a JSON Pointer with a short note.
fn first_diff(got: &Value, want: &Value, path: &str) -> Option<String> {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, wv) in w {
                match g.get(k) {
                    None => return Some(format!("{path}/{k}: missing")),
                    Some(gv) => {
                        if let Some(d) = first_diff(gv, wv, &format!("{path}/{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            g.keys()
                .find(|k| !w.contains_key(*k))
                .map(|k| format!("{path}/{k}: unexpected"))
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => g
            .iter()
            .zip(w)
            .enumerate()
            .find_map(|(i, (gv, wv))| first_diff(gv, wv, &format!("{path}/{i}"))),
        (Value::String(g), Value::String(w)) if g != w => {
            let at = g.chars().zip(w.chars()).take_while(|(a, b)| a == b).count();
            let near = |s: &str| {
                s.chars()
                    .skip(at.saturating_sub(8))
                    .take(24)
                    .collect::<String>()
            };
            Some(format!(
                "{path}: at char {at}: got {:?}, want {:?}",
                near(g),
                near(w)
            ))
        }
        (g, w) if g != w => {
            let short = |v: &Value| v.to_string().chars().take(40).collect::<String>();
            Some(format!("{path}: got {}, want {}", short(g), short(w)))
        }
        _ => None,
    }
}

fn verdict(got: Result<Value, String>, want: &Value) -> (&'static str, Option<String>) {
    match got {
        Ok(v) if &v == want => ("exact", None),
        Ok(v) => ("WRONG", first_diff(&v, want, "")),
        Err(e) => ("ERROR", Some(e.chars().take(80).collect())),
    }
}

fn correctness_table(cases: &[&Case], schema: &Schema) {
    println!("\nDoes each engine return the intended value?");
    println!(
        "{:<20} {:>8} {:>10} {:>12} {:>10}",
        "damage", "bytes", "ours(any)", "ours(schema)", "llm_json"
    );
    let mut notes = Vec::new();
    for c in cases {
        let (any, n1) = verdict(ours(&c.text, &Schema::any()), &c.intended);
        let (with_schema, n2) = if c.intended.get("article_body").is_some() {
            verdict(ours(&c.text, schema), &c.intended)
        } else {
            ("n/a", None)
        };
        let (them, n3) = verdict(theirs(&c.text), &c.intended);
        println!(
            "{:<20} {:>8} {:>10} {:>12} {:>10}",
            c.name,
            c.text.len(),
            any,
            with_schema,
            them
        );
        for (who, note) in [("ours(any)", n1), ("ours(schema)", n2), ("llm_json", n3)] {
            if let Some(n) = note {
                notes.push(format!("  {} / {who}: {n}", c.name));
            }
        }
    }
    for n in notes {
        println!("{n}");
    }
    println!();
}

// ---------------------------------------------------------------------------------------
// Benchmarks

fn benches(c: &mut Criterion) {
    let schema = compilation_schema();
    let value = answer_value();
    let valid = serde_json::to_string_pretty(&value).unwrap();
    assert!(
        (10_000..=20_000).contains(&valid.len()),
        "the answer is {} bytes",
        valid.len()
    );
    let cases = damaged_cases(&value);
    let mut table = cases.iter().collect::<Vec<_>>();
    let small = small_cases();
    table.extend(small.iter());
    println!("valid answer: {} bytes", valid.len());
    correctness_table(&table, &schema);

    let mut g = c.benchmark_group("valid");
    g.throughput(Throughput::Bytes(valid.len() as u64));
    g.bench_function("baseline_serde_validate", |b| {
        b.iter(|| {
            let v: Value = serde_json::from_str(black_box(&valid)).unwrap();
            assert!(schema.validate(&v).is_empty());
            v
        })
    });
    g.bench_function("ours_strict", |b| {
        b.iter(|| parse_json(black_box(&valid), &schema, Mode::Strict).unwrap())
    });
    g.bench_function("ours_lenient", |b| {
        b.iter(|| parse_json(black_box(&valid), &schema, Mode::Lenient).unwrap())
    });
    g.bench_function("llm_json", |b| {
        b.iter(|| theirs(black_box(&valid)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("repair");
    for case in &cases {
        g.throughput(Throughput::Bytes(case.text.len() as u64));
        g.bench_with_input(BenchmarkId::new("ours", case.name), &case.text, |b, t| {
            b.iter(|| parse_json(black_box(t), &schema, Mode::Lenient))
        });
        g.bench_with_input(
            BenchmarkId::new("llm_json", case.name),
            &case.text,
            |b, t| b.iter(|| theirs(black_box(t))),
        );
    }
    g.finish();

    let mut g = c.benchmark_group("pathological");
    g.sample_size(10);
    let any = Schema::any();
    for (name, input) in pathological() {
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_with_input(BenchmarkId::new("ours", name), &input, |b, t| {
            b.iter(|| parse_json(black_box(t), &any, Mode::Lenient))
        });
    }
    g.finish();
}

fn main() {
    if let Ok(case) = std::env::var(CHILD_ENV) {
        child(&case);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    llm_json_pathological();
    c.final_summary();
}
