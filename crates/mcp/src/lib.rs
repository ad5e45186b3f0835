//! The wiki over the Model Context Protocol: the glue between `rmcp` and the core.
//!
//! [`WikiServer`] answers tool calls (`search`, `read_page`, `list_pages`, `ask`, `lint`,
//! and with `--allow-write` `add_source`) and serves every page as a resource
//! (`wikimind://page/<title>`, see `page_uri`). What a page, a list, a search or an
//! answer says is the core's ([`wikimind::markdown`]); this module adds only what is MCP's:
//! tool names and argument schemas, URIs, how to ask for more, and which failures are
//! protocol errors. A library of its own, below the CLI that serves it on standard input
//! and output (`wikimind mcp`), so it can be driven and fuzzed over any transport.
//!
//! Failures a caller can fix (a page that does not exist, an argument of the wrong type) are
//! tool results marked as errors, so the model reads the message and tries again; a request
//! the server cannot route (an unknown tool, a resource that is no page) is a JSON-RPC
//! error: an unknown method is `-32601`, params of the wrong shape for `tools/call` or
//! `resources/read` are `-32602`. Neither stops the server.

#![deny(missing_docs)]

mod page_uri;
mod progress;
mod tools;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use wikimind::config::Settings;
use wikimind::ingest::Reach;
use wikimind::llm::KeyStore;
use wikimind::queue::JobRunner;
use wikimind::reading::PAGE_WINDOW_MAX;
use wikimind::wiki::Wiki;

pub use page_uri::page_uri;
use progress::Progress;

/// The MIME type of every page and tool text.
const MARKDOWN: &str = "text/markdown";

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "A WikiMind wiki: pages compiled from the sources a person added, \
each with key claims marked sourced (with the quote it rests on, checked against the \
sources), inferred or opinion. Find pages with `search` (words) or `list_pages` (by title), \
then read one with `read_page` (its body, claims, links, backlinks and sources); `ask` \
answers a question from the pages, citing them. Every page is also the resource \
wikimind://page/<percent-encoded title>.";

/// The MCP server of one wiki.
pub struct WikiServer {
    wiki: Wiki,
    /// The providers `ask` (and `add_source`) use.
    settings: Settings,
    /// Runs compiles for `add_source`; `None` without `--allow-write`.
    writer: Option<Writer>,
}

/// What `add_source` needs: the queue runner, a lock so two calls compile one at a time,
/// and where the runner's progress goes (the call that holds the lock).
struct Writer {
    runner: JobRunner,
    /// Where `add_source` may download from.
    reach: Reach,
    lock: tokio::sync::Mutex<()>,
    progress: Arc<Mutex<Progress>>,
}

impl WikiServer {
    /// A server over `wiki`; with `allow_write`, clients may add sources, compiled with
    /// `settings` (API keys from `keys`), and downloaded from where `reach` allows.
    pub fn new(
        wiki: Wiki,
        settings: Settings,
        keys: Arc<dyn KeyStore>,
        allow_write: bool,
        reach: Reach,
    ) -> WikiServer {
        let writer = allow_write.then(|| {
            let progress = Arc::new(Mutex::new(Progress::default()));
            let to_call = Arc::clone(&progress);
            Writer {
                runner: JobRunner::new(
                    wiki.clone(),
                    settings.clone(),
                    keys,
                    Box::new(move |p| {
                        if let Ok(progress) = to_call.lock() {
                            progress.job(p);
                        }
                    }),
                ),
                lock: tokio::sync::Mutex::new(()),
                progress,
                reach,
            }
        });
        WikiServer {
            wiki,
            settings,
            writer,
        }
    }
}

impl ServerHandler for WikiServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("wikimind", env!("CARGO_PKG_VERSION")).with_title("WikiMind"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list(
            self.writer.is_some(),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let (progress, forwarder) = Progress::for_call(&context);
        let answer = match request.name.as_ref() {
            tools::SEARCH => tools::search(&self.wiki, arguments),
            tools::READ_PAGE => tools::read_page(&self.wiki, arguments),
            tools::LIST_PAGES => tools::list_pages(&self.wiki, arguments),
            tools::LINT => tools::lint(&self.wiki, arguments),
            tools::GRAPH_NEIGHBOURS => tools::graph_neighbours(&self.wiki, arguments),
            tools::ASK => {
                let progress = progress.clone();
                tools::ask(&self.wiki, &self.settings, arguments, &context.ct, progress).await
            }
            tools::ADD_SOURCE => match &self.writer {
                Some(w) => {
                    let _one_at_a_time = w.lock.lock().await;
                    set(&w.progress, progress.clone());
                    let answer =
                        tools::add_source(&self.wiki, &w.runner, &w.reach, arguments, &context.ct)
                            .await;
                    set(&w.progress, Progress::default());
                    answer
                }
                None => {
                    return Err(ErrorData::invalid_params(
                        "add_source is off: this server was started without --allow-write \
                         (start it as `wikimind mcp --allow-write` to let clients add sources)",
                        None,
                    ))
                }
            },
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool {other:?}: this server's tools are {}",
                        tools::names(self.writer.is_some()).join(", ")
                    ),
                    None,
                ))
            }
        };
        // Every progress note goes out before the result.
        drop(progress);
        forwarder.finish().await;
        let structured = structured_content_allowed(&context);
        Ok(answer.into_result(structured).into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let offset = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor.parse::<usize>().map_err(|_| {
                ErrorData::invalid_params(
                    format!(
                        "the cursor {cursor:?} is not one this server gave: \
                         list from the start without a cursor"
                    ),
                    None,
                )
            })?,
        };
        let window = self
            .wiki
            .page_window(offset, Some(PAGE_WINDOW_MAX))
            .map_err(internal)?;
        let resources = window
            .pages
            .iter()
            .map(|p| {
                let mut resource = Resource::new(page_uri(&p.title), p.title.clone())
                    .with_title(p.title.clone())
                    .with_mime_type(MARKDOWN);
                if !p.summary.trim().is_empty() {
                    resource = resource.with_description(p.summary.clone());
                }
                resource
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = window.next_offset.map(|n| n.to_string());
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(page_uri::TEMPLATE, "page")
            .with_title("A wiki page")
            .with_description(
                "A page by its title or any of its aliases, percent-encoded (RFC 3986): \
                 the same markdown as the read_page tool",
            )
            .with_mime_type(MARKDOWN);
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let title =
            page_uri::title_of(&request.uri).map_err(|m| ErrorData::resource_not_found(m, None))?;
        let page = tools::find_page(&self.wiki, &title)
            .map_err(|m| ErrorData::resource_not_found(m, None))?;
        let text = wikimind::markdown::page_markdown(&page);
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type(MARKDOWN)
        ])
        .into())
    }

    /// A request rmcp could not read as any it knows. For `tools/call` and
    /// `resources/read` that means their params have the wrong shape (no `name`, a `uri`
    /// that is a number): invalid params (`-32602`), saying what is wrong, rather than rmcp's
    /// "method not found" (`-32601`), which is kept for methods this server does not have.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let problem = match request.method.as_str() {
            "tools/call" => bad_params::<CallToolRequestParams>(&request),
            "resources/read" => bad_params::<ReadResourceRequestParams>(&request),
            _ => None,
        };
        Err(match problem {
            Some(problem) => ErrorData::invalid_params(
                format!("{}: invalid params: {problem}", request.method),
                None,
            ),
            None => ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None),
        })
    }
}

/// What is wrong with `request`'s params as a `P` (their absence included); `None` when
/// they read as one after all.
fn bad_params<P: serde::de::DeserializeOwned>(request: &CustomRequest) -> Option<String> {
    match request.params_as::<P>() {
        Ok(Some(_)) => None,
        Ok(None) => Some("missing params".into()),
        Err(e) => Some(e.to_string()),
    }
}

/// Points the compile runner's progress at `progress` (the call now holding the writer).
fn set(slot: &Mutex<Progress>, progress: Progress) {
    if let Ok(mut slot) = slot.lock() {
        *slot = progress;
    }
}

/// Whether the client's protocol version has structured tool results (2025-06-18 on); a
/// client that did not say gets them.
fn structured_content_allowed(context: &RequestContext<RoleServer>) -> bool {
    // Versions are dates: they compare as text.
    context
        .protocol_version()
        .is_none_or(|v| v.as_str() >= ProtocolVersion::V_2025_06_18.as_str())
}

/// A failure of the wiki itself (its database) as a protocol error.
fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

/// What a tool answers: markdown for the reader, the same as data when there is some, and
/// whether it is an error the caller can fix.
pub struct Answer {
    text: String,
    data: Option<serde_json::Value>,
    error: bool,
}

impl Answer {
    /// A result: `text` for people and models, `data` as structured content.
    fn ok(text: String, data: serde_json::Value) -> Answer {
        Answer {
            text,
            data: Some(data),
            error: false,
        }
    }

    /// A failure the caller can act on, said in `text`.
    fn error(text: impl Into<Cow<'static, str>>) -> Answer {
        Answer {
            text: text.into().into_owned(),
            data: None,
            error: true,
        }
    }

    /// The tool result; structured content only when the protocol has it.
    fn into_result(self, structured: bool) -> CallToolResult {
        let content = vec![ContentBlock::text(self.text)];
        let mut result = if self.error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        if structured {
            result.structured_content = self.data;
        }
        result
    }
}
