//! The driver: performs what the compile step decides — calls providers, streams progress,
//! stores the article or the failure. The job queue that calls it is [`crate::queue`].

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{CompileSettings, Settings};
use crate::llm::{
    self, CancellationToken, ChatRequest, FinishReason, LlmError, Message, Provider,
    ProviderSettings, RetryPolicy, Role, StreamEvent, Timeouts,
};
use crate::render::wiki_links;
use crate::store::{
    ArticleId, CompileRecord, NewLink, SaveArticle, SourceId, SourceStatus, Store, StoreError,
};
use crate::structured::{JsonStream, Schema};

use super::attempt::{classify, grounding_tally, AnswerClass, AttemptRecord};
use super::chunk::{self, Chunk};
use super::ground::GroundingIndex;
use super::notes::{self, Note};
use super::prompt::{
    build_prompt_with, feedback_message, known_concepts, list_lines, Prompt, PromptInput,
};
use super::step::{judge_in, CompileState, Judgement, Step};
use super::templates::{PromptSet, COMPILE, COMPILE_NOTES, EXTRACT};
use crate::store::Source;
use crate::structured::{JsonlEvent, JsonlStream, Mode};

/// Tokens kept free in every call's context, beyond the prompt and the answer budget.
const CONTEXT_MARGIN: u64 = 256;
/// Bytes repeated from the end of one chunk at the start of the next.
const CHUNK_OVERLAP: usize = 200;
/// Attempts per provider for one chunk of a large source.
const CHUNK_ATTEMPTS: u32 = 2;

/// The largest context a server's report is believed up to (16 Mi tokens).
const MAX_CONTEXT_TOKENS: u64 = 1 << 24;

/// About how many characters `tokens` tokens hold (three a token), without overflow.
fn chars_for(tokens: u64) -> usize {
    usize::try_from(tokens.saturating_mul(3)).unwrap_or(usize::MAX)
}

/// Estimated tokens of a text: about three characters a token, on the safe side.
pub fn estimate_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(3)
}

/// A compile problem that is not about one answer: the store failed, or the run was
/// cancelled.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No such source.
    #[error("no source with id {0}")]
    NoSource(SourceId),
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// A compile worker stopped unexpectedly.
    #[error("a compile worker stopped: {0}")]
    Worker(String),
}

/// One provider to compile with, and the model to ask it for.
#[derive(Clone)]
pub struct ProviderSlot {
    /// The client.
    pub provider: Arc<dyn Provider>,
    /// The model name.
    pub model: String,
}

impl ProviderSlot {
    /// `ollama:qwen2.5:3b` — for logs and reports.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider.kind().as_str(), self.model)
    }
}

/// Builds the configured providers (the primary first, then the fallbacks), each sending
/// the API key its settings carry (see [`Settings::with_keys`]) and no other.
pub fn providers_from_settings(settings: &Settings) -> Result<Vec<ProviderSlot>, LlmError> {
    let c = &settings.compile;
    settings
        .providers
        .iter()
        .map(|p| {
            let provider = llm::new_provider(
                p.kind,
                &p.base_url,
                ProviderSettings {
                    timeouts: Timeouts {
                        connect: Duration::from_secs(c.connect_timeout_secs),
                        first_byte: Duration::from_secs(c.first_byte_timeout_secs),
                        idle: Duration::from_secs(c.idle_timeout_secs),
                    },
                    retry: RetryPolicy {
                        max_retries: c.transport_retries,
                        ..RetryPolicy::default()
                    },
                    // As the settings resolved it (`Settings::with_keys`): this server's
                    // own key, or none.
                    api_key: p.api_key.clone(),
                },
            )?;
            Ok(ProviderSlot {
                provider: Arc::from(provider),
                model: p.model.clone(),
            })
        })
        .collect()
}

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
    /// Which source.
    pub source_id: SourceId,
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
}

/// A callback receiving [`Progress`].
pub type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// The result of compiling one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompileReport {
    /// Which source.
    pub source_id: SourceId,
    /// Whether an article was stored.
    pub ok: bool,
    /// The stored article.
    pub article_id: Option<ArticleId>,
    /// Its title as stored.
    pub title: Option<String>,
    /// The title the model asked for, when another article already had it.
    pub collision_with: Option<String>,
    /// Why it failed.
    pub reason: Option<String>,
    /// Calls made to models.
    pub calls: u32,
    /// The provider and model that wrote the article.
    pub provider: Option<String>,
    /// Whether the article was written from a cut-off answer.
    pub truncated: bool,
    /// Repairs applied to the accepted answer (kind names).
    pub repairs: Vec<String>,
    /// Warnings (downgraded quotes, truncation, earlier rejected attempts).
    pub warnings: Vec<String>,
    /// Prompt and answer tokens over all calls, when reported.
    pub tokens_in: u64,
    /// Answer tokens over all calls, when reported.
    pub tokens_out: u64,
    /// Wall time of the compile.
    pub elapsed_ms: u64,
    /// Every model call made, in order, with how its answer fared.
    pub attempts: Vec<AttemptRecord>,
    /// The prompt template version used.
    pub prompt_version: String,
    /// How a large source was read in parts (absent when it fit in one call).
    pub large: Option<LargeSourceReport>,
}

impl CompileReport {
    /// The report of a compile of `source_id` that has not done anything yet (not ok, no
    /// calls, no reason).
    pub fn nothing_yet(source_id: SourceId) -> CompileReport {
        CompileReport {
            source_id,
            ok: false,
            article_id: None,
            title: None,
            collision_with: None,
            reason: None,
            calls: 0,
            provider: None,
            truncated: false,
            repairs: Vec::new(),
            warnings: Vec::new(),
            tokens_in: 0,
            tokens_out: 0,
            elapsed_ms: 0,
            prompt_version: String::new(),
            large: None,
            attempts: Vec::new(),
        }
    }
}

/// How a large source was read: chunks, calls, what was found, what could not be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LargeSourceReport {
    /// The context size the chunks were sized for, in tokens.
    pub context_tokens: u64,
    /// How many chunks the source was split into.
    pub chunks: usize,
    /// Extraction calls made (retries included).
    pub calls: u32,
    /// Notes kept after merging (duplicates across chunks dropped).
    pub notes: usize,
    /// Claims among them.
    pub claims: usize,
    /// Notes that did not fit in the final compile call.
    pub notes_left_out: usize,
    /// Chunks that could not be read, with where they are and why.
    pub failed_chunks: Vec<FailedChunk>,
    /// Chunks (from 1) whose answer reached the output limit: their notes up to the cut
    /// are kept, what the model would have written after it is missing.
    pub cut_off_chunks: Vec<usize>,
    /// Lines of the kept extraction answers that were not valid notes (skipped).
    pub skipped_lines: usize,
    /// Prompt tokens over the extraction calls, when reported.
    pub tokens_in: u64,
    /// Answer tokens over the extraction calls, when reported.
    pub tokens_out: u64,
}

/// A part of a source that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedChunk {
    /// Which part, from 1.
    pub part: usize,
    /// Byte offset where it starts in the source.
    pub start: usize,
    /// Byte offset where it ends.
    pub end: usize,
    /// Why.
    pub reason: String,
}

/// Compiles sources with the configured providers into the store.
pub struct Compiler {
    store: Arc<Store>,
    providers: Vec<ProviderSlot>,
    settings: CompileSettings,
    schema: Schema,
    prompts: PromptSet,
    contexts: Mutex<std::collections::HashMap<usize, u64>>,
}

impl Compiler {
    /// A compiler over `store` with `providers` (primary first; at least one).
    pub fn new(
        store: Arc<Store>,
        providers: Vec<ProviderSlot>,
        settings: CompileSettings,
    ) -> Compiler {
        let schema = crate::contract::compilation_contract().clone();
        Compiler {
            store,
            providers,
            settings,
            schema,
            prompts: PromptSet::builtin(),
            contexts: Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Uses these prompt templates (built-ins with a person's overrides).
    pub fn with_prompts(mut self, prompts: PromptSet) -> Compiler {
        if let Some(s) = &prompts.get(COMPILE).schema {
            self.schema = s.clone();
        }
        self.prompts = prompts;
        self
    }

    /// The context size of provider `i`'s model in tokens: what the server reports, else
    /// the configured default. Asked once per provider.
    async fn context_tokens(&self, i: usize) -> u64 {
        if let Some(n) = self.contexts.lock().ok().and_then(|m| m.get(&i).copied()) {
            return n;
        }
        let configured = u64::from(self.settings.context_tokens);
        let n = match self.providers.get(i) {
            Some(slot) => match slot.provider.context_length(&slot.model).await {
                // A server may report anything: more than any model has is read as that.
                Ok(Some(n)) if n > 0 => n.min(MAX_CONTEXT_TOKENS),
                _ => configured,
            },
            None => configured,
        };
        if let Ok(mut m) = self.contexts.lock() {
            m.insert(i, n);
        }
        n
    }

    /// The store compiled into.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Compiles the source of a job the queue has started (the source is `compiling`);
    /// the caller ends the job. See [`crate::queue::JobRunner`].
    pub async fn compile_job(
        &self,
        source_id: SourceId,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<CompileReport, CompileError> {
        self.compile_started(source_id, events, cancel).await
    }

    /// Compiles one source now (outside the queue).
    pub async fn compile_one(
        &self,
        source_id: SourceId,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<CompileReport, CompileError> {
        self.store
            .set_status(source_id, SourceStatus::Compiling, None)?;
        let result = self.compile_started(source_id, events, cancel).await;
        if matches!(result, Err(CompileError::Cancelled)) {
            self.store
                .set_status(source_id, SourceStatus::Pending, None)?;
        }
        result
    }

    async fn compile_started(
        &self,
        source_id: SourceId,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<CompileReport, CompileError> {
        let started = Instant::now();
        let source = self
            .store
            .source(source_id)?
            .ok_or(CompileError::NoSource(source_id))?;
        let titles = self.store.known_titles()?;
        let concepts = self.store.known_concepts()?;
        let mut report = CompileReport::nothing_yet(source_id);
        let compile_t = self.prompts.get(COMPILE);
        let direct = build_prompt_with(
            compile_t,
            &PromptInput {
                source_title: source.title.as_deref(),
                source_text: &source.text,
                known_titles: &titles,
                known_concepts: &concepts,
            },
        );
        let context = self.context_tokens(0).await;
        let max_tokens = u64::from(self.settings.max_tokens);
        let direct_tokens = estimate_tokens(direct.system.len() + direct.user.len());
        let mut coverage_note: Option<String> = None;
        let prompt = if direct_tokens + max_tokens + CONTEXT_MARGIN <= context {
            report.prompt_version = compile_t.version.clone();
            direct
        } else {
            // Too large for one call: read it in parts, then write the article from the notes.
            let notes_t = self.prompts.get(COMPILE_NOTES);
            report.prompt_version =
                format!("{}+{}", self.prompts.get(EXTRACT).version, notes_t.version);
            let room = match self.room_for_parts(&source, context) {
                Ok(room) => room,
                Err(reason) => {
                    let record =
                        LastCall::default().record(&report.prompt_version, Vec::new(), false);
                    self.store.record_failure(source_id, &record, &reason)?;
                    Live::new(source_id, String::new(), 0, events)
                        .emit(Stage::Failed, Some(reason.clone()));
                    report.reason = Some(reason);
                    report.elapsed_ms = started.elapsed().as_millis() as u64;
                    return Ok(report);
                }
            };
            let reading = self
                .read_in_parts(&source, context, room, events, cancel)
                .await?;
            let (prompt, large, note) =
                self.notes_prompt(&source, &titles, &concepts, context, reading);
            if large.notes_left_out > 0 {
                report.warnings.push(format!(
                    "{} of {} notes did not fit in the final call (they were spread evenly over the source)",
                    large.notes_left_out, large.notes
                ));
            }
            for f in &large.failed_chunks {
                report.warnings.push(format!(
                    "part {} of {} (bytes {}–{}) could not be read: {}",
                    f.part, large.chunks, f.start, f.end, f.reason
                ));
            }
            for p in &large.cut_off_chunks {
                report.warnings.push(format!(
                    "part {p} of {}: the notes stopped at the output limit; what came after is missing",
                    large.chunks
                ));
            }
            if large.skipped_lines > 0 {
                report.warnings.push(format!(
                    "{} line(s) of the extraction answers were not valid notes and were skipped",
                    large.skipped_lines
                ));
            }
            report.calls += large.calls;
            report.tokens_in += large.tokens_in;
            report.tokens_out += large.tokens_out;
            report.large = Some(large);
            coverage_note = note;
            prompt
        };
        let prompt_tokens = estimate_tokens(prompt.system.len() + prompt.user.len());
        let mut state = CompileState::new(self.providers.len(), self.settings.retries);
        let mut step = state.start();
        let mut last = LastCall::default();
        // The source is indexed once for grounding, whatever the number of answers.
        let grounding = GroundingIndex::new(&source.text);
        let mut budget = max_tokens;
        loop {
            match step {
                Step::Call {
                    provider,
                    attempt,
                    feedback,
                } => {
                    let Some(slot) = self.providers.get(provider) else {
                        step = Step::Fail {
                            reason: "no provider is configured".into(),
                        };
                        continue;
                    };
                    let mut request = ChatRequest::new(&slot.model, &prompt.system, &prompt.user)
                        .with_schema(self.schema.as_value().clone())
                        .with_temperature(self.settings.temperature)
                        .with_cancel(cancel.clone());
                    if let Some(f) = &feedback {
                        // The previous answer goes back to the model only when it fits
                        // beside the prompt and a full answer; the problems always do.
                        let with_answer = prompt_tokens
                            + estimate_tokens(f.previous_answer.len())
                            + budget
                            + CONTEXT_MARGIN
                            <= context;
                        if with_answer {
                            request
                                .messages
                                .push(Message::new(Role::Assistant, f.previous_answer.clone()));
                        }
                        request.messages.push(Message::new(
                            Role::User,
                            feedback_message(&f.problems, f.truncated),
                        ));
                        report.warnings.push(format!(
                            "{} attempt {} rejected: {}",
                            slot.label(),
                            attempt - 1,
                            f.problems.first().cloned().unwrap_or_default()
                        ));
                    }
                    // What is sent includes a retry's previous answer and feedback: the
                    // context is sized for all of it, so Ollama drops nothing.
                    let sent_tokens =
                        estimate_tokens(request.messages.iter().map(|m| m.content.len()).sum())
                            .max(prompt_tokens);
                    // An answer cut off at the budget gets a larger budget next time.
                    let grown = match &feedback {
                        Some(f) if f.truncated => {
                            budget = (budget * 2).min(
                                context
                                    .saturating_sub(sent_tokens + CONTEXT_MARGIN)
                                    .max(budget),
                            );
                            budget
                        }
                        _ => budget,
                    };
                    request.max_tokens = Some(u32::try_from(grown).unwrap_or(u32::MAX));
                    request.num_ctx = Some(ollama_context(sent_tokens, grown, context));
                    let label = slot.label();
                    let live = Live::new(source_id, label.clone(), attempt, events);
                    live.emit(Stage::Prompting, None);
                    report.calls += 1;
                    let call_started = Instant::now();
                    let answer = slot.provider.chat(&request, &|e| live.on_stream(e)).await;
                    match answer {
                        Ok(resp) => {
                            live.emit(Stage::Parsing, None);
                            report.tokens_in += resp.prompt_tokens.unwrap_or(0);
                            report.tokens_out += resp.completion_tokens.unwrap_or(0);
                            let cut_off = resp.finish == FinishReason::Length;
                            let judgement = judge_in(&resp.text, cut_off, &grounding, &self.schema);
                            report.attempts.push(attempt_record(
                                &label,
                                attempt,
                                &resp,
                                &judgement,
                                &self.schema,
                            ));
                            last = LastCall {
                                provider: label.clone(),
                                model: resp.model.clone(),
                                attempt,
                                tokens_in: resp.prompt_tokens,
                                tokens_out: resp.completion_tokens,
                                latency_ms: resp.latency.as_millis() as u64,
                                raw: resp.text.clone(),
                                repairs: match &judgement {
                                    Judgement::Accept(a) => a
                                        .repairs
                                        .iter()
                                        .map(|r| r.kind.as_str().to_string())
                                        .collect(),
                                    Judgement::Reject { repairs, .. } => repairs
                                        .iter()
                                        .map(|r| r.kind.as_str().to_string())
                                        .collect(),
                                },
                                truncated: cut_off,
                            };
                            step = state.on_answer(judgement, &resp.text);
                        }
                        Err(e) if e.is_cancelled() => return Err(CompileError::Cancelled),
                        Err(e) => {
                            live.emit(Stage::Failed, Some(e.to_string()));
                            report.attempts.push(AttemptRecord {
                                provider: label.clone(),
                                attempt,
                                class: AnswerClass::ProviderError,
                                failure: Some("provider".into()),
                                problem: Some(e.to_string()),
                                repairs: Vec::new(),
                                truncated: false,
                                tokens_in: None,
                                tokens_out: None,
                                latency_ms: call_started.elapsed().as_millis() as u64,
                                sourced_claims: 0,
                                grounded_claims: 0,
                            });
                            step = state.on_provider_error(e.to_string());
                        }
                    }
                }
                Step::Save(mut accepted) => {
                    if let Some(note) = &coverage_note {
                        accepted.result.article_body.push_str(note);
                    }
                    let live = Live::new(source_id, last.provider.clone(), last.attempt, events);
                    live.emit(Stage::Saving, Some(accepted.result.title.clone()));
                    let mut links: Vec<NewLink> = wiki_links(&accepted.result.article_body)
                        .into_iter()
                        .map(|l| NewLink {
                            target: l.target,
                            context: l.context,
                        })
                        .collect();
                    for s in &accepted.result.backlink_suggestions {
                        links.push(NewLink {
                            target: s.clone(),
                            context: String::new(),
                        });
                    }
                    let mut warnings = report.warnings.clone();
                    warnings.extend(accepted.warnings.iter().cloned());
                    let record =
                        last.record(&report.prompt_version, warnings.clone(), accepted.truncated);
                    let saved = self.store.save_article(&SaveArticle {
                        source_id,
                        result: &accepted.result,
                        claims: &accepted.claims,
                        links: &links,
                        truncated: accepted.truncated,
                        record: &record,
                    })?;
                    if saved.collision {
                        warnings.push(format!(
                            "the title \"{}\" was taken by another source's article; stored as \"{}\"",
                            saved.requested_title, saved.title
                        ));
                        report.collision_with = Some(saved.requested_title.clone());
                    }
                    live.emit(Stage::Compiled, Some(saved.title.clone()));
                    report.ok = true;
                    report.article_id = Some(saved.article_id);
                    report.title = Some(saved.title);
                    report.provider = Some(last.provider.clone());
                    report.truncated = accepted.truncated;
                    report.repairs = accepted
                        .repairs
                        .iter()
                        .map(|r| r.kind.as_str().to_string())
                        .collect();
                    report.warnings = warnings;
                    break;
                }
                Step::Fail { reason } => {
                    let record = last.record(
                        &report.prompt_version,
                        report.warnings.clone(),
                        last.truncated,
                    );
                    self.store.record_failure(source_id, &record, &reason)?;
                    Live::new(source_id, last.provider.clone(), last.attempt, events)
                        .emit(Stage::Failed, Some(reason.clone()));
                    report.reason = Some(reason);
                    break;
                }
            }
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }
}

impl Compiler {
    /// The tokens of source one extraction call can hold next to its prompt and answer, or
    /// why the model's context is too small to read the source in parts at all.
    fn room_for_parts(&self, source: &Source, context: u64) -> Result<u64, String> {
        let template = self.prompts.get(EXTRACT);
        let title = source.title.as_deref().unwrap_or("(untitled)");
        let overhead =
            estimate_tokens(template.system.len() + template.user.len() + title.len() + 128);
        let answer = u64::from(self.settings.max_tokens);
        let room = context.saturating_sub(answer + overhead + CONTEXT_MARGIN);
        if room < 256 {
            return Err(format!(
                "the model's context of {context} tokens leaves no room for the source next to an answer budget of {answer} tokens: lower max_tokens or use a model with a larger context"
            ));
        }
        Ok(room)
    }

    /// Reads a source too large for one call in parts of `room` tokens: one JSONL
    /// extraction call per chunk, concurrently within the configured limit, each retried
    /// and then reported if it still fails.
    async fn read_in_parts(
        &self,
        source: &Source,
        context: u64,
        room: u64,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<Reading, CompileError> {
        let chunks = chunk::split(&source.text, chars_for(room), CHUNK_OVERLAP);
        let count = chunks.len();
        let claims_so_far = std::sync::atomic::AtomicUsize::new(0);
        let limit = tokio::sync::Semaphore::new(self.settings.concurrency.max(1));
        let mut calls = Vec::with_capacity(chunks.len());
        for c in &chunks {
            let (limit, claims_so_far) = (&limit, &claims_so_far);
            calls.push(async move {
                let _permit = limit
                    .acquire()
                    .await
                    .map_err(|e| CompileError::Worker(e.to_string()))?;
                self.extract_part(source, c, count, claims_so_far, events, cancel)
                    .await
            });
        }
        let parts = futures_util::future::join_all(calls).await;
        let mut parts: Vec<PartResult> = parts.into_iter().collect::<Result<_, _>>()?;
        parts.sort_by_key(|p| p.index);
        Ok(Reading {
            context,
            chunks,
            parts,
        })
    }

    async fn extract_part(
        &self,
        source: &Source,
        chunk: &Chunk,
        count: usize,
        claims_so_far: &std::sync::atomic::AtomicUsize,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<PartResult, CompileError> {
        use std::sync::atomic::Ordering;
        let template = self.prompts.get(EXTRACT);
        let part = (chunk.index + 1).to_string();
        let total = count.to_string();
        let prompt = template.render(&[
            ("chunk", chunk.text(&source.text)),
            ("chunk_number", &part),
            ("chunk_count", &total),
            (
                "source_title",
                source.title.as_deref().unwrap_or("(untitled)"),
            ),
            ("section", chunk.section.as_deref().unwrap_or("(start)")),
        ]);
        let schema = template.schema();
        let mut result = PartResult {
            index: chunk.index,
            notes: Vec::new(),
            calls: 0,
            tokens_in: 0,
            tokens_out: 0,
            failure: None,
            cut_off: false,
            skipped_lines: 0,
        };
        let mut last_reason = String::from("no provider is configured");
        for slot in &self.providers {
            for _ in 0..CHUNK_ATTEMPTS {
                let request = ChatRequest::new(&slot.model, &prompt.system, &prompt.user)
                    .with_line_schema(schema.as_value().clone())
                    .with_max_tokens(self.settings.max_tokens)
                    .with_temperature(self.settings.temperature)
                    .with_cancel(cancel.clone());
                let stream = Mutex::new((JsonlStream::new(schema.clone(), Mode::Lenient), 0usize));
                let label = slot.label();
                let on_event = |e: StreamEvent| {
                    let claims = {
                        let Ok(mut guard) = stream.lock() else { return };
                        let (jsonl, claims) = &mut *guard;
                        match e {
                            StreamEvent::Delta(text) => {
                                for ev in jsonl.push(&text) {
                                    if matches!(&ev, JsonlEvent::Object(v) if v["type"] == "claim")
                                    {
                                        *claims += 1;
                                    }
                                }
                            }
                            StreamEvent::Restart => {
                                *jsonl = JsonlStream::new(schema.clone(), Mode::Lenient);
                                *claims = 0;
                            }
                        }
                        *claims
                    };
                    events(Progress {
                        source_id: source.id,
                        stage: Stage::Reading,
                        provider: label.clone(),
                        attempt: 1,
                        chars: 0,
                        chunks: 0,
                        title: None,
                        message: Some(format!(
                            "part {part} of {total}: {} claims so far",
                            claims_so_far.load(Ordering::Relaxed) + claims
                        )),
                    });
                };
                result.calls += 1;
                match slot.provider.chat(&request, &on_event).await {
                    Ok(resp) => {
                        result.tokens_in += resp.prompt_tokens.unwrap_or(0);
                        result.tokens_out += resp.completion_tokens.unwrap_or(0);
                        let outcome = {
                            let Ok(mut guard) = stream.lock() else {
                                continue;
                            };
                            // Parse the whole answer again: the stream saw the same text,
                            // but a restart may have reset it midway, and an answer sent
                            // as one JSON array of notes is read as its elements.
                            guard.0 = JsonlStream::new(schema.clone(), Mode::Lenient);
                            crate::structured::parse_jsonl(&resp.text, &schema, Mode::Lenient)
                        };
                        if outcome.values.is_empty() {
                            last_reason = match outcome.warnings.first() {
                                Some(w) => format!("no line of the answer was a valid note ({w})"),
                                None => "the answer held no notes".to_string(),
                            };
                            continue;
                        }
                        result.cut_off = resp.finish == FinishReason::Length;
                        result.skipped_lines = outcome.warnings.len();
                        result.notes = outcome
                            .values
                            .iter()
                            .filter_map(|v| Note::from_value(v, chunk, &source.text))
                            .collect();
                        let claims = result.notes.iter().filter(|n| n.is_claim()).count();
                        claims_so_far.fetch_add(claims, Ordering::Relaxed);
                        return Ok(result);
                    }
                    Err(e) if e.is_cancelled() => return Err(CompileError::Cancelled),
                    Err(e) => {
                        let transport = e.is_transport();
                        last_reason = e.to_string();
                        if transport {
                            // The provider already retried what a retry can fix.
                            break;
                        }
                    }
                }
            }
        }
        result.failure = Some(last_reason);
        Ok(result)
    }

    /// The final compile prompt over the merged notes, within the context; the report of
    /// the reading; and the note to append to the article when parts could not be read.
    fn notes_prompt(
        &self,
        source: &Source,
        titles: &[String],
        concepts: &[String],
        context: u64,
        reading: Reading,
    ) -> (Prompt, LargeSourceReport, Option<String>) {
        let template = self.prompts.get(COMPILE_NOTES);
        let count = reading.chunks.len();
        let mut large = LargeSourceReport {
            context_tokens: reading.context,
            chunks: count,
            ..LargeSourceReport::default()
        };
        let mut per_chunk = Vec::with_capacity(count);
        for part in reading.parts {
            large.calls += part.calls;
            large.tokens_in += part.tokens_in;
            large.tokens_out += part.tokens_out;
            if part.cut_off {
                large.cut_off_chunks.push(part.index + 1);
            }
            if part.skipped_lines > 0 {
                large.skipped_lines += part.skipped_lines;
            }
            if let Some(reason) = part.failure {
                let c = &reading.chunks[part.index];
                large.failed_chunks.push(FailedChunk {
                    part: part.index + 1,
                    start: c.start,
                    end: c.end,
                    reason,
                });
            }
            per_chunk.push(part.notes);
        }
        let merged = notes::merge(per_chunk);
        large.notes = merged.len();
        large.claims = merged.iter().filter(|n| n.is_claim()).count();
        let outline = chunk::outline(&source.text);
        let outline = if outline.is_empty() {
            "(no headings)".to_string()
        } else {
            outline.into_iter().take(200).collect::<Vec<_>>().join("\n")
        };
        let coverage = if large.failed_chunks.is_empty() {
            format!("All {count} parts of the document were read.")
        } else {
            let parts: Vec<String> = large
                .failed_chunks
                .iter()
                .map(|f| f.part.to_string())
                .collect();
            format!(
                "Parts {} of {count} could not be read; do not invent their content.",
                parts.join(", ")
            )
        };
        let titles = list_lines(titles);
        let concepts = known_concepts(concepts);
        let fixed = template.system.len()
            + template.user.len()
            + outline.len()
            + titles.len()
            + concepts.len()
            + coverage.len();
        let room = context.saturating_sub(
            u64::from(self.settings.max_tokens) + estimate_tokens(fixed) + CONTEXT_MARGIN,
        );
        let (notes_text, left_out) = notes::render(&merged, chars_for(room));
        large.notes_left_out = left_out;
        let prompt = template.render(&[
            ("notes", &notes_text),
            ("outline", &outline),
            (
                "source_title",
                source.title.as_deref().unwrap_or("(untitled)"),
            ),
            ("known_titles", &titles),
            ("known_concepts", &concepts),
            ("coverage", &coverage),
        ]);
        let failed_note = (!large.failed_chunks.is_empty()).then(|| {
            let mut n = String::from("\n\n> **Incomplete:** WikiMind could not read ");
            let parts: Vec<String> = large
                .failed_chunks
                .iter()
                .map(|f| {
                    format!(
                        "part {} of {count} (bytes {}–{} of the source)",
                        f.part, f.start, f.end
                    )
                })
                .collect();
            n.push_str(&parts.join(", "));
            n.push_str("; what it says is missing from this article.");
            n
        });
        let cut_note = (!large.cut_off_chunks.is_empty()).then(|| {
            let parts: Vec<String> = large
                .cut_off_chunks
                .iter()
                .map(|&p| {
                    let c = &reading.chunks[p - 1];
                    format!("part {p} of {count} (bytes {}–{})", c.start, c.end)
                })
                .collect();
            format!(
                "\n\n> **Partly read:** the model's notes on {} stopped at its output limit; the end of those parts may be missing from this article.",
                parts.join(", ")
            )
        });
        let note = match (failed_note, cut_note) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or_default() + &b.unwrap_or_default()),
        };
        (prompt, large, note)
    }
}

/// What reading a large source in parts produced.
struct Reading {
    context: u64,
    chunks: Vec<Chunk>,
    parts: Vec<PartResult>,
}

/// One part's extraction.
struct PartResult {
    index: usize,
    notes: Vec<Note>,
    calls: u32,
    tokens_in: u64,
    tokens_out: u64,
    failure: Option<String>,
    /// The kept answer reached the output limit (its complete lines are kept).
    cut_off: bool,
    /// Lines of the kept answer that were not valid notes.
    skipped_lines: usize,
}

/// Ollama's `num_ctx` for a call: the prompt and the answer budget with a margin, rounded
/// up to 1024, never beyond the model's context.
fn ollama_context(prompt_tokens: u64, budget: u64, context: u64) -> u32 {
    let want = (prompt_tokens + budget + CONTEXT_MARGIN).div_ceil(1024) * 1024;
    u32::try_from(want.clamp(2048, context.max(2048))).unwrap_or(u32::MAX)
}

/// The record of one answered call.
fn attempt_record(
    label: &str,
    attempt: u32,
    resp: &llm::ChatResponse,
    judgement: &Judgement,
    schema: &Schema,
) -> AttemptRecord {
    let (class, failure) = classify(&resp.text, schema, judgement);
    let (sourced_claims, grounded_claims) = grounding_tally(judgement);
    let (repairs, truncated, problem) = match judgement {
        Judgement::Accept(a) => (&a.repairs, a.truncated, None),
        Judgement::Reject {
            repairs,
            truncated,
            problems,
            ..
        } => (repairs, *truncated, problems.first().cloned()),
    };
    AttemptRecord {
        provider: label.to_string(),
        attempt,
        class,
        failure: failure.map(str::to_string),
        problem,
        repairs: repairs
            .iter()
            .map(|r| r.kind.as_str().to_string())
            .collect(),
        truncated,
        tokens_in: resp.prompt_tokens,
        tokens_out: resp.completion_tokens,
        latency_ms: resp.latency.as_millis() as u64,
        sourced_claims,
        grounded_claims,
    }
}

/// What the last model call returned, for the compile log.
#[derive(Debug, Default)]
struct LastCall {
    provider: String,
    model: String,
    attempt: u32,
    tokens_in: Option<u64>,
    tokens_out: Option<u64>,
    latency_ms: u64,
    raw: String,
    repairs: Vec<String>,
    truncated: bool,
}

impl LastCall {
    fn record(
        &self,
        prompt_version: &str,
        warnings: Vec<String>,
        truncated: bool,
    ) -> CompileRecord {
        let (provider, model) = match self.provider.split_once(':') {
            Some((p, m)) if self.model.is_empty() => (p.to_string(), m.to_string()),
            Some((p, _)) => (p.to_string(), self.model.clone()),
            None => (self.provider.clone(), self.model.clone()),
        };
        CompileRecord {
            provider,
            model,
            prompt_version: prompt_version.to_string(),
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            latency_ms: self.latency_ms,
            attempt: self.attempt,
            repairs: self.repairs.clone(),
            warnings,
            truncated,
            raw_answer: self.raw.clone(),
        }
    }
}

/// Progress of one call, fed by the provider's stream.
struct Live<'a> {
    source_id: SourceId,
    provider: String,
    attempt: u32,
    events: &'a ProgressFn,
    stream: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    json: JsonStream,
    chars: usize,
    chunks: usize,
    title: Option<String>,
}

impl<'a> Live<'a> {
    fn new(
        source_id: SourceId,
        provider: String,
        attempt: u32,
        events: &'a ProgressFn,
    ) -> Live<'a> {
        Live {
            source_id,
            provider,
            attempt,
            events,
            stream: Mutex::new(LiveState::default()),
        }
    }

    fn emit(&self, stage: Stage, message: Option<String>) {
        let (chars, chunks, title) = match self.stream.lock() {
            Ok(s) => (s.chars, s.chunks, s.title.clone()),
            Err(_) => (0, 0, None),
        };
        let title = match stage {
            Stage::Saving | Stage::Compiled => message.clone().or(title),
            _ => title,
        };
        (self.events)(Progress {
            source_id: self.source_id,
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
        });
    }

    fn on_stream(&self, event: StreamEvent) {
        let snapshot = {
            let Ok(mut s) = self.stream.lock() else {
                return;
            };
            match event {
                StreamEvent::Delta(text) => {
                    s.chars += text.chars().count();
                    s.chunks += 1;
                    if s.json.push(&text) && s.title.is_none() {
                        if let Some(t) = s.json.complete_field("title").and_then(|v| v.as_str()) {
                            s.title = Some(t.to_string());
                        }
                    }
                }
                StreamEvent::Restart => *s = LiveState::default(),
            }
            (s.chars, s.chunks, s.title.clone())
        };
        (self.events)(Progress {
            source_id: self.source_id,
            stage: Stage::Receiving,
            provider: self.provider.clone(),
            attempt: self.attempt,
            chars: snapshot.0,
            chunks: snapshot.1,
            title: snapshot.2,
            message: None,
        });
    }
}
