//! `wikimind eval` end to end: a dataset run through the real compile pipeline against a
//! local server speaking the Ollama protocol, which answers a known mix of clean, fenced,
//! broken and prose answers; the report's rates must equal the mix. Then the HTML report is
//! opened in headless Chromium and screenshotted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wikimind::config::Settings;
use wikimind::llm::CancellationToken;
use wikimind_eval::{self as eval, EvalOptions};
use wikimind_testserver::{canned, RecordedRequest, Reply, TestServer};

/// The cases: a key (found in the source and so in the prompt), and how model-a answers.
const MIX: &[(&str, &str)] = &[
    ("k01", "clean, plus an invented quote"),
    ("k02", "clean"),
    ("k03", "clean"),
    ("k04", "fenced"),
    ("k05", "fenced"),
    ("k06", "trailing comma"),
    ("k07", "enum case"),
    ("k08", "prose, then clean on retry"),
    ("k09", "cut off, then clean on retry"),
    ("k10", "prose every time"),
];

fn source(key: &str) -> String {
    format!("Entry {key} describes the harbour. The harbour of {key} opens at dawn.")
}

fn quote(key: &str) -> String {
    format!("The harbour of {key} opens at dawn.")
}

fn clean(key: &str, confidence: &str, extra_invented: bool) -> String {
    let mut claims = vec![json!({
        "claim": format!("{key} opens early"),
        "confidence": confidence,
        "quote": quote(key),
    })];
    if extra_invented {
        claims.push(json!({
            "claim": "It never closes",
            "confidence": "sourced",
            "quote": "The harbour never closes, not even at night.",
        }));
    }
    json!({
        "title": format!("Entry {key}"),
        "summary": format!("The harbour of {key}."),
        "key_claims": claims,
        "concepts": ["harbour"],
        "backlink_suggestions": [],
        "open_questions": [],
        "article_body": format!("The harbour of {key} opens at dawn."),
    })
    .to_string()
}

/// model-a answers by the mix; model-b always cleanly; free-form prompts get markdown; the
/// judge (the compiling model) scores as the stand-in does.
fn respond(req: &RecordedRequest) -> Option<Reply> {
    let body = &req.body;
    let prompt = req.first_user_message();
    if canned::is_judge_prompt(&prompt) {
        return Some(Reply::text(canned::judge_answer(&prompt)).usage(60, 30));
    }
    let key = MIX.iter().map(|(k, _)| *k).find(|k| prompt.contains(*k))?;
    if body.get("format").is_none_or(Value::is_null) {
        return Some(
            Reply::text(format!("# Entry {key}\n\nThe harbour opens at dawn.")).usage(120, 80),
        );
    }
    let retry = body["messages"].as_array().map_or(0, Vec::len) > 2;
    let text = if body["model"] == "model-b" {
        clean(key, "sourced", false)
    } else {
        match (key, retry) {
            ("k01", _) => clean(key, "sourced", true),
            ("k04" | "k05", _) => format!("```json\n{}\n```", clean(key, "sourced", false)),
            ("k06", _) => {
                let c = clean(key, "sourced", false);
                format!("{},}}", &c[..c.len() - 1])
            }
            ("k07", _) => clean(key, "SOURCED", false),
            ("k08", false) | ("k10", _) => {
                "Sure! The note is about a harbour that opens at dawn.".to_string()
            }
            ("k09", false) => format!("{{\"title\": \"Entry {key}\", \"summary\": \"The harb"),
            _ => clean(key, "sourced", false),
        }
    };
    Some(Reply::text(text).usage(100, 50))
}

fn write_dataset(dir: &Path) -> PathBuf {
    let mut lines = String::new();
    for (key, _) in MIX {
        let id = if *key == "k03" {
            "k03-<script>alert(1)</script>".to_string()
        } else {
            key.to_string()
        };
        let mut case = json!({"id": id, "source": source(key)});
        if *key == "k02" {
            case["expected"] = json!({"title_contains": "no such words"});
        }
        lines.push_str(&case.to_string());
        lines.push('\n');
    }
    std::fs::write(
        dir.join("harbours.yaml"),
        "name: harbours\ndescription: A known mix of answers\nevaluators:\n  min_claims: 1\n",
    )
    .unwrap();
    let path = dir.join("harbours.jsonl");
    std::fs::write(&path, lines).unwrap();
    path
}

fn settings(server: &TestServer) -> Settings {
    wikimind::test_settings::settings_at(&server.url())
}

/// Runs the mixed dataset with both models and writes the report into `out`.
fn run_mix(out: &Path) -> (eval::Report, Vec<eval::CaseResult>, TestServer) {
    let server = TestServer::builder().responder(respond).start();
    let data = tempfile::tempdir().unwrap();
    let path = write_dataset(data.path());
    let dataset = eval::load_dataset(&path).unwrap();
    assert!(dataset.warnings.is_empty(), "{:?}", dataset.warnings);
    let options = EvalOptions {
        models: vec!["model-a".into(), "model-b".into()],
        concurrency: Some(3),
        compare_freeform: true,
        ..EvalOptions::default()
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let run = rt
        .block_on(eval::run_eval(
            &dataset,
            &settings(&server),
            &wikimind::llm::NoKeyStore,
            &options,
            &|_| {},
            &CancellationToken::new(),
        ))
        .unwrap();
    let report = eval::build_report(&dataset, &run);
    eval::write_outputs(out, &report, &run.results).unwrap();
    (report, run.results, server)
}

/// The keys of every object in `v`, as paths (arrays: their first element).
fn key_paths(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let path = format!("{at}/{k}");
                out.push(path.clone());
                // Maps keyed by data (classes, reasons, repair kinds) are not layout.
                if ![
                    "first_answers",
                    "kept_answers",
                    "failures_by_reason",
                    "repairs_by_kind",
                ]
                .contains(&k.as_str())
                {
                    key_paths(child, &path, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                key_paths(first, &format!("{at}/0"), out);
            }
        }
        _ => {}
    }
}

/// `docs/eval.md` (linked from the README) documents `report.json` with an example; it must
/// have the real layout.
fn assert_docs_document(report: &Value) {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/eval.md"))
            .unwrap();
    let section = readme
        .split("## `report.json`")
        .nth(1)
        .expect("docs/eval.md has a report.json section");
    let block = section
        .split("```json")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("an example block");
    let documented: Value = serde_json::from_str(block).expect("the docs/eval.md example parses");
    let (mut want, mut got) = (Vec::new(), Vec::new());
    key_paths(&documented, "", &mut want);
    key_paths(report, "", &mut got);
    want.sort();
    got.sort();
    assert_eq!(
        want, got,
        "docs/eval.md's report.json example and the real report differ"
    );
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn the_report_rates_equal_the_known_mix() {
    let out = tempfile::tempdir().unwrap();
    let (report, results, server) = run_mix(out.path());
    assert_eq!(report.runs, 20);
    assert_eq!(results.len(), 20);
    assert!(!report.cancelled);

    let a = &report.models[0];
    assert_eq!(a.model, "ollama:model-a");
    assert_eq!(a.runs, 10);
    // 3 clean; +2 fenced +1 trailing comma; +1 enum case; +2 fixed on retry.
    assert!(close(a.first_answer_valid_rate, 0.3), "{a:#?}");
    assert!(close(a.repaired_valid_rate, 0.6), "{a:#?}");
    assert!(close(a.coerced_valid_rate, 0.7), "{a:#?}");
    assert!(close(a.final_valid_rate, 0.9), "{a:#?}");
    assert_eq!(a.failed_runs, 1);
    // k08 once and k10 three times answered prose; k09's cut-off answer misses fields.
    assert_eq!(a.failures_by_reason.get("no_json"), Some(&4), "{a:#?}");
    assert_eq!(a.failures_by_reason.get("schema"), Some(&1), "{a:#?}");
    assert_eq!(a.failures_by_reason.len(), 2, "{a:#?}");
    assert_eq!(a.repairs_by_kind.get("removed_code_fence"), Some(&2));
    assert_eq!(a.repairs_by_kind.get("removed_trailing_comma"), Some(&1));
    assert_eq!(a.repairs_by_kind.get("enum_case"), Some(&1));
    assert_eq!(a.kept_answers.get("strict_valid"), Some(&5), "{a:#?}");
    // Nine articles with one real quote each, plus one invented quote in k01.
    assert_eq!((a.sourced_claims, a.grounded_claims), (10, 9));
    assert!(close(a.grounded_rate.unwrap(), 0.9));
    // min_claims on every run (k10 has no article) and k02's impossible title.
    assert_eq!((a.checks_passed, a.checks_total), (9, 11));
    // 100 prompt and 50 answer tokens per call; 14 calls.
    assert!(close(a.calls_per_run, 1.4));
    assert!(close(a.tokens_out.per_compile, 70.0), "{:?}", a.tokens_out);
    assert!(close(a.tokens_in.per_compile, 140.0), "{:?}", a.tokens_in);
    assert!(close(a.tokens_out.per_article.unwrap(), 700.0 / 9.0));
    let f = a.freeform.as_ref().unwrap();
    assert_eq!(f.pairs, 10);
    assert!(close(f.ratio.unwrap(), 50.0 / 80.0));
    assert!(close(f.structured_saving.unwrap(), 0.375));
    assert!(a.latency_ms.p50 <= a.latency_ms.p95);

    let b = &report.models[1];
    assert_eq!(b.model, "ollama:model-b");
    for r in [
        b.first_answer_valid_rate,
        b.repaired_valid_rate,
        b.coerced_valid_rate,
        b.final_valid_rate,
    ] {
        assert!(close(r, 1.0), "{b:#?}");
    }
    assert!(b.failures_by_reason.is_empty());

    // The judge (the sidecar names no evaluator: `llm_judge`) scored every article; k10
    // wrote none, so it is counted as not scored. Its calls are not the compile's.
    let ja = a.evaluators.llm_judge.as_ref().expect("judged");
    assert_eq!((ja.runs, ja.judged, ja.failed), (10, 9, 1), "{ja:#?}");
    assert_eq!(ja.judges, ["ollama:model-a"]);
    // Eight articles quote only their source; k01 also quotes an invented sentence.
    assert!(close(ja.faithfulness.unwrap(), 44.0 / 9.0), "{ja:#?}");
    let jb = b.evaluators.llm_judge.as_ref().expect("judged");
    assert_eq!((jb.runs, jb.judged, jb.failed), (10, 10, 0), "{jb:#?}");
    assert_eq!(jb.judges, ["ollama:model-b"]);

    // Every run went through the real compile: the schema was sent, the source quoted.
    // 14 compile calls of model-a, 10 of model-b, 20 free-form, 19 judge calls.
    let chats = server.chat_requests();
    assert_eq!(chats.len(), 14 + 10 + 20 + 19);
    assert!(chats
        .iter()
        .filter(|c| !c.body["format"].is_null())
        .all(|c| c.first_user_message().contains("<<<SOURCE\nEntry k")));

    // The files: report.json parses back to the same rates, one results line per run.
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["models"][0]["first_answer_valid_rate"], json!(0.3));
    assert_eq!(json["models"][0]["final_valid_rate"], json!(0.9));
    assert_eq!(json["dataset"]["name"], "harbours");
    assert_docs_document(&json);
    let lines = std::fs::read_to_string(out.path().join("results.jsonl")).unwrap();
    let lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 20);
    let k10 = lines
        .iter()
        .find(|l| l["case_id"] == "k10" && l["model"] == "ollama:model-a")
        .unwrap();
    assert_eq!(k10["ok"], false);
    assert_eq!(k10["attempts"].as_array().unwrap().len(), 3);
    assert_eq!(k10["attempts"][0]["class"], "invalid");
    assert_eq!(k10["attempts"][0]["failure"], "no_json");
    assert_eq!(
        k10["evaluators"]["llm_judge"]["error"],
        "no article to judge"
    );
    let k02 = lines
        .iter()
        .find(|l| l["case_id"] == "k02" && l["model"] == "ollama:model-b")
        .unwrap();
    assert_eq!(k02["evaluators"]["llm_judge"]["faithfulness"]["score"], 5);

    // The HTML is self-contained and escapes what the dataset says.
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(!html.contains("<script"), "unescaped case id");
    assert!(html.contains("k03-&lt;script&gt;"));
    for resource in ["src=", "href=", "@import", "url("] {
        assert!(!html.contains(resource), "external resource: {resource}");
    }
}

fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WIKIMIND_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Opens the HTML report in headless Chromium and screenshots it. The screenshot is kept at
/// `<target tmp>/eval-report/report.png` to look at. Skipped (with a message) when no
/// Chromium is installed (`apt-get install chromium`), except where
/// `WIKIMIND_REQUIRE_CHROMIUM` is set (`scripts/test.sh` installs it and sets it), where a
/// missing Chromium fails.
#[test]
fn the_html_report_renders_in_headless_chromium() {
    let Some(chromium) = find_chromium() else {
        assert!(
            std::env::var_os("WIKIMIND_REQUIRE_CHROMIUM").is_none()
                && std::env::var_os("CI").is_none(),
            "WIKIMIND_REQUIRE_CHROMIUM or CI is set but no chromium was found"
        );
        eprintln!(
            "SKIPPED the_html_report_renders_in_headless_chromium: no chromium on PATH \
             (install Debian's `chromium` or set WIKIMIND_CHROMIUM)"
        );
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-report");
    let _ = std::fs::remove_dir_all(&out);
    let (_report, _results, _server) = run_mix(&out);
    let html = out.join("report.html").canonicalize().unwrap();
    let png = out.join("report.png");
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1100,2200",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let bytes = std::fs::read(&png).expect("chromium wrote no screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (1100, 2200));
    // A blank page compresses to almost nothing; charts and tables do not.
    assert!(
        bytes.len() > 40_000,
        "screenshot looks empty ({} bytes)",
        bytes.len()
    );
    eprintln!("screenshot: {}", png.display());
}
