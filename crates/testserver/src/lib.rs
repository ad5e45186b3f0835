//! A scripted local HTTP server that speaks the real Ollama and OpenAI chat protocols, for
//! tests of anything that talks to a model (providers, compile, CLI, desktop).
//!
//! It serves, on `127.0.0.1` and a free port:
//!
//! | endpoint | protocol |
//! |---|---|
//! | `POST /api/chat` | Ollama; NDJSON stream unless the request says `"stream": false` |
//! | `GET /api/tags`, `POST /api/show`, `GET /api/version` | Ollama model list, model details (with a context length), version |
//! | `POST /v1/chat/completions` | OpenAI; SSE when the request says `"stream": true`, a usage chunk when `stream_options.include_usage` |
//! | `GET /v1/models` | OpenAI model list |
//! | `GET /testserver/requests` | the requests received so far (method, path, headers), as JSON: for tests that drive the server from another process |
//! | `GET /page/NAME` | a markdown page titled `Page NAME`, for ingesting a URL |
//! | `GET /redirect/NAME` | `302 Found` to `/page/NAME`, for a URL that redirects |
//!
//! Each chat request takes the next scripted [`Reply`] from a queue, else asks the
//! responder closure, else answers with a valid compilation result derived from its first
//! user message ([`canned::answer`]): a topic page merged from the old page and the new
//! digests for WikiMind's page prompt ([`canned::page_answer`]), an article quoting the
//! source for any other prompt ([`canned::compilation_answer`]). Every request is recorded
//! with its parsed JSON body.
//!
//! ```no_run
//! use wikimind_testserver::{Finish, Reply, TestServer};
//!
//! let server = TestServer::start();
//! server.push(Reply::error(500, "model crashed"));
//! server.push(Reply::text(r#"{"title":"A"}"#).chunk_chars(4).finish(Finish::Length));
//! // ... point a client at server.url() (Ollama) or server.openai_url() (OpenAI) ...
//! let chats = server.chat_requests();
//! assert_eq!(chats[0].body["options"]["num_ctx"], 4096);
//! ```
//!
//! The server runs on its own thread and runtime, so it works from plain `#[test]`s and from
//! any tokio runtime alike, and it stops when the [`TestServer`] is dropped.
#![deny(missing_docs)]

pub mod canned;
mod http;
mod reply;

pub use reply::{Finish, Reply};

/// A local port nothing listens on, for a test of a server that is down. It lies below the
/// range the system hands out for port 0, so a server another test starts meanwhile (every
/// stand-in server binds port 0) can never take it: a port from binding port 0 and letting
/// go could be given to the next test's server before this test uses it.
pub fn closed_port() -> u16 {
    let ephemeral_start = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let below = ephemeral_start.saturating_sub(1).max(1025);
    (1025..=below)
        .rev()
        .step_by(7)
        .find(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .expect("a free port below the ephemeral range")
}

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// Decides the reply to a chat request; `None` falls through to the canned answer.
pub type Responder = Arc<dyn Fn(&RecordedRequest) -> Option<Reply> + Send + Sync>;

/// A request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path with any query, e.g. `/api/chat`.
    pub path: String,
    /// Headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Value::Null` when empty or not JSON).
    pub body: Value,
    /// The body as sent.
    pub raw_body: Vec<u8>,
}

impl RecordedRequest {
    /// The value of a header (name matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a chat request of either protocol.
    pub fn is_chat(&self) -> bool {
        matches!(self.route(), "/api/chat" | "/v1/chat/completions")
    }

    /// The text of the last user message (empty when there is none).
    pub fn user_message(&self) -> String {
        self.body["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// The first user message (the one a compile prompt carries its source in).
    pub fn first_user_message(&self) -> String {
        self.body["messages"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }
}

/// Settings of a server, chosen with [`TestServer::builder`].
#[derive(Clone)]
pub struct TestServerBuilder {
    port: u16,
    models: Vec<String>,
    context_length: u64,
    enforce_models: bool,
    reject_json_schema: bool,
    links_as_written: bool,
    replies: VecDeque<Reply>,
    responder: Option<Responder>,
}

impl TestServerBuilder {
    /// Listens on this port (default: a free one).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The models the server lists (default: `test-model`).
    pub fn models<I: IntoIterator<Item = S>, S: Into<String>>(mut self, models: I) -> Self {
        self.models = models.into_iter().map(Into::into).collect();
        self
    }

    /// The context length `/api/show` reports (default 8192).
    pub fn context_length(mut self, n: u64) -> Self {
        self.context_length = n;
        self
    }

    /// Answers chats for unlisted models with the protocol's real "model not found" 404.
    pub fn enforce_models(mut self, yes: bool) -> Self {
        self.enforce_models = yes;
        self
    }

    /// Rejects OpenAI `response_format: {type: "json_schema"}` with HTTP 400, as some
    /// OpenAI-compatible servers do (`json_object` is accepted).
    pub fn reject_json_schema(mut self, yes: bool) -> Self {
        self.reject_json_schema = yes;
        self
    }

    /// Canned compile answers copy the source's links as written, as models do: its
    /// `[[T#h|s]]` links and `![[x]]` embeds whole into `backlink_suggestions`, their
    /// insides (`T#h|s`) into `concepts`. Off by default: the links' targets are given.
    pub fn links_as_written(mut self, yes: bool) -> Self {
        self.links_as_written = yes;
        self
    }

    /// Queues a reply (replies are used in order, one per chat request).
    pub fn reply(mut self, reply: Reply) -> Self {
        self.replies.push_back(reply);
        self
    }

    /// Decides replies with a closure once the queue is empty.
    pub fn responder(
        mut self,
        f: impl Fn(&RecordedRequest) -> Option<Reply> + Send + Sync + 'static,
    ) -> Self {
        self.responder = Some(Arc::new(f));
        self
    }

    /// Starts the server; panics if the port cannot be bound (this is test tooling).
    pub fn start(self) -> TestServer {
        self.try_start().expect("bind the test server")
    }

    /// Starts the server, reporting a port that cannot be bound.
    pub fn try_start(self) -> std::io::Result<TestServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", self.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            replies: Mutex::new(self.replies),
            requests: Mutex::new(Vec::new()),
            responder: self.responder,
            models: self.models,
            context_length: self.context_length,
            enforce_models: self.enforce_models,
            reject_json_schema: self.reject_json_schema,
            links_as_written: self.links_as_written,
        });
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("wikimind-testserver-{}", addr.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a tokio runtime for the test server");
                runtime.block_on(serve(listener, thread_shared, stop_rx));
                // Dropping the runtime here ends every connection still open (stalled
                // streams included).
            })?;
        Ok(TestServer {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

/// A running server; stops when dropped.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on a free port that answers every chat with the canned answer.
    pub fn start() -> TestServer {
        TestServer::builder().start()
    }

    /// Starts a server that answers with these replies in order, then the canned answer.
    pub fn with_replies(replies: impl IntoIterator<Item = Reply>) -> TestServer {
        let mut builder = TestServer::builder();
        builder.replies.extend(replies);
        builder.start()
    }

    /// Settings for a server.
    pub fn builder() -> TestServerBuilder {
        TestServerBuilder {
            port: 0,
            models: vec!["test-model".to_string()],
            context_length: 8192,
            enforce_models: false,
            reject_json_schema: false,
            links_as_written: false,
            replies: VecDeque::new(),
            responder: None,
        }
    }

    /// The base URL, e.g. `http://127.0.0.1:40123` (Ollama clients use it as is).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The OpenAI base URL, e.g. `http://127.0.0.1:40123/v1`.
    pub fn openai_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues a reply for a later chat request.
    pub fn push(&self, reply: Reply) {
        lock(&self.shared.replies).push_back(reply);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// The chat requests received so far, in order.
    pub fn chat_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_chat())
            .collect()
    }

    /// How many scripted replies are still queued.
    pub fn pending_replies(&self) -> usize {
        lock(&self.shared.replies).len()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("url", &self.url())
            .finish()
    }
}

struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    responder: Option<Responder>,
    models: Vec<String>,
    context_length: u64,
    enforce_models: bool,
    reject_json_schema: bool,
    links_as_written: bool,
}

/// Locks, ignoring poisoning (a panicking test must not hide its own message behind ours).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut stop: oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(handle(stream, shared.clone()));
                }
            }
        }
    }
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) {
    let Some(raw) = http::read_request(&mut stream).await else {
        return;
    };
    let request = RecordedRequest {
        body: serde_json::from_slice(&raw.body).unwrap_or(Value::Null),
        method: raw.method,
        path: raw.path,
        headers: raw.headers,
        raw_body: raw.body,
    };
    lock(&shared.requests).push(request.clone());
    let _ = respond(&mut stream, &shared, &request).await;
}

/// The route that lists the requests received so far (see the table above).
const REQUEST_LOG: &str = "/testserver/requests";

#[derive(Clone, Copy, PartialEq)]
enum Protocol {
    Ollama,
    OpenAi,
}

async fn respond(
    stream: &mut TcpStream,
    shared: &Shared,
    req: &RecordedRequest,
) -> std::io::Result<()> {
    let model = req.body["model"].as_str().unwrap_or_default().to_string();
    match (req.method.as_str(), req.route()) {
        ("GET", REQUEST_LOG) => {
            let seen: Vec<Value> = lock(&shared.requests)
                .iter()
                .filter(|r| r.route() != REQUEST_LOG)
                .map(|r| {
                    let headers: serde_json::Map<String, Value> = r
                        .headers
                        .iter()
                        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                        .collect();
                    json!({"method": r.method, "path": r.path, "headers": headers})
                })
                .collect();
            send_json(stream, 200, &Value::Array(seen)).await
        }
        ("GET", "/") | ("HEAD", "/") => send_text(stream, 200, "Ollama is running").await,
        ("GET", "/api/version") => send_json(stream, 200, &json!({"version": "0.0.0-test"})).await,
        ("GET", "/api/tags") => {
            let models: Vec<Value> = shared
                .models
                .iter()
                .map(|m| {
                    json!({"name": m, "model": m, "modified_at": "2024-01-01T00:00:00Z",
                           "size": 1_000_000, "digest": "0", "details": {"family": "llama",
                           "parameter_size": "1B", "quantization_level": "Q4_0"}})
                })
                .collect();
            send_json(stream, 200, &json!({"models": models})).await
        }
        ("POST", "/api/show") => {
            let name = req.body["model"]
                .as_str()
                .or(req.body["name"].as_str())
                .unwrap_or_default();
            if !shared.models.iter().any(|m| m == name) {
                let error = json!({"error": format!("model '{name}' not found")});
                return send_json(stream, 404, &error).await;
            }
            let info = json!({
                "details": {"family": "llama", "parameter_size": "1B"},
                "model_info": {"general.architecture": "llama",
                               "llama.context_length": shared.context_length},
            });
            send_json(stream, 200, &info).await
        }
        ("GET", "/v1/models") => {
            let data: Vec<Value> = shared
                .models
                .iter()
                .map(|m| json!({"id": m, "object": "model", "created": 0, "owned_by": "wikimind-testserver"}))
                .collect();
            send_json(stream, 200, &json!({"object": "list", "data": data})).await
        }
        ("POST", "/api/chat") => {
            if shared.enforce_models && !shared.models.contains(&model) {
                let error =
                    json!({"error": format!("model \"{model}\" not found, try pulling it first")});
                return send_json(stream, 404, &error).await;
            }
            let reply = next_reply(shared, req);
            let streamed = req.body["stream"].as_bool().unwrap_or(true);
            send_reply(stream, Protocol::Ollama, streamed, req, &model, &reply).await
        }
        ("POST", "/v1/chat/completions") => {
            if shared.enforce_models && !shared.models.contains(&model) {
                let error = json!({"error": {"message": format!("The model `{model}` does not exist"),
                                             "type": "invalid_request_error", "code": "model_not_found"}});
                return send_json(stream, 404, &error).await;
            }
            if shared.reject_json_schema && req.body["response_format"]["type"] == "json_schema" {
                let error = json!({"error": {"message": "response_format type json_schema is not supported; use json_object",
                                             "type": "invalid_request_error", "param": "response_format"}});
                return send_json(stream, 400, &error).await;
            }
            let reply = next_reply(shared, req);
            let streamed = req.body["stream"].as_bool().unwrap_or(false);
            send_reply(stream, Protocol::OpenAi, streamed, req, &model, &reply).await
        }
        ("GET", route) if route.starts_with("/page/") => {
            let name = &route["/page/".len()..];
            let page = format!("# Page {name}\n\nThis page was served at /page/{name}.\n");
            http::write_head(stream, 200, "text/markdown; charset=utf-8", &[]).await?;
            http::write_chunk(stream, page.as_bytes(), None).await?;
            http::finish_body(stream).await
        }
        ("GET", route) if route.starts_with("/redirect/") => {
            let location = format!("/page/{}", &route["/redirect/".len()..]);
            http::write_head(
                stream,
                302,
                "text/plain; charset=utf-8",
                &[("location".to_string(), location)],
            )
            .await?;
            http::finish_body(stream).await
        }
        _ => send_text(stream, 404, "404 page not found").await,
    }
}

fn next_reply(shared: &Shared, req: &RecordedRequest) -> Reply {
    if let Some(reply) = lock(&shared.replies).pop_front() {
        return reply;
    }
    if let Some(reply) = shared.responder.as_ref().and_then(|f| f(req)) {
        return reply;
    }
    let links = if shared.links_as_written {
        canned::Links::AsWritten
    } else {
        canned::Links::Targets
    };
    Reply::text(canned::answer_with(&req.first_user_message(), links)).chunk_chars(16)
}

async fn send_text(stream: &mut TcpStream, status: u16, text: &str) -> std::io::Result<()> {
    http::write_head(stream, status, "text/plain; charset=utf-8", &[]).await?;
    http::write_chunk(stream, text.as_bytes(), None).await?;
    http::finish_body(stream).await
}

async fn send_json(stream: &mut TcpStream, status: u16, value: &Value) -> std::io::Result<()> {
    http::write_head(stream, status, "application/json; charset=utf-8", &[]).await?;
    http::write_chunk(stream, value.to_string().as_bytes(), None).await?;
    http::finish_body(stream).await
}

fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

async fn send_reply(
    stream: &mut TcpStream,
    protocol: Protocol,
    streamed: bool,
    req: &RecordedRequest,
    model: &str,
    reply: &Reply,
) -> std::io::Result<()> {
    if reply.headers_delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(reply.headers_delay_ms)).await;
    }
    let status = reply.status_code();
    if let Some(raw) = &reply.raw_body {
        http::write_head(stream, status, "application/octet-stream", &reply.headers).await?;
        http::write_chunk(stream, raw, reply.wire_chunk_bytes).await?;
        return http::finish_body(stream).await;
    }
    if status != 200 {
        let message = reply.error.clone().unwrap_or_else(|| "error".to_string());
        let body = match protocol {
            Protocol::Ollama => json!({"error": message}),
            Protocol::OpenAi => {
                json!({"error": {"message": message, "type": "server_error", "code": status}})
            }
        };
        http::write_head(stream, status, "application/json", &reply.headers).await?;
        http::write_chunk(stream, body.to_string().as_bytes(), None).await?;
        return http::finish_body(stream).await;
    }

    let prompt_tokens = reply.prompt_tokens.unwrap_or_else(|| {
        let prompt: String = req.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_str())
            .collect();
        estimate_tokens(&prompt)
    });
    let completion_tokens = reply
        .completion_tokens
        .unwrap_or_else(|| estimate_tokens(&reply.text));
    let finish = reply.finish.as_str();
    let piece = reply.wire_chunk_bytes;

    if !streamed {
        let body = match protocol {
            Protocol::Ollama => json!({
                "model": model, "created_at": "2024-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": reply.text},
                "done": true, "done_reason": finish,
                "prompt_eval_count": prompt_tokens, "eval_count": completion_tokens,
            }),
            Protocol::OpenAi => json!({
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                             "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens},
            }),
        };
        http::write_head(stream, 200, "application/json", &reply.headers).await?;
        http::write_chunk(stream, body.to_string().as_bytes(), piece).await?;
        return http::finish_body(stream).await;
    }

    let content_type = match protocol {
        Protocol::Ollama => "application/x-ndjson",
        Protocol::OpenAi => "text/event-stream",
    };
    http::write_head(stream, 200, content_type, &reply.headers).await?;
    let frame = |value: Value| -> Vec<u8> {
        match protocol {
            Protocol::Ollama => format!("{value}\n").into_bytes(),
            Protocol::OpenAi => format!("data: {value}\n\n").into_bytes(),
        }
    };
    for (i, chunk) in reply.chunks().iter().enumerate() {
        if reply.stall_after_chunks == Some(i) {
            return stall().await;
        }
        if reply.truncate_after_chunks == Some(i) {
            return Ok(()); // dropping the stream closes it mid-body
        }
        if reply.chunk_delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(reply.chunk_delay_ms)).await;
        }
        let value = match protocol {
            Protocol::Ollama => json!({"model": model, "created_at": "2024-01-01T00:00:00Z",
                                       "message": {"role": "assistant", "content": chunk}, "done": false}),
            Protocol::OpenAi => json!({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                                       "created": 0, "model": model,
                                       "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": null}]}),
        };
        http::write_chunk(stream, &frame(value), piece).await?;
    }
    let n = reply.chunks().len();
    if reply.stall_after_chunks.is_some_and(|s| s >= n) {
        return stall().await;
    }
    if reply.truncate_after_chunks.is_some_and(|s| s >= n) {
        return Ok(());
    }
    if let Some(message) = &reply.stream_error {
        let value = match protocol {
            Protocol::Ollama => json!({"error": message}),
            Protocol::OpenAi => json!({"error": {"message": message, "type": "server_error"}}),
        };
        http::write_chunk(stream, &frame(value), piece).await?;
        return http::finish_body(stream).await;
    }
    match protocol {
        Protocol::Ollama => {
            let done = json!({"model": model, "created_at": "2024-01-01T00:00:00Z",
                              "message": {"role": "assistant", "content": ""},
                              "done": true, "done_reason": finish, "total_duration": 1000,
                              "prompt_eval_count": prompt_tokens, "eval_count": completion_tokens});
            http::write_chunk(stream, &frame(done), piece).await?;
        }
        Protocol::OpenAi => {
            let last = json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
                              "model": model,
                              "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]});
            http::write_chunk(stream, &frame(last), piece).await?;
            if req.body["stream_options"]["include_usage"] == true {
                let usage = json!({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                                   "created": 0, "model": model, "choices": [],
                                   "usage": {"prompt_tokens": prompt_tokens,
                                             "completion_tokens": completion_tokens,
                                             "total_tokens": prompt_tokens + completion_tokens}});
                http::write_chunk(stream, &frame(usage), piece).await?;
            }
            http::write_chunk(stream, b"data: [DONE]\n\n", piece).await?;
        }
    }
    http::finish_body(stream).await
}

/// Hangs until the server shuts down.
async fn stall() -> std::io::Result<()> {
    std::future::pending::<()>().await;
    Ok(())
}
