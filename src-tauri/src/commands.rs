//! The command surface, declared once.
//!
//! `define_commands!` turns each line into a Tauri command (registered by
//! [`invoke_handler`]) and into an entry of [`signatures`], from which the TypeScript
//! client in `ui/src/bindings.ts` is generated. A renamed command or argument is then a
//! compile error on both sides. Every body is one call into the core through the [`Host`].

use tauri::State;
use wikimind::graph::{GraphFilter, GraphHit, GraphNodeDetail, GraphView};
use wikimind::lint::Asked;
use wikimind::view::{
    self, AnswerView, CitationPageView, CompilationView, ConnectionCheck, EditedView, FindingView,
    HealthView, IngestView, JobProgress, LibrarySort, LibraryView, LinkNameView, ListedPage,
    NoteItemView, NoteView, OpeningView, PageTextView, PageView, PoolMemberForm, PoolShare,
    ProviderForm, QuoteView, SearchResult, SettingsView, SourceDetailView, SourcesWindowView,
};
use wikimind::{PageId, SourceId, SourceStatus};

use wikimind::watch::WatchedView;

use crate::door::Door;
use crate::host::Host;

/// One command as the TypeScript generator sees it.
#[derive(Debug, Clone)]
pub struct CommandSignature {
    /// The command's name (also the generated function's).
    pub name: &'static str,
    /// Its documentation.
    pub doc: &'static str,
    /// Argument names with their TypeScript types.
    pub args: Vec<(&'static str, String)>,
    /// The TypeScript type it resolves to.
    pub returns: String,
}

macro_rules! define_commands {
    ($(
        $(#[doc = $doc:literal])+
        fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty = $($door:ident)? |$host:ident| $body:expr;
    )*) => {
        /// The Tauri command functions, one per declared command.
        pub mod handlers {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $doc])+
                #[tauri::command(rename_all = "snake_case")]
                pub async fn $name(state: State<'_, Door>, $($arg: $ty),*) -> Result<$ret, String> {
                    enter!($($door)? state => $host);
                    into_wire($body)
                }
            )*
        }

        /// Registers every declared command with the app.
        pub fn invoke_handler<R: tauri::Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$(handlers::$name),*]
        }

        /// Every declared command, for the TypeScript generator.
        pub fn signatures() -> Vec<CommandSignature> {
            vec![$(CommandSignature {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),+),
                args: vec![$((stringify!($arg), ts_name::<$ty>())),*],
                returns: ts_name::<$ret>(),
            }),*]
        }
    };
}

/// Binds what a command's body works with: the [`Host`], waiting while the wiki is being
/// opened; with `door`, the [`Door`] itself, for the commands that answer before that.
macro_rules! enter {
    (door $state:ident => $name:ident) => {
        let $name: &Door = &$state;
    };
    ($state:ident => $name:ident) => {
        let $name: &Host = $state.host().await?;
    };
}

/// Turns what a core call returned into what crosses the wire: the value, or the error's
/// message (errors are strings on the wire; their text says what to do).
fn into_wire<T, E: std::fmt::Display>(result: impl IntoWire<T, E>) -> Result<T, String> {
    result.into_wire()
}

/// Core calls return either a value or a `Result`; both cross the wire the same way.
trait IntoWire<T, E> {
    fn into_wire(self) -> Result<T, String>;
}

impl<T, E: std::fmt::Display> IntoWire<T, E> for Result<T, E> {
    fn into_wire(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// A plain value (the call cannot fail).
pub struct Infallible<T>(T);

impl<T> IntoWire<T, std::convert::Infallible> for Infallible<T> {
    fn into_wire(self) -> Result<T, String> {
        Ok(self.0)
    }
}

/// The TypeScript name of a type as it crosses the wire: 64-bit integers travel as JSON
/// numbers (ids stay far below 2^53), not as `bigint`.
pub(crate) fn ts_name<T: ts_rs::TS>() -> String {
    T::name().replace("bigint", "number")
}

/// A byte offset from the wire (`usize::MAX` when it does not fit: refused by the core as
/// out of the text).
fn to_offset(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Runs a core call that waits on another process (Poppler rendering a page, up to its time
/// limit) on a thread of its own, so the command runtime's threads stay free meanwhile.
async fn off_the_runtime<T: Send + 'static>(
    h: &Host,
    call: impl FnOnce(&wikimind::wiki::Wiki) -> wikimind::wiki::Result<T> + Send + 'static,
) -> Result<T, String> {
    let wiki = h.wiki.clone();
    tokio::task::spawn_blocking(move || call(&wiki).map_err(|e| e.to_string()))
        .await
        .map_err(|e| format!("the work stopped before it ended: {e}"))?
}

/// Asks the system to open a file the core checked (`path`) with its default application.
/// Opened here rather than by the window, so the window needs no permission to open paths.
fn open_in_system(path: wikimind::wiki::Result<std::path::PathBuf>) -> Result<bool, String> {
    let path = path.map_err(|e| e.to_string())?;
    tauri_plugin_opener::open_path(&path, None::<&str>)
        .map_err(|e| format!("the system could not open {}: {e}", path.display()))?;
    Ok(true)
}

define_commands! {
    /// The library in the asked order (every saved answer and the first topic rows), the
    /// topics narrowed to `tag` when one is given (`null`: every topic), with the tags to
    /// choose from, counts and the most mentioned wanted pages.
    fn library(sort: LibrarySort, tag: Option<String>) -> LibraryView = |h| h.wiki.library(sort, tag.as_deref());
    /// The library's topic rows from `offset` on (at most `limit`), in the order and
    /// narrowed as `library` lists them: asked for as rows scroll into view.
    fn library_rows(sort: LibrarySort, tag: Option<String>, offset: u32, limit: u32) -> Vec<ListedPage> =
        |h| h.wiki.library_rows(sort, tag.as_deref(), offset as usize, limit as usize);
    /// Full-text search over pages, best first.
    fn search(query: String) -> Vec<SearchResult> = |h| h.wiki.search_view(&query);
    /// One page, its body rendered by the core's sanitiser, with its sources and history;
    /// opened from a citation, with the cited `quote` marked where the page holds it.
    fn page(id: PageId, quote: Option<String>) -> Option<PageView> =
        |h| h.wiki.page_view_citing(id, quote.as_deref());
    /// The id of the page a name leads to (title, alias, other spelling, former title).
    fn page_id_by_name(name: String) -> Option<PageId> = |h| h.wiki.page_id_by_name(&name);
    /// What one version of a page says, as text to compare with another.
    fn page_text(id: PageId, version: u32) -> Option<PageTextView> = |h| h.wiki.page_text_view(id, version);
    /// Restores an earlier version of a page as a new version by the person; the page now.
    fn restore_page_version(id: PageId, version: u32) -> Option<PageView> = |h| h.wiki.restore_page_view(id, version);
    /// A window of the sources list (oldest first, or newest first), only those with
    /// `status` when given, with the counts by status.
    fn sources_window(status: Option<SourceStatus>, newest_first: bool, offset: u32, limit: u32) -> SourcesWindowView =
        |h| h.wiki.sources_window(status, newest_first, offset, limit);
    /// One source with its digest and the pages it feeds.
    fn source(id: SourceId) -> Option<SourceDetailView> = |h| h.wiki.source_detail_view(id);
    /// Where a page claim's quote is in the sources that hold it, with the text around it.
    fn quote(page_id: PageId, quote: String) -> Option<QuoteView> = |h| h.wiki.quote_view(page_id, &quote);
    /// Where a digest claim's quote is in that digest's source.
    fn digest_quote(source_id: SourceId, quote: String) -> Option<QuoteView> = |h| h.wiki.digest_quote_view(source_id, &quote);
    /// A PDF citation's page rendered by the core as an image, with the quote's words
    /// highlighted: the citation is bytes `start..end` of the source's stored text (a
    /// passage's `start` and `end`).
    fn citation_page(source_id: SourceId, start: u64, end: u64) -> CitationPageView =
        |h| off_the_runtime(h, move |wiki| wiki.citation_page_image(source_id, to_offset(start), to_offset(end))).await;
    /// Opens a cited PDF in the system's viewer (the file as it is on disk; not every
    /// viewer is told the page). Resolves to true once the viewer was asked.
    fn open_cited_file(source_id: SourceId) -> bool = |h| open_in_system(h.wiki.cited_pdf(source_id));
    /// A source's compile log with the raw answers.
    fn compilations(source_id: SourceId) -> Vec<CompilationView> = |h| h.wiki.compilation_views(source_id);
    /// Stores pasted text.
    fn add_text(text: String, title: Option<String>) -> IngestView = |h| Infallible(h.wiki.ingest_text_view(&text, title.as_deref()));
    /// Stores files and folders (picked, dropped or typed).
    fn add_paths(paths: Vec<String>) -> IngestView = |h| Infallible(h.wiki.ingest_paths_view(&paths));
    /// Downloads a web page and stores its readable text.
    fn add_url(url: String) -> IngestView = |h| Infallible(h.wiki.ingest_url_view(&url).await);
    /// Asks for the wanted page `name`: it becomes a topic written from the sources that
    /// mention it, its page job queued (a person's request; never made on its own).
    fn ask_for_page(name: String) -> Asked = |h| h.wiki.ask_for_page_view(&name);
    /// The wiki's health: one lint run (stored for the trend), findings grouped by check.
    fn health() -> HealthView = |h| h.wiki.health_view();
    /// More findings of one check, from `offset` (the Health screen is sent the first ones).
    fn health_findings(check: String, offset: u32, limit: u32) -> Vec<FindingView> =
        |h| h.wiki.health_findings(&check, offset, limit);
    /// Dismisses a finding by its id (a merge proposal: rejects it), remembered after
    /// recompiles too; the Health screen after.
    fn dismiss_finding(id: String) -> HealthView = |h| h.wiki.dismiss_finding_view(&id);
    /// Accepts the merge proposal `id`: the one merge, the merged page's job queued; the
    /// Health screen after.
    fn accept_merge(id: String) -> HealthView = |h| h.wiki.accept_merge_view(&id);
    /// Applies the safe fixes (as `wikimind lint --fix`); the Health screen after.
    fn fix_health() -> HealthView = |h| h.wiki.fix_health_view();
    /// Removes a source; the pages it fed are rewritten from the others or go.
    fn remove_source(id: SourceId) -> bool = |h| h.wiki.remove_source(id);
    /// Queues sources (all pending, failed and stale ones when the list is empty), with
    /// another model when `model` is given. Resolves to how many were queued.
    fn compile(source_ids: Vec<SourceId>, model: Option<String>) -> u32 = |h| h.compile(&source_ids, model.as_deref());
    /// Stops a source's waiting or running job (also one another process runs).
    fn cancel(source_id: SourceId) -> bool = |h| h.queue.cancel(source_id);
    /// Stops a page's waiting or running job; the page stays as it is until one of its
    /// sources changes.
    fn cancel_page(page_id: PageId) -> bool = |h| h.queue.cancel_page(page_id);
    /// The newest jobs, whoever runs them: live progress for this app's, the queue's
    /// state for other processes'.
    fn jobs() -> Vec<JobProgress> = |h| wikimind::view::job_list(&h.queue);
    /// The current settings.
    fn settings() -> SettingsView = door |d| Infallible(d.settings_view());
    /// Uses another primary provider from now on.
    fn apply_provider(form: ProviderForm) -> SettingsView = |h| h.apply_provider(&form);
    /// Spreads compiles over these servers from now on (none: no pool, one server again).
    fn apply_pool(members: Vec<PoolMemberForm>) -> SettingsView = |h| h.apply_pool(&members);
    /// Each pool member's state and what it did since the pool was set (empty without one).
    fn pool() -> Vec<PoolShare> = |h| Infallible(h.queue.pool_shares());
    /// What the app opens on: the first-run screen (an empty wiki with no model) or the
    /// library, with the model's state; at once while the wiki's database is being upgraded
    /// (`database_upgrade` says so).
    fn opening() -> OpeningView = door |d| d.opening_view().await;
    /// Asks a provider (the form's, not yet applied) for its models.
    fn check_connection(form: ProviderForm) -> ConnectionCheck = |h| Infallible(view::check_form(&h.queue.settings(), &form, &*h.keys).await);
    /// Stores an API key in the OS keyring for the form's server.
    fn save_api_key(form: ProviderForm, key: String) -> SettingsView = |h| h.save_api_key(&form, &key);
    /// Answers a question from the wiki's pages, its progress sent as ASK_EVENT events while
    /// the model answers; with `save`, keeps the answer as a page of kind `answer`. Asking
    /// again stops a question still being answered.
    fn ask(question: String, save: bool) -> AnswerView = |h| h.ask(&question, save).await;
    /// Stops the question being answered; false when none is.
    fn cancel_ask() -> bool = |h| Infallible(h.cancel_ask());
    /// Keeps the last answer (to `question`) as a page of kind `answer` without asking the
    /// model again.
    fn save_answer(question: String) -> AnswerView = |h| h.save_answer(&question);
    /// Every note written in the wiki, by title.
    fn notes() -> Vec<NoteItemView> = |h| h.wiki.notes_view();
    /// A note with its text.
    fn note(note_id: String) -> NoteView = |h| h.wiki.note_view(&note_id);
    /// Writes a new note (it waits to be compiled).
    fn new_note(title: Option<String>, text: String) -> NoteItemView = |h| h.wiki.new_note_view(title.as_deref(), &text);
    /// Saves a note's text: changed text marks a compiled note stale.
    fn save_note(note_id: String, text: String) -> NoteItemView = |h| h.wiki.save_note_view(&note_id, &text);
    /// Renames a note (its id, source and pages stay).
    fn rename_note(note_id: String, title: String) -> NoteItemView = |h| h.wiki.rename_note_view(&note_id, &title);
    /// Removes a note: its contributions leave the pages it fed.
    fn remove_note(note_id: String) -> bool = |h| h.wiki.remove_note_view(&note_id);
    /// Markdown as sanitised HTML, by the renderer pages use (the editor's preview).
    fn preview(markdown: String) -> String = |h| Infallible(h.wiki.preview_view(&markdown));
    /// The wiki's graph narrowed by `filter`, at the stored layout's positions (packed by
    /// column; above the filter's limit, the most linked nodes: the overview).
    fn graph(filter: GraphFilter) -> GraphView = |h| h.wiki.graph(&filter);
    /// The local graph of page `id`: the nodes within `depth` (1 to 3) links of it, both ways.
    fn local_graph(id: PageId, depth: u32, show_wanted: bool) -> GraphView = |h| h.wiki.local_graph(id, depth, show_wanted);
    /// Graph nodes whose title matches `query`, best first, with where they sit.
    fn graph_search(query: String) -> Vec<GraphHit> = |h| h.wiki.graph_search(&query);
    /// A page's title and summary, for the graph node under the pointer or the focus.
    fn graph_node(id: PageId) -> Option<GraphNodeDetail> = |h| h.wiki.graph_node_detail(id);
    /// Every page title and alias, for `[[` completion.
    fn link_names() -> Vec<LinkNameView> = |h| h.wiki.link_names_view();
    /// Saves a page's body, an edit made on `on_version`: merged section by section when a
    /// newer version landed meanwhile.
    fn edit_page(id: PageId, on_version: u32, body: String) -> EditedView = |h| h.wiki.edit_page_view(id, on_version, &body);
    /// Puts the model's suggested text in place of the section it is for.
    fn accept_suggestion(id: PageId, suggestion: i64) -> PageView = |h| h.wiki.accept_suggestion_view(id, suggestion);
    /// Drops a suggestion.
    fn dismiss_suggestion(id: PageId, suggestion: i64) -> PageView = |h| h.wiki.dismiss_suggestion_view(id, suggestion);
    /// Adds a claim of the person's own to a page (never sourced).
    fn add_claim(id: PageId, text: String) -> PageView = |h| h.wiki.add_claim_view(id, &text);
    /// Removes a page's claim, named by its hash (`ClaimView.hash`: a rewrite since the
    /// page was shown cannot move the removal onto another claim); it stays removed when
    /// the page is written again.
    fn remove_claim(id: PageId, hash: String) -> PageView = |h| h.wiki.remove_claim_view(id, &hash);
    /// Renames a page; its old title stays as an alias.
    fn rename_page(id: PageId, title: String) -> PageView = |h| h.wiki.rename_page_view(id, &title);
    /// Drops the person's edits, claims and suggestions: the last compiled version again.
    fn revert_page(id: PageId) -> PageView = |h| h.wiki.revert_page_view(id);
    /// The watched folders (watched while the app is open, unless a `wikimind watch`
    /// watches the wiki), each with its state, and the last change handled.
    fn watched_folders() -> WatchedView = |h| h.watch.view();
    /// Saves a folder as watched: what it holds is ingested and compiled, and its changes
    /// from now on. Its state arrives as WATCH_EVENT events.
    fn add_watched_folder(path: String) -> WatchedView = |h| h.watch.add(std::path::Path::new(&path));
    /// Stops watching a folder and takes it off the list; its sources stay.
    fn remove_watched_folder(path: String) -> WatchedView = |h| h.watch.remove(std::path::Path::new(&path));
}

#[cfg(test)]
mod tests {
    /// Every declared command has a permission (build.rs lists it for Tauri's access
    /// control) and the main window is granted it by name, and nothing else is listed.
    #[test]
    fn every_command_is_declared_to_tauri_and_granted_by_name() {
        let declared: Vec<&str> = super::signatures().iter().map(|s| s.name).collect();
        let build = include_str!("../build.rs");
        let list = build
            .split("const COMMANDS: &[&str] = &[")
            .nth(1)
            .and_then(|rest| rest.split("];").next())
            .expect("build.rs lists COMMANDS");
        let in_build: Vec<&str> = list
            .split(',')
            .map(|s| s.trim().trim_matches('"'))
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(
            in_build, declared,
            "build.rs COMMANDS and commands.rs differ"
        );
        let capability: serde_json::Value =
            serde_json::from_str(include_str!("../capabilities/main-window.json")).unwrap();
        let granted: Vec<String> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.as_str())
            .filter(|p| !p.contains(':'))
            .map(str::to_string)
            .collect();
        let wanted: Vec<String> = declared
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-")))
            .collect();
        assert_eq!(granted, wanted);
    }
}
