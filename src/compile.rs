//! Compile, as the app uses it: the engine's [`wikimind_engine::compile`] (prompts, the
//! call loop, grounding, the [`Compiler`]), and the providers the app's settings name.

use std::sync::Arc;

pub use wikimind_engine::compile::*;

use crate::config::Settings;
use crate::llm::{self, LlmError};

/// Builds the configured providers (the primary first, then the fallbacks), each sending
/// the API key its settings carry (see [`Settings::with_keys`]) and no other.
pub fn providers_from_settings(settings: &Settings) -> Result<Vec<ProviderSlot>, LlmError> {
    settings
        .providers
        .iter()
        .map(|p| {
            // The key as the settings resolved it (`Settings::with_keys`): this server's
            // own key, or none.
            let provider = llm::new_provider(
                p.kind,
                &p.base_url,
                settings.compile.provider_settings(p.api_key.clone()),
            )?;
            Ok(ProviderSlot {
                provider: Arc::from(provider),
                model: p.model.clone(),
            })
        })
        .collect()
}
