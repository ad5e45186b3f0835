//! The driver: performs what the compile step decides — calls providers, streams progress,
//! stores the article or the failure. The app's job queue calls it.
//!
//! Every decision is made by pure code: `compile::plan` (fit and budget), [`crate::call::step`]
//! (judge, retry with feedback, next provider), `compile::extract` (reading a large source
//! in parts). This module and `compile::parts` only do the IO those decide.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::call::settings::CompileSettings;
use crate::ground::readable_source;
use crate::llm::{AnswerGrounds, CancellationToken, ChatRequest, FinishReason, Provider};
use crate::store::{JobTarget, SaveArticle, Source, SourceId, SourceStatus, Store, StoreError};
use crate::structured::Schema;
use crate::topic::NameCache;

use crate::call::attempt::AttemptRecord;
use crate::call::budget::{context_from_report, CallBudget, CallPlan, Limits, Route};
use crate::call::live::Live;
use crate::call::step::{judge_in, Accepted, CompileState, Judged, Judgement, Rejection, Step};
use crate::call::usage::Usage;
use crate::ground::grounds;
use crate::ground::index::GroundingIndex;
use crate::prompts::prompt::{build_prompt_with, Prompt, PromptInput, MAX_KNOWN};
use crate::prompts::templates::{PromptSet, COMPILE, COMPILE_NOTES, EXTRACT};
use crate::tasks::digest::report::LastCall;
use crate::tasks::parts::extract::{notes_prompt, Material};
use crate::tasks::parts::read::PartSource;

pub use crate::call::budget::estimate_tokens;
pub use crate::call::live::{Progress, ProgressFn, Stage};
pub use crate::tasks::digest::report::{CompileReport, FailedChunk, LargeSourceReport};

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

/// Compiles sources with the configured providers into the store.
pub struct Compiler {
    store: Arc<Store>,
    pub(crate) providers: Vec<ProviderSlot>,
    pub(crate) settings: CompileSettings,
    schema: Schema,
    pub(crate) prompts: PromptSet,
    contexts: Mutex<std::collections::HashMap<usize, u64>>,
    /// The wiki's name indexes, shared by every compiler of the wiki.
    pub(crate) names: Arc<NameCache>,
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
            names: Arc::default(),
        }
    }

    /// Keeps the name indexes of prompts in `names`, shared with the other compilers of
    /// the same wiki (a compiler made with [`Compiler::new`] has a cache of its own).
    pub fn with_name_cache(mut self, names: Arc<NameCache>) -> Compiler {
        self.names = names;
        self
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
    pub(crate) async fn context_tokens(&self, i: usize) -> u64 {
        if let Some(n) = self.contexts.lock().ok().and_then(|m| m.get(&i).copied()) {
            return n;
        }
        let configured = u64::from(self.settings.context_tokens);
        let reported = match self.providers.get(i) {
            Some(slot) => slot
                .provider
                .context_length(&slot.model)
                .await
                .ok()
                .flatten(),
            None => None,
        };
        // A server may report anything: more than any model has is read as that.
        let n = context_from_report(reported, configured);
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
    /// the caller ends the job (the app's job runner).
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
        // The title a note gives itself (front matter `title`, first H1), read before the
        // front matter leaves the text: a note is compiled under it.
        // A note written in the wiki is compiled under the title its person gave it.
        let note_title = if source.kind == crate::store::SourceKind::Note {
            source.title.clone()
        } else {
            wikimind_text::markdown::read_note(&source.text, None).title
        };
        // The model reads, quotes and is grounded against the readable text.
        let source = readable_source(source);
        let mut report = CompileReport::nothing_yet(source_id);
        let limits = Limits {
            context: self.context_tokens(0).await,
            max_tokens: u64::from(self.settings.max_tokens),
        };
        let run = Run {
            source: &source,
            note_title: note_title.as_deref(),
            events,
            cancel,
        };
        if let Some(article) = self.prepare(&run, limits, &mut report).await? {
            self.write(&run, limits, article, &mut report).await?;
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// The prompt that writes the article: the whole source when it fits in one call,
    /// else the notes of reading it in parts. `None` when the source failed already (its
    /// failure is stored and reported).
    async fn prepare(
        &self,
        run: &Run<'_>,
        limits: Limits,
        report: &mut CompileReport,
    ) -> Result<Option<ArticlePrompt>, CompileError> {
        let source = run.source;
        // The titles and concepts this source names, then the most used: not the first
        // ones alphabetically.
        let (title_index, concept_index) = self.names.known(self.store())?;
        let titles = title_index.relevant(&source.text, MAX_KNOWN);
        let concepts = concept_index.relevant(&source.text, MAX_KNOWN);
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
        let (extract_t, notes_t) = (self.prompts.get(EXTRACT), self.prompts.get(COMPILE_NOTES));
        let title = source.title.as_deref().unwrap_or("(untitled)");
        let room = match limits.route(&direct, extract_t, title) {
            Route::Direct => {
                report.prompt_version = compile_t.version.clone();
                return Ok(Some(ArticlePrompt {
                    prompt: direct,
                    note: None,
                    grounds: grounds::source_grounds(source, &titles, &concepts),
                }));
            }
            Route::InParts { room } => Ok(room),
            Route::TooSmall(reason) => Err(reason),
        };
        report.prompt_version = format!("{}+{}", extract_t.version, notes_t.version);
        let room = match room {
            Ok(room) => room,
            Err(reason) => {
                self.fail(run, &LastCall::default(), reason, report)?;
                return Ok(None);
            }
        };
        let reading = self
            .read_in_parts(
                &PartSource {
                    target: JobTarget::Source(source.id),
                    title: source.title.as_deref(),
                    text: &source.text,
                    quotable: None,
                },
                limits.context,
                room,
                run.events,
                run.cancel,
            )
            .await?;
        let material = Material {
            title: source.title.as_deref(),
            text: &source.text,
            titles: &titles,
            concepts: &concepts,
        };
        let out = notes_prompt(notes_t, &material, limits, reading);
        report.add_reading(out.large);
        Ok(Some(ArticlePrompt {
            prompt: out.prompt,
            note: out.note,
            grounds: grounds::notes_grounds(source, &out.quotes, &titles, &concepts),
        }))
    }

    /// Asks the providers for the article as [`CompileState`] decides, within the budget
    /// [`CallBudget`] plans, and stores the article or the failure.
    async fn write(
        &self,
        run: &Run<'_>,
        limits: Limits,
        article: ArticlePrompt,
        report: &mut CompileReport,
    ) -> Result<(), CompileError> {
        // The source is indexed once for grounding, whatever the number of answers.
        let grounding = GroundingIndex::new(&run.source.text);
        let judge = |text: &str, cut_off: bool| judge_in(text, cut_off, &grounding, &self.schema);
        let asking = Asking {
            target: Some(JobTarget::Source(run.source.id)),
            events: run.events,
            cancel: run.cancel,
            prompt: &article.prompt,
            schema: &self.schema,
            judge: &judge,
            shows: None,
            grounds: Some(&article.grounds),
        };
        let mut log = CallLog::default();
        let mut last = LastCall::default();
        let answer = self
            .ask_until_done(&asking, limits, &mut log, &mut last)
            .await;
        report.usage += log.usage;
        report.attempts.append(&mut log.attempts);
        report.warnings.append(&mut log.warnings);
        match answer? {
            Answer::Accepted(accepted) => self.save(run, *accepted, article.note, &last, report),
            Answer::GaveUp { reason, .. } => self.fail(run, &last, reason, report),
        }
    }

    /// Asks the providers for one answer as [`CompileState`] decides (retries with
    /// feedback, then the next provider), within the budget [`CallBudget`] plans, until an
    /// answer is accepted or every provider is given up. Every call is logged in `log`;
    /// `last` is the last call that answered.
    pub(crate) async fn ask_until_done<A: Judged>(
        &self,
        asking: &Asking<'_, A>,
        limits: Limits,
        log: &mut CallLog,
        last: &mut LastCall,
    ) -> Result<Answer<A>, CompileError> {
        let mut state = CompileState::new(self.providers.len(), self.settings.retries);
        let mut budget = CallBudget::new(limits, asking.prompt);
        let mut rejection = None;
        let mut step = state.start();
        loop {
            step = match step {
                Step::Call {
                    provider,
                    attempt,
                    feedback,
                } => match self.providers.get(provider) {
                    None => Step::Fail {
                        reason: "no provider is configured".into(),
                    },
                    Some(slot) => {
                        let plan = budget.plan(&slot.label(), attempt, feedback.as_ref());
                        log.warnings.extend(plan.warning.iter().cloned());
                        let call = Call {
                            slot,
                            schema: asking.schema,
                            attempt,
                            prompt: asking.prompt,
                            plan,
                        };
                        let asked = self.ask(asking, call).await?;
                        log.usage += asked.usage;
                        log.attempts.push(asked.record);
                        match asked.called {
                            Called::Answered(judgement, raw, answered) => {
                                *last = answered;
                                rejection = match &judgement {
                                    Judgement::Reject { why, .. } => Some(*why),
                                    Judgement::Accept(_) => None,
                                };
                                state.on_answer(judgement, &raw)
                            }
                            Called::Failed(error) => {
                                rejection = None;
                                state.on_provider_error(error)
                            }
                        }
                    }
                },
                Step::Save(accepted) => return Ok(Answer::Accepted(accepted)),
                Step::Fail { reason } => return Ok(Answer::GaveUp { reason, rejection }),
            }
        }
    }

    /// Sends one call as `call.plan` says, streams the answer as progress about the
    /// asking's target, and judges it.
    async fn ask<A: Judged>(
        &self,
        asking: &Asking<'_, A>,
        call: Call<'_>,
    ) -> Result<Asked<A>, CompileError> {
        let Call {
            slot,
            schema,
            attempt,
            prompt,
            plan,
        } = call;
        let mut request = ChatRequest::new(&slot.model, &prompt.system, &prompt.user)
            .with_schema(schema.as_value().clone())
            .with_temperature(self.settings.temperature)
            .with_cancel(asking.cancel.clone());
        request.messages.extend(plan.extra_messages());
        request.grounds = asking.grounds.cloned();
        request.max_tokens = Some(plan.max_tokens);
        request.num_ctx = Some(plan.num_ctx);
        let label = slot.label();
        let live =
            Live::new(asking.target, label.clone(), attempt, asking.events).showing(asking.shows);
        live.emit(Stage::Prompting, None);
        let call_started = Instant::now();
        match slot.provider.chat(&request, &|e| live.on_stream(e)).await {
            Ok(resp) => {
                live.emit(Stage::Parsing, None);
                let cut_off = resp.finish == FinishReason::Length;
                let judgement = (asking.judge)(&resp.text, cut_off);
                let record = AttemptRecord::answered(&label, attempt, &resp, &judgement, schema);
                let last = LastCall::answered(&label, attempt, &resp, &judgement, cut_off);
                Ok(Asked {
                    usage: Usage::call(resp.prompt_tokens, resp.completion_tokens),
                    record,
                    called: Called::Answered(judgement, resp.text, last),
                })
            }
            Err(e) if e.is_cancelled() => Err(CompileError::Cancelled),
            Err(e) => {
                live.emit(Stage::Failed, Some(e.to_string()));
                let latency = call_started.elapsed();
                Ok(Asked {
                    usage: Usage::call(None, None),
                    record: AttemptRecord::provider_error(&label, attempt, e.to_string(), latency),
                    called: Called::Failed(e.to_string()),
                })
            }
        }
    }

    /// Stores the accepted article (with `note` appended, when parts of a large source
    /// are missing) and its compile record.
    fn save(
        &self,
        run: &Run<'_>,
        mut accepted: Accepted,
        note: Option<String>,
        last: &LastCall,
        report: &mut CompileReport,
    ) -> Result<(), CompileError> {
        let file_stem = (run.source.kind == crate::store::SourceKind::File)
            .then(|| std::path::Path::new(&run.source.origin).file_stem())
            .flatten()
            .map(|s| s.to_string_lossy().into_owned());
        let names = crate::tasks::names::apply_name_rules(
            &mut accepted.result,
            &crate::tasks::names::SourceNames {
                text: &run.source.text,
                own_title: run.source.title.as_deref(),
                note_title: run.note_title,
                file_stem: file_stem.as_deref(),
            },
        );
        report.title_note = names.title_note;
        report.rejected_names = names.rejected;
        if let Some(note) = &note {
            accepted.result.article_body.push_str(note);
        }
        let live = Live::new(
            Some(JobTarget::Source(run.source.id)),
            last.provider.clone(),
            last.attempt,
            run.events,
        );
        live.emit(Stage::Saving, Some(accepted.result.title.clone()));
        let warnings = report.warnings_with(&accepted);
        let record = last.record(&report.prompt_version, warnings.clone(), accepted.truncated);
        let saved = self.store.save_article(&SaveArticle {
            source_id: run.source.id,
            result: &accepted.result,
            claims: &accepted.claims,
            links: &accepted.links(),
            truncated: accepted.truncated,
            title_is_page: names.title_is_page,
            unnamed_concepts: &names.chips,
            record: &record,
        })?;
        live.emit(Stage::Compiled, Some(saved.title.clone()));
        report.saved(&accepted, saved, &last.provider, warnings);
        Ok(())
    }

    /// Marks the source failed for `reason`, with `last` call in its compile record.
    fn fail(
        &self,
        run: &Run<'_>,
        last: &LastCall,
        reason: String,
        report: &mut CompileReport,
    ) -> Result<(), CompileError> {
        let record = last.record(
            &report.prompt_version,
            report.warnings.clone(),
            last.truncated,
        );
        self.store.record_failure(run.source.id, &record, &reason)?;
        Live::new(
            Some(JobTarget::Source(run.source.id)),
            last.provider.clone(),
            last.attempt,
            run.events,
        )
        .emit(Stage::Failed, Some(reason.clone()));
        report.reason = Some(reason);
        Ok(())
    }
}

/// The source being compiled and where its progress and cancellation go.
struct Run<'a> {
    source: &'a Source,
    /// The title the note gives itself (front matter `title` or first H1), if any.
    note_title: Option<&'a str>,
    events: &'a ProgressFn,
    cancel: &'a CancellationToken,
}

/// The prompt that writes the article, and what to append to the article.
struct ArticlePrompt {
    prompt: Prompt,
    /// Markdown appended to the body when parts of a large source are missing.
    note: Option<String>,
    /// What its answer's quotes and names are drawn from.
    grounds: AnswerGrounds,
}

/// One call, as planned.
pub(crate) struct Call<'a> {
    pub slot: &'a ProviderSlot,
    /// The answer's schema.
    pub schema: &'a Schema,
    pub attempt: u32,
    pub prompt: &'a Prompt,
    pub plan: CallPlan,
}

/// What asking the providers for one answer needs: what it is about (for progress), the
/// prompt, the answer's schema and how an answer is judged.
pub(crate) struct Asking<'a, A = Accepted> {
    /// What the call is about; `None` for an answer to a question.
    pub target: Option<JobTarget>,
    pub events: &'a ProgressFn,
    pub cancel: &'a CancellationToken,
    pub prompt: &'a Prompt,
    pub schema: &'a Schema,
    pub judge: &'a (dyn Fn(&str, bool) -> Judgement<A> + Sync),
    /// The answer's string field to report as it streams (see [`Live::showing`]).
    pub shows: Option<&'static str>,
    /// What the answer's quotes and names are drawn from (see [`crate::ground::grounds`]).
    pub grounds: Option<&'a AnswerGrounds>,
}

/// The calls made while asking, for the report.
#[derive(Debug, Default)]
pub(crate) struct CallLog {
    pub usage: Usage,
    pub attempts: Vec<AttemptRecord>,
    pub warnings: Vec<String>,
}

/// How asking ended.
pub(crate) enum Answer<A = Accepted> {
    /// An answer was accepted.
    Accepted(Box<A>),
    /// Every provider was given up, for `reason`; `rejection` is why the last answer was
    /// refused, when the last call answered.
    GaveUp {
        reason: String,
        rejection: Option<Rejection>,
    },
}

/// One call made: what it came to, its record and the tokens the server reported.
pub(crate) struct Asked<A> {
    pub called: Called<A>,
    pub record: AttemptRecord,
    /// The call, with the tokens its server reported (none when it failed).
    pub usage: Usage,
}

/// What one call came to.
pub(crate) enum Called<A> {
    /// The provider answered: the judgement, the raw answer, the call for the log.
    Answered(Judgement<A>, String, LastCall),
    /// The provider failed, for this reason.
    Failed(String),
}
