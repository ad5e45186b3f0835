//! The public JSONTestSuite (`test_parsing/`, MIT licence), from the snapshot of
//! `../shared/data/JSONTestSuite` kept in `tests/data/JSONTestSuite` (or the folder named by
//! `JSON_TEST_SUITE_DIR`). The copy is in the repository so that every clone, CI's fresh one
//! included, runs the suite: a test that finds no data fails, it never passes untested.
//!
//! - strict mode accepts every `y_` file and rejects every `n_` file;
//! - lenient mode reads every `y_` file exactly as strict mode does;
//! - no `n_` or `i_` file makes lenient (or strict) parsing panic or hang.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use wikimind_structured::{decode, parse_json, parse_jsonl, Mode, Schema};

/// A hang detector, not a timing assertion: each file gets this long in its own thread.
const DEADLINE: Duration = Duration::from_secs(10);

fn suite_dir() -> PathBuf {
    let dir = match std::env::var_os("JSON_TEST_SUITE_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/JSONTestSuite/test_parsing")
        }
    };
    assert!(
        dir.is_dir(),
        "JSONTestSuite is not at {} (set JSON_TEST_SUITE_DIR to its test_parsing folder)",
        dir.display()
    );
    dir
}

/// Every `.json` file of the suite whose name starts with `prefix`, sorted by name.
fn files(dir: &PathBuf, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("the suite folder is readable")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            name.starts_with(prefix)
                .then(|| (name, std::fs::read(&p).expect("a readable file")))
        })
        .collect();
    out.sort();
    out
}

/// Strict mode as a caller with bytes uses it: decode, then parse against any schema.
fn strict(bytes: &[u8]) -> Result<serde_json::Value, String> {
    let (text, _) = decode(bytes, Mode::Strict).map_err(|e| e.to_string())?;
    parse_json(&text, &Schema::any(), Mode::Strict)
        .map(|o| o.value)
        .map_err(|e| e.to_string())
}

fn lenient(bytes: &[u8]) -> Result<serde_json::Value, String> {
    let (text, _) = decode(bytes, Mode::Lenient).map_err(|e| e.to_string())?;
    parse_json(&text, &Schema::any(), Mode::Lenient)
        .map(|o| o.value)
        .map_err(|e| e.to_string())
}

#[test]
fn strict_accepts_every_y_file() {
    let dir = suite_dir();
    let ys = files(&dir, "y_");
    assert!(
        ys.len() > 50,
        "expected the suite's y_ files, found {}",
        ys.len()
    );
    let failing: Vec<String> = ys
        .iter()
        .filter_map(|(name, bytes)| strict(bytes).err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(
        failing.is_empty(),
        "strict mode rejected {} of {} y_ files:\n{}",
        failing.len(),
        ys.len(),
        failing.join("\n")
    );
}

#[test]
fn strict_rejects_every_n_file() {
    let dir = suite_dir();
    let ns = files(&dir, "n_");
    assert!(
        ns.len() > 100,
        "expected the suite's n_ files, found {}",
        ns.len()
    );
    let accepted: Vec<String> = ns
        .iter()
        .filter_map(|(name, bytes)| strict(bytes).ok().map(|v| format!("{name}: {v}")))
        .collect();
    assert!(
        accepted.is_empty(),
        "strict mode accepted {} of {} n_ files:\n{}",
        accepted.len(),
        ns.len(),
        accepted.join("\n")
    );
}

#[test]
fn lenient_reads_every_y_file_as_strict_does() {
    let dir = suite_dir();
    let ys = files(&dir, "y_");
    assert!(
        ys.len() > 50,
        "expected the suite's y_ files, found {}",
        ys.len()
    );
    let differing: Vec<String> = ys
        .iter()
        .filter_map(|(name, bytes)| {
            let s = strict(bytes);
            let l = lenient(bytes);
            (s != l).then(|| format!("{name}: strict {s:?}, lenient {l:?}"))
        })
        .collect();
    assert!(
        differing.is_empty(),
        "lenient mode read {} of {} y_ files differently from strict mode:\n{}",
        differing.len(),
        ys.len(),
        differing.join("\n")
    );
}

/// Runs every parse entry point on `bytes` in a thread; `Err` names what went wrong.
fn survives(name: &str, bytes: Vec<u8>) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let result = std::panic::catch_unwind(|| {
                let any = Schema::any();
                for mode in [Mode::Lenient, Mode::Strict] {
                    if let Ok((text, _)) = decode(&bytes, mode) {
                        let _ = parse_json(&text, &any, mode);
                        let _ = parse_jsonl(&text, &any, mode);
                    }
                }
            });
            let _ = tx.send(result.is_ok());
        })
        .expect("a thread");
    match rx.recv_timeout(DEADLINE) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("{name}: panicked")),
        Err(_) => Err(format!("{name}: still running after {DEADLINE:?} (hang?)")),
    }
}

#[test]
fn no_n_or_i_file_panics_or_hangs() {
    let dir = suite_dir();
    let mut inputs = files(&dir, "n_");
    inputs.extend(files(&dir, "i_"));
    assert!(
        inputs.len() > 100,
        "expected the suite's n_ and i_ files, found {}",
        inputs.len()
    );
    let failures: Vec<String> = inputs
        .into_iter()
        .filter_map(|(name, bytes)| survives(&name, bytes).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} n_/i_ files made the engine fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
