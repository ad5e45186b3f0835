//! What a long-lived shell (the desktop app) shows: plain data types shaped for one screen
//! each, and the [`Wiki`] methods that fill them.
//!
//! The types own their strings and use plain numbers for ids, so they cross any wire (Tauri
//! IPC as JSON) unchanged. With the `ts` feature each derives `ts_rs::TS`, and the desktop
//! app generates its TypeScript declarations from them: the front end never hand-writes a
//! wire type. Page, digest and answer bodies arrive only as
//! [`SafeHtml`](crate::render::SafeHtml) turned into a string here, so nothing unsanitised
//! reaches a webview.
//!
//! The app shows *pages* (one per topic, fed by the digests of every source that names it);
//! a source's *digest* (what that one source says) is shown from the Sources screen; an
//! *answer* to a question ([`AnswerView`]) on the Ask screen, and once saved as a page of
//! kind `answer`. Every id called `page_id` (or a page's `id`) is a page's; `article_id` is
//! a digest's.

use serde::{Deserialize, Serialize};

use std::path::Path;

use crate::config::Settings;
/// Domain types that cross the wire as they are (with the `ts` feature each derives
/// `ts_rs::TS` in its own crate): no mirror enum copies them here.
pub use crate::contract::Confidence;
use crate::llm::KeyStore;
use crate::llm::ProviderKind;
pub use crate::reading::{ListedPage, ListedVersion};
use crate::store::{ArticleId, PageId, SourceId};
pub use crate::store::{AuthorKind, ClaimCounts, ClaimLeft, PageKind, PersonChange, SourceStatus};
use crate::wiki::{Result, Wiki};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// How many sources, pages and wanted pages the wiki has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CountsView {
    /// Sources stored.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub sources: u64,
    /// Pages (topics).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub pages: u64,
    /// Saved answers (pages of kind `answer`, not counted in `pages`).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub answers: u64,
    /// Names pages link to that no page has.
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
    /// Most recently written first.
    Updated,
}

/// How many topic rows [`Wiki::library`](crate::wiki::Wiki::library) sends with the
/// library; the window asks for the rest as they scroll into view
/// ([`Wiki::library_rows`](crate::wiki::Wiki::library_rows)).
pub const LIBRARY_FIRST_ROWS: usize = 300;

/// How many wanted pages the library lists (the most mentioned; `counts.wanted` says how
/// many there are).
pub const LIBRARY_WANTED_SHOWN: usize = 200;

/// The library: every saved answer and the first [`LIBRARY_FIRST_ROWS`] topic pages in the
/// asked order (told apart by their `kind`), the topics narrowed to a tag when one was asked
/// for, with the counts. A wiki of 100,000 pages opens on its first screen without sending
/// every row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LibraryView {
    /// The counts shown above the list (of the whole wiki, whatever the tag).
    pub counts: CountsView,
    /// Every saved answer, and the first [`LIBRARY_FIRST_ROWS`] topic pages with the asked
    /// tag (of all of them when no tag was asked for; a tag `a` also takes the pages tagged
    /// `a/b`, as `wikimind list --tag` does).
    pub entries: Vec<ListedPage>,
    /// How many topic pages have the asked tag (every topic page when none was asked for):
    /// the length of the list, of which `entries` holds the first rows.
    pub topic_count: u32,
    /// The tag the topics are narrowed to, as the filter reads it (no `#`, no white space
    /// around it); `null` when every topic is listed.
    pub tag: Option<String>,
    /// The tags a person can narrow the topics to: every tag of a topic and every parent
    /// of a nested one, each once (its first spelling), sorted case-insensitively.
    pub tags: Vec<String>,
    /// Names pages link to that no page has, most mentioned first: the first
    /// [`LIBRARY_WANTED_SHOWN`] of them.
    pub wanted: Vec<WantedView>,
    /// The health figures of the last compile run or lint (`null`: none stored yet).
    pub health: Option<HealthPointView>,
}

/// A name that is linked to but has no page yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WantedView {
    /// The name as first linked.
    pub title: String,
    /// How many pages link to it.
    pub mentions: u32,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SearchResult {
    /// The page's id.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// Plain text around the match (never HTML), in pieces: the matched words are the
    /// pieces marked `matched`; markdown `**bold**` stays text.
    pub snippet: Vec<SnippetPart>,
}

/// A piece of a search snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SnippetPart {
    /// Its text (plain text, never HTML; never empty).
    pub text: String,
    /// Whether it is a word the search matched.
    pub matched: bool,
}

/// One key claim of a page or digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ClaimView {
    /// The claim as it reads: its markdown and wiki links as the text they show (`hash`
    /// names the claim as stored).
    pub claim: String,
    /// What a change to this claim names it by ([`crate::store::claim_hash`] of its text):
    /// stable across rewrites that move it, so the window's "remove" can never land on
    /// another claim.
    pub hash: String,
    /// Its confidence after grounding.
    pub confidence: Confidence,
    /// The quote the model gave, if any.
    pub quote: Option<String>,
    /// Whether the quote was found in the source text.
    pub grounded: bool,
    /// Whether it has a quote that was not found (in its sources; for a saved answer's
    /// claim, in the page it cites and that page's sources), so it is not shown as sourced.
    pub quote_not_found: bool,
    /// The sources whose text holds the quote, by id (empty when not grounded).
    pub source_ids: Vec<SourceId>,
    /// For a saved answer's claim, the page it cites (its quote was looked for there and
    /// in that page's sources); `null` for a topic page's or a digest's claims.
    pub cited_page: Option<PageNameView>,
    /// Who wrote it: the model, or a person (never `sourced`, grounds nothing).
    pub author: AuthorKind,
    /// Whether it holds the quote the page was opened for (its quote or its text, read as
    /// the quote fold reads a rendered page); always `false` when no quote was cited.
    pub cited: bool,
    /// Where its quote stands, one passage per citation (each piece of the quote in each
    /// source holding it), as the window shows it on hover or focus; empty for a claim
    /// that cites nothing placed.
    pub passages: Vec<PassageView>,
}

/// A page that links here, with the sentence around the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct BacklinkView {
    /// The linking page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// Plain text around the link, its markdown and wiki links as the text they show.
    pub context: String,
}

/// A link going out of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LinkView {
    /// The name linked to.
    pub target: String,
    /// The page it resolves to (by its title or an alias); `null` for a wanted page.
    pub page_id: Option<PageId>,
}

/// A source's digest feeding a page: the "Sources (N)" panel lists one per source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PageSourceView {
    /// The source's id.
    pub source_id: SourceId,
    /// The digest's id.
    pub article_id: ArticleId,
    /// The digest's title (what that source is about, in its own words).
    pub title: String,
    /// Where the source came from (path, URL, `text:<hash>`).
    pub origin: String,
    /// For a web page that redirected, the URL it was finally read from, as shown beside
    /// its origin: never with `user:password@`, `null` when it did not redirect or reads
    /// as the origin ([`wikimind_text::url::redirect_shown`]).
    pub final_url: Option<String>,
    /// When the digest was compiled (UTC, ISO-8601).
    pub compiled_at: String,
    /// The provider that compiled it.
    pub provider: String,
    /// The model.
    pub model: String,
    /// For a file, its path relative to the folder it was ingested or watched from
    /// (`src/Parser/constructor.md`): what tells apart notes that share a file name, shown
    /// in place of the file name alone. `null` for other sources.
    pub path: Option<String>,
}

/// What one version of a page says, as plain text to compare with another (never HTML).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PageTextView {
    /// Which version.
    pub version: u32,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Its body, as markdown source.
    pub body: String,
    /// Its claims, one line each.
    pub claims: Vec<String>,
}

/// Everything the page screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PageView {
    /// Its id.
    pub id: PageId,
    /// A topic, or a saved answer (titled by its question; no source feeds it).
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// Its summary as it reads (plain text, wiki links as the text they show, as in
    /// [`ListedPage::summary_text`]).
    pub summary: String,
    /// The body as sanitised HTML (from the core's renderer only), wiki links resolved
    /// against pages (titles and aliases): `a.wikilink[data-article-id]` holds a *page* id,
    /// `a.wikilink.wanted[data-wanted]` is a wanted page, `a.external` a web link.
    pub html: String,
    /// Whether `html` marks the quote the page was opened for (`mark.cited-quote`, the
    /// first with the id `wm-cited-quote`); `false` when no quote was cited or the body
    /// does not hold it (a claim may: see [`ClaimView::cited`]).
    pub quote_marked: bool,
    /// Whether the summary holds the quote the page was opened for (read as the quote fold
    /// reads a rendered page); `false` when no quote was cited.
    pub summary_cited: bool,
    /// Whether a digest feeding it was written from an answer that was cut off.
    pub truncated: bool,
    /// The number of its current version.
    pub version: u32,
    /// Whether the current version holds the person's work over the model's last version
    /// (a person wrote a version after it): "revert to compiled" has something to drop.
    pub edited: bool,
    /// Why it waits to be rewritten from its digests (`null`: it is current).
    pub stale_reason: Option<String>,
    /// Why it is marked (`null`: fine): for a topic, why its last rewrite was refused and
    /// the previous version kept; for a saved answer, how many claims did not ground in
    /// the pages they cite.
    pub flagged: Option<String>,
    /// Key claims, each with the sources holding its quote.
    pub claims: Vec<ClaimView>,
    /// Concepts.
    pub concepts: Vec<String>,
    /// Open questions.
    pub open_questions: Vec<String>,
    /// Links going out.
    pub links: Vec<LinkView>,
    /// Pages linking here.
    pub backlinks: Vec<BacklinkView>,
    /// Its other names.
    pub aliases: Vec<String>,
    /// The tags of the notes whose topic it is (without `#`).
    pub tags: Vec<String>,
    /// The digests feeding it, oldest first.
    pub sources: Vec<PageSourceView>,
    /// Every version, oldest first.
    pub history: Vec<ListedVersion>,
    /// The body as written (markdown, for the editor; shown only as `html`).
    pub markdown: String,
    /// The model's texts for sections the person edited, waiting to be accepted or
    /// dismissed.
    pub suggestions: Vec<SuggestionView>,
}

/// A page as a source's screen lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PageRefView {
    /// The page's id.
    pub id: PageId,
    /// Its title.
    pub title: String,
    /// How many sources feed it.
    pub source_count: u32,
    /// Whether it waits to be rewritten.
    pub stale: bool,
}

/// A source's digest: what the last compile of that one source said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct DigestView {
    /// The digest's id.
    pub article_id: ArticleId,
    /// Its title.
    pub title: String,
    /// Its summary as it reads (plain text, wiki links as the text they show, as in
    /// [`ListedPage::summary_text`]).
    pub summary: String,
    /// Its body as sanitised HTML, wiki links resolved against pages (as in [`PageView`]).
    pub html: String,
    /// Whether it was written from a cut-off answer.
    pub truncated: bool,
    /// When it was compiled.
    pub compiled_at: String,
    /// The provider that compiled it.
    pub provider: String,
    /// The model.
    pub model: String,
    /// Its claims (their `source_ids` name this source when grounded).
    pub claims: Vec<ClaimView>,
    /// Its concepts.
    pub concepts: Vec<String>,
    /// Its open questions.
    pub open_questions: Vec<String>,
}

/// Everything the source screen shows: the source, its digest and the pages it feeds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourceDetailView {
    /// The source as listed.
    pub source: SourceView,
    /// Its digest, once compiled.
    pub digest: Option<DigestView>,
}

/// One source in the sources list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourceView {
    /// Its id.
    pub id: SourceId,
    /// Where it came from.
    pub origin: String,
    /// For a web page that redirected, the URL it was finally read from, as shown beside
    /// its origin: never with `user:password@`, `null` when it did not redirect or reads
    /// as the origin ([`wikimind_text::url::redirect_shown`]).
    pub final_url: Option<String>,
    /// `markdown`, `text`, `html`, `url`, …
    pub kind: String,
    /// Its title, if one was found.
    pub title: Option<String>,
    /// Where it is.
    pub status: SourceStatus,
    /// Why it failed.
    pub reason: Option<String>,
    /// Its digest, once compiled.
    pub article_id: Option<ArticleId>,
    /// That digest's title.
    pub article_title: Option<String>,
    /// The pages its digest feeds, by title.
    pub pages: Vec<PageRefView>,
    /// When it last changed.
    pub updated_at: String,
}

/// How many sources the Sources screen lists at once, at most (a window asks for its rows
/// as they scroll into view; the Add screen shows the newest this many).
pub const SOURCES_WINDOW_MAX: u32 = 200;

/// How many sources have each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourceCountsView {
    /// Every source.
    pub all: u32,
    /// Not compiled yet.
    pub pending: u32,
    /// Compiling (or interrupted).
    pub compiling: u32,
    /// Compiled, up to date.
    pub compiled: u32,
    /// Whose last compile failed.
    pub failed: u32,
    /// Changed since compiled.
    pub stale: u32,
}

impl SourceCountsView {
    /// How many sources have `status` (every source for `None`).
    pub fn of(&self, status: Option<SourceStatus>) -> u32 {
        match status {
            None => self.all,
            Some(SourceStatus::Pending) => self.pending,
            Some(SourceStatus::Compiling) => self.compiling,
            Some(SourceStatus::Compiled) => self.compiled,
            Some(SourceStatus::Failed) => self.failed,
            Some(SourceStatus::Stale) => self.stale,
        }
    }
}

/// A window of the sources list: the counts by status and the rows from `offset`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourcesWindowView {
    /// How many sources have each status (the whole wiki, whatever the filter).
    pub counts: SourceCountsView,
    /// How many sources the list holds (those with the asked status, or all).
    pub total: u32,
    /// The index of the first row in the list.
    pub offset: u32,
    /// The rows, at most the asked limit (and [`SOURCES_WINDOW_MAX`]).
    pub rows: Vec<SourceView>,
}

/// A source's full text, to show a quote against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SourceTextView {
    /// Its id.
    pub id: SourceId,
    /// Where it came from.
    pub origin: String,
    /// Its text as stored.
    pub text: String,
}

/// A claim's quote shown in the source that holds it, with the text around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct QuoteView {
    /// The source shown: the first of the claim's sources that holds the quote, else the
    /// first source of the page (or the digest's source).
    pub source_id: SourceId,
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
    pub source_id: SourceId,
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
                        source_id: s.source_id,
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

/// One server of a pool as the settings screen edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PoolMemberForm {
    /// Which protocol.
    pub kind: ProviderKindView,
    /// Base URL (for the built-in engine, the model file's path).
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Calls it takes at once (at least 1).
    pub concurrency: u32,
}

/// What the settings screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SettingsView {
    /// The primary provider (the pool's first member when there is a pool).
    pub provider: ProviderForm,
    /// Fallback providers, one line each (`openai:local at http://…`), edited in the file.
    pub fallbacks: Vec<String>,
    /// The servers of the pool, in order; empty when there is no pool.
    pub pool: Vec<PoolMemberForm>,
    /// Whether an API key is available for the primary provider (keyring or environment).
    pub has_api_key: bool,
    /// Where the wiki lives.
    pub data_dir: String,
    /// The config file read, if any.
    pub config_file: Option<String>,
    /// After applying servers ([`SettingsView::applied`]): what is used now and whether it
    /// was kept in the config file (`Compiling with …; kept in …`), or why it is for this
    /// session only; `null` otherwise.
    pub applied: Option<String>,
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
        let offer = crate::provider_check::BuiltinOffer::of(settings);
        let model_file = offer.model_file;
        let model_dir = offer.model_dir.as_ref().map(|d| d.display().to_string());
        let hint = if !offer.available {
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
            available: offer.available,
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

/// What the app opens on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct OpeningView {
    /// The first-run screen: only for an empty wiki (no source, no article) whose model does
    /// not answer. A wiki with pages always opens on its library.
    pub first_run: bool,
    /// The model's state: when it is not `ok` on a wiki with pages, the app shows its
    /// message as a banner over the library, with the same actions as the first-run screen.
    pub check: ConnectionCheck,
    /// What opening the wiki did that a person should know (an older build's database
    /// upgraded, a backfill that changed data), as [`Wiki::open_for_shell`] reported it:
    /// the window shows them as a banner, as the CLI prints them.
    pub notices: Vec<String>,
    /// Whether the data is being brought up to this version (an upgrade's backfills, run
    /// beside the open window): compiling waits until it is done, then `notices` says what
    /// changed.
    pub upgrading: bool,
    /// While the database itself is being upgraded (the window opens before it, see
    /// [`Wiki::upgrade_ahead`]): what is being done. Nothing reads until it is done; then
    /// this is `null`, and `notices` says what the upgrade did.
    pub database_upgrade: Option<String>,
}

/// Whether a claim with `quote` that did (`grounded`) or did not ground has a quote that
/// was not found: the one rule of the page, digest and answer views.
fn quote_not_found(quote: Option<&str>, grounded: bool) -> bool {
    quote.is_some_and(|q| !q.trim().is_empty()) && !grounded
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

mod ask;
mod health;
mod jobs;
mod ops;
mod passages;
mod settings;
mod writing;

pub use ask::{AnswerClaimView, AnswerView, AskProgress, PageNameView};
pub use health::{
    CheckGroupView, FindingView, HealthPageView, HealthPointView, HealthView, MergeProposalView,
    HEALTH_FINDINGS_SHOWN, HEALTH_FINDINGS_WINDOW_MAX, TREND_POINTS,
};

pub use crate::queue::PoolShare;
pub use jobs::{job_list, page_outcome_text, JobKindView, JobProgress, StageView};
pub use passages::{
    CitationPageView, HighlightBox, PassageView, PAGE_IMAGE_MAX_BYTES, PAGE_IMAGE_SIDE,
    PAGE_IMAGE_SMALL_SIDE, PASSAGE_CONTEXT_CHARS, PASSAGE_QUOTE_CHARS,
};
pub use settings::{
    check_connection, check_form, opening, opening_before_the_wiki, with_pool, with_primary,
};
pub use writing::{EditedView, LinkNameView, NoteItemView, NoteView, SuggestionView};

#[cfg(test)]
mod tests;
