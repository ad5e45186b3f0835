//! Compile, as the app uses it: the engine's call loop ([`wikimind_engine::call`]), tasks
//! ([`wikimind_engine::tasks`]), prompts ([`wikimind_engine::prompts`]) and grounding
//! ([`wikimind_engine::ground`]) under one name, and the providers the app's settings name.

use std::sync::Arc;

pub use wikimind_engine::call::*;
pub use wikimind_engine::ground::{self, grounds, locate, locate_quote, readable, readable_source};
pub use wikimind_engine::ground::{ground_claims, ground_claims_in, GroundingIndex};
pub use wikimind_engine::prompts::*;
pub use wikimind_engine::tasks::parts::{chunk, notes};
pub use wikimind_engine::tasks::*;

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
