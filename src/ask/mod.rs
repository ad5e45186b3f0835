//! Asking the wiki a question.
//!
//! 1. **Retrieval**, no model: the question's content words ([`words`]) are searched in
//!    the topic pages (full text, BM25 over titles, aliases, summaries, claims and
//!    bodies); the best pages and the pages one link away from the best few are read, as
//!    many as fit the model's context beside a full answer ([`material`]). When no page
//!    matches any content word, the wiki does not cover the question: the answer says so
//!    and no model is called.
//! 2. **The answer**: one strict-JSON call (the `ask` template, the
//!    [`QuestionAnswer`](crate::contract::QuestionAnswer) schema) through the same engine,
//!    retries and fallbacks as a compile.
//! 3. **The check** ([`check`]): a `sourced` claim's quote must be found in the page it
//!    cites, or in one of that page's sources, whether or not the page was read;
//!    otherwise the claim reads `inferred`.
//! 4. **Saving**, when asked: the answer becomes a page of kind `answer` titled by the
//!    question, linked to the pages it cites, marked when a claim did not ground. An
//!    answer page is never read to answer a question and never feeds a topic.
//!
//! [`sources`] asks the same question of the raw sources instead of the pages (a
//! full-text index over passages of their text), with the same template, schema and
//! check, for the eval's "does the wiki help?" comparison: both are callers of
//! [`Compiler::answer_question`](crate::compile::Compiler::answer_question), each with its
//! blocks and its grounding function.

pub use wikimind_engine::tasks::answer::{check, material};
pub mod cited;
pub mod sources;
pub mod words;

use serde::Serialize;

use crate::compile::{AnswerRun, AttemptRecord, Compiler, ProgressFn};
use crate::config::Settings;
use crate::llm::CancellationToken;
use crate::render::wiki_links;
use crate::store::{
    AnswerPage, FoundPage, NewLink, PageClaim, PageContent, PageId, QueryTerm, Store,
};
use crate::wiki::{Wiki, WikiError};

pub use check::CitedClaim;
use cited::PageTexts;
use material::Block;

/// How many pages the question's words find at most.
pub const MATCH_LIMIT: usize = 8;
/// How many of the best pages have their neighbours read too.
const NEIGHBOURS_OF: usize = 3;
/// How many neighbours are read at most.
const NEIGHBOUR_LIMIT: usize = 4;

/// What to do besides answering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AskOptions {
    /// Keep the answer as a page of kind `answer`.
    pub save: bool,
}

/// The pages a question finds, before any model is asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Retrieval {
    /// The question's content words.
    pub words: Vec<String>,
    /// The pages its words match, best first.
    pub matched: Vec<FoundPage>,
    /// The pages one link away from the best matches, not matched themselves.
    pub neighbours: Vec<FoundPage>,
}

impl Retrieval {
    /// Whether any page matches a content word of the question.
    pub fn covered(&self) -> bool {
        !self.matched.is_empty()
    }

    /// The pages to read, best first: the matches, then their neighbours.
    pub fn pages(&self) -> impl Iterator<Item = &FoundPage> {
        self.matched.iter().chain(&self.neighbours)
    }
}

/// The pages a question finds (see the module documentation), no model involved: first
/// the pages the question names (a run of its words that is a page's title or other name,
/// in any spelling: longer names first), then the full-text matches of its content words,
/// then the pages one link away from the best of those.
pub fn retrieve(store: &Store, question: &str) -> crate::store::Result<Retrieval> {
    let words = words::content_words(question);
    let mut matched: Vec<FoundPage> = store.topic_pages_named(&words::name_keys(question))?;
    matched.truncate(MATCH_LIMIT);
    let terms: Vec<QueryTerm> = words::query_terms(&words);
    for found in store.match_pages(&terms, MATCH_LIMIT)? {
        if matched.len() >= MATCH_LIMIT {
            break;
        }
        if !matched.iter().any(|m| m.page_id == found.page_id) {
            matched.push(found);
        }
    }
    let best: Vec<PageId> = matched
        .iter()
        .take(NEIGHBOURS_OF)
        .map(|p| p.page_id)
        .collect();
    let mut neighbours = store.neighbour_pages(&best, NEIGHBOUR_LIMIT + matched.len())?;
    neighbours.retain(|n| !matched.iter().any(|m| m.page_id == n.page_id));
    neighbours.truncate(NEIGHBOUR_LIMIT);
    Ok(Retrieval {
        words,
        matched,
        neighbours,
    })
}

/// An answer to a question, as `wikimind ask --json` prints it. The keys `answer`,
/// `claims` (each `claim`, `confidence`, `quote`, `page`, `grounded`),
/// `follow_up_questions`, `pages_read`, `covered` and `saved` are a contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskReport {
    /// The question as asked.
    pub question: String,
    /// The answer in markdown with `[[links]]`; when the wiki does not cover the
    /// question, a sentence saying so; empty when no answer could be made valid.
    pub answer: String,
    /// Its claims, each with the page it cites and whether its quote was found there.
    pub claims: Vec<CitedClaim>,
    /// Questions worth asking next.
    pub follow_up_questions: Vec<String>,
    /// The titles of the pages the model read, in the order it read them.
    pub pages_read: Vec<String>,
    /// Whether any page matches a content word of the question.
    pub covered: bool,
    /// The title of the answer page, when it was saved.
    pub saved: Option<String>,
    /// The answer page's id, when it was saved.
    #[serde(skip)]
    pub saved_page: Option<PageId>,
    /// Why no answer could be made valid (`None` when answered or not covered).
    pub error: Option<String>,
    /// The provider and model that answered (`ollama:qwen2.5:3b`), when one did.
    pub provider: Option<String>,
    /// Model calls made and the tokens the servers reported (`calls`, `tokens_in`,
    /// `tokens_out`).
    #[serde(flatten)]
    pub usage: crate::compile::Usage,
    /// Notes for people: pages read only in part, claims marked inferred, retries.
    pub warnings: Vec<String>,
    /// Every model call, in order (none when the question was not covered).
    #[serde(skip)]
    pub attempts: Vec<AttemptRecord>,
    /// The version of the `ask` template the question was sent with (`None` when no model
    /// was asked).
    #[serde(skip)]
    pub prompt_version: Option<String>,
}

impl AskReport {
    /// The report of a question before anything was answered.
    pub(crate) fn empty(question: &str, covered: bool) -> AskReport {
        AskReport {
            question: question.to_owned(),
            answer: String::new(),
            claims: Vec::new(),
            follow_up_questions: Vec::new(),
            pages_read: Vec::new(),
            covered,
            saved: None,
            saved_page: None,
            error: None,
            provider: None,
            usage: crate::compile::Usage::default(),
            warnings: Vec::new(),
            attempts: Vec::new(),
            prompt_version: None,
        }
    }

    /// Takes what answering cost and returned from `run`: `read` are the names of the
    /// blocks sent, in order (each once), `cut` those sent only in part.
    fn take_run(&mut self, run: AnswerRun, read: Vec<String>, cut: Vec<String>) {
        self.pages_read = read;
        self.usage = run.usage;
        self.provider = (!run.provider.is_empty()).then(|| run.provider.clone());
        self.prompt_version = Some(run.prompt_version);
        self.attempts = run.attempts;
        self.warnings = run.warnings;
        if !cut.is_empty() {
            self.warnings.push(format!(
                "read only in part (the model's context is full): {}",
                cut.join(", ")
            ));
        }
        match run.answer {
            Ok(checked) => {
                self.answer = checked.answer.answer.clone();
                self.claims = checked.claims;
                self.follow_up_questions = checked.answer.follow_up_questions;
            }
            Err(reason) => self.error = Some(reason),
        }
    }

    /// Whether the question was answered or found not covered (`wikimind ask` exits 0),
    /// rather than failed because no answer could be made valid (exit 1).
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// How many claims did not ground in the page they cite.
    pub fn ungrounded(&self) -> usize {
        self.claims.iter().filter(|c| !c.grounded).count()
    }
}

/// What a question that no page covers is told.
fn not_covered(words: &[String]) -> String {
    if words.is_empty() {
        return "The question has no words to look for in the wiki: ask about a topic.".into();
    }
    format!(
        "The wiki does not cover this: no page mentions {}.",
        quoted(words)
    )
}

/// The words looked for, each in quotation marks, separated by commas.
fn quoted(words: &[String]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("\u{201c}{w}\u{201d}"))
        .collect();
    quoted.join(", ")
}

/// The question as a page title: one line, at most 200 characters.
fn question_title(question: &str) -> String {
    let line = question.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", line[..i].trim_end()),
        None => line,
    }
}

impl Wiki {
    /// Answers `question` from the wiki's pages with the configured providers (see the
    /// module documentation), streaming the answer's text to `events`; with
    /// [`AskOptions::save`], keeps a valid answer as a page of kind `answer`.
    pub async fn ask(
        &self,
        settings: &Settings,
        question: &str,
        options: AskOptions,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<AskReport, WikiError> {
        let retrieval = self.retrieve(question.trim())?;
        if !retrieval.covered() {
            // No model is needed to say so: none is set up.
            let mut report = AskReport::empty(question.trim(), false);
            report.answer = not_covered(&retrieval.words);
            return Ok(report);
        }
        let compiler = self.compiler(settings)?;
        self.ask_with(&compiler, question, options, events, cancel)
            .await
    }

    /// [`Wiki::ask`] with a compiler of the caller's (made by [`Wiki::compiler`], or with
    /// its own providers and settings): a server that answers many questions keeps one (a
    /// built-in model stays loaded between them), and the eval measures model by model.
    pub async fn ask_with(
        &self,
        compiler: &Compiler,
        question: &str,
        options: AskOptions,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<AskReport, WikiError> {
        let question = question.trim();
        let store = self.store();
        let retrieval = self.retrieve(question)?;
        let mut report = AskReport::empty(question, retrieval.covered());
        if !retrieval.covered() {
            report.answer = not_covered(&retrieval.words);
            return Ok(report);
        }
        let mut blocks = Vec::new();
        for found in retrieval.pages() {
            if let Some(page) = store.page(found.page_id)? {
                blocks.push(Block::page(&page));
            }
        }
        let texts = PageTexts::new(store);
        let grounds = |name: &str, quote: &str| texts.grounds(name, quote);
        let run = compiler
            .answer_question(question, &blocks, &grounds, events, cancel)
            .await
            .map_err(|e| WikiError::Compile(Box::new(e)))?;
        let titles =
            |at: &[usize]| -> Vec<String> { at.iter().map(|&i| blocks[i].title.clone()).collect() };
        let (read, cut) = (titles(&run.read), titles(&run.cut));
        report.take_run(run, read, cut);
        if options.save {
            if let Some(saved) = self.save_answer(&report)? {
                report.saved = Some(saved.title);
                report.saved_page = Some(saved.page_id);
            }
        }
        Ok(report)
    }

    /// Keeps `report`, an answer [`Wiki::ask`] made without saving it, as the page of its
    /// question, as [`AskOptions::save`] would have (with the provider and model its
    /// `provider` names), so keeping an answer never asks the model again. `None` when
    /// there is nothing to keep: the wiki did not cover the question, or no valid answer
    /// was made.
    pub fn save_answer(
        &self,
        report: &AskReport,
    ) -> Result<Option<crate::store::SavedAnswer>, WikiError> {
        if !report.covered || !report.ok() || report.answer.trim().is_empty() {
            return Ok(None);
        }
        let named = report.provider.as_deref().unwrap_or_default();
        let (provider, model) = named.split_once(':').unwrap_or((named, ""));
        Ok(Some(save(self.store(), report, provider, model)?))
    }

    /// The pages `question` finds, before any model is asked (what `ask` would read).
    pub fn retrieve(&self, question: &str) -> Result<Retrieval, WikiError> {
        Ok(retrieve(self.store(), question)?)
    }
}

/// Keeps an answered report as the page of its question.
fn save(
    store: &Store,
    report: &AskReport,
    provider: &str,
    model: &str,
) -> Result<crate::store::SavedAnswer, WikiError> {
    let mut links: Vec<NewLink> = wiki_links(&report.answer)
        .into_iter()
        .map(|l| NewLink {
            target: l.target,
            context: l.context,
        })
        .collect();
    for claim in &report.claims {
        if !claim.page.is_empty() {
            links.push(NewLink {
                target: claim.page.clone(),
                context: claim.claim.clone(),
            });
        }
    }
    let title = question_title(&report.question);
    let content = PageContent {
        title: title.clone(),
        summary: crate::render::one_line(&crate::render::link_text(&report.answer))
            .chars()
            .take(300)
            .collect(),
        body: report.answer.clone(),
        claims: report
            .claims
            .iter()
            .map(|c| PageClaim {
                claim: crate::contract::CheckedClaim {
                    claim: c.claim.clone(),
                    confidence: c.confidence,
                    quote: c.quote.clone(),
                    grounded: c.grounded,
                },
                source_ids: c.source_ids.clone(),
                cited_page: Some(c.page.clone()),
                author: Default::default(),
            })
            .collect(),
        concepts: Vec::new(),
        open_questions: report.follow_up_questions.clone(),
        links,
    };
    let ungrounded = report.ungrounded();
    let marked = (ungrounded > 0).then(|| {
        format!(
            "{ungrounded} of {} claims are not backed by a quote found in the page they cite",
            report.claims.len()
        )
    });
    Ok(store.save_answer(&AnswerPage {
        question: &title,
        content: &content,
        marked: marked.as_deref(),
        provider,
        model,
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_title_is_one_line_of_at_most_200_characters() {
        assert_eq!(question_title("  What is\n crema? "), "What is crema?");
        let long = "why ".repeat(100);
        let title = question_title(&long);
        assert_eq!(title.chars().count(), 200);
        assert!(title.ends_with('…'));
    }

    #[test]
    fn not_covered_names_the_words_looked_for() {
        assert_eq!(
            not_covered(&["quark".into(), "gluon".into()]),
            "The wiki does not cover this: no page mentions \u{201c}quark\u{201d}, \u{201c}gluon\u{201d}."
        );
        assert!(not_covered(&[]).contains("no words"));
    }
}
