//! The call log: what the calls of one asking cost and how each fared ([`CallLog`]), and the
//! last call that answered, for the compile log ([`LastCall`] → [`CompileRecord`]).

use crate::call::attempt::{repair_names, AttemptRecord};
use crate::call::step::{Judged, Judgement};
use crate::call::Usage;
use crate::llm::ChatResponse;
use crate::store::CompileRecord;

/// The calls made while asking for one answer: what they cost, how each fared, and the
/// notes for people they left (earlier rejected attempts).
#[derive(Debug, Default)]
pub struct CallLog {
    /// Calls made and the tokens the servers reported.
    pub usage: Usage,
    /// Every call, in order.
    pub attempts: Vec<AttemptRecord>,
    /// Notes for people: which attempt was rejected, and why.
    pub warnings: Vec<String>,
    /// The last call that answered (empty when none did).
    pub last: LastCall,
}

/// What the last model call returned, for the compile log.
#[derive(Debug, Default, Clone)]
pub struct LastCall {
    /// Provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The model as the server named it in its answer.
    pub model: String,
    /// The attempt with this provider, from 1.
    pub attempt: u32,
    tokens_in: Option<u64>,
    tokens_out: Option<u64>,
    latency_ms: u64,
    raw: String,
    repairs: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
}

impl LastCall {
    /// The call `attempt` of provider `label` that answered `resp`, judged `judgement`.
    pub fn answered<A: Judged>(
        label: &str,
        attempt: u32,
        resp: &ChatResponse,
        judgement: &Judgement<A>,
        cut_off: bool,
    ) -> LastCall {
        LastCall {
            provider: label.to_string(),
            model: resp.model.clone(),
            attempt,
            tokens_in: resp.prompt_tokens,
            tokens_out: resp.completion_tokens,
            latency_ms: resp.latency.as_millis() as u64,
            raw: resp.text.clone(),
            repairs: repair_names(judgement.repairs()),
            truncated: cut_off,
        }
    }

    /// The compile log's record of this call.
    pub fn record(
        &self,
        prompt_version: &str,
        warnings: Vec<String>,
        truncated: bool,
    ) -> CompileRecord {
        let (provider, model) = match self.provider.split_once(':') {
            Some((p, m)) if self.model.is_empty() => (p.to_string(), m.to_string()),
            Some((p, _)) => (p.to_string(), self.model.clone()),
            None => (self.provider.clone(), self.model.clone()),
        };
        CompileRecord {
            provider,
            model,
            prompt_version: prompt_version.to_string(),
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            latency_ms: self.latency_ms,
            attempt: self.attempt,
            repairs: self.repairs.clone(),
            warnings,
            truncated,
            raw_answer: self.raw.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_names_the_model_that_answered_else_the_one_configured() {
        // (label, model the server named) → (provider, model) in the log
        let table = [
            ("ollama:qwen2.5:3b", "", ("ollama", "qwen2.5:3b")),
            (
                "ollama:qwen2.5:3b",
                "qwen2.5:3b-q4",
                ("ollama", "qwen2.5:3b-q4"),
            ),
            ("builtin", "m", ("builtin", "m")),
        ];
        for (label, model, (provider, want_model)) in table {
            let last = LastCall {
                provider: label.into(),
                model: model.into(),
                ..LastCall::default()
            };
            let record = last.record("v1", Vec::new(), false);
            assert_eq!(
                (record.provider.as_str(), record.model.as_str()),
                (provider, want_model)
            );
        }
    }
}
