//! WikiMind's core library: turns raw sources into an interlinked wiki.
//!
//! The one path: `ingest` reads a source, `compile` asks a model (through `llm`) for a
//! [`contract::CompilationResult`] and checks it with [`structured`], `store` keeps the
//! article with its claims, concepts and links in SQLite, and `render` turns it into
//! sanitised HTML. This crate knows nothing of Tauri or clap: the CLI and the desktop app
//! are thin shells over it.
#![deny(missing_docs)]

/// The contracts with the model: the records an answer becomes, and their schemas.
pub use wikimind_contract as contract;

/// The structured output engine (extraction, repair, validation, coercion, streaming).
pub use wikimind_structured as structured;

/// The text rules every layer shares (keys, the quote fold, URLs, hashes).
pub use wikimind_text as text;

/// The readers of documents (HTML, PDF, EPUB, DOCX) into markdown with page boundaries.
pub use wikimind_documents as documents;

/// Model providers (Ollama, OpenAI-compatible, the built-in engine), streamed.
pub use wikimind_llm as llm;

/// SQLite: the wiki's tables, queries, transactions and migrations. Shells never name it
/// (`scripts/check-doors.py`): what they need of it is a [`Wiki`](wiki::Wiki) operation, and
/// the records those return are re-exported below.
pub use wikimind_store as store;

/// The records a shell names: ids, kinds and statuses, and the rows `Wiki` operations
/// return (a search hit, a page's claim, the wiki's counts).
pub use wikimind_store::{
    ArticleDetail, ArticleId, AuthorKind, JobId, JobSettings, JobState, JobTarget, Landed,
    PageClaim, PageCounts, PageHit, PageId, PageKind, PageSummary, SourceId, SourceKind,
    SourceStatus, WantedPage, WhichClaim, DATABASE_FILE, MATCH_END, MATCH_START,
};

pub mod ask;
pub mod backfill;
pub mod compile;
pub mod compile_run;
/// Settings: the config file, the environment and flags (crate `wikimind-config`).
pub use wikimind_config as config;
pub mod export;
pub mod graph;
pub mod identity;
#[cfg(test)]
use wikimind_text::hostile as hostile_text;
pub mod ingest;
pub mod lint;
pub mod markdown;
pub mod note_links;
pub mod provider_check;
pub mod queue;
pub mod reading;
pub mod render;
pub mod session;
pub mod terminal;
#[cfg(any(test, feature = "test-support"))]
pub mod test_settings;
pub use wikimind_engine::topic;
pub mod view;
pub mod watch;
pub mod wiki;
pub mod writing;
