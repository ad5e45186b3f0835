//! Compile, as the app uses it: the engine's call loop ([`wikimind_engine::call`]), tasks
//! ([`wikimind_engine::tasks`]), prompts ([`wikimind_engine::prompts`]) and grounding
//! ([`wikimind_engine::ground`]) under one name; the providers the app's settings name; and
//! the [`Compiler`], which runs the engine's tasks against the store: it reads what a task
//! is given (a source, a page's material, the wiki's names) and saves what it hands back.

use std::sync::Arc;
use std::time::Instant;

use wikimind_engine::tasks::answer::check::GroundsFn;
use wikimind_engine::tasks::answer::material::Block;
use wikimind_engine::tasks::digest::{note_title, write_digest};
use wikimind_engine::tasks::page::write_page;
use wikimind_engine::topic::NameCache;

use crate::llm::CancellationToken;
use crate::store::{JobTarget, PageId, SourceId, SourceStatus, Store, StoreError};

pub use wikimind_engine::call::*;
pub use wikimind_engine::ground::{self, grounds, locate, locate_quote, readable, readable_source};
pub use wikimind_engine::ground::{ground_claims, ground_claims_in, GroundingIndex};
pub use wikimind_engine::prompts::*;
pub use wikimind_engine::tasks::article::{judge, judge_in, judge_with};
pub use wikimind_engine::tasks::parts::{chunk, notes};
pub use wikimind_engine::tasks::*;

use crate::config::Settings;
use crate::llm::{self, LlmError};

/// Builds the configured providers (the primary first, then the fallbacks; or the members
/// of a pool), each sending the API key its settings carry (see [`Settings::with_keys`])
/// and no other. The members of a pool report the smallest context among them, so a
/// prompt is sized to fit whichever member it goes to.
pub fn providers_from_settings(settings: &Settings) -> Result<Vec<ProviderSlot>, LlmError> {
    let slots = own_providers(settings)?;
    if !settings.pool || slots.len() < 2 {
        return Ok(slots);
    }
    let room = Arc::new(SmallestRoom {
        members: slots.clone(),
        configured: u64::from(settings.compile.context_tokens),
        smallest: tokio::sync::OnceCell::new(),
    });
    Ok(slots
        .into_iter()
        .map(|slot| ProviderSlot {
            provider: Arc::new(PoolMember {
                inner: slot.provider,
                room: Arc::clone(&room),
            }),
            model: slot.model,
        })
        .collect())
}

/// The smallest context among a pool's members, asked of each once.
struct SmallestRoom {
    members: Vec<ProviderSlot>,
    /// The context of a member that reports none (`compile.context_tokens`).
    configured: u64,
    smallest: tokio::sync::OnceCell<Option<u64>>,
}

impl SmallestRoom {
    /// The smallest context any member reports; a member that reports none (or does not
    /// answer) counts as the configured context. `None` when no member reports one.
    async fn get(&self) -> Option<u64> {
        let configured = self.configured;
        *self
            .smallest
            .get_or_init(|| async {
                let mut reported = Vec::with_capacity(self.members.len());
                for m in &self.members {
                    reported.push(m.provider.context_length(&m.model).await.ok().flatten());
                }
                if reported.iter().all(Option::is_none) {
                    return None;
                }
                reported.into_iter().map(|r| r.unwrap_or(configured)).min()
            })
            .await
    }
}

/// A member of a pool: its own client, reporting the pool's smallest context as its own.
struct PoolMember {
    inner: Arc<dyn llm::Provider>,
    room: Arc<SmallestRoom>,
}

#[async_trait::async_trait]
impl llm::Provider for PoolMember {
    async fn chat(
        &self,
        req: &llm::ChatRequest,
        events: llm::EventCallback<'_>,
    ) -> Result<llm::ChatResponse, LlmError> {
        self.inner.chat(req, events).await
    }

    async fn list_models(&self) -> Result<Vec<llm::ModelInfo>, LlmError> {
        self.inner.list_models().await
    }

    async fn context_length(&self, _model: &str) -> Result<Option<u64>, LlmError> {
        Ok(self.room.get().await)
    }

    fn kind(&self) -> llm::ProviderKind {
        self.inner.kind()
    }

    fn base_url(&self) -> &str {
        self.inner.base_url()
    }
}

fn own_providers(settings: &Settings) -> Result<Vec<ProviderSlot>, LlmError> {
    settings
        .providers
        .iter()
        .map(|p| {
            // The key as the settings resolved it (`Settings::with_keys`): this server's
            // own key, or none.
            let provider = llm::new_provider(
                p.kind,
                &p.base_url,
                settings.compile.provider_settings(p.api_key.clone()),
            )?;
            Ok(ProviderSlot {
                provider: Arc::from(provider),
                model: p.model.clone(),
            })
        })
        .collect()
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

impl From<CallError> for CompileError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Cancelled => CompileError::Cancelled,
            CallError::Worker(w) => CompileError::Worker(w),
        }
    }
}

/// Runs the engine's tasks against a wiki's store: a [`Caller`] (the providers and the
/// call loop, which hold no store), the prompts (the built-ins with a person's overrides)
/// and the wiki's name indexes, shared by every compiler of the wiki.
pub struct Compiler {
    store: Arc<Store>,
    caller: Caller,
    prompts: PromptSet,
    names: Arc<NameCache>,
    notes: Arc<crate::identity::NoteCache>,
}

impl Compiler {
    /// A compiler over `store` with `providers` (primary first; at least one).
    pub fn new(
        store: Arc<Store>,
        providers: Vec<ProviderSlot>,
        settings: CompileSettings,
    ) -> Compiler {
        Compiler {
            store,
            caller: Caller::new(providers, settings),
            prompts: PromptSet::builtin(),
            names: Arc::default(),
            notes: Arc::default(),
        }
    }

    /// Keeps the name indexes of prompts in `names`, shared with the other compilers of
    /// the same wiki (a compiler made with [`Compiler::new`] has a cache of its own).
    pub fn with_name_cache(mut self, names: Arc<NameCache>) -> Compiler {
        self.names = names;
        self
    }

    /// Keeps the wiki's note index in `notes`, shared with the other compilers of the same
    /// wiki, so a run builds it once rather than for every note it compiles (a compiler
    /// made with [`Compiler::new`] has a cache of its own).
    pub fn with_note_cache(mut self, notes: Arc<crate::identity::NoteCache>) -> Compiler {
        self.notes = notes;
        self
    }

    /// Uses these prompt templates (built-ins with a person's overrides).
    pub fn with_prompts(mut self, prompts: PromptSet) -> Compiler {
        self.prompts = prompts;
        self
    }

    /// The store compiled into.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The call loop the tasks run over.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The prompt templates.
    pub fn prompts(&self) -> &PromptSet {
        &self.prompts
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

    /// Reads the source and the wiki's names, has the engine write the digest, and stores
    /// it or the failure.
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
        // A note that shares its title with other notes of its root goes by the title that
        // tells it apart (`Parser/constructor`), whatever the model proposes.
        let notes = self.notes.index_for(&self.store, &source)?;
        let note_title = notes
            .note(source_id)
            .filter(|n| n.told_apart())
            .map(|n| n.title.clone())
            .or_else(|| note_title(&source));
        // Read from the raw text, before the readable text replaces it.
        let note_links = crate::note_links::links_to_notes(&notes, &source)?;
        // The model reads, quotes and is grounded against the readable text.
        let source = readable_source(source);
        let mut report = CompileReport::nothing_yet(source_id);
        let (titles, concepts) = self.names.known(&*self.store)?;
        let input = DigestInput {
            source: &source,
            note_title: note_title.as_deref(),
            titles: &titles,
            concepts: &concepts,
        };
        let digest = write_digest(
            &self.caller,
            &self.prompts,
            &input,
            &mut report,
            events,
            cancel,
        )
        .await?;
        let target = Some(JobTarget::Source(source_id));
        match digest {
            Digest::Written(mut written) => {
                // Links and names written as a path, or by a name several notes share, go
                // to the note they name.
                let result = &mut written.accepted.result;
                result.article_body = notes.relink(
                    Some(source_id),
                    &result.article_body,
                    &mut written.links,
                    &mut result.concepts,
                );
                // The notes the source itself links are linked from its digest, whether or
                // not the model wrote those links again.
                written.links.extend(note_links);
                let live = Live::new(target, written.provider.clone(), written.attempt, events);
                live.emit(Stage::Saving, Some(written.accepted.result.title.clone()));
                let saved = self.store.save_article(&written.save_article(source_id))?;
                live.emit(Stage::Compiled, Some(saved.title.clone()));
                let written = *written;
                report.saved(
                    &written.accepted,
                    saved,
                    &written.provider,
                    written.warnings,
                );
            }
            Digest::Failed(failed) => {
                self.store
                    .record_failure(source_id, &failed.record, &failed.reason)?;
                let failed = *failed;
                Live::new(target, failed.provider, failed.attempt, events)
                    .emit(Stage::Failed, Some(failed.reason.clone()));
                report.reason = Some(failed.reason);
            }
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// Writes a stale page from its digests (a page job the queue has started): reads its
    /// material and the wiki's names, has the engine write it
    /// ([`wikimind_engine::tasks::page::write_page`]), and stores what it hands back — the
    /// sources the page gains, the new version, the flag on a page every answer would
    /// have lost content of.
    pub async fn write_page(
        &self,
        page_id: PageId,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<PageReport, CompileError> {
        let started = Instant::now();
        let Some(material) = self.store.page_material(page_id)? else {
            return Ok(PageReport::nothing_yet(page_id, String::new()));
        };
        let (titles, concepts) = self.names.known(&*self.store)?;
        let written = write_page(
            &self.caller,
            &self.prompts,
            material,
            &titles,
            &concepts,
            events,
            cancel,
        )
        .await?;
        let mut report = match written {
            PageWrite::Nothing(report) => return Ok(report),
            PageWrite::GainsSources {
                report,
                material,
                holders,
            } => {
                self.store.page_gains_sources(&material, &holders)?;
                report
            }
            PageWrite::Called {
                mut report,
                save,
                failure,
            } => {
                let target = Some(JobTarget::Page(page_id));
                if let Some(mut save) = save {
                    // Links written as a path, or by a name several notes share, go to
                    // the note they name (from the note this page is of, if one is).
                    let notes = self.notes.index(&self.store)?;
                    let from = notes.note_titled(&save.content.title).map(|n| n.id);
                    let content = &mut save.content;
                    content.body = notes.relink(
                        from,
                        &content.body,
                        &mut content.links,
                        &mut content.concepts,
                    );
                    let live = Live::new(target, save.author.clone(), 1, events);
                    live.emit(Stage::Saving, Some(report.title.clone()));
                    let version = self.store.save_page_rewrite(
                        &save.view,
                        &save.content,
                        &save.provider,
                        &save.model,
                        &report.claims_left,
                    )?;
                    live.emit(Stage::Compiled, Some(report.title.clone()));
                    report.provider = Some(save.author);
                    report.outcome = PageOutcome::Written { version };
                }
                if let Some(failure) = failure {
                    if failure.lost_content {
                        self.store.flag_page(page_id, &failure.reason)?;
                        report.outcome = PageOutcome::Flagged {
                            reason: failure.reason,
                        };
                    } else {
                        report.outcome = PageOutcome::Failed {
                            reason: failure.reason,
                        };
                    }
                    Live::new(target, failure.author, 1, events)
                        .emit(Stage::Failed, report.reason().map(str::to_owned));
                }
                report
            }
        };
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// Answers `question` from `blocks` (best first), every claim checked with `grounds`
    /// (see [`wikimind_engine::tasks::answer_question`]).
    pub async fn answer_question(
        &self,
        question: &str,
        blocks: &[Block],
        grounds: &GroundsFn<'_>,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<AnswerRun, CompileError> {
        Ok(answer_question(
            &self.caller,
            &self.prompts,
            question,
            blocks,
            grounds,
            events,
            cancel,
        )
        .await?)
    }
}
