//! The demo's headline (`scripts/demo-headline.sh`, which `scripts/demo.sh` sources): the
//! best-grounded page with its sourced claims, run against the real binary on the shipped
//! examples, and its choices checked against a stand-in `wikimind` that prints given text.
//! (`scripts/test-demo.sh` runs the whole demo against release binaries.)

use std::path::{Path, PathBuf};

use wikimind_testserver::TestServer;

use crate::common::Env;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `bash scripts/demo-headline.sh DIR` with `env`'s data dir and server: its output.
fn headline(env: &Env, dir: &Path) -> String {
    let output = std::process::Command::new("bash")
        .current_dir(repo())
        .arg("scripts/demo-headline.sh")
        .arg(dir)
        .env("HOME", env.dir.path())
        .env("WIKIMIND_DATA_DIR", env.data())
        .env("WIKIMIND_BASE_URL", &env.base_url)
        .env("WIKIMIND_PROVIDER", env.provider)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The demo printed "(no sourced claims on this page)" for every page: it looked for
/// `- [sourced]` lines while `show` numbers its claims.
#[test]
fn the_demo_headline_shows_the_best_grounded_pages_sourced_claims() {
    let server = TestServer::start();
    let env = Env::new(&server);
    env.cmd()
        .args(["ingest"])
        .arg(repo().join("examples"))
        .assert()
        .success();
    env.cmd().arg("compile").assert().success();

    let bin = assert_cmd::cargo::cargo_bin("wikimind");
    let out = headline(&env, bin.parent().unwrap());
    let list = env.json(&["list"]);
    let most = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["claims"]["sourced"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(most > 0, "{list}");
    let title = out
        .lines()
        .find_map(|l| l.strip_prefix("== the best-grounded page: "))
        .unwrap_or_else(|| panic!("no headline: {out}"));
    let page = env.json(&["show", title]);
    let sourced: Vec<&str> = page["key_claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["confidence"] == "sourced")
        .map(|c| c["claim"].as_str().unwrap())
        .collect();
    assert_eq!(sourced.len() as u64, most, "{title}: {page}");
    for (i, claim) in sourced.iter().enumerate() {
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("{}. [sourced] {claim}", i + 1))),
            "claim {claim:?} not shown:\n{out}"
        );
    }
    assert!(!out.contains("no sourced claims"), "{out}");
}

/// A folder holding a stand-in `wikimind` that prints `list` for `list`, `json` for
/// `--json show`, and `show` for `show`.
fn stand_in(dir: &Path, list: &str, json: &str, show: &str) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, text) in [("list.txt", list), ("show.json", json), ("show.txt", show)] {
        std::fs::write(bin.join(name), text).unwrap();
    }
    let script = bin.join("wikimind");
    std::fs::write(
        &script,
        "#!/usr/bin/env bash\nd=$(dirname \"$0\")\ncase \"$1 $2\" in\n  \"list \") cat \"$d/list.txt\" ;;\n  \"--json show\") cat \"$d/show.json\" ;;\n  \"show \"*) cat \"$d/show.txt\" ;;\n  *) exit 3 ;;\nesac\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    bin
}

#[test]
fn the_headline_is_the_page_with_the_most_sourced_claims_and_says_when_a_rewrite_was_refused() {
    let server = TestServer::start();
    let env = Env::new(&server);
    let list = "Espresso                                 7 sources; 1 sourced, 4 inferred, 0 opinion\n\
                Grind Size                               2 sources, to rewrite; 4 sourced, 0 inferred, 1 opinion\n\
                A Title Longer Than Forty Characters, With; Semicolons 1 source; 4 sourced, 0 inferred, 0 opinion\n\
                \nSaved answers:\n  Why 12 sources; 9 sourced, 0 inferred, 0 opinion?\n  \
                Ask 12 sources; 9 sourced, 0 inferred, 0 opinion\n\
                \nWanted: Refractometer (1)\n3 pages from 9 sources; 1 wanted page\n";
    let show = "# Grind Size\n\nSummary.\n\nBody.\n\n## Key claims\n\
                1. [sourced] Finer grinds extract faster. — \"finer grinds extract faster\" [source #2]\n\
                2. [opinion] Burrs beat blades.\n\n## Sources\n- #2\n";
    let cases = [
        (
            r#"{"title":"Grind Size","version":3,"stale_reason":"x","flagged":"the page lost 1 of the \"sourced\" claims it had\nand shrank","suggestions":[{"version":9}]}"#,
            "Its last rewrite was refused; this is version 3, the one kept: the page lost 1 of the \"sourced\" claims it had and shrank",
        ),
        (
            r#"{"title":"Grind Size","version":0,"stale_reason":"x","flagged":"no claim was grounded","suggestions":[]}"#,
            "Its first write was refused, so nothing was kept: no claim was grounded",
        ),
        (
            r#"{"title":"Grind Size","version":2,"stale_reason":null,"flagged":null,"suggestions":[]}"#,
            "",
        ),
    ];
    for (json, said) in cases {
        let bin = stand_in(env.dir.path(), list, json, show);
        let out = headline(&env, &bin);
        let mut lines = out.lines();
        // Most sourced claims first; of two with as many, the one with more sources.
        assert_eq!(
            lines.next(),
            Some("== the best-grounded page: Grind Size"),
            "{out}"
        );
        if said.is_empty() {
            assert!(!out.contains("refused"), "{out}");
        } else {
            assert_eq!(lines.next(), Some(said), "{out}");
        }
        if said.contains("nothing was kept") {
            assert_eq!(lines.next(), None, "{out}");
        } else {
            assert_eq!(
                lines.collect::<Vec<_>>(),
                ["1. [sourced] Finer grinds extract faster. — \"finer grinds extract faster\" [source #2]"],
                "{out}"
            );
        }
    }
}
