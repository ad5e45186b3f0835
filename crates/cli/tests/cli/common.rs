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

/// A temp home with a data dir and a notes folder, and the binary run against one model
/// server in it.
pub struct Env {
    /// The temp home (removed when the test ends).
    pub dir: tempfile::TempDir,
    /// The model server's base URL.
    pub base_url: String,
    /// `ollama` or `openai`.
    pub provider: &'static str,
}

impl Env {
    /// A fresh home using `server` through the Ollama protocol.
    pub fn new(server: &wikimind_testserver::TestServer) -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
            base_url: server.url(),
            provider: "ollama",
        }
    }

    /// The data dir.
    pub fn data(&self) -> std::path::PathBuf {
        self.dir.path().join("data")
    }

    /// The folder [`Env::write_note`] writes to.
    pub fn notes(&self) -> std::path::PathBuf {
        self.dir.path().join("notes")
    }

    /// The binary, ready for arguments.
    pub fn cmd(&self) -> assert_cmd::Command {
        let mut c = wikimind(self.dir.path(), &self.base_url);
        c.env("WIKIMIND_PROVIDER", self.provider)
            .timeout(std::time::Duration::from_secs(120));
        c
    }

    /// `--json` output of a command that must succeed.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self
            .cmd()
            .arg("--json")
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice(&out)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out)))
    }

    /// Human output of a command that must succeed.
    pub fn human(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    }

    /// Writes a note into the notes folder.
    pub fn write_note(&self, name: &str, text: &str) {
        let path = self.notes().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The path of a note in the notes folder, as text.
    pub fn note_path(&self, name: &str) -> String {
        self.notes().join(name).to_str().unwrap().to_owned()
    }
}
