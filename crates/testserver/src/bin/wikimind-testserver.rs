//! `wikimind-testserver`: the scripted Ollama/OpenAI server as a process, for shell scripts
//! and end-to-end tests. Prints its base URL as the first line of stdout, then serves until
//! killed.
//!
//! ```text
//! wikimind-testserver [--port N] [--answers FILE.jsonl] [--model NAME]...
//!                     [--context-length N] [--enforce-models] [--reject-json-schema]
//! ```
//!
//! Without `--answers` every chat gets a valid compilation result derived from the prompt:
//! a topic page for WikiMind's page prompt, an article for any other (see `canned`).
//! With it, each line of the file is one reply (see `Reply`), used in order; after the last
//! one the canned answer takes over.

use std::io::Write;
use wikimind_testserver::{Reply, TestServer};

const USAGE: &str =
    "usage: wikimind-testserver [--port N] [--answers FILE.jsonl] [--model NAME]... \
[--context-length N] [--enforce-models] [--reject-json-schema]";

fn main() {
    if let Err(message) = run() {
        eprintln!("wikimind-testserver: {message}");
        eprintln!("{USAGE}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut builder = TestServer::builder();
    let mut models = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--port" => {
                let port = value("--port")?;
                builder = builder.port(port.parse().map_err(|_| format!("bad port {port:?}"))?);
            }
            "--answers" => {
                let path = value("--answers")?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {path}: {e}"))?;
                for (i, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    let reply: Reply = serde_json::from_str(line)
                        .map_err(|e| format!("{path}:{}: not a reply: {e}", i + 1))?;
                    builder = builder.reply(reply);
                }
            }
            "--model" => models.push(value("--model")?),
            "--context-length" => {
                let n = value("--context-length")?;
                builder =
                    builder.context_length(n.parse().map_err(|_| format!("bad length {n:?}"))?);
            }
            "--enforce-models" => builder = builder.enforce_models(true),
            "--reject-json-schema" => builder = builder.reject_json_schema(true),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if !models.is_empty() {
        builder = builder.models(models);
    }
    let server = builder
        .try_start()
        .map_err(|e| format!("cannot listen: {e}"))?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{}", server.url()).map_err(|e| e.to_string())?;
    stdout.flush().map_err(|e| e.to_string())?;
    loop {
        std::thread::park();
    }
}
