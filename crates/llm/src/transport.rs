//! HTTP shared by both providers: timeouts, cancellation, retries with backoff, and turning
//! network failures into [`LlmError`]s that name the address.

use super::error::TimeoutPhase;
use super::{LlmError, ProviderKind, Secret, StreamEvent};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long to wait, at each stage of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening the connection. Default 10 s.
    pub connect: Duration,
    /// From sending the request to the first byte of the answer: a local model may have to
    /// load and read a long prompt first. Default 10 min.
    pub first_byte: Duration,
    /// Between two pieces of a streamed answer. A slow server is never cut off while pieces
    /// keep coming. Default 2 min.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(600),
            idle: Duration::from_secs(120),
        }
    }
}

/// When and how often a failed request is tried again.
///
/// Retried: refused or reset connections, HTTP 429 and 5xx, and a stream that broke
/// mid-answer (restarted from the beginning, announced by [`StreamEvent::Restart`]).
/// The wait doubles each time from `base_delay`, never beyond `max_delay`; a `Retry-After`
/// header is honoured up to `max_delay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after the first one. Default 3.
    pub max_retries: u32,
    /// The first wait. Default 500 ms.
    pub base_delay: Duration,
    /// The longest wait. Default 30 s.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// The wait before retry number `retry` (0-based), given the error that caused it.
    pub(crate) fn delay(&self, retry: u32, error: &LlmError) -> Duration {
        if let Some(after) = error.retry_after() {
            return after.min(self.max_delay);
        }
        let factor = 2u32.saturating_pow(retry.min(20));
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Settings every provider takes.
#[derive(Debug, Clone, Default)]
pub struct ProviderSettings {
    /// Waits.
    pub timeouts: Timeouts,
    /// Retries.
    pub retry: RetryPolicy,
    /// Sent as `Authorization: Bearer ...` when present.
    pub api_key: Option<Secret>,
}

/// One provider's HTTP client and address.
#[derive(Debug)]
pub(crate) struct Transport {
    pub client: reqwest::Client,
    pub kind: ProviderKind,
    /// The base URL as the person gave it (normalised), credentials included: requests go
    /// here (reqwest sends `user:password@` as basic authentication).
    pub base: String,
    /// `base` without credentials: the only form put in messages and errors.
    pub shown: String,
    pub settings: ProviderSettings,
}

/// Boxed future of one attempt.
pub(crate) type AttemptFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, LlmError>> + Send + 'a>>;

impl Transport {
    pub(crate) fn new(
        kind: ProviderKind,
        base: String,
        settings: ProviderSettings,
    ) -> Result<Self, LlmError> {
        let client = reqwest::Client::builder()
            .connect_timeout(settings.timeouts.connect)
            .build()
            .map_err(|e| LlmError::InvalidConfig(format!("cannot build an HTTP client: {e}")))?;
        Ok(Transport {
            client,
            kind,
            shown: wikimind_text::url::without_userinfo(&base),
            base,
            settings,
        })
    }

    /// Starts a request with the API key attached.
    pub(crate) fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let builder = self.client.request(method, url);
        match &self.settings.api_key {
            Some(key) => builder.bearer_auth(key.expose()),
            None => builder,
        }
    }

    /// Sends a request and waits for the response headers (within `first_byte`).
    pub(crate) async fn send(
        &self,
        builder: reqwest::RequestBuilder,
        cancel: &CancellationToken,
        first_byte: Duration,
    ) -> Result<reqwest::Response, LlmError> {
        let sent = builder.send();
        let response = tokio::select! {
            _ = cancel.cancelled() => return Err(self.cancelled()),
            r = tokio::time::timeout(first_byte, sent) => match r {
                Err(_) => return Err(self.timeout(TimeoutPhase::FirstByte, first_byte)),
                Ok(Err(e)) => return Err(self.map_reqwest(e)),
                Ok(Ok(response)) => response,
            },
        };
        Ok(response)
    }

    /// Reads a whole (small) body, e.g. an error message or a model list.
    pub(crate) async fn read_body(
        &self,
        response: reqwest::Response,
        cancel: &CancellationToken,
        limit: usize,
    ) -> Result<Vec<u8>, LlmError> {
        let mut body = Body::new(self, response, self.settings.timeouts.first_byte, None);
        let mut out = Vec::new();
        while let Some(chunk) = body.next(cancel).await? {
            out.extend_from_slice(&chunk);
            if out.len() > limit {
                out.truncate(limit);
                break;
            }
        }
        Ok(out)
    }

    /// Turns an error status into an error, reading the server's message from the body.
    pub(crate) async fn status_error(
        &self,
        response: reqwest::Response,
        cancel: &CancellationToken,
    ) -> LlmError {
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = self
            .read_body(response, cancel, 64 * 1024)
            .await
            .unwrap_or_default();
        let message = error_message(&body);
        if status == 401 || status == 403 {
            return LlmError::Auth {
                kind: self.kind,
                url: self.shown.clone(),
                status,
                key_sent: self.settings.api_key.is_some(),
            };
        }
        LlmError::Http {
            kind: self.kind,
            url: self.shown.clone(),
            status,
            message,
            retry_after,
        }
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries run out, waiting
    /// between attempts. When a failed attempt had already streamed events, the sink gets
    /// [`StreamEvent::Restart`] before the next one.
    pub(crate) async fn with_retries<'a, T>(
        &'a self,
        cancel: &'a CancellationToken,
        sink: &'a EventSink<'a>,
        mut attempt: impl FnMut() -> AttemptFuture<'a, T>,
    ) -> Result<T, LlmError> {
        let policy = self.settings.retry;
        let mut retry = 0;
        loop {
            sink.streamed.store(false, Ordering::Relaxed);
            match attempt().await {
                Ok(value) => return Ok(value),
                Err(error) if error.is_retryable() && retry < policy.max_retries => {
                    let wait = policy.delay(retry, &error);
                    tokio::select! {
                        _ = cancel.cancelled() => return Err(self.cancelled()),
                        _ = tokio::time::sleep(wait) => {}
                    }
                    if sink.streamed.load(Ordering::Relaxed) {
                        (sink.events)(StreamEvent::Restart);
                    }
                    retry += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }

    pub(crate) fn cancelled(&self) -> LlmError {
        LlmError::Cancelled {
            url: self.shown.clone(),
        }
    }

    pub(crate) fn timeout(&self, phase: TimeoutPhase, after: Duration) -> LlmError {
        LlmError::Timeout {
            kind: self.kind,
            url: self.shown.clone(),
            phase,
            after,
        }
    }

    /// GETs `url` (with retries) and parses the answer as JSON; `what` names the endpoint
    /// in errors (e.g. `/api/tags`).
    pub(crate) async fn get_json(
        &self,
        url: &str,
        what: &str,
    ) -> Result<serde_json::Value, LlmError> {
        let cancel = CancellationToken::new();
        let no_events = |_| {};
        let sink = EventSink::new(&no_events);
        let body = self
            .with_retries(&cancel, &sink, || {
                Box::pin(async {
                    let builder = self.request(reqwest::Method::GET, url);
                    let response = self
                        .send(builder, &cancel, self.settings.timeouts.first_byte)
                        .await?;
                    if !response.status().is_success() {
                        return Err(self.status_error(response, &cancel).await);
                    }
                    self.read_body(response, &cancel, 16 * 1024 * 1024).await
                })
            })
            .await?;
        serde_json::from_slice(&body)
            .map_err(|e| self.protocol(format!("{what} answered with invalid JSON: {e}")))
    }

    pub(crate) fn protocol(&self, detail: impl Into<String>) -> LlmError {
        LlmError::Protocol {
            kind: self.kind,
            url: self.shown.clone(),
            detail: detail.into(),
        }
    }

    pub(crate) fn interrupted(&self, detail: impl Into<String>) -> LlmError {
        LlmError::Interrupted {
            kind: self.kind,
            url: self.shown.clone(),
            detail: detail.into(),
        }
    }

    /// Classifies a reqwest failure by walking its chain of causes.
    pub(crate) fn map_reqwest(&self, error: reqwest::Error) -> LlmError {
        // reqwest names the URL, credentials included; messages name `shown` instead.
        let error = error.without_url();
        let io_kind = io_error_kind(&error);
        use std::io::ErrorKind as K;
        match io_kind {
            Some(K::ConnectionRefused) => {
                return LlmError::NotRunning {
                    kind: self.kind,
                    url: self.shown.clone(),
                }
            }
            Some(K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof) => {
                return self.interrupted(chain(&error))
            }
            _ => {}
        }
        if error.is_timeout() {
            return self.timeout(TimeoutPhase::Connect, self.settings.timeouts.connect);
        }
        if error.is_connect() {
            return LlmError::Connect {
                kind: self.kind,
                url: self.shown.clone(),
                detail: chain(&error),
            };
        }
        if error.is_body() || error.is_decode() || error.is_request() {
            return self.interrupted(chain(&error));
        }
        LlmError::Connect {
            kind: self.kind,
            url: self.shown.clone(),
            detail: chain(&error),
        }
    }
}

/// The caller's event callback, remembering whether the current attempt sent anything.
pub(crate) struct EventSink<'a> {
    events: &'a (dyn Fn(StreamEvent) + Send + Sync),
    streamed: AtomicBool,
}

impl<'a> EventSink<'a> {
    pub(crate) fn new(events: &'a (dyn Fn(StreamEvent) + Send + Sync)) -> Self {
        EventSink {
            events,
            streamed: AtomicBool::new(false),
        }
    }

    /// Passes a piece of the answer to the caller.
    pub(crate) fn delta(&self, text: &str) {
        if !text.is_empty() {
            self.streamed.store(true, Ordering::Relaxed);
            (self.events)(StreamEvent::Delta(text.to_string()));
        }
    }
}

/// Bytes of answer text read per budgeted token before an answer counts as cut off. A token
/// is rarely more than 4 bytes of text; 16 leaves room for any tokenizer.
pub const ANSWER_BYTES_PER_TOKEN: u64 = 16;
/// The least answer text read, whatever the budget: 64 KiB.
pub const MIN_ANSWER_BYTES: u64 = 64 * 1024;
/// The budget assumed for the limits when a request sets none.
pub const UNBUDGETED_TOKENS: u64 = 65_536;
/// Bytes on the wire (framing, JSON, usage) read per byte of answer text allowed.
pub const WIRE_BYTES_PER_ANSWER_BYTE: u64 = 64;
/// Time allowed per budgeted token after the first-byte wait.
pub const ANSWER_TIME_PER_TOKEN: Duration = Duration::from_secs(2);

/// How much of an answer is read before it counts as cut off, as if the server had stopped
/// at the token budget (finish reason `length`). A server that streams far past the budget,
/// or drips an answer forever, cannot make the client read without end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnswerLimit {
    /// Answer text kept: [`ANSWER_BYTES_PER_TOKEN`] per budgeted token, at least
    /// [`MIN_ANSWER_BYTES`].
    pub text_bytes: usize,
    /// Bytes read from the body: [`WIRE_BYTES_PER_ANSWER_BYTE`] times `text_bytes`.
    pub wire_bytes: usize,
    /// When reading stops: the first-byte wait plus [`ANSWER_TIME_PER_TOKEN`] per budgeted
    /// token, from the start of the attempt.
    pub deadline: tokio::time::Instant,
}

impl AnswerLimit {
    /// The limits for an answer with this budget (`None`: [`UNBUDGETED_TOKENS`]), for an
    /// attempt starting now.
    pub(crate) fn new(max_tokens: Option<u32>, first_byte: Duration) -> AnswerLimit {
        let tokens = max_tokens.map_or(UNBUDGETED_TOKENS, u64::from);
        let text = tokens
            .saturating_mul(ANSWER_BYTES_PER_TOKEN)
            .max(MIN_ANSWER_BYTES);
        let wire = text.saturating_mul(WIRE_BYTES_PER_ANSWER_BYTE);
        let time = first_byte.saturating_add(
            ANSWER_TIME_PER_TOKEN.saturating_mul(u32::try_from(tokens).unwrap_or(u32::MAX)),
        );
        let now = tokio::time::Instant::now();
        AnswerLimit {
            text_bytes: usize::try_from(text).unwrap_or(usize::MAX),
            wire_bytes: usize::try_from(wire).unwrap_or(usize::MAX),
            deadline: now
                .checked_add(time)
                .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365)),
        }
    }
}

/// Appends `piece` to `text` without letting `text` grow past `limit` bytes (cutting at a
/// character boundary). Returns the part kept and whether anything was left out.
pub(crate) fn append_capped<'p>(
    text: &mut String,
    piece: &'p str,
    limit: usize,
) -> (&'p str, bool) {
    let room = limit.saturating_sub(text.len());
    if piece.len() <= room {
        text.push_str(piece);
        return (piece, false);
    }
    let mut cut = room;
    while !piece.is_char_boundary(cut) {
        cut -= 1;
    }
    let kept = &piece[..cut];
    text.push_str(kept);
    (kept, true)
}

/// A streamed response body read piece by piece with the first-byte and idle timeouts.
pub(crate) struct Body<'t> {
    transport: &'t Transport,
    response: reqwest::Response,
    first_byte: Duration,
    idle: Duration,
    started: bool,
}

impl<'t> Body<'t> {
    pub(crate) fn new(
        transport: &'t Transport,
        response: reqwest::Response,
        first_byte: Duration,
        idle: Option<Duration>,
    ) -> Self {
        Body {
            transport,
            response,
            first_byte,
            idle: idle.unwrap_or(transport.settings.timeouts.idle),
            started: false,
        }
    }

    /// The next piece within an answer's limits: `Ok(Next::Cut)` once the deadline passed
    /// or more than `limit.wire_bytes` were read in all (`read` counts them).
    pub(crate) async fn next_within(
        &mut self,
        cancel: &CancellationToken,
        limit: &AnswerLimit,
        read: &mut usize,
    ) -> Result<Next, LlmError> {
        match tokio::time::timeout_at(limit.deadline, self.next(cancel)).await {
            Err(_) => Ok(Next::Cut),
            Ok(Err(error)) => Err(error),
            Ok(Ok(None)) => Ok(Next::End),
            Ok(Ok(Some(bytes))) => {
                *read = read.saturating_add(bytes.len());
                if *read > limit.wire_bytes {
                    Ok(Next::Cut)
                } else {
                    Ok(Next::Bytes(bytes))
                }
            }
        }
    }

    /// The next piece; `None` at the end of the body.
    pub(crate) async fn next(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<Option<Vec<u8>>, LlmError> {
        let (wait, phase) = if self.started {
            (self.idle, TimeoutPhase::Idle)
        } else {
            (self.first_byte, TimeoutPhase::FirstByte)
        };
        tokio::select! {
            _ = cancel.cancelled() => Err(self.transport.cancelled()),
            r = tokio::time::timeout(wait, self.response.chunk()) => match r {
                Err(_) => Err(self.transport.timeout(phase, wait)),
                Ok(Ok(None)) => Ok(None),
                Ok(Err(e)) => Err(self.transport.map_reqwest(e)),
                Ok(Ok(Some(bytes))) => {
                    if !bytes.is_empty() {
                        self.started = true;
                    }
                    Ok(Some(bytes.to_vec()))
                }
            },
        }
    }
}

/// What [`Body::next_within`] read.
#[derive(Debug)]
pub(crate) enum Next {
    /// A piece of the body.
    Bytes(Vec<u8>),
    /// The end of the body.
    End,
    /// The answer's limits were reached: stop reading, the answer is cut off.
    Cut,
}

fn io_error_kind(error: &reqwest::Error) -> Option<std::io::ErrorKind> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        source = e.source();
    }
    None
}

/// The error and its causes, `: `-separated, without repeats.
fn chain(error: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}

/// The message in an error body: `{"error":"..."}`, `{"error":{"message":"..."}}`,
/// `{"message":"..."}`, `{"detail":"..."}`, else the text itself, shortened.
pub(crate) fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
        let candidates = [
            &value["error"]["message"],
            &value["error"],
            &value["message"],
            &value["detail"],
        ];
        for candidate in candidates {
            if let Some(s) = candidate.as_str() {
                return shorten(s.trim(), 500);
            }
        }
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        "(empty body)".to_string()
    } else {
        shorten(trimmed, 500)
    }
}

pub(crate) fn shorten(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max_chars).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_come_from_every_common_shape() {
        let cases: &[(&[u8], &str)] = &[
            (br#"{"error":"model 'x' not found"}"#, "model 'x' not found"),
            (
                br#"{"error":{"message":"bad key","type":"auth"}}"#,
                "bad key",
            ),
            (br#"{"message":"nope"}"#, "nope"),
            (br#"{"detail":"Not Found"}"#, "Not Found"),
            (b"404 page not found\n", "404 page not found"),
            (b"", "(empty body)"),
            (b"\xff\xfe", "\u{fffd}\u{fffd}"),
        ];
        for (body, expected) in cases {
            assert_eq!(error_message(body), *expected);
        }
    }

    #[test]
    fn answer_limits_follow_the_budget_with_a_floor() {
        let first_byte = Duration::from_secs(600);
        let small = AnswerLimit::new(Some(512), first_byte);
        assert_eq!(small.text_bytes, 64 * 1024);
        assert_eq!(small.wire_bytes, 64 * 64 * 1024);
        let big = AnswerLimit::new(Some(16_384), first_byte);
        assert_eq!(big.text_bytes, 16 * 16_384);
        let none = AnswerLimit::new(None, first_byte);
        assert_eq!(none.text_bytes, 16 * 65_536);
        let huge = AnswerLimit::new(Some(u32::MAX), Duration::MAX);
        assert!(huge.text_bytes > 0 && huge.deadline > tokio::time::Instant::now());
        let wait = small.deadline - tokio::time::Instant::now();
        assert!(wait > Duration::from_secs(600 + 1000) && wait <= Duration::from_secs(600 + 1024));
    }

    #[test]
    fn capped_text_is_cut_at_a_character_boundary() {
        let mut text = String::from("ab");
        assert_eq!(append_capped(&mut text, "cd", 5), ("cd", false));
        assert_eq!(append_capped(&mut text, "éé", 6), ("é", true));
        assert_eq!(text, "abcdé");
        assert_eq!(append_capped(&mut text, "x", 6), ("", true));
        assert_eq!(text, "abcdé");
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
        };
        let err = LlmError::InvalidConfig(String::new());
        let waits: Vec<u128> = (0..4).map(|i| policy.delay(i, &err).as_millis()).collect();
        assert_eq!(waits, vec![100, 200, 350, 350]);
        let told = LlmError::Http {
            kind: ProviderKind::Ollama,
            url: String::new(),
            status: 429,
            message: String::new(),
            retry_after: Some(Duration::from_secs(3600)),
        };
        assert_eq!(policy.delay(0, &told), Duration::from_millis(350));
    }

    /// A transport that never connects: the attempts below are scripted, not sent.
    fn scripted(retry: RetryPolicy) -> Transport {
        let settings = ProviderSettings {
            retry,
            ..ProviderSettings::default()
        };
        Transport::new(
            ProviderKind::OpenAiCompatible,
            "http://127.0.0.1:9".to_string(),
            settings,
        )
        .unwrap()
    }

    fn http_error(status: u16, retry_after: Option<Duration>) -> LlmError {
        LlmError::Http {
            kind: ProviderKind::OpenAiCompatible,
            url: String::new(),
            status,
            message: String::new(),
            retry_after,
        }
    }

    /// On tokio's paused clock, the waits between attempts are exact: the server's
    /// `Retry-After` first, then the backoff doubling from `base_delay` (counted from the
    /// first retry, whatever caused it).
    #[tokio::test(start_paused = true)]
    async fn retries_wait_what_the_server_asked_then_the_backoff() {
        let transport = scripted(RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        });
        let cancel = CancellationToken::new();
        let no_events = |_| {};
        let sink = EventSink::new(&no_events);
        let started = tokio::time::Instant::now();
        let tried = std::sync::Mutex::new(Vec::new());
        let result = transport
            .with_retries(&cancel, &sink, || {
                let mut tried = tried.lock().unwrap();
                tried.push(started.elapsed());
                let outcome = match tried.len() {
                    1 => Err(http_error(429, Some(Duration::from_secs(7)))),
                    2 | 3 => Err(http_error(503, None)),
                    n => Ok(n),
                };
                Box::pin(async move { outcome })
            })
            .await;
        assert_eq!(result.unwrap(), 4);
        let ms = |d: &Duration| d.as_millis();
        let tried: Vec<u128> = tried.into_inner().unwrap().iter().map(ms).collect();
        // 7 s asked for; then 500 ms × 2 (the second retry) and × 4 (the third).
        assert_eq!(tried, vec![0, 7_000, 8_000, 10_000]);
    }

    /// A `Retry-After` longer than `max_delay` is cut to it, and once the retries run out
    /// the last error is returned without a further wait.
    #[tokio::test(start_paused = true)]
    async fn a_long_retry_after_is_capped_and_the_last_error_returned_at_once() {
        let transport = scripted(RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        });
        let cancel = CancellationToken::new();
        let no_events = |_| {};
        let sink = EventSink::new(&no_events);
        let started = tokio::time::Instant::now();
        let result: Result<(), LlmError> = transport
            .with_retries(&cancel, &sink, || {
                Box::pin(async { Err(http_error(429, Some(Duration::from_secs(3600)))) })
            })
            .await;
        assert!(
            matches!(result, Err(LlmError::Http { status: 429, .. })),
            "{result:?}"
        );
        assert_eq!(started.elapsed(), Duration::from_secs(30));
    }

    /// Cancelling during the wait before a retry ends it then, with no further attempt.
    #[tokio::test(start_paused = true)]
    async fn cancelling_ends_the_wait_before_a_retry() {
        let transport = scripted(RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_secs(20),
            max_delay: Duration::from_secs(30),
        });
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            trigger.cancel();
        });
        let no_events = |_| {};
        let sink = EventSink::new(&no_events);
        let started = tokio::time::Instant::now();
        let attempts = std::sync::atomic::AtomicUsize::new(0);
        let result: Result<(), LlmError> = transport
            .with_retries(&cancel, &sink, || {
                attempts.fetch_add(1, Ordering::SeqCst);
                Box::pin(async { Err(http_error(500, None)) })
            })
            .await;
        assert!(
            result.as_ref().is_err_and(LlmError::is_cancelled),
            "{result:?}"
        );
        assert_eq!(attempts.into_inner(), 1);
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }
}
