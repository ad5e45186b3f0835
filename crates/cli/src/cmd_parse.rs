//! `wikimind parse`: paste a model's raw answer and see what the pipeline makes of it.

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use wikimind::structured::{
    self, JsonlOutcome, Mode, Outcome, Parsed, Repair, ResponseType, Schema,
};

use crate::{Done, Global, UsageError};

/// Arguments of `wikimind parse`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// What shape of answer to expect.
    #[arg(long, value_enum, default_value_t = Kind::Json)]
    response_type: Kind,
    /// `compilation` for the article contract, or the path of a JSON Schema file
    /// (default: any JSON value).
    #[arg(long, value_name = "compilation|PATH")]
    schema: Option<String>,
    /// Accept only valid JSON that validates: nothing repaired or coerced.
    #[arg(long)]
    strict: bool,
    /// The answer to read (`-` or nothing: standard input).
    #[arg(value_name = "FILE|-")]
    input: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    Json,
    Jsonl,
    Text,
}

/// Runs `wikimind parse`.
pub fn run(global: &Global, args: ParseArgs) -> anyhow::Result<Done> {
    let schema = load_schema(args.schema.as_deref())?;
    let bytes = read_input(args.input.as_ref())?;
    let mode = if args.strict {
        Mode::Strict
    } else {
        Mode::Lenient
    };
    let response = match args.response_type {
        Kind::Json => ResponseType::Json,
        Kind::Jsonl => ResponseType::Jsonl,
        Kind::Text => ResponseType::Text,
    };
    match structured::parse_bytes(&bytes, response, &schema, mode) {
        Err(err) => Ok(failed(global, &err)),
        Ok(Parsed::Text(t)) => print_text(global, &t),
        Ok(Parsed::Json(outcome)) => print_json_outcome(global, &outcome),
        Ok(Parsed::Jsonl(outcome)) => print_jsonl_outcome(global, &outcome),
    }
}

// The value is data: JSON (serde escapes what could act on a terminal) stays exact; only
// text answers printed for a person go through the terminal rule.

/// A text answer: as is.
fn print_text(global: &Global, text: &str) -> anyhow::Result<Done> {
    if global.json {
        let report = json!({"value": text, "repairs": [], "warnings": [], "truncated": false});
        print_json(&mut std::io::stdout().lock(), &report)?;
    } else {
        crate::context::out().write_all(text.as_bytes())?;
    }
    Ok(Done::Success)
}

/// A JSON answer: the value (pretty), then each repair and warning on standard error.
fn print_json_outcome(global: &Global, outcome: &Outcome) -> anyhow::Result<Done> {
    let mut out = std::io::stdout().lock();
    if global.json {
        print_json(&mut out, &serde_json::to_value(outcome)?)?;
    } else {
        serde_json::to_writer_pretty(&mut out, &outcome.value)?;
        writeln!(out)?;
        print_notes(&outcome.repairs, &outcome.warnings)?;
    }
    Ok(Done::Success)
}

/// A JSONL answer: one object per line, then each repair and warning on standard error.
fn print_jsonl_outcome(global: &Global, outcome: &JsonlOutcome) -> anyhow::Result<Done> {
    let mut out = std::io::stdout().lock();
    let warnings: Vec<String> = outcome.warnings.iter().map(ToString::to_string).collect();
    if global.json {
        let report = json!({
            "value": outcome.values,
            "repairs": outcome.repairs,
            "warnings": warnings,
            "truncated": outcome.truncated,
        });
        print_json(&mut out, &report)?;
    } else {
        for v in &outcome.values {
            serde_json::to_writer(&mut out, v)?;
            writeln!(out)?;
        }
        print_notes(&outcome.repairs, &warnings)?;
    }
    if !outcome.no_line_valid() {
        return Ok(Done::Success);
    }
    if !global.json {
        writeln!(
            crate::context::err(),
            "error: no line of the answer was a valid object"
        )?;
    }
    Ok(Done::Failed)
}

/// Each repair and warning, a line each, on standard error.
fn print_notes(repairs: &[Repair], warnings: &[impl std::fmt::Display]) -> anyhow::Result<()> {
    let mut err = crate::context::err();
    for r in repairs {
        writeln!(err, "repaired: {r}")?;
    }
    for w in warnings {
        writeln!(err, "warning: {w}")?;
    }
    Ok(())
}

fn failed(global: &Global, err: &structured::Error) -> Done {
    let mut stderr = crate::context::err();
    for line in err.lines() {
        let _ = writeln!(stderr, "{line}");
    }
    if global.json {
        let report = json!({
            "value": Value::Null,
            "errors": err.lines(),
            "repairs": err.repairs,
            "warnings": [],
            "truncated": err.truncated,
        });
        let _ = print_json(&mut std::io::stdout().lock(), &report);
    }
    Done::Failed
}

fn print_json(out: &mut impl Write, value: &Value) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

fn load_schema(arg: Option<&str>) -> anyhow::Result<Schema> {
    match arg {
        None => Ok(Schema::any()),
        Some("compilation") => Schema::new(wikimind::contract::compilation_schema())
            .context("the built-in compilation schema is invalid"),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read the schema file {path}: {e}")))?;
            Schema::from_json(&text).map_err(|e| UsageError(format!("{path}: {e}")).into())
        }
    }
}

fn read_input(input: Option<&PathBuf>) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    match input {
        Some(p) if p.as_os_str() != "-" => {
            bytes = std::fs::read(p)
                .map_err(|e| UsageError(format!("cannot read {}: {e}", p.display())))?;
        }
        _ => {
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
        }
    }
    Ok(bytes)
}
