//! The driver: performs what the compile step decides — calls providers, streams progress,
//! stores the article or the failure — and runs the persistent job queue concurrently.

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
use super::prompt::{build_prompt, feedback_message, PromptInput, PROMPT_VERSION};
use super::step::{judge, CompileState, Judgement, Step};

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

/// Builds the configured providers (the primary first, then the fallbacks).
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
}

/// Compiles sources with the configured providers into the store.
pub struct Compiler {
    store: Arc<Store>,
    providers: Vec<ProviderSlot>,
    settings: CompileSettings,
    schema: Schema,
}

impl Compiler {
    /// A compiler over `store` with `providers` (primary first; at least one).
    pub fn new(
        store: Arc<Store>,
        providers: Vec<ProviderSlot>,
        settings: CompileSettings,
    ) -> Compiler {
        let schema =
            Schema::new(crate::contract::compilation_schema()).unwrap_or_else(|_| Schema::any());
        Compiler {
            store,
            providers,
            settings,
            schema,
        }
    }

    /// The store compiled into.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Queues `sources` and runs the queue (including work an interrupted run left queued)
    /// with the configured concurrency until it is empty. Returns one report per job run.
    pub async fn compile_queued(
        self: &Arc<Self>,
        sources: &[SourceId],
        events: Arc<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<Vec<CompileReport>, CompileError> {
        for id in sources {
            self.store.enqueue(*id)?;
        }
        let workers = self.settings.concurrency.max(1);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..workers {
            let me = Arc::clone(self);
            let events = Arc::clone(&events);
            let cancel = cancel.clone();
            set.spawn(async move {
                let mut reports = Vec::new();
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let Some(job) = me.store.start_next()? else {
                        break;
                    };
                    match me.compile_started(job.source_id, &*events, &cancel).await {
                        Ok(report) => {
                            me.store
                                .finish_job(job.id, report.ok, report.reason.as_deref())?;
                            reports.push(report);
                        }
                        Err(CompileError::Cancelled) => {
                            // Back in line for the next run.
                            me.store.finish_job(job.id, false, Some("cancelled"))?;
                            me.store
                                .set_status(job.source_id, SourceStatus::Pending, None)?;
                            me.store.enqueue(job.source_id)?;
                            break;
                        }
                        Err(e) => {
                            me.store.finish_job(job.id, false, Some(&e.to_string()))?;
                            return Err(e);
                        }
                    }
                }
                Ok::<_, CompileError>(reports)
            });
        }
        let mut all = Vec::new();
        let mut first_error = None;
        while let Some(joined) = set.join_next().await {
            match joined {
                Ok(Ok(mut reports)) => all.append(&mut reports),
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(join) => {
                    first_error.get_or_insert(CompileError::Worker(join.to_string()));
                }
            }
        }
        if cancel.is_cancelled() && all.is_empty() {
            return Err(CompileError::Cancelled);
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(all),
        }
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
        let prompt = build_prompt(&PromptInput {
            source_title: source.title.as_deref(),
            source_text: &source.text,
            known_titles: &titles,
            known_concepts: &concepts,
        });
        let mut state = CompileState::new(self.providers.len(), self.settings.retries);
        let mut step = state.start();
        let mut report = CompileReport {
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
            attempts: Vec::new(),
        };
        let mut last = LastCall::default();
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
                        .with_max_tokens(self.settings.max_tokens)
                        .with_temperature(self.settings.temperature)
                        .with_cancel(cancel.clone());
                    if let Some(f) = &feedback {
                        request
                            .messages
                            .push(Message::new(Role::Assistant, f.previous_answer.clone()));
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
                            let judgement = judge(&resp.text, cut_off, &source.text, &self.schema);
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
                Step::Save(accepted) => {
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
                    let record = last.record(warnings.clone(), accepted.truncated);
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
                    let record = last.record(report.warnings.clone(), last.truncated);
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
    fn record(&self, warnings: Vec<String>, truncated: bool) -> CompileRecord {
        let (provider, model) = match self.provider.split_once(':') {
            Some((p, m)) if self.model.is_empty() => (p.to_string(), m.to_string()),
            Some((p, _)) => (p.to_string(), self.model.clone()),
            None => (self.provider.clone(), self.model.clone()),
        };
        CompileRecord {
            provider,
            model,
            prompt_version: PROMPT_VERSION.to_string(),
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
