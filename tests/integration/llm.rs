//! Providers against a local server that speaks the real Ollama and OpenAI wire protocols
//! (`wikimind-testserver`), streaming included.

use serde_json::{json, Value};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wikimind::config::{Overrides, Settings};
use wikimind::llm::{
    estimate_num_ctx, model_available, CancellationToken, ChatRequest, ChatResponse, FinishReason,
    KeyStore, LlmError, MemoryKeyStore, NoKeyStore, OllamaProvider, OpenAiProvider,
    OutputConstraint, Provider, ProviderKind, ProviderSettings, RetryPolicy, Secret, StreamEvent,
    TimeoutPhase, Timeouts,
};
use wikimind::view::{self, ProviderForm, ProviderKindView, SettingsView};
use wikimind::wiki::Wiki;
use wikimind_testserver::{Finish, Reply, TestServer};

/// Short waits so failures show quickly; retries almost without delay.
fn fast() -> ProviderSettings {
    ProviderSettings {
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            first_byte: Duration::from_secs(5),
            idle: Duration::from_secs(2),
        },
        retry: RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_secs(5),
        },
        api_key: None,
    }
}

fn ollama(server: &TestServer) -> OllamaProvider {
    OllamaProvider::new(&server.url(), fast()).unwrap()
}

fn openai(server: &TestServer) -> OpenAiProvider {
    OpenAiProvider::new(&server.openai_url(), fast()).unwrap()
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1},
            "concepts": {"type": "array", "items": {"type": "string"}, "default": []}
        },
        "required": ["title"]
    })
}

fn request() -> ChatRequest {
    ChatRequest::new("test-model", "Answer in JSON.", "Source: the sky is blue.")
}

/// Runs a chat, collecting the streamed events.
async fn chat(
    provider: &dyn Provider,
    req: &ChatRequest,
) -> (Result<ChatResponse, LlmError>, Vec<StreamEvent>) {
    let events = Mutex::new(Vec::new());
    let on_event = |e: StreamEvent| events.lock().unwrap().push(e);
    let result = provider.chat(req, &on_event).await;
    (result, events.into_inner().unwrap())
}

fn deltas(events: &[StreamEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Delta(t) => Some(t.clone()),
            StreamEvent::Restart => None,
        })
        .collect()
}

/// A port nothing listens on: bound, then released.
fn closed_port() -> u16 {
    wikimind_testserver::closed_port()
}

#[tokio::test]
async fn ollama_streams_the_answer_in_pieces_with_usage() {
    let answer = r#"{"title":"Sky","concepts":["colour"]}"#;
    let server = TestServer::with_replies([Reply::text(answer).chunk_chars(5).usage(42, 17)]);
    let req = request().with_schema(schema()).with_max_tokens(1000);
    let (result, events) = chat(&ollama(&server), &req).await;
    let response = result.unwrap();

    assert_eq!(response.text, answer);
    let pieces = deltas(&events);
    assert!(pieces.len() >= 5, "expected several deltas, got {pieces:?}");
    assert_eq!(pieces.concat(), answer);
    assert_eq!(response.prompt_tokens, Some(42));
    assert_eq!(response.completion_tokens, Some(17));
    assert_eq!(response.finish, FinishReason::Stop);
    assert_eq!(response.constraint, OutputConstraint::JsonSchema);
    assert_eq!(response.model, "test-model");
    assert_eq!(response.attempts, 1);

    let sent = &server.chat_requests()[0].body;
    assert_eq!(
        sent["format"],
        schema(),
        "the schema travels unchanged in `format`"
    );
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["options"]["num_predict"], 1000);
    let expected_ctx = estimate_num_ctx(req.prompt_chars(), Some(1000));
    assert_eq!(sent["options"]["num_ctx"], expected_ctx);
    assert_eq!(sent["messages"][0]["role"], "system");
    assert_eq!(sent["messages"][1]["content"], "Source: the sky is blue.");
}

#[tokio::test]
async fn ollama_without_schema_sends_no_format_and_keeps_a_given_num_ctx() {
    let server = TestServer::with_replies([Reply::text("plain")]);
    let mut req = request();
    req.num_ctx = Some(16384);
    let (result, _) = chat(&ollama(&server), &req).await;
    assert_eq!(result.unwrap().constraint, OutputConstraint::None);
    let sent = &server.chat_requests()[0].body;
    assert!(sent.get("format").is_none());
    assert_eq!(sent["options"]["num_ctx"], 16384);
    assert!(sent["options"].get("num_predict").is_none());
}

#[tokio::test]
async fn a_cut_off_answer_reports_length() {
    let server = TestServer::with_replies([
        Reply::text(r#"{"title":"Sk"#).finish(Finish::Length),
        Reply::text(r#"{"title":"Sk"#)
            .chunk_chars(3)
            .finish(Finish::Length),
    ]);
    let (result, _) = chat(&ollama(&server), &request()).await;
    assert_eq!(result.unwrap().finish, FinishReason::Length);
    let (result, _) = chat(&openai(&server), &request()).await;
    assert_eq!(result.unwrap().finish, FinishReason::Length);
}

#[tokio::test]
async fn a_slow_server_that_keeps_streaming_is_not_cut_off() {
    // 300 ms before the headers, then 8 chunks 100 ms apart: 1.1 s in all, beyond the
    // 600 ms idle timeout, but never 600 ms without a chunk.
    let reply = Reply::text("abcdefghijklmnop")
        .chunk_chars(2)
        .chunk_delay(Duration::from_millis(100))
        .delay_headers(Duration::from_millis(300));
    let server = TestServer::with_replies([reply.clone(), reply]);
    let mut req = request();
    req.idle_timeout = Some(Duration::from_millis(600));
    req.first_byte_timeout = Some(Duration::from_secs(3));
    let (ollama, openai) = (ollama(&server), openai(&server));
    let started = Instant::now();
    let (a, b) = tokio::join!(chat(&ollama, &req), chat(&openai, &req));
    // A lower bound the server's own pauses guarantee: the answer did outlast the idle
    // timeout, so the timeout is measured between pieces, not over the whole answer.
    assert!(started.elapsed() > Duration::from_millis(600));
    for (result, events) in [a, b] {
        assert_eq!(result.unwrap().text, "abcdefghijklmnop");
        assert_eq!(deltas(&events).len(), 8);
    }
}

#[tokio::test]
async fn a_stalled_stream_hits_the_idle_timeout() {
    let server = TestServer::with_replies([
        Reply::text("abcdefgh").chunk_chars(2).stall_after(2),
        Reply::text("abcdefgh").chunk_chars(2).stall_after(2),
    ]);
    let mut req = request();
    req.idle_timeout = Some(Duration::from_millis(300));
    for (asked, provider) in [&ollama(&server) as &dyn Provider, &openai(&server)]
        .into_iter()
        .enumerate()
    {
        let (result, events) = chat(provider, &req).await;
        let error = result.unwrap_err();
        assert!(
            matches!(
                error,
                LlmError::Timeout {
                    phase: TimeoutPhase::Idle,
                    ..
                }
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains(&server.url()), "{message}");
        assert!(message.contains("sent nothing for 300ms"), "{message}");
        assert!(error.is_transport());
        assert_eq!(
            deltas(&events),
            vec!["ab", "cd"],
            "what arrived was streamed"
        );
        assert_eq!(
            server.chat_requests().len(),
            asked + 1,
            "not retried after a timeout"
        );
    }
}

#[tokio::test]
async fn a_server_error_is_retried_then_succeeds() {
    let server = TestServer::with_replies([
        Reply::error(500, "model runner crashed"),
        Reply::error(503, "loading"),
        Reply::text("fine"),
        Reply::error(502, "bad gateway"),
        Reply::text("also fine"),
    ]);
    let (result, _) = chat(&ollama(&server), &request()).await;
    let response = result.unwrap();
    assert_eq!(response.text, "fine");
    assert_eq!(response.attempts, 3);
    let (result, _) = chat(&openai(&server), &request()).await;
    assert_eq!(result.unwrap().text, "also fine");
    assert_eq!(server.chat_requests().len(), 5);
}

#[tokio::test]
async fn server_errors_beyond_the_retries_name_the_status_and_message() {
    let server = TestServer::with_replies((0..4).map(|_| Reply::error(500, "out of memory")));
    let (result, _) = chat(&ollama(&server), &request()).await;
    let error = result.unwrap_err();
    assert!(
        matches!(error, LlmError::Http { status: 500, .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("HTTP 500: out of memory"), "{message}");
    assert!(message.contains(&server.url()), "{message}");
    assert!(error.is_transport());
    assert_eq!(server.chat_requests().len(), 4, "1 attempt + 3 retries");
}

#[tokio::test]
async fn rate_limiting_honours_retry_after() {
    let server = TestServer::with_replies([
        Reply::error(429, "slow down").header("Retry-After", "1"),
        Reply::text("after the wait"),
    ]);
    let started = Instant::now();
    let (result, _) = chat(&openai(&server), &request()).await;
    assert_eq!(result.unwrap().text, "after the wait");
    assert_eq!(server.chat_requests().len(), 2);
    // A lower bound only (the exact wait is pinned on tokio's paused clock in
    // `wikimind-llm`'s transport tests).
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited {:?}, not the second the server asked for",
        started.elapsed()
    );
}

#[tokio::test]
async fn nothing_listening_says_how_to_start_the_server() {
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}");
    let ollama = OllamaProvider::new(&url, fast()).unwrap();
    let (result, _) = chat(&ollama, &request()).await;
    let error = result.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("Ollama is not running at {url} — start it with `ollama serve`")
    );
    assert!(error.is_transport());

    let openai = OpenAiProvider::new(&url, fast()).unwrap();
    let error = openai.list_models().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("No OpenAI-compatible server answers at {url} — start it or check the base URL")
    );
}

#[tokio::test]
async fn a_missing_model_says_how_to_get_it() {
    let server = TestServer::builder()
        .models(["llama3.2"])
        .enforce_models(true)
        .start();
    let mut req = request();
    req.model = "qwen9:1b".to_string();
    let (result, _) = chat(&ollama(&server), &req).await;
    let error = result.unwrap_err();
    assert!(matches!(error, LlmError::ModelNotFound { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("`ollama pull qwen9:1b`"), "{message}");
    assert!(message.contains(&server.url()), "{message}");
    assert!(!error.is_transport());

    let (result, _) = chat(&openai(&server), &req).await;
    let error = result.unwrap_err();
    assert!(matches!(error, LlmError::ModelNotFound { .. }), "{error:?}");
    assert!(error
        .to_string()
        .contains("model `qwen9:1b` is not available"));
}

#[tokio::test]
async fn openai_falls_back_to_json_object_when_json_schema_is_rejected() {
    let server = TestServer::builder().reject_json_schema(true).start();
    server.push(Reply::text(r#"{"title":"A"}"#));
    server.push(Reply::text(r#"{"title":"B"}"#));
    let provider = openai(&server);
    let req = request().with_schema(schema());

    let (result, _) = chat(&provider, &req).await;
    let response = result.unwrap();
    assert_eq!(response.text, r#"{"title":"A"}"#);
    assert_eq!(response.constraint, OutputConstraint::JsonObject);

    let chats = server.chat_requests();
    assert_eq!(chats.len(), 2);
    let format = &chats[0].body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "compilation_result");
    assert_eq!(format["json_schema"]["strict"], true);
    let strict = &format["json_schema"]["schema"];
    assert_eq!(strict["additionalProperties"], false);
    assert_eq!(strict["required"], json!(["title", "concepts"]));
    assert_eq!(
        strict["properties"]["concepts"]["type"],
        json!(["array", "null"])
    );
    assert!(strict["properties"]["title"].get("minLength").is_none());
    assert_eq!(
        chats[1].body["response_format"],
        json!({"type": "json_object"})
    );

    // The provider remembers: the next request goes straight to json_object.
    let (result, _) = chat(&provider, &req).await;
    assert_eq!(result.unwrap().text, r#"{"title":"B"}"#);
    let chats = server.chat_requests();
    assert_eq!(chats.len(), 3);
    assert_eq!(
        chats[2].body["response_format"],
        json!({"type": "json_object"})
    );
}

#[tokio::test]
async fn openai_streams_sse_and_reads_the_usage_chunk() {
    let answer = "{\"title\":\"Ünïcödé ✓\"}";
    let server = TestServer::with_replies([Reply::text(answer).chunk_chars(3).usage(11, 6)]);
    let req = request().with_schema(schema()).with_temperature(0.2);
    let (result, events) = chat(&openai(&server), &req).await;
    let response = result.unwrap();
    assert_eq!(response.text, answer);
    assert!(deltas(&events).len() > 3);
    assert_eq!(response.prompt_tokens, Some(11));
    assert_eq!(response.completion_tokens, Some(6));
    assert_eq!(response.finish, FinishReason::Stop);
    assert_eq!(response.constraint, OutputConstraint::JsonSchema);
    let sent = &server.chat_requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.body["stream_options"]["include_usage"], true);
    assert_eq!(
        sent.body["temperature"]
            .as_f64()
            .map(|t| (t * 10.0).round()),
        Some(2.0)
    );
}

#[tokio::test]
async fn utf8_split_across_network_chunks_arrives_intact() {
    let answer = "äöü — 😀 日本語 ✓";
    let reply = Reply::text(answer).chunk_chars(4).wire_chunk_bytes(1);
    let server = TestServer::with_replies([reply.clone(), reply]);
    for provider in [&ollama(&server) as &dyn Provider, &openai(&server)] {
        let (result, events) = chat(provider, &request()).await;
        assert_eq!(result.unwrap().text, answer);
        assert_eq!(deltas(&events).concat(), answer);
    }
}

#[tokio::test]
async fn a_stream_that_breaks_mid_answer_restarts_cleanly() {
    let server = TestServer::with_replies([
        Reply::text("first try, never finished")
            .chunk_chars(5)
            .truncate_after(2),
        Reply::text("second try").chunk_chars(5),
    ]);
    let (result, events) = chat(&ollama(&server), &request()).await;
    let response = result.unwrap();
    assert_eq!(response.text, "second try");
    assert_eq!(response.attempts, 2);
    let restart = events
        .iter()
        .position(|e| *e == StreamEvent::Restart)
        .expect("a Restart event");
    assert_eq!(deltas(&events[..restart]).concat(), "first try,");
    assert_eq!(deltas(&events[restart..]).concat(), "second try");
}

#[tokio::test]
async fn an_error_inside_the_stream_is_reported() {
    let server = TestServer::with_replies([
        Reply::text("abc").stream_error("llama runner process has terminated"),
        Reply::text("abc").stream_error("context overflow"),
    ]);
    let (result, _) = chat(&ollama(&server), &request()).await;
    let error = result.unwrap_err();
    assert!(matches!(error, LlmError::Server { .. }), "{error:?}");
    assert!(error
        .to_string()
        .contains("llama runner process has terminated"));
    let (result, _) = chat(&openai(&server), &request()).await;
    assert!(result.unwrap_err().to_string().contains("context overflow"));
}

#[tokio::test]
async fn hostile_bytes_are_a_protocol_error_not_a_panic() {
    let mut settings = fast();
    settings.retry = RetryPolicy::none();
    let bodies: [&[u8]; 4] = [
        b"\xff\xfe\x00garbage\n\n",
        b"{\"message\":{\"content\":5},\"done\":\"yes\"}\n[1,2]\n",
        b"data: {not json}\n\n",
        b"<html>Welcome to nginx</html>",
    ];
    for body in bodies {
        let server = TestServer::with_replies([Reply::raw(200, body), Reply::raw(200, body)]);
        let ollama = OllamaProvider::new(&server.url(), settings.clone()).unwrap();
        let openai = OpenAiProvider::new(&server.url(), settings.clone()).unwrap();
        for provider in [&ollama as &dyn Provider, &openai] {
            let (result, _) = chat(provider, &request()).await;
            let error = result.unwrap_err();
            assert!(
                matches!(error, LlmError::Protocol { .. }),
                "{}: {error:?}",
                String::from_utf8_lossy(body)
            );
            assert!(error.to_string().contains(&server.url()));
        }
    }
}

/// Cancelling ends a request waiting on a silent server at once, rather than after the idle
/// timeout (ten minutes here, so nothing but the cancel can end it), and is not retried.
#[tokio::test]
async fn cancelling_stops_a_waiting_request_promptly() {
    let server = TestServer::with_replies([Reply::text("abcdef").chunk_chars(2).stall_after(1)]);
    let cancel = CancellationToken::new();
    let mut req = request().with_cancel(cancel.clone());
    req.idle_timeout = Some(Duration::from_secs(600));
    // Cancelled when the first piece arrives: the stream is stalled from then on.
    let events = Mutex::new(Vec::new());
    let on_event = |e: StreamEvent| {
        if matches!(e, StreamEvent::Delta(_)) {
            cancel.cancel();
        }
        events.lock().unwrap().push(e);
    };
    let provider = ollama(&server);
    // A hang guard, not a time the test asserts: it only ends a failing run sooner.
    let result = tokio::time::timeout(Duration::from_secs(120), provider.chat(&req, &on_event))
        .await
        .expect("cancelling did not end the request");
    let error = result.unwrap_err();
    assert!(error.is_cancelled(), "{error:?}");
    assert!(!error.is_transport());
    assert_eq!(deltas(&events.into_inner().unwrap()), vec!["ab"]);
    assert_eq!(
        server.chat_requests().len(),
        1,
        "not retried after a cancel"
    );
}

#[tokio::test]
async fn both_protocols_list_their_models() {
    let server = TestServer::builder()
        .models(["llama3.2:1b", "qwen2.5:0.5b"])
        .start();
    let names = |models: Vec<wikimind::llm::ModelInfo>| -> Vec<String> {
        models.into_iter().map(|m| m.name).collect()
    };
    assert_eq!(
        names(ollama(&server).list_models().await.unwrap()),
        vec!["llama3.2:1b", "qwen2.5:0.5b"]
    );
    // The OpenAI base works with and without `/v1`.
    let bare = OpenAiProvider::new(&server.url(), fast()).unwrap();
    assert_eq!(
        names(bare.list_models().await.unwrap()),
        vec!["llama3.2:1b", "qwen2.5:0.5b"]
    );
    assert_eq!(names(openai(&server).list_models().await.unwrap()).len(), 2);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/api/tags", "/v1/models", "/v1/models"]);
}

#[tokio::test]
async fn ollama_reports_the_model_context_length() {
    let server = TestServer::builder().context_length(32768).start();
    let provider = ollama(&server);
    assert_eq!(
        provider.context_length("test-model").await.unwrap(),
        Some(32768)
    );
    let error = provider.context_length("nope").await.unwrap_err();
    assert!(error.to_string().contains("ollama pull nope"), "{error}");
}

#[tokio::test]
async fn the_api_key_is_sent_as_a_bearer_token_and_never_printed() {
    let server = TestServer::start();
    let key = "sk-test-0123456789-secret";
    let mut settings = fast();
    settings.api_key = Some(Secret::new(key));
    let provider = OpenAiProvider::new(&server.openai_url(), settings.clone()).unwrap();
    let (result, _) = chat(&provider, &request()).await;
    result.unwrap();
    let sent = &server.chat_requests()[0];
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );

    let printed = format!("{settings:?} {provider:?} {:?}", settings.api_key);
    assert!(!printed.contains(key), "the key leaked: {printed}");
    assert!(printed.contains("***"));

    // Without a key, no Authorization header at all.
    let (result, _) = chat(&ollama(&server), &request()).await;
    result.unwrap();
    assert_eq!(server.chat_requests()[1].header("authorization"), None);
}

#[tokio::test]
async fn a_refused_key_says_so() {
    let server = TestServer::with_replies([
        Reply::error(401, "invalid api key"),
        Reply::error(401, "missing api key"),
    ]);
    let mut settings = fast();
    settings.api_key = Some(Secret::new("wrong"));
    let provider = OpenAiProvider::new(&server.url(), settings).unwrap();
    let (result, _) = chat(&provider, &request()).await;
    let error = result.unwrap_err();
    assert!(matches!(
        error,
        LlmError::Auth {
            status: 401,
            key_sent: true,
            ..
        }
    ));
    assert!(
        error.to_string().contains("API key was not accepted"),
        "{error}"
    );
    let (result, _) = chat(&openai(&server), &request()).await;
    assert!(result.unwrap_err().to_string().contains("needs an API key"));
    assert_eq!(
        server.chat_requests().len(),
        2,
        "auth errors are not retried"
    );
}

#[tokio::test]
async fn the_canned_answer_serves_end_to_end_runs() {
    let server = TestServer::start();
    let req = ChatRequest::new(
        "test-model",
        "Compile the source.",
        "# Photosynthesis\nPlants turn light into sugar. Oxygen is a by-product of it.",
    );
    let provider =
        wikimind::llm::new_provider(ProviderKind::Ollama, &server.url(), fast()).unwrap();
    assert_eq!(provider.describe(), format!("Ollama at {}", server.url()));
    let (result, events) = chat(provider.as_ref(), &req).await;
    let answer: Value = serde_json::from_str(&result.unwrap().text).unwrap();
    assert_eq!(answer["title"], "Photosynthesis");
    assert_eq!(
        answer["key_claims"][0]["quote"],
        "Plants turn light into sugar."
    );
    assert!(deltas(&events).len() > 1);
}

/// The `authorization` header of every request a server received (`None` where there was
/// none).
fn authorizations(server: &TestServer) -> Vec<Option<String>> {
    server
        .requests()
        .iter()
        .map(|r| r.header("authorization").map(str::to_string))
        .collect()
}

/// Settings as the CLI and the app resolve them, from a config file's text and
/// `WIKIMIND_API_KEY` (when given), with keys from `keys`.
fn resolved_settings(config: &str, env_key: Option<&str>, keys: &dyn KeyStore) -> Settings {
    let env = |name: &str| match name {
        "WIKIMIND_DATA_DIR" => Some("unused".to_string()),
        "WIKIMIND_API_KEY" => env_key.map(str::to_string),
        _ => None,
    };
    Settings::resolve(
        &Overrides::default(),
        &env,
        Some((std::path::Path::new("config.toml"), config)),
    )
    .unwrap()
    .with_keys(keys)
}

#[tokio::test]
async fn the_environment_key_reaches_the_primary_server_and_no_other() {
    // The primary (OpenAI-compatible) and the Ollama fallback are down; the last fallback
    // compiles. Each has its own server, so each server's requests say what it was sent.
    let primary = TestServer::with_replies([Reply::error(503, "overloaded")]);
    let ollama_fallback = TestServer::with_replies([Reply::error(503, "overloaded")]);
    let openai_fallback = TestServer::start();
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n\
         [[fallback]]\nkind = \"ollama\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n\
         [[fallback]]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n\
         [compile]\ntransport_retries = 0\n",
        primary.openai_url(),
        ollama_fallback.url(),
        openai_fallback.openai_url(),
    );
    let keys = MemoryKeyStore::new();
    let settings = resolved_settings(&config, Some("env-key-123"), &keys);

    let wiki = Wiki::open_in_memory().unwrap();
    let id = wiki
        .ingest_text("# Tides\n\nThe moon pulls the sea.", None)
        .unwrap()
        .sources[0]
        .source_id;
    let compile = |wiki: &Wiki, settings: &Settings| {
        let compiler = wiki.compiler(settings).unwrap();
        async move {
            compiler
                .compile_one(id, &|_| {}, &CancellationToken::new())
                .await
                .unwrap()
        }
    };
    let report = compile(&wiki, &settings).await;
    assert!(report.ok, "{report:?}");
    assert!(!primary.chat_requests().is_empty());
    assert!(!ollama_fallback.chat_requests().is_empty());
    assert!(!openai_fallback.chat_requests().is_empty());
    assert!(
        authorizations(&primary)
            .iter()
            .all(|a| a.as_deref() == Some("Bearer env-key-123")),
        "{:?}",
        authorizations(&primary)
    );
    assert!(
        authorizations(&ollama_fallback).iter().all(Option::is_none),
        "the Ollama fallback was sent {:?}",
        authorizations(&ollama_fallback)
    );
    assert!(
        authorizations(&openai_fallback).iter().all(Option::is_none),
        "the OpenAI-compatible fallback was sent {:?}",
        authorizations(&openai_fallback)
    );

    // A fallback's own keyring entry is what it gets, and only it.
    let settings = settings
        .save_key(
            ProviderKind::OpenAiCompatible,
            &openai_fallback.openai_url(),
            "fallback-key",
            &keys,
        )
        .unwrap();
    primary.push(Reply::error(503, "overloaded"));
    ollama_fallback.push(Reply::error(503, "overloaded"));
    let before = openai_fallback.requests().len();
    let report = compile(&wiki, &settings).await;
    assert!(report.ok, "{report:?}");
    let later = &authorizations(&openai_fallback)[before..];
    assert!(!later.is_empty());
    assert!(
        later
            .iter()
            .all(|a| a.as_deref() == Some("Bearer fallback-key")),
        "{later:?}"
    );
    assert!(authorizations(&ollama_fallback).iter().all(Option::is_none));
}

#[tokio::test]
async fn the_connection_test_sends_no_key_saved_for_another_server() {
    let server_a = TestServer::start();
    let server_b = TestServer::start();
    let keys = MemoryKeyStore::new();
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
        server_a.openai_url()
    );
    let settings = resolved_settings(&config, None, &keys)
        .save_key(
            ProviderKind::OpenAiCompatible,
            &server_a.openai_url(),
            "key-for-a",
            &keys,
        )
        .unwrap();
    let form = |server: &TestServer| ProviderForm {
        kind: ProviderKindView::Openai,
        base_url: server.openai_url(),
        model: "test-model".into(),
    };

    // "Test connection" with server B in the form: B answers, and is sent no key.
    let check = view::check_form(&settings, &form(&server_b), &keys).await;
    assert!(check.ok, "{check:?}");
    assert_eq!(authorizations(&server_b), vec![None]);
    // Applying B as the primary: the key of A does not go along.
    let applied = view::with_primary(&settings, &form(&server_b), &keys).unwrap();
    assert!(!SettingsView::of(&applied).has_api_key);
    let check = view::check_connection(&applied).await;
    assert!(check.ok, "{check:?}");
    assert_eq!(authorizations(&server_b), vec![None, None]);

    // Server A still gets its own key.
    let check = view::check_form(&applied, &form(&server_a), &keys).await;
    assert!(check.ok, "{check:?}");
    assert_eq!(
        authorizations(&server_a),
        vec![Some("Bearer key-for-a".to_string())]
    );

    // Nor does WIKIMIND_API_KEY follow the primary from A to B.
    let settings = resolved_settings(&config, Some("env-key"), &MemoryKeyStore::new());
    let check = view::check_form(&settings, &form(&server_b), &keys).await;
    assert!(check.ok, "{check:?}");
    assert_eq!(authorizations(&server_b), vec![None, None, None]);
}

#[tokio::test]
async fn a_model_without_a_tag_is_its_latest_tag_on_ollama() {
    let check = |listed: &'static str, wanted: &'static str| async move {
        let server = TestServer::builder().models([listed]).start();
        let config = format!("[provider]\nbase_url = \"{}\"\n", server.url());
        let settings = resolved_settings(&config, None, &NoKeyStore);
        let form = ProviderForm {
            kind: ProviderKindView::Ollama,
            base_url: server.url(),
            model: wanted.into(),
        };
        view::check_form(&settings, &form, &NoKeyStore).await
    };
    let latest = check("llama3.2:latest", "llama3.2").await;
    assert!(latest.ok && latest.model_available, "{latest:?}");
    assert!(latest.message.contains("among them"), "{}", latest.message);
    let other_tag = check("llama3.2:1b", "llama3.2").await;
    assert!(other_tag.ok && !other_tag.model_available, "{other_tag:?}");
    assert!(
        other_tag.message.contains("not llama3.2"),
        "{}",
        other_tag.message
    );
    let exact = check("llama3.2:1b", "llama3.2:1b").await;
    assert!(exact.model_available, "{exact:?}");
    // The CLI's `providers --test` reads the same list through the same rule.
    assert!(model_available(
        ProviderKind::Ollama,
        "llama3.2",
        &latest.models
    ));
    assert!(!model_available(
        ProviderKind::Ollama,
        "llama3.2",
        &other_tag.models
    ));
}

/// Regression: an 8 MB streamed answer was read in full for `max_tokens = 512`. Reading
/// stops at 16 bytes per budgeted token (at least 64 KiB) and the answer counts as cut off.
#[tokio::test]
async fn an_answer_far_past_its_budget_is_cut_off() {
    let huge = "x".repeat(8 * 1024 * 1024);
    let server = TestServer::with_replies([
        Reply::text(huge.clone()).chunk_chars(4096),
        Reply::text(huge).chunk_chars(4096),
    ]);
    let req = request().with_max_tokens(512);
    let providers: [(&str, Box<dyn Provider>); 2] = [
        ("ollama", Box::new(ollama(&server))),
        ("openai", Box::new(openai(&server))),
    ];
    for (name, provider) in providers {
        let (result, events) = chat(provider.as_ref(), &req).await;
        let response = result.unwrap();
        assert_eq!(response.finish, FinishReason::Length, "{name}");
        assert!(
            !response.text.is_empty() && response.text.len() <= 64 * 1024,
            "{name}: kept {} bytes",
            response.text.len()
        );
        assert_eq!(deltas(&events).concat(), response.text, "{name}");
    }
}

/// A server that drips an answer slowly, never idle long enough to time out, is stopped
/// after the answer's time limit (the first-byte wait plus 2 s per budgeted token).
#[tokio::test]
async fn an_answer_that_never_ends_is_cut_off_after_its_time_limit() {
    let drip = || {
        Reply::text("y".repeat(200))
            .chunk_chars(1)
            .chunk_delay(Duration::from_millis(100))
    };
    let server = TestServer::with_replies([drip(), drip()]);
    let mut req = request().with_max_tokens(1);
    req.first_byte_timeout = Some(Duration::from_millis(500));
    let providers: [(&str, Box<dyn Provider>); 2] = [
        ("ollama", Box::new(ollama(&server))),
        ("openai", Box::new(openai(&server))),
    ];
    // The whole drip takes 20 s and ends with `stop`; no other limit is near (64 KiB of
    // text, the 2 s idle wait). So an answer cut off (`length`) before its 200th byte was cut
    // by the time limit, whatever the machine's speed.
    for (name, provider) in providers {
        let (result, _) = chat(provider.as_ref(), &req).await;
        let response = result.unwrap();
        assert_eq!(response.finish, FinishReason::Length, "{name}");
        assert!(response.text.len() < 200, "{name}: {}", response.text.len());
    }
}

/// Credentials in a provider's base URL are used, but never shown: not in its base URL as
/// displayed, not in any error.
#[tokio::test]
async fn credentials_in_a_base_url_never_show() {
    let secret = "hunter2-pw";
    let with_userinfo = |url: &str| url.replacen("http://", &format!("http://bob:{secret}@"), 1);
    let server = TestServer::with_replies([Reply::error(500, "boom"), Reply::error(500, "boom")]);
    let mut settings = fast();
    settings.retry = RetryPolicy::none();
    let closed = format!("http://127.0.0.1:{}", closed_port());
    let providers: Vec<Box<dyn Provider>> = vec![
        Box::new(OllamaProvider::new(&with_userinfo(&server.url()), settings.clone()).unwrap()),
        Box::new(
            OpenAiProvider::new(&with_userinfo(&server.openai_url()), settings.clone()).unwrap(),
        ),
        Box::new(OllamaProvider::new(&with_userinfo(&closed), settings.clone()).unwrap()),
        Box::new(OpenAiProvider::new(&with_userinfo(&closed), settings.clone()).unwrap()),
    ];
    for provider in providers {
        assert!(
            !provider.base_url().contains(secret),
            "{}",
            provider.base_url()
        );
        let (result, _) = chat(provider.as_ref(), &request()).await;
        let error = result.unwrap_err();
        let mut text = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            text.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        assert!(!text.contains(secret) && !text.contains("bob:"), "{text}");
    }
    // The credentials were sent, as basic authentication.
    let sent = server.chat_requests();
    assert!(!sent.is_empty());
    for request in sent {
        let auth = request.header("authorization").unwrap_or_default();
        assert!(auth.starts_with("Basic "), "{auth:?}");
    }
    let error = OllamaProvider::new(&format!("ftp://bob:{secret}@host"), fast()).unwrap_err();
    assert!(!error.to_string().contains(secret), "{error}");
}
