//! Live progress of a compile: where a job is ([`Stage`]) and what has streamed in so far
//! ([`Progress`]), sent to a [`ProgressFn`] for progress bars and the desktop queue.

use std::sync::Mutex;

use serde::Serialize;

use crate::llm::StreamEvent;
use crate::store::JobTarget;
use crate::structured::JsonStream;

/// Where a compile job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Reading a large source in parts (JSONL extraction), before the article is written.
    Reading,
    /// Sending the prompt, waiting for the first token.
    Prompting,
    /// The answer is streaming in.
    Receiving,
    /// Checking the answer.
    Parsing,
    /// Writing the article.
    Saving,
    /// Finished: the article is stored.
    Compiled,
    /// Finished: the source failed.
    Failed,
}

/// Live progress of one compile, for progress bars and the desktop queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// What the job works on: a source, or a page written from its digests; `None` for a
    /// call that is no job (an answer to a question).
    pub target: Option<JobTarget>,
    /// Where it is.
    pub stage: Stage,
    /// Which provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The attempt with this provider, from 1.
    pub attempt: u32,
    /// Characters of the answer received so far.
    pub chars: usize,
    /// Pieces of the answer received so far (about one token each).
    pub chunks: usize,
    /// The article title as soon as the model has written it.
    pub title: Option<String>,
    /// A note for people: why a retry happens, why it failed.
    pub message: Option<String>,
    /// The text of the field the asking shows while it streams (an answer to a question),
    /// as far as it has come; `None` for compiles, which show their title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A callback receiving [`Progress`].
pub type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// Progress of one call, fed by the provider's stream.
pub struct Live<'a> {
    target: Option<JobTarget>,
    provider: String,
    attempt: u32,
    events: &'a ProgressFn,
    shows: Option<&'static str>,
    stream: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    json: JsonStream,
    chars: usize,
    chunks: usize,
    title: Option<String>,
    text: Option<String>,
}

impl<'a> Live<'a> {
    /// Progress of the call `attempt` of `provider` about `target`, sent to `events`.
    pub fn new(
        target: Option<JobTarget>,
        provider: String,
        attempt: u32,
        events: &'a ProgressFn,
    ) -> Live<'a> {
        Live {
            target,
            provider,
            attempt,
            events,
            shows: None,
            stream: Mutex::new(LiveState::default()),
        }
    }

    /// Also reports the text of the answer's top-level string field `field` as it streams.
    pub fn showing(mut self, field: Option<&'static str>) -> Live<'a> {
        self.shows = field;
        self
    }

    /// Reports `stage`. At [`Stage::Saving`] and [`Stage::Compiled`] the message is the
    /// article's title; at other stages it is a note for people.
    pub fn emit(&self, stage: Stage, message: Option<String>) {
        let (chars, chunks, title, text) = match self.stream.lock() {
            Ok(s) => (s.chars, s.chunks, s.title.clone(), s.text.clone()),
            Err(_) => (0, 0, None, None),
        };
        let title = match stage {
            Stage::Saving | Stage::Compiled => message.clone().or(title),
            _ => title,
        };
        (self.events)(Progress {
            target: self.target,
            stage,
            provider: self.provider.clone(),
            attempt: self.attempt,
            chars,
            chunks,
            title,
            message: match stage {
                Stage::Saving | Stage::Compiled => None,
                _ => message,
            },
            text,
        });
    }

    /// Takes one event of the answer's stream and reports what has come in so far.
    pub fn on_stream(&self, event: StreamEvent) {
        let snapshot = {
            let Ok(mut s) = self.stream.lock() else {
                return;
            };
            match event {
                StreamEvent::Delta(text) => {
                    s.chars += text.chars().count();
                    s.chunks += 1;
                    if s.json.push(&text) {
                        if s.title.is_none() {
                            if let Some(t) = s.json.complete_field("title").and_then(|v| v.as_str())
                            {
                                s.title = Some(t.to_string());
                            }
                        }
                        if let Some(field) = self.shows {
                            let shown = s.json.partial().and_then(|v| v.get(field));
                            if let Some(t) = shown.and_then(|v| v.as_str()) {
                                s.text = Some(t.to_string());
                            }
                        }
                    }
                }
                StreamEvent::Restart => *s = LiveState::default(),
            }
            (s.chars, s.chunks, s.title.clone(), s.text.clone())
        };
        (self.events)(Progress {
            target: self.target,
            stage: Stage::Receiving,
            provider: self.provider.clone(),
            attempt: self.attempt,
            chars: snapshot.0,
            chunks: snapshot.1,
            title: snapshot.2,
            message: None,
            text: snapshot.3,
        });
    }
}
