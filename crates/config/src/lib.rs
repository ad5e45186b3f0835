//! Settings: defaults, then the config file, then `WIKIMIND_*` environment variables, then
//! flags. This is the one crate that reads the environment (the app re-exports it as
//! `wikimind::config`).
//!
//! Resolution happens in two phases (what the person said, then what is used):
//! [`Overrides`] holds the flags; [`Settings::resolve`] layers them over the environment and
//! the file, and takes both as arguments so tests pass strings, not files.
#![deny(missing_docs)]

mod save;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use wikimind_llm::{
    key_id, ollama_base_from_host, stored_key, KeyStore, KeyStoreError, NoKeyStore, ProviderKind,
    Secret, DEFAULT_OLLAMA_URL,
};

/// The model asked for when nothing else is configured: small, instruction-tuned, on Ollama.
pub const DEFAULT_OLLAMA_MODEL: &str = "qwen2.5:3b";
/// The base URL of an OpenAI-compatible server when none is configured (llama.cpp's port).
pub const DEFAULT_OPENAI_URL: &str = "http://127.0.0.1:8080/v1";
/// The model name sent to an OpenAI-compatible server when none is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "default";
/// The model file the built-in engine uses when none is named: SmolLM2-135M-Instruct, as
/// `scripts/fetch-model.sh` saves it in the model directory.
pub const DEFAULT_BUILTIN_MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// The config file name inside the config directory.
pub const CONFIG_FILE: &str = "config.toml";

/// A settings problem, naming the file or variable and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error("cannot read the config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config file is not valid TOML or has unknown or mistyped keys.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What is wrong and where.
        message: String,
    },
    /// The config file could not be written.
    #[error("cannot write the config file {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A value (flag, variable or file entry) is not acceptable.
    #[error("{what}: {message}")]
    Invalid {
        /// Which setting, and where it came from.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// No data directory can be found.
    #[error("no data directory: set --data-dir or WIKIMIND_DATA_DIR (HOME is not set)")]
    NoDataDir,
    /// An API key could not be stored.
    #[error("{0} — set WIKIMIND_API_KEY instead (it applies to the primary provider only)")]
    KeyStore(#[from] KeyStoreError),
}

/// One model server to compile with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderConfig {
    /// The wire protocol.
    #[serde(serialize_with = "kind_name")]
    pub kind: ProviderKind,
    /// The server's base URL; for the built-in engine, the model file's path.
    pub base_url: String,
    /// The model to ask; for the built-in engine, the model file's name.
    pub model: String,
    /// The API key sent to this server, as [`Settings::with_keys`] resolved it (it never
    /// prints, and never goes into a file).
    #[serde(skip)]
    pub api_key: Option<Secret>,
    /// How many calls a pool sends this server at once (a `[[pool]]` member's
    /// `concurrency`, at least 1); 1 for a provider outside a pool, where
    /// `compile.concurrency` applies instead.
    pub concurrency: usize,
}

fn kind_name<S: serde::Serializer>(kind: &ProviderKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

/// When topics get pages (the config file's `[pages]` table).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PageSettings {
    /// A concept or link target gets a page of its own once the digests of this many
    /// sources name it (at least 1). Raising it later keeps the pages that exist.
    pub min_sources: u32,
}

impl Default for PageSettings {
    fn default() -> Self {
        PageSettings {
            min_sources: wikimind_store::DEFAULT_MIN_SOURCES,
        }
    }
}

/// Which provider something runs on: the configured primary, or a kind of provider with
/// that kind's defaults. `--provider`, an eval dataset's `execution.target` and
/// `[eval] judge_provider` all name one with [`Target::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// `default`: the configured primary provider.
    Default,
    /// A kind of provider, as [`ProviderKind::parse`] reads its name.
    Kind(ProviderKind),
}

impl Target {
    /// The names a target may have: `default`, or a provider kind's name
    /// ([`ProviderKind::parse`]), ignoring case.
    pub fn parse(name: &str) -> Option<Target> {
        if name.trim().eq_ignore_ascii_case("default") {
            Some(Target::Default)
        } else {
            ProviderKind::parse(name).map(Target::Kind)
        }
    }

    /// Its name: `default`, `ollama`, `openai` or `builtin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Default => "default",
            Target::Kind(kind) => kind.as_str(),
        }
    }

    /// The names [`Target::parse`] accepts, for messages.
    pub const EXPECTED: &'static str = "default, ollama, openai or builtin";
}

impl Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        let name = String::deserialize(d)?;
        Target::parse(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{name:?} is not a provider (expected {})",
                Target::EXPECTED
            ))
        })
    }
}

/// How `wikimind eval` judges articles (the config file's `[eval]` table). Every field is
/// optional: by default the judge is the model that compiled the article, on its server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalSettings {
    /// The judge's provider, named as [`Target::parse`] reads it (`default` is the
    /// configured primary).
    pub judge_provider: Option<Target>,
    /// The judge's server.
    pub judge_base_url: Option<String>,
    /// The judge's model.
    pub judge_model: Option<String>,
}

pub use wikimind_engine::call::CompileSettings;

/// Settings as resolved, ready to use.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    /// Where the wiki lives.
    pub data_dir: PathBuf,
    /// The provider to compile with first, then the fallbacks in order; or, when
    /// [`Settings::pool`] is set, the members of the pool in the file's order.
    pub providers: Vec<ProviderConfig>,
    /// Whether `providers` are the members of a pool (the config file's `[[pool]]` tables)
    /// rather than a primary and its fallbacks: the job runner then spreads jobs over them
    /// (the app's `queue::pool`).
    pub pool: bool,
    /// How compiles run.
    pub compile: CompileSettings,
    /// When topics get pages.
    pub pages: PageSettings,
    /// How evals judge articles.
    pub eval: EvalSettings,
    /// The config file that was read, if any.
    pub config_file: Option<PathBuf>,
    /// Where model files for the built-in engine live ([`model_dir`]).
    pub model_dir: Option<PathBuf>,
    /// `WIKIMIND_API_KEY` as read when these settings were resolved, bound to the server
    /// the primary provider had then.
    #[serde(skip)]
    env_key: Option<EnvKey>,
}

/// `WIKIMIND_API_KEY` and the one server it belongs to: the primary provider's base URL
/// (its [`key_id`]) when the settings were resolved.
#[derive(Debug, Clone, PartialEq)]
struct EnvKey {
    server: String,
    key: Secret,
}

/// What the person said on the command line (or in the app) for this run.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
    /// `--provider` (`ollama` or `openai`).
    pub provider: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--model-path`: the GGUF file for the built-in engine.
    pub model_path: Option<PathBuf>,
    /// `--concurrency`.
    pub concurrency: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    data_dir: Option<PathBuf>,
    provider: Option<FileProvider>,
    #[serde(default)]
    fallback: Vec<FileProvider>,
    #[serde(default)]
    pool: Vec<FilePoolMember>,
    #[serde(default)]
    compile: CompileSettings,
    #[serde(default)]
    pages: PageSettings,
    #[serde(default)]
    eval: EvalSettings,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProvider {
    kind: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
    model_path: Option<PathBuf>,
}

/// One `[[pool]]` table: a server of the pool.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePoolMember {
    kind: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
    model_path: Option<PathBuf>,
    concurrency: Option<usize>,
}

impl Settings {
    /// Resolves settings from the real environment and config file, with every provider's
    /// API key from `keys` (the OS keyring) as [`Settings::with_keys`] says.
    pub fn load(overrides: &Overrides, keys: &dyn KeyStore) -> Result<Settings, ConfigError> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let path = config_path(&env);
        let text = match &path {
            Some(p) => match std::fs::read_to_string(p) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(source) => {
                    return Err(ConfigError::Read {
                        path: p.clone(),
                        source,
                    })
                }
            },
            None => None,
        };
        let file = text
            .as_deref()
            .map(|t| (path.as_deref().unwrap_or(Path::new(CONFIG_FILE)), t));
        Ok(Settings::resolve(overrides, &env, file)?.with_keys(keys))
    }

    /// Resolves settings from flags, an environment lookup and an optional config file
    /// (its path, for messages, and its text). No key store is asked: the primary provider
    /// has `WIKIMIND_API_KEY` when it is set, the others no key ([`Settings::with_keys`]
    /// adds the stored ones).
    pub fn resolve(
        overrides: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
        file: Option<(&Path, &str)>,
    ) -> Result<Settings, ConfigError> {
        let parsed: FileConfig = match file {
            Some((path, text)) => toml::from_str(text).map_err(|e| ConfigError::Parse {
                path: path.display().to_string(),
                message: e.message().to_string() + &location(text, e.span()),
            })?,
            None => FileConfig::default(),
        };
        let file_name = file
            .map(|(p, _)| p.display().to_string())
            .unwrap_or_default();
        if !parsed.pool.is_empty() && (parsed.provider.is_some() || !parsed.fallback.is_empty()) {
            let text = file.map(|(_, t)| t).unwrap_or_default();
            let line = table_line(text, &["provider", "fallback"])
                .map(|n| format!(" (line {n})"))
                .unwrap_or_default();
            return Err(ConfigError::Invalid {
                what: format!("{file_name}{line}"),
                message: "[[pool]] replaces [provider] and [[fallback]]: keep one of them".into(),
            });
        }
        // `--provider`, `--base-url`, `--model` or their variables name one server for this
        // run instead of the pool.
        let one_server = overrides.provider.is_some()
            || overrides.base_url.is_some()
            || overrides.model.is_some()
            || overrides.model_path.is_some()
            || env("WIKIMIND_PROVIDER").is_some()
            || env("WIKIMIND_BASE_URL").is_some()
            || env("WIKIMIND_MODEL").is_some();
        let pool = !parsed.pool.is_empty() && !one_server;

        let data_dir = match (
            &overrides.data_dir,
            env("WIKIMIND_DATA_DIR"),
            &parsed.data_dir,
        ) {
            (Some(d), _, _) => d.clone(),
            (None, Some(d), _) => PathBuf::from(d),
            (None, None, Some(d)) => d.clone(),
            (None, None, None) => default_data_dir(env).ok_or(ConfigError::NoDataDir)?,
        };

        // The primary provider: flag > environment > OLLAMA_HOST > file > default.
        let file_primary = parsed.provider.as_ref();
        let (kind_name, kind_from) = match (&overrides.provider, env("WIKIMIND_PROVIDER")) {
            (Some(k), _) => (Some(k.clone()), "--provider".to_string()),
            (None, Some(k)) => (Some(k), "WIKIMIND_PROVIDER".to_string()),
            (None, None) => (
                file_primary.and_then(|p| p.kind.clone()),
                format!("{file_name}: provider.kind"),
            ),
        };
        let kind = match kind_name {
            Some(name) => parse_kind(&name, &kind_from)?,
            None => ProviderKind::Ollama,
        };
        let file_same_kind = file_primary.filter(|p| {
            p.kind
                .as_deref()
                .map_or(Some(ProviderKind::Ollama), ProviderKind::parse)
                == Some(kind)
        });
        let base_url = match (&overrides.base_url, env("WIKIMIND_BASE_URL")) {
            // The built-in engine has no server: its "address" is the model file.
            _ if kind == ProviderKind::Builtin => String::new(),
            (Some(u), _) => check_url(u, "--base-url")?,
            (None, Some(u)) => check_url(&u, "WIKIMIND_BASE_URL")?,
            (None, None) => match (kind, env("OLLAMA_HOST")) {
                (ProviderKind::Ollama, Some(host)) => ollama_base_from_host(&host),
                _ => match file_same_kind.and_then(|p| p.base_url.clone()) {
                    Some(u) => check_url(&u, &format!("{file_name}: provider.base_url"))?,
                    None => default_url(kind).to_string(),
                },
            },
        };
        let model = overrides
            .model
            .clone()
            .or_else(|| env("WIKIMIND_MODEL"))
            .or_else(|| file_same_kind.and_then(|p| p.model.clone()))
            .unwrap_or_else(|| default_model(kind).to_string());
        let (base_url, model) = if kind == ProviderKind::Builtin {
            // flag > environment > file > default, for the file and for its name.
            let env_path = env("WIKIMIND_MODEL_PATH").filter(|p| is_model_file(p));
            let named = overrides
                .model_path
                .clone()
                .or_else(|| overrides.model.as_ref().map(PathBuf::from))
                .or_else(|| env_path.map(PathBuf::from))
                .or_else(|| env("WIKIMIND_MODEL").map(PathBuf::from))
                .or_else(|| file_same_kind.and_then(|p| p.model_path.clone()))
                .or_else(|| file_same_kind.and_then(|p| p.model.as_ref().map(PathBuf::from)));
            builtin_model(named, env)
        } else {
            (base_url, model)
        };
        let mut providers = vec![ProviderConfig {
            kind,
            base_url,
            model,
            api_key: None,
            concurrency: 1,
        }];
        if pool {
            providers = parsed
                .pool
                .iter()
                .enumerate()
                .map(|(i, m)| pool_member(m, &format!("{file_name}: pool {}", i + 1), env))
                .collect::<Result<_, _>>()?;
        }
        // The first member of a pool counts as the primary for `WIKIMIND_API_KEY`.
        let env_key = env("WIKIMIND_API_KEY")
            .filter(|k| !k.trim().is_empty())
            .map(|k| EnvKey {
                server: key_id(&providers[0].base_url),
                key: Secret::new(k),
            });
        for (i, fb) in parsed.fallback.iter().enumerate() {
            let what = format!("{file_name}: fallback {}", i + 1);
            let kind = match &fb.kind {
                Some(k) => parse_kind(k, &format!("{what} kind"))?,
                None => ProviderKind::Ollama,
            };
            let base_url = match &fb.base_url {
                Some(_) if kind == ProviderKind::Builtin => String::new(),
                Some(u) => check_url(u, &format!("{what} base_url"))?,
                None => default_url(kind).to_string(),
            };
            let model = fb
                .model
                .clone()
                .unwrap_or_else(|| default_model(kind).to_string());
            let (base_url, model) = if kind == ProviderKind::Builtin {
                builtin_model(
                    fb.model_path
                        .clone()
                        .or_else(|| fb.model.as_ref().map(PathBuf::from)),
                    env,
                )
            } else {
                (base_url, model)
            };
            providers.push(ProviderConfig {
                kind,
                base_url,
                model,
                api_key: None,
                concurrency: 1,
            });
        }

        let mut compile = parsed.compile;
        if let Some(n) = overrides.concurrency {
            compile.concurrency = n;
        }
        if compile.concurrency == 0 {
            return Err(ConfigError::Invalid {
                what: "concurrency".into(),
                message: "must be at least 1".into(),
            });
        }
        if parsed.pages.min_sources == 0 {
            return Err(ConfigError::Invalid {
                what: "pages.min_sources".into(),
                message: "must be at least 1".into(),
            });
        }
        let eval = check_eval(parsed.eval, &file_name)?;
        let settings = Settings {
            data_dir,
            providers,
            pool,
            compile,
            pages: parsed.pages,
            eval,
            config_file: file.map(|(p, _)| p.to_path_buf()),
            model_dir: model_dir(env),
            env_key,
        };
        Ok(settings.with_keys(&NoKeyStore))
    }

    /// These settings with every provider's API key resolved again, by the one rule of
    /// which key goes where:
    ///
    /// - the built-in engine takes no key;
    /// - the primary provider gets `WIKIMIND_API_KEY` when it is set, but only while it
    ///   points at the server it had when the settings were resolved (pointed elsewhere, it
    ///   does not take the key along);
    /// - otherwise a provider gets the key stored in `keys` for its own server ([`key_id`] of
    ///   its base URL), if any — so a fallback only ever gets its own keyring entry, and a
    ///   key saved for one server is never sent to another.
    ///
    /// Call it again whenever a provider's server changes.
    pub fn with_keys(mut self, keys: &dyn KeyStore) -> Settings {
        let resolved: Vec<Option<Secret>> = self
            .providers
            .iter()
            .enumerate()
            .map(|(i, p)| self.key_of(p.kind, &p.base_url, i == 0, keys))
            .collect();
        for (p, key) in self.providers.iter_mut().zip(resolved) {
            p.api_key = key;
        }
        self
    }

    /// The API key for a server that may not be one of the configured providers (an eval
    /// run can name any), by the rule of [`Settings::with_keys`]: the server the primary
    /// provider points at counts as the primary.
    pub fn key_for_server(
        &self,
        kind: ProviderKind,
        base_url: &str,
        keys: &dyn KeyStore,
    ) -> Option<Secret> {
        let primary = key_id(base_url) == key_id(&self.provider().base_url);
        self.key_of(kind, base_url, primary, keys)
    }

    fn key_of(
        &self,
        kind: ProviderKind,
        base_url: &str,
        primary: bool,
        keys: &dyn KeyStore,
    ) -> Option<Secret> {
        if kind == ProviderKind::Builtin {
            return None;
        }
        let from_env = self
            .env_key
            .as_ref()
            .filter(|e| primary && e.server == key_id(base_url))
            .map(|e| e.key.clone());
        from_env.or_else(|| stored_key(keys, base_url))
    }

    /// Stores `key` in `keys` (the OS keyring) as the API key of the server at `base_url`,
    /// and returns these settings with every key resolved again: whichever provider talks
    /// to that server uses it from now on, and no other. The CLI's `providers --set-key` and
    /// the desktop app's "Save key" both call this.
    pub fn save_key(
        &self,
        kind: ProviderKind,
        base_url: &str,
        key: &str,
        keys: &dyn KeyStore,
    ) -> Result<Settings, ConfigError> {
        let invalid = |message: &str| ConfigError::Invalid {
            what: "API key".into(),
            message: message.into(),
        };
        if kind == ProviderKind::Builtin {
            return Err(invalid("the built-in engine takes no API key"));
        }
        let key = key.trim();
        if key.is_empty() {
            return Err(invalid("the key is empty"));
        }
        keys.set(&key_id(base_url), &Secret::new(key))?;
        Ok(self.clone().with_keys(keys))
    }

    /// The primary provider.
    pub fn provider(&self) -> &ProviderConfig {
        &self.providers[0]
    }

    /// A model file the built-in engine could use right now: the default model in the
    /// model directory, else the first `.gguf` file there (by name).
    pub fn find_model_file(&self) -> Option<PathBuf> {
        let dir = self.model_dir.as_ref()?;
        let default = dir.join(DEFAULT_BUILTIN_MODEL);
        if default.is_file() {
            return Some(default);
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && is_model_file(&p.to_string_lossy()))
            .collect();
        found.sort();
        found.into_iter().next()
    }
}

/// One `[[pool]]` table resolved: its kind (Ollama when not given), base URL and model
/// (the kind's defaults), and how many calls it takes at once (1 when not given).
fn pool_member(
    m: &FilePoolMember,
    what: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderConfig, ConfigError> {
    let kind = match &m.kind {
        Some(k) => parse_kind(k, &format!("{what} kind"))?,
        None => ProviderKind::Ollama,
    };
    let concurrency = m.concurrency.unwrap_or(1);
    if concurrency == 0 {
        return Err(ConfigError::Invalid {
            what: format!("{what} concurrency"),
            message: "must be at least 1".into(),
        });
    }
    let (base_url, model) = if kind == ProviderKind::Builtin {
        builtin_model(
            m.model_path
                .clone()
                .or_else(|| m.model.as_ref().map(PathBuf::from)),
            env,
        )
    } else {
        let base_url = match &m.base_url {
            Some(u) => check_url(u, &format!("{what} base_url"))?,
            None => default_url(kind).to_string(),
        };
        let model = match &m.model {
            Some(model) if model.trim().is_empty() => {
                return Err(ConfigError::Invalid {
                    what: format!("{what} model"),
                    message: "is empty".into(),
                })
            }
            Some(model) => model.clone(),
            None => default_model(kind).to_string(),
        };
        (base_url, model)
    };
    Ok(ProviderConfig {
        kind,
        base_url,
        model,
        api_key: None,
        concurrency,
    })
}

/// The line (from 1) of the first table of `text` named one of `names` (`[provider]`,
/// `[[fallback]]`, `[provider.x]`), or of a top-level key of that name before any table.
fn table_line(text: &str, names: &[&str]) -> Option<usize> {
    let mut in_table = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let name = if let Some(header) = line.strip_prefix('[') {
            in_table = true;
            let header = header.trim_start_matches('[');
            header.split(['.', ']']).next().unwrap_or_default()
        } else if !in_table {
            line.split(['.', '=']).next().unwrap_or_default()
        } else {
            continue;
        };
        let name = name.trim().trim_matches(['"', '\'']);
        if names.contains(&name) {
            return Some(i + 1);
        }
    }
    None
}

fn parse_kind(name: &str, what: &str) -> Result<ProviderKind, ConfigError> {
    ProviderKind::parse(name).ok_or_else(|| ConfigError::Invalid {
        what: what.to_string(),
        message: format!("unknown provider {name:?} (expected ollama, openai or builtin)"),
    })
}

/// The `[eval]` table checked: an http(s) URL, a model that is not blank (the provider was
/// read by [`Target`]'s own rule).
fn check_eval(eval: EvalSettings, file_name: &str) -> Result<EvalSettings, ConfigError> {
    let judge_base_url = match &eval.judge_base_url {
        Some(u) => Some(check_url(u, &format!("{file_name}: eval.judge_base_url"))?),
        None => None,
    };
    if eval
        .judge_model
        .as_deref()
        .is_some_and(|m| m.trim().is_empty())
    {
        return Err(ConfigError::Invalid {
            what: format!("{file_name}: eval.judge_model"),
            message: "is empty".into(),
        });
    }
    Ok(EvalSettings {
        judge_base_url,
        ..eval
    })
}

fn check_url(url: &str, what: &str) -> Result<String, ConfigError> {
    match url::Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {
            Ok(url.trim_end_matches('/').to_string())
        }
        Ok(u) => Err(ConfigError::Invalid {
            what: what.to_string(),
            message: format!("{url:?} is not an http(s) URL (scheme {})", u.scheme()),
        }),
        Err(e) => Err(ConfigError::Invalid {
            what: what.to_string(),
            message: format!("{url:?} is not a URL: {e}"),
        }),
    }
}

/// The default base URL for a kind of provider.
pub fn default_url(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Ollama => DEFAULT_OLLAMA_URL,
        ProviderKind::OpenAiCompatible => DEFAULT_OPENAI_URL,
        ProviderKind::Builtin => "",
    }
}

/// The default model for a kind of provider.
pub fn default_model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Ollama => DEFAULT_OLLAMA_MODEL,
        ProviderKind::OpenAiCompatible => DEFAULT_OPENAI_MODEL,
        ProviderKind::Builtin => DEFAULT_BUILTIN_MODEL,
    }
}

/// Whether a setting names a model file rather than a folder of them.
fn is_model_file(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".gguf")
}

/// The built-in engine's model file (its path, as the provider's "base URL") and its name.
/// A bare file name is looked up in the model directory ([`model_dir`]); no name means
/// [`DEFAULT_BUILTIN_MODEL`] there.
fn builtin_model(named: Option<PathBuf>, env: &dyn Fn(&str) -> Option<String>) -> (String, String) {
    let dir = model_dir(env).unwrap_or_else(|| PathBuf::from("."));
    let path = match named {
        Some(p) if p.components().count() > 1 || p.is_absolute() => p,
        Some(name) => dir.join(name),
        None => dir.join(DEFAULT_BUILTIN_MODEL),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    (path.display().to_string(), name)
}

/// `$WIKIMIND_CONFIG`, else `$XDG_CONFIG_HOME/wikimind/config.toml`, else
/// `~/.config/wikimind/config.toml`.
pub fn config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = env("WIKIMIND_CONFIG") {
        return Some(PathBuf::from(p));
    }
    let base = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("wikimind").join(CONFIG_FILE))
}

/// `$XDG_DATA_HOME/wikimind`, else `~/.local/share/wikimind`.
pub fn default_data_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let base = env("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".local").join("share")))?;
    Some(base.join("wikimind"))
}

/// `WIKIMIND_MODEL_PATH` (its folder when it names a `.gguf` file), else
/// `$XDG_CACHE_HOME/wikimind/models`.
pub fn model_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = env("WIKIMIND_MODEL_PATH") {
        let path = PathBuf::from(&p);
        if is_model_file(&p) {
            return path.parent().map(Path::to_path_buf);
        }
        return Some(path);
    }
    let base = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(base.join("wikimind").join("models"))
}

fn location(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) => {
            // Bytes, not a str slice: a span off a character boundary cannot panic.
            let before = &text.as_bytes()[..r.start.min(text.len())];
            let lines = before.iter().filter(|&&b| b == b'\n').count();
            format!(" (line {})", lines + 1)
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::time::Duration;
    use wikimind_llm::MemoryKeyStore;

    #[test]
    fn provider_clients_wait_and_retry_as_the_compile_settings_say() {
        let c = CompileSettings {
            connect_timeout_secs: 3,
            first_byte_timeout_secs: 40,
            idle_timeout_secs: 7,
            transport_retries: 5,
            ..CompileSettings::default()
        };
        let p = c.provider_settings(None);
        assert_eq!(p.timeouts.connect, Duration::from_secs(3));
        assert_eq!(p.timeouts.first_byte, Duration::from_secs(40));
        assert_eq!(p.timeouts.idle, Duration::from_secs(7));
        assert_eq!(p.retry.max_retries, 5);
        assert!(p.api_key.is_none());
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn defaults_are_ollama_on_localhost() {
        let s =
            Settings::resolve(&Overrides::default(), &env(&[("HOME", "/home/a")]), None).unwrap();
        assert_eq!(s.data_dir, PathBuf::from("/home/a/.local/share/wikimind"));
        assert_eq!(s.provider().kind, ProviderKind::Ollama);
        assert_eq!(s.provider().base_url, "http://127.0.0.1:11434");
        assert_eq!(s.provider().model, DEFAULT_OLLAMA_MODEL);
        assert_eq!(s.compile.retries, 2);
    }

    #[test]
    fn flags_beat_environment_beat_file() {
        let file = r#"
data_dir = "/from/file"
[provider]
kind = "ollama"
base_url = "http://file:11434"
model = "file-model"
[[fallback]]
kind = "openai"
base_url = "http://backup:8080/v1"
model = "backup"
[compile]
retries = 1
"#;
        let path = Path::new("config.toml");
        let e = env(&[
            ("WIKIMIND_MODEL", "env-model"),
            ("OLLAMA_HOST", "0.0.0.0:9999"),
        ]);
        let s = Settings::resolve(&Overrides::default(), &e, Some((path, file))).unwrap();
        assert_eq!(s.data_dir, PathBuf::from("/from/file"));
        assert_eq!(s.provider().model, "env-model");
        assert_eq!(
            s.provider().base_url,
            "http://127.0.0.1:9999",
            "OLLAMA_HOST beats the file"
        );
        assert_eq!(s.providers[1].base_url, "http://backup:8080/v1");
        assert_eq!(s.compile.retries, 1);

        let flags = Overrides {
            data_dir: Some("/flag".into()),
            model: Some("flag-model".into()),
            base_url: Some("http://flag:1/".into()),
            ..Overrides::default()
        };
        let s = Settings::resolve(&flags, &e, Some((path, file))).unwrap();
        assert_eq!(s.data_dir, PathBuf::from("/flag"));
        assert_eq!(s.provider().model, "flag-model");
        assert_eq!(s.provider().base_url, "http://flag:1");
    }

    #[test]
    fn the_eval_table_names_the_judge_and_its_mistakes_by_line() {
        let e = env(&[("HOME", "/h")]);
        let path = Path::new("c.toml");
        let read = |text: &str| Settings::resolve(&Overrides::default(), &e, Some((path, text)));
        let s = read("[eval]\njudge_provider = \"OpenAI\"\njudge_base_url = \"http://judge:8080/v1/\"\njudge_model = \"big\"\n").unwrap();
        assert_eq!(
            s.eval,
            EvalSettings {
                judge_provider: Some(Target::Kind(ProviderKind::OpenAiCompatible)),
                judge_base_url: Some("http://judge:8080/v1".into()),
                judge_model: Some("big".into()),
            }
        );
        assert_eq!(read("").unwrap().eval, EvalSettings::default());
        for (text, want) in [
            (
                "[eval]\njudge_provider = \"bard\"\n",
                "\"bard\" is not a provider (expected default, ollama, openai or builtin) (line 2)",
            ),
            (
                "[eval]\n\njudge_modle = \"x\"\n",
                "unknown field `judge_modle`",
            ),
            (
                "[eval]\njudge_model = \" \"\n",
                "eval.judge_model: is empty",
            ),
            (
                "[eval]\njudge_base_url = \"ftp://x\"\n",
                "eval.judge_base_url: \"ftp://x\" is not an http(s) URL",
            ),
        ] {
            let err = read(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn switching_kind_does_not_borrow_the_other_kinds_url() {
        let file = "[provider]\nkind = \"ollama\"\nbase_url = \"http://file:11434\"\n";
        let e = env(&[("HOME", "/h"), ("WIKIMIND_PROVIDER", "openai")]);
        let s = Settings::resolve(&Overrides::default(), &e, Some((Path::new("c.toml"), file)))
            .unwrap();
        assert_eq!(s.provider().kind, ProviderKind::OpenAiCompatible);
        assert_eq!(s.provider().base_url, DEFAULT_OPENAI_URL);
    }

    #[test]
    fn bad_settings_name_where_they_come_from() {
        let e = env(&[("HOME", "/h")]);
        let err = Settings::resolve(
            &Overrides::default(),
            &e,
            Some((Path::new("c.toml"), "[provider]\nmodle = \"x\"\n")),
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("c.toml: unknown field `modle`"), "{msg}");
        assert!(msg.contains("line 2"), "{msg}");
        let e = env(&[("HOME", "/h"), ("WIKIMIND_PROVIDER", "claude")]);
        let err = Settings::resolve(&Overrides::default(), &e, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "WIKIMIND_PROVIDER: unknown provider \"claude\" (expected ollama, openai or builtin)"
        );
        let e = env(&[("HOME", "/h"), ("WIKIMIND_BASE_URL", "ftp://x")]);
        assert!(Settings::resolve(&Overrides::default(), &e, None)
            .unwrap_err()
            .to_string()
            .contains("not an http(s) URL"));
    }

    #[test]
    fn the_builtin_engine_finds_its_model_file_by_layers() {
        let home = env(&[("HOME", "/h"), ("WIKIMIND_PROVIDER", "builtin")]);
        let s = Settings::resolve(&Overrides::default(), &home, None).unwrap();
        assert_eq!(s.provider().kind, ProviderKind::Builtin);
        assert_eq!(
            s.provider().base_url,
            format!("/h/.cache/wikimind/models/{DEFAULT_BUILTIN_MODEL}")
        );
        assert_eq!(s.provider().model, DEFAULT_BUILTIN_MODEL);

        let file = "[provider]\nkind = \"builtin\"\nmodel_path = \"/file/m.gguf\"\n";
        let cfg = Some((Path::new("c.toml"), file));
        let e = env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/cache")]);
        let s = Settings::resolve(&Overrides::default(), &e, cfg).unwrap();
        assert_eq!(s.provider().base_url, "/file/m.gguf");

        let e = env(&[("HOME", "/h"), ("WIKIMIND_MODEL_PATH", "/env/x.gguf")]);
        let s = Settings::resolve(&Overrides::default(), &e, cfg).unwrap();
        assert_eq!(
            s.provider().base_url,
            "/env/x.gguf",
            "environment beats file"
        );
        assert_eq!(s.provider().model, "x.gguf");

        let e = env(&[("HOME", "/h"), ("WIKIMIND_MODEL_PATH", "/models")]);
        let flags = Overrides {
            model: Some("other.gguf".into()),
            ..Overrides::default()
        };
        let s = Settings::resolve(&flags, &e, cfg).unwrap();
        assert_eq!(
            s.provider().base_url,
            "/models/other.gguf",
            "a name is looked up in the model dir"
        );

        let flags = Overrides {
            provider: Some("builtin".into()),
            model_path: Some("/flag/f.gguf".into()),
            base_url: Some("not a url, ignored".into()),
            ..Overrides::default()
        };
        let s = Settings::resolve(&flags, &e, None).unwrap();
        assert_eq!(
            s.provider().base_url,
            "/flag/f.gguf",
            "the flag beats everything"
        );
    }

    #[test]
    fn api_key_comes_from_the_environment_and_never_prints() {
        let e = env(&[("HOME", "/h"), ("WIKIMIND_API_KEY", "sk-secret-123")]);
        let s = Settings::resolve(&Overrides::default(), &e, None).unwrap();
        assert_eq!(
            s.provider().api_key.as_ref().map(|k| k.expose()),
            Some("sk-secret-123")
        );
        assert!(!format!("{s:?}").contains("sk-secret-123"));
        assert!(!serde_json::to_string(&s).unwrap().contains("sk-secret-123"));
    }

    /// A primary OpenAI-compatible server, an Ollama fallback and an OpenAI-compatible
    /// fallback, each on its own address.
    const THREE_SERVERS: &str = r#"
[provider]
kind = "openai"
base_url = "http://primary.test/v1"
model = "m"
[[fallback]]
kind = "ollama"
base_url = "http://ollama.test:11434"
[[fallback]]
kind = "openai"
base_url = "http://backup.test/v1/"
model = "b"
"#;

    fn three_servers(vars: &[(&str, &str)], keys: &dyn KeyStore) -> Settings {
        let file = Some((Path::new("c.toml"), THREE_SERVERS));
        Settings::resolve(&Overrides::default(), &env(vars), file)
            .unwrap()
            .with_keys(keys)
    }

    fn sent(s: &Settings) -> Vec<Option<&str>> {
        s.providers
            .iter()
            .map(|p| p.api_key.as_ref().map(Secret::expose))
            .collect()
    }

    #[test]
    fn the_environment_key_goes_to_the_primary_server_only() {
        let vars = [("HOME", "/h"), ("WIKIMIND_API_KEY", "env-key")];
        let s = three_servers(&vars, &NoKeyStore);
        assert_eq!(sent(&s), [Some("env-key"), None, None]);

        // The environment key beats the primary's keyring entry; a fallback still gets
        // only its own entry.
        let keys = MemoryKeyStore::new();
        keys.set("http://primary.test/v1", &Secret::new("stored-primary"))
            .unwrap();
        keys.set("http://backup.test/v1", &Secret::new("stored-backup"))
            .unwrap();
        let s = three_servers(&vars, &keys);
        assert_eq!(sent(&s), [Some("env-key"), None, Some("stored-backup")]);
        let s = three_servers(&[("HOME", "/h")], &keys);
        assert_eq!(
            sent(&s),
            [Some("stored-primary"), None, Some("stored-backup")]
        );
    }

    #[test]
    fn the_environment_key_does_not_follow_the_primary_to_another_server() {
        let keys = MemoryKeyStore::new();
        let s = three_servers(&[("HOME", "/h"), ("WIKIMIND_API_KEY", "env-key")], &keys);
        let mut moved = s.clone();
        moved.providers[0].base_url = "http://elsewhere.test/v1".into();
        assert_eq!(sent(&moved.clone().with_keys(&keys))[0], None);
        // Even to a fallback's server, whose own entry it then gets.
        keys.set("http://backup.test/v1", &Secret::new("stored-backup"))
            .unwrap();
        moved.providers[0].base_url = "http://backup.test/v1".into();
        assert_eq!(
            sent(&moved.clone().with_keys(&keys))[0],
            Some("stored-backup")
        );
        // Back on its own server, it has the key again.
        moved.providers[0].base_url = "http://primary.test/v1/".into();
        assert_eq!(sent(&moved.with_keys(&keys))[0], Some("env-key"));
        // Servers that are not configured (an eval run's) follow the same rule.
        let key = |url| {
            s.key_for_server(ProviderKind::OpenAiCompatible, url, &keys)
                .map(|k| k.expose().to_string())
        };
        assert_eq!(key("http://primary.test/v1").as_deref(), Some("env-key"));
        assert_eq!(
            key("http://backup.test/v1").as_deref(),
            Some("stored-backup")
        );
        assert_eq!(key("http://other.test/v1"), None);
    }

    #[test]
    fn a_key_saved_for_one_server_is_never_sent_to_another() {
        let keys = MemoryKeyStore::new();
        let s = three_servers(&[("HOME", "/h")], &keys);
        assert_eq!(sent(&s), [None, None, None], "no server has a key yet");

        let s = s
            .save_key(
                ProviderKind::OpenAiCompatible,
                "http://backup.test/v1",
                " key-b\n",
                &keys,
            )
            .unwrap();
        assert_eq!(sent(&s), [None, None, Some("key-b")]);
        let s = s
            .save_key(
                ProviderKind::OpenAiCompatible,
                "http://primary.test/v1/",
                "key-a",
                &keys,
            )
            .unwrap();
        assert_eq!(sent(&s), [Some("key-a"), None, Some("key-b")]);

        let err = s
            .save_key(ProviderKind::Builtin, "/m.gguf", "k", &keys)
            .unwrap_err();
        assert!(err.to_string().contains("built-in engine"), "{err}");
        let err = s
            .save_key(ProviderKind::Ollama, "http://x", "  ", &keys)
            .unwrap_err();
        assert!(err.to_string().contains("empty"), "{err}");
        let err = s
            .save_key(ProviderKind::Ollama, "http://x", "k", &NoKeyStore)
            .unwrap_err();
        assert!(err.to_string().contains("WIKIMIND_API_KEY"), "{err}");
    }

    const POOL: &str = r#"
[compile]
concurrency = 6

[[pool]]
kind = "ollama"
base_url = "http://gpu.test:11434/"
model = "qwen2.5:7b"
concurrency = 2

[[pool]]
kind = "openai"
base_url = "http://vllm.test/v1"
"#;

    #[test]
    fn pool_tables_name_every_member_with_its_own_concurrency() {
        let file = Some((Path::new("c.toml"), POOL));
        let s = Settings::resolve(&Overrides::default(), &env(&[("HOME", "/h")]), file).unwrap();
        assert!(s.pool);
        let members: Vec<(&str, &str, &str, usize)> = s
            .providers
            .iter()
            .map(|p| {
                (
                    p.kind.as_str(),
                    p.base_url.as_str(),
                    p.model.as_str(),
                    p.concurrency,
                )
            })
            .collect();
        assert_eq!(
            members,
            [
                ("ollama", "http://gpu.test:11434", "qwen2.5:7b", 2),
                ("openai", "http://vllm.test/v1", DEFAULT_OPENAI_MODEL, 1),
            ]
        );
        // Keys are looked up per member, under its own base URL.
        let keys = MemoryKeyStore::new();
        keys.set("http://vllm.test/v1", &Secret::new("vllm-key"))
            .unwrap();
        assert_eq!(sent(&s.with_keys(&keys)), [None, Some("vllm-key")]);
    }

    #[test]
    fn a_flag_or_variable_naming_a_server_replaces_the_pool_for_that_run() {
        let file = Some((Path::new("c.toml"), POOL));
        let flags = Overrides {
            model: Some("tiny".into()),
            ..Overrides::default()
        };
        let s = Settings::resolve(&flags, &env(&[("HOME", "/h")]), file).unwrap();
        assert!(!s.pool);
        assert_eq!(s.providers.len(), 1);
        assert_eq!(s.provider().model, "tiny");
        for var in ["WIKIMIND_PROVIDER", "WIKIMIND_BASE_URL", "WIKIMIND_MODEL"] {
            let value = if var == "WIKIMIND_PROVIDER" {
                "openai"
            } else {
                "http://one.test"
            };
            let e = env(&[("HOME", "/h"), (var, value)]);
            let s = Settings::resolve(&Overrides::default(), &e, file).unwrap();
            assert!(!s.pool, "{var}");
            assert_eq!(s.providers.len(), 1, "{var}");
        }
        // OLLAMA_HOST is where Ollama is, not a choice of one server over the pool.
        let e = env(&[("HOME", "/h"), ("OLLAMA_HOST", "other:1")]);
        assert!(
            Settings::resolve(&Overrides::default(), &e, file)
                .unwrap()
                .pool
        );
    }

    #[test]
    fn a_file_with_a_pool_and_a_provider_is_refused_naming_the_line() {
        let e = env(&[("HOME", "/h")]);
        for (text, line) in [
            (format!("{POOL}\n[provider]\nmodel = \"x\"\n"), 15),
            (
                format!("[eval]\n\n[[ fallback ]]\nmodel = \"x\"\n{POOL}"),
                3,
            ),
            (format!("provider.model = \"x\"\n{POOL}"), 1),
        ] {
            let err = Settings::resolve(
                &Overrides::default(),
                &e,
                Some((Path::new("c.toml"), &text)),
            )
            .unwrap_err()
            .to_string();
            assert_eq!(
                err,
                format!("c.toml (line {line}): [[pool]] replaces [provider] and [[fallback]]: keep one of them"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_pool_member_s_mistakes_name_the_member() {
        let e = env(&[("HOME", "/h")]);
        for (text, want) in [
            (
                "[[pool]]\nconcurrency = 0\n",
                "c.toml: pool 1 concurrency: must be at least 1",
            ),
            (
                "[[pool]]\n[[pool]]\nbase_url = \"ftp://x\"\n",
                "c.toml: pool 2 base_url: \"ftp://x\" is not an http(s) URL",
            ),
            (
                "[[pool]]\nkind = \"bard\"\n",
                "c.toml: pool 1 kind: unknown provider \"bard\"",
            ),
            ("[[pool]]\nmodel = \"\"\n", "c.toml: pool 1 model: is empty"),
            ("[[pool]]\nweight = 2\n", "unknown field `weight`"),
        ] {
            let err =
                Settings::resolve(&Overrides::default(), &e, Some((Path::new("c.toml"), text)))
                    .unwrap_err()
                    .to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn the_builtin_engine_takes_no_key() {
        let e = [
            ("HOME", "/h"),
            ("WIKIMIND_PROVIDER", "builtin"),
            ("WIKIMIND_API_KEY", "env-key"),
        ];
        let s = Settings::resolve(&Overrides::default(), &env(&e), None).unwrap();
        assert_eq!(sent(&s), [None]);
    }
}
