//! What the server answers to one chat request: a [`Reply`], built in code or read from a
//! JSON line.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Why the scripted answer ended, as the server reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The model finished (`done_reason: "stop"`, `finish_reason: "stop"`).
    #[default]
    Stop,
    /// The answer hit the token budget (`"length"`).
    Length,
}

impl Finish {
    /// The wire name (`stop` or `length`).
    pub fn as_str(self) -> &'static str {
        match self {
            Finish::Stop => "stop",
            Finish::Length => "length",
        }
    }
}

/// One scripted answer to a chat request, rendered in whichever protocol the request used
/// (Ollama NDJSON or OpenAI SSE, streamed or not, as the request asked).
///
/// Build it in code (`Reply::text("...").chunk_chars(4)`) or write it as one JSON line for the
/// binary's `--answers` file; every field is optional there:
///
/// ```json
/// {"text": "{\"title\":\"A\"}", "chunk_chars": 5, "chunk_delay_ms": 10, "finish": "length"}
/// {"status": 500, "error": "out of memory"}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Reply {
    /// The answer text.
    pub text: String,
    /// Characters per streamed chunk; 0 sends the whole text as one chunk.
    pub chunk_chars: usize,
    /// Pause before each streamed chunk, in milliseconds.
    pub chunk_delay_ms: u64,
    /// Why the answer ended.
    pub finish: Finish,
    /// Reported prompt tokens; `None` reports an estimate (characters / 4).
    pub prompt_tokens: Option<u64>,
    /// Reported answer tokens; `None` reports an estimate (characters / 4).
    pub completion_tokens: Option<u64>,
    /// HTTP status; anything but 200 sends an error body instead of an answer.
    pub status: Option<u16>,
    /// Error message for a non-200 status, wrapped the way the protocol wraps errors
    /// (`{"error":"..."}` for Ollama, `{"error":{"message":"..."}}` for OpenAI).
    pub error: Option<String>,
    /// A raw response body sent as is (overrides `error` and the answer), with `status`.
    pub raw_body: Option<Vec<u8>>,
    /// Extra response headers, e.g. `("Retry-After", "1")`.
    pub headers: Vec<(String, String)>,
    /// Pause before the response headers are sent, in milliseconds (a slow server).
    pub headers_delay_ms: u64,
    /// Send this many chunks, then hang without closing (a stalled stream).
    pub stall_after_chunks: Option<usize>,
    /// Send this many chunks, then close the connection without finishing (a crash).
    pub truncate_after_chunks: Option<usize>,
    /// In a stream, after the chunks: send an error event (`{"error":"..."}`) instead of the
    /// final done event.
    pub stream_error: Option<String>,
    /// Write the body in HTTP chunks of at most this many bytes, so chunk boundaries fall
    /// inside JSON lines and inside multi-byte UTF-8 characters.
    pub wire_chunk_bytes: Option<usize>,
}

impl Reply {
    /// An answer with this text, streamed as one chunk, finishing with `stop`.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            ..Reply::default()
        }
    }

    /// An HTTP error with this status and message, in the protocol's error shape.
    pub fn error(status: u16, message: impl Into<String>) -> Reply {
        Reply {
            status: Some(status),
            error: Some(message.into()),
            ..Reply::default()
        }
    }

    /// A response whose body is exactly these bytes (for hostile or foreign servers).
    pub fn raw(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status: Some(status),
            raw_body: Some(body.into()),
            ..Reply::default()
        }
    }

    /// Streams the text in chunks of `n` characters.
    pub fn chunk_chars(mut self, n: usize) -> Reply {
        self.chunk_chars = n;
        self
    }

    /// Pauses before each chunk.
    pub fn chunk_delay(mut self, delay: Duration) -> Reply {
        self.chunk_delay_ms = delay.as_millis() as u64;
        self
    }

    /// Sets why the answer ended.
    pub fn finish(mut self, finish: Finish) -> Reply {
        self.finish = finish;
        self
    }

    /// Reports these token counts.
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Reply {
        self.prompt_tokens = Some(prompt_tokens);
        self.completion_tokens = Some(completion_tokens);
        self
    }

    /// Adds a response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long before sending the response headers.
    pub fn delay_headers(mut self, delay: Duration) -> Reply {
        self.headers_delay_ms = delay.as_millis() as u64;
        self
    }

    /// Sends `n` chunks, then hangs with the connection open.
    pub fn stall_after(mut self, n: usize) -> Reply {
        self.stall_after_chunks = Some(n);
        self
    }

    /// Sends `n` chunks, then drops the connection mid-stream.
    pub fn truncate_after(mut self, n: usize) -> Reply {
        self.truncate_after_chunks = Some(n);
        self
    }

    /// Ends the stream with an error event carrying this message.
    pub fn stream_error(mut self, message: impl Into<String>) -> Reply {
        self.stream_error = Some(message.into());
        self
    }

    /// Splits the body into HTTP chunks of at most `n` bytes.
    pub fn wire_chunk_bytes(mut self, n: usize) -> Reply {
        self.wire_chunk_bytes = Some(n.max(1));
        self
    }

    /// The HTTP status this reply sends.
    pub fn status_code(&self) -> u16 {
        self.status.unwrap_or(200)
    }

    /// The answer split into streamed chunks (never splitting a character).
    pub fn chunks(&self) -> Vec<String> {
        if self.chunk_chars == 0 || self.text.is_empty() {
            return vec![self.text.clone()];
        }
        let chars: Vec<char> = self.text.chars().collect();
        chars
            .chunks(self.chunk_chars)
            .map(|c| c.iter().collect())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_split_on_characters_not_bytes() {
        let reply = Reply::text("héllo wörld").chunk_chars(3);
        assert_eq!(reply.chunks(), vec!["hél", "lo ", "wör", "ld"]);
        assert_eq!(Reply::text("").chunk_chars(3).chunks(), vec![""]);
    }

    #[test]
    fn a_json_line_becomes_a_reply() {
        let reply: Reply = serde_json::from_str(
            r#"{"status":500,"error":"boom","headers":[["Retry-After","1"]]}"#,
        )
        .unwrap();
        assert_eq!(reply.status_code(), 500);
        assert_eq!(reply.error.as_deref(), Some("boom"));
        assert_eq!(reply.headers, vec![("Retry-After".into(), "1".into())]);
    }
}
