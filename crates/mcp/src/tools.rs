//! The tools: their names and argument types (the contract outside scripts rely on), the
//! schemas derived from those types, and one function per tool that answers a call with
//! the core's markdown and data.

use std::fmt::Write as _;

use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use wikimind::ask::AskOptions;
use wikimind::compile::{PageOutcome, ProgressFn};
use wikimind::compile_run::CompilePlan;
use wikimind::config::Settings;
use wikimind::ingest::Reach;
use wikimind::llm::CancellationToken;
use wikimind::markdown::{
    ask_markdown, bold_matches, page_list_markdown, page_markdown, search_markdown, shown_query,
};
use wikimind::queue::JobRunner;
use wikimind::reading::{ShownPage, PAGE_WINDOW_DEFAULT, PAGE_WINDOW_MAX};
use wikimind::wiki::{IngestSummary, Wiki};

use super::progress::{stage, Progress};
use super::{page_uri, Answer};

/// Full-text search over pages.
pub const SEARCH: &str = "search";
/// One page with everything on it.
pub const READ_PAGE: &str = "read_page";
/// The pages by title, a window at a time.
pub const LIST_PAGES: &str = "list_pages";
/// A question answered from the pages, each claim citing its page.
pub const ASK: &str = "ask";
/// The wiki's health: `wikimind lint`'s findings (read-only: no fix, no dismissal).
pub const LINT: &str = "lint";
/// A page's neighbourhood in the graph: its links both ways with their contexts, and the
/// pages within a few links.
pub const GRAPH_NEIGHBOURS: &str = "graph_neighbours";
/// Ingest text or a web page and compile it (only with `--allow-write`).
pub const ADD_SOURCE: &str = "add_source";

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words to look for in page titles, summaries and bodies: every word must occur (the
    /// last may be the start of a word). A page's name or alias puts that page first.
    query: String,
}

/// Arguments of `read_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadPageArgs {
    /// The page's title or one of its aliases; case, accents, punctuation and plurals do
    /// not matter.
    title: String,
}

/// Arguments of `list_pages`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListPagesArgs {
    /// Where to start in the list by title: 0 (the default) is the first page; a listing
    /// that stops early says the offset of the next window.
    #[serde(default)]
    offset: Option<usize>,
    /// How many pages to list: 50 by default, at most 500.
    #[serde(default)]
    limit: Option<usize>,
}

/// Arguments of `ask`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AskArgs {
    /// The question, in words: it is answered from the pages its words find.
    question: String,
}

/// Arguments of `lint`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LintArgs {
    /// The checks to run (all when left out): broken_link, wanted, orphan, stale,
    /// ungrounded, duplicate, thin.
    #[serde(default)]
    checks: Option<Vec<String>>,
}

/// Arguments of `graph_neighbours`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GraphNeighboursArgs {
    /// The page's title or one of its aliases.
    title: String,
    /// How many links deep to list the pages around it: 1 (the default) to 3.
    #[serde(default)]
    depth: Option<u32>,
}

/// Arguments of `add_source`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddSourceArgs {
    /// The text to add (notes, an article, markdown). Give this or `url`.
    #[serde(default)]
    text: Option<String>,
    /// An http(s) web page to download and add. Give this or `text`.
    #[serde(default)]
    url: Option<String>,
    /// A title for `text` (a web page keeps its own).
    #[serde(default)]
    title: Option<String>,
}

/// The tool names, in the order they are listed.
pub fn names(write: bool) -> Vec<&'static str> {
    let mut names = vec![SEARCH, READ_PAGE, LIST_PAGES, ASK, LINT, GRAPH_NEIGHBOURS];
    if write {
        names.push(ADD_SOURCE);
    }
    names
}

/// The tools this server offers: `add_source` only when it may write.
pub fn list(write: bool) -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    let mut tools = vec![
        Tool::new(
            SEARCH,
            "Full-text search over the wiki's pages. Returns the best pages first (at most \
             50), each with a snippet where matched words are in **bold**.",
            serde_json::Map::new(),
        )
        .with_input_schema::<SearchArgs>()
        .with_title("Search the wiki")
        .with_annotations(read_only.clone()),
        Tool::new(
            READ_PAGE,
            "Read one wiki page as markdown: its summary and body, its key claims (each with \
             its confidence — sourced, inferred or opinion — the quote it rests on and the \
             sources holding that quote), concepts, open questions, links, backlinks and \
             sources.",
            serde_json::Map::new(),
        )
        .with_input_schema::<ReadPageArgs>()
        .with_title("Read a page")
        .with_annotations(read_only.clone()),
        Tool::new(
            LIST_PAGES,
            format!(
                "List the wiki's pages by title with their kind, how many sources feed each \
                 and their summary, {PAGE_WINDOW_DEFAULT} at a time by default (at most \
                 {PAGE_WINDOW_MAX}); says the total and the offset of the next window."
            ),
            serde_json::Map::new(),
        )
        .with_input_schema::<ListPagesArgs>()
        .with_title("List pages")
        .with_annotations(read_only),
        Tool::new(
            ASK,
            "Ask the wiki a question: it is answered by the model from the pages the \
             question's words find (and the pages they link to), each claim citing its page \
             with a quote that is checked against that page and its sources. Says so when no \
             page covers the question. Takes as long as the model needs.",
            serde_json::Map::new(),
        )
        .with_input_schema::<AskArgs>()
        .with_title("Ask the wiki")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(false)
                .open_world(false),
        ),
        Tool::new(
            LINT,
            "Check the wiki's health, as `wikimind lint` does (no model call, nothing \
             changed): broken links, wanted pages, orphan pages, stale sources and pages, \
             claims that no longer ground in their sources, duplicate topics (merge \
             proposals) and thin pages, with the health figures. Findings a person \
             dismissed are left out.",
            serde_json::Map::new(),
        )
        .with_input_schema::<LintArgs>()
        .with_title("Check the wiki's health")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            GRAPH_NEIGHBOURS,
            "A page's neighbourhood in the wiki's graph: the pages it links to and the pages \
             linking to it, each with the sentence around the link, and (with `depth` 2 or 3) \
             every page within that many links either way. Wanted pages (names no page has \
             yet) are marked.",
            serde_json::Map::new(),
        )
        .with_input_schema::<GraphNeighboursArgs>()
        .with_title("A page's neighbours")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
    ];
    if write {
        tools.push(
            Tool::new(
                ADD_SOURCE,
                "Add a source to the wiki — pasted `text` (with an optional `title`) or a web \
                 page's `url` — and compile it now: its digest is written and the pages it \
                 feeds are created or rewritten. Takes as long as the model needs.",
                serde_json::Map::new(),
            )
            .with_input_schema::<AddSourceArgs>()
            .with_title("Add a source")
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(false)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(true),
            ),
        );
    }
    tools
}

/// The arguments of `tool` as `T`, or an error saying what is wrong and what it takes.
fn arguments<T: DeserializeOwned>(tool: &str, value: Value, takes: &str) -> Result<T, Answer> {
    serde_json::from_value(value)
        .map_err(|e| Answer::error(format!("{tool}: wrong arguments ({e}); it takes {takes}")))
}

/// Runs `search`.
pub fn search(wiki: &Wiki, value: Value) -> Answer {
    let args: SearchArgs = match arguments(SEARCH, value, "`query`, a string of words") {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    if args.query.trim().is_empty() {
        return Answer::error("search: `query` is empty: give it the words to look for");
    }
    let hits = match wiki.search(&args.query) {
        Ok(hits) => hits,
        Err(e) => return Answer::error(e.to_string()),
    };
    let mut text = search_markdown(&args.query, &hits);
    if hits.is_empty() {
        text.push_str("\nTry fewer or other words, or browse the titles with `list_pages`.\n");
    } else {
        text.push_str("\nRead a page with `read_page` and its title.\n");
    }
    let hits: Vec<Value> = hits
        .iter()
        .map(|h| {
            json!({
                "page_id": h.page_id,
                "title": h.title,
                "snippet": bold_matches(&h.snippet),
                "uri": page_uri(&h.title),
            })
        })
        .collect();
    Answer::ok(
        text,
        json!({ "query": shown_query(&args.query), "hits": hits }),
    )
}

/// Runs `read_page`.
pub fn read_page(wiki: &Wiki, value: Value) -> Answer {
    let args: ReadPageArgs = match arguments(READ_PAGE, value, "`title`, a string") {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    let page = match find_page(wiki, &args.title) {
        Ok(page) => page,
        Err(message) => return Answer::error(message),
    };
    let mut data = serde_json::to_value(&page).unwrap_or(Value::Null);
    if let Some(object) = data.as_object_mut() {
        object.insert("uri".into(), page_uri(&page.title).into());
    }
    Answer::ok(page_markdown(&page), data)
}

/// The page a person or model names by title or alias, or a message saying there is none
/// and where to look (the pages whose text mentions the name, when some do).
pub fn find_page(wiki: &Wiki, title: &str) -> Result<ShownPage, String> {
    let found = match wiki.find_page(title).map_err(|e| e.to_string())? {
        Some(id) => wiki.shown_page(id).map_err(|e| e.to_string())?,
        None => None,
    };
    found.ok_or_else(|| {
        let mut message = format!(
            "no page titled {title:?}; search with the `search` tool or list the titles with \
             `list_pages`"
        );
        let mentions: Vec<String> = wiki
            .search(title)
            .unwrap_or_default()
            .into_iter()
            .take(5)
            .map(|h| format!("{:?}", h.title))
            .collect();
        if !mentions.is_empty() {
            let _ = write!(message, " (pages that mention it: {})", mentions.join(", "));
        }
        message
    })
}

/// Runs `graph_neighbours`: the links both ways with their contexts as markdown, and
/// `{title, links, backlinks, within}` as data.
pub fn graph_neighbours(wiki: &Wiki, value: Value) -> Answer {
    let takes = "`title`, a string, and an optional `depth` of 1 to 3";
    let args: GraphNeighboursArgs = match arguments(GRAPH_NEIGHBOURS, value, takes) {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    let depth = args.depth.unwrap_or(1);
    let page = match find_page(wiki, &args.title) {
        Ok(page) => page,
        Err(message) => return Answer::error(message),
    };
    let local = match wiki.local_graph(page.id, depth, true) {
        Ok(local) => local,
        Err(e) => return Answer::error(format!("{GRAPH_NEIGHBOURS}: {e}")),
    };
    let mut text = format!("# Around {}\n\n## Links from this page\n\n", page.title);
    if page.links.is_empty() {
        text.push_str("None.\n");
    }
    for link in &page.links {
        let wanted = if link.page_id.is_none() {
            " (wanted: no page yet)"
        } else {
            ""
        };
        let _ = writeln!(text, "- **{}**{wanted}: {}", link.target, link.context);
    }
    text.push_str("\n## Links to this page\n\n");
    if page.backlinks.is_empty() {
        text.push_str("None.\n");
    }
    for link in &page.backlinks {
        let _ = writeln!(text, "- **{}**: {}", link.title, link.context);
    }
    let within: Vec<Value> = (0..local.titles.len())
        .filter(|&i| Some(i as u32) != local.centre)
        .map(|i| {
            json!({
                "title": local.titles[i],
                "label": local.label(i),
                "page_id": local.page_ids[i],
                "kind": local.kinds[i],
                "links": local.sizes[i],
            })
        })
        .collect();
    if depth > 1 {
        let _ = write!(text, "\n## Within {depth} links\n\n");
        for node in &within {
            let _ = writeln!(text, "- {}", node["label"].as_str().unwrap_or_default());
        }
    }
    let links: Vec<Value> = page
        .links
        .iter()
        .map(|l| json!({ "target": l.target, "page_id": l.page_id, "context": l.context }))
        .collect();
    let backlinks: Vec<Value> = page
        .backlinks
        .iter()
        .map(|l| json!({ "title": l.title, "page_id": l.page_id, "context": l.context }))
        .collect();
    Answer::ok(
        text,
        json!({ "title": page.title, "depth": depth, "links": links, "backlinks": backlinks, "within": within }),
    )
}

/// Runs `list_pages`.
pub fn list_pages(wiki: &Wiki, value: Value) -> Answer {
    let args: ListPagesArgs = match arguments(
        LIST_PAGES,
        value,
        "optional `offset` and `limit`, whole numbers of 0 or more",
    ) {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    let window = match wiki.page_window(args.offset.unwrap_or(0), args.limit) {
        Ok(window) => window,
        Err(e) => return Answer::error(e.to_string()),
    };
    let mut text = page_list_markdown(&window);
    if let Some(next) = window.next_offset {
        let _ = write!(
            text,
            "\nMore pages: call `list_pages` with `offset` {next} for the next ones.\n"
        );
    }
    let data = serde_json::to_value(&window).unwrap_or(Value::Null);
    Answer::ok(text, data)
}

/// Runs `lint`: the findings as markdown, and `{summary, findings}` as data.
pub fn lint(wiki: &Wiki, value: Value) -> Answer {
    let takes = "optional `checks`, a list of check names (broken_link, wanted, orphan, \
                 stale, ungrounded, duplicate, thin)";
    let args: LintArgs = match arguments(LINT, value, takes) {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    let mut checks = Vec::new();
    for name in args.checks.unwrap_or_default() {
        match wikimind::lint::Check::parse(&name) {
            Some(check) => checks.push(check),
            None => {
                return Answer::error(format!("lint: no check named {name:?}; it takes {takes}"))
            }
        }
    }
    let report = match wikimind::lint::lint(wiki, &wikimind::lint::LintOptions { checks }) {
        Ok(report) => report,
        Err(e) => return Answer::error(e.to_string()),
    };
    let s = &report.summary;
    let mut text = format!(
        "# Wiki health\n\n{} pages, {} links ({}% resolve); {} error(s), {} warning(s), {} info",
        s.pages, s.links, s.link_resolution, s.errors, s.warnings, s.infos
    );
    if s.dismissed > 0 {
        let _ = write!(text, " ({} dismissed by the wiki's owner)", s.dismissed);
    }
    text.push_str("\n\n");
    if report.findings.is_empty() {
        text.push_str("No findings.\n");
    }
    for f in &report.findings {
        let _ = writeln!(
            text,
            "- **{}** `{}` ({}): {}",
            f.severity.as_str(),
            f.check.as_str(),
            f.id,
            f.message
        );
    }
    let data = serde_json::to_value(&report).unwrap_or(Value::Null);
    Answer::ok(text, data)
}

/// Runs `ask`: the answer is not saved as a page (the server only reads, unless
/// `add_source` is on, and even then a question asked by a model is not kept).
pub async fn ask(
    wiki: &Wiki,
    settings: &Settings,
    value: Value,
    cancel: &CancellationToken,
    progress: Progress,
) -> Answer {
    let args: AskArgs = match arguments(ASK, value, "`question`, a string") {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    if args.question.trim().is_empty() {
        return Answer::error("ask: `question` is empty: ask about something the wiki holds");
    }
    let events = move |p: wikimind::compile::Progress| {
        if let Some(doing) = stage(p.stage.into(), &p.provider, p.attempt, None) {
            progress.say(format!("answering: {doing}"));
        }
    };
    let events: &ProgressFn = &events;
    let asked = wiki.ask(
        settings,
        &args.question,
        AskOptions::default(),
        events,
        cancel,
    );
    let report = match asked.await {
        Ok(report) => report,
        Err(e) => return Answer::error(format!("ask: {e}")),
    };
    if let Some(reason) = &report.error {
        return Answer::error(format!("ask: no valid answer could be had: {reason}"));
    }
    let mut text = ask_markdown(&report);
    if !report.covered {
        text.push_str("\nSee what the wiki holds with `search` (other words) or `list_pages`.\n");
    }
    Answer::ok(text, serde_json::to_value(&report).unwrap_or(Value::Null))
}

/// Runs `add_source`: stores the text or web page (downloaded only where `reach` allows:
/// public addresses, unless the server was started with `--allow-private-urls`) as a
/// source, compiles it and writes the pages it feeds (one at a time: the caller holds the
/// writer's lock). Cancelling the call leaves the unfinished compile queued, for the next
/// `wikimind compile`.
pub async fn add_source(
    wiki: &Wiki,
    runner: &JobRunner,
    reach: &Reach,
    value: Value,
    cancel: &CancellationToken,
) -> Answer {
    let takes = "either `text` (with an optional `title`) or `url`, strings";
    let args: AddSourceArgs = match arguments(ADD_SOURCE, value, takes) {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    let stored = match (&args.text, &args.url) {
        (Some(text), None) if !text.trim().is_empty() => {
            wiki.ingest_text(text, args.title.as_deref())
        }
        (None, Some(url)) if args.title.is_none() => {
            wiki.ingest_url_within(url, wiki.ingest_options(), reach)
                .await
        }
        (None, Some(_)) => {
            return Answer::error(
                "add_source: `title` goes with `text` only: a web page keeps its own title",
            )
        }
        (Some(_), None) => return Answer::error("add_source: `text` is empty"),
        _ => return Answer::error(format!("add_source: give {takes}, not both")),
    };
    let summary = match stored {
        Ok(summary) => summary,
        Err(e) => return Answer::error(format!("add_source: {e}")),
    };
    compile_added(wiki, runner, summary, cancel).await
}

/// Compiles the source just stored (unless it is compiled already and unchanged) and says
/// what became of it and of the pages it feeds.
async fn compile_added(
    wiki: &Wiki,
    runner: &JobRunner,
    summary: IngestSummary,
    cancel: &CancellationToken,
) -> Answer {
    let Some(added) = summary.sources.into_iter().next() else {
        return Answer::error("add_source: nothing was stored");
    };
    let id = added.source_id;
    let name = added.title.clone().unwrap_or_else(|| added.origin.clone());
    let mut text = format!("Source #{id} \"{name}\": {}.\n", added.outcome);
    let plan = match CompilePlan::prepare(wiki, runner, &[id.to_string()], false).await {
        Ok(plan) => plan,
        Err(e) => return Answer::error(format!("{text}It was not compiled: {e}")),
    };
    if let Some(down) = &plan.server_down {
        return Answer::error(format!(
            "{text}It was stored but not compiled: {} (it compiles with the next \
             `wikimind compile`)",
            down.error
        ));
    }
    let mut report = Value::Null;
    let mut page_jobs = Vec::new();
    if plan.selection.already_compiled.contains(&id) {
        text.push_str("It was compiled already and has not changed.\n");
    } else {
        let outcome = match plan.run(runner, cancel).await {
            Ok(outcome) => outcome,
            Err(e) => return Answer::error(format!("{text}The compile failed: {e}")),
        };
        if outcome.interrupted {
            return Answer::error(format!(
                "{text}The call was cancelled: the compile stays queued and finishes with \
                 the next `wikimind compile`."
            ));
        }
        let Some(compiled) = outcome.reports.iter().find(|r| r.source_id == id) else {
            return Answer::error(format!("{text}The compile did not report back."));
        };
        if !compiled.ok {
            return Answer::error(format!(
                "{text}It did not compile: {}",
                compiled.reason.as_deref().unwrap_or("no reason given")
            ));
        }
        let _ = writeln!(
            text,
            "Compiled into the digest \"{}\".",
            compiled.title.as_deref().unwrap_or("")
        );
        for p in &outcome.pages {
            let _ = writeln!(text, "- page \"{}\": {}", p.title, page_outcome(&p.outcome));
        }
        report = serde_json::to_value(compiled).unwrap_or(Value::Null);
        page_jobs = outcome
            .pages
            .iter()
            .map(|p| serde_json::to_value(p).unwrap_or(Value::Null))
            .collect();
    }
    let pages = wiki.source_pages(id).unwrap_or_default();
    if !pages.is_empty() {
        text.push_str("\nIt feeds these pages (read them with `read_page`):\n");
        for p in &pages {
            let _ = writeln!(text, "- {} — {}", p.title, page_uri(&p.title));
        }
    }
    let pages: Vec<Value> = pages
        .iter()
        .map(|p| json!({ "id": p.id, "title": p.title, "uri": page_uri(&p.title) }))
        .collect();
    Answer::ok(
        text,
        json!({ "source": added, "compile": report, "page_jobs": page_jobs, "pages": pages }),
    )
}

/// What a page job did, in a few words.
fn page_outcome(outcome: &PageOutcome) -> String {
    match outcome {
        PageOutcome::Written { version } => format!("written (version {version})"),
        PageOutcome::NoNewInformation => "no new information (it gained the source)".into(),
        PageOutcome::UpToDate => "already up to date".into(),
        PageOutcome::Flagged { reason } => {
            format!("rewrite refused, previous version kept: {reason}")
        }
        PageOutcome::Failed { reason } => format!("failed: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_source_is_listed_only_when_the_server_may_write() {
        let names = |write| -> Vec<String> {
            list(write)
                .into_iter()
                .map(|t| t.name.into_owned())
                .collect()
        };
        assert_eq!(
            names(false),
            [
                "search",
                "read_page",
                "list_pages",
                "ask",
                "lint",
                "graph_neighbours"
            ]
        );
        assert_eq!(
            names(true),
            [
                "search",
                "read_page",
                "list_pages",
                "ask",
                "lint",
                "graph_neighbours",
                "add_source"
            ]
        );
        // The names an unknown tool's error offers are the tools listed.
        assert_eq!(names(true), super::names(true));
        assert_eq!(names(false), super::names(false));
    }

    #[test]
    fn each_schema_names_the_arguments_of_the_contract() {
        for tool in list(true) {
            let schema = Value::Object(tool.input_schema.as_ref().clone());
            let properties: Vec<&String> = schema["properties"]
                .as_object()
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            let expected: &[&str] = match tool.name.as_ref() {
                "search" => &["query"],
                "read_page" => &["title"],
                "list_pages" => &["offset", "limit"],
                "ask" => &["question"],
                "lint" => &["checks"],
                "graph_neighbours" => &["title", "depth"],
                "add_source" => &["text", "url", "title"],
                other => panic!("unexpected tool {other}"),
            };
            assert_eq!(properties, expected, "{}", tool.name);
            assert_eq!(schema["type"], "object", "{}", tool.name);
        }
    }

    #[test]
    fn wrong_arguments_say_what_is_wrong_and_what_the_tool_takes() {
        let wiki = Wiki::open_in_memory().expect("wiki");
        let answer = read_page(&wiki, json!({ "title": 3 }));
        assert!(answer.error);
        assert!(
            answer.text.contains("invalid type: integer `3`"),
            "{}",
            answer.text
        );
        assert!(
            answer.text.contains("it takes `title`, a string"),
            "{}",
            answer.text
        );
        let answer = list_pages(&wiki, json!({ "limit": -1 }));
        assert!(answer.error, "{}", answer.text);
        let answer = lint(&wiki, json!({ "checks": ["nope"] }));
        assert!(answer.error);
        assert!(
            answer.text.contains("no check named \"nope\""),
            "{}",
            answer.text
        );
        let answer = lint(&wiki, json!({}));
        assert!(!answer.error, "{}", answer.text);
        assert!(answer.text.contains("No findings."), "{}", answer.text);
        let answer = search(&wiki, json!({ "qery": "tea" }));
        assert!(
            answer.text.contains("unknown field `qery`"),
            "{}",
            answer.text
        );
    }
}
