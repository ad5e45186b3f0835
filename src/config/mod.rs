//! Settings: defaults, then the config file, then `WIKIMIND_*` environment variables, then
//! flags. This is the one module that reads the environment.
//!
//! Resolution happens in two phases (what the person said, then what is used):
//! [`Overrides`] holds the flags; [`Settings::resolve`] layers them over the environment and
//! the file, and takes both as arguments so tests pass strings, not files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::llm::{ollama_base_from_host, ProviderKind, Secret, DEFAULT_OLLAMA_URL};

/// The model asked for when nothing else is configured: small, instruction-tuned, on Ollama.
pub const DEFAULT_OLLAMA_MODEL: &str = "qwen2.5:3b";
/// The base URL of an OpenAI-compatible server when none is configured (llama.cpp's port).
pub const DEFAULT_OPENAI_URL: &str = "http://127.0.0.1:8080/v1";
/// The model name sent to an OpenAI-compatible server when none is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "default";
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
}

/// One model server to compile with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderConfig {
    /// The wire protocol.
    #[serde(serialize_with = "kind_name")]
    pub kind: ProviderKind,
    /// The server's base URL.
    pub base_url: String,
    /// The model to ask.
    pub model: String,
    /// Whether an API key was found in the environment (the key itself never prints).
    #[serde(skip)]
    pub api_key: Option<Secret>,
}

fn kind_name<S: serde::Serializer>(kind: &ProviderKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

/// How compiles run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompileSettings {
    /// Retries with the validation errors fed back, per provider, after the first answer.
    pub retries: u32,
    /// Compiles running at once.
    pub concurrency: usize,
    /// The answer budget in tokens.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f32,
    /// The largest source accepted, in bytes.
    pub max_source_bytes: u64,
    /// Seconds to wait for a connection.
    pub connect_timeout_secs: u64,
    /// Seconds to wait for the first byte of an answer (the model may be loading).
    pub first_byte_timeout_secs: u64,
    /// Seconds a stream may stall between chunks.
    pub idle_timeout_secs: u64,
    /// Transport retries (refused connections, 429, 5xx) per request.
    pub transport_retries: u32,
    /// The model's context in tokens when the server cannot say (Ollama reports it).
    pub context_tokens: u32,
}

impl Default for CompileSettings {
    fn default() -> Self {
        CompileSettings {
            retries: 2,
            concurrency: 2,
            max_tokens: 4096,
            temperature: 0.2,
            max_source_bytes: 20 * 1024 * 1024,
            connect_timeout_secs: 10,
            first_byte_timeout_secs: 600,
            idle_timeout_secs: 120,
            transport_retries: 3,
            context_tokens: 8192,
        }
    }
}

/// Settings as resolved, ready to use.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    /// Where the wiki lives.
    pub data_dir: PathBuf,
    /// The provider to compile with first, then the fallbacks in order.
    pub providers: Vec<ProviderConfig>,
    /// How compiles run.
    pub compile: CompileSettings,
    /// The config file that was read, if any.
    pub config_file: Option<PathBuf>,
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
    compile: CompileSettings,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProvider {
    kind: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
}

impl Settings {
    /// Resolves settings from the real environment and config file.
    pub fn load(overrides: &Overrides) -> Result<Settings, ConfigError> {
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
        Settings::resolve(overrides, &env, file)
    }

    /// Resolves settings from flags, an environment lookup and an optional config file
    /// (its path, for messages, and its text).
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
        let api_key = env("WIKIMIND_API_KEY").map(Secret::new);
        let mut providers = vec![ProviderConfig {
            kind,
            base_url,
            model,
            api_key: api_key.clone(),
        }];
        for (i, fb) in parsed.fallback.iter().enumerate() {
            let what = format!("{file_name}: fallback {}", i + 1);
            let kind = match &fb.kind {
                Some(k) => parse_kind(k, &format!("{what} kind"))?,
                None => ProviderKind::Ollama,
            };
            let base_url = match &fb.base_url {
                Some(u) => check_url(u, &format!("{what} base_url"))?,
                None => default_url(kind).to_string(),
            };
            providers.push(ProviderConfig {
                kind,
                base_url,
                model: fb
                    .model
                    .clone()
                    .unwrap_or_else(|| default_model(kind).to_string()),
                api_key: api_key.clone(),
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
        Ok(Settings {
            data_dir,
            providers,
            compile,
            config_file: file.map(|(p, _)| p.to_path_buf()),
        })
    }

    /// The primary provider.
    pub fn provider(&self) -> &ProviderConfig {
        &self.providers[0]
    }
}

fn parse_kind(name: &str, what: &str) -> Result<ProviderKind, ConfigError> {
    ProviderKind::parse(name).ok_or_else(|| ConfigError::Invalid {
        what: what.to_string(),
        message: format!("unknown provider {name:?} (expected ollama or openai)"),
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
    }
}

/// The default model for a kind of provider.
pub fn default_model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Ollama => DEFAULT_OLLAMA_MODEL,
        ProviderKind::OpenAiCompatible => DEFAULT_OPENAI_MODEL,
    }
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

/// `WIKIMIND_MODEL_PATH`, else `$XDG_CACHE_HOME/wikimind/models`.
pub fn model_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = env("WIKIMIND_MODEL_PATH") {
        return Some(PathBuf::from(p));
    }
    let base = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(base.join("wikimind").join("models"))
}

fn location(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) => {
            let before = &text[..r.start.min(text.len())];
            format!(" (line {})", before.matches('\n').count() + 1)
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

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
            "WIKIMIND_PROVIDER: unknown provider \"claude\" (expected ollama or openai)"
        );
        let e = env(&[("HOME", "/h"), ("WIKIMIND_BASE_URL", "ftp://x")]);
        assert!(Settings::resolve(&Overrides::default(), &e, None)
            .unwrap_err()
            .to_string()
            .contains("not an http(s) URL"));
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
}
