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

mod load;
pub use load::{default_description, load_dataset, sidecar_path};

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

#[cfg(test)]
mod tests;
