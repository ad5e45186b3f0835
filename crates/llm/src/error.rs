//! What can go wrong talking to a model server, in words a person can act on.

use super::ProviderKind;
use std::time::Duration;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the TCP (and TLS) connection.
    Connect,
    /// Waiting for the response headers or the first piece of the answer.
    FirstByte,
    /// Waiting for the next piece of a streamed answer.
    Idle,
}

/// An error from a provider. Every message names the server's address and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// Nothing listens at the address (connection refused).
    #[error("{}", not_running(*.kind, .url))]
    NotRunning {
        /// The kind of server expected there.
        kind: ProviderKind,
        /// The base URL.
        url: String,
    },
    /// The connection could not be made for another reason (DNS, TLS, unreachable network).
    #[error("cannot connect to {} at {url}: {detail} — check the base URL and the network", .kind.server_name())]
    Connect {
        /// The kind of server expected there.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// What the network stack said.
        detail: String,
    },
    /// A wait ran out.
    #[error("{}", timeout_message(*.kind, .url, *.phase, *.after))]
    Timeout {
        /// The kind of server.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// Which wait ran out.
        phase: TimeoutPhase,
        /// How long it was.
        after: Duration,
    },
    /// HTTP 401/403: the API key is missing or refused.
    #[error("{} at {url} refused the request (HTTP {status}): {}", .kind.server_name(), auth_advice(*.key_sent))]
    Auth {
        /// The kind of server.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// 401 or 403.
        status: u16,
        /// Whether an API key was sent.
        key_sent: bool,
    },
    /// The server does not have the requested model.
    #[error("{}", model_not_found(*.kind, .url, .model, .detail))]
    ModelNotFound {
        /// The kind of server.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// The model asked for.
        model: String,
        /// The server's own words.
        detail: String,
    },
    /// Any other HTTP error status (after retries, for 429 and 5xx).
    #[error("{} at {url} answered HTTP {status}: {message}{}", .kind.server_name(), status_advice(*.status))]
    Http {
        /// The kind of server.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's message (from its JSON error body, else the body text, shortened).
        message: String,
        /// A wait the server asked for (`Retry-After`), when it sent one.
        retry_after: Option<Duration>,
    },
    /// The server reported an error inside the stream (e.g. it ran out of memory).
    #[error("{} at {url} reported an error: {message}", .kind.server_name())]
    Server {
        /// The kind of server.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// The server's message.
        message: String,
    },
    /// The connection broke before the answer was complete.
    #[error("the connection to {} at {url} broke before the answer was complete ({detail}) — try again", .kind.server_name())]
    Interrupted {
        /// The kind of server.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// What broke.
        detail: String,
    },
    /// The server's bytes are not the protocol this provider speaks.
    #[error("{} at {url} did not answer in the {} protocol ({detail}) — check that the base URL points at the right kind of server", .kind.server_name(), .kind.protocol_name())]
    Protocol {
        /// The kind of server expected.
        kind: ProviderKind,
        /// The base URL.
        url: String,
        /// What was wrong.
        detail: String,
    },
    /// The caller cancelled the request.
    #[error("the request to {url} was cancelled")]
    Cancelled {
        /// The base URL.
        url: String,
    },
    /// The provider settings cannot work (e.g. a base URL that is not a URL).
    #[error("invalid provider settings: {0}")]
    InvalidConfig(String),
    /// The built-in engine cannot use its model file or failed running it.
    #[error("{message}")]
    Engine {
        /// The model file.
        path: String,
        /// What went wrong, naming the file.
        message: String,
    },
}

impl LlmError {
    /// Whether the provider failed to deliver an answer for reasons of the server or the
    /// network (down, unreachable, too slow, overloaded, crashed, speaking another
    /// protocol). A caller may then fall back to another provider. Wrong settings (API key,
    /// model name, a rejected request) and cancellation are not transport errors.
    pub fn is_transport(&self) -> bool {
        match self {
            LlmError::NotRunning { .. }
            | LlmError::Connect { .. }
            | LlmError::Timeout { .. }
            | LlmError::Server { .. }
            | LlmError::Interrupted { .. }
            | LlmError::Protocol { .. } => true,
            LlmError::Http { status, .. } => *status == 429 || *status >= 500,
            LlmError::Auth { .. }
            | LlmError::ModelNotFound { .. }
            | LlmError::Cancelled { .. }
            | LlmError::InvalidConfig(_)
            | LlmError::Engine { .. } => false,
        }
    }

    /// Whether this was a cancellation by the caller.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, LlmError::Cancelled { .. })
    }

    /// Whether a fresh attempt could succeed: refused or broken connections, HTTP 429 and
    /// 5xx. Timeouts are not retried (the wait would only double).
    pub(crate) fn is_retryable(&self) -> bool {
        match self {
            LlmError::NotRunning { .. } | LlmError::Interrupted { .. } => true,
            LlmError::Http { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }

    /// The wait the server asked for, if any.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

fn not_running(kind: ProviderKind, url: &str) -> String {
    match kind {
        ProviderKind::Ollama => {
            format!("Ollama is not running at {url} — start it with `ollama serve`")
        }
        ProviderKind::OpenAiCompatible => {
            format!("No OpenAI-compatible server answers at {url} — start it or check the base URL")
        }
        ProviderKind::Builtin => format!("the built-in engine cannot open {url}"),
    }
}

fn timeout_message(kind: ProviderKind, url: &str, phase: TimeoutPhase, after: Duration) -> String {
    let server = kind.server_name();
    let after = human_duration(after);
    match phase {
        TimeoutPhase::Connect => format!(
            "could not connect to {server} at {url} within {after} — check the base URL and the network"
        ),
        TimeoutPhase::FirstByte => format!(
            "{server} at {url} did not start answering within {after} — the model may still be loading or the prompt may be too large; raise the timeout or use a smaller model"
        ),
        TimeoutPhase::Idle => format!(
            "{server} at {url} sent nothing for {after} in the middle of the answer — it may be overloaded or stuck; try again or raise the idle timeout"
        ),
    }
}

fn auth_advice(key_sent: bool) -> &'static str {
    if key_sent {
        "the API key was not accepted — check the key stored for this server (keyring, or WIKIMIND_API_KEY for the primary provider)"
    } else {
        "it needs an API key — store one for this server in the keyring (`wikimind providers --set-key`, or Settings in the app), or set WIKIMIND_API_KEY if it is the primary provider"
    }
}

fn model_not_found(kind: ProviderKind, url: &str, model: &str, detail: &str) -> String {
    match kind {
        ProviderKind::Ollama => format!(
            "model `{model}` is not available in Ollama at {url} ({detail}) — download it with `ollama pull {model}`"
        ),
        ProviderKind::OpenAiCompatible | ProviderKind::Builtin => format!(
            "model `{model}` is not available at {url} ({detail}) — check the model name against the server's list of models"
        ),
    }
}

fn status_advice(status: u16) -> &'static str {
    match status {
        404 => " — nothing answers at this path; check the base URL",
        429 => " — the server is rate limiting; wait and try again",
        500..=599 => " — the server failed; try again or check its log",
        _ => "",
    }
}

/// `1.5s`, `250ms`, `2m 30s`.
pub(crate) fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        let s = d.as_secs_f64();
        if s.fract() < 0.05 {
            format!("{}s", s.round() as u64)
        } else {
            format!("{s:.1}s")
        }
    } else {
        let s = d.as_secs();
        if s.is_multiple_of(60) {
            format!("{}m", s / 60)
        } else {
            format!("{}m {}s", s / 60, s % 60)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(human_duration(Duration::from_secs(2)), "2s");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human_duration(Duration::from_secs(150)), "2m 30s");
        assert_eq!(human_duration(Duration::from_secs(600)), "10m");
    }

    #[test]
    fn refused_connections_say_how_to_start_the_server() {
        let e = LlmError::NotRunning {
            kind: ProviderKind::Ollama,
            url: "http://127.0.0.1:11434".into(),
        };
        assert_eq!(
            e.to_string(),
            "Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`"
        );
        assert!(e.is_transport());
    }
}
