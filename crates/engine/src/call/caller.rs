//! The [`Caller`]: performs what the pure step decides — sends each call within its budget,
//! streams it as progress, judges the answer, retries with feedback or moves to the next
//! provider — and logs every call. It holds no store: a task gives it a prompt, a schema
//! and how to judge an answer, and gets an answer (or why there is none) and the log back.
//!
//! Every decision is made by pure code: `call::budget` (fit and budget of each call) and
//! [`super::step`] (accept, retry with feedback, next provider, give up).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::call::attempt::AttemptRecord;
use crate::call::budget::{context_from_report, CallBudget, CallPlan, Limits};
use crate::call::live::{Live, ProgressFn, Stage};
use crate::call::log::{CallLog, LastCall};
use crate::call::settings::CompileSettings;
use crate::call::step::{CompileState, Judged, Judgement, Rejection, Step};
use crate::call::usage::Usage;
use crate::llm::{AnswerGrounds, CancellationToken, ChatRequest, FinishReason, Provider};
use crate::prompts::templates::Prompt;
use crate::store::JobTarget;
use crate::structured::Schema;

/// Why asking stopped without an outcome: the run was cancelled, or a worker stopped.
/// (A provider that fails or an answer that cannot be made valid is an outcome:
/// a given-up answer.)
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// A compile worker stopped unexpectedly.
    #[error("a compile worker stopped: {0}")]
    Worker(String),
}

/// One provider to call, and the model to ask it for.
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

/// The one call loop: the providers to ask (primary first), the settings every call is
/// made with (answer budget, retries, temperature, concurrency), and each provider's
/// context size, asked once. Cheap to make: a job may be handed a caller of its own (one
/// server of a pool, say).
pub struct Caller {
    providers: Vec<ProviderSlot>,
    settings: CompileSettings,
    contexts: Mutex<HashMap<usize, u64>>,
}

impl Caller {
    /// A caller over `providers` (primary first; at least one) with `settings`.
    pub fn new(providers: Vec<ProviderSlot>, settings: CompileSettings) -> Caller {
        Caller {
            providers,
            settings,
            contexts: Mutex::new(HashMap::new()),
        }
    }

    /// The providers, primary first.
    pub fn providers(&self) -> &[ProviderSlot] {
        &self.providers
    }

    /// The settings every call is made with.
    pub fn settings(&self) -> &CompileSettings {
        &self.settings
    }

    /// The context size of provider `i`'s model in tokens: what the server reports, else
    /// the configured default. Asked once per provider.
    pub async fn context_tokens(&self, i: usize) -> u64 {
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

    /// The limits of a call: the first provider's context and the configured answer budget.
    pub(crate) async fn limits(&self) -> Limits {
        Limits {
            context: self.context_tokens(0).await,
            max_tokens: u64::from(self.settings.max_tokens),
        }
    }

    /// Asks the providers for one answer as [`CompileState`] decides (retries with
    /// feedback, then the next provider), within the budget [`CallBudget`] plans from
    /// `limits`, until an answer is accepted or every provider is given up. Every call is
    /// logged in `log` (its usage, its record, the last call that answered).
    pub(crate) async fn ask_until_done<A: Judged>(
        &self,
        asking: &Asking<'_, A>,
        limits: Limits,
        log: &mut CallLog,
    ) -> Result<Answer<A>, CallError> {
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
                            attempt,
                            plan,
                        };
                        let asked = self.ask(asking, call).await?;
                        log.usage += asked.usage;
                        log.attempts.push(asked.record);
                        match asked.called {
                            Called::Answered(judgement, raw, answered) => {
                                log.last = answered;
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
    ) -> Result<Asked<A>, CallError> {
        let Call {
            slot,
            attempt,
            plan,
        } = call;
        let (prompt, schema) = (asking.prompt, asking.schema);
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
            Err(e) if e.is_cancelled() => Err(CallError::Cancelled),
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
}

/// One call, as planned.
struct Call<'a> {
    slot: &'a ProviderSlot,
    /// The attempt with this provider, from 1.
    attempt: u32,
    plan: CallPlan,
}

/// What asking the providers for one answer needs: what it is about (for progress), the
/// prompt, the answer's schema and how an answer is judged.
pub(crate) struct Asking<'a, A> {
    /// What the call is about; `None` for a call that is no job (an answer, the judge).
    pub target: Option<JobTarget>,
    /// Where progress goes.
    pub events: &'a ProgressFn,
    /// Stops the calls.
    pub cancel: &'a CancellationToken,
    /// The prompt.
    pub prompt: &'a Prompt,
    /// The answer's schema, sent to the server.
    pub schema: &'a Schema,
    /// What an answer (and whether it was cut off) is judged to be.
    pub judge: &'a (dyn Fn(&str, bool) -> Judgement<A> + Sync),
    /// The answer's string field to report as it streams (see [`Live::showing`]).
    pub shows: Option<&'static str>,
    /// What the answer's quotes and names are drawn from (see [`crate::ground::grounds`]).
    pub grounds: Option<&'a AnswerGrounds>,
}

/// How asking ended.
pub(crate) enum Answer<A> {
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
struct Asked<A> {
    called: Called<A>,
    record: AttemptRecord,
    /// The call, with the tokens its server reported (none when it failed).
    usage: Usage,
}

/// What one call came to.
enum Called<A> {
    /// The provider answered: the judgement, the raw answer, the call for the log.
    Answered(Judgement<A>, String, LastCall),
    /// The provider failed, for this reason.
    Failed(String),
}
