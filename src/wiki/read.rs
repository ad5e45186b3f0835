//! What a person reads of the wiki: pages and digests found by what they type, as `list`,
//! `show`, `sources` and `history` show them, and rendered.

use crate::reading::{
    CitedClaim, DigestFigures, ListedPage, ListedSource, ListedVersion, PageRef, PageWindow,
    Restored, ShownBacklink, ShownDigest, ShownLink, ShownPage, ShownSource,
};
use crate::render::{
    render_article, render_article_marked, render_page_body, LinkTarget, SafeHtml,
};
use crate::store::{
    ArticleId, PageCounts, PageHit, PageId, PageKind, PageSummary, SourceId, WantedPage,
};
use wikimind_text::key::topic_key;

use super::{Result, Wiki, WikiError};
use std::collections::HashMap;
use std::sync::Arc;

/// How a shell names a page: by id (the window and MCP hold ids), or by what a person
/// typed (the CLI: any spelling of a title or alias, or a number; see [`Wiki::find_page`]).
/// Every page operation takes either, so each behaviour is one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKey<'a> {
    /// The page with this id.
    Id(PageId),
    /// The page a person's words name.
    Typed(&'a str),
}

impl From<PageId> for PageKey<'_> {
    fn from(id: PageId) -> Self {
        PageKey::Id(id)
    }
}

impl<'a> From<&'a str> for PageKey<'a> {
    fn from(typed: &'a str) -> Self {
        PageKey::Typed(typed)
    }
}

impl<'a> From<&'a String> for PageKey<'a> {
    fn from(typed: &'a String) -> Self {
        PageKey::Typed(typed)
    }
}

impl Wiki {
    /// The id of the page `page` names: an id as it is (an operation on a page that is not
    /// there says so), typed words as [`Wiki::page_named`] finds them.
    pub fn page_id<'k>(&self, page: impl Into<PageKey<'k>>) -> Result<PageId> {
        match page.into() {
            PageKey::Id(id) => Ok(id),
            PageKey::Typed(key) => self.page_named(key),
        }
    }

    /// Finds a page by what a person types: any spelling of its title or of one of its
    /// aliases (see [`crate::store::Store::find_page`]); failing that, a number is taken as a page id,
    /// then as the id of a digest, which leads to the page its title names.
    ///
    /// A name several notes share as their own title (`constructor`, when
    /// `Parser/constructor.md` and `Lexer/constructor.md` go by `Parser/constructor` and
    /// `Lexer/constructor`) is [`WikiError::AmbiguousName`], listing them, unless a page has
    /// exactly that title.
    pub fn find_page(&self, key: &str) -> Result<Option<PageId>> {
        let found = self.store.find_page(key)?;
        let exact = match found {
            Some(id) => self
                .store
                .page(id)?
                .is_some_and(|p| crate::store::page_key(&p.title) == crate::store::page_key(key)),
            None => false,
        };
        if !exact {
            let candidates = self.notes_named(key)?;
            if candidates.len() > 1 {
                return Err(WikiError::AmbiguousName {
                    name: key.trim().to_owned(),
                    candidates,
                });
            }
        }
        if let Some(id) = found {
            return Ok(Some(id));
        }
        let Ok(number) = key.trim().parse::<i64>() else {
            return Ok(None);
        };
        if self.store.page(PageId(number))?.is_some() {
            return Ok(Some(PageId(number)));
        }
        Ok(self.store.digest_page(ArticleId(number))?)
    }

    /// The notes that share `name` as their own title, each with the title it goes by and
    /// its page (the one a bare link from outside their folders means first). Empty when
    /// fewer than two notes of one root share it.
    pub fn notes_named(&self, name: &str) -> Result<Vec<crate::identity::Candidate>> {
        let index = crate::identity::NoteIndex::of(&self.store)?;
        index
            .sharing(name, None)
            .into_iter()
            .map(|n| {
                Ok(crate::identity::Candidate {
                    title: n.title.clone(),
                    path: n.path.clone(),
                    source_id: n.id,
                    page_id: self.store.find_page(&n.title)?,
                })
            })
            .collect()
    }

    /// Full-text search over pages, best first (a page the query names by its title or an
    /// alias comes first): the one search the CLI, MCP and the window all call. Matched words
    /// in each snippet are marked with [`MATCH_START`](crate::MATCH_START) and
    /// [`MATCH_END`](crate::MATCH_END); any text is a valid query.
    pub fn search(&self, query: &str) -> Result<Vec<PageHit>> {
        Ok(self.store.search_pages(query)?)
    }

    /// The wanted pages: names that links reach and no page has, most mentioned first.
    pub fn wanted_pages(&self) -> Result<Vec<WantedPage>> {
        Ok(self.store.wanted_page_links()?)
    }

    /// Whether the wiki holds no source and no page yet (a first run's wiki).
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.store.holds_nothing()?)
    }

    /// How many pages, sources and wanted pages the wiki holds.
    pub fn page_counts(&self) -> Result<PageCounts> {
        Ok(self.store.page_counts()?)
    }

    /// The pages source `id` feeds, by title.
    pub fn source_pages(&self, id: SourceId) -> Result<Vec<PageSummary>> {
        Ok(self.store.source_pages(id)?)
    }

    /// [`Wiki::find_page`], or [`WikiError::NoSuchPage`].
    pub fn page_named(&self, key: &str) -> Result<PageId> {
        self.find_page(key)?
            .ok_or_else(|| WikiError::NoSuchPage(key.to_owned()))
    }

    /// Every page as it is listed, by title: what `list`, MCP and the library show.
    pub fn page_list(&self) -> Result<Vec<ListedPage>> {
        self.listed(self.store.pages()?)
    }

    /// `pages` as they are listed: with their claim counts, the folder that tells a note's
    /// page apart, and the summary as plain text.
    pub(crate) fn listed(&self, pages: Vec<crate::store::PageSummary>) -> Result<Vec<ListedPage>> {
        // A window's counts are read page by page; the whole list's in one pass.
        let counts = if pages.len() <= crate::reading::PAGE_WINDOW_MAX {
            let ids: Vec<PageId> = pages.iter().map(|p| p.id).collect();
            self.store.page_claim_counts_of(&ids)?
        } else {
            self.store.page_claim_counts()?
        };
        // The folder of each note told apart by its folder, shown beside its page.
        let folders = self.told_apart_folders()?;
        Ok(pages
            .into_iter()
            .map(|p| ListedPage {
                claims: counts.get(&p.id).copied().unwrap_or_default(),
                folder: match p.kind {
                    PageKind::Topic => folders.get(&topic_key(&p.title)).cloned(),
                    PageKind::Answer => None,
                },
                summary_text: crate::render::summary_text(&p.summary),
                id: p.id,
                kind: p.kind,
                title: p.title,
                summary: p.summary,
                source_count: p.source_count,
                stale: p.stale,
                updated_at: p.updated_at,
                tags: p.tags,
                flagged: p.flagged,
            })
            .collect())
    }

    /// The folder of each note told apart by its folder, by the topic key of the title it
    /// goes by ([`NoteIndex::told_apart_folders`](crate::identity::NoteIndex::told_apart_folders)),
    /// built again only when the wiki changed.
    pub(crate) fn told_apart_folders(&self) -> Result<Arc<HashMap<String, String>>> {
        let generation = self.store.generation()?;
        let mut held = self.lists.folders.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, folders)) = held.as_ref() {
            if *seen == generation {
                return Ok(Arc::clone(folders));
            }
        }
        let folders = Arc::new(crate::identity::NoteIndex::of(&self.store)?.told_apart_folders());
        *held = Some((generation, Arc::clone(&folders)));
        Ok(folders)
    }

    /// [`Wiki::page_list`] narrowed to the pages with `tag` ([`ListedPage::has_tag`]);
    /// every page when `tag` is `None`.
    pub fn page_list_tagged(&self, tag: Option<&str>) -> Result<Vec<ListedPage>> {
        let pages = self.page_list()?;
        Ok(match tag {
            Some(tag) => pages.into_iter().filter(|p| p.has_tag(tag)).collect(),
            None => pages,
        })
    }

    /// A window of [`Wiki::page_list`]: at most `limit` pages by title from `offset` on (see
    /// [`PageWindow::of`] for the default and the cap), with the total and where the next
    /// window starts.
    pub fn page_window(&self, offset: usize, limit: Option<usize>) -> Result<PageWindow> {
        PageWindow::listing(self.store.pages()?, offset, limit, |pages| {
            self.listed(pages)
        })
    }

    /// One page as `show` shows it, with the sources feeding it (`None`: no such page).
    pub fn shown_page(&self, id: PageId) -> Result<Option<ShownPage>> {
        let Some(page) = self.store.page(id)? else {
            return Ok(None);
        };
        let mut truncated = false;
        let mut sources = Vec::new();
        for d in self.store.page_digests(id)? {
            if let Some(digest) = self.store.article(d.article_id)? {
                truncated |= digest.truncated;
            }
            sources.push(ShownSource {
                source_id: d.source_id,
                origin: d.origin,
                final_url: d.final_url,
                compiled_at: d.compiled_at,
                provider: d.provider,
                model: d.model,
                title: d.title,
                summary: d.summary,
            });
        }
        Ok(Some(ShownPage {
            id: page.id,
            kind: page.kind,
            title: page.title,
            aliases: page.aliases,
            tags: page.tags,
            summary: page.summary,
            key_claims: self.cite(page.claims, |c| {
                let sources = if c.cited_page.is_some() {
                    Vec::new()
                } else {
                    c.source_ids.clone()
                };
                (sources, c.claim.quote.clone().filter(|_| c.claim.grounded))
            })?,
            concepts: page.concepts,
            open_questions: page.open_questions,
            links: page
                .links
                .into_iter()
                .map(|l| ShownLink {
                    target: l.target,
                    page_id: l.page_id,
                    article_id: l.page_id,
                    context: l.context,
                })
                .collect(),
            backlinks: page
                .backlinks
                .into_iter()
                .map(|b| ShownBacklink {
                    page_id: b.page_id,
                    article_id: b.page_id,
                    title: b.title,
                    context: b.context,
                })
                .collect(),
            article_body: page.body,
            sources,
            truncated,
            version: page.version,
            stale_reason: page.stale_reason,
            flagged: page.flagged,
            suggestions: self.store.page_suggestions(id)?,
        }))
    }

    /// A source's digest as `show --source` shows it (`None`: the source has not been
    /// compiled, or there is no such source).
    pub fn shown_digest(&self, source: SourceId) -> Result<Option<ShownDigest>> {
        let Some(summary) = self.store.find_source(&source.to_string())? else {
            return Ok(None);
        };
        let Some(article) = summary.article_id else {
            return Ok(None);
        };
        let Some(a) = self.store.article(article)? else {
            return Ok(None);
        };
        let mut links = Vec::with_capacity(a.links.len());
        for l in a.links {
            let page = self.store.find_page(&l.target)?;
            links.push(ShownLink {
                target: l.target,
                page_id: page,
                article_id: page,
                context: l.context,
            });
        }
        let pages = self
            .store
            .source_pages(source)?
            .into_iter()
            .map(|p| PageRef {
                id: p.id,
                title: p.title,
            })
            .collect();
        let origin = a.sources.first();
        Ok(Some(ShownDigest {
            kind: "digest",
            id: a.id,
            source_id: source,
            origin: summary.origin,
            final_url: summary.final_url,
            title: a.title,
            summary: a.summary,
            key_claims: self.cite(a.claims, |c| {
                (vec![source], c.quote.clone().filter(|_| c.grounded))
            })?,
            concepts: a.concepts,
            open_questions: a.open_questions,
            links,
            article_body: a.body,
            truncated: a.truncated,
            compiled_at: a.updated_at,
            provider: origin.map(|s| s.provider.clone()).unwrap_or_default(),
            model: origin.map(|s| s.model.clone()).unwrap_or_default(),
            pages,
        }))
    }

    /// `claims` with where their quotes stand: `held` gives, for a claim, the sources that
    /// hold its quote and the quote (`None`: it cites nothing).
    fn cite<C>(
        &self,
        claims: Vec<C>,
        held: impl Fn(&C) -> (Vec<SourceId>, Option<String>),
    ) -> Result<Vec<CitedClaim<C>>> {
        let wanted: Vec<(Vec<SourceId>, Option<String>)> = claims.iter().map(held).collect();
        let citations = self.store.citations(&wanted)?;
        Ok(claims
            .into_iter()
            .zip(citations)
            .map(|(of, citations)| CitedClaim { of, citations })
            .collect())
    }

    /// The [`DigestFigures`] of every compiled source.
    pub fn digest_figures(&self) -> Result<DigestFigures> {
        let mut figures = DigestFigures::default();
        for s in self.store.sources()? {
            if let Some(digest) = self.shown_digest(s.id)? {
                figures.add(s.title.as_deref(), &digest);
            }
        }
        Ok(figures)
    }

    /// Every source as `sources` shows it, with the pages it feeds.
    pub fn source_list(&self) -> Result<Vec<ListedSource>> {
        let mut pages = self.store.pages_by_source()?;
        let sources = self.store.sources()?;
        let notes = crate::identity::NoteIndex::from_sources(&sources);
        Ok(sources
            .into_iter()
            .map(|s| ListedSource {
                pages: pages.remove(&s.id).unwrap_or_default(),
                path: notes.note(s.id).map(|n| n.path.clone()),
                told_apart_as: notes
                    .note(s.id)
                    .filter(|n| n.told_apart())
                    .map(|n| n.title.clone()),
                root: s.root,
                tags: s.tags,
                aliases: s.aliases,
                id: s.id,
                origin: s.origin,
                kind: s.kind,
                title: s.title,
                status: s.status,
                reason: s.reason,
                updated_at: s.updated_at,
                final_url: s.final_url,
            })
            .collect())
    }

    /// Every version of the page, oldest first.
    pub fn page_history(&self, id: PageId) -> Result<Vec<ListedVersion>> {
        Ok(self
            .store
            .page_history(id)?
            .into_iter()
            .map(ListedVersion::from)
            .collect())
    }

    /// Restores an earlier version of a page as a new version by the person (see
    /// [`crate::store::Store::restore_page_version`]), its claims grounded again against the page's
    /// sources as they are now; [`WikiError::NoSuchVersion`] when it has no such version.
    pub fn restore_page(&self, id: PageId, version: u32) -> Result<Restored> {
        let page = self
            .store
            .page(id)?
            .ok_or_else(|| WikiError::NoSuchPage(id.to_string()))?;
        if self.store.page_version(id, version)?.is_none() {
            return Err(WikiError::NoSuchVersion {
                title: page.title,
                version,
            });
        }
        let new = self.store.restore_page_version(
            id,
            version,
            &crate::compile::ground::reground_page_claims,
        )?;
        let title = self.store.page(id)?.map(|p| p.title).unwrap_or(page.title);
        Ok(Restored {
            page_id: id,
            title,
            restored_from: version,
            version: new,
        })
    }

    /// A page's body as sanitised HTML, its wiki links resolved to pages through the
    /// page's own links (by any name of their target), never a list of every title: the
    /// one renderer, for `show --html` and every other shell. A link written as a path
    /// (`[t](../Parser/constructor.md)`, `![[paper.pdf]]`) leads to the page of the note or
    /// document at that path among the pages the page links (and the page itself).
    pub fn render_page(&self, page: &ShownPage) -> Result<SafeHtml> {
        let own = std::iter::once(&page.title).chain(&page.aliases);
        let resolve = page_resolver(&page.links, own.map(|n| (n, page.id)));
        let paths = self.path_resolver(page, &resolve)?;
        Ok(render_page_body(&page.article_body, &resolve, &paths))
    }

    /// [`Self::render_page`] with `quote` marked where the body holds it
    /// ([`crate::render::render_article_marked`]), and whether it does.
    pub fn render_page_marked(&self, page: &ShownPage, quote: &str) -> Result<(SafeHtml, bool)> {
        let own = std::iter::once(&page.title).chain(&page.aliases);
        let resolve = page_resolver(&page.links, own.map(|n| (n, page.id)));
        let paths = self.path_resolver(page, &resolve)?;
        Ok(render_article_marked(
            &page.article_body,
            &resolve,
            &paths,
            quote,
        ))
    }

    /// Resolves a path written in `page`'s body to the page of the note or document at
    /// that path: among the file sources feeding the pages `page` links (and `page`
    /// itself), the one whose origin ends with the path (a path without an extension also
    /// names `.md` and `.markdown`; several: the shortest origin, then byte order), by the
    /// title its digest goes by, resolved as `resolve` resolves names.
    fn path_resolver<'r>(
        &self,
        page: &ShownPage,
        resolve: &'r dyn Fn(&str) -> LinkTarget,
    ) -> Result<impl Fn(&str) -> Option<LinkTarget> + 'r> {
        let mut files: Vec<(String, String)> = Vec::new();
        if page.article_body.contains("](") || page.article_body.contains("[[") {
            let mut linked: Vec<PageId> = page.links.iter().filter_map(|l| l.page_id).collect();
            linked.push(page.id);
            linked.sort();
            linked.dedup();
            files = self.store.file_digests_of_pages(&linked)?;
        }
        Ok(move |path: &str| {
            let names = |origin: &str| {
                [
                    path.to_owned(),
                    format!("{path}.md"),
                    format!("{path}.markdown"),
                ]
                .iter()
                .any(|p| {
                    origin
                        .strip_suffix(p.as_str())
                        .is_some_and(|before| before.is_empty() || before.ends_with('/'))
                })
            };
            let (_, title) = files
                .iter()
                .filter(|(origin, _)| names(origin))
                .min_by(|a, b| a.0.len().cmp(&b.0.len()).then(a.0.cmp(&b.0)))?;
            match resolve(title) {
                LinkTarget::Page { id, .. } => Some(LinkTarget::Page {
                    id,
                    title: title.clone(),
                }),
                LinkTarget::Wanted => None,
            }
        })
    }

    /// A digest's body as sanitised HTML, its wiki links resolved to pages.
    pub fn render_digest(&self, digest: &ShownDigest) -> SafeHtml {
        render_resolved(&digest.article_body, &digest.links, std::iter::empty())
    }
}

/// Renders `body`, resolving its wiki links through `links` (resolved already) and `own`
/// (names that lead to a page of their own, such as the page's own title, which its links
/// never hold).
fn render_resolved<'a>(
    body: &str,
    links: &[ShownLink],
    own: impl Iterator<Item = (&'a String, PageId)>,
) -> SafeHtml {
    render_article(body, &page_resolver(links, own))
}

/// Resolves a wiki link's target through `links` (resolved already) and `own`.
fn page_resolver<'a>(
    links: &[ShownLink],
    own: impl Iterator<Item = (&'a String, PageId)>,
) -> impl Fn(&str) -> LinkTarget {
    use crate::store::page_key;
    let mut resolved: std::collections::HashMap<String, i64> = links
        .iter()
        .filter_map(|l| Some((page_key(&l.target), l.page_id?.0)))
        .collect();
    for (name, id) in own {
        resolved.insert(page_key(name), id.0);
    }
    move |target: &str| match resolved.get(&page_key(target)) {
        Some(id) => LinkTarget::Page {
            id: *id,
            title: target.trim().to_string(),
        },
        None => LinkTarget::Wanted,
    }
}

/// What the library's windows are served from while the wiki does not change (the store's
/// [`Generation`](crate::store::Generation) is the same): the order of the topic pages for
/// one sort and tag, the last library read (what [`Wiki::read_library_ahead`] makes
/// before the window asks), and the folders that tell notes apart.
#[derive(Debug, Default)]
pub(crate) struct ListCache {
    /// The topic pages' ids in the library's order, for a sort and a tag.
    pub(crate) order: std::sync::Mutex<Option<HeldOrder>>,
    /// The last library read. Its lock is held while a read is made, so an ask for the
    /// library while one is under way waits for it instead of reading it again.
    pub(crate) library: std::sync::Mutex<Option<HeldLibrary>>,
    /// What no sort or tag changes: every page's head in title order with the tags to
    /// choose from, and the wanted pages shown with the counts (each read once per
    /// generation, so a re-sort or another tag orders what was read instead of reading it
    /// again).
    pub(crate) heads: std::sync::Mutex<Option<(crate::store::Generation, Arc<LibraryHeads>)>>,
    pub(crate) figures: std::sync::Mutex<Option<(crate::store::Generation, Arc<LibraryFigures>)>>,
    folders: std::sync::Mutex<Option<HeldFolders>>,
}

/// Every page's head in the library's first order (by title), and the tags of the topics
/// to choose from: what every sort and tag of the library is ordered from.
#[derive(Debug)]
pub(crate) struct LibraryHeads {
    pub(crate) pages: Vec<crate::store::PageHead>,
    pub(crate) tag_choices: Vec<String>,
}

/// The library's figures that no sort or tag changes: the most wanted pages shown, how
/// many are wanted, and the other counts.
#[derive(Debug)]
pub(crate) struct LibraryFigures {
    pub(crate) wanted: Vec<WantedPage>,
    pub(crate) wanted_count: u64,
    pub(crate) counts: PageCounts,
}

/// One library read as [`ListCache`] holds it: the generation, sort and tag it was read at.
#[derive(Debug)]
pub(crate) struct HeldLibrary {
    pub(crate) generation: crate::store::Generation,
    pub(crate) sort: crate::view::LibrarySort,
    pub(crate) tag: Option<String>,
    pub(crate) view: crate::view::LibraryView,
}

/// The folders that tell notes apart, with the generation they were read at.
type HeldFolders = (crate::store::Generation, Arc<HashMap<String, String>>);

/// The library's order of topic pages as [`ListCache`] holds it.
#[derive(Debug)]
pub(crate) struct HeldOrder {
    pub(crate) generation: crate::store::Generation,
    pub(crate) sort: crate::view::LibrarySort,
    pub(crate) tag: Option<String>,
    pub(crate) topics: Arc<Vec<PageId>>,
}
