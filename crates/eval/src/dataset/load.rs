//! Reading a dataset file (JSONL or YAML, with its sidecar): every case checked, every refusal naming the file, the line and the field.

use super::*;

/// Loads a dataset by its extension: `.jsonl` (with an optional sidecar `.yaml`/`.yml` of
/// the same base name) or `.yaml`/`.yml` (with a `cases:` list).
pub fn load_dataset(path: &Path) -> Result<Dataset, DatasetError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "jsonl" => load_jsonl(path),
        "yaml" | "yml" => load_yaml(path),
        _ => Err(DatasetError::file(
            path,
            "not a dataset: expected a .jsonl file (one case per line) or a .yaml/.yml file with a `cases:` list",
        )),
    }
}

fn read_file(path: &Path) -> Result<String, DatasetError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => DatasetError::file(path, "no such file"),
        _ => DatasetError::file(path, format!("cannot read: {e}")),
    })?;
    if !meta.is_file() {
        return Err(DatasetError::file(path, "not a file"));
    }
    if meta.len() > MAX_DATASET_BYTES {
        return Err(DatasetError::file(
            path,
            format!(
                "too large ({} bytes, limit {MAX_DATASET_BYTES})",
                meta.len()
            ),
        ));
    }
    let bytes =
        std::fs::read(path).map_err(|e| DatasetError::file(path, format!("cannot read: {e}")))?;
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.remove(0);
            }
            Ok(text)
        }
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            Err(DatasetError {
                path: path.to_path_buf(),
                line: Some(line),
                at: Some(format!("line {line}")),
                message: "not valid UTF-8 — save the file as UTF-8".into(),
            })
        }
    }
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into())
}

fn base_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The sidecar of a `.jsonl` dataset, if one exists.
pub fn sidecar_path(dataset: &Path) -> Option<PathBuf> {
    ["yaml", "yml"]
        .iter()
        .map(|ext| dataset.with_extension(ext))
        .find(|p| p.is_file())
}

/// The defaults used when there is no sidecar, in words.
pub fn default_description(name: &str) -> String {
    format!(
        "dataset {name:?} (the file name), no description, kind articles, target default \
         (your configured provider), evaluator llm_judge, repeat 1, prompt {PROMPT_VERSION}, \
         no checks; model, temperature and retries from your settings"
    )
}

/// Every YAML file of a dataset is read through [`wikimind::text::yaml`], which refuses
/// deep nesting before parsing it.
fn parse_yaml<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, DatasetError> {
    wikimind::text::yaml::from_str(text).map_err(|e| DatasetError {
        path: path.to_path_buf(),
        line: e.line,
        at: match (e.line, e.column) {
            (Some(line), Some(column)) => Some(format!("line {line}, column {column}")),
            (Some(line), None) => Some(format!("line {line}")),
            _ => None,
        },
        message: e.message,
    })
}

fn check_sidecar(path: &Path, sidecar: &Sidecar) -> Result<(), DatasetError> {
    let kind = sidecar.kind.unwrap_or_default();
    sidecar
        .execution
        .check(kind)
        .and_then(|_| sidecar.expected.check("expected"))
        .map_err(|m| DatasetError::file(path, m))?;
    if kind == DatasetKind::Questions {
        if sidecar.evaluator == Some(Evaluator::LlmJudge) {
            return Err(DatasetError::file(
                path,
                "evaluator llm_judge scores articles against their sources; a question \
                 dataset is checked against each question's `expect` facts (leave \
                 `evaluator` out, or write `checks`)",
            ));
        }
        if !sidecar.expected.is_empty() {
            return Err(DatasetError::file(
                path,
                "`expected` holds article checks; in a question dataset each question lists \
                 the facts its answer should hold in `expect`",
            ));
        }
    }
    if sidecar.repeat == Some(0) {
        return Err(DatasetError::file(path, "repeat must be at least 1"));
    }
    Ok(())
}

fn load_jsonl(path: &Path) -> Result<Dataset, DatasetError> {
    let text = read_file(path)?;
    let mut warnings = Vec::new();
    let (sidecar, sidecar_path) = match sidecar_path(path) {
        Some(sc) => {
            let sc_text = read_file(&sc)?;
            let parsed: Sidecar = if sc_text.trim().is_empty() {
                Sidecar::default()
            } else {
                parse_yaml(&sc, &sc_text)?
            };
            check_sidecar(&sc, &parsed)?;
            (parsed, Some(sc))
        }
        None => {
            warnings.push(format!(
                "no sidecar {} next to the dataset: using the defaults ({})",
                path.with_extension("yaml").display(),
                default_description(&file_stem(path))
            ));
            (Sidecar::default(), None)
        }
    };
    let dir = base_dir(path);
    let mut cases = Vec::new();
    let mut questions = Vec::new();
    let mut seen: HashMap<String, Location> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let at = Location::Line(i + 1);
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            DatasetError::at(
                path,
                &at,
                format!("not valid JSON: {}", strip_json_location(&e)),
            )
        })?;
        match sidecar.kind.unwrap_or_default() {
            DatasetKind::Articles => cases.push(read_case(path, &dir, at, value, &mut seen)?),
            DatasetKind::Questions => questions.push(read_question(path, at, value, &mut seen)?),
        }
    }
    finish(path, sidecar_path, sidecar, (cases, questions), warnings)
}

fn strip_json_location(e: &serde_json::Error) -> String {
    let m = e.to_string();
    match m.rfind(" at line ") {
        Some(i) => format!("{} (column {})", &m[..i], e.column()),
        None => m,
    }
}

fn load_yaml(path: &Path) -> Result<Dataset, DatasetError> {
    let text = read_file(path)?;
    /// The sidecar's fields and `cases:` (serde's `flatten` cannot be used with
    /// `deny_unknown_fields`).
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct YamlDataset {
        #[serde(default, alias = "name")]
        dataset: Option<String>,
        description: Option<String>,
        kind: Option<DatasetKind>,
        #[serde(default)]
        execution: Execution,
        evaluator: Option<Evaluator>,
        #[serde(default, alias = "evaluators")]
        expected: Expected,
        repeat: Option<u32>,
        cases: Option<Vec<Value>>,
    }
    let parsed: YamlDataset = parse_yaml(path, &text)?;
    let Some(items) = parsed.cases else {
        return Err(DatasetError::file(
            path,
            "no `cases:` list — a YAML dataset holds its cases under `cases:`",
        ));
    };
    let sidecar = Sidecar {
        dataset: parsed.dataset,
        description: parsed.description,
        kind: parsed.kind,
        execution: parsed.execution,
        evaluator: parsed.evaluator,
        expected: parsed.expected,
        repeat: parsed.repeat,
    };
    check_sidecar(path, &sidecar)?;
    let dir = base_dir(path);
    let mut seen = HashMap::new();
    let mut cases = Vec::new();
    let mut questions = Vec::new();
    for (i, value) in items.into_iter().enumerate() {
        let at = Location::Item(i);
        match sidecar.kind.unwrap_or_default() {
            DatasetKind::Articles => cases.push(read_case(path, &dir, at, value, &mut seen)?),
            DatasetKind::Questions => questions.push(read_question(path, at, value, &mut seen)?),
        }
    }
    finish(path, None, sidecar, (cases, questions), Vec::new())
}

fn finish(
    path: &Path,
    sidecar_path: Option<PathBuf>,
    sidecar: Sidecar,
    (cases, questions): (Vec<Case>, Vec<QuestionCase>),
    warnings: Vec<String>,
) -> Result<Dataset, DatasetError> {
    if cases.is_empty() && questions.is_empty() {
        return Err(DatasetError::file(path, "the dataset has no cases"));
    }
    let kind = sidecar.kind.unwrap_or_default();
    Ok(Dataset {
        path: path.to_path_buf(),
        sidecar_path,
        name: sidecar
            .dataset
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| file_stem(path)),
        description: sidecar.description.unwrap_or_default(),
        kind,
        repeat: sidecar.repeat.unwrap_or(1),
        execution: sidecar.execution,
        evaluator: sidecar.evaluator.unwrap_or(kind.default_evaluator()),
        expected: sidecar.expected,
        cases,
        questions,
        warnings,
    })
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

const CASE_FIELDS: &[&str] = &[
    "id",
    "source",
    "source_file",
    "title",
    "expected",
    "execution",
    "evaluator",
];

/// What one line of a dataset is: a case or a question.
struct Entry {
    /// `case` or `question`, for messages.
    what: &'static str,
    /// The fields it may have.
    fields: &'static [&'static str],
    /// The fields of the other kind, which get `hint` when met.
    others: &'static [&'static str],
    /// What to do about a field of the other kind.
    hint: &'static str,
}

/// A line as an object of `entry`'s fields, and its `id`: a line of another shape, an
/// unknown field (with the hint when it belongs to the other kind) or a missing or empty
/// id is refused where it stands.
fn entry_head(
    path: &Path,
    at: &Location,
    value: Value,
    entry: Entry,
) -> Result<(Map<String, Value>, String), DatasetError> {
    let err = |m: String| DatasetError::at(path, at, m);
    let Value::Object(mut obj) = value else {
        return Err(err(format!(
            "a {} must be a JSON object, not {}",
            entry.what,
            type_name(&value)
        )));
    };
    if let Some(unknown) = obj.keys().find(|k| !entry.fields.contains(&k.as_str())) {
        let hint = if entry.others.contains(&unknown.as_str()) {
            format!("; {}", entry.hint)
        } else {
            String::new()
        };
        return Err(err(format!(
            "unknown field {unknown:?} (a {} has: {}){hint}",
            entry.what,
            entry.fields.join(", ")
        )));
    }
    let id = match obj.remove("id") {
        None | Some(Value::Null) => return Err(err("missing `id`".into())),
        Some(Value::String(s)) if s.trim().is_empty() => return Err(err("`id` is empty".into())),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(err(format!(
                "`id` must be a string, not {}",
                type_name(&other)
            )))
        }
    };
    Ok((obj, id))
}

/// Refuses an id used before in the dataset, naming where.
fn unique_id(
    path: &Path,
    at: &Location,
    id: &str,
    seen: &HashMap<String, Location>,
) -> Result<(), DatasetError> {
    match seen.get(id) {
        Some(first) => Err(DatasetError::at(
            path,
            at,
            format!("duplicate id {id:?} (first used at {first})"),
        )),
        None => Ok(()),
    }
}

fn read_case(
    path: &Path,
    dir: &Path,
    at: Location,
    value: Value,
    seen: &mut HashMap<String, Location>,
) -> Result<Case, DatasetError> {
    let (mut obj, id) = entry_head(
        path,
        &at,
        value,
        Entry {
            what: "case",
            fields: CASE_FIELDS,
            others: QUESTION_FIELDS,
            hint: "a question dataset says `kind: questions` in its sidecar",
        },
    )?;
    let err = |m: String| DatasetError::at(path, &at, format!("case {id:?}: {m}"));
    let string_field = |obj: &mut Map<String, Value>, name: &str| match obj.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(err(format!(
            "`{name}` must be a string, not {}",
            type_name(&other)
        ))),
    };
    let source = string_field(&mut obj, "source")?;
    let source_file = string_field(&mut obj, "source_file")?;
    let title = string_field(&mut obj, "title")?;
    let expected: Expected = match obj.remove("expected") {
        None | Some(Value::Null) => Expected::default(),
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v).map_err(|e| err(format!("expected: {e}")))?
        }
        Some(other) => {
            return Err(err(format!(
                "`expected` must be an object, not {}",
                type_name(&other)
            )))
        }
    };
    expected.check("expected").map_err(err)?;
    let execution: Execution = match obj.remove("execution") {
        None | Some(Value::Null) => Execution::default(),
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v).map_err(|e| err(format!("execution: {e}")))?
        }
        Some(other) => {
            return Err(err(format!(
                "`execution` must be an object, not {}",
                type_name(&other)
            )))
        }
    };
    execution.check(DatasetKind::Articles).map_err(err)?;
    let evaluator = match obj.remove("evaluator") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(Evaluator::parse(&name).map_err(err)?),
        Some(other) => {
            return Err(err(format!(
                "`evaluator` must be a string, not {}",
                type_name(&other)
            )))
        }
    };
    unique_id(path, &at, &id, seen)?;
    let (ingested, resolved) = match (source, source_file) {
        (Some(_), Some(_)) => {
            return Err(err(
                "has both `source` and `source_file` — give one".into()
            ))
        }
        (None, None) => {
            return Err(err(
                "has no source — give `source` (the text) or `source_file` (a path relative to the dataset)".into(),
            ))
        }
        (Some(text), None) => (
            ingest::ingest_text(&text, title.as_deref()).map_err(|e| err(e.to_string()))?,
            None,
        ),
        (None, Some(file)) => {
            let resolved = dir.join(&file);
            let outside = || {
                err(format!(
                    "source_file {file:?} is outside the dataset's folder ({}): a dataset reads \
                     only files in its folder and below it — copy the file there",
                    dir.display()
                ))
            };
            if !stays_below(Path::new(&file)) {
                return Err(outside());
            }
            if !resolved.is_file() {
                return Err(err(format!(
                    "source_file {file:?} does not exist (looked for {})",
                    resolved.display()
                )));
            }
            // A symlink inside the folder may point out of it: where it leads counts.
            let real = resolved
                .canonicalize()
                .map_err(|e| err(format!("source_file {file:?}: {e}")))?;
            match dir.canonicalize() {
                Ok(real_dir) if real.starts_with(&real_dir) => {}
                _ => return Err(outside()),
            }
            let mut report = ingest::ingest_path(&real, &IngestOptions::default())
                .map_err(|e| err(format!("source_file {file:?}: {e}")))?;
            let Some(mut source) = report.sources.pop() else {
                return Err(err(format!("source_file {file:?}: nothing to read")));
            };
            if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
                source.title = Some(t);
            }
            (source, Some(resolved))
        }
    };
    seen.insert(id.clone(), at.clone());
    Ok(Case {
        id,
        location: at,
        source: ingested,
        source_file: resolved,
        expected,
        execution,
        evaluator,
    })
}

/// Whether `path`, taken relative to a folder, names something in that folder or below
/// it by its words alone: not absolute, no `..`, no drive or root (symlinks are checked
/// where they lead, after this).
fn stays_below(path: &Path) -> bool {
    use std::path::Component;
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

const QUESTION_FIELDS: &[&str] = &["id", "question", "expect", "execution"];

/// Reads one case of a question dataset: `{id, question, expect: [facts], execution}`.
fn read_question(
    path: &Path,
    at: Location,
    value: Value,
    seen: &mut HashMap<String, Location>,
) -> Result<QuestionCase, DatasetError> {
    let (mut obj, id) = entry_head(
        path,
        &at,
        value,
        Entry {
            what: "question",
            fields: QUESTION_FIELDS,
            others: CASE_FIELDS,
            hint: "its sidecar says `kind: questions`, and an article dataset leaves `kind` out",
        },
    )?;
    let err = |m: String| DatasetError::at(path, &at, format!("case {id:?}: {m}"));
    let question = match obj.remove("question") {
        None | Some(Value::Null) => return Err(err("missing `question`".into())),
        Some(Value::String(q)) if q.trim().is_empty() => {
            return Err(err("`question` is empty".into()))
        }
        Some(Value::String(q)) => q.trim().to_owned(),
        Some(other) => {
            return Err(err(format!(
                "`question` must be a string, not {}",
                type_name(&other)
            )))
        }
    };
    let expect = match obj.remove("expect") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut facts = Vec::new();
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    Value::String(fact) if crate::facts::fact_terms(&fact).is_empty() => {
                        return Err(err(format!(
                            "`expect[{i}]` has no words to look for: {fact:?}"
                        )))
                    }
                    Value::String(fact) => facts.push(fact.trim().to_owned()),
                    other => {
                        return Err(err(format!(
                            "`expect[{i}]` must be a string, not {}",
                            type_name(&other)
                        )))
                    }
                }
            }
            facts
        }
        Some(other) => {
            return Err(err(format!(
                "`expect` must be a list of facts, not {}",
                type_name(&other)
            )))
        }
    };
    let execution: Execution = match obj.remove("execution") {
        None | Some(Value::Null) => Execution::default(),
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v).map_err(|e| err(format!("execution: {e}")))?
        }
        Some(other) => {
            return Err(err(format!(
                "`execution` must be an object, not {}",
                type_name(&other)
            )))
        }
    };
    execution.check(DatasetKind::Questions).map_err(err)?;
    unique_id(path, &at, &id, seen)?;
    seen.insert(id.clone(), at.clone());
    Ok(QuestionCase {
        id,
        location: at,
        question,
        expect,
        execution,
    })
}
