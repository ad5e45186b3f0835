//! What the Ask screen shows: an answer rendered by the one renderer, its claims each
//! citing a page the app can open, the pages it read, and the answer's text while it
//! streams in ([`AskProgress`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

use super::{Confidence, StageView};
use crate::ask::{AskReport, CitedClaim};
use crate::compile::{Progress, Stage};
use crate::render::{render_article, wiki_links, LinkTarget};
use crate::store::{page_key, PageId, SourceId};
use crate::wiki::{Result, Wiki};

/// A page an answer names: one it read, the one a claim cites, or the page it was saved
/// as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PageNameView {
    /// The page's title.
    pub title: String,
    /// The page, when one has that name now (`null`: no page has it).
    pub page_id: Option<PageId>,
}

/// One claim of an answer, with the page it cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AnswerClaimView {
    /// The claim in one sentence.
    pub claim: String,
    /// Its confidence after the check: a `sourced` claim whose quote was not found in the
    /// page it cites reads `inferred`.
    pub confidence: Confidence,
    /// The quote the model gave, if any (text, never HTML).
    pub quote: Option<String>,
    /// The page it cites: its title as the wiki writes it, and its id when it exists.
    pub page: PageNameView,
    /// Whether the quote was found in the cited page or one of its sources.
    pub grounded: bool,
    /// Whether the claim has a quote that was found neither in the cited page nor in its
    /// sources: it is shown as inferred, whatever the model said.
    pub quote_not_found: bool,
    /// The cited page's sources whose text holds the quote, by id.
    pub source_ids: Vec<SourceId>,
}

/// An answer to a question, as the Ask screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AnswerView {
    /// The question as asked.
    pub question: String,
    /// Whether any page matches a content word of the question. When not, `html` says
    /// what was looked for and no model was asked.
    pub covered: bool,
    /// The answer as sanitised HTML (from the core's renderer only), wiki links resolved
    /// against pages as in [`PageView`](super::PageView); empty when no valid answer was
    /// made.
    pub html: String,
    /// Its claims, each with the page it cites.
    pub claims: Vec<AnswerClaimView>,
    /// Questions worth asking next.
    pub follow_up_questions: Vec<String>,
    /// The pages the model read, in the order it read them.
    pub pages_read: Vec<PageNameView>,
    /// Why no valid answer could be made (`null`: answered, or not covered).
    pub error: Option<String>,
    /// Whether the answer can be kept as a page (answered, valid, not saved yet).
    pub can_save: bool,
    /// The answer page, once saved.
    pub saved: Option<PageNameView>,
    /// The provider and model that answered (`ollama:qwen2.5:3b`), when one did.
    pub provider: Option<String>,
    /// Model calls made.
    pub calls: u32,
    /// Answer tokens the servers reported.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_out: u64,
    /// Notes for people: pages read only in part, claims marked inferred, retries.
    pub warnings: Vec<String>,
}

/// Live progress of a question being answered, sent as an event each time it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AskProgress {
    /// The question being answered (as asked, trimmed).
    pub question: String,
    /// Where the answer is.
    pub stage: StageView,
    /// Which provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The attempt with this provider, from 1.
    pub attempt: u32,
    /// Pieces of the answer received so far (about one token each); 0 when none is
    /// streaming.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub received: u64,
    /// The answer's text as far as it has come (plain text: show it as text, never as
    /// HTML); `null` before the model has written any.
    pub text: Option<String>,
    /// A note for people: why a retry happens, why it failed.
    pub message: Option<String>,
}

impl AskProgress {
    /// The progress `p` of answering `question`.
    pub fn of(question: &str, p: &Progress) -> AskProgress {
        AskProgress {
            question: question.trim().to_owned(),
            stage: p.stage.into(),
            provider: p.provider.clone(),
            attempt: p.attempt,
            received: match p.stage {
                Stage::Receiving => u64::try_from(p.chunks).unwrap_or(u64::MAX),
                _ => 0,
            },
            text: p.text.clone(),
            message: p.message.clone(),
        }
    }
}

impl Wiki {
    /// What the Ask screen shows of `report`: its answer rendered by the one renderer
    /// (links resolved to pages by any of their names), each claim's cited page and each
    /// page read resolved to its id now.
    pub fn answer_view(&self, report: &AskReport) -> Result<AnswerView> {
        let store = self.store();
        let mut ids: HashMap<String, Option<PageId>> = HashMap::new();
        let mut page_id = |name: &str| -> Result<Option<PageId>> {
            let key = page_key(name);
            if let Some(known) = ids.get(&key) {
                return Ok(*known);
            }
            let found = store.find_page(name)?;
            ids.insert(key, found);
            Ok(found)
        };
        for link in wiki_links(&report.answer) {
            page_id(&link.target)?;
        }
        let mut claims = Vec::with_capacity(report.claims.len());
        for c in &report.claims {
            let id = match c.page_id {
                Some(id) => Some(id),
                None if c.page.trim().is_empty() => None,
                None => page_id(&c.page)?,
            };
            claims.push(answer_claim(c, id));
        }
        let mut pages_read = Vec::with_capacity(report.pages_read.len());
        for title in &report.pages_read {
            pages_read.push(PageNameView {
                title: title.clone(),
                page_id: page_id(title)?,
            });
        }
        let html = if report.answer.trim().is_empty() {
            String::new()
        } else {
            render_article(&report.answer, &|target: &str| match ids
                .get(&page_key(target))
                .copied()
                .flatten()
            {
                Some(id) => LinkTarget::Page {
                    id: id.0,
                    title: target.trim().to_owned(),
                },
                None => LinkTarget::Wanted,
            })
            .into_string()
        };
        let saved = report.saved.as_ref().map(|title| PageNameView {
            title: title.clone(),
            page_id: report.saved_page,
        });
        Ok(AnswerView {
            question: report.question.clone(),
            covered: report.covered,
            html,
            claims,
            follow_up_questions: report.follow_up_questions.clone(),
            pages_read,
            error: report.error.clone(),
            can_save: report.covered
                && report.ok()
                && !report.answer.trim().is_empty()
                && saved.is_none(),
            saved,
            provider: report.provider.clone(),
            calls: report.usage.calls,
            tokens_out: report.usage.tokens_out,
            warnings: report.warnings.clone(),
        })
    }
}

fn answer_claim(c: &CitedClaim, page_id: Option<PageId>) -> AnswerClaimView {
    AnswerClaimView {
        claim: c.claim.clone(),
        confidence: c.confidence,
        quote: c.quote.clone(),
        page: PageNameView {
            title: c.page.clone(),
            page_id,
        },
        grounded: c.grounded,
        quote_not_found: super::quote_not_found(c.quote.as_deref(), c.grounded),
        source_ids: c.source_ids.clone(),
    }
}
