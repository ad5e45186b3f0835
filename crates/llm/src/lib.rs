//! Model providers: Ollama's native API and OpenAI-compatible servers, streamed.
//!
//! This module owns the conversation with a model server and nothing after it: it sends one
//! chat request, streams the answer back as [`StreamEvent`]s, and returns the raw text with
//! usage, finish reason and latency in a [`ChatResponse`]. It never parses or validates the
//! model's answer (the `structured` engine does).
//!
//! Both providers implement [`Provider`]:
//!
//! - [`OllamaProvider`]: `POST /api/chat` (NDJSON stream), the JSON Schema in `format`,
//!   `options.num_ctx` sized to the prompt when the caller does not give it.
//! - [`OpenAiProvider`]: `POST /v1/chat/completions` (SSE stream), the schema as a strict
//!   `json_schema` response format, falling back to `json_object` (and then to no response
//!   format) for servers that reject it, and remembering that.
//!
//! - `BuiltinProvider` (cargo feature `builtin`): a GGUF model run in-process by llama.cpp,
//!   decoding constrained token by token to the request's JSON Schema. [`gguf`] checks a
//!   model file first and [`schema_bounds`] derives the bounds its grammar needs.
//!
//! The HTTP providers retry what a retry can fix (refused or reset connections, 429, 5xx) with exponential
//! backoff, honour a first-byte and an idle timeout, stop promptly when the request's
//! cancellation token fires, and fail with an [`LlmError`] that names the address and says
//! what to do. API keys travel as [`Secret`]s that never print.

#[cfg(feature = "builtin")]
mod builtin;
mod error;
mod framing;
pub mod gguf;
mod keys;
mod ollama;
mod openai;
pub mod schema_bounds;
mod strict_schema;
mod transport;

#[cfg(feature = "builtin")]
pub use builtin::{
    BuiltinProvider, ConstraintEngine, EngineStats, RepeatScope, DEFAULT_REPEAT_PENALTY,
    DEFAULT_REPEAT_SCOPE, REPEAT_WINDOW,
};
pub use error::{LlmError, TimeoutPhase};
pub use keys::{
    key_id, stored_key, KeyStore, KeyStoreError, MemoryKeyStore, NoKeyStore, Secret, SystemKeyring,
};
pub use ollama::{estimate_num_ctx, ollama_base_from_host, OllamaProvider, DEFAULT_OLLAMA_URL};
pub use openai::OpenAiProvider;
pub use strict_schema::openai_strict_schema;
pub use transport::{ProviderSettings, RetryPolicy, Timeouts};

/// Cancels a request in flight; re-exported from `tokio-util`.
pub use tokio_util::sync::CancellationToken;

use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

/// `Result` with an [`LlmError`].
pub type Result<T, E = LlmError> = std::result::Result<T, E>;

/// The wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// Ollama's native API.
    Ollama,
    /// The OpenAI chat completions API (OpenAI, llama.cpp, LM Studio, vLLM, ...).
    OpenAiCompatible,
    /// The built-in engine: a GGUF model file run in-process (cargo feature `builtin`).
    Builtin,
}

impl ProviderKind {
    /// The settings name: `ollama` or `openai`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Ollama => "ollama",
            ProviderKind::OpenAiCompatible => "openai",
            ProviderKind::Builtin => "builtin",
        }
    }

    /// Parses a settings name (`ollama`, `openai`, `openai-compatible`, `builtin`),
    /// ignoring case.
    pub fn parse(name: &str) -> Option<ProviderKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "ollama" => Some(ProviderKind::Ollama),
            "openai" | "openai-compatible" | "openai_compatible" => {
                Some(ProviderKind::OpenAiCompatible)
            }
            "builtin" | "built-in" => Some(ProviderKind::Builtin),
            _ => None,
        }
    }

    /// How messages name the server: `Ollama`, `the OpenAI-compatible server`.
    pub fn server_name(self) -> &'static str {
        match self {
            ProviderKind::Ollama => "Ollama",
            ProviderKind::OpenAiCompatible => "the OpenAI-compatible server",
            ProviderKind::Builtin => "the built-in engine",
        }
    }

    /// How messages name the protocol.
    pub fn protocol_name(self) -> &'static str {
        match self {
            ProviderKind::Ollama => "Ollama",
            ProviderKind::OpenAiCompatible => "OpenAI chat completions",
            ProviderKind::Builtin => "in-process llama.cpp",
        }
    }
}

/// Whether the model a person asked for is among the models a server lists: the one rule
/// the CLI (`providers --test`) and the desktop app ("Test connection") both use.
///
/// For Ollama a name without a tag means its `:latest` tag, as `ollama run` reads it:
/// `llama3.2` is `llama3.2:latest`, never `llama3.2:1b`, and `llama3.2:1b` is only itself.
/// OpenAI-compatible servers and the built-in engine compare names exactly. An empty list
/// offers nothing.
pub fn model_available(kind: ProviderKind, wanted: &str, listed: &[String]) -> bool {
    let wanted = wanted.trim();
    match kind {
        ProviderKind::Ollama => {
            let wanted = ollama_tagged(wanted);
            listed
                .iter()
                .any(|name| ollama_tagged(name.trim()) == wanted)
        }
        ProviderKind::OpenAiCompatible | ProviderKind::Builtin => {
            listed.iter().any(|name| name.trim() == wanted)
        }
    }
}

/// An Ollama model name with its tag: `:latest` when it has none. The tag follows the last
/// `:` of the last path segment, so a registry's port (`host:5000/model`) is no tag.
fn ollama_tagged(name: &str) -> std::borrow::Cow<'_, str> {
    let last_segment = name.rsplit('/').next().unwrap_or(name);
    if last_segment.contains(':') {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(format!("{name}:latest"))
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Instructions.
    System,
    /// The person (or the program speaking for them).
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: String,
}

impl Message {
    /// A message with this role.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
        }
    }
}

/// One chat call.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// The model name as the server knows it.
    pub model: String,
    /// The conversation, usually a system and a user message.
    pub messages: Vec<Message>,
    /// JSON Schema the answer must follow; `None` = free text.
    pub schema: Option<Value>,
    /// JSON Schema each line of a JSONL answer must follow. Servers cannot be told about
    /// lines (Ollama's `format` and OpenAI's `response_format` describe one value), so they
    /// ignore it; the built-in engine constrains the answer line by line.
    pub line_schema: Option<Value>,
    /// Sampling temperature; `None` = the server's default.
    pub temperature: Option<f32>,
    /// The answer budget in tokens; `None` = the server's default.
    pub max_tokens: Option<u32>,
    /// Ollama's context window; `None` = sized to the prompt and the answer budget
    /// ([`estimate_num_ctx`]). Ignored by OpenAI-compatible servers.
    pub num_ctx: Option<u32>,
    /// Overrides the provider's first-byte timeout for this call.
    pub first_byte_timeout: Option<Duration>,
    /// Overrides the provider's idle timeout for this call.
    pub idle_timeout: Option<Duration>,
    /// Cancels the call: the provider stops reading and returns [`LlmError::Cancelled`].
    pub cancel: Option<CancellationToken>,
    /// What the answer's quotes and names may be drawn from. The built-in engine holds
    /// decoding to it (see [`AnswerGrounds`]); servers ignore it, and grounding after the
    /// answer checks their quotes instead.
    pub grounds: Option<AnswerGrounds>,
}

/// The texts a call is about and the names its prompt offered, for a provider that can hold
/// an answer's strings to them while decoding (the built-in engine). Servers ignore it.
///
/// The fields of the answer it applies to are named by the contract's conventions:
/// - a `quote` string is a contiguous run of at least two words of one of [`Self::texts`]
///   (never across a `...` or `…`), copied with its punctuation and JSON-escaped; in an
///   object with a `confidence`, a `"sourced"` claim always has one, so it grounds;
/// - in an object with a `quote` and a `page`, when every text is named, the quote is from
///   the text the `page` names;
/// - the top-level `title` is [`Self::title`] or a run of words of the texts (free when
///   `title` is `None`);
/// - the items of `concepts` and `backlink_suggestions` are runs of words of the texts or
///   one of [`Self::names`].
///
/// Everything else (claims, summaries, bodies, questions, confidences) stays free within
/// the schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerGrounds {
    /// The texts the call is about: a source's text, a part's, the quotes of a large
    /// source's parts, a page call's excerpts, the pages read for an answer.
    pub texts: Vec<GroundText>,
    /// Names the prompt offered (titles of pages, concept names).
    pub names: Vec<String>,
    /// The answer's own title, when it has one (a source's title).
    pub title: Option<String>,
}

/// One text of [`AnswerGrounds`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroundText {
    /// What a `page` field names it by (a page title), when quotes must say where they are
    /// from.
    pub name: Option<String>,
    /// The text.
    pub text: String,
}

impl GroundText {
    /// A text without a name.
    pub fn new(text: impl Into<String>) -> GroundText {
        GroundText {
            name: None,
            text: text.into(),
        }
    }

    /// A text a `page` field names by `name`.
    pub fn named(name: impl Into<String>, text: impl Into<String>) -> GroundText {
        GroundText {
            name: Some(name.into()),
            text: text.into(),
        }
    }
}

impl ChatRequest {
    /// A request with a system and a user message (an empty system message is left out);
    /// everything else at its default.
    pub fn new(
        model: impl Into<String>,
        system: impl Into<String>,
        user: impl Into<String>,
    ) -> Self {
        let system = system.into();
        let mut messages = Vec::with_capacity(2);
        if !system.is_empty() {
            messages.push(Message::new(Role::System, system));
        }
        messages.push(Message::new(Role::User, user));
        ChatRequest {
            model: model.into(),
            messages,
            schema: None,
            line_schema: None,
            temperature: None,
            max_tokens: None,
            num_ctx: None,
            first_byte_timeout: None,
            idle_timeout: None,
            cancel: None,
            grounds: None,
        }
    }

    /// Constrains the answer to this JSON Schema.
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    /// Asks for JSONL: one object of this JSON Schema per line (see
    /// [`ChatRequest::line_schema`]).
    pub fn with_line_schema(mut self, schema: Value) -> Self {
        self.line_schema = Some(schema);
        self
    }

    /// Sets the answer budget in tokens.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets the sampling temperature.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Holds the answer's quotes and names to these texts where the provider can (see
    /// [`AnswerGrounds`]).
    pub fn with_grounds(mut self, grounds: AnswerGrounds) -> Self {
        self.grounds = Some(grounds);
        self
    }

    /// Lets this token cancel the call.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Characters in all messages (for context sizing).
    pub fn prompt_chars(&self) -> usize {
        self.messages
            .iter()
            .map(|m| m.content.chars().count())
            .sum()
    }

    fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone().unwrap_or_default()
    }
}

/// What a provider reports while an answer streams in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// The next piece of the answer text.
    Delta(String),
    /// Forget every `Delta` received so far: the connection broke mid-answer and the
    /// request starts over, or the built-in engine took back a loop and sends the answer
    /// as kept again.
    Restart,
}

/// Why the answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// The model finished its answer.
    Stop,
    /// The answer hit the token budget (`max_tokens` / `num_predict`) and is cut off.
    Length,
    /// Something else, as the server named it (e.g. `content_filter`, or `unknown` when the
    /// server did not say).
    Other(String),
}

impl FinishReason {
    fn from_wire(reason: Option<&str>) -> FinishReason {
        match reason {
            Some("stop") | Some("eos") | Some("stop_sequence") => FinishReason::Stop,
            Some("length") | Some("max_tokens") => FinishReason::Length,
            Some(other) => FinishReason::Other(other.to_string()),
            None => FinishReason::Other("unknown".to_string()),
        }
    }
}

/// How the answer's shape was constrained on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputConstraint {
    /// No schema was asked for, or the server accepted none.
    None,
    /// The JSON Schema was enforced by the server (Ollama `format`, OpenAI `json_schema`).
    JsonSchema,
    /// Only "some JSON object" was enforced (OpenAI `json_object` fallback).
    JsonObject,
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The raw answer text, unparsed.
    pub text: String,
    /// The model that answered (as the server names it).
    pub model: String,
    /// Prompt tokens, when the server reported them.
    pub prompt_tokens: Option<u64>,
    /// Answer tokens, when the server reported them.
    pub completion_tokens: Option<u64>,
    /// Why the answer ended.
    pub finish: FinishReason,
    /// How the answer's shape was constrained.
    pub constraint: OutputConstraint,
    /// From the call to the end of the answer, retries included.
    pub latency: Duration,
    /// From the call to the first piece of the answer (of the attempt that succeeded).
    pub time_to_first_token: Option<Duration>,
    /// Attempts made (1 when nothing was retried).
    pub attempts: u32,
}

/// A model a server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// The name to put in [`ChatRequest::model`].
    pub name: String,
    /// Size on disk in bytes, when the server says.
    pub size_bytes: Option<u64>,
    /// Model family (e.g. `llama`), when the server says.
    pub family: Option<String>,
}

/// The event callback of [`Provider::chat`].
pub type EventCallback<'a> = &'a (dyn Fn(StreamEvent) + Send + Sync);

/// A model server.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Sends one chat request and streams the answer to `events` as it arrives. The
    /// returned text is everything streamed since the last [`StreamEvent::Restart`].
    async fn chat(&self, req: &ChatRequest, events: EventCallback<'_>) -> Result<ChatResponse>;

    /// The models the server offers.
    async fn list_models(&self) -> Result<Vec<ModelInfo>>;

    /// The model's context length in tokens, when the server can say (Ollama's
    /// `/api/show`); `None` when it cannot, and the configured default applies.
    async fn context_length(&self, _model: &str) -> Result<Option<u64>> {
        Ok(None)
    }

    /// Which protocol this provider speaks.
    fn kind(&self) -> ProviderKind;

    /// The base URL it talks to, e.g. `http://127.0.0.1:11434`, without any
    /// `user:password@` (fit to show).
    fn base_url(&self) -> &str;

    /// One line for people, e.g. `Ollama at http://127.0.0.1:11434`.
    fn describe(&self) -> String {
        match self.kind() {
            ProviderKind::Ollama => format!("Ollama at {}", self.base_url()),
            ProviderKind::OpenAiCompatible => {
                format!("OpenAI-compatible server at {}", self.base_url())
            }
            ProviderKind::Builtin => format!("the built-in engine with {}", self.base_url()),
        }
    }
}

/// Builds the provider for a kind, base URL and settings. For [`ProviderKind::Builtin`] the
/// "base URL" is the model file's path.
pub fn new_provider(
    kind: ProviderKind,
    base_url: &str,
    settings: ProviderSettings,
) -> Result<Box<dyn Provider>> {
    Ok(match kind {
        ProviderKind::Ollama => Box::new(OllamaProvider::new(base_url, settings)?),
        ProviderKind::OpenAiCompatible => Box::new(OpenAiProvider::new(base_url, settings)?),
        ProviderKind::Builtin => new_builtin(std::path::Path::new(base_url))?,
    })
}

/// Whether this build has the built-in engine (cargo feature `builtin`).
pub const HAS_BUILTIN: bool = cfg!(feature = "builtin");

#[cfg(feature = "builtin")]
fn new_builtin(model_path: &std::path::Path) -> Result<Box<dyn Provider>> {
    Ok(Box::new(BuiltinProvider::new(model_path)?))
}

#[cfg(not(feature = "builtin"))]
fn new_builtin(model_path: &std::path::Path) -> Result<Box<dyn Provider>> {
    Err(LlmError::InvalidConfig(format!(
        "this wikimind was built without the built-in engine, so it cannot run {} — rebuild it with the `builtin` cargo feature (`--features builtin`; `bash scripts/demo.sh` builds both the CLI and the app that way)",
        model_path.display()
    )))
}

/// Checks a base URL and drops trailing slashes.
fn normalise_base_url(base: &str) -> Result<String> {
    let trimmed = base.trim().trim_end_matches('/');
    let shown = wikimind_text::url::without_userinfo(trimmed);
    let parsed = url::Url::parse(trimmed)
        .map_err(|e| LlmError::InvalidConfig(format!("base URL {shown:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(LlmError::InvalidConfig(format!(
            "base URL {shown:?} must start with http:// or https:// and name a host"
        )));
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_available_by_the_one_rule_of_its_server() {
        use ProviderKind::*;
        let cases: &[(ProviderKind, &str, &[&str], bool)] = &[
            // Ollama: no tag means `:latest`.
            (Ollama, "llama3.2", &["llama3.2:latest"], true),
            (Ollama, "llama3.2", &["llama3.2:1b"], false),
            (Ollama, "llama3.2:1b", &["llama3.2:1b"], true),
            (Ollama, "llama3.2:1b", &["llama3.2:latest"], false),
            (Ollama, "llama3.2:latest", &["llama3.2"], true),
            (
                Ollama,
                "llama3.2",
                &["llama3.2:1b", "llama3.2:latest"],
                true,
            ),
            (Ollama, "llama3", &["llama3.2:latest"], false),
            (
                Ollama,
                "host:5000/ns/model",
                &["host:5000/ns/model:latest"],
                true,
            ),
            (Ollama, "hf.co/u/m:Q4_K_M", &["hf.co/u/m:Q4_K_M"], true),
            (Ollama, "qwen2.5:3b", &[], false),
            // OpenAI-compatible servers and the built-in engine: exact names.
            (OpenAiCompatible, "gpt-4o-mini", &["gpt-4o-mini"], true),
            (OpenAiCompatible, "llama3.2", &["llama3.2:latest"], false),
            (OpenAiCompatible, "default", &[], false),
            (Builtin, "tiny.gguf", &["tiny.gguf"], true),
            (Builtin, "tiny.gguf", &["other.gguf"], false),
        ];
        for (kind, wanted, listed, expected) in cases {
            let listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
            assert_eq!(
                model_available(*kind, wanted, &listed),
                *expected,
                "{kind} {wanted} in {listed:?}"
            );
        }
    }

    #[test]
    fn base_urls_are_checked_and_trimmed() {
        assert_eq!(
            normalise_base_url(" http://localhost:11434/ ").unwrap(),
            "http://localhost:11434"
        );
        for bad in ["localhost:11434", "ftp://x", "", "http://"] {
            let err = normalise_base_url(bad).unwrap_err();
            assert!(matches!(err, LlmError::InvalidConfig(_)), "{bad}: {err}");
        }
    }

    #[test]
    fn finish_reasons_from_the_wire() {
        assert_eq!(FinishReason::from_wire(Some("stop")), FinishReason::Stop);
        assert_eq!(
            FinishReason::from_wire(Some("length")),
            FinishReason::Length
        );
        assert_eq!(
            FinishReason::from_wire(Some("content_filter")),
            FinishReason::Other("content_filter".into())
        );
        assert_eq!(
            ProviderKind::parse("OpenAI"),
            Some(ProviderKind::OpenAiCompatible)
        );
    }
}
