//! What an eval will run before it runs: the options, the execution and judge each case resolves to, the planned runs, and the servers checked up front.

use super::*;
use wikimind::compile::templates::{PromptSet, JUDGE};

/// What the person asked for on the command line (or in the app) for this eval.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    /// `--provider`: wins over the dataset.
    pub provider: Option<String>,
    /// `--base-url`: wins over the dataset.
    pub base_url: Option<String>,
    /// `--model`, repeatable: every case runs once per model. Empty: the model of each case
    /// (case, then sidecar, then settings).
    pub models: Vec<String>,
    /// `--repeat`: runs per case and model (default: the sidecar's `repeat`, else 1).
    pub repeat: Option<u32>,
    /// `--concurrency`: compiles at once (default: the settings' compile concurrency).
    pub concurrency: Option<usize>,
    /// `--compare-freeform`: also ask each model for a free-form markdown article of each
    /// source, to compare output tokens.
    pub compare_freeform: bool,
    /// `--judge-provider`: the `llm_judge` evaluator's provider (wins over the settings'
    /// `[eval] judge_provider`).
    pub judge_provider: Option<String>,
    /// `--judge-base-url`: the judge's server (wins over `[eval] judge_base_url`).
    pub judge_base_url: Option<String>,
    /// `--judge-model`: the judge's model (wins over `[eval] judge_model`).
    pub judge_model: Option<String>,
    /// `--allow-dataset-servers`: let the dataset's `execution.base_url` name a server
    /// other than the configured ones (see [`check_dataset_servers`]).
    pub allow_dataset_servers: bool,
}

/// How one run is executed, every setting resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedExecution {
    /// The wire protocol.
    #[serde(serialize_with = "kind_name")]
    pub provider: ProviderKind,
    /// The server.
    pub base_url: String,
    /// The model.
    pub model: String,
    /// The prompt id.
    pub prompt: String,
    /// Sampling temperature.
    pub temperature: f32,
    /// The answer budget in tokens.
    pub max_tokens: u32,
    /// Retries after an invalid answer.
    pub retries: u32,
}

fn kind_name<S: serde::Serializer>(kind: &ProviderKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

impl ResolvedExecution {
    /// `ollama:qwen2.5:3b`: how reports name the model.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider.as_str(), self.model)
    }
}

/// Resolves one run's execution: `flags` over `case` over `sidecar` over the person's
/// settings (config file, environment) and the built-in defaults.
pub fn resolve_execution(
    flags: &Execution,
    case: &Execution,
    sidecar: &Execution,
    settings: &Settings,
) -> Result<ResolvedExecution, EvalError> {
    let merged = flags.over(&case.over(sidecar));
    let primary = settings.provider();
    let provider = match merged.target {
        Some(Target::Kind(kind)) => kind,
        Some(Target::Default) | None => primary.kind,
    };
    let same_kind = provider == primary.kind;
    let base_url = merged.base_url.unwrap_or_else(|| {
        if same_kind {
            primary.base_url.clone()
        } else {
            default_url(provider).to_string()
        }
    });
    let model = merged.model.unwrap_or_else(|| {
        if same_kind {
            primary.model.clone()
        } else {
            default_model(provider).to_string()
        }
    });
    Ok(ResolvedExecution {
        provider,
        base_url,
        model,
        prompt: merged
            .prompt
            .unwrap_or_else(|| wikimind::compile::PROMPT_VERSION.to_string()),
        temperature: merged.temperature.unwrap_or(settings.compile.temperature),
        max_tokens: merged.max_tokens.unwrap_or(settings.compile.max_tokens),
        retries: merged.retries.unwrap_or(settings.compile.retries),
    })
}

/// Reads a provider flag by [`Target::parse`], naming the flag when it is wrong.
fn target_flag(name: Option<&str>, flag: &str) -> Result<Option<Target>, EvalError> {
    name.map(|n| {
        Target::parse(n).ok_or_else(|| {
            EvalError::Invalid(format!(
                "{flag} {n:?}: unknown provider (expected {})",
                Target::EXPECTED
            ))
        })
    })
    .transpose()
}

/// Resolves the `llm_judge` evaluator of one run: the judge flags over the settings'
/// `[eval]` table, over the run's own compile (its provider, server and model). A judge
/// provider of another kind than the run's gets that kind's default server and model, and
/// `default` the configured primary's, as `--provider` does; the table's server and model
/// apply only while its provider is the judge's (a flag naming another kind does not take
/// them along). The judge asks at temperature 0 with the run's answer budget and retries,
/// and records the `judge` template's version as its prompt.
pub fn resolve_judge(
    options: &EvalOptions,
    settings: &Settings,
    run: &ResolvedExecution,
) -> Result<ResolvedExecution, EvalError> {
    let primary = settings.provider();
    let kind_of = |target: Option<Target>| match target {
        None => run.provider,
        Some(Target::Default) => primary.kind,
        Some(Target::Kind(kind)) => kind,
    };
    let table = &settings.eval;
    let target = target_flag(options.judge_provider.as_deref(), "--judge-provider")?
        .or(table.judge_provider);
    let table_applies = kind_of(table.judge_provider) == kind_of(target);
    let base_url = options
        .judge_base_url
        .clone()
        .or_else(|| table.judge_base_url.clone().filter(|_| table_applies));
    let model = options
        .judge_model
        .clone()
        .or_else(|| table.judge_model.clone().filter(|_| table_applies));
    let (provider, lower_url, lower_model) = match target {
        None => (run.provider, run.base_url.clone(), run.model.clone()),
        Some(Target::Kind(kind)) if kind == run.provider => {
            (kind, run.base_url.clone(), run.model.clone())
        }
        Some(Target::Kind(kind)) => (
            kind,
            default_url(kind).to_string(),
            default_model(kind).to_string(),
        ),
        Some(Target::Default) => (
            primary.kind,
            primary.base_url.clone(),
            primary.model.clone(),
        ),
    };
    Ok(ResolvedExecution {
        provider,
        base_url: base_url.unwrap_or(lower_url),
        model: model.unwrap_or(lower_model),
        prompt: PromptSet::builtin().get(JUDGE).version.clone(),
        temperature: 0.0,
        max_tokens: run.max_tokens,
        retries: run.retries,
    })
}

/// One run to make: a case, a repetition, and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedRun {
    /// Index of the case in the dataset (in `questions` for a question dataset).
    pub case_index: usize,
    /// The repetition, from 1.
    pub repeat: u32,
    /// How it runs.
    pub execution: ResolvedExecution,
    /// How its article is judged.
    pub evaluator: Evaluator,
    /// The judge, for the `llm_judge` evaluator.
    pub judge: Option<ResolvedExecution>,
}

/// Every run of an eval, model by model (a local server then loads each model once), case
/// by case, repetition by repetition.
pub fn plan_runs(
    dataset: &Dataset,
    settings: &Settings,
    options: &EvalOptions,
) -> Result<Vec<PlannedRun>, EvalError> {
    let repeat = options.repeat.unwrap_or(dataset.repeat);
    if repeat == 0 {
        return Err(EvalError::Invalid("--repeat must be at least 1".into()));
    }
    let models: Vec<Option<String>> = if options.models.is_empty() {
        vec![None]
    } else {
        options.models.iter().cloned().map(Some).collect()
    };
    check_dataset_servers(dataset, settings, options)?;
    let target = target_flag(options.provider.as_deref(), "--provider")?;
    // Each case's own execution and evaluator; a question is asked with the `ask` template
    // and checked against its facts.
    let cases: Vec<(&Execution, Evaluator)> = match dataset.kind {
        DatasetKind::Articles => dataset
            .cases
            .iter()
            .map(|c| (&c.execution, dataset.evaluator_for(c)))
            .collect(),
        DatasetKind::Questions => dataset
            .questions
            .iter()
            .map(|q| (&q.execution, Evaluator::Checks))
            .collect(),
    };
    let sidecar = match dataset.kind {
        DatasetKind::Questions if dataset.execution.prompt.is_none() => Execution {
            prompt: Some(crate::dataset::ask_version()),
            ..dataset.execution.clone()
        },
        _ => dataset.execution.clone(),
    };
    let mut runs = Vec::new();
    for model in &models {
        let flags = Execution {
            target,
            base_url: options.base_url.clone(),
            model: model.clone(),
            ..Execution::default()
        };
        for (case_index, (case_execution, evaluator)) in cases.iter().enumerate() {
            let execution = resolve_execution(&flags, case_execution, &sidecar, settings)?;
            let evaluator = *evaluator;
            let judge = match evaluator {
                Evaluator::LlmJudge => Some(resolve_judge(options, settings, &execution)?),
                Evaluator::Checks => None,
            };
            for r in 1..=repeat {
                runs.push(PlannedRun {
                    case_index,
                    repeat: r,
                    execution: execution.clone(),
                    evaluator,
                    judge: judge.clone(),
                });
            }
        }
    }
    Ok(runs)
}

/// Refuses a dataset whose `execution.base_url` (in its sidecar or a case) names a server
/// other than the configured ones, unless the person allowed it
/// ([`EvalOptions::allow_dataset_servers`]): a shared dataset must not send its sources to
/// a server its author picks. The configured servers are the settings' providers, the
/// `[eval]` judge's, the `--base-url` and `--judge-base-url` flags, and each provider
/// kind's built-in default; `--base-url` overrides every dataset server, so with it there
/// is nothing to check. Servers compare by scheme, host, port and path (case and a
/// trailing `/` aside).
pub fn check_dataset_servers(
    dataset: &Dataset,
    settings: &Settings,
    options: &EvalOptions,
) -> Result<(), EvalError> {
    if options.allow_dataset_servers || options.base_url.is_some() {
        return Ok(());
    }
    let kinds = [
        ProviderKind::Ollama,
        ProviderKind::OpenAiCompatible,
        ProviderKind::Builtin,
    ];
    let configured: Vec<String> = settings
        .providers
        .iter()
        .map(|p| p.base_url.as_str())
        .chain(settings.eval.judge_base_url.as_deref())
        .chain(options.judge_base_url.as_deref())
        .chain(kinds.iter().map(|&k| default_url(k)))
        .filter(|u| !u.trim().is_empty())
        .map(server_key)
        .collect();
    let foreign = |execution: &Execution| {
        execution
            .base_url
            .as_deref()
            .filter(|u| !configured.contains(&server_key(u)))
            .map(|u| {
                let yours: Vec<&str> = settings
                    .providers
                    .iter()
                    .map(|p| p.base_url.as_str())
                    .filter(|u| !u.is_empty())
                    .collect();
                format!(
                    "execution.base_url {u:?} is not a server you configured (yours: {}): a \
                     dataset may not send its sources elsewhere — pass --allow-dataset-servers \
                     if you trust it",
                    if yours.is_empty() {
                        "none".to_string()
                    } else {
                        yours.join(", ")
                    }
                )
            })
    };
    if let Some(message) = foreign(&dataset.execution) {
        let file = dataset.sidecar_path.as_ref().unwrap_or(&dataset.path);
        return Err(DatasetError::file(file, message).into());
    }
    let cases = dataset
        .cases
        .iter()
        .map(|c| (&c.id, &c.location, &c.execution))
        .chain(
            dataset
                .questions
                .iter()
                .map(|q| (&q.id, &q.location, &q.execution)),
        );
    for (id, location, execution) in cases {
        if let Some(message) = foreign(execution) {
            return Err(DatasetError::at(
                &dataset.path,
                location,
                format!("case {id:?}: {message}"),
            )
            .into());
        }
    }
    Ok(())
}

/// A server's URL as servers compare: scheme, host and port (the scheme's default when
/// none is written), path without a trailing `/`, all lowercase; an unparsable URL as
/// written, trimmed.
fn server_key(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(u) => format!(
            "{}://{}:{}{}",
            u.scheme(),
            u.host_str().unwrap_or_default(),
            u.port_or_known_default().unwrap_or_default(),
            u.path().trim_end_matches('/')
        )
        .to_lowercase(),
        Err(_) => url.trim().trim_end_matches('/').to_lowercase(),
    }
}
