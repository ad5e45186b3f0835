//! What every CLI test starts from: the real binary in a clean environment whose home and
//! data dir are a temp folder, talking to one local model server.

use std::path::Path;

/// The `wikimind` binary to run to completion, in a clean environment: `HOME` is `home`,
/// the data dir `home/data`, the model server `base_url`.
pub fn wikimind(home: &Path, base_url: &str) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::from_std(process(home, base_url));
    c.timeout(std::time::Duration::from_secs(300));
    c
}

/// The same binary and environment as [`wikimind`], for a test that spawns it and signals
/// it (kills, interrupts) while it runs.
pub fn process(home: &Path, base_url: &str) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("wikimind"));
    c.env_clear()
        .env("HOME", home)
        .env("WIKIMIND_DATA_DIR", home.join("data"))
        .env("WIKIMIND_BASE_URL", base_url);
    c
}
