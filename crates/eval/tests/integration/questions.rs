//! `wikimind eval` of a question dataset, end to end against a local server speaking the
//! Ollama protocol: a small wiki compiled from notes, questions asked of it and of its raw
//! sources per model, and a report whose figures are what the per-question results add up
//! to.

use std::path::Path;

use serde_json::Value;
use wikimind::llm::CancellationToken;
use wikimind::wiki::Wiki;
use wikimind_eval::{self as eval, EvalOptions, EvalVerdict};
use wikimind_testserver::{RecordedRequest, Reply, TestServer};

/// A small wiki about coffee and tea, each note its own topic.
const NOTES: &[&str] = &[
    "# Espresso\n\nEspresso is brewed at nine bars of pressure. A shot of espresso uses about eighteen grams of finely ground coffee. See [[Crema]].",
    "# Crema\n\nCrema is the reddish foam that forms on top of an espresso shot. Fresh beans give more crema because they still hold carbon dioxide.",
    "# Green Tea\n\nGreen tea is best brewed with water at about eighty degrees. Its leaves are steamed or pan-fired soon after picking.",
];

/// The questions: one answered with a fact it holds and one it lacks, one answered, one
/// whose answers are never valid, one about nothing the notes mention.
const QUESTIONS: &str = concat!(
    "{\"id\":\"pressure\",\"question\":\"How much pressure is espresso brewed at?\",\"expect\":[\"nine bars\",\"ninety seconds\"]}\n",
    "{\"id\":\"tea\",\"question\":\"What water temperature suits green tea?\",\"expect\":[\"eighty degrees\"]}\n",
    "{\"id\":\"broken\",\"question\":\"Why does fresh coffee make more crema?\",\"expect\":[\"carbon dioxide\"]}\n",
    "{\"id\":\"elsewhere\",\"question\":\"What is the capital of Mongolia?\",\"expect\":[]}\n",
);

/// Whether a request is an ask prompt.
fn is_ask(req: &RecordedRequest) -> bool {
    req.first_user_message().starts_with("Question: ")
}

/// The stand-in's canned answers, but prose for the crema question (never valid).
fn respond(req: &RecordedRequest) -> Option<Reply> {
    let message = req.first_user_message();
    let question = message.lines().next().unwrap_or_default();
    (is_ask(req) && question.contains("more crema"))
        .then(|| Reply::text("Fresh coffee simply makes more foam, I think."))
}

struct Setup {
    server: TestServer,
    wiki: Wiki,
    dataset: eval::Dataset,
    settings: wikimind::config::Settings,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let server = TestServer::builder().responder(respond).start();
    let wiki = Wiki::open_in_memory().expect("wiki");
    let mut settings = wikimind::test_settings::settings_at(&server.url());
    settings.compile.retries = 1;
    let compiler = wiki.compiler(&settings).expect("compiler");
    for note in NOTES {
        let id = wiki.ingest_text(note, None).expect("ingest").sources[0].source_id;
        let report = compiler
            .compile_one(id, &|_| {}, &CancellationToken::new())
            .await
            .expect("compile");
        assert!(report.ok, "{report:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("coffee.yaml"),
        "dataset: coffee\nkind: questions\n",
    )
    .unwrap();
    let path = dir.path().join("coffee.jsonl");
    std::fs::write(&path, QUESTIONS).unwrap();
    let dataset = eval::load_dataset(&path).expect("dataset");
    Setup {
        server,
        wiki,
        dataset,
        settings,
        _dir: dir,
    }
}

/// Every line of `results.jsonl` in `out`.
fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn sum(lines: &[&Value], side: &str, pick: &dyn Fn(&Value) -> u64) -> u64 {
    lines.iter().map(|l| pick(&l[side])).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_are_asked_of_the_wiki_and_of_the_raw_sources_per_model() {
    let s = setup().await;
    let out = tempfile::tempdir().unwrap();
    let options = EvalOptions {
        models: vec!["m1".into(), "m2".into()],
        concurrency: Some(2),
        ..EvalOptions::default()
    };
    let outcome = eval::evaluate_questions(
        &s.dataset,
        &s.wiki,
        &s.settings,
        &wikimind::llm::NoKeyStore,
        &options,
        Some(out.path()),
        &|_| {},
        &CancellationToken::new(),
    )
    .await
    .expect("eval");
    assert_eq!(outcome.verdict, EvalVerdict::Complete);
    let report = &outcome.report;
    assert_eq!(report.runs, 8, "4 questions × 2 models");
    let wiki = report.wiki.as_ref().expect("the wiki asked");
    assert_eq!((wiki.sources, wiki.pages), (3, 3));
    assert!(wiki.passages >= 3);
    let models: Vec<&str> = report.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(models, ["ollama:m1", "ollama:m2"]);

    for m in &report.models {
        assert_eq!((m.runs, m.facts_expected), (4, 4), "{m:#?}");
        for (side, f) in [("wiki", &m.wiki), ("raw", &m.raw)] {
            // Mongolia is in neither; the crema answers are never valid.
            assert_eq!(f.covered, 3, "{side}: {f:#?}");
            assert_eq!(f.valid_answers, 2, "{side}: {f:#?}");
            assert_eq!(f.failed, 1, "{side}: {f:#?}");
            assert_eq!(f.valid_rate, 0.5, "{side}");
            // Nine bars and eighty degrees; not ninety seconds, not the invalid answer's.
            assert_eq!(f.facts_found, 2, "{side}: {f:#?}");
            assert_eq!(f.facts_found_rate, Some(0.5), "{side}");
            // The canned answers quote what they read, and every quote grounds.
            assert!(f.claims >= 2, "{side}: {f:#?}");
            assert_eq!(f.grounded_rate, Some(1.0), "{side}: {f:#?}");
            assert_eq!(f.sourced_grounded_rate, Some(1.0), "{side}: {f:#?}");
            // Two questions answered at once, the crema question twice (one retry).
            assert_eq!(f.calls, 4, "{side}: {f:#?}");
            assert_eq!(f.first_answers.get("invalid"), Some(&1), "{side}");
            assert_eq!(f.first_answers.get("strict_valid"), Some(&2), "{side}");
        }
    }

    // The server was asked 8 times per model, never about Mongolia; the raw side's blocks
    // are passages of the sources, titled by their source.
    let asks: Vec<RecordedRequest> = s
        .server
        .chat_requests()
        .into_iter()
        .filter(is_ask)
        .collect();
    assert_eq!(asks.len(), 16);
    assert!(asks
        .iter()
        .all(|r| !r.first_user_message().contains("Mongolia")));
    let pressure: Vec<String> = asks
        .iter()
        .map(RecordedRequest::first_user_message)
        .filter(|m| m.contains("pressure is espresso"))
        .collect();
    assert_eq!(pressure.len(), 4, "wiki and raw, two models");
    assert!(
        pressure
            .iter()
            .any(|m| m.contains("<<<PAGE Espresso\nSummary:")),
        "the wiki's page, with its summary"
    );
    assert!(
        pressure
            .iter()
            .any(|m| m.contains("<<<PAGE Espresso\nText:\n# Espresso\n\nEspresso is brewed")),
        "the raw source's passage"
    );

    // Per question, per model: each answer with its facts, one found and one not.
    let lines = results(out.path());
    assert_eq!(lines.len(), 8);
    let line = |id: &str, model: &str| {
        lines
            .iter()
            .find(|l| l["case_id"] == id && l["model"] == model)
            .unwrap_or_else(|| panic!("{id} {model}"))
    };
    let pressure = line("pressure", "ollama:m1");
    for side in ["wiki", "raw"] {
        let a = &pressure[side];
        assert_eq!(a["answered"], true, "{a}");
        assert_eq!(
            a["facts"],
            serde_json::json!([
                {"fact": "nine bars", "found": true},
                {"fact": "ninety seconds", "found": false}
            ]),
            "{side}"
        );
        assert_eq!(a["read"][0], "Espresso", "{side}");
        assert_eq!(a["claims"][0]["page"], "Espresso", "{side}");
        assert_eq!(a["claims"][0]["grounded"], true, "{side}");
    }
    let broken = line("broken", "ollama:m2");
    for side in ["wiki", "raw"] {
        let a = &broken[side];
        assert_eq!(
            (a["covered"].as_bool(), a["answered"].as_bool()),
            (Some(true), Some(false))
        );
        assert!(
            a["error"]
                .as_str()
                .unwrap()
                .contains("could not be made valid"),
            "{a}"
        );
        assert_eq!(a["attempts"].as_array().unwrap().len(), 2, "one retry");
        assert_eq!(
            a["facts"][0]["found"], false,
            "an invalid answer holds no fact"
        );
    }
    let elsewhere = line("elsewhere", "ollama:m1");
    assert_eq!(elsewhere["wiki"]["covered"], false);
    assert_eq!(elsewhere["wiki"]["calls"], 0);
    assert!(elsewhere["raw"]["answer"]
        .as_str()
        .unwrap()
        .starts_with("The sources do not cover this"));

    // The report's figures are what the lines add up to, model by model, side by side.
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["dataset"]["kind"], "questions");
    assert_eq!(json["dataset"]["evaluator"], "checks");
    for m in json["models"].as_array().unwrap() {
        let of: Vec<&Value> = lines.iter().filter(|l| l["model"] == m["model"]).collect();
        assert_eq!(m["runs"].as_u64(), Some(of.len() as u64));
        for side in ["wiki", "raw"] {
            let f = &m[side];
            let count = |key: &str| sum(&of, side, &|a| a[key].as_u64().unwrap());
            let flag = |key: &str| sum(&of, side, &|a| u64::from(a[key] == true));
            assert_eq!(f["covered"].as_u64(), Some(flag("covered")), "{side}");
            assert_eq!(
                f["valid_answers"].as_u64(),
                Some(flag("answered")),
                "{side}"
            );
            assert_eq!(
                f["facts_found"].as_u64(),
                Some(count("facts_found")),
                "{side}"
            );
            assert_eq!(
                f["claims"].as_u64(),
                Some(sum(&of, side, &|a| a["claims"].as_array().unwrap().len() as u64))
            );
            for key in [
                "grounded_claims",
                "sourced_claims",
                "sourced_grounded_claims",
                "calls",
            ] {
                assert_eq!(f[key].as_u64(), Some(count(key)), "{side} {key}");
            }
            assert_eq!(
                f["tokens_in"]["total"].as_u64(),
                Some(count("tokens_in")),
                "{side}"
            );
            assert_eq!(
                f["tokens_out"]["total"].as_u64(),
                Some(count("tokens_out")),
                "{side}"
            );
        }
        let facts: u64 = of
            .iter()
            .map(|l| l["expect"].as_array().unwrap().len() as u64)
            .sum();
        assert_eq!(m["facts_expected"].as_u64(), Some(facts));
    }

    // The terminal table and the page show both sides.
    let table = report.to_table();
    assert!(table.contains("ollama:m1  wiki"), "{table}");
    assert!(table.contains("2/4 50%"), "{table}");
    assert!(
        table.contains("ollama:m1: facts found 50% from the wiki, 50% from the raw sources"),
        "{table}"
    );
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert!(html.contains("Does the wiki help?"));
    assert!(html.contains("raw sources"));
    assert!(html.contains("missed: ninety seconds"));
    assert_docs_document(&json);
}

/// `docs/eval.md` (linked from the README) documents a question dataset's `report.json` with
/// an example; it must have the real layout.
fn assert_docs_document(report: &Value) {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/eval.md"))
            .unwrap();
    let block = readme
        .split("<!-- question report.json -->")
        .nth(1)
        .and_then(|s| s.split("```json").nth(1))
        .and_then(|b| b.split("```").next())
        .expect("docs/eval.md documents a question dataset's report.json");
    let documented: Value = serde_json::from_str(block).expect("the docs/eval.md example parses");
    let (mut want, mut got) = (Vec::new(), Vec::new());
    key_paths(&documented, "", &mut want);
    key_paths(report, "", &mut got);
    want.sort();
    got.sort();
    assert_eq!(
        want, got,
        "docs/eval.md's example and the real report differ"
    );
}

/// The keys of every object in `v`, as paths (arrays: their first element).
fn key_paths(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let path = format!("{at}/{k}");
                out.push(path.clone());
                // A map keyed by data (answer classes) is not layout.
                if k != "first_answers" {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_article_dataset_is_not_asked_and_a_question_dataset_is_not_compiled() {
    let s = setup().await;
    let cancel = CancellationToken::new();
    let e = eval::run_eval(
        &s.dataset,
        &s.settings,
        &wikimind::llm::NoKeyStore,
        &EvalOptions::default(),
        &|_| {},
        &cancel,
    )
    .await
    .unwrap_err();
    assert!(e.to_string().contains("dataset of questions"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let e = eval::question_wiki(dir.path()).unwrap_err();
    assert!(e.to_string().starts_with("no wiki in"), "{e}");
    assert!(
        !dir.path().join("wikimind.db").exists(),
        "nothing is created"
    );
}
