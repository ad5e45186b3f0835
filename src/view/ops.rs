//! The [`Wiki`] operations that fill the views: the library of pages, a page, quotes,
//! sources with their digests, compile logs and ingest from the app.

use std::sync::Arc;

use super::passages::Passages;
use super::*;
use crate::reading::{bare_tag, tag_choices, tags_have, ListedVersion};
use crate::store::{AuthorKind, PageClaim, PageHead, PageId, PageSummary, SourceSummary};
use wikimind_text::url::redirect_shown;

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
            source_id: source.id,
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

/// A page's claim; a saved answer's claim names the page it cites, whose id now is
/// `cited_id` (`None` for a name no page has).
fn claim_view(c: PageClaim, cited_id: Option<PageId>, passages: Vec<PassageView>) -> ClaimView {
    let cited_page = c.cited_page.map(|title| PageNameView {
        page_id: cited_id,
        title,
    });
    ClaimView {
        hash: crate::store::claim_hash(&c.claim.claim),
        quote_not_found: quote_not_found(c.claim.quote.as_deref(), c.claim.grounded),
        claim: crate::render::summary_text(&c.claim.claim),
        confidence: c.claim.confidence,
        quote: c.claim.quote,
        grounded: c.claim.grounded,
        source_ids: c.source_ids.into_iter().collect(),
        cited_page,
        author: c.author,
        cited: false,
        passages,
    }
}

/// Whether any of `texts` (markdown shown as text: its markdown and wiki links as their
/// shown text, as the views show claims and summaries) holds `quote`, as a person reads them.
fn holds_quote(texts: &[&str], quote: &str) -> bool {
    let read = crate::render::summary_text(quote);
    texts.iter().any(|text| {
        let shown = crate::render::summary_text(text);
        wikimind_text::fold::find_as_read(&[&shown], &read).is_some()
    })
}

/// A search snippet as the store marks it (each matched word between
/// [`MATCH_START`](crate::MATCH_START) and [`MATCH_END`](crate::MATCH_END)) in pieces.
pub(super) fn snippet_parts(snippet: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut matched = false;
    for piece in snippet.split_inclusive([crate::MATCH_START, crate::MATCH_END]) {
        let text = piece.trim_end_matches([crate::MATCH_START, crate::MATCH_END]);
        if !text.is_empty() {
            parts.push(SnippetPart {
                text: text.to_owned(),
                matched,
            });
        }
        if piece.ends_with(crate::MATCH_START) {
            matched = true;
        } else if piece.ends_with(crate::MATCH_END) {
            matched = false;
        }
    }
    parts
}

fn page_ref(p: &PageSummary) -> PageRefView {
    PageRefView {
        id: p.id,
        title: p.title.clone(),
        source_count: p.source_count,
        stale: p.stale,
    }
}

fn source_view(s: crate::store::SourceSummary, pages: Vec<PageRefView>) -> SourceView {
    SourceView {
        id: s.id,
        final_url: redirect_shown(&s.origin, s.final_url.as_deref()),
        origin: s.origin,
        kind: s.kind.as_str().to_string(),
        title: s.title,
        status: s.status,
        reason: s.reason,
        article_id: s.article_id,
        article_title: s.article_title,
        pages,
        updated_at: s.updated_at,
    }
}

impl Wiki {
    /// The library in the asked order: every saved answer and the first
    /// [`LIBRARY_FIRST_ROWS`] topic pages, the topics narrowed
    /// to those with `tag` ([`tags_have`]: `None` or an empty tag narrows nothing), with the
    /// tags to choose from, counts and the most mentioned wanted pages. The rest of the
    /// topics come by window ([`Wiki::library_rows`]).
    ///
    /// The last read is kept while the wiki does not change: an ask for the same sort and
    /// tag is answered from it (and one made while it is read waits for it).
    pub fn library(&self, sort: LibrarySort, tag: Option<&str>) -> Result<LibraryView> {
        let mut held = self.lists.library.lock().unwrap_or_else(|p| p.into_inner());
        let generation = self.store().generation()?;
        let tag_asked = tag.map(str::to_owned);
        if let Some(kept) = held
            .as_ref()
            .filter(|h| h.generation == generation && h.sort == sort && h.tag == tag_asked)
        {
            return Ok(kept.view.clone());
        }
        let view = self.read_library(generation, sort, tag)?;
        *held = Some(crate::wiki::HeldLibrary {
            generation,
            sort,
            tag: tag_asked,
            view: view.clone(),
        });
        Ok(view)
    }

    /// Reads the library as the window first shows it (by title, every tag), so that the
    /// window's first ask finds it read: what the window calls on a thread of its own as it
    /// opens, while its web view starts. At 100,000 pages the read takes about a quarter of
    /// a second, which the launch then does not wait for.
    pub fn read_library_ahead(&self) -> Result<()> {
        self.library(LibrarySort::default(), None).map(drop)
    }

    /// [`Wiki::library`] read from the store at `generation`.
    fn read_library(
        &self,
        generation: crate::store::Generation,
        sort: LibrarySort,
        tag: Option<&str>,
    ) -> Result<LibraryView> {
        let store = self.store();
        let order = self.library_order(generation, sort, tag)?;
        self.hold_order(generation, sort, &order);
        let topic_count = u32::try_from(order.topics().count()).unwrap_or(u32::MAX);
        // The answers and the first topics, in the one order of the list.
        let mut topics = 0;
        let shown: Vec<PageId> = order
            .pages()
            .filter(|p| {
                let topic = p.kind == PageKind::Topic;
                topics += usize::from(topic);
                !topic || topics <= super::LIBRARY_FIRST_ROWS
            })
            .map(|p| p.id)
            .collect();
        let entries = self.listed(store.page_summaries(&shown)?)?;
        let figures = self.library_figures(generation)?;
        Ok(LibraryView {
            counts: CountsView {
                sources: figures.counts.sources,
                pages: figures.counts.pages,
                answers: figures.counts.answers,
                wanted: figures.wanted_count,
            },
            entries,
            topic_count,
            tags: order.heads.tag_choices.clone(),
            tag: order.tag,
            wanted: figures
                .wanted
                .iter()
                .map(|w| WantedView {
                    title: w.title.clone(),
                    mentions: w.mentions,
                })
                .collect(),
            health: store
                .health_runs(1)?
                .pop()
                .map(super::HealthPointView::from),
        })
    }

    /// The topic pages of the library from row `offset` on, at most `limit` of them
    /// ([`PAGE_WINDOW_MAX`](crate::reading::PAGE_WINDOW_MAX) at most), in the order and
    /// narrowed as [`Wiki::library`] lists them: what the window asks for as rows scroll
    /// into view.
    pub fn library_rows(
        &self,
        sort: LibrarySort,
        tag: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<ListedPage>> {
        let limit = limit.min(crate::reading::PAGE_WINDOW_MAX);
        let generation = self.store().generation()?;
        let tag_key = tag.map(bare_tag).filter(|t| !t.is_empty());
        let held = {
            let held = self.lists.order.lock().unwrap_or_else(|p| p.into_inner());
            held.as_ref()
                .filter(|h| {
                    h.generation == generation && h.sort == sort && h.tag.as_deref() == tag_key
                })
                .map(|h| Arc::clone(&h.topics))
        };
        // While the wiki does not change, a window reads only its own pages.
        if let Some(topics) = held {
            let ids: Vec<PageId> = topics.iter().skip(offset).take(limit).copied().collect();
            return self.listed(self.store().page_summaries(&ids)?);
        }
        let order = self.library_order(generation, sort, tag)?;
        self.hold_order(generation, sort, &order);
        let window: Vec<PageId> = order
            .topics()
            .skip(offset)
            .take(limit)
            .map(|p| p.id)
            .collect();
        self.listed(self.store().page_summaries(&window)?)
    }

    /// Keeps the order of `order`'s topics, read at `generation`, for the next windows.
    fn hold_order(
        &self,
        generation: crate::store::Generation,
        sort: LibrarySort,
        order: &LibraryOrder,
    ) {
        *self.lists.order.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(crate::wiki::HeldOrder {
                generation,
                sort,
                tag: order.tag.clone(),
                topics: Arc::new(order.topics().map(|p| p.id).collect()),
            });
    }

    /// The library's order: every page sorted as `sort` says, the topics narrowed to `tag`,
    /// with the tags to choose from (of every topic: the choices do not narrow with the tag).
    /// Ordered from the pages' heads (held while the wiki does not change), so only the rows
    /// shown are read whole.
    fn library_order(
        &self,
        generation: crate::store::Generation,
        sort: LibrarySort,
        tag: Option<&str>,
    ) -> Result<LibraryOrder> {
        let heads = self.library_heads(generation)?;
        let pages = &heads.pages;
        let mut order: Vec<usize> = (0..pages.len()).collect();
        if sort == LibrarySort::Updated {
            // ISO-8601 UTC times sort as text; the newest first, ties by title (stable).
            order.sort_by(|&a, &b| pages[b].updated_at.cmp(&pages[a].updated_at));
        }
        let tag = tag.map(bare_tag).filter(|t| !t.is_empty());
        if let Some(tag) = tag {
            order.retain(|&i| pages[i].kind != PageKind::Topic || tags_have(&pages[i].tags, tag));
        }
        Ok(LibraryOrder {
            heads: Arc::clone(&heads),
            order,
            tag: tag.map(str::to_owned),
        })
    }

    /// Every page's head by title with the topics' tags to choose from, as the store holds
    /// them at `generation`: read once while the wiki does not change.
    fn library_heads(
        &self,
        generation: crate::store::Generation,
    ) -> Result<Arc<crate::wiki::LibraryHeads>> {
        held_at(&self.lists.heads, generation, || {
            let pages = self.store().page_heads()?;
            let tag_choices = tag_choices(
                pages
                    .iter()
                    .filter(|p| p.kind == PageKind::Topic)
                    .flat_map(|p| &p.tags),
            );
            Ok(crate::wiki::LibraryHeads { pages, tag_choices })
        })
    }

    /// The most wanted pages the library shows, how many are wanted and the other counts,
    /// as the store holds them at `generation`: read once while the wiki does not change.
    fn library_figures(
        &self,
        generation: crate::store::Generation,
    ) -> Result<Arc<crate::wiki::LibraryFigures>> {
        held_at(&self.lists.figures, generation, || {
            let store = self.store();
            let (wanted, wanted_count) = store.wanted_pages_first(super::LIBRARY_WANTED_SHOWN)?;
            // The wanted pages are counted with the most wanted, each once.
            let counts = store.page_counts_but_wanted()?;
            Ok(crate::wiki::LibraryFigures {
                wanted,
                wanted_count,
                counts,
            })
        })
    }

    /// Full-text search over pages, best first (a page named by the query first).
    pub fn search_view(&self, query: &str) -> Result<Vec<SearchResult>> {
        Ok(self
            .search(query)?
            .into_iter()
            .map(|h| SearchResult {
                page_id: h.page_id,
                title: h.title,
                snippet: snippet_parts(&h.snippet),
            })
            .collect())
    }

    /// One page with its body rendered by the one renderer (as `show --html` renders it),
    /// the digests feeding it and its history, or `None` when no page has this id.
    pub fn page_view(&self, id: PageId) -> Result<Option<PageView>> {
        self.page_view_citing(id, None)
    }

    /// [`Self::page_view`] for a page opened from a citation: `quote` marked where the
    /// rendered body holds it ([`PageView::quote_marked`]), and the claims that hold it
    /// marked ([`ClaimView::cited`]), by the quote fold grounding uses, so a quote the core
    /// grounded is marked on the page as a person reads it.
    pub fn page_view_citing(&self, id: PageId, quote: Option<&str>) -> Result<Option<PageView>> {
        let Some(p) = self.shown_page(id)? else {
            return Ok(None);
        };
        let quote = quote.filter(|q| !q.trim().is_empty());
        let (html, quote_marked) = match quote {
            Some(q) => self.render_page_marked(&p, q)?,
            None => (self.render_page(&p)?, false),
        };
        let html = html.into_string();
        let sources = self
            .store()
            .page_digests(p.id)?
            .into_iter()
            .map(|d| PageSourceView {
                source_id: d.source_id,
                article_id: d.article_id,
                title: d.title,
                final_url: redirect_shown(&d.origin, d.final_url.as_deref()),
                path: (d.kind == crate::store::SourceKind::File)
                    .then(|| crate::identity::note_path(&d.origin, d.root.as_deref())),
                origin: d.origin,
                compiled_at: d.compiled_at,
                provider: d.provider,
                model: d.model,
            })
            .collect();
        let history: Vec<ListedVersion> = self.page_history(p.id)?.into_iter().collect();
        let store = self.store();
        let mut claims = Vec::with_capacity(p.key_claims.len());
        let mut passages = Passages::new(self);
        for c in p.key_claims {
            let cited = match &c.cited_page {
                Some(name) => store.find_page(name)?,
                None => None,
            };
            let shown = passages.of(&c.citations)?;
            let mut view = claim_view(c.of, cited, shown);
            view.cited = quote.is_some_and(|q| {
                holds_quote(&[view.quote.as_deref().unwrap_or_default(), &view.claim], q)
            });
            claims.push(view);
        }
        let summary_cited = quote.is_some_and(|q| holds_quote(&[&p.summary], q));
        let edited = history
            .iter()
            .rev()
            .find(|v| v.author_kind == AuthorKind::Model)
            .is_some_and(|v| v.version != p.version);
        Ok(Some(PageView {
            id: p.id,
            kind: p.kind,
            title: p.title,
            summary: crate::render::summary_text(&p.summary),
            html,
            quote_marked,
            summary_cited,
            truncated: p.truncated,
            version: p.version,
            edited,
            stale_reason: p.stale_reason,
            flagged: p.flagged,
            claims,
            concepts: p.concepts,
            open_questions: p.open_questions,
            links: p
                .links
                .into_iter()
                .map(|l| LinkView {
                    target: l.target,
                    page_id: l.page_id,
                })
                .collect(),
            backlinks: p
                .backlinks
                .into_iter()
                .map(|b| BacklinkView {
                    page_id: b.page_id,
                    title: b.title,
                    context: crate::render::summary_text(&b.context),
                })
                .collect(),
            aliases: p.aliases,
            tags: p.tags,
            sources,
            history,
            markdown: p.article_body,
            suggestions: p
                .suggestions
                .into_iter()
                .map(|s| self.suggestion_view(s))
                .collect(),
        }))
    }

    /// What one version of a page says, as text to compare, or `None` when there is no
    /// such page or version.
    pub fn page_text_view(&self, id: PageId, version: u32) -> Result<Option<PageTextView>> {
        Ok(self
            .store()
            .page_version(id, version)?
            .map(|v| PageTextView {
                version: v.info.version,
                title: v.content.title,
                summary: v.content.summary,
                body: v.content.body,
                claims: v
                    .content
                    .claims
                    .into_iter()
                    .map(|c| c.claim.claim)
                    .collect(),
            }))
    }

    /// Restores an earlier version of a page: its content becomes a new version written by
    /// the person (every version in between is kept). Returns the page as it is now.
    pub fn restore_page_view(&self, id: PageId, version: u32) -> Result<Option<PageView>> {
        self.restore_page(id, version)?;
        self.page_view(id)
    }

    /// Where `quote` (a claim's quote on page `page_id`) is in the page's sources, with the
    /// text around it: the sources recorded as holding it first, then every source that
    /// feeds the page. `None` when the page does not exist or has no source.
    pub fn quote_view(&self, page_id: PageId, quote: &str) -> Result<Option<QuoteView>> {
        let store = self.store();
        let Some(page) = store.page(page_id)? else {
            return Ok(None);
        };
        let mut order: Vec<SourceId> = page
            .claims
            .iter()
            .filter(|c| c.claim.quote.as_deref() == Some(quote))
            .flat_map(|c| c.source_ids.iter().copied())
            .collect();
        order.extend(
            store
                .page_digests(page.id)?
                .into_iter()
                .map(|d| d.source_id),
        );
        let mut seen = std::collections::HashSet::new();
        order.retain(|s| seen.insert(*s));
        self.quote_in(&order, quote)
    }

    /// Where `quote` (a claim's quote in a digest) is in that digest's source.
    pub fn digest_quote_view(&self, source_id: SourceId, quote: &str) -> Result<Option<QuoteView>> {
        self.quote_in(&[source_id], quote)
    }

    /// The quote in the first of `sources` that holds it (by the rule that grounds claims),
    /// else the start of the first source there is.
    fn quote_in(&self, sources: &[SourceId], quote: &str) -> Result<Option<QuoteView>> {
        let mut first = None;
        for id in sources {
            let Some(source) = self.store().source(*id)? else {
                continue;
            };
            if let Some(at) = crate::compile::locate_quote(&source.text, quote) {
                return Ok(Some(QuoteView::around(&source, Some(at))));
            }
            first.get_or_insert(source);
        }
        Ok(first.map(|source| QuoteView::around(&source, None)))
    }

    /// The id of the page a name leads to (its title, an alias, another spelling of it, or
    /// a title it had before), if any.
    pub fn page_id_by_name(&self, name: &str) -> Result<Option<PageId>> {
        Ok(self.store().find_page(name)?)
    }

    /// The sources list from row `offset`, at most `limit` rows (and
    /// [`SOURCES_WINDOW_MAX`]): oldest first, or newest first when `newest_first`; only the
    /// sources with `status` when one is given. With the counts by status, so a screen
    /// says how many there are and offers the filters without reading every source.
    pub fn sources_window(
        &self,
        status: Option<SourceStatus>,
        newest_first: bool,
        offset: u32,
        limit: u32,
    ) -> Result<SourcesWindowView> {
        let store = self.store();
        let mut counts = SourceCountsView::default();
        for (status, n) in store.source_status_counts()? {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            counts.all = counts.all.saturating_add(n);
            match status {
                SourceStatus::Pending => counts.pending = n,
                SourceStatus::Compiling => counts.compiling = n,
                SourceStatus::Compiled => counts.compiled = n,
                SourceStatus::Failed => counts.failed = n,
                SourceStatus::Stale => counts.stale = n,
            }
        }
        let limit = limit.min(SOURCES_WINDOW_MAX);
        let rows = store.sources_window(status, newest_first, offset, limit)?;
        Ok(SourcesWindowView {
            counts,
            total: counts.of(status),
            offset,
            rows: self.sources_shown(rows)?,
        })
    }

    /// `sources` as the lists show them, each with the pages it feeds.
    fn sources_shown(&self, sources: Vec<SourceSummary>) -> Result<Vec<SourceView>> {
        let ids: Vec<SourceId> = sources.iter().map(|s| s.id).collect();
        let fed = self.store().pages_of_sources(&ids)?;
        Ok(sources
            .into_iter()
            .zip(fed)
            .map(|(s, pages)| source_view(s, pages.iter().map(page_ref).collect()))
            .collect())
    }

    /// One source with its digest (rendered by the one renderer, links resolved to pages)
    /// and the pages it feeds, or `None` when no source has this id.
    pub fn source_detail_view(&self, id: SourceId) -> Result<Option<SourceDetailView>> {
        let store = self.store();
        let Some(summary) = store.source_summary(id)? else {
            return Ok(None);
        };
        let pages = store
            .source_pages(summary.id)?
            .iter()
            .map(page_ref)
            .collect();
        let source = source_view(summary, pages);
        let digest = match self.shown_digest(id)? {
            None => None,
            Some(d) => {
                let html = self.render_digest(&d).into_string();
                let mut passages = Passages::new(self);
                let mut claims = Vec::with_capacity(d.key_claims.len());
                for c in d.key_claims {
                    let shown = passages.of(&c.citations)?;
                    let c = c.of;
                    let held = c.grounded && c.confidence == Confidence::Sourced;
                    claims.push(ClaimView {
                        hash: crate::store::claim_hash(&c.claim),
                        quote_not_found: quote_not_found(c.quote.as_deref(), c.grounded),
                        claim: crate::render::summary_text(&c.claim),
                        confidence: c.confidence,
                        quote: c.quote,
                        grounded: c.grounded,
                        source_ids: if held { vec![id] } else { Vec::new() },
                        cited_page: None,
                        author: AuthorKind::Model,
                        cited: false,
                        passages: shown,
                    });
                }
                Some(DigestView {
                    article_id: d.id,
                    title: d.title,
                    summary: crate::render::summary_text(&d.summary),
                    html,
                    truncated: d.truncated,
                    compiled_at: d.compiled_at,
                    provider: d.provider,
                    model: d.model,
                    claims,
                    concepts: d.concepts,
                    open_questions: d.open_questions,
                })
            }
        };
        Ok(Some(SourceDetailView { source, digest }))
    }

    /// A source's full text, or `None` when no source has this id.
    pub fn source_text(&self, id: SourceId) -> Result<Option<SourceTextView>> {
        Ok(self.store().source(id)?.map(|s| SourceTextView {
            id: s.id,
            origin: s.origin,
            text: s.text,
        }))
    }

    /// A source's compile log, oldest first: every raw answer kept.
    pub fn compilation_views(&self, source_id: SourceId) -> Result<Vec<CompilationView>> {
        Ok(self
            .store()
            .compilations(source_id)?
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
}

/// What `slot` holds when it was read at `generation`, else `read` made and held in its
/// place (the slot's lock is held meanwhile, so two asks at once read it once).
fn held_at<T>(
    slot: &std::sync::Mutex<Option<(crate::store::Generation, Arc<T>)>>,
    generation: crate::store::Generation,
    read: impl FnOnce() -> Result<T>,
) -> Result<Arc<T>> {
    let mut held = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((at, value)) = held.as_ref() {
        if *at == generation {
            return Ok(Arc::clone(value));
        }
    }
    let value = Arc::new(read()?);
    *held = Some((generation, Arc::clone(&value)));
    Ok(value)
}

/// The library's pages in order, before they are listed ([`Wiki::library_order`]).
struct LibraryOrder {
    /// Every page's head by title, and the tags to choose from.
    heads: Arc<crate::wiki::LibraryHeads>,
    /// Every saved answer and the topics with the tag asked for, in the library's order:
    /// places in `heads.pages`.
    order: Vec<usize>,
    /// The tag asked for, as the filter reads it.
    tag: Option<String>,
}

impl LibraryOrder {
    /// Every saved answer and the topics with the tag asked for, in order.
    fn pages(&self) -> impl Iterator<Item = &PageHead> {
        self.order.iter().map(|&i| &self.heads.pages[i])
    }

    /// The topic pages, in order.
    fn topics(&self) -> impl Iterator<Item = &PageHead> {
        self.pages().filter(|p| p.kind == PageKind::Topic)
    }
}
