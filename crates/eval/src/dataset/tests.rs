//! The dataset reader's tests: every format, every refusal with its place.

use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

fn load_err(text: &str) -> DatasetError {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "d.jsonl", text);
    load_dataset(&p).unwrap_err()
}

#[test]
fn a_valid_file_with_blank_lines_loads_every_case() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "basics.jsonl",
        "{\"id\":\"a\",\"source\":\"Alpha is first.\"}\n\n   \n{\"id\":\"b\",\"source\":\"Beta is second.\",\"expected\":{\"min_claims\":2}}\n",
    );
    let d = load_dataset(&p).unwrap();
    assert_eq!(d.cases.len(), 2);
    assert_eq!(d.cases[0].id, "a");
    assert_eq!(d.cases[1].location, Location::Line(4));
    assert_eq!(d.cases[1].expected.min_claims, Some(2));
    assert_eq!(d.name, "basics");
    assert_eq!(d.repeat, 1);
    // No sidecar: a warning naming the defaults, not an error.
    assert_eq!(d.warnings.len(), 1);
    assert!(d.warnings[0].contains("no sidecar"), "{}", d.warnings[0]);
    assert!(d.warnings[0].contains("repeat 1"), "{}", d.warnings[0]);
    assert!(d.warnings[0].contains(PROMPT_VERSION), "{}", d.warnings[0]);
    assert!(
        d.warnings[0].contains("evaluator llm_judge"),
        "{}",
        d.warnings[0]
    );
}

#[test]
fn bad_json_names_the_line() {
    let e = load_err("{\"id\":\"a\",\"source\":\"x y z\"}\n\n{\"id\": \"b\", source: 1}\n");
    assert_eq!(e.line, Some(3));
    let s = e.to_string();
    assert!(s.contains("d.jsonl: line 3: not valid JSON"), "{s}");
}

#[test]
fn strict_errors_name_the_line_and_problem() {
    let table: &[(&str, usize, &str)] = &[
        ("{\"source\":\"x\"}", 1, "missing `id`"),
        ("[1,2]", 1, "must be a JSON object"),
        (
            "{\"id\":7,\"source\":\"x\"}",
            1,
            "`id` must be a string, not a number",
        ),
        (
            "{\"id\":\"a\",\"source\":\"a b\"}\n{\"id\":\"a\",\"source\":\"c d\"}",
            2,
            "duplicate id \"a\" (first used at line 1)",
        ),
        (
            "{\"id\":\"a\",\"source\":5}",
            1,
            "`source` must be a string",
        ),
        ("{\"id\":\"a\"}", 1, "has no source"),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"source_file\":\"y.md\"}",
            1,
            "both",
        ),
        (
            "{\"id\":\"a\",\"source_file\":\"missing.md\"}",
            1,
            "source_file \"missing.md\" does not exist",
        ),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"expected\":{\"min_claims\":\"three\"}}",
            1,
            "expected: invalid type",
        ),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"expected\":{\"min_clams\":3}}",
            1,
            "unknown field `min_clams`",
        ),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"expected\":{\"max_opinion_share\":3}}",
            1,
            "not a share",
        ),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"execution\":{\"provider\":\"bard\"}}",
            1,
            "not a provider",
        ),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"execution\":{\"prompt\":\"v9\"}}",
            1,
            "not a known prompt",
        ),
        ("{\"id\":\"a\",\"source\":\"   \"}", 1, "empty"),
        (
            "{\"id\":\"a\",\"source\":\"x\",\"surprise\":1}",
            1,
            "unknown field \"surprise\"",
        ),
    ];
    for (text, line, want) in table {
        let e = load_err(text);
        assert_eq!(e.line, Some(*line), "{text}: {e}");
        assert!(e.to_string().contains(want), "{text}: {e}");
    }
}

#[test]
fn no_partial_datasets_and_no_empty_ones() {
    assert!(load_err("").to_string().contains("no cases"));
    assert!(load_err("\n\n").to_string().contains("no cases"));
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "d.csv", "id,source");
    assert!(load_dataset(&p)
        .unwrap_err()
        .to_string()
        .contains("not a dataset"));
    let p = write(dir.path(), "bad.jsonl", "");
    std::fs::write(&p, b"{\"id\":\"a\",\"source\":\"ok\"}\n{\"id\":\"b\xff\"}").unwrap();
    let e = load_dataset(&p).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.to_string().contains("UTF-8"));
}

#[test]
fn hostile_datasets_are_errors_not_panics() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let jsonl: Vec<String> = vec![
        deep,
        "{\"id\":\"a\",\"source\":\"x\",\"expected\":{\"min_claims\":99999999999}}".into(),
        "{\"id\":\"a\",\"source\":\"x\",\"expected\":{\"min_claims\":-1}}".into(),
        "{\"id\":\"a\",\"source\":\"x\",\"execution\":{\"temperature\":1e308}}".into(),
        "{\"id\":\"a\",\"source_file\":\".\"}".into(),
        "{\"id\":\"a\",\"source_file\":\"\"}".into(),
        "{\"id\":\"a\",\"source_file\":\"../../../../../../../../no/such/file.md\"}".into(),
        "{\"id\":\"\\u0000\",\"source\":\"\\ud800\"}".into(),
        "\u{0}\u{1}".into(),
        "{\"id\":\"a\",\"source\":\"x\",\"expected\":null,\"expected\":[]}".into(),
    ];
    for text in &jsonl {
        let e = load_err(text);
        assert!(!e.message.is_empty(), "{text}");
    }
    let dir = tempfile::tempdir().unwrap();
    // A YAML alias bomb, a negative repeat, a list where a mapping belongs.
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\ncases: []\n";
    for (i, text) in [
        bomb,
        "repeat: -3\ncases: []\n",
        "cases: {id: a}\n",
        "execution: [1]\ncases: []\n",
        ": : :\n",
    ]
    .iter()
    .enumerate()
    {
        let p = write(dir.path(), &format!("h{i}.yaml"), text);
        assert!(load_dataset(&p).is_err(), "{text}");
    }
}

#[test]
fn relative_source_files_resolve_against_the_dataset_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "evals/sources/tea.md",
        "# Green tea\n\nSteep it at 80 degrees.\n",
    );
    let p = write(
        dir.path(),
        "evals/set.jsonl",
        "{\"id\":\"tea\",\"source_file\":\"sources/tea.md\"}\n",
    );
    let d = load_dataset(&p).unwrap();
    let case = &d.cases[0];
    assert_eq!(case.source.title.as_deref(), Some("Green tea"));
    assert!(case.source.text.contains("80 degrees"));
    assert!(case
        .source_file
        .as_ref()
        .unwrap()
        .ends_with("evals/sources/tea.md"));
}

#[test]
fn sidecar_defaults_and_per_case_overrides() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "set.yaml",
        "name: Kitchen notes\ndescription: small\nrepeat: 3\nexecution:\n  model: small-model\n  temperature: 0.5\nevaluators:\n  min_claims: 1\n  max_opinion_share: 0.5\n",
    );
    let p = write(
        dir.path(),
        "set.jsonl",
        "{\"id\":\"a\",\"source\":\"x y z\"}\n{\"id\":\"b\",\"source\":\"x y z w\",\"execution\":{\"model\":\"big-model\"},\"expected\":{\"min_claims\":4}}\n",
    );
    let d = load_dataset(&p).unwrap();
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.name, "Kitchen notes");
    assert_eq!(d.repeat, 3);
    let a = d.cases[0].execution.over(&d.execution);
    assert_eq!(a.model.as_deref(), Some("small-model"));
    assert_eq!(a.temperature, Some(0.5));
    let b = d.cases[1].execution.over(&d.execution);
    assert_eq!(b.model.as_deref(), Some("big-model"));
    assert_eq!(b.temperature, Some(0.5));
    assert_eq!(d.checks_for(&d.cases[0]).min_claims, Some(1));
    let checks_b = d.checks_for(&d.cases[1]);
    assert_eq!(checks_b.min_claims, Some(4));
    assert_eq!(checks_b.max_opinion_share, Some(0.5));
}

#[test]
fn the_sidecar_fields_load_as_written() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "ten.yaml",
        "dataset: hidden-ten\ndescription: Ten sources nobody has seen\nkind: articles\nexecution: {target: openai}\nevaluator: llm_judge\n",
    );
    let p = write(
        dir.path(),
        "ten.jsonl",
        "{\"id\":\"a\",\"source\":\"x y z\"}\n",
    );
    let d = load_dataset(&p).unwrap();
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.name, "hidden-ten");
    assert_eq!(d.description, "Ten sources nobody has seen");
    assert_eq!(d.kind, DatasetKind::Articles);
    assert_eq!(
        d.execution.target,
        Some(Target::Kind(wikimind::llm::ProviderKind::OpenAiCompatible))
    );
    assert_eq!(d.evaluator, Evaluator::LlmJudge);
    assert_eq!(d.evaluator_for(&d.cases[0]), Evaluator::LlmJudge);
    // Nothing said: the defaults.
    write(dir.path(), "ten.yaml", "");
    let d = load_dataset(&p).unwrap();
    assert_eq!(
        (d.name.as_str(), d.description.as_str(), d.kind, d.evaluator),
        ("ten", "", DatasetKind::Articles, Evaluator::LlmJudge)
    );
    assert_eq!(d.execution.target, None, "the configured provider");
    // `default` names the configured provider explicitly.
    write(dir.path(), "ten.yaml", "execution:\n  target: default\n");
    assert_eq!(
        load_dataset(&p).unwrap().execution.target,
        Some(Target::Default)
    );
}

#[test]
fn the_old_names_are_synonyms_but_not_both_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "old.jsonl",
        "{\"id\":\"a\",\"source\":\"x y z\",\"execution\":{\"provider\":\"ollama\"}}\n",
    );
    write(
        dir.path(),
        "old.yaml",
        "name: old-names\nexecution: {provider: openai}\nevaluators: {min_claims: 2}\n",
    );
    let d = load_dataset(&p).unwrap();
    assert_eq!(d.name, "old-names");
    assert_eq!(
        d.execution.target,
        Some(Target::Kind(wikimind::llm::ProviderKind::OpenAiCompatible))
    );
    assert_eq!(d.expected.min_claims, Some(2));
    assert_eq!(
        d.cases[0].execution.target,
        Some(Target::Kind(wikimind::llm::ProviderKind::Ollama))
    );
    write(dir.path(), "old.yaml", "name: a\ndataset: b\n");
    let e = load_dataset(&p).unwrap_err();
    assert!(e.to_string().contains("duplicate field `dataset`"), "{e}");
}

#[test]
fn a_line_wins_over_the_sidecar_which_wins_over_the_defaults() {
    use wikimind::llm::ProviderKind;
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "set.yaml",
        "execution: {target: openai, model: side-model, temperature: 0.5}\nevaluator: checks\nexpected: {min_claims: 1, max_claims: 9}\n",
    );
    let p = write(
        dir.path(),
        "set.jsonl",
        concat!(
            "{\"id\":\"plain\",\"source\":\"x y z\"}\n",
            "{\"id\":\"own\",\"source\":\"x y z\",\"evaluator\":\"llm_judge\",",
            "\"execution\":{\"target\":\"default\",\"model\":\"line-model\"},",
            "\"expected\":{\"min_claims\":3}}\n"
        ),
    );
    let d = load_dataset(&p).unwrap();
    let (plain, own) = (&d.cases[0], &d.cases[1]);
    assert_eq!(d.evaluator_for(plain), Evaluator::Checks);
    assert_eq!(d.evaluator_for(own), Evaluator::LlmJudge);
    let plain_exec = plain.execution.over(&d.execution);
    assert_eq!(
        plain_exec.target,
        Some(Target::Kind(ProviderKind::OpenAiCompatible))
    );
    assert_eq!(plain_exec.model.as_deref(), Some("side-model"));
    let own_exec = own.execution.over(&d.execution);
    assert_eq!(own_exec.target, Some(Target::Default));
    assert_eq!(own_exec.model.as_deref(), Some("line-model"));
    assert_eq!(own_exec.temperature, Some(0.5), "key by key");
    let checks = d.checks_for(own);
    assert_eq!((checks.min_claims, checks.max_claims), (Some(3), Some(9)));
}

#[test]
fn unknown_fields_and_names_are_refused_with_their_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "set.jsonl",
        "{\"id\":\"a\",\"source\":\"x y z\"}\n",
    );
    let sidecar_err = |text: &str| {
        write(dir.path(), "set.yaml", text);
        load_dataset(&p).unwrap_err()
    };
    for (text, line, want) in [
        (
            "dataset: x\ndescription: y\nevalutor: llm_judge\n",
            3,
            "unknown field `evalutor`",
        ),
        (
            "dataset: x\nexecution:\n  tagret: openai\n",
            3,
            "unknown field `tagret`",
        ),
        (
            "evaluator: gpt_judge\n",
            1,
            "unknown evaluator \"gpt_judge\" (known: llm_judge, checks)",
        ),
        (
            "dataset: x\nexecution: {target: bard}\n",
            2,
            "\"bard\" is not a provider",
        ),
        (
            "kind: questionz\n",
            1,
            "unknown kind \"questionz\" (expected articles or questions)",
        ),
        ("kind: recipes\n", 1, "unknown kind \"recipes\""),
    ] {
        let e = sidecar_err(text);
        assert!(e.path.ends_with("set.yaml"), "{text}: {e}");
        assert_eq!(e.line, Some(line), "{text}: {e}");
        assert!(e.to_string().contains(want), "{text}: {e}");
    }
    std::fs::remove_file(dir.path().join("set.yaml")).unwrap();
    let e = load_err("{\"id\":\"a\",\"source\":\"x y z\"}\n{\"id\":\"b\",\"source\":\"x y z\",\"evaluator\":\"gpt_judge\"}\n");
    assert_eq!(e.line, Some(2));
    assert!(
        e.to_string()
            .contains("d.jsonl: line 2: case \"b\": unknown evaluator \"gpt_judge\""),
        "{e}"
    );
    let e = load_err("{\"id\":\"a\",\"source\":\"x y z\",\"dataset\":\"x\"}\n");
    assert!(
        e.to_string().contains("line 1: unknown field \"dataset\""),
        "{e}"
    );
}

#[test]
fn a_bad_sidecar_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "set.yaml", "name: x\nrepeat: many\n");
    let p = write(dir.path(), "set.jsonl", "{\"id\":\"a\",\"source\":\"x\"}\n");
    let e = load_dataset(&p).unwrap_err();
    assert!(e.path.ends_with("set.yaml"), "{e}");
    assert_eq!(e.line, Some(2), "{e}");
    write(dir.path(), "set.yaml", "nmae: x\n");
    let e = load_dataset(&p).unwrap_err();
    assert!(e.to_string().contains("unknown field `nmae`"), "{e}");
}

#[test]
fn yaml_and_jsonl_datasets_load_to_the_same_cases() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "n.md", "# Note\n\nA note with words.\n");
    write(dir.path(), "j.yaml", "name: same\nrepeat: 2\n");
    let j = write(
        dir.path(),
        "j.jsonl",
        "{\"id\":\"one\",\"source\":\"Plain text here.\",\"expected\":{\"title_contains\":\"plain\"}}\n{\"id\":\"two\",\"source_file\":\"n.md\"}\n",
    );
    let y = write(
        dir.path(),
        "y.yml",
        "name: same\nrepeat: 2\ncases:\n  - id: one\n    source: Plain text here.\n    expected:\n      title_contains: plain\n  - id: two\n    source_file: n.md\n",
    );
    let (j, y) = (load_dataset(&j).unwrap(), load_dataset(&y).unwrap());
    assert_eq!(j.name, y.name);
    assert_eq!(j.repeat, y.repeat);
    assert_eq!(j.cases.len(), y.cases.len());
    for (a, b) in j.cases.iter().zip(&y.cases) {
        assert_eq!(
            (&a.id, &a.source, &a.expected),
            (&b.id, &b.source, &b.expected)
        );
    }
    let e = load_dataset(&write(dir.path(), "z.yaml", "name: x\n")).unwrap_err();
    assert!(e.to_string().contains("no `cases:` list"), "{e}");
    let e = load_dataset(&write(
        dir.path(),
        "w.yaml",
        "cases:\n  - id: a\n    source: x\n  - source: y\n",
    ))
    .unwrap_err();
    assert!(e.to_string().contains("cases[1]: missing `id`"), "{e}");
}

/// A question dataset `q.jsonl` holding `lines`, with the sidecar `sidecar`.
fn questions(dir: &Path, sidecar: &str, lines: &str) -> Result<Dataset, DatasetError> {
    write(dir, "q.yaml", sidecar);
    load_dataset(&write(dir, "q.jsonl", lines))
}

#[test]
fn a_question_dataset_loads_its_questions_and_facts() {
    let dir = tempfile::tempdir().unwrap();
    let d = questions(
        dir.path(),
        "dataset: coffee\ndescription: Coffee questions\nkind: questions\nexecution: {model: small}\n",
        concat!(
            "{\"id\":\"pressure\",\"question\":\"  How much pressure does espresso need?\\n\",\"expect\":[\"nine bars\",\" 93 °C \"]}\n",
            "\n",
            "{\"id\":\"open\",\"question\":\"What is crema?\",\"execution\":{\"model\":\"big\",\"prompt\":\"ask\"}}\n"
        ),
    )
    .unwrap();
    assert_eq!(d.kind, DatasetKind::Questions);
    assert_eq!(d.evaluator, Evaluator::Checks, "facts, not a judge");
    assert!(d.cases.is_empty());
    assert_eq!(d.len(), 2);
    let (a, b) = (&d.questions[0], &d.questions[1]);
    assert_eq!(a.question, "How much pressure does espresso need?");
    assert_eq!(a.expect, ["nine bars", "93 °C"]);
    assert_eq!(b.location, Location::Line(3));
    assert!(b.expect.is_empty(), "facts are optional");
    assert_eq!(b.execution.over(&d.execution).model.as_deref(), Some("big"));
    // The YAML form loads to the same questions.
    let y = write(
        dir.path(),
        "y.yaml",
        "kind: questions\ncases:\n  - id: pressure\n    question: How much pressure does espresso need?\n    expect: [nine bars, 93 °C]\n",
    );
    let y = load_dataset(&y).unwrap();
    assert_eq!(
        (&y.questions[0].question, &y.questions[0].expect),
        (&a.question, &a.expect)
    );
}

#[test]
fn bad_question_lines_are_refused_with_their_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let ok = "{\"id\":\"ok\",\"question\":\"What is crema?\"}\n";
    for (line, want) in [
        ("{\"id\":\"a\"}", "case \"a\": missing `question`"),
        ("{\"id\":\"a\",\"question\":\"  \"}", "`question` is empty"),
        (
            "{\"id\":\"a\",\"question\":7}",
            "`question` must be a string, not a number",
        ),
        ("{\"question\":\"Why?\"}", "missing `id`"),
        (
            "{\"id\":\"a\",\"question\":\"Why?\",\"expect\":\"nine bars\"}",
            "`expect` must be a list of facts, not a string",
        ),
        (
            "{\"id\":\"a\",\"question\":\"Why?\",\"expect\":[\"ok\",3]}",
            "`expect[1]` must be a string, not a number",
        ),
        (
            "{\"id\":\"a\",\"question\":\"Why?\",\"expect\":[\" ?! \"]}",
            "`expect[0]` has no words to look for",
        ),
        (
            "{\"id\":\"a\",\"question\":\"Why?\",\"source\":\"x\"}",
            "unknown field \"source\" (a question has: id, question, expect, execution)",
        ),
        (
            "{\"id\":\"a\",\"question\":\"Why?\",\"execution\":{\"prompt\":\"compile\"}}",
            "execution.prompt \"compile\" is not a known prompt for questions (known: ask, ask-v1)",
        ),
        (
            "{\"id\":\"ok\",\"question\":\"Again?\"}",
            "duplicate id \"ok\" (first used at line 1)",
        ),
        (
            "[\"What is crema?\"]",
            "a question must be a JSON object, not a list",
        ),
        ("{\"id\":\"a\",\"question\":\"Why?\"", "not valid JSON"),
    ] {
        let e = questions(dir.path(), "kind: questions\n", &format!("{ok}{line}\n")).unwrap_err();
        assert!(e.path.ends_with("q.jsonl"), "{line}: {e}");
        assert_eq!(e.line, Some(2), "{line}: {e}");
        assert!(
            e.to_string().contains("q.jsonl: line 2: ") && e.to_string().contains(want),
            "{line}: {e}"
        );
    }
    // What only articles have is refused in a question dataset's sidecar.
    for (sidecar, want) in [
        (
            "kind: questions\nevaluator: llm_judge\n",
            "evaluator llm_judge scores articles",
        ),
        (
            "kind: questions\nexpected: {min_claims: 1}\n",
            "`expected` holds article checks",
        ),
        (
            "kind: questions\nexecution: {prompt: compile-v2}\n",
            "not a known prompt for questions",
        ),
    ] {
        let e = questions(dir.path(), sidecar, ok).unwrap_err();
        assert!(e.path.ends_with("q.yaml"), "{sidecar}: {e}");
        assert!(e.to_string().contains(want), "{sidecar}: {e}");
    }
    assert!(questions(dir.path(), "kind: questions\nevaluator: checks\n", ok).is_ok());
    // A question written into an article dataset says what is missing.
    let e = questions(dir.path(), "dataset: x\n", ok).unwrap_err();
    assert!(
        e.to_string()
            .contains("unknown field \"question\" (a case has: id, source, source_file, title, expected, execution, evaluator); a question dataset says `kind: questions` in its sidecar"),
        "{e}"
    );
}
