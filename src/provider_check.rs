//! Asking the configured model servers whether they answer, and what to offer when none
//! does: `wikimind providers --test` lists every provider with its models, the app's
//! "Test connection" and the compile preflight ask the same way ([`list_models`]).
//!
//! The offer is the built-in engine, which compiles without a server; [`BuiltinOffer`]
//! says what it could use on this machine. Each shell words it its own way.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::Settings;
use crate::llm::{self, LlmError, ModelInfo, Provider, ProviderKind};

/// What the built-in engine could compile with on this machine, for this build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinOffer {
    /// Whether this build has the engine (cargo feature `builtin`).
    pub available: bool,
    /// A model file it could use now ([`Settings::find_model_file`]).
    pub model_file: Option<PathBuf>,
    /// The folder model files are looked up in (`WIKIMIND_MODEL_PATH` or the cache).
    pub model_dir: Option<PathBuf>,
}

impl BuiltinOffer {
    /// The offer for these settings on this machine.
    pub fn of(settings: &Settings) -> BuiltinOffer {
        BuiltinOffer {
            available: llm::HAS_BUILTIN,
            model_file: settings.find_model_file(),
            model_dir: settings.model_dir.clone(),
        }
    }
}

/// A provider's model list, read against the model the settings ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelList {
    /// What the provider listed, with sizes and families where it says.
    pub models: Vec<ModelInfo>,
    /// Whether the configured model is among them ([`llm::model_available`]: for Ollama a
    /// name without a tag means `:latest`).
    pub model_available: bool,
}

impl ModelList {
    /// The names of the models listed, in order.
    pub fn names(&self) -> Vec<String> {
        self.models.iter().map(|m| m.name.clone()).collect()
    }
}

/// Asks `provider` for its models and whether `model` is among them.
pub async fn list_models(provider: &dyn Provider, model: &str) -> Result<ModelList, LlmError> {
    let models = provider.list_models().await?;
    let names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
    Ok(ModelList {
        model_available: llm::model_available(provider.kind(), model, &names),
        models,
    })
}

/// One configured provider as `providers` shows it (a row of `providers --json`; the
/// fields after `api_key` are there only when it was tested).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderStatus {
    /// `primary`, then `fallback 1`, `fallback 2`, … in the order they are tried; or
    /// `pool member 1`, `pool member 2`, … for the members of a pool.
    pub role: String,
    /// The protocol (`ollama`, `openai`, `builtin`).
    pub kind: &'static str,
    /// The server (for the built-in engine, the model file).
    pub base_url: String,
    /// The model asked for.
    pub model: String,
    /// Whether an API key is configured for it (the key itself is never shown).
    pub api_key: bool,
    /// Whether it answered its model list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reachable: Option<bool>,
    /// Whether the model asked for is among the models it listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_available: Option<bool>,
    /// The models it listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
    /// Why it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every configured provider, in order, and what to offer when none answered.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvidersReport {
    /// One status per provider, the primary first.
    pub providers: Vec<ProviderStatus>,
    /// The built-in engine, offered when the providers were tested, none answered and none
    /// of them is the built-in engine already.
    pub offer: Option<BuiltinOffer>,
}

impl ProvidersReport {
    /// Whether every provider tested answered (true when none was tested).
    pub fn all_reachable(&self) -> bool {
        self.providers.iter().all(|p| p.reachable != Some(false))
    }
}

/// The configured providers (each set up as a compile would, so a provider that cannot be
/// set up is an error), and with `test` each asked for its models.
pub async fn check_providers(settings: &Settings, test: bool) -> Result<ProvidersReport, LlmError> {
    let slots = crate::compile::providers_from_settings(settings)?;
    let mut providers = Vec::with_capacity(slots.len());
    for (i, (cfg, slot)) in settings.providers.iter().zip(&slots).enumerate() {
        let mut status = ProviderStatus {
            role: match i {
                _ if settings.pool => format!("pool member {}", i + 1),
                0 => "primary".to_string(),
                i => format!("fallback {i}"),
            },
            kind: cfg.kind.as_str(),
            base_url: cfg.base_url.clone(),
            model: cfg.model.clone(),
            api_key: cfg.api_key.is_some(),
            reachable: None,
            model_available: None,
            models: None,
            error: None,
        };
        if test {
            match list_models(&*slot.provider, &cfg.model).await {
                Ok(list) => {
                    status.reachable = Some(true);
                    status.model_available = Some(list.model_available);
                    status.models = Some(list.names());
                }
                Err(e) => {
                    status.reachable = Some(false);
                    status.error = Some(e.to_string());
                }
            }
        }
        providers.push(status);
    }
    let none_answered = test && providers.iter().all(|p| p.reachable == Some(false));
    let builtin_configured = settings
        .providers
        .iter()
        .any(|p| p.kind == ProviderKind::Builtin);
    Ok(ProvidersReport {
        offer: (none_answered && !builtin_configured).then(|| BuiltinOffer::of(settings)),
        providers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_settings::{closed_port, settings_at};
    use wikimind_testserver::TestServer;

    fn settings(base_url: &str, model: &str) -> Settings {
        let mut s = settings_at(base_url);
        s.providers[0].model = model.to_string();
        s
    }

    #[tokio::test]
    async fn a_server_that_answers_lists_its_models_and_whether_ours_is_there() {
        let server = TestServer::builder()
            .models(["llama3.2:latest", "qwen2.5:3b"])
            .start();
        let report = check_providers(&settings(&server.url(), "llama3.2"), true)
            .await
            .expect("report");
        let primary = &report.providers[0];
        assert_eq!(primary.role, "primary");
        assert_eq!(primary.reachable, Some(true));
        assert_eq!(
            primary.model_available,
            Some(true),
            "untagged means :latest"
        );
        assert_eq!(
            primary.models.as_deref(),
            Some(&["llama3.2:latest".to_string(), "qwen2.5:3b".to_string()][..])
        );
        assert!(report.all_reachable());
        assert_eq!(report.offer, None);
    }

    #[tokio::test]
    async fn when_no_server_answers_the_builtin_engine_is_offered_and_the_check_fails() {
        let report = check_providers(&settings(&closed_port(), "m"), true)
            .await
            .expect("report");
        assert_eq!(report.providers[0].reachable, Some(false));
        assert!(report.providers[0].error.is_some());
        assert!(!report.all_reachable());
        let offer = report.offer.expect("an offer");
        assert_eq!(offer.available, llm::HAS_BUILTIN);
    }

    #[tokio::test]
    async fn without_test_nothing_is_asked_and_the_row_says_only_what_is_configured() {
        let report = check_providers(&settings(&closed_port(), "m"), false)
            .await
            .expect("report");
        assert!(report.all_reachable());
        assert_eq!(report.offer, None);
        let row = serde_json::to_value(&report.providers[0]).expect("json");
        let keys: Vec<&str> = row
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["role", "kind", "base_url", "model", "api_key"]);
    }

    #[tokio::test]
    async fn fallbacks_are_named_in_the_order_they_are_tried() {
        let server = TestServer::start();
        let mut s = settings(&server.url(), "m");
        let mut fallback = s.providers[0].clone();
        fallback.base_url = closed_port();
        s.providers.push(fallback);
        let report = check_providers(&s, true).await.expect("report");
        let roles: Vec<&str> = report.providers.iter().map(|p| p.role.as_str()).collect();
        assert_eq!(roles, ["primary", "fallback 1"]);
        // One server answered: the check fails (the fallback is down) but nothing is
        // offered instead of a server that works.
        assert!(!report.all_reachable());
        assert_eq!(report.offer, None);
    }
}
