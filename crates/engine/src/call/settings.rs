//! How compiles run: retries, budgets, timeouts (the `[compile]` table of the config file,
//! which the app's `config` reads into this).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::llm::{ProviderSettings, RetryPolicy, Secret, Timeouts};

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

impl CompileSettings {
    /// How a provider's client waits and retries under these settings, sending `api_key`
    /// (the one server's own key, or none). The compiler and the eval build every client
    /// with it.
    pub fn provider_settings(&self, api_key: Option<Secret>) -> ProviderSettings {
        ProviderSettings {
            timeouts: Timeouts {
                connect: Duration::from_secs(self.connect_timeout_secs),
                first_byte: Duration::from_secs(self.first_byte_timeout_secs),
                idle: Duration::from_secs(self.idle_timeout_secs),
            },
            retry: RetryPolicy {
                max_retries: self.transport_retries,
                ..RetryPolicy::default()
            },
            api_key,
        }
    }
}
