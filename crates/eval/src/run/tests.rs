//! The eval runner's tests, against the scripted test server.

use super::*;
use wikimind::config::Overrides;

fn settings(env: &[(&str, &str)]) -> Settings {
    let vars: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let o = Overrides {
        data_dir: Some("unused-by-eval".into()),
        ..Overrides::default()
    };
    Settings::resolve(&o, &|k| vars.get(k).cloned(), None).unwrap()
}

fn exec(model: Option<&str>, temperature: Option<f32>) -> Execution {
    Execution {
        model: model.map(str::to_string),
        temperature,
        ..Execution::default()
    }
}

#[test]
fn flags_beat_the_case_which_beats_the_sidecar_which_beats_settings() {
    let s = settings(&[("WIKIMIND_MODEL", "env-model")]);
    let flag = exec(Some("flag-model"), None);
    let case = exec(Some("case-model"), Some(0.7));
    let side = exec(Some("side-model"), Some(0.1));
    let none = Execution::default();
    let r = |f: &Execution, c: &Execution, sc: &Execution| resolve_execution(f, c, sc, &s).unwrap();
    assert_eq!(r(&flag, &case, &side).model, "flag-model");
    assert_eq!(r(&flag, &case, &side).temperature, 0.7);
    assert_eq!(r(&none, &case, &side).model, "case-model");
    assert_eq!(r(&none, &none, &side).model, "side-model");
    assert_eq!(r(&none, &none, &side).temperature, 0.1);
    let bottom = r(&none, &none, &none);
    assert_eq!(bottom.model, "env-model");
    assert_eq!(bottom.temperature, CompileSettings::default().temperature);
    assert_eq!(bottom.prompt, wikimind::compile::PROMPT_VERSION);
    // Another provider kind gets that kind's defaults, not the settings' server.
    let openai = Execution {
        target: Some(Target::Kind(ProviderKind::OpenAiCompatible)),
        ..Execution::default()
    };
    let o = r(&openai, &none, &none);
    assert_eq!(o.base_url, wikimind::config::DEFAULT_OPENAI_URL);
    assert_eq!(o.model, wikimind::config::DEFAULT_OPENAI_MODEL);
    assert_eq!(o.label(), "openai:default");
    // A case's `target: default` wins over the sidecar's `openai`: the configured one.
    let default = Execution {
        target: Some(Target::Default),
        ..Execution::default()
    };
    let d = r(&none, &default, &openai);
    assert_eq!(d.label(), "ollama:env-model");
    assert_eq!(d.base_url, s.provider().base_url);
}

fn compiled_with(s: &Settings, model: &str) -> ResolvedExecution {
    resolve_execution(
        &exec(Some(model), None),
        &Execution::default(),
        &Execution::default(),
        s,
    )
    .unwrap()
}

#[test]
fn the_judge_is_the_compiling_model_unless_the_config_or_a_flag_says_otherwise() {
    let file = "[provider]\nmodel = \"primary-model\"\n";
    let with_file = |eval_table: &str| {
        let text = format!("{file}{eval_table}");
        let o = Overrides {
            data_dir: Some("unused-by-eval".into()),
            ..Overrides::default()
        };
        Settings::resolve(&o, &|_| None, Some((std::path::Path::new("c.toml"), &text))).unwrap()
    };
    let none = EvalOptions::default();
    let s = with_file("");
    let run = ResolvedExecution {
        retries: 5,
        max_tokens: 777,
        ..compiled_with(&s, "small")
    };
    let j = resolve_judge(&none, &s, &run).unwrap();
    assert_eq!(j.label(), "ollama:small", "by default the compiling model");
    assert_eq!(
        (j.base_url.as_str(), j.prompt.as_str()),
        (run.base_url.as_str(), "judge-v1")
    );
    assert_eq!((j.temperature, j.retries, j.max_tokens), (0.0, 5, 777));

    let s = with_file("[eval]\njudge_model = \"config-judge\"\n");
    assert_eq!(
        resolve_judge(&none, &s, &run).unwrap().label(),
        "ollama:config-judge"
    );
    let flag = EvalOptions {
        judge_model: Some("flag-judge".into()),
        ..EvalOptions::default()
    };
    assert_eq!(
        resolve_judge(&flag, &s, &run).unwrap().label(),
        "ollama:flag-judge"
    );

    // Another kind: that kind's defaults, unless its server and model are given.
    let s = with_file("[eval]\njudge_provider = \"openai\"\n");
    let j = resolve_judge(&none, &s, &run).unwrap();
    assert_eq!(j.label(), "openai:default");
    assert_eq!(j.base_url, wikimind::config::DEFAULT_OPENAI_URL);
    let s = with_file(
        "[eval]\njudge_provider = \"openai\"\njudge_base_url = \"http://judge:8080/v1/\"\njudge_model = \"big\"\n",
    );
    let j = resolve_judge(&none, &s, &run).unwrap();
    assert_eq!(
        (j.label().as_str(), j.base_url.as_str()),
        ("openai:big", "http://judge:8080/v1")
    );
    // `default`: the configured primary, whatever compiled the article.
    let primary = EvalOptions {
        judge_provider: Some("default".into()),
        ..EvalOptions::default()
    };
    let j = resolve_judge(&primary, &s, &run).unwrap();
    assert_eq!(
        j.label(),
        "ollama:primary-model",
        "not the table's openai model"
    );
    assert_eq!(j.base_url, s.provider().base_url, "nor its openai server");
    let bad = EvalOptions {
        judge_provider: Some("bard".into()),
        ..EvalOptions::default()
    };
    let e = resolve_judge(&bad, &s, &run).unwrap_err().to_string();
    assert!(
        e.starts_with("--judge-provider \"bard\": unknown provider"),
        "{e}"
    );
}

/// A dataset of three cases: one judged cleanly, one whose judge always answers a
/// faithfulness of 7, one with the `checks` evaluator only.
fn judged_dataset(dir: &std::path::Path) -> Dataset {
    std::fs::write(
        dir.join("j.yaml"),
        "dataset: judged\nevaluator: llm_judge\nexpected: {min_claims: 1}\n",
    )
    .unwrap();
    let p = dir.join("j.jsonl");
    std::fs::write(
        &p,
        concat!(
            "{\"id\":\"good\",\"source\":\"# Tea\\n\\nGreen tea is steamed. Black tea is oxidised fully.\"}\n",
            "{\"id\":\"seven\",\"source\":\"# Seven\\n\\nThe seven-key harbour opens at dawn.\"}\n",
            "{\"id\":\"plain\",\"source\":\"# Plain\\n\\nThe plain case is checked only.\",\"evaluator\":\"checks\"}\n"
        ),
    )
    .unwrap();
    super::super::load_dataset(&p).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judge_scores_land_in_the_results_and_a_score_of_7_is_retried_then_recorded_as_failed()
{
    use wikimind_testserver::{canned, Reply, TestServer};
    let server = TestServer::builder()
        .responder(|req| {
            let prompt = req.first_user_message();
            let seven = r#"{"faithfulness": {"score": 7, "reason": "Very good."}, "coverage": {"score": 4, "reason": "Most of it."}}"#;
            (canned::is_judge_prompt(&prompt) && prompt.contains("seven-key"))
                .then(|| Reply::text(seven))
        })
        .start();
    let dir = tempfile::tempdir().unwrap();
    let dataset = judged_dataset(dir.path());
    let mut s = wikimind::test_settings::settings_at(&server.url());
    s.compile.retries = 1;
    let options = EvalOptions {
        models: vec!["m".into()],
        judge_model: Some("judge-m".into()),
        concurrency: Some(1),
        ..EvalOptions::default()
    };
    let run = run_eval(
        &dataset,
        &s,
        &wikimind::llm::NoKeyStore,
        &options,
        &|_| {},
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let by_id = |id: &str| run.results.iter().find(|r| r.case_id == id).unwrap();
    // The compiles and their checks are untouched by the judge.
    assert!(run
        .results
        .iter()
        .all(|r| r.ok && r.checks.iter().all(|c| c.passed)));

    let good = by_id("good").evaluators.llm_judge.as_ref().expect("judged");
    assert!(good.ok, "{good:?}");
    assert_eq!(
        (good.model.as_str(), good.prompt.as_str()),
        ("ollama:judge-m", "judge-v1")
    );
    let f = good.faithfulness.as_ref().unwrap();
    assert_eq!(
        f.score, 5,
        "every quote of the canned article is in the source"
    );
    assert_eq!(f.reason, "2 of 2 quoted claims are found in the source.");
    assert!(good.coverage.is_some() && good.error.is_none() && good.calls == 1);

    let seven = by_id("seven")
        .evaluators
        .llm_judge
        .as_ref()
        .expect("judged");
    assert!(!seven.ok && seven.faithfulness.is_none() && seven.coverage.is_none());
    assert_eq!(
        seven.calls, 2,
        "the first answer and one retry (retries = 1)"
    );
    assert_eq!(seven.rejected.len(), 2);
    assert!(
        seven.rejected[0].starts_with("attempt 1: /faithfulness/score: 7 is out of range"),
        "{:?}",
        seven.rejected
    );
    let error = seven.error.as_deref().unwrap();
    assert!(
        error.contains("could not be used after 2 attempt(s)")
            && error.contains("7 is out of range"),
        "{error}"
    );

    let plain = by_id("plain");
    assert_eq!(plain.evaluator, Evaluator::Checks);
    assert!(plain.evaluators.llm_judge.is_none());

    // What the judge was sent: its model, the schema, temperature 0; the retry carries
    // the refused answer and why it was refused.
    let judge_calls: Vec<_> = server
        .chat_requests()
        .into_iter()
        .filter(|r| canned::is_judge_prompt(&r.first_user_message()))
        .collect();
    assert_eq!(judge_calls.len(), 3, "good once, seven twice, plain never");
    assert!(judge_calls.iter().all(|r| r.body["model"] == "judge-m"
        && r.body["format"]["required"] == serde_json::json!(["faithfulness", "coverage"])
        && r.body["options"]["temperature"] == 0.0));
    let retry = judge_calls
        .iter()
        .find(|r| r.body["messages"].as_array().unwrap().len() == 4)
        .expect("a retry");
    assert!(retry.body["messages"][2]["content"]
        .as_str()
        .unwrap()
        .contains("\"score\": 7"));
    assert!(
        retry
            .user_message()
            .contains("/faithfulness/score: 7 is out of range"),
        "{}",
        retry.user_message()
    );

    // The report: per-model averages over the scored articles, the failure counted.
    let report = super::super::build_report(&dataset, &run);
    let j = report.models[0].evaluators.llm_judge.as_ref().unwrap();
    assert_eq!((j.runs, j.judged, j.failed), (2, 1, 1));
    assert_eq!(j.judges, ["ollama:judge-m"]);
    assert_eq!(j.faithfulness, Some(5.0));
    assert!(report
        .to_table()
        .contains("llm_judge (ollama:judge-m): faithfulness 5.0/5"));
    // On the wire: `evaluators` beside `checks`, empty for the checks-only case.
    let line = serde_json::to_value(by_id("good")).unwrap();
    assert_eq!(line["evaluator"], "llm_judge");
    assert_eq!(line["evaluators"]["llm_judge"]["faithfulness"]["score"], 5);
    assert_eq!(
        serde_json::to_value(plain).unwrap()["evaluators"],
        serde_json::json!({})
    );
}
