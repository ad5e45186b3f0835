//! Render: markdown to sanitised HTML with resolved `[[wiki links]]`.
//!
//! Article bodies come from a model that read untrusted sources, so everything rendered here
//! is hostile until proven otherwise. [`render_article`] turns markdown into HTML with
//! pulldown-cmark (tables, strikethrough, task lists, footnotes), turns `[[wiki links]]` into
//! in-app links, and then cleans the whole result with ammonia under an explicit allow-list.
//! The only way to get a [`SafeHtml`] is through that cleaning.
//!
//! # What the HTML may contain
//!
//! - Text structure only: headings, paragraphs, lists, tables, quotes, code, emphasis,
//!   footnotes, `details`/`summary`. No scripts, styles, `on*` handlers, forms, frames,
//!   objects, SVG or MathML; their content is dropped with them.
//! - Links with `http`, `https`, `mailto` and `wikimind` URLs, plus `#fragment` links
//!   (footnotes). Relative links and `javascript:`/`data:`/`vbscript:` URLs lose their
//!   `href`; markdown links to them are rendered as plain text.
//! - **No images.** The wiki has no asset store, so a relative image has nothing to point
//!   at, and a remote one would load a resource (a tracker, say) the moment an article is
//!   opened. A markdown image with an http(s) URL is rendered as an external link labelled
//!   with its alt text; raw `<img>` tags are removed.
//! - Classes only from this module: `wikilink`, `wanted`, `external` on `a`; `task`, `done`,
//!   `attachment` on `span`; `footnote-ref` on `sup`; `footnote` on `div`; `cited-quote` on
//!   `mark` (a quote a citation points at, [`render_article_marked`]). Data attributes
//!   only `data-article-id`, `data-anchor` and `data-wanted` on `a`. Every link gets
//!   `rel="noopener noreferrer"`; `target` may only be `_blank`. Ids are prefixed `wm-`.
//! - Headings get ids: `wm-` and the slug of their text
//!   ([`wikimind_text::markdown::heading_slug`]), `-1`, `-2`, … after an id already used
//!   or one the app owns ([`ids`]: `wm-cited-quote`, `wm-fn-N`); `[[Page#Heading]]` links to
//!   `wikimind://article/ID#wm-SLUG` (with `data-anchor`) and `[[#Heading]]` to `#wm-SLUG`,
//!   the id of the first heading with that slug ([`ids::first_heading_id`]). An id written
//!   in raw HTML that the app owns is dropped.
//! - Wiki links in every form of the markdown reader ([`wikimind_text::markdown::LinkRef`]);
//!   a link or embed of an attachment (`![[photo.jpg]]`) is a chip naming the file
//!   (`<span class="attachment">`): nothing is loaded. A link to a document the wiki read
//!   as a source (`![[paper.pdf]]`) leads to its page when the page's links know the path.
//! - A markdown link written as a path (`[t](../Parser/constructor.md#Usage)`,
//!   `[t](paper.pdf)`) is a wiki link to the page of the note or document at that path
//!   when the page's links know it ([`render_page_body`]), else its text.
//!
//! Raw HTML written in the markdown is kept only as far as this allow-list permits, so a body
//! could still hand-write an `<a class="wikilink" href="wikimind://article/3">`; that can
//! only point at an article or a wanted page, which a wiki link could do anyway.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::LazyLock;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

pub mod ids;

pub use ids::{is_app_id, APP_IDS, CITED_QUOTE_ID, NUMBERED_APP_IDS};
pub use wikimind_text::line::one_line;
use wikimind_text::markdown::link::is_document;
use wikimind_text::markdown::note_links::written_destination;
use wikimind_text::markdown::wikilinks::{is_inline, is_inline_end};
use wikimind_text::markdown::{heading_slug, split_wiki_links, text_runs, Item, LinkRef, Piece};
pub use wikimind_text::markdown::{wiki_links, Anchor, WikiLink};

/// What every id in rendered HTML starts with: the sanitiser puts it before any id a body
/// writes, so no id of a body is one the window owns. A heading's id is this and its slug.
pub const ID_PREFIX: &str = "wm-";

/// HTML that went through this module's sanitiser. It has no constructor outside this
/// module, so holding one proves the HTML is safe to insert into the app's page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct SafeHtml(String);

impl SafeHtml {
    /// The HTML.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The HTML as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Plain text, escaped: safe HTML that shows exactly `text`.
    pub fn from_text(text: &str) -> SafeHtml {
        SafeHtml(escape_html(text))
    }
}

impl std::fmt::Display for SafeHtml {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a wiki link's target title resolves to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LinkTarget {
    /// An existing page (a topic or a saved answer).
    Page {
        /// The page's id (rendered as `data-article-id`, the attribute's name from the
        /// digest era, which the front end and its tests read).
        id: i64,
        /// The title as written in the link, trimmed.
        title: String,
    },
    /// No page has this title yet: a wanted page.
    Wanted,
}

/// Resolves a path written in a body (as [`wikimind_text::markdown::note_links::written_destination`]
/// reads it: `Parser/constructor.md`, `Papers/Brew Guide.pdf`) to the page of the note or
/// document at that path; `None` leaves the link as its text (an attachment's chip).
pub type PathResolver<'a> = &'a dyn Fn(&str) -> Option<LinkTarget>;

/// A [`PathResolver`] that knows no path.
fn no_paths(_: &str) -> Option<LinkTarget> {
    None
}

/// The markdown extensions articles may use: the markdown reader's.
pub(crate) fn markdown_options() -> Options {
    wikimind_text::markdown::options()
}

/// How a markdown link or image was rewritten, to close it the same way.
enum Opened {
    /// Kept as pulldown-cmark writes it (`wikimind:` and `#fragment` links).
    Kept,
    /// Written as our own `<a>`; close with `</a>`.
    Anchor,
    /// Dropped; its text stays.
    Dropped,
}

/// Renders an article body to sanitised HTML.
///
/// `[[Title]]` and `[[Title|shown text]]` outside code become
/// `<a class="wikilink" href="wikimind://article/ID" data-article-id="ID">` when `resolve`
/// (called with the trimmed title) finds an article, else
/// `<a class="wikilink wanted" href="wikimind://wanted/Title" data-wanted="Title">` with the
/// title percent-encoded in the URL. External `http`, `https` and `mailto` links get
/// `class="external"`, `rel="noopener noreferrer"` and `target="_blank"`. See the module
/// documentation for everything else the output may and may not contain.
pub fn render_article(markdown: &str, resolve: &dyn Fn(&str) -> LinkTarget) -> SafeHtml {
    to_safe_html(markdown, article_events(markdown, resolve, &no_paths))
}

/// Renders a page's body as [`render_article`] does, with links written as a path resolved
/// by `paths`: a markdown link `[t](../Parser/constructor.md#Usage)` becomes a wiki link to
/// that note's page (its section), and a link or embed of a document (`![[paper.pdf]]`,
/// `[t](paper.pdf)`) a link to the document's page. A path `paths` does not know stays as
/// [`render_article`] shows it: the link's text, or an attachment's chip.
pub fn render_page_body(
    markdown: &str,
    resolve: &dyn Fn(&str) -> LinkTarget,
    paths: PathResolver<'_>,
) -> SafeHtml {
    to_safe_html(markdown, article_events(markdown, resolve, paths))
}

/// Renders a page body as [`render_page_body`] does, with `quote` marked where a reader
/// sees it: each run of text it covers wrapped in `<mark class="cited-quote">`, the first
/// with the id `wm-cited-quote`. The quote is looked for by the quote fold as a person reads
/// the rendered page ([`wikimind_text::fold::find_as_read`]): its wiki links read as their
/// shown text, and case, white space, quote marks, dashes and the marks of emphasis and
/// code do not count; it may run across emphasis, links and blocks. Returns the HTML and
/// whether the quote was marked (`false`: the body does not hold it, and the HTML is
/// [`render_article`]'s).
pub fn render_article_marked(
    markdown: &str,
    resolve: &dyn Fn(&str) -> LinkTarget,
    paths: PathResolver<'_>,
    quote: &str,
) -> (SafeHtml, bool) {
    let events = article_events(markdown, resolve, paths);
    match mark_quote(&events, quote) {
        Some(marked) => (to_safe_html(markdown, marked), true),
        None => (to_safe_html(markdown, events), false),
    }
}

/// Writes events as HTML and cleans it: the one way to a [`SafeHtml`] from markdown.
fn to_safe_html(markdown: &str, events: Vec<Event<'_>>) -> SafeHtml {
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    SafeHtml(SANITIZER.clean(&html).to_string())
}

/// `events` with `quote` marked (see [`render_article_marked`]), or `None` when the text
/// they show does not hold it.
fn mark_quote<'a>(events: &[Event<'a>], quote: &str) -> Option<Vec<Event<'a>>> {
    // Adjacent text runs as one (the parser splits text at line ends, and a CR LF split
    // into two marks would read as two line breaks): the same HTML, cut only where marked.
    let mut joined: Vec<Event<'a>> = Vec::with_capacity(events.len());
    for event in events {
        match (joined.last_mut(), event) {
            (Some(Event::Text(text)), Event::Text(more)) => {
                *text = CowStr::from(format!("{text}{more}"));
            }
            _ => joined.push(event.clone()),
        }
    }
    let events = &joined;
    // The text a reader sees, piece by piece: text and code runs, and a space wherever a
    // block or a line break separates them (the page shows one there).
    let mut pieces: Vec<&str> = Vec::new();
    let mut owner: Vec<Option<usize>> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let piece = match event {
            Event::Text(text) | Event::Code(text) => Some(text.as_ref()),
            Event::SoftBreak | Event::HardBreak | Event::Rule | Event::Html(_) => None,
            Event::Start(tag) if !is_inline(tag) => None,
            Event::End(tag) if !is_inline_end(*tag) => None,
            _ => continue,
        };
        match piece {
            Some(text) => {
                pieces.push(text);
                owner.push(Some(i));
            }
            None => {
                pieces.push(" ");
                owner.push(None);
            }
        }
    }
    let wanted = link_text(quote);
    let spans = wikimind_text::fold::find_as_read(&pieces, &wanted)?;
    let mut cut: HashMap<usize, (usize, usize)> = HashMap::new();
    for span in &spans {
        let Some(at) = owner[span.piece] else {
            continue;
        };
        // Never between the two characters of a CR LF, which reads as one line break
        // together and as two apart.
        let text = pieces[span.piece];
        let inside_crlf = |i: usize| text[..i].ends_with('\r') && text[i..].starts_with('\n');
        let start = span.start + usize::from(inside_crlf(span.start));
        let end = span.end + usize::from(inside_crlf(span.end));
        if start < end {
            cut.insert(at, (start, end));
        }
    }
    if cut.is_empty() {
        return None;
    }
    let mut first = true;
    let mut marked = Vec::with_capacity(events.len() + 4 * cut.len());
    for (i, event) in events.iter().enumerate() {
        let Some(&(start, end)) = cut.get(&i) else {
            marked.push(event.clone());
            continue;
        };
        let (text, code) = match event {
            Event::Text(text) => (text, false),
            Event::Code(text) => (text, true),
            other => {
                marked.push(other.clone());
                continue;
            }
        };
        let run = |part: &str| {
            let part = CowStr::from(part.to_owned());
            if code {
                Event::Code(part)
            } else {
                Event::Text(part)
            }
        };
        if start > 0 {
            marked.push(run(&text[..start]));
        }
        marked.push(Event::InlineHtml(CowStr::from(if first {
            format!("<mark class=\"cited-quote\" id=\"{CITED_QUOTE_ID}\">")
        } else {
            "<mark class=\"cited-quote\">".to_owned()
        })));
        first = false;
        marked.push(run(&text[start..end]));
        marked.push(Event::InlineHtml(CowStr::from("</mark>")));
        if end < text.len() {
            marked.push(run(&text[end..]));
        }
    }
    Some(marked)
}

/// The events of an article body, links resolved and rewritten (see [`render_article`]).
fn article_events<'a>(
    markdown: &'a str,
    resolve: &dyn Fn(&str) -> LinkTarget,
    paths: PathResolver<'_>,
) -> Vec<Event<'a>> {
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut opened: Vec<Opened> = Vec::new();
    let mut footnotes: HashMap<String, usize> = HashMap::new();
    let mut footnote_number = |label: &str| {
        let next = footnotes.len() + 1;
        *footnotes.entry(label.to_owned()).or_insert(next)
    };
    // An image's alt text is collected and written as one link label (or dropped).
    let mut image: Option<(Option<String>, String, usize)> = None;
    // The heading being read (its start event's index and its text), and the ids headings
    // got, so each gets one of its own and none takes one the app owns.
    let mut heading: Option<(usize, String)> = None;
    let mut heading_ids = ids::HeadingIds::default();

    for item in text_runs(Parser::new_ext(markdown, markdown_options())) {
        let event = match item {
            Item::Text(text) => {
                if let Some((_, alt, _)) = image.as_mut() {
                    alt.push_str(&text);
                    continue;
                }
                if let Some((_, heading)) = heading.as_mut() {
                    heading.push_str(&link_text(&text));
                }
                for piece in split_wiki_links(&text) {
                    match piece {
                        Piece::Text(text) => {
                            events.push(Event::Text(CowStr::from(text.to_owned())))
                        }
                        Piece::Link(link) => {
                            // The shown text is a text run of its own, so a cited quote
                            // can be marked inside a link.
                            let html = wiki_html(&link, resolve, paths);
                            if !html.open.is_empty() {
                                events.push(Event::InlineHtml(CowStr::from(html.open)));
                            }
                            events.push(Event::Text(CowStr::from(html.shown)));
                            if !html.close.is_empty() {
                                events.push(Event::InlineHtml(CowStr::from(html.close)));
                            }
                        }
                    }
                }
                continue;
            }
            Item::Event(event, _) => event,
        };

        if let Some((href, alt, depth)) = image.as_mut() {
            match &event {
                Event::Start(Tag::Image { .. }) => *depth += 1,
                Event::End(TagEnd::Image) if *depth > 0 => *depth -= 1,
                Event::End(TagEnd::Image) => {
                    if let Some(href) = href.take() {
                        let label = if alt.trim().is_empty() {
                            "image"
                        } else {
                            alt.trim()
                        };
                        events.push(Event::InlineHtml(CowStr::from(format!(
                            "{}{}</a>",
                            external_anchor_open(&href, ""),
                            escape_html(label)
                        ))));
                    } else if !alt.trim().is_empty() {
                        events.push(Event::Text(CowStr::from(alt.clone())));
                    }
                    image = None;
                }
                Event::Text(text) | Event::Code(text) => alt.push_str(text),
                _ => {}
            }
            continue;
        }

        match event {
            Event::Start(Tag::Heading { .. }) => {
                heading = Some((events.len(), String::new()));
                events.push(event);
            }
            Event::Text(ref text) | Event::Code(ref text) if heading.is_some() => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(text);
                }
                events.push(event);
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((at, text)) = heading.take() {
                    let id = heading_ids.next(&heading_slug(&text));
                    if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[at] {
                        *slot = Some(CowStr::from(format!("wm-{id}")));
                    }
                }
                events.push(event);
            }
            Event::Start(Tag::Link {
                dest_url, title, ..
            }) => {
                if is_external(&dest_url) {
                    opened.push(Opened::Anchor);
                    events.push(Event::InlineHtml(CowStr::from(external_anchor_open(
                        &dest_url, &title,
                    ))));
                } else if has_scheme(&dest_url, "wikimind") || dest_url.starts_with('#') {
                    opened.push(Opened::Kept);
                    events.push(Event::Start(Tag::Link {
                        link_type: pulldown_cmark::LinkType::Inline,
                        dest_url,
                        title,
                        id: CowStr::from(""),
                    }));
                } else if let Some(open) = path_anchor_open(&dest_url, paths) {
                    opened.push(Opened::Anchor);
                    events.push(Event::InlineHtml(CowStr::from(open)));
                } else {
                    opened.push(Opened::Dropped);
                }
            }
            Event::End(TagEnd::Link) => match opened.pop() {
                Some(Opened::Kept) => events.push(Event::End(TagEnd::Link)),
                Some(Opened::Anchor) => events.push(Event::InlineHtml(CowStr::from("</a>"))),
                Some(Opened::Dropped) | None => {}
            },
            Event::Start(Tag::Image { dest_url, .. }) => {
                // Inside a link an image becomes its alt text: links do not nest.
                let href = (opened.is_empty() && is_web(&dest_url)).then(|| dest_url.to_string());
                image = Some((href, String::new(), 0));
            }
            Event::TaskListMarker(done) => {
                events.push(Event::InlineHtml(CowStr::from(if done {
                    "<span class=\"task done\">☑</span> "
                } else {
                    "<span class=\"task\">☐</span> "
                })));
            }
            Event::FootnoteReference(label) => {
                let n = footnote_number(&label);
                events.push(Event::InlineHtml(CowStr::from(format!(
                    "<sup class=\"footnote-ref\"><a href=\"#{}{n}\">{n}</a></sup>",
                    ids::FOOTNOTE_ID_PREFIX
                ))));
            }
            Event::Start(Tag::FootnoteDefinition(label)) => {
                let n = footnote_number(&label);
                events.push(Event::Html(CowStr::from(format!(
                    "<div class=\"footnote\" id=\"{}{n}\"><sup>{n}</sup>",
                    ids::FOOTNOTE_ID_PREFIX
                ))));
            }
            Event::End(TagEnd::FootnoteDefinition) => {
                events.push(Event::Html(CowStr::from("</div>\n")));
            }
            other => events.push(other),
        }
    }
    // An image left open by malformed input still yields its text.
    if let Some((_, alt, _)) = image {
        events.push(Event::Text(CowStr::from(alt)));
    }
    events
}

/// A wiki link as the page shows it: the HTML that opens it, the text a reader sees, and
/// the HTML that closes it (both empty when it reads as plain text).
struct WikiHtml {
    open: String,
    shown: String,
    close: &'static str,
}

/// A wiki link as HTML: a chip naming an attachment (nothing is loaded), a link to a
/// section of this page, or a link to a page (a section of it) or a wanted page.
fn wiki_html(
    link: &LinkRef,
    resolve: &dyn Fn(&str) -> LinkTarget,
    paths: PathResolver<'_>,
) -> WikiHtml {
    let shown = link.display();
    if link.attachment && is_document(&link.target) {
        let path = match &link.folder {
            Some(folder) => format!("{folder}/{}", link.target),
            None => link.target.clone(),
        };
        if let Some(found @ LinkTarget::Page { .. }) = paths(&path) {
            return WikiHtml {
                open: wiki_anchor_open(&link.target, &shown, None, &found),
                shown,
                close: "</a>",
            };
        }
    }
    if link.attachment {
        let label = if link.embed { &link.target } else { &shown };
        return WikiHtml {
            open: format!(
                "<span class=\"attachment\" title=\"{}\">",
                escape_html(&link.target)
            ),
            shown: label.clone(),
            close: "</span>",
        };
    }
    let fragment = match &link.anchor {
        Some(Anchor::Heading(h)) => Some(ids::first_heading_id(&heading_slug(h))),
        _ => None,
    };
    if link.is_same_page() {
        return match fragment {
            Some(slug) => WikiHtml {
                open: format!("<a class=\"wikilink\" href=\"#wm-{}\">", escape_html(&slug)),
                shown,
                close: "</a>",
            },
            None => WikiHtml {
                open: String::new(),
                shown,
                close: "",
            },
        };
    }
    WikiHtml {
        open: wiki_anchor_open(
            &link.target,
            &shown,
            fragment.as_deref(),
            &resolve_path(link, resolve),
        ),
        shown,
        close: "</a>",
    }
}

/// What a link resolves to: a link written as a path (`[[src/Parser/constructor]]`) names
/// the page of the note it names, which goes by the shortest folder path that tells it
/// apart (`Parser/constructor`), so each trailing part of the path is tried, longest
/// first, before the bare name.
fn resolve_path(link: &LinkRef, resolve: &dyn Fn(&str) -> LinkTarget) -> LinkTarget {
    if let Some(folder) = &link.folder {
        let parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
        for start in 0..parts.len() {
            let found = resolve(&format!("{}/{}", parts[start..].join("/"), link.target));
            if let LinkTarget::Page { id, .. } = found {
                return LinkTarget::Page {
                    id,
                    title: link.target.trim().to_owned(),
                };
            }
        }
    }
    resolve(&link.target)
}

/// The opening tag of a markdown link written as a path (`../Parser/constructor.md#Usage`)
/// that `paths` resolves to a page (the heading's section, when it names one); `None` when
/// it is no path or names no page the body's links know.
fn path_anchor_open(dest: &str, paths: PathResolver<'_>) -> Option<String> {
    let (path, anchor) = written_destination(dest)?;
    let found @ LinkTarget::Page { .. } = paths(&path)? else {
        return None;
    };
    let fragment = anchor
        .filter(|a| !a.starts_with('^'))
        .map(|heading| ids::first_heading_id(&heading_slug(&heading)));
    Some(wiki_anchor_open(&path, "", fragment.as_deref(), &found))
}

/// The opening tag of a link to a page (a section of it) or a wanted page.
fn wiki_anchor_open(
    target: &str,
    shown: &str,
    fragment: Option<&str>,
    resolved: &LinkTarget,
) -> String {
    match resolved {
        LinkTarget::Page { id, title } => {
            let mut anchor = match fragment {
                Some(slug) => format!(
                    "<a class=\"wikilink\" href=\"wikimind://article/{id}#wm-{}\" \
                     data-article-id=\"{id}\" data-anchor=\"wm-{}\"",
                    percent_encode(slug),
                    escape_html(slug)
                ),
                None => format!(
                    "<a class=\"wikilink\" href=\"wikimind://article/{id}\" data-article-id=\"{id}\""
                ),
            };
            if title != shown {
                let _ = write!(anchor, " title=\"{}\"", escape_html(title));
            }
            anchor.push('>');
            anchor
        }
        LinkTarget::Wanted => format!(
            "<a class=\"wikilink wanted\" href=\"wikimind://wanted/{}\" data-wanted=\"{}\">",
            percent_encode(target),
            escape_html(target)
        ),
    }
}

fn external_anchor_open(href: &str, title: &str) -> String {
    let mut anchor = format!(
        "<a class=\"external\" href=\"{}\" rel=\"noopener noreferrer\" target=\"_blank\"",
        escape_html(href.trim())
    );
    if !title.is_empty() {
        let _ = write!(anchor, " title=\"{}\"", escape_html(title));
    }
    anchor.push('>');
    anchor
}

fn has_scheme(url: &str, scheme: &str) -> bool {
    let url = url.trim_start();
    url.len() > scheme.len()
        && url.is_char_boundary(scheme.len())
        && url[..scheme.len()].eq_ignore_ascii_case(scheme)
        && url[scheme.len()..].starts_with(':')
}

fn is_web(url: &str) -> bool {
    has_scheme(url, "http") || has_scheme(url, "https")
}

fn is_external(url: &str) -> bool {
    is_web(url) || has_scheme(url, "mailto")
}

/// `text` with each `[[wiki link]]` replaced by what a reader sees of it (`[[Espresso|the
/// drink]]` reads `the drink`): for summaries shown as plain text.
pub(crate) fn link_text(text: &str) -> String {
    split_wiki_links(text).iter().map(Piece::display).collect()
}

/// A summary (a claim, a backlink's context) as it reads, for showing as plain text: each markdown link `[shown](dest)` as
/// its `shown` text (the page body shows a link to a note's path as its text, not its
/// destination), then each wiki link as [`link_text`] reads it.
pub(crate) fn summary_text(text: &str) -> String {
    let links = wikimind_text::markdown::markdown_links(text, "");
    if links.is_empty() {
        return link_text(text);
    }
    let mut plain = String::with_capacity(text.len());
    let mut at = 0;
    for link in links {
        // Wiki links (and anything overlapping one already replaced) are link_text's.
        let written = text.get(link.range.clone()).unwrap_or("[[");
        if link.range.start < at || written.starts_with("[[") {
            continue;
        }
        plain.push_str(&text[at..link.range.start]);
        plain.push_str(&link.shown);
        at = link.range.end;
    }
    plain.push_str(&text[at..]);
    link_text(&plain)
}

/// Escapes text for HTML content and double- or single-quoted attribute values; control
/// characters other than line breaks and tabs become U+FFFD (HTML has no place for them).
/// The one escaper of every HTML WikiMind writes (articles, the eval report).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && !matches!(c, '\n' | '\t' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Percent-encodes everything but unreserved characters (RFC 3986), for a URL path segment.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// Keeps in-page fragments (footnotes); a relative path means nothing inside the app.
fn fragment_only(url: &str) -> Option<Cow<'_, str>> {
    url.starts_with('#').then_some(Cow::Borrowed(url))
}

/// Drops an id the app owns ([`ids`]) from every element but the app's own: the cited
/// quote's `mark` and a footnote's `div` (raw HTML could still write those two elements
/// whole, as it could before ids were checked; every other element loses the id).
fn keep_id<'a>(element: &str, attribute: &str, value: &'a str) -> Option<Cow<'a, str>> {
    if attribute != "id" {
        return Some(Cow::Borrowed(value));
    }
    // The prefix is added after this filter runs, to ids without it.
    let id = if value.starts_with("wm-") {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("wm-{value}"))
    };
    let own = match element {
        "mark" => id == ids::CITED_QUOTE_ID,
        "div" => ids::is_app_id(&id) && id != ids::CITED_QUOTE_ID,
        _ => false,
    };
    (own || !ids::is_app_id(&id)).then_some(Cow::Borrowed(value))
}

/// The one sanitiser configuration; see the module documentation.
static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let tags: HashSet<&str> = [
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "caption",
        "code",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
    ]
    .into_iter()
    .collect();
    let clean_content_tags: HashSet<&str> = [
        "script", "style", "svg", "math", "iframe", "object", "embed", "template", "noscript",
        "textarea", "select", "title", "frame", "frameset", "noembed", "noframes", "xmp", "applet",
        "audio", "video", "canvas",
    ]
    .into_iter()
    .collect();
    let tag_attributes: HashMap<&str, HashSet<&str>> = [
        (
            "a",
            [
                "href",
                "title",
                "data-article-id",
                "data-wanted",
                "data-anchor",
            ]
            .as_slice(),
        ),
        ("div", ["id"].as_slice()),
        ("span", ["title"].as_slice()),
        ("mark", ["id"].as_slice()),
        ("h1", ["id"].as_slice()),
        ("h2", ["id"].as_slice()),
        ("h3", ["id"].as_slice()),
        ("h4", ["id"].as_slice()),
        ("h5", ["id"].as_slice()),
        ("h6", ["id"].as_slice()),
        ("ol", ["start"].as_slice()),
        ("td", ["colspan", "rowspan"].as_slice()),
        ("th", ["colspan", "rowspan"].as_slice()),
        ("abbr", ["title"].as_slice()),
    ]
    .into_iter()
    .map(|(tag, attributes)| (tag, attributes.iter().copied().collect()))
    .collect();
    let tag_attribute_values: HashMap<&str, HashMap<&str, HashSet<&str>>> =
        HashMap::from([("a", HashMap::from([("target", HashSet::from(["_blank"]))]))]);
    let allowed_classes: HashMap<&str, HashSet<&str>> = HashMap::from([
        ("a", HashSet::from(["wikilink", "wanted", "external"])),
        ("span", HashSet::from(["task", "done", "attachment"])),
        ("sup", HashSet::from(["footnote-ref"])),
        ("div", HashSet::from(["footnote"])),
        ("mark", HashSet::from(["cited-quote"])),
    ]);
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(tags)
        .clean_content_tags(clean_content_tags)
        .tag_attributes(tag_attributes)
        .tag_attribute_values(tag_attribute_values)
        .generic_attributes(HashSet::new())
        .allowed_classes(allowed_classes)
        .url_schemes(HashSet::from(["http", "https", "mailto", "wikimind"]))
        .url_relative(ammonia::UrlRelative::Custom(Box::new(fragment_only)))
        .link_rel(Some("noopener noreferrer"))
        .id_prefix(Some(ID_PREFIX))
        .attribute_filter(keep_id)
        .strip_comments(true);
    builder
});

#[cfg(test)]
mod tests;
