//! Answering a question from pages, the IO half: fits the pages found into the model's
//! context, asks for a [`QuestionAnswer`](crate::contract::QuestionAnswer) with the same
//! engine, retries and fallbacks as a compile, and checks each claim's citation against
//! the page it cites (read from the store, whether or not it was sent). The decisions are
//! [`crate::ask`]'s.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::ask::check::{cited_name, judge_answer, CheckedAnswer, Grounding};
use crate::ask::material::{fit_pages, page_block};
use crate::llm::CancellationToken;
use crate::store::{Page, PageId, SourceId};

use super::driver::{Answer, Asking, CallLog, CompileError, Compiler};
use super::ground::GroundingIndex;
use super::live::ProgressFn;
use super::plan::Limits;
use super::report::LastCall;
use super::templates::ASK;

/// How answering went: the answer (or why there is none), what was read and what it
/// cost.
#[derive(Debug)]
pub struct AnswerRun {
    /// The answer with its citations checked, or why no answer could be made valid.
    pub answer: Result<CheckedAnswer, String>,
    /// The pages sent to the model, in order, by id and title.
    pub pages_read: Vec<(PageId, String)>,
    /// The pages sent only in part, by title.
    pub pages_cut: Vec<String>,
    /// Calls made.
    pub calls: u32,
    /// Prompt tokens the servers reported.
    pub tokens_in: u64,
    /// Answer tokens the servers reported.
    pub tokens_out: u64,
    /// The provider and model that answered last (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The model as the server named it.
    pub model: String,
    /// The prompt template's version.
    pub prompt_version: String,
    /// Notes for people: retries, claims marked inferred.
    pub warnings: Vec<String>,
}

/// A cited page's text, indexed once: the page itself, then each of its sources.
struct CitedText {
    page_id: PageId,
    title: String,
    page: GroundingIndex,
    sources: Vec<(SourceId, GroundingIndex)>,
}

impl Compiler {
    /// Answers `question` from `pages` (best first): as many as fit beside a full answer
    /// are sent; every claim of the answer is checked against the page it cites.
    pub async fn answer_question(
        &self,
        question: &str,
        pages: &[Page],
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<AnswerRun, CompileError> {
        let template = self.prompts.get(ASK);
        let limits = Limits {
            context: self.context_tokens(0).await,
            max_tokens: u64::from(self.settings.max_tokens),
        };
        let blocks: Vec<(PageId, String, String)> = pages
            .iter()
            .map(|p| (p.id, p.title.clone(), page_block(p)))
            .collect();
        let fixed = template.render(&[("question", question), ("pages", "")]);
        let room = limits.notes_room(fixed.system.len() + fixed.user.len());
        let fitted = fit_pages(&blocks, room);
        let prompt = template.render(&[("question", question), ("pages", &fitted.text)]);
        let schema = template.schema();

        let cache: Mutex<HashMap<String, Option<Arc<CitedText>>>> = Mutex::default();
        let grounds = |name: &str, quote: &str| -> Grounding {
            let cited = match self.cited_text(name, &cache) {
                Ok(Some(cited)) => cited,
                _ => return Grounding::default(),
            };
            let mut grounding = Grounding {
                page_id: Some(cited.page_id),
                title: Some(cited.title.clone()),
                found: false,
                source_ids: Vec::new(),
            };
            if quote.trim().is_empty() {
                return grounding;
            }
            grounding.source_ids = cited
                .sources
                .iter()
                .filter(|(_, text)| text.contains(quote))
                .map(|(id, _)| *id)
                .collect();
            grounding.found = !grounding.source_ids.is_empty() || cited.page.contains(quote);
            grounding
        };
        let judge = |raw: &str, cut_off: bool| judge_answer(raw, cut_off, &schema, &grounds);
        let asking = Asking {
            target: None,
            events,
            cancel,
            prompt: &prompt,
            schema: &schema,
            judge: &judge,
            shows: Some("answer"),
        };
        let mut log = CallLog::default();
        let mut last = LastCall::default();
        let answer = self
            .ask_until_done(&asking, limits, &mut log, &mut last)
            .await?;
        let mut warnings = log.warnings;
        let answer = match answer {
            Answer::Accepted(accepted) => {
                warnings.extend(accepted.warnings.iter().cloned());
                Ok(*accepted)
            }
            Answer::GaveUp { reason, .. } => Err(reason),
        };
        Ok(AnswerRun {
            answer,
            pages_read: fitted.read,
            pages_cut: fitted.cut,
            calls: log.calls,
            tokens_in: log.tokens_in,
            tokens_out: log.tokens_out,
            provider: last.provider.clone(),
            model: last.model.clone(),
            prompt_version: template.version.clone(),
            warnings,
        })
    }

    /// The text of the page a claim cites (by title or any other name), indexed once per
    /// answer; `None` when no page has that name.
    fn cited_text(
        &self,
        name: &str,
        cache: &Mutex<HashMap<String, Option<Arc<CitedText>>>>,
    ) -> Result<Option<Arc<CitedText>>, CompileError> {
        let key = crate::store::page_key(cited_name(name));
        if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let store = self.store();
        let cited = match store.find_page(name)? {
            None => None,
            Some(id) => match store.page(id)? {
                None => None,
                Some(page) => {
                    let mut text = format!("{}\n{}\n{}\n", page.title, page.summary, page.body);
                    for c in &page.claims {
                        text.push_str(&c.claim.claim);
                        text.push('\n');
                        // Only a quote grounding confirmed is the page's own words.
                        if let Some(q) = c.claim.quote.as_ref().filter(|_| c.claim.grounded) {
                            text.push_str(q);
                            text.push('\n');
                        }
                    }
                    let sources = store
                        .page_source_texts(id)?
                        .into_iter()
                        .map(|(sid, text)| (sid, GroundingIndex::new(&text)))
                        .collect();
                    Some(Arc::new(CitedText {
                        page_id: id,
                        title: page.title,
                        page: GroundingIndex::new(&text),
                        sources,
                    }))
                }
            },
        };
        if let Ok(mut c) = cache.lock() {
            c.insert(key, cited.clone());
        }
        Ok(cited)
    }
}
