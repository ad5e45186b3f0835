//! `wikimind mcp` checked by an independent client: the official Python MCP SDK runs
//! `tests/mcp/client_test.py` against the real binary, over a wiki compiled here through
//! the stand-in model server (which also compiles what `add_source` adds).
//!
//! The SDK lives in the virtual environment `scripts/setup.sh` makes,
//! `$HOME/.cache/wikimind/mcp-venv` (or the Python named by `WIKIMIND_MCP_PYTHON`). Without
//! it the test is skipped with a message, except under `CI` or
//! `WIKIMIND_REQUIRE_MCP_CLIENT` (set by `scripts/test.sh`), where it fails.

use std::path::{Path, PathBuf};

use wikimind_testserver::TestServer;

use crate::common::Env;

/// The Python that has the `mcp` package, or `None` (after saying why) when the test may
/// be skipped.
fn mcp_python() -> Option<PathBuf> {
    let python = match std::env::var_os("WIKIMIND_MCP_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache/wikimind/mcp-venv/bin/python")
        }
    };
    let usable = std::process::Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|out| out.status.success());
    if usable {
        return Some(python);
    }
    let required = std::env::var_os("CI").is_some()
        || std::env::var_os("WIKIMIND_REQUIRE_MCP_CLIENT").is_some();
    assert!(
        !required,
        "the Python MCP SDK is not installed at {} (run `bash scripts/setup.sh`)",
        python.display()
    );
    eprintln!(
        "SKIPPED an_independent_mcp_client_reads_the_wiki_and_adds_sources: no Python with the \
         `mcp` package at {} (run `bash scripts/setup.sh`)",
        python.display()
    );
    None
}

#[test]
fn an_independent_mcp_client_reads_the_wiki_and_adds_sources() {
    let Some(python) = mcp_python() else {
        return;
    };
    let server = TestServer::start();
    let env = Env::new(&server);
    env.write_note(
        "espresso.md",
        "# Espresso\n\nEspresso is brewed under nine bars of pressure. It depends on \
         [[Grind Size]] and is the base of a [[Flat White]].\n",
    );
    env.write_note(
        "grind.md",
        "# Grind Size\n\nA finer grind slows the flow of water. Espresso needs a fine grind, \
         see [[Espresso]].\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().arg("compile").assert().success();

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp/client_test.py");
    let wikimind = assert_cmd::cargo::cargo_bin("wikimind");
    // The client passes its environment on to the servers it starts: the same clean one
    // every CLI test runs in.
    let out = assert_cmd::Command::new(python)
        .arg(script)
        .arg(wikimind)
        .env_clear()
        .env("HOME", env.dir.path())
        .env("WIKIMIND_DATA_DIR", env.data())
        .env("WIKIMIND_BASE_URL", &env.base_url)
        .env("WIKIMIND_PROVIDER", env.provider)
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .expect("the Python client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the MCP client's checks failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains(" passed, 0 failed"),
        "the client ran no checks:\n{stdout}"
    );
}
