//! Eval datasets: a `.jsonl` file of cases with an optional sidecar `.yaml` of defaults, or
//! one `.yaml`/`.yml` file holding the defaults and a `cases:` list. Both load to the same
//! [`Dataset`].
//!
//! A dataset is of one [`DatasetKind`]: `articles` (the default; each case a source to
//! compile, [`Case`]) or `questions` (the sidecar says `kind: questions`; each case a
//! question to ask the wiki, with the facts its answer should hold, [`QuestionCase`]).
//!
//! The sidecar's fields are `dataset` (or `name`), `description`, `kind`, `execution`
//! (with `target`, or `provider`), `evaluator`, `expected` (or `evaluators`) and `repeat`.
//! A field a case can carry too (`execution.*` key by key, `expected` check by check,
//! `evaluator`) is taken from the case, else from the sidecar, else from the defaults.
//!
//! Loading is strict: every case must be well formed, ids unique, every `source_file`
//! readable and inside the dataset's folder (no `..`, no absolute path, no symlink leading
//! out), or the whole dataset is refused with a [`DatasetError`] naming the file, the
//! line (or the case's position in a YAML list) and the problem. No partial datasets.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use wikimind::compile::templates::ASK;
use wikimind::compile::PROMPT_VERSION;
use wikimind::config::Target;
use wikimind::ingest::{self, IngestOptions, IngestedSource};

/// The largest dataset file read, in bytes (sources referenced by `source_file` have the
/// ingest limit).
pub const MAX_DATASET_BYTES: u64 = 64 * 1024 * 1024;

/// The prompt ids a case or sidecar of an article dataset may ask for.
pub const KNOWN_PROMPTS: &[&str] = &[wikimind::compile::templates::COMPILE, PROMPT_VERSION];

/// The prompt ids a case or sidecar of a dataset of `kind` may ask for: the compile
/// template for articles, the `ask` template (by id or its built-in version) for questions.
pub fn known_prompts(kind: DatasetKind) -> Vec<String> {
    match kind {
        DatasetKind::Articles => KNOWN_PROMPTS.iter().map(|p| p.to_string()).collect(),
        DatasetKind::Questions => vec![ASK.to_string(), ask_version()],
    }
}

/// The built-in `ask` template's version (`ask-v1`).
pub fn ask_version() -> String {
    wikimind::compile::PromptSet::builtin()
        .get(ASK)
        .version
        .clone()
}

/// A dataset that cannot be loaded: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}: {message}", .path.display(), .at.as_ref().map(|a| format!(": {a}")).unwrap_or_default())]
pub struct DatasetError {
    /// The file (the dataset or its sidecar).
    pub path: PathBuf,
    /// The line, from 1, when the problem is on one line of a `.jsonl` file.
    pub line: Option<usize>,
    /// Where in the file: `line 3`, `cases[2]`, `line 4, column 7`.
    pub at: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl DatasetError {
    pub(crate) fn file(path: &Path, message: impl Into<String>) -> DatasetError {
        DatasetError {
            path: path.to_path_buf(),
            line: None,
            at: None,
            message: message.into(),
        }
    }

    pub(crate) fn at(path: &Path, at: &Location, message: impl Into<String>) -> DatasetError {
        DatasetError {
            path: path.to_path_buf(),
            line: match at {
                Location::Line(n) => Some(*n),
                Location::Item(_) => None,
            },
            at: Some(at.to_string()),
            message: message.into(),
        }
    }
}

/// Where a case was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// A line of a `.jsonl` file, from 1.
    Line(usize),
    /// An index into a YAML dataset's `cases:` list, from 0.
    Item(usize),
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Item(i) => write!(f, "cases[{i}]"),
        }
    }
}

/// What the cases of a dataset are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DatasetKind {
    /// `articles`: each case is a source compiled into an article (the default).
    #[default]
    Articles,
    /// `questions`: each case is a question asked of the wiki of the data dir (and of its
    /// raw sources), with the facts its answer should hold.
    Questions,
}

impl DatasetKind {
    /// Reads a kind's name.
    pub fn parse(name: &str) -> Result<DatasetKind, String> {
        match name.trim() {
            "articles" => Ok(DatasetKind::Articles),
            "questions" => Ok(DatasetKind::Questions),
            other => Err(format!(
                "unknown kind {other:?} (expected articles or questions)"
            )),
        }
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetKind::Articles => "articles",
            DatasetKind::Questions => "questions",
        }
    }

    /// How a case that names no evaluator is judged: `llm_judge` for articles, `checks`
    /// (the expected facts) for questions.
    pub fn default_evaluator(self) -> Evaluator {
        match self {
            DatasetKind::Articles => Evaluator::LlmJudge,
            DatasetKind::Questions => Evaluator::Checks,
        }
    }
}

/// How the articles of a case are judged, beside its `expected` checks (which always run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Evaluator {
    /// `llm_judge`: a model scores the article against its source on a rubric (the
    /// default).
    #[default]
    LlmJudge,
    /// `checks`: the `expected` checks only, no model call.
    Checks,
}

impl Evaluator {
    /// Every evaluator, by name.
    pub const ALL: [Evaluator; 2] = [Evaluator::LlmJudge, Evaluator::Checks];

    /// Reads an evaluator's name.
    pub fn parse(name: &str) -> Result<Evaluator, String> {
        Evaluator::ALL
            .into_iter()
            .find(|e| e.as_str() == name.trim())
            .ok_or_else(|| {
                let known: Vec<&str> = Evaluator::ALL.iter().map(|e| e.as_str()).collect();
                format!("unknown evaluator {name:?} (known: {})", known.join(", "))
            })
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Evaluator::LlmJudge => "llm_judge",
            Evaluator::Checks => "checks",
        }
    }
}

/// Serialises `DatasetKind` and `Evaluator` by name and reads them with their `parse`, so a
/// bad name in a sidecar is refused with its line.
macro_rules! by_name {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let name = String::deserialize(d)?;
                <$t>::parse(&name).map_err(serde::de::Error::custom)
            }
        }
    };
}

by_name!(DatasetKind);
by_name!(Evaluator);

/// How to run a case: every field optional, filled by precedence (command-line flags, then
/// the case, then the sidecar, then your settings and the built-in defaults).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Execution {
    /// The provider, as `--provider` names it ([`Target::parse`]): `default` (the
    /// configured primary), `ollama`, `openai` or `builtin`. `provider` is a synonym.
    #[serde(
        default,
        rename = "target",
        alias = "provider",
        skip_serializing_if = "Option::is_none"
    )]
    pub target: Option<Target>,
    /// The server's base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The model to ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The prompt id: `compile` for articles, `ask` for questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// The answer budget in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Retries after an invalid answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

impl Execution {
    /// Each field from `self` when set, else from `lower`.
    pub fn over(&self, lower: &Execution) -> Execution {
        Execution {
            target: self.target.or(lower.target),
            base_url: self.base_url.clone().or_else(|| lower.base_url.clone()),
            model: self.model.clone().or_else(|| lower.model.clone()),
            prompt: self.prompt.clone().or_else(|| lower.prompt.clone()),
            temperature: self.temperature.or(lower.temperature),
            max_tokens: self.max_tokens.or(lower.max_tokens),
            retries: self.retries.or(lower.retries),
        }
    }

    fn check(&self, kind: DatasetKind) -> Result<(), String> {
        if let Some(p) = &self.prompt {
            let known = known_prompts(kind);
            if !known.contains(p) {
                return Err(format!(
                    "execution.prompt {p:?} is not a known prompt for {} (known: {})",
                    kind.as_str(),
                    known.join(", ")
                ));
            }
        }
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(format!(
                    "execution.temperature {t} is out of range (0 to 2)"
                ));
            }
        }
        if let Some(m) = &self.model {
            if m.trim().is_empty() {
                return Err("execution.model is empty".into());
            }
        }
        if self.max_tokens == Some(0) {
            return Err("execution.max_tokens must be at least 1".into());
        }
        Ok(())
    }
}

/// Checks an article must pass. Every field optional; a case's own `expected` wins over the
/// sidecar's `expected`, key by key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// The title contains this text (ignoring case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_contains: Option<String>,
    /// At least this many key claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_claims: Option<u32>,
    /// At most this many key claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_claims: Option<u32>,
    /// Each of these is mentioned (ignoring case) in the concepts, title, summary or body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub must_mention_concepts: Option<Vec<String>>,
    /// At most this share (0 to 1) of the claims is labelled `opinion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_opinion_share: Option<f64>,
    /// At least this share (0 to 1) of the claims labelled `sourced` has its quote found in
    /// the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_grounded_rate: Option<f64>,
}

impl Expected {
    /// Each check from `self` when set, else from `lower`.
    pub fn over(&self, lower: &Expected) -> Expected {
        Expected {
            title_contains: self
                .title_contains
                .clone()
                .or_else(|| lower.title_contains.clone()),
            min_claims: self.min_claims.or(lower.min_claims),
            max_claims: self.max_claims.or(lower.max_claims),
            must_mention_concepts: self
                .must_mention_concepts
                .clone()
                .or_else(|| lower.must_mention_concepts.clone()),
            max_opinion_share: self.max_opinion_share.or(lower.max_opinion_share),
            min_grounded_rate: self.min_grounded_rate.or(lower.min_grounded_rate),
        }
    }

    /// Whether no check is set.
    pub fn is_empty(&self) -> bool {
        *self == Expected::default()
    }

    fn check(&self, what: &str) -> Result<(), String> {
        for (name, v) in [
            ("max_opinion_share", self.max_opinion_share),
            ("min_grounded_rate", self.min_grounded_rate),
        ] {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return Err(format!("{what}.{name} {v} is not a share between 0 and 1"));
                }
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_claims, self.max_claims) {
            if lo > hi {
                return Err(format!(
                    "{what}.min_claims {lo} is more than {what}.max_claims {hi}"
                ));
            }
        }
        Ok(())
    }
}

/// Dataset-wide settings: the sidecar of a `.jsonl` dataset, or the top of a YAML dataset.
/// The names it had before are synonyms: `name` for `dataset`, `evaluators` for `expected`,
/// `execution.provider` for `execution.target`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sidecar {
    /// The dataset's name (default: the file name without its extension).
    #[serde(default, alias = "name")]
    pub dataset: Option<String>,
    /// What the dataset is for (default: empty).
    #[serde(default)]
    pub description: Option<String>,
    /// What the cases are (default: `articles`).
    #[serde(default)]
    pub kind: Option<DatasetKind>,
    /// How to run every case (`target` default: `default`, the configured provider).
    #[serde(default)]
    pub execution: Execution,
    /// How every case is judged (default: `llm_judge`).
    #[serde(default)]
    pub evaluator: Option<Evaluator>,
    /// Checks applied to every case (the keys of a case's `expected`).
    #[serde(default, alias = "evaluators")]
    pub expected: Expected,
    /// How many times to run each case (default 1).
    #[serde(default)]
    pub repeat: Option<u32>,
}

/// One case of a dataset, its source read and ready to compile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The case's unique id.
    pub id: String,
    /// Where it was written.
    pub location: Location,
    /// The source, read as `wikimind ingest` would read it.
    pub source: IngestedSource,
    /// The file the source came from, resolved against the dataset's folder.
    pub source_file: Option<PathBuf>,
    /// The case's own checks (not merged with the sidecar's).
    pub expected: Expected,
    /// The case's own execution overrides.
    pub execution: Execution,
    /// The case's own evaluator, if it names one.
    pub evaluator: Option<Evaluator>,
}

/// One case of a question dataset: a question to ask the wiki, and what its answer should
/// say.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionCase {
    /// The case's unique id.
    pub id: String,
    /// Where it was written.
    pub location: Location,
    /// The question, trimmed.
    pub question: String,
    /// The facts a good answer holds, each a short phrase (see [`super::facts`] for when
    /// one counts as found).
    pub expect: Vec<String>,
    /// The case's own execution overrides.
    pub execution: Execution,
}

/// A loaded dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dataset {
    /// The dataset file.
    pub path: PathBuf,
    /// The sidecar read, if any.
    pub sidecar_path: Option<PathBuf>,
    /// Its name.
    pub name: String,
    /// What it is for (empty when the sidecar does not say).
    pub description: String,
    /// What its cases are.
    pub kind: DatasetKind,
    /// Runs per case.
    pub repeat: u32,
    /// Defaults for every case's execution.
    pub execution: Execution,
    /// How a case that names no evaluator is judged (the sidecar's, else `llm_judge`).
    pub evaluator: Evaluator,
    /// Checks applied to every case.
    pub expected: Expected,
    /// The cases of an article dataset, in file order (empty for questions).
    pub cases: Vec<Case>,
    /// The cases of a question dataset, in file order (empty for articles).
    pub questions: Vec<QuestionCase>,
    /// Things a person should know (a missing sidecar).
    pub warnings: Vec<String>,
}

impl Dataset {
    /// How many cases it has, of its kind.
    pub fn len(&self) -> usize {
        self.cases.len() + self.questions.len()
    }

    /// Whether it has no case (a loaded dataset always has one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The checks of a case: its own `expected` over the dataset's.
    pub fn checks_for(&self, case: &Case) -> Expected {
        case.expected.over(&self.expected)
    }

    /// How a case is judged: its own evaluator, else the dataset's.
    pub fn evaluator_for(&self, case: &Case) -> Evaluator {
        case.evaluator.unwrap_or(self.evaluator)
    }
}

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

fn parse_yaml<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, DatasetError> {
    serde_yaml_ng::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!("line {}, column {}", l.line(), l.column()));
        DatasetError {
            path: path.to_path_buf(),
            line: e.location().map(|l| l.line()),
            at,
            message: strip_yaml_location(&e.to_string()),
        }
    })
}

/// serde_yaml appends " at line L column C"; the location is reported separately.
fn strip_yaml_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
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
                    Value::String(fact) if super::facts::fact_terms(&fact).is_empty() => {
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

#[cfg(test)]
mod tests {
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
            ("{\"id\":\"a\",\"question\":7}", "`question` must be a string, not a number"),
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
            ("{\"id\":\"ok\",\"question\":\"Again?\"}", "duplicate id \"ok\" (first used at line 1)"),
            ("[\"What is crema?\"]", "a question must be a JSON object, not a list"),
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
}
