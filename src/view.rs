//! What a long-lived shell (the desktop app) shows: plain data types shaped for one screen
//! each, and the [`Wiki`] methods that fill them.
//!
//! The types own their strings and use plain numbers for ids, so they cross any wire (Tauri
//! IPC as JSON) unchanged. With the `ts` feature each derives `ts_rs::TS`, and the desktop
//! app generates its TypeScript declarations from them: the front end never hand-writes a
//! wire type. Article bodies arrive only as [`SafeHtml`](crate::render::SafeHtml) turned into
//! a string here, so nothing unsanitised reaches a webview.

use serde::{Deserialize, Serialize};

use std::path::Path;

use crate::compile::{CompileReport, Progress, Stage};
use crate::config::Settings;
use crate::contract::Confidence;
use crate::llm::KeyStore;
use crate::llm::ProviderKind;
use crate::store::{ArticleId, ArticleSort, SourceId};
use crate::wiki::{Result, Wiki};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// How many sources, articles and wanted pages the wiki has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CountsView {
    /// Sources stored.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub sources: u64,
    /// Articles compiled.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub articles: u64,
    /// Titles linked to that no article has.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub wanted: u64,
}

/// The order of the library.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum LibrarySort {
    /// By title, case-insensitively.
    #[default]
    Title,
    /// Most recently compiled first.
    Updated,
}

/// One row of the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LibraryEntry {
    /// The article's id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its one-paragraph summary.
    pub summary: String,
    /// When it was last compiled (UTC, ISO-8601).
    pub updated_at: String,
    /// Claims backed by a quote found in the source.
    pub sourced: u32,
    /// Claims the model inferred (or whose quote was not found).
    pub inferred: u32,
    /// Claims that are opinion.
    pub opinion: u32,
}

/// The library: every article in the asked order, with the counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LibraryView {
    /// The counts shown above the list.
    pub counts: CountsView,
    /// Every article.
    pub entries: Vec<LibraryEntry>,
    /// Titles linked to that no article has, most mentioned first.
    pub wanted: Vec<WantedView>,
}

/// A title that is linked to but has no article yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WantedView {
    /// The title as first linked.
    pub title: String,
    /// How many articles link to it.
    pub mentions: u32,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SearchResult {
    /// The article's id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub article_id: i64,
    /// Its title.
    pub title: String,
    /// Plain text around the match (never HTML); each matched word is between U+E000 and
    /// U+E001, characters that do not occur in text, so markdown `**bold**` stays text.
    pub snippet: String,
}

/// How sure a claim is, after grounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ConfidenceView {
    /// A quote from the source backs it.
    Sourced,
    /// Inferred by the model.
    Inferred,
    /// An opinion.
    Opinion,
}

impl From<Confidence> for ConfidenceView {
    fn from(c: Confidence) -> Self {
        match c {
            Confidence::Sourced => ConfidenceView::Sourced,
            Confidence::Inferred => ConfidenceView::Inferred,
            Confidence::Opinion => ConfidenceView::Opinion,
        }
    }
}

/// One key claim of an article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ClaimView {
    /// The claim.
    pub claim: String,
    /// Its confidence after grounding.
    pub confidence: ConfidenceView,
    /// The quote the model gave, if any.
    pub quote: Option<String>,
    /// Whether the quote was found in the source text.
    pub grounded: bool,
}

/// An article that links here, with the sentence around the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct BacklinkView {
    /// The linking article.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub article_id: i64,
    /// Its title.
    pub title: String,
    /// Plain text around the link.
    pub context: String,
}

/// A link going out of an article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LinkView {
    /// The title linked to.
    pub target: String,
    /// The article it resolves to; `null` for a wanted page.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub article_id: Option<i64>,
}

/// A source an article was compiled from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ArticleSourceView {
    /// The source's id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub source_id: i64,
    /// Where it came from (path, URL, `text:<hash>`).
    pub origin: String,
    /// When the article was compiled from it (UTC, ISO-8601).
    pub compiled_at: String,
    /// The provider and model that wrote the article.
    pub provider: String,
    /// The model.
    pub model: String,
}

/// Everything the article screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ArticleView {
    /// Its id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// The body as sanitised HTML (from the core's renderer only), wiki links resolved:
    /// `a.wikilink[data-article-id]` for articles, `a.wikilink.wanted[data-wanted]` for
    /// wanted pages, `a.external` for web links.
    pub html: String,
    /// Whether it was written from a cut-off answer.
    pub truncated: bool,
    /// When it was last compiled.
    pub updated_at: String,
    /// Key claims.
    pub claims: Vec<ClaimView>,
    /// Concepts.
    pub concepts: Vec<String>,
    /// Open questions.
    pub open_questions: Vec<String>,
    /// Links going out.
    pub links: Vec<LinkView>,
    /// Articles linking here.
    pub backlinks: Vec<BacklinkView>,
    /// Where it came from.
    pub sources: Vec<ArticleSourceView>,
}

/// Where a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum SourceStatusView {
    /// Not compiled yet.
    Pending,
    /// Being compiled.
    Compiling,
    /// Compiled into an article.
    Compiled,
    /// The last compile failed (see the reason).
    Failed,
    /// Changed since it was compiled.
    Stale,
}

/// One source in the sources list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourceView {
    /// Its id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// Where it came from.
    pub origin: String,
    /// `markdown`, `text`, `html`, `url`, …
    pub kind: String,
    /// Its title, if one was found.
    pub title: Option<String>,
    /// Where it is.
    pub status: SourceStatusView,
    /// Why it failed.
    pub reason: Option<String>,
    /// The article compiled from it.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub article_id: Option<i64>,
    /// That article's title.
    pub article_title: Option<String>,
    /// When it last changed.
    pub updated_at: String,
}

/// A source's full text, to show a quote against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourceTextView {
    /// Its id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// Where it came from.
    pub origin: String,
    /// Its text as stored.
    pub text: String,
}

/// A claim's quote shown in the source that holds it, with the text around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct QuoteView {
    /// The source shown: the first of the article's sources that holds the quote, else its
    /// first source.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub source_id: i64,
    /// Where that source came from.
    pub origin: String,
    /// Whether the quote was found (by the rule that grounds claims).
    pub found: bool,
    /// Source text before the quote (up to [`QUOTE_CONTEXT_CHARS`] characters).
    pub before: String,
    /// The quote as the source spells it (empty when not found).
    pub quote: String,
    /// Source text after it (up to [`QUOTE_CONTEXT_CHARS`] characters; the start of the
    /// source when the quote was not found).
    pub after: String,
    /// Whether the source goes on before `before`.
    pub more_before: bool,
    /// Whether the source goes on after `after`.
    pub more_after: bool,
}

/// How much source text a [`QuoteView`] shows on each side of the quote, in characters.
pub const QUOTE_CONTEXT_CHARS: usize = 600;

/// One model call in a source's compile log: the raw answer, to inspect a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CompilationView {
    /// Its row id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// Provider name.
    pub provider: String,
    /// Model name.
    pub model: String,
    /// `compiled` or `failed`.
    pub outcome: String,
    /// Why it failed.
    pub reason: Option<String>,
    /// The model's answer, exactly as received (show it as text, never as HTML).
    pub raw_answer: String,
    /// Repairs the engine made.
    pub repairs: Vec<String>,
    /// When it was logged.
    pub created_at: String,
}

/// A source stored by an ingest call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AddedView {
    /// Its id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub source_id: i64,
    /// Its origin.
    pub origin: String,
    /// Its title, if one was found.
    pub title: Option<String>,
    /// `added`, `unchanged` or `changed`.
    pub outcome: String,
}

/// What an ingest call did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct IngestView {
    /// Sources stored.
    pub added: Vec<AddedView>,
    /// Entries not read, each `path: reason`.
    pub skipped: Vec<String>,
    /// Inputs that could not be read at all, each `input: reason`.
    pub errors: Vec<String>,
}

impl IngestView {
    /// Adds what one ingest call did (or why it failed) to this summary.
    pub fn absorb(&mut self, input: &str, result: Result<crate::wiki::IngestSummary>) {
        match result {
            Ok(summary) => {
                self.added
                    .extend(summary.sources.into_iter().map(|s| AddedView {
                        source_id: s.source_id.0,
                        origin: s.origin,
                        title: s.title,
                        outcome: s.outcome.to_string(),
                    }));
                self.skipped.extend(
                    summary
                        .skipped
                        .into_iter()
                        .map(|s| format!("{}: {}", s.path.display(), s.reason)),
                );
            }
            Err(e) => self.errors.push(format!("{input}: {e}")),
        }
    }
}

/// Where a compile job is (see [`Stage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum StageView {
    /// Waiting in the queue.
    Queued,
    /// Reading a large source in parts before the article is written.
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
    /// Stopped by the person; the source is pending again.
    Cancelled,
}

impl From<Stage> for StageView {
    fn from(stage: Stage) -> Self {
        match stage {
            Stage::Reading => StageView::Reading,
            Stage::Prompting => StageView::Prompting,
            Stage::Receiving => StageView::Receiving,
            Stage::Parsing => StageView::Parsing,
            Stage::Saving => StageView::Saving,
            Stage::Compiled => StageView::Compiled,
            Stage::Failed => StageView::Failed,
        }
    }
}

/// Live state of one compile job, sent as an event each time it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct JobProgress {
    /// Which source.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub source_id: i64,
    /// Where it is.
    pub stage: StageView,
    /// Which provider and model (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The attempt with this provider, from 1 (0 while queued, or when another process
    /// runs the job and this one cannot see it).
    pub attempt: u32,
    /// Pieces of the answer streaming in now (about one token each); 0 when no answer is
    /// streaming.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub received: u64,
    /// Model calls the job made, once it has ended (`null` before).
    pub calls: Option<u32>,
    /// Answer tokens the servers reported over all its calls, once the job has ended
    /// (`null` before, and when no server reported them).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub tokens_out: Option<u64>,
    /// The title as soon as the model has written it.
    pub title: Option<String>,
    /// A note for people: why a retry happens, why it failed.
    pub message: Option<String>,
    /// The article, once stored.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub article_id: Option<i64>,
}

impl JobProgress {
    /// A job that waits in the queue.
    pub fn queued(source_id: SourceId, provider: String) -> JobProgress {
        JobProgress {
            source_id: source_id.0,
            stage: StageView::Queued,
            provider,
            attempt: 0,
            received: 0,
            calls: None,
            tokens_out: None,
            title: None,
            message: None,
            article_id: None,
        }
    }

    /// A job the person stopped.
    pub fn cancelled(source_id: SourceId) -> JobProgress {
        JobProgress {
            message: Some("cancelled; the source is pending again".into()),
            stage: StageView::Cancelled,
            ..JobProgress::queued(source_id, String::new())
        }
    }

    /// The final state from a compile report.
    pub fn finished(report: &CompileReport) -> JobProgress {
        JobProgress {
            source_id: report.source_id.0,
            stage: if report.ok {
                StageView::Compiled
            } else {
                StageView::Failed
            },
            provider: report.provider.clone().unwrap_or_default(),
            attempt: report.attempts.last().map_or(0, |a| a.attempt),
            received: 0,
            calls: Some(report.calls),
            tokens_out: (report.tokens_out > 0).then_some(report.tokens_out),
            title: report.title.clone(),
            message: report.reason.clone(),
            article_id: report.article_id.map(|a| a.0),
        }
    }
}

impl QuoteView {
    fn around(source: &crate::store::Source, at: Option<std::ops::Range<usize>>) -> QuoteView {
        let text = source.text.as_str();
        let at = at.unwrap_or(0..0);
        let start = text[..at.start]
            .char_indices()
            .rev()
            .nth(QUOTE_CONTEXT_CHARS - 1)
            .map_or(0, |(i, _)| i);
        let end = text[at.end..]
            .char_indices()
            .nth(QUOTE_CONTEXT_CHARS)
            .map_or(text.len(), |(i, _)| at.end + i);
        QuoteView {
            source_id: source.id.0,
            origin: source.origin.clone(),
            found: !at.is_empty(),
            before: text[start..at.start].to_owned(),
            quote: text[at.clone()].to_owned(),
            after: text[at.end..end].to_owned(),
            more_before: start > 0,
            more_after: end < text.len(),
        }
    }
}

impl From<&Progress> for JobProgress {
    fn from(p: &Progress) -> Self {
        JobProgress {
            source_id: p.source_id.0,
            stage: p.stage.into(),
            provider: p.provider.clone(),
            attempt: p.attempt,
            received: match p.stage {
                Stage::Receiving => u64::try_from(p.chunks).unwrap_or(u64::MAX),
                _ => 0,
            },
            calls: None,
            tokens_out: None,
            title: p.title.clone(),
            message: p.message.clone(),
            article_id: None,
        }
    }
}

impl Wiki {
    /// The library in the asked order, with counts and wanted pages.
    pub fn library(&self, sort: LibrarySort) -> Result<LibraryView> {
        let store = self.store();
        let order = match sort {
            LibrarySort::Title => ArticleSort::Title,
            LibrarySort::Updated => ArticleSort::Updated,
        };
        let c = store.counts()?;
        Ok(LibraryView {
            counts: CountsView {
                sources: c.sources,
                articles: c.articles,
                wanted: c.wanted,
            },
            entries: store
                .articles_sorted(order)?
                .into_iter()
                .map(|a| LibraryEntry {
                    id: a.id.0,
                    title: a.title,
                    summary: a.summary,
                    updated_at: a.updated_at,
                    sourced: a.claims.sourced,
                    inferred: a.claims.inferred,
                    opinion: a.claims.opinion,
                })
                .collect(),
            wanted: store
                .wanted_pages()?
                .into_iter()
                .map(|w| WantedView {
                    title: w.title,
                    mentions: w.mentions,
                })
                .collect(),
        })
    }

    /// Full-text search, best first.
    pub fn search_view(&self, query: &str) -> Result<Vec<SearchResult>> {
        Ok(self
            .store()
            .search(query)?
            .into_iter()
            .map(|h| SearchResult {
                article_id: h.article_id.0,
                title: h.title,
                snippet: h.snippet,
            })
            .collect())
    }

    /// One article with its body rendered, or `None` when no article has this id.
    pub fn article_view(&self, id: i64) -> Result<Option<ArticleView>> {
        let Some(a) = self.store().article(ArticleId(id))? else {
            return Ok(None);
        };
        // Resolve wiki links from the article's own stored links (the store keeps them
        // resolved), not from a list of every title: opening an article stays as fast with
        // 10 000 articles as with ten.
        let resolved: std::collections::HashMap<String, i64> = a
            .links
            .iter()
            .filter_map(|l| Some((crate::store::normalize_title(&l.target), l.article_id?.0)))
            .collect();
        let html = crate::render::render_article(&a.body, &|target: &str| match resolved
            .get(&crate::store::normalize_title(target))
        {
            Some(id) => crate::render::LinkTarget::Article {
                id: *id,
                title: target.trim().to_string(),
            },
            None => crate::render::LinkTarget::Wanted,
        })
        .into_string();
        Ok(Some(ArticleView {
            id: a.id.0,
            title: a.title,
            summary: a.summary,
            html,
            truncated: a.truncated,
            updated_at: a.updated_at,
            claims: a
                .claims
                .into_iter()
                .map(|c| ClaimView {
                    claim: c.claim,
                    confidence: c.confidence.into(),
                    quote: c.quote,
                    grounded: c.grounded,
                })
                .collect(),
            concepts: a.concepts,
            open_questions: a.open_questions,
            links: a
                .links
                .into_iter()
                .map(|l| LinkView {
                    target: l.target,
                    article_id: l.article_id.map(|i| i.0),
                })
                .collect(),
            backlinks: a
                .backlinks
                .into_iter()
                .map(|b| BacklinkView {
                    article_id: b.article_id.0,
                    title: b.title,
                    context: b.context,
                })
                .collect(),
            sources: a
                .sources
                .into_iter()
                .map(|s| ArticleSourceView {
                    source_id: s.source_id.0,
                    origin: s.origin,
                    compiled_at: s.compiled_at,
                    provider: s.provider,
                    model: s.model,
                })
                .collect(),
        }))
    }

    /// Where `quote` (a claim's quote) is in the sources of article `article_id`, with the
    /// text around it. `None` when the article does not exist or has no source.
    pub fn quote_view(&self, article_id: i64, quote: &str) -> Result<Option<QuoteView>> {
        let Some(article) = self.store().article(ArticleId(article_id))? else {
            return Ok(None);
        };
        let mut first = None;
        for s in &article.sources {
            let Some(source) = self.store().source(s.source_id)? else {
                continue;
            };
            if let Some(at) = crate::compile::locate_quote(&source.text, quote) {
                return Ok(Some(QuoteView::around(&source, Some(at))));
            }
            first.get_or_insert(source);
        }
        Ok(first.map(|source| QuoteView::around(&source, None)))
    }

    /// The id of the article with this title (case-insensitive), if any.
    pub fn article_id_by_title(&self, title: &str) -> Result<Option<i64>> {
        Ok(self.store().find_article(title)?.map(|a| a.0))
    }

    /// Every source with its status, newest change first as the store lists them.
    pub fn source_views(&self) -> Result<Vec<SourceView>> {
        use crate::store::SourceStatus as S;
        Ok(self
            .store()
            .sources()?
            .into_iter()
            .map(|s| SourceView {
                id: s.id.0,
                origin: s.origin,
                kind: s.kind.as_str().to_string(),
                title: s.title,
                status: match s.status {
                    S::Pending => SourceStatusView::Pending,
                    S::Compiling => SourceStatusView::Compiling,
                    S::Compiled => SourceStatusView::Compiled,
                    S::Failed => SourceStatusView::Failed,
                    S::Stale => SourceStatusView::Stale,
                },
                reason: s.reason,
                article_id: s.article_id.map(|a| a.0),
                article_title: s.article_title,
                updated_at: s.updated_at,
            })
            .collect())
    }

    /// A source's full text, or `None` when no source has this id.
    pub fn source_text(&self, id: i64) -> Result<Option<SourceTextView>> {
        Ok(self.store().source(SourceId(id))?.map(|s| SourceTextView {
            id: s.id.0,
            origin: s.origin,
            text: s.text,
        }))
    }

    /// A source's compile log, oldest first: every raw answer kept.
    pub fn compilation_views(&self, source_id: i64) -> Result<Vec<CompilationView>> {
        Ok(self
            .store()
            .compilations(SourceId(source_id))?
            .into_iter()
            .map(|c| CompilationView {
                id: c.id,
                provider: c.record.provider,
                model: c.record.model,
                outcome: match c.outcome {
                    crate::store::CompileOutcome::Compiled => "compiled".into(),
                    crate::store::CompileOutcome::Failed => "failed".into(),
                },
                reason: c.reason,
                raw_answer: c.record.raw_answer,
                repairs: c.record.repairs,
                created_at: c.created_at,
            })
            .collect())
    }

    /// A note to compile into the wanted page `title`: the sentences of every article that
    /// links to it. Returns `None` when nothing links to that title.
    pub fn wanted_page_note(&self, title: &str) -> Result<Option<String>> {
        let mentions = self.store().mentions_of(title)?;
        if mentions.is_empty() {
            return Ok(None);
        }
        let mut note = format!("# {}\n\n", title.trim());
        for m in mentions {
            note.push_str(&format!("From [[{}]]: {}\n\n", m.title, m.context.trim()));
        }
        Ok(Some(note))
    }
}

/// The kind of model server, as the settings screen names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ProviderKindView {
    /// Ollama's native API.
    Ollama,
    /// Any OpenAI-compatible server (llama.cpp, LM Studio, vLLM, OpenAI).
    Openai,
    /// The built-in engine (a GGUF model run in-process; cargo feature `builtin`).
    Builtin,
}

impl From<ProviderKind> for ProviderKindView {
    fn from(kind: ProviderKind) -> Self {
        match kind {
            ProviderKind::Ollama => ProviderKindView::Ollama,
            ProviderKind::OpenAiCompatible => ProviderKindView::Openai,
            ProviderKind::Builtin => ProviderKindView::Builtin,
        }
    }
}

impl From<ProviderKindView> for ProviderKind {
    fn from(kind: ProviderKindView) -> Self {
        match kind {
            ProviderKindView::Ollama => ProviderKind::Ollama,
            ProviderKindView::Openai => ProviderKind::OpenAiCompatible,
            ProviderKindView::Builtin => ProviderKind::Builtin,
        }
    }
}

/// The primary provider as the settings form edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ProviderForm {
    /// Which protocol.
    pub kind: ProviderKindView,
    /// Base URL, e.g. `http://127.0.0.1:11434`.
    pub base_url: String,
    /// Model name.
    pub model: String,
}

/// What the settings screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SettingsView {
    /// The primary provider.
    pub provider: ProviderForm,
    /// Fallback providers, one line each (`openai:local at http://…`), edited in the file.
    pub fallbacks: Vec<String>,
    /// Whether an API key is available for the primary provider (keyring or environment).
    pub has_api_key: bool,
    /// Where the wiki lives.
    pub data_dir: String,
    /// The config file read, if any.
    pub config_file: Option<String>,
    /// The default base URL and model of each kind, to fill the form when the kind changes
    /// (for the built-in engine, the model file it would use and its name).
    pub defaults: Vec<ProviderForm>,
    /// Whether and how the built-in engine can compile with no server at all.
    pub builtin: BuiltinView,
}

/// The built-in engine as the settings and first-run screens offer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct BuiltinView {
    /// Whether this build has the engine (cargo feature `builtin`).
    pub available: bool,
    /// A model file it could use now (the default model in the model folder, else the
    /// first `.gguf` there).
    pub model_file: Option<String>,
    /// The folder model files are looked up in (`WIKIMIND_MODEL_PATH` or the cache).
    pub model_dir: Option<String>,
    /// One line for people: what to do to compile without a server.
    pub hint: String,
}

impl BuiltinView {
    /// What the built-in engine can do with these settings on this machine.
    pub fn of(settings: &Settings) -> BuiltinView {
        let model_file = settings.find_model_file();
        let model_dir = settings.model_dir.as_ref().map(|d| d.display().to_string());
        let hint = if !crate::llm::HAS_BUILTIN {
            "This build has no built-in engine: build the app with the `builtin` feature \
             (`bash scripts/demo.sh` does), or use a model server."
                .to_string()
        } else {
            match (&model_file, &model_dir) {
                (Some(f), _) => format!(
                    "The built-in engine can compile without a server, with {}.",
                    f.display()
                ),
                (None, Some(d)) => format!(
                    "The built-in engine needs a model file: choose a .gguf file, or run \
                     `bash scripts/fetch-model.sh` to save a small one in {d}."
                ),
                (None, None) => {
                    "The built-in engine needs a model file: choose a .gguf file.".to_string()
                }
            }
        };
        BuiltinView {
            available: crate::llm::HAS_BUILTIN,
            model_file: model_file.map(|f| f.display().to_string()),
            model_dir,
            hint,
        }
    }
}

/// The result of "test connection".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ConnectionCheck {
    /// Whether the server answered its model list.
    pub ok: bool,
    /// One line for people: what answered, or what is wrong and what to do.
    pub message: String,
    /// The models it offers.
    pub models: Vec<String>,
    /// Whether the configured model is among them: for Ollama a name without a tag means
    /// `:latest`; other servers compare names exactly (the core's `model_available`).
    pub model_available: bool,
}

impl ConnectionCheck {
    /// A check that failed before any model was listed, and why.
    fn failed(message: impl Into<String>) -> ConnectionCheck {
        ConnectionCheck {
            ok: false,
            message: message.into(),
            models: Vec::new(),
            model_available: false,
        }
    }
}

impl SettingsView {
    /// The view of resolved settings.
    pub fn of(settings: &Settings) -> SettingsView {
        let p = settings.provider();
        let form = |kind: ProviderKind| ProviderForm {
            kind: kind.into(),
            base_url: crate::config::default_url(kind).to_string(),
            model: crate::config::default_model(kind).to_string(),
        };
        SettingsView {
            provider: ProviderForm {
                kind: p.kind.into(),
                base_url: p.base_url.clone(),
                model: p.model.clone(),
            },
            fallbacks: settings.providers[1..]
                .iter()
                .map(|f| format!("{}:{} at {}", f.kind.as_str(), f.model, f.base_url))
                .collect(),
            has_api_key: p.api_key.is_some(),
            data_dir: settings.data_dir.display().to_string(),
            config_file: settings
                .config_file
                .as_ref()
                .map(|f| f.display().to_string()),
            defaults: vec![
                form(ProviderKind::Ollama),
                form(ProviderKind::OpenAiCompatible),
                builtin_default(settings),
            ],
            builtin: BuiltinView::of(settings),
        }
    }
}

/// The built-in engine's form: the model file it would use (else where the default one
/// goes) and its name.
fn builtin_default(settings: &Settings) -> ProviderForm {
    let file = settings.find_model_file().or_else(|| {
        settings
            .model_dir
            .as_ref()
            .map(|d| d.join(crate::config::DEFAULT_BUILTIN_MODEL))
    });
    let file = file.map(|f| f.display().to_string()).unwrap_or_default();
    ProviderForm {
        kind: ProviderKindView::Builtin,
        model: model_file_name(&file),
        base_url: file,
    }
}

/// The file name of a model path (what the built-in engine reports as its model).
fn model_file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `settings` with the primary provider replaced by the form's, checked like the config
/// file, and every API key resolved again from `keys` ([`Settings::with_keys`]): the
/// primary gets the key of the form's server, never the one of the server it had before.
/// For the built-in engine the form's `base_url` is the model file's path.
pub fn with_primary(
    settings: &Settings,
    form: &ProviderForm,
    keys: &dyn KeyStore,
) -> Result<Settings, crate::config::ConfigError> {
    let kind = ProviderKind::from(form.kind);
    if kind == ProviderKind::Builtin {
        let file = form.base_url.trim();
        if file.is_empty() {
            return Err(crate::config::ConfigError::Invalid {
                what: "model file".into(),
                message: "choose a .gguf model file for the built-in engine".into(),
            });
        }
        let mut next = settings.clone();
        if let Some(primary) = next.providers.first_mut() {
            primary.kind = kind;
            primary.base_url = file.to_string();
            primary.model = model_file_name(file);
        }
        return Ok(next.with_keys(keys));
    }
    let url = form.base_url.trim().trim_end_matches('/').to_string();
    match url::Url::parse(&url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => {}
        _ => {
            return Err(crate::config::ConfigError::Invalid {
                what: "base URL".into(),
                message: format!("{url:?} is not an http(s) URL with a host"),
            })
        }
    }
    if form.model.trim().is_empty() {
        return Err(crate::config::ConfigError::Invalid {
            what: "model".into(),
            message: "choose a model".into(),
        });
    }
    let mut next = settings.clone();
    if let Some(primary) = next.providers.first_mut() {
        primary.kind = kind;
        primary.base_url = url;
        primary.model = form.model.trim().to_string();
    }
    Ok(next.with_keys(keys))
}

/// "Test connection" for a settings form not yet applied: the form's provider as
/// [`with_primary`] makes it (with the key of the form's server only) asked for its models
/// by [`check_connection`]. A form that is not valid says why.
pub async fn check_form(
    settings: &Settings,
    form: &ProviderForm,
    keys: &dyn KeyStore,
) -> ConnectionCheck {
    match with_primary(settings, form, keys) {
        Ok(next) => check_connection(&next).await,
        Err(e) => ConnectionCheck::failed(e.to_string()),
    }
}

/// Asks the primary provider for its model list: whether it is reachable, what it offers,
/// and whether the configured model is among it ([`crate::llm::model_available`]).
pub async fn check_connection(settings: &Settings) -> ConnectionCheck {
    let model = settings.provider().model.clone();
    let slots = match crate::compile::providers_from_settings(settings) {
        Ok(s) => s,
        Err(e) => return ConnectionCheck::failed(e.to_string()),
    };
    let Some(slot) = slots.first() else {
        return ConnectionCheck::failed("no provider is configured");
    };
    match slot.provider.list_models().await {
        Ok(list) if slot.provider.kind() == ProviderKind::Builtin => {
            let models: Vec<String> = list.iter().map(|m| m.name.clone()).collect();
            let what = list
                .first()
                .map(|m| {
                    let size = m.size_bytes.map_or(String::new(), |b| {
                        format!(", {:.0} MB", b as f64 / 1_000_000.0)
                    });
                    let family = m.family.as_deref().unwrap_or("unknown architecture");
                    format!("{family}{size}")
                })
                .unwrap_or_default();
            ConnectionCheck {
                ok: true,
                message: format!(
                    "{} is a GGUF model ({what}): the built-in engine can compile with it, no server needed",
                    slot.provider.base_url()
                ),
                model_available: crate::llm::model_available(
                    ProviderKind::Builtin,
                    &model,
                    &models,
                ),
                models,
            }
        }
        Ok(list) => {
            let models: Vec<String> = list.into_iter().map(|m| m.name).collect();
            let model_available =
                crate::llm::model_available(slot.provider.kind(), &model, &models);
            let message = match (models.len(), model_available) {
                (0, _) => format!("{} answered but offers no models", slot.provider.describe()),
                (n, true) => format!(
                    "{} answered: {n} model(s), {model} among them",
                    slot.provider.describe()
                ),
                (n, false) => format!(
                    "{} answered with {n} model(s), but not {model}: pick one of them",
                    slot.provider.describe()
                ),
            };
            ConnectionCheck {
                ok: true,
                message,
                models,
                model_available,
            }
        }
        Err(e) => ConnectionCheck::failed(e.to_string()),
    }
}

impl Wiki {
    /// Reads files and folders the person picked, dropped or typed, each on its own: one
    /// that cannot be read is reported and the others are still stored.
    pub fn ingest_paths_view(&self, paths: &[String]) -> IngestView {
        let mut view = IngestView::default();
        for p in paths {
            view.absorb(
                p,
                self.ingest_path(Path::new(p.trim()), self.ingest_options()),
            );
        }
        view
    }

    /// Stores pasted text (its title from its first heading unless given).
    pub fn ingest_text_view(&self, text: &str, title: Option<&str>) -> IngestView {
        let mut view = IngestView::default();
        let title = title.map(str::trim).filter(|t| !t.is_empty());
        view.absorb("pasted text", self.ingest_text(text, title));
        view
    }

    /// Downloads a web page and stores its readable text.
    pub async fn ingest_url_view(&self, url: &str) -> IngestView {
        let mut view = IngestView::default();
        let url = url.trim();
        view.absorb(url, self.ingest_url(url, self.ingest_options()).await);
        view
    }

    /// Stores a note built from the mentions of the wanted page `title`, ready to compile.
    pub fn create_wanted_view(&self, title: &str) -> Result<IngestView> {
        let mut view = IngestView::default();
        match self.wanted_page_note(title)? {
            Some(note) => view.absorb(title, self.ingest_text(&note, Some(title.trim()))),
            None => view.errors.push(format!("nothing links to {title:?}")),
        }
        Ok(view)
    }

    /// Removes a source; links to its article become wanted pages.
    pub fn remove_source_view(&self, id: i64) -> Result<bool> {
        Ok(self.store().remove_source(SourceId(id))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_wiki_has_an_empty_library() {
        let wiki = Wiki::open_in_memory().unwrap();
        let lib = wiki.library(LibrarySort::Updated).unwrap();
        assert_eq!(lib.counts, CountsView::default());
        assert!(lib.entries.is_empty());
        assert!(wiki.search_view("anything").unwrap().is_empty());
        assert_eq!(wiki.article_view(1).unwrap(), None);
        assert_eq!(wiki.wanted_page_note("Nothing").unwrap(), None);
    }

    #[test]
    fn article_links_resolve_to_articles_and_unknown_titles_are_wanted() {
        use crate::contract::CompilationResult;
        use crate::store::{CompileRecord, NewLink, SaveArticle};
        let wiki = Wiki::open_in_memory().unwrap();
        let mut ids = Vec::new();
        for (title, body, target) in [
            ("Tea", "Tea goes with [[scones]] and [[Jam]].", "Scones"),
            ("Scones", "Scones go with [[Tea]].", "Tea"),
        ] {
            let added = wiki
                .ingest_text(&format!("# {title}\n\n{body}"), None)
                .unwrap();
            let result = CompilationResult {
                title: title.into(),
                summary: body.into(),
                key_claims: Vec::new(),
                concepts: Vec::new(),
                backlink_suggestions: Vec::new(),
                open_questions: Vec::new(),
                article_body: body.into(),
            };
            let mut links = vec![NewLink {
                target: target.into(),
                context: body.into(),
            }];
            if title == "Tea" {
                links.push(NewLink {
                    target: "Jam".into(),
                    context: body.into(),
                });
            }
            let saved = wiki
                .store()
                .save_article(&SaveArticle {
                    source_id: added.sources[0].source_id,
                    result: &result,
                    claims: &[],
                    links: &links,
                    truncated: false,
                    record: &CompileRecord::default(),
                })
                .unwrap();
            ids.push(saved.article_id.0);
        }
        let tea = wiki.article_view(ids[0]).unwrap().unwrap();
        assert!(
            tea.html
                .contains(&format!("data-article-id=\"{}\"", ids[1])),
            "{}",
            tea.html
        );
        assert!(tea.html.contains("data-wanted=\"Jam\""), "{}", tea.html);
        assert_eq!(tea.backlinks.len(), 1);
        assert_eq!(tea.backlinks[0].title, "Scones");
        let lib = wiki.library(LibrarySort::Title).unwrap();
        assert_eq!(lib.counts.articles, 2);
        assert_eq!(lib.wanted[0].title, "Jam");
        let note = wiki.wanted_page_note("jam").unwrap().unwrap();
        assert!(note.contains("From [[Tea]]"), "{note}");
    }

    #[test]
    fn the_builtin_engine_is_offered_with_the_model_file_it_would_use() {
        let dir = tempfile::tempdir().unwrap();
        let models = dir.path().join("models");
        std::fs::create_dir_all(&models).unwrap();
        let env = |k: &str| match k {
            "WIKIMIND_DATA_DIR" => Some(dir.path().join("data").display().to_string()),
            "WIKIMIND_MODEL_PATH" => Some(models.display().to_string()),
            _ => None,
        };
        let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
        let view = SettingsView::of(&settings);
        assert_eq!(view.builtin.available, crate::llm::HAS_BUILTIN);
        assert_eq!(view.builtin.model_file, None);
        let default = view
            .defaults
            .iter()
            .find(|d| d.kind == ProviderKindView::Builtin)
            .unwrap();
        assert_eq!(
            Path::new(&default.base_url),
            models.join(crate::config::DEFAULT_BUILTIN_MODEL)
        );
        if crate::llm::HAS_BUILTIN {
            assert!(
                view.builtin.hint.contains("fetch-model.sh"),
                "{}",
                view.builtin.hint
            );
        } else {
            assert!(
                view.builtin.hint.contains("`builtin` feature"),
                "{}",
                view.builtin.hint
            );
        }

        // A model file in the folder is found and offered.
        let file = models.join("tiny.gguf");
        std::fs::write(&file, b"GGUF").unwrap();
        let view = SettingsView::of(&settings);
        assert_eq!(view.builtin.model_file, Some(file.display().to_string()));

        // Choosing it makes the built-in engine the primary provider, named by its file.
        let keys = crate::llm::NoKeyStore;
        let form = ProviderForm {
            kind: ProviderKindView::Builtin,
            base_url: file.display().to_string(),
            model: String::new(),
        };
        let next = with_primary(&settings, &form, &keys).unwrap();
        assert_eq!(next.provider().kind, ProviderKind::Builtin);
        assert_eq!(next.provider().base_url, file.display().to_string());
        assert_eq!(next.provider().model, "tiny.gguf");
        let empty = ProviderForm {
            base_url: " ".into(),
            ..form
        };
        let err = with_primary(&settings, &empty, &keys).unwrap_err();
        assert!(err.to_string().contains("model file"), "{err}");
    }

    #[tokio::test]
    async fn testing_a_model_file_that_is_not_gguf_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.gguf");
        std::fs::write(&file, b"# not a model\n").unwrap();
        let env = |k: &str| match k {
            "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
            _ => None,
        };
        let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
        let form = ProviderForm {
            kind: ProviderKindView::Builtin,
            base_url: file.display().to_string(),
            model: String::new(),
        };
        let keys = crate::llm::NoKeyStore;
        let next = with_primary(&settings, &form, &keys).unwrap();
        let check = check_connection(&next).await;
        assert!(!check.ok, "{check:?}");
        if crate::llm::HAS_BUILTIN {
            assert!(check.message.contains("notes.gguf"), "{}", check.message);
        } else {
            assert!(check.message.contains("builtin"), "{}", check.message);
        }
    }

    #[test]
    fn ingested_text_shows_as_a_pending_source_with_its_text() {
        let wiki = Wiki::open_in_memory().unwrap();
        let mut view = IngestView::default();
        view.absorb(
            "pasted text",
            wiki.ingest_text("# Tea\n\nTea is brewed.", None),
        );
        assert_eq!(view.added.len(), 1);
        let sources = wiki.source_views().unwrap();
        assert_eq!(sources[0].status, SourceStatusView::Pending);
        let text = wiki.source_text(sources[0].id).unwrap().unwrap();
        assert!(text.text.contains("Tea is brewed."));
        view.absorb("", wiki.ingest_text("   ", None));
        assert_eq!(view.errors.len(), 1, "{view:?}");
    }

    #[test]
    fn the_apps_ingest_keeps_the_configured_size_limit() {
        let dir = tempfile::tempdir().unwrap();
        let env = |k: &str| match k {
            "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
            _ => None,
        };
        let mut settings = Settings::resolve(&Default::default(), &env, None).unwrap();
        settings.compile.max_source_bytes = 64;
        let wiki = Wiki::open_in_memory()
            .unwrap()
            .with_ingest_options(settings.ingest_options());
        let big = format!("# Big\n\n{}", "word ".repeat(40));
        let file = dir.path().join("big.md");
        std::fs::write(&file, &big).unwrap();

        let pasted = wiki.ingest_text_view(&big, None);
        let picked = wiki.ingest_paths_view(&[file.display().to_string()]);
        for view in [pasted, picked] {
            assert!(view.added.is_empty(), "{view:?}");
            assert_eq!(view.errors.len(), 1, "{view:?}");
            assert!(view.errors[0].contains("64"), "names the limit: {view:?}");
        }
        assert!(wiki.source_views().unwrap().is_empty(), "nothing stored");
        let small = wiki.ingest_text_view("# Small\n\nFits.", None);
        assert_eq!(small.added.len(), 1, "{small:?}");
    }

    #[test]
    fn a_grounded_quote_is_shown_marked_in_its_source() {
        use crate::contract::CompilationResult;
        use crate::store::{CompileRecord, SaveArticle};
        let wiki = Wiki::open_in_memory().unwrap();
        let filler = "Lorem ipsum dolor sit amet. ".repeat(40);
        let text = format!(
            "# Espresso\n\n{filler}Espresso is brewed at *nine   bars* of pressure.\n{filler}"
        );
        let added = wiki.ingest_text(&text, None).unwrap();
        let result = CompilationResult {
            title: "Espresso".into(),
            summary: "Pressure.".into(),
            key_claims: Vec::new(),
            concepts: Vec::new(),
            backlink_suggestions: Vec::new(),
            open_questions: Vec::new(),
            article_body: "Espresso.".into(),
        };
        let saved = wiki
            .store()
            .save_article(&SaveArticle {
                source_id: added.sources[0].source_id,
                result: &result,
                claims: &[],
                links: &[],
                truncated: false,
                record: &CompileRecord::default(),
            })
            .unwrap();
        let id = saved.article_id.0;

        // Found the way grounding finds it: case, emphasis and spacing aside.
        let view = wiki.quote_view(id, "brewed at nine bars").unwrap().unwrap();
        assert!(view.found);
        assert_eq!(view.quote, "brewed at *nine   bars");
        assert!(view.before.ends_with("Espresso is "), "{}", view.before);
        assert_eq!(view.before.chars().count(), QUOTE_CONTEXT_CHARS);
        assert!(view.more_before && view.more_after);
        assert!(view.after.starts_with("* of pressure."), "{}", view.after);

        // Not there: the start of the source, said plainly.
        let view = wiki.quote_view(id, "brewed at ten bars").unwrap().unwrap();
        assert!(!view.found);
        assert!(view.quote.is_empty() && view.before.is_empty());
        assert!(view.after.starts_with("# Espresso"));
        assert!(wiki.quote_view(id + 100, "brewed").unwrap().is_none());
    }
}
