//! OpenAI-compatible servers: `POST /v1/chat/completions` streamed as server-sent events,
//! `GET /v1/models`.

use super::framing::SseDecoder;
use super::strict_schema::openai_strict_schema;
use super::transport::{
    append_capped, error_message, shorten, AnswerLimit, Body, EventSink, Next, ProviderSettings,
    Transport,
};
use super::{
    normalise_base_url, ChatRequest, ChatResponse, EventCallback, FinishReason, LlmError,
    ModelInfo, OutputConstraint, Provider, ProviderKind, Result,
};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A provider speaking the OpenAI chat completions API.
///
/// A schema is first sent as a strict `json_schema` response format. Servers that reject
/// that (HTTP 400/422, or a 500 that blames the response format) are asked again with
/// `json_object`, and if that is rejected too, with no response format; the provider
/// remembers the step that worked for its later requests.
#[derive(Debug)]
pub struct OpenAiProvider {
    transport: Transport,
    /// `.../v1`, where the endpoints live.
    api_root: String,
    /// The most constrained response format the server accepted so far (see `LEVELS`).
    format_level: AtomicU8,
}

/// Response formats from most to least constrained.
const LEVELS: [OutputConstraint; 3] = [
    OutputConstraint::JsonSchema,
    OutputConstraint::JsonObject,
    OutputConstraint::None,
];

impl OpenAiProvider {
    /// A provider for the server at `base_url`, with or without the `/v1` suffix
    /// (`http://127.0.0.1:8080` and `http://127.0.0.1:8080/v1` are the same). A base URL
    /// with another path (e.g. `https://host/openai/v1beta`) is used as the API root as is.
    pub fn new(base_url: &str, settings: ProviderSettings) -> Result<Self> {
        let base = normalise_base_url(base_url)?;
        let has_path = url::Url::parse(&base)
            .map(|u| !matches!(u.path(), "" | "/"))
            .unwrap_or(false);
        let api_root = if has_path {
            base.clone()
        } else {
            format!("{base}/v1")
        };
        Ok(OpenAiProvider {
            transport: Transport::new(ProviderKind::OpenAiCompatible, base, settings)?,
            api_root,
            format_level: AtomicU8::new(0),
        })
    }

    /// The chat completions endpoint.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.api_root)
    }

    fn chat_body(&self, req: &ChatRequest, constraint: OutputConstraint) -> Value {
        let messages: Vec<Value> = req
            .messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect();
        let mut body = json!({
            "model": req.model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(t) = req.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(max) = req.max_tokens {
            body["max_tokens"] = json!(max);
        }
        match (&req.schema, constraint) {
            (Some(schema), OutputConstraint::JsonSchema) => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {
                        "name": "compilation_result",
                        "schema": openai_strict_schema(schema),
                        "strict": true,
                    }
                });
            }
            (Some(_), OutputConstraint::JsonObject) => {
                body["response_format"] = json!({"type": "json_object"});
            }
            _ => {}
        }
        body
    }

    /// Whether an error status means "I do not support that response format".
    fn rejects_format(error: &LlmError) -> bool {
        match error {
            LlmError::Http {
                status: 400 | 422, ..
            } => true,
            LlmError::Http {
                status: 500..=599,
                message,
                ..
            } => {
                let m = message.to_ascii_lowercase();
                m.contains("response_format") || m.contains("json_schema")
            }
            _ => false,
        }
    }

    fn model_error(&self, error: LlmError, model: &str) -> LlmError {
        let LlmError::Http {
            status: 400 | 404,
            message,
            ..
        } = &error
        else {
            return error;
        };
        let lower = message.to_ascii_lowercase();
        let about_model = lower.contains("model")
            && (lower.contains("not found")
                || lower.contains("does not exist")
                || lower.contains("not exist")
                || lower.contains("unknown"));
        if about_model {
            return LlmError::ModelNotFound {
                kind: ProviderKind::OpenAiCompatible,
                url: self.transport.shown.clone(),
                model: model.to_string(),
                detail: message.clone(),
            };
        }
        error
    }

    /// One HTTP exchange. A response-format rejection comes back as `Ok(Err(..))` so the
    /// retry loop leaves it to the fallback.
    async fn attempt(
        &self,
        req: &ChatRequest,
        body: &Value,
        constraint: OutputConstraint,
        sink: &EventSink<'_>,
        cancel: &CancellationToken,
        started: Instant,
    ) -> Result<std::result::Result<ChatResponse, LlmError>> {
        let t = &self.transport;
        let first_byte = req
            .first_byte_timeout
            .unwrap_or(t.settings.timeouts.first_byte);
        let limit = AnswerLimit::new(req.max_tokens, first_byte);
        let url = self.chat_url();
        let builder = t.request(reqwest::Method::POST, &url).json(body);
        let response = t.send(builder, cancel, first_byte).await?;
        if !response.status().is_success() {
            let error = t.status_error(response, cancel).await;
            let error = self.model_error(error, &req.model);
            if constraint != OutputConstraint::None && Self::rejects_format(&error) {
                return Ok(Err(error));
            }
            return Err(error);
        }
        let is_sse = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_none_or(|ct| ct.contains("event-stream") || !ct.contains("json"));
        let mut body = Body::new(t, response, first_byte, req.idle_timeout);
        let mut state = SseState {
            text: String::new(),
            model: req.model.clone(),
            finish: None,
            prompt_tokens: None,
            completion_tokens: None,
            first_token: None,
            done: false,
            events: 0,
            text_limit: limit.text_bytes,
            cut: false,
        };
        let mut read = 0;
        if !is_sse {
            // A server that ignored `stream: true` and sent one completion object. Past the
            // limits it cannot be parsed, so the answer is cut off with no text.
            let mut bytes = Vec::new();
            loop {
                match body.next_within(cancel, &limit, &mut read).await? {
                    Next::Bytes(chunk) => bytes.extend_from_slice(&chunk),
                    Next::End => break,
                    Next::Cut => {
                        state.cut = true;
                        break;
                    }
                }
                if bytes.len() > super::framing::MAX_FRAME {
                    return Err(t.protocol("the answer is larger than 32 MiB"));
                }
            }
            if !state.cut {
                self.handle_completion(&bytes, &mut state, sink, started)?;
            }
        } else {
            let mut decoder = SseDecoder::default();
            while !state.done && !state.cut {
                let chunk = match body.next_within(cancel, &limit, &mut read).await? {
                    Next::Bytes(chunk) => chunk,
                    Next::End => {
                        if let Some(data) = decoder.finish() {
                            self.handle_event(&data, &mut state, sink, started)?;
                        }
                        break;
                    }
                    Next::Cut => {
                        state.cut = true;
                        break;
                    }
                };
                let events = decoder
                    .push(&chunk)
                    .map_err(|_| t.protocol("an event of the stream is larger than 32 MiB"))?;
                for data in events {
                    self.handle_event(&data, &mut state, sink, started)?;
                    if state.done || state.cut {
                        break;
                    }
                }
            }
            if !state.cut && state.events == 0 {
                return Err(t.protocol("the stream held no server-sent events"));
            }
            if !state.cut && !state.done && state.finish.is_none() {
                return Err(t.interrupted("the stream ended before the answer finished"));
            }
        }
        // Past the answer's limits: as if the server had stopped at `max_tokens`.
        let finish = if state.cut {
            FinishReason::Length
        } else {
            FinishReason::from_wire(state.finish.as_deref())
        };
        Ok(Ok(ChatResponse {
            text: state.text,
            model: state.model,
            prompt_tokens: state.prompt_tokens,
            completion_tokens: state.completion_tokens,
            finish,
            constraint: if req.schema.is_some() {
                constraint
            } else {
                OutputConstraint::None
            },
            latency: Duration::ZERO,
            time_to_first_token: state.first_token,
            attempts: 0,
        }))
    }

    fn handle_event(
        &self,
        data: &str,
        state: &mut SseState,
        sink: &EventSink<'_>,
        started: Instant,
    ) -> Result<()> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(());
        }
        state.events += 1;
        if data == "[DONE]" {
            state.done = true;
            return Ok(());
        }
        let value: Value = serde_json::from_str(data).map_err(|_| {
            self.transport.protocol(format!(
                "expected a JSON event, got {:?}",
                shorten(data, 120)
            ))
        })?;
        self.check_error(&value, data)?;
        let choice = &value["choices"][0];
        if let Some(content) = choice["delta"]["content"].as_str() {
            state.add(content, sink, started);
        }
        state.read_common(&value, choice);
        Ok(())
    }

    fn handle_completion(
        &self,
        bytes: &[u8],
        state: &mut SseState,
        sink: &EventSink<'_>,
        started: Instant,
    ) -> Result<()> {
        let value: Value = serde_json::from_slice(bytes).map_err(|_| {
            self.transport.protocol(format!(
                "expected a chat completion, got {:?}",
                shorten(&String::from_utf8_lossy(bytes), 120)
            ))
        })?;
        self.check_error(&value, "")?;
        let choice = &value["choices"][0];
        let Some(content) = choice["message"]["content"].as_str() else {
            return Err(self
                .transport
                .protocol("the completion has no choices[0].message.content"));
        };
        state.add(content, sink, started);
        state.read_common(&value, choice);
        state.finish.get_or_insert_with(|| "stop".to_string());
        Ok(())
    }

    fn check_error(&self, value: &Value, raw: &str) -> Result<()> {
        if value.get("error").is_some_and(|e| !e.is_null()) {
            let message = error_message(value.to_string().as_bytes());
            let message = if message.is_empty() {
                raw.to_string()
            } else {
                message
            };
            return Err(LlmError::Server {
                kind: ProviderKind::OpenAiCompatible,
                url: self.transport.shown.clone(),
                message,
            });
        }
        Ok(())
    }
}

/// What one attempt collected so far.
struct SseState {
    text: String,
    model: String,
    finish: Option<String>,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    first_token: Option<Duration>,
    done: bool,
    /// Non-empty events seen.
    events: u32,
    /// The most answer text kept ([`AnswerLimit::text_bytes`]).
    text_limit: usize,
    /// The answer outgrew `text_limit`, or the body its other limits.
    cut: bool,
}

impl SseState {
    fn add(&mut self, content: &str, sink: &EventSink<'_>, started: Instant) {
        if !content.is_empty() {
            self.first_token.get_or_insert_with(|| started.elapsed());
            let (kept, cut) = append_capped(&mut self.text, content, self.text_limit);
            sink.delta(kept);
            self.cut |= cut;
        }
    }

    fn read_common(&mut self, value: &Value, choice: &Value) {
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish = Some(reason.to_string());
        }
        if let Some(model) = value["model"].as_str() {
            if !model.is_empty() {
                self.model = model.to_string();
            }
        }
        let usage = &value["usage"];
        if let Some(n) = usage["prompt_tokens"].as_u64() {
            self.prompt_tokens = Some(n);
        }
        if let Some(n) = usage["completion_tokens"].as_u64() {
            self.completion_tokens = Some(n);
        }
    }
}

#[async_trait]
impl Provider for OpenAiProvider {
    async fn chat(&self, req: &ChatRequest, events: EventCallback<'_>) -> Result<ChatResponse> {
        let started = Instant::now();
        let cancel = req.cancel_token();
        let sink = EventSink::new(events);
        let attempts = AtomicU32::new(0);
        let mut level = usize::from(self.format_level.load(Ordering::Relaxed)).min(2);
        if req.schema.is_none() {
            level = 2;
        }
        loop {
            let constraint = LEVELS[level];
            let body = self.chat_body(req, constraint);
            let outcome = self
                .transport
                .with_retries(&cancel, &sink, || {
                    attempts.fetch_add(1, Ordering::Relaxed);
                    Box::pin(self.attempt(req, &body, constraint, &sink, &cancel, started))
                })
                .await?;
            match outcome {
                Ok(mut response) => {
                    if req.schema.is_some() {
                        // Later requests start with the format that worked.
                        self.format_level.store(level as u8, Ordering::Relaxed);
                    }
                    response.latency = started.elapsed();
                    response.attempts = attempts.load(Ordering::Relaxed);
                    return Ok(response);
                }
                Err(_rejection) if level + 1 < LEVELS.len() => level += 1,
                Err(rejection) => return Err(rejection),
            }
        }
    }

    async fn list_models(&self) -> Result<Vec<ModelInfo>> {
        let t = &self.transport;
        let url = format!("{}/models", self.api_root);
        let value: Value = t.get_json(&url, "/models").await?;
        let data = value["data"]
            .as_array()
            .ok_or_else(|| t.protocol("/models has no `data` list"))?;
        Ok(data
            .iter()
            .filter_map(|m| {
                Some(ModelInfo {
                    name: m["id"].as_str()?.to_string(),
                    size_bytes: None,
                    family: None,
                })
            })
            .collect())
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAiCompatible
    }

    fn base_url(&self) -> &str {
        &self.transport.shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v1_suffix_is_optional() {
        let with = OpenAiProvider::new("http://127.0.0.1:8080/v1/", Default::default()).unwrap();
        let without = OpenAiProvider::new("http://127.0.0.1:8080", Default::default()).unwrap();
        assert_eq!(with.chat_url(), "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(
            without.chat_url(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        let gemini =
            OpenAiProvider::new("https://host.example/v1beta/openai", Default::default()).unwrap();
        assert_eq!(
            gemini.chat_url(),
            "https://host.example/v1beta/openai/chat/completions"
        );
    }
}
