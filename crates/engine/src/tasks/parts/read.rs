//! Reading a large source in parts over a [`Caller`], the IO half: one JSONL extraction call per chunk,
//! concurrently within the configured limit, with the claims found so far as progress.
//! What an answer yields, and when a part is asked again, of the next provider or given
//! up, is decided by [`crate::tasks::parts::extract`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::llm::{CancellationToken, ChatRequest, FinishReason, StreamEvent};
use crate::store::JobTarget;
use crate::structured::{JsonlEvent, JsonlStream, Mode, Schema};

use crate::call::budget::chars_for;
use crate::call::live::{Progress, ProgressFn, Stage};
use crate::call::{CallError, Caller};
use crate::prompts::templates::PromptTemplate;
use crate::tasks::parts::chunk::{self, Chunk};
use crate::tasks::parts::extract::{
    part_prompt, read_part_answer, PartReading, PartResult, PartStep, Reading, CHUNK_OVERLAP,
};

/// Reads a text too large for one call (a source, or the material of a page) in parts of
/// `room` tokens with `caller`: one JSONL extraction call per chunk (`template` is the
/// `extract` template), concurrently within the configured limit, each retried and then
/// reported if it still fails.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn read_in_parts(
    caller: &Caller,
    template: &PromptTemplate,
    source: &PartSource<'_>,
    context: u64,
    room: u64,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<Reading, CallError> {
    let chunks = chunk::split(source.text, chars_for(room), CHUNK_OVERLAP);
    let count = chunks.len();
    let claims_so_far = AtomicUsize::new(0);
    let limit = tokio::sync::Semaphore::new(caller.settings().concurrency.max(1));
    let calls = chunks.iter().map(|c| {
        let (limit, claims_so_far) = (&limit, &claims_so_far);
        async move {
            let _permit = limit
                .acquire()
                .await
                .map_err(|e| CallError::Worker(e.to_string()))?;
            extract_part(
                caller,
                template,
                source,
                c,
                count,
                claims_so_far,
                events,
                cancel,
            )
            .await
        }
    });
    let parts = futures_util::future::join_all(calls).await;
    let mut parts: Vec<PartResult> = parts.into_iter().collect::<Result<_, _>>()?;
    parts.sort_by_key(|p| p.index);
    Ok(Reading {
        context,
        chunks,
        parts,
    })
}

/// Extracts the notes of one chunk, asking providers as [`PartReading`] decides.
#[allow(clippy::too_many_arguments)]
async fn extract_part(
    caller: &Caller,
    template: &PromptTemplate,
    source: &PartSource<'_>,
    chunk: &Chunk,
    count: usize,
    claims_so_far: &AtomicUsize,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<PartResult, CallError> {
    let prompt = part_prompt(template, source.title, source.text, chunk, count);
    let schema = template.schema();
    let mut reading = PartReading::new(chunk.index, caller.providers().len());
    let mut step = reading.start();
    loop {
        let slot = match step {
            PartStep::Call { provider } => &caller.providers()[provider],
            PartStep::Done(result) => return Ok(result),
        };
        let request = ChatRequest::new(&slot.model, &prompt.system, &prompt.user)
            .with_line_schema(schema.as_value().clone())
            .with_grounds(match source.quotable {
                None => crate::ground::grounds::part_grounds(chunk.text(source.text)),
                Some(spans) => crate::ground::grounds::part_grounds_within(
                    source.text,
                    chunk.start..chunk.end,
                    spans,
                ),
            })
            .with_max_tokens(caller.settings().max_tokens)
            .with_temperature(caller.settings().temperature)
            .with_cancel(cancel.clone());
        let live = PartLive {
            target: source.target,
            provider: slot.label(),
            part: format!("part {} of {count}", chunk.index + 1),
            claims_so_far,
            events,
            schema: &schema,
            stream: Mutex::new((JsonlStream::new(schema.clone(), Mode::Lenient), 0)),
        };
        step = match slot.provider.chat(&request, &|e| live.on_stream(e)).await {
            Ok(resp) => {
                let cut_off = resp.finish == FinishReason::Length;
                let answer = read_part_answer(&resp.text, cut_off, &schema, chunk, source.text);
                if let Ok(read) = &answer {
                    let claims = read.notes.iter().filter(|n| n.is_claim()).count();
                    claims_so_far.fetch_add(claims, Ordering::Relaxed);
                }
                reading.on_answer(resp.prompt_tokens, resp.completion_tokens, answer)
            }
            Err(e) if e.is_cancelled() => return Err(CallError::Cancelled),
            Err(e) => reading.on_error(e.to_string(), e.is_transport()),
        };
    }
}

/// The text read in parts: what it belongs to (for progress), its title and its text.
pub(crate) struct PartSource<'a> {
    /// The job reading it.
    pub target: JobTarget,
    /// Its title, when it has one.
    pub title: Option<&'a str>,
    /// The text.
    pub text: &'a str,
    /// The byte ranges of `text` its quotes may come from; `None`: all of it.
    pub quotable: Option<&'a [std::ops::Range<usize>]>,
}

/// Progress of one extraction call: the claims streamed in so far, over all parts.
struct PartLive<'a> {
    target: JobTarget,
    provider: String,
    /// `part 2 of 7`.
    part: String,
    /// Claims of the parts already read.
    claims_so_far: &'a AtomicUsize,
    events: &'a ProgressFn,
    schema: &'a Schema,
    /// The answer's lines as they stream in, and the claims among them.
    stream: Mutex<(JsonlStream, usize)>,
}

impl PartLive<'_> {
    fn on_stream(&self, event: StreamEvent) {
        let claims = {
            let Ok(mut guard) = self.stream.lock() else {
                return;
            };
            let (jsonl, claims) = &mut *guard;
            match event {
                StreamEvent::Delta(text) => {
                    for ev in jsonl.push(&text) {
                        if matches!(&ev, JsonlEvent::Object(v) if v["type"] == "claim") {
                            *claims += 1;
                        }
                    }
                }
                StreamEvent::Restart => {
                    *jsonl = JsonlStream::new(self.schema.clone(), Mode::Lenient);
                    *claims = 0;
                }
            }
            *claims
        };
        (self.events)(Progress {
            target: Some(self.target),
            stage: Stage::Reading,
            provider: self.provider.clone(),
            attempt: 1,
            chars: 0,
            chunks: 0,
            title: None,
            message: Some(format!(
                "{}: {} claims so far",
                self.part,
                self.claims_so_far.load(Ordering::Relaxed) + claims
            )),
            text: None,
        });
    }
}
