//! Ollama's native API: `POST /api/chat` streamed as NDJSON, `GET /api/tags`,
//! `POST /api/show`.

use super::framing::LineSplitter;
use super::transport::{
    append_capped, AnswerLimit, Body, EventSink, Next, ProviderSettings, Transport,
};
use super::{
    normalise_base_url, ChatRequest, ChatResponse, EventCallback, FinishReason, LlmError,
    ModelInfo, OutputConstraint, Provider, ProviderKind, Result,
};
use async_trait::async_trait;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Where Ollama listens unless told otherwise.
pub const DEFAULT_OLLAMA_URL: &str = "http://127.0.0.1:11434";

/// The answer budget assumed for context sizing when the request sets none.
const ASSUMED_ANSWER_TOKENS: u32 = 2048;
/// Room for the chat template and the rounding of the estimate.
const CONTEXT_MARGIN_TOKENS: u64 = 256;

/// The context window to ask Ollama for: the prompt estimated at 3 characters per token
/// (rounded up), plus the answer budget, plus a margin, rounded up to a multiple of 1024,
/// at least 2048. Ollama's own default (2048 or 4096 tokens, depending on the version)
/// silently cuts long prompts.
pub fn estimate_num_ctx(prompt_chars: usize, max_tokens: Option<u32>) -> u32 {
    let prompt = (prompt_chars as u64).div_ceil(3);
    let answer = u64::from(max_tokens.unwrap_or(ASSUMED_ANSWER_TOKENS));
    let needed = prompt + answer + CONTEXT_MARGIN_TOKENS;
    let rounded = needed.div_ceil(1024).saturating_mul(1024).max(2048);
    u32::try_from(rounded).unwrap_or(u32::MAX / 1024 * 1024)
}

/// The base URL for an `OLLAMA_HOST` value, following Ollama's own rules: `host`,
/// `host:port`, `http://host[:port]`, `https://...`; no scheme means `http` and port 11434
/// (with a scheme, the scheme's default port); an empty or unspecified host (`0.0.0.0`,
/// `::`) means the local machine (`127.0.0.1`). A path is kept (Ollama behind a proxy).
pub fn ollama_base_from_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    if host.is_empty() {
        return DEFAULT_OLLAMA_URL.to_string();
    }
    let (scheme, rest, default_port) = match host.split_once("://") {
        Some((scheme, rest)) => {
            let scheme = scheme.to_ascii_lowercase();
            let port = if scheme == "https" { "443" } else { "80" };
            (scheme, rest, port)
        }
        None => ("http".to_string(), host, "11434"),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    // Split host and port, minding bracketed IPv6 (`[::1]:11434`).
    let (name, port) = if let Some(stripped) = authority.strip_prefix('[') {
        match stripped.split_once(']') {
            Some((name, after)) => (name, after.strip_prefix(':').unwrap_or("")),
            None => (stripped, ""),
        }
    } else if authority.matches(':').count() > 1 {
        (authority, "") // bare IPv6 without a port
    } else {
        match authority.split_once(':') {
            Some((name, port)) => (name, port),
            None => (authority, ""),
        }
    };
    let name = match name {
        "" | "0.0.0.0" | "::" | "0:0:0:0:0:0:0:0" => "127.0.0.1".to_string(),
        n if n.contains(':') => format!("[{n}]"),
        n => n.to_string(),
    };
    let port = if port.is_empty() { default_port } else { port };
    format!("{scheme}://{name}:{port}{path}")
}

/// A provider speaking Ollama's native API.
#[derive(Debug)]
pub struct OllamaProvider {
    transport: Transport,
}

impl OllamaProvider {
    /// A provider for the Ollama server at `base_url` (e.g. `http://127.0.0.1:11434`).
    pub fn new(base_url: &str, settings: ProviderSettings) -> Result<Self> {
        let base = normalise_base_url(base_url)?;
        Ok(OllamaProvider {
            transport: Transport::new(ProviderKind::Ollama, base, settings)?,
        })
    }

    /// The model's trained context length from `POST /api/show`, when Ollama reports it.
    pub async fn show_context_length(&self, model: &str) -> Result<Option<u64>> {
        let t = &self.transport;
        let cancel = CancellationToken::new();
        let url = format!("{}/api/show", t.base);
        let builder = t
            .request(reqwest::Method::POST, &url)
            .json(&json!({"model": model}));
        let response = t
            .send(builder, &cancel, t.settings.timeouts.first_byte)
            .await?;
        if !response.status().is_success() {
            let error = t.status_error(response, &cancel).await;
            return Err(self.model_error(error, model));
        }
        let body = t.read_body(response, &cancel, 16 * 1024 * 1024).await?;
        let info: Value = serde_json::from_slice(&body)
            .map_err(|e| t.protocol(format!("/api/show answered with invalid JSON: {e}")))?;
        Ok(info["model_info"].as_object().and_then(|m| {
            m.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, v)| v.as_u64())
        }))
    }

    /// The JSON body of `/api/chat` for a request.
    fn chat_body(&self, req: &ChatRequest) -> Value {
        let messages: Vec<Value> = req
            .messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect();
        let mut options = Map::new();
        let num_ctx = req
            .num_ctx
            .unwrap_or_else(|| estimate_num_ctx(req.prompt_chars(), req.max_tokens));
        options.insert("num_ctx".into(), json!(num_ctx));
        if let Some(max) = req.max_tokens {
            options.insert("num_predict".into(), json!(max));
        }
        if let Some(t) = req.temperature {
            options.insert("temperature".into(), json!(t));
        }
        let mut body = json!({
            "model": req.model,
            "messages": messages,
            "stream": true,
            "options": options,
        });
        if let Some(schema) = &req.schema {
            body["format"] = schema.clone();
        }
        body
    }

    /// Turns "model not found" answers into [`LlmError::ModelNotFound`].
    fn model_error(&self, error: LlmError, model: &str) -> LlmError {
        let message = match &error {
            LlmError::Http {
                status: 400 | 404,
                message,
                ..
            }
            | LlmError::Server { message, .. } => message,
            _ => return error,
        };
        let lower = message.to_ascii_lowercase();
        if lower.contains("not found") && (lower.contains("model") || lower.contains("pull")) {
            return LlmError::ModelNotFound {
                kind: ProviderKind::Ollama,
                url: self.transport.shown.clone(),
                model: model.to_string(),
                detail: message.clone(),
            };
        }
        error
    }

    async fn attempt(
        &self,
        req: &ChatRequest,
        body: &Value,
        sink: &EventSink<'_>,
        cancel: &CancellationToken,
        started: Instant,
    ) -> Result<ChatResponse> {
        let t = &self.transport;
        let first_byte = req
            .first_byte_timeout
            .unwrap_or(t.settings.timeouts.first_byte);
        let limit = AnswerLimit::new(req.max_tokens, first_byte);
        let url = format!("{}/api/chat", t.base);
        let builder = t.request(reqwest::Method::POST, &url).json(body);
        let response = t.send(builder, cancel, first_byte).await?;
        if !response.status().is_success() {
            let error = t.status_error(response, cancel).await;
            return Err(self.model_error(error, &req.model));
        }
        let mut body = Body::new(t, response, first_byte, req.idle_timeout);
        let mut lines = LineSplitter::default();
        let mut state = StreamState::new(req, limit.text_bytes);
        let mut read = 0;
        loop {
            let (new_lines, at_end) = match body.next_within(cancel, &limit, &mut read).await? {
                Next::Bytes(bytes) => (
                    lines
                        .push(&bytes)
                        .map_err(|_| t.protocol("a line of the stream is larger than 32 MiB"))?,
                    false,
                ),
                Next::End => (lines.finish().into_iter().collect(), true),
                // Past the answer's limits: as if Ollama had stopped at `num_predict`.
                Next::Cut => return Ok(state.cut_off(req)),
            };
            for line in new_lines {
                if let Some(done) = self.handle_line(&line, &mut state, sink, req, started)? {
                    return Ok(done);
                }
                if state.cut {
                    return Ok(state.cut_off(req));
                }
            }
            if at_end {
                return Err(t.interrupted("the stream ended before Ollama's final message"));
            }
        }
    }

    /// Handles one NDJSON line; returns the response once the final line arrived.
    fn handle_line(
        &self,
        line: &str,
        state: &mut StreamState,
        sink: &EventSink<'_>,
        req: &ChatRequest,
        started: Instant,
    ) -> Result<Option<ChatResponse>> {
        let t = &self.transport;
        let line = line.trim();
        if line.is_empty() {
            return Ok(None);
        }
        let value: Value = serde_json::from_str(line).map_err(|_| {
            t.protocol(format!(
                "expected a JSON line, got {:?}",
                super::transport::shorten(line, 120)
            ))
        })?;
        if !value.is_object() {
            return Err(t.protocol(format!(
                "expected a JSON object, got {}",
                super::transport::shorten(line, 120)
            )));
        }
        if let Some(error) = value.get("error") {
            let message = error
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| error.to_string());
            let error = LlmError::Server {
                kind: ProviderKind::Ollama,
                url: t.shown.clone(),
                message,
            };
            return Err(self.model_error(error, &req.model));
        }
        if let Some(content) = value["message"]["content"].as_str() {
            if !content.is_empty() {
                state.first_token.get_or_insert_with(|| started.elapsed());
                let (kept, cut) = append_capped(&mut state.text, content, state.text_limit);
                sink.delta(kept);
                if cut {
                    state.cut = true;
                    return Ok(None);
                }
            }
        }
        if let Some(model) = value["model"].as_str() {
            state.model = model.to_string();
        }
        if value["done"] != true {
            return Ok(None);
        }
        let finish = match value["done_reason"].as_str() {
            None => FinishReason::Stop, // older Ollama versions only say `done`
            reason => FinishReason::from_wire(reason),
        };
        let mut response = state.response(req, finish);
        response.prompt_tokens = value["prompt_eval_count"].as_u64();
        response.completion_tokens = value["eval_count"].as_u64();
        Ok(Some(response))
    }
}

/// What one attempt collected so far.
struct StreamState {
    text: String,
    model: String,
    first_token: Option<Duration>,
    /// The most answer text kept ([`AnswerLimit::text_bytes`]).
    text_limit: usize,
    /// The answer outgrew `text_limit`.
    cut: bool,
}

impl StreamState {
    fn new(req: &ChatRequest, text_limit: usize) -> Self {
        StreamState {
            text: String::new(),
            model: req.model.clone(),
            first_token: None,
            text_limit,
            cut: false,
        }
    }

    /// The answer so far, ended for `finish`.
    fn response(&mut self, req: &ChatRequest, finish: FinishReason) -> ChatResponse {
        ChatResponse {
            text: std::mem::take(&mut self.text),
            model: std::mem::take(&mut self.model),
            prompt_tokens: None,
            completion_tokens: None,
            finish,
            constraint: if req.schema.is_some() {
                OutputConstraint::JsonSchema
            } else {
                OutputConstraint::None
            },
            latency: Duration::ZERO,
            time_to_first_token: self.first_token,
            attempts: 0,
        }
    }

    /// The answer so far, cut off at the answer's limits like one that hit its budget.
    fn cut_off(&mut self, req: &ChatRequest) -> ChatResponse {
        self.response(req, FinishReason::Length)
    }
}

#[async_trait]
impl Provider for OllamaProvider {
    async fn context_length(&self, model: &str) -> Result<Option<u64>> {
        self.show_context_length(model).await
    }

    async fn chat(&self, req: &ChatRequest, events: EventCallback<'_>) -> Result<ChatResponse> {
        let started = Instant::now();
        let cancel = req.cancel_token();
        let body = self.chat_body(req);
        let sink = EventSink::new(events);
        let attempts = std::sync::atomic::AtomicU32::new(0);
        let mut response = self
            .transport
            .with_retries(&cancel, &sink, || {
                attempts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Box::pin(self.attempt(req, &body, &sink, &cancel, started))
            })
            .await?;
        response.latency = started.elapsed();
        response.attempts = attempts.into_inner();
        Ok(response)
    }

    async fn list_models(&self) -> Result<Vec<ModelInfo>> {
        let t = &self.transport;
        let url = format!("{}/api/tags", t.base);
        let value: Value = t.get_json(&url, "/api/tags").await?;
        let models = value["models"]
            .as_array()
            .ok_or_else(|| t.protocol("/api/tags has no `models` list"))?;
        Ok(models
            .iter()
            .filter_map(|m| {
                let name = m["name"].as_str().or(m["model"].as_str())?;
                Some(ModelInfo {
                    name: name.to_string(),
                    size_bytes: m["size"].as_u64(),
                    family: m["details"]["family"].as_str().map(str::to_string),
                })
            })
            .collect())
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Ollama
    }

    fn base_url(&self) -> &str {
        &self.transport.shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_host_forms() {
        let cases = [
            ("", "http://127.0.0.1:11434"),
            ("0.0.0.0", "http://127.0.0.1:11434"),
            ("0.0.0.0:8080", "http://127.0.0.1:8080"),
            ("localhost:11434", "http://localhost:11434"),
            ("example.com", "http://example.com:11434"),
            ("http://example.com", "http://example.com:80"),
            ("https://example.com/", "https://example.com:443"),
            ("http://10.0.0.2:11434", "http://10.0.0.2:11434"),
            (
                "https://proxy.example/ollama",
                "https://proxy.example:443/ollama",
            ),
            ("[::1]:9000", "http://[::1]:9000"),
            ("::1", "http://[::1]:11434"),
            ("[::]", "http://127.0.0.1:11434"),
            (":11435", "http://127.0.0.1:11435"),
        ];
        for (host, expected) in cases {
            assert_eq!(
                ollama_base_from_host(host),
                expected,
                "OLLAMA_HOST={host:?}"
            );
        }
    }

    #[test]
    fn context_is_sized_to_prompt_and_answer() {
        // 3000 chars -> 1000 tokens + 1000 answer + 256 margin = 2256 -> 3072
        assert_eq!(estimate_num_ctx(3000, Some(1000)), 3072);
        assert_eq!(estimate_num_ctx(0, Some(10)), 2048);
        // no budget: assume 2048 for the answer
        assert_eq!(estimate_num_ctx(30_000, None), 13312);
        assert_eq!(estimate_num_ctx(usize::MAX, Some(u32::MAX)) % 1024, 0);
    }
}
