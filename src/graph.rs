//! The graph view: the wiki's pages and wanted pages as nodes, resolved links as edges,
//! laid out with positions and communities stored. The rules are the graph crate's
//! ([`wikimind_graph`]: the nodes and edges, the filters, the local graph, the overview,
//! the labels, the layout); this module reads the store, hands its rows there and stores
//! or returns what comes back, so the shells and the window hold no rule of their own.
//!
//! **Layout.** [`Wiki::lay_out_graph`] brings the stored layout up to date: a whole layout
//! the first time (or when more than half the nodes are new), else an incremental one (new
//! nodes beside their neighbours; nodes whose links changed move a little; the rest stay).
//! The job runner calls it once a run's page jobs are done (a queued layout, so a CLI
//! compile keeps it current too); the store counts every change of pages and links, so a
//! layout is due exactly when something changed since the last one. The store also logs
//! which pages and names each change touched, so an update reads only the links from and
//! to the nodes that changed ([`wikimind_graph::stored::relay_changed`]); the whole graph
//! is read for a first layout, a change of more than a quarter of it, or a layout stored
//! by an older build.
//!
//! **Filters** ([`GraphFilter`]): kind, tag (as the library's tag filter reads it), folder
//! of the notes that feed a page, orphans only (pages no other page links to, as `lint`
//! counts them), wanted pages shown or hidden, one community. Above [`GraphFilter::limit`]
//! nodes the view is the overview: the largest nodes only, with the communities to zoom
//! into (a community filter then loads all of its nodes); asked for an area of the layout
//! (the part the window shows, as it zooms in), an overview shows every node inside that
//! area first and fills what room is left with the largest of the rest.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;
pub use wikimind_graph::nodes::origin_in_folder;
use wikimind_graph::nodes::{LinkEdge, NodeFilter, PageNode, WikiGraph};
use wikimind_graph::stored::{draft_rows, relay_changed, relay_whole, Changed, Relaid};
pub use wikimind_graph::view::{
    CommunityView, GraphArea, GraphLabel, GraphLaidOut, GraphLayoutPhase, GraphLayoutView,
    GraphNodeKind, DEFAULT_NODE_LIMIT, MAX_DEPTH, NO_COMMUNITY,
};
use wikimind_graph::view::{PlacedGraph, ViewColumns};

use crate::reading::tags_have;
use crate::store::{
    GraphLayoutFigures, GraphLink, GraphLinks, GraphPage, GraphState, JobOwner, PageId, PageKind,
    Store,
};
use crate::wiki::{Result, Wiki, WikiError};

#[cfg(test)]
mod tests;

/// A layout lease not renewed for this long belongs to a process that died.
const LEASE_STALE_AFTER: Duration = Duration::from_secs(60);
/// How often a running layout renews its lease.
const LEASE_RENEW_EVERY: Duration = Duration::from_secs(5);
/// How often a first layout stores a draft of itself while it runs, for the window to draw
/// ([`Wiki::lay_out_graph_drafting`]): a first layout of 100,000 pages takes most of a
/// minute.
pub const GRAPH_DRAFT_EVERY: Duration = Duration::from_secs(3);

/// The graph as `wikimind graph --json` prints it: a record per node and per edge.
pub type GraphRecords = wikimind_graph::view::GraphRecords<PageId>;
/// One node of [`GraphRecords`].
pub type GraphNodeRecord = wikimind_graph::view::GraphNodeRecord<PageId>;
/// One edge of [`GraphRecords`].
pub type GraphEdgeRecord = wikimind_graph::view::GraphEdgeRecord<PageId>;

/// Which nodes the graph view shows. The default shows everything up to
/// [`DEFAULT_NODE_LIMIT`] nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphFilter {
    /// Only pages of this kind (`null`: topics and answers).
    pub kind: Option<PageKind>,
    /// Only pages with this tag (a parent tag takes its nested ones, as in the library).
    pub tag: Option<String>,
    /// Only pages fed by a note inside this folder (a path or its last parts, e.g.
    /// `notes/coffee`; sub-folders count).
    pub folder: Option<String>,
    /// Only pages no other page links to.
    pub orphans_only: bool,
    /// Whether wanted pages are shown.
    pub show_wanted: bool,
    /// Only this community.
    pub community: Option<u32>,
    /// At most this many nodes (the largest first); `null`: [`DEFAULT_NODE_LIMIT`].
    pub limit: Option<u32>,
    /// Above the limit, the nodes in this part of the layout first (`null`: the largest
    /// anywhere). The window sends the part it shows as it zooms into an overview.
    #[serde(default)]
    pub area: Option<GraphArea>,
}

impl Default for GraphFilter {
    fn default() -> Self {
        GraphFilter {
            kind: None,
            tag: None,
            folder: None,
            orphans_only: false,
            show_wanted: true,
            community: None,
            limit: None,
            area: None,
        }
    }
}

/// The graph as the window draws it, packed by column (one array per field, the same
/// index naming one node in each) so 10,000 nodes cross the wire without a key per value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphView {
    /// Each node's page id (`null`: a wanted page).
    pub page_ids: Vec<Option<PageId>>,
    /// Each node's title (a wanted page: its name as first linked).
    pub titles: Vec<String>,
    /// The nodes shown by a label other than their title, by index, ascending: nodes whose
    /// names read the same (the same key) are told apart — a saved answer titled as a topic
    /// or a wanted page reads `Crema (saved answer)`, a wanted page titled as a saved answer
    /// `Crema (wanted)`; a topic keeps its title, and so does every node not listed here
    /// ([`GraphView::label`]). Listed apart so the titles are not sent twice. (Notes that
    /// share a name are told apart by their titles already: `Parser/constructor`.)
    pub told_apart: Vec<GraphLabel>,
    /// Each node's kind.
    pub kinds: Vec<GraphNodeKind>,
    /// Each node's horizontal position in the stored layout.
    pub xs: Vec<f32>,
    /// Each node's vertical position.
    pub ys: Vec<f32>,
    /// Each node's size: how many nodes it is linked with, either way, in the whole graph.
    pub sizes: Vec<u32>,
    /// Each node's community label ([`NO_COMMUNITY`]: none yet, a draft of a first layout).
    pub communities: Vec<u32>,
    /// The edges, two node indices each (the linking page first), flattened.
    pub edges: Vec<u32>,
    /// How many nodes passed the filter (more than are here when `overview` is true).
    pub matched: u32,
    /// Whether only `limit` of the matching nodes are here (the largest, or those in the
    /// filter's `area` first).
    pub overview: bool,
    /// Whether every matching node inside the filter's `area` (no area: anywhere) is here:
    /// `true` unless `overview`. Zooming further into a part that is not whole shows more.
    pub area_whole: bool,
    /// The part of the layout every laid-out node of the whole graph lies in (`null`:
    /// nothing is laid out yet).
    pub bounds: Option<GraphArea>,
    /// The index of the node a local graph is centred on.
    pub centre: Option<u32>,
    /// The largest communities of the whole graph (at most 24), largest first.
    pub top_communities: Vec<CommunityView>,
    /// The stored layout's state.
    pub layout: GraphLayoutView,
}

/// One node found by [`Wiki::graph_search`], with where it sits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphHit {
    /// The page (`null`: a wanted page).
    pub page_id: Option<PageId>,
    /// Its title.
    pub title: String,
    /// What it is shown as: its title, or, when another node's name reads the same, a
    /// label that tells it apart (`Crema (saved answer)`, `Crema (wanted)`; the rule of
    /// [`GraphView::told_apart`]).
    pub label: String,
    /// Its kind.
    pub kind: GraphNodeKind,
    /// Where it sits (`null`: not laid out yet).
    pub x: Option<f32>,
    /// Where it sits.
    pub y: Option<f32>,
}

/// What the window shows of a node under the pointer or the keyboard focus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphNodeDetail {
    /// The page.
    pub page_id: PageId,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
}

impl GraphView {
    /// The view's columns, as the graph crate reads them.
    fn columns(&self) -> ViewColumns<'_, PageId> {
        ViewColumns {
            page_ids: &self.page_ids,
            titles: &self.titles,
            told_apart: &self.told_apart,
            kinds: &self.kinds,
            xs: &self.xs,
            ys: &self.ys,
            sizes: &self.sizes,
            communities: &self.communities,
            edges: &self.edges,
        }
    }

    /// What node `i` is shown as: its label when it is told apart
    /// ([`GraphView::told_apart`]), else its title.
    pub fn label(&self, i: usize) -> &str {
        self.columns().label(i)
    }

    /// The view as a record per node and per edge (`wikimind graph --json`).
    pub fn records(&self) -> GraphRecords {
        self.columns().records()
    }

    /// The view in Graphviz's DOT language (`wikimind graph --dot`): one statement per
    /// node (labelled by its label, at its position, wanted pages dashed) and per edge.
    pub fn dot(&self) -> String {
        self.columns().dot()
    }

    /// The view of `placed`'s nodes `keep` marks, at most `limit` of them (those in `area`
    /// first, then the largest).
    fn of(
        placed: &PlacedGraph<PageId>,
        keep: Vec<bool>,
        limit: Option<u32>,
        centre: Option<usize>,
        area: Option<&GraphArea>,
        layout: GraphLayoutView,
    ) -> GraphView {
        let chosen = placed.select(keep, limit, centre, area);
        let (graph, nodes) = (&placed.graph, &chosen.nodes);
        let sizes = graph.sizes();
        let at = |i: usize| placed.positions[i].unwrap_or_default();
        GraphView {
            page_ids: nodes.iter().map(|&i| graph.page_ids[i]).collect(),
            titles: nodes.iter().map(|&i| graph.titles[i].clone()).collect(),
            told_apart: chosen.told_apart,
            kinds: nodes.iter().map(|&i| graph.kinds[i]).collect(),
            xs: nodes.iter().map(|&i| at(i).0).collect(),
            ys: nodes.iter().map(|&i| at(i).1).collect(),
            sizes: nodes.iter().map(|&i| sizes[i]).collect(),
            communities: nodes.iter().map(|&i| placed.communities[i]).collect(),
            edges: chosen.edges,
            matched: chosen.matched,
            overview: chosen.overview,
            area_whole: chosen.area_whole,
            bounds: chosen.bounds,
            centre: chosen.centre,
            top_communities: chosen.top_communities,
            layout,
        }
    }
}

/// The stored layout's state as the window shows it.
fn layout_view(state: &GraphState) -> GraphLayoutView {
    let (laid_out, due, running) = (
        state.laid_out.is_some(),
        state.is_due(),
        state.running.is_some(),
    );
    GraphLayoutView::new(laid_out, due, running, state.nodes, state.took_ms)
}

/// The kind of node a page of `kind` is.
fn node_kind(kind: PageKind) -> GraphNodeKind {
    match kind {
        PageKind::Answer => GraphNodeKind::Answer,
        _ => GraphNodeKind::Topic,
    }
}

/// A stored page as the graph crate reads it.
fn page_node(page: &GraphPage) -> PageNode<'_, PageId> {
    PageNode {
        id: page.id,
        kind: node_kind(page.kind),
        title: &page.title,
        name_key: &page.name_key,
    }
}

/// A stored page link as the graph crate reads it.
fn link_edge(link: &GraphLink) -> LinkEdge<'_, PageId> {
    LinkEdge {
        from: link.from,
        to: link.to,
        target_title: &link.target_title,
        target_key: &link.target_key,
    }
}

/// The graph of every page and link.
fn graph_of(links: &GraphLinks) -> WikiGraph<PageId> {
    WikiGraph::new(
        links.pages.iter().map(page_node),
        links.links.iter().map(link_edge),
    )
}

/// Stores `relaid` as `owner` and says what it did (`None`: the lease was lost).
fn save(
    store: &Store,
    owner: &JobOwner,
    relaid: Relaid,
    of_changes: i64,
    changes_upto: i64,
    links_read: u64,
    started: Instant,
) -> Result<Option<GraphLaidOut>> {
    let took_ms = started.elapsed().as_millis() as u64;
    // A layout that lost its lease (paused past it) is older than the one whoever took
    // the lease saves: it is dropped, not stored over that one.
    let saved = store.save_graph_layout(
        owner,
        &relaid.upserts,
        &relaid.removed,
        GraphLayoutFigures {
            of_changes,
            nodes: relaid.nodes,
            edges: relaid.edges,
            took_ms,
            changes_upto,
        },
    )?;
    Ok(saved.then(|| relaid.laid_out(links_read, took_ms)))
}

impl Wiki {
    /// Brings the stored layout up to date when the wiki changed since it was made (see
    /// the module documentation), as `owner`: `None` when nothing was due or another
    /// process is laying it out now. `keep_going` is asked as the layout runs: `false`
    /// stops it and nothing is stored.
    pub fn lay_out_graph(
        &self,
        owner: &JobOwner,
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Option<GraphLaidOut>> {
        self.lay_out_graph_drafting(owner, keep_going, &|| {}, Duration::MAX)
    }

    /// [`Wiki::lay_out_graph`], storing a draft of a first layout (no layout stored yet)
    /// every `draft_every` while it runs ([`GRAPH_DRAFT_EVERY`] in the app) and calling
    /// `drafted` after each: the graph view then shows the nodes at their draft places,
    /// its layout's phase still [`GraphLayoutPhase::FirstLayout`].
    pub fn lay_out_graph_drafting(
        &self,
        owner: &JobOwner,
        keep_going: &dyn Fn() -> bool,
        drafted: &dyn Fn(),
        draft_every: Duration,
    ) -> Result<Option<GraphLaidOut>> {
        let store = self.store();
        let state = store.graph_state()?;
        if !state.is_due() {
            return Ok(None);
        }
        let here = owner.host.clone();
        if !store.take_graph_lease(owner, LEASE_STALE_AFTER, &|o| o.is_dead_here(&here))? {
            return Ok(None);
        }
        match self.lay_out_leased(owner, &state, keep_going, drafted, draft_every) {
            Ok(Some(done)) => Ok(Some(done)),
            other => {
                store.release_graph_lease(owner)?;
                other
            }
        }
    }

    fn lay_out_leased(
        &self,
        owner: &JobOwner,
        state: &GraphState,
        keep_going: &dyn Fn() -> bool,
        drafted: &dyn Fn(),
        draft_every: Duration,
    ) -> Result<Option<GraphLaidOut>> {
        let started = Instant::now();
        let store = self.store();
        let mut last_renewal = Instant::now();
        let mut keep = |_done: usize, _of: usize| {
            if last_renewal.elapsed() >= LEASE_RENEW_EVERY {
                last_renewal = Instant::now();
                let _ = store.renew_graph_lease(owner);
            }
            keep_going()
        };
        let rows = store.graph_nodes()?;
        // An update reads the links around what changed only, when the change log holds
        // every change since the stored layout and the layout stored every node's links
        // count; a change of more than a quarter of the graph reads every link instead.
        if state.changes_tracked() && !rows.is_empty() && rows.iter().all(|r| r.degree.is_some()) {
            let around = store.graph_links_changed()?;
            if around.changed_pages.len() + around.changed_keys.len() <= rows.len() / 4 + 16 {
                let changed = Changed {
                    pages: &around.changed_pages,
                    pages_now: around.pages.iter().map(|p| p.id).collect(),
                    keys: &around.changed_keys,
                    links: around.links.iter().map(link_edge).collect(),
                };
                match relay_changed(&rows, &changed, &mut keep) {
                    Some(Some(relaid)) if keep_going() => {
                        let read = around.links.len() as u64;
                        let upto = around.changes_upto;
                        return save(store, owner, relaid, state.changes, upto, read, started);
                    }
                    Some(_) => return Ok(None),
                    None => {}
                }
            }
        }
        // The links are dropped once the graph holds them: kept, they would double the
        // memory of a whole layout (about 50 MB at 100,000 pages).
        let (graph, changes_upto, links_read) = {
            let links = store.graph_links()?;
            (
                graph_of(&links),
                links.changes_upto,
                links.links.len() as u64,
            )
        };
        // A first layout stores drafts of itself as it settles (the window draws them);
        // one that fails to store is skipped: the layout goes on.
        let first = state.laid_out.is_none();
        let mut last_draft = Instant::now();
        let mut draft = |positions: &[wikimind_graph::Point]| {
            if !first || last_draft.elapsed() < draft_every {
                return;
            }
            if let Ok(true) = store.save_graph_draft(owner, &draft_rows(&graph, positions)) {
                drafted();
            }
            last_draft = Instant::now();
        };
        match relay_whole(&graph, rows, &mut keep, &mut draft) {
            Some(relaid) if keep_going() => save(
                store,
                owner,
                relaid,
                state.changes,
                changes_upto,
                links_read,
                started,
            ),
            _ => Ok(None),
        }
    }

    /// The stored layout's state.
    pub fn graph_layout_state(&self) -> Result<GraphLayoutView> {
        Ok(layout_view(&self.store().graph_state()?))
    }

    /// The whole graph narrowed by `filter` (see [`GraphFilter`]), at the stored positions;
    /// nodes not laid out yet are left out until the layout places them.
    pub fn graph(&self, filter: &GraphFilter) -> Result<GraphView> {
        let (placed, layout) = self.placed_graph()?;
        let keep = placed
            .graph
            .passing(&self.node_filter(filter)?, &placed.communities);
        let area = filter.area.as_ref();
        Ok(GraphView::of(
            &placed,
            keep,
            filter.limit,
            None,
            area,
            layout,
        ))
    }

    /// [`Wiki::graph`] after bringing the layout up to date in this process (the CLI: it
    /// prints positions of the wiki as it is).
    pub fn laid_out_graph(&self, filter: &GraphFilter) -> Result<GraphView> {
        self.lay_out_graph(&JobOwner::this_process(), &|| true)?;
        self.graph(filter)
    }

    /// The local graph of `page`: the nodes within `depth` links of it (1 to
    /// [`MAX_DEPTH`]; links both ways), wanted pages among them when `show_wanted`.
    pub fn local_graph(&self, page: PageId, depth: u32, show_wanted: bool) -> Result<GraphView> {
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(WikiError::Refused(format!(
                "a local graph reaches 1 to {MAX_DEPTH} links deep, not {depth}"
            )));
        }
        let (placed, layout) = self.placed_graph()?;
        let Some(start) = placed.graph.node_of(page) else {
            return Err(WikiError::NoSuchPage(page.to_string()));
        };
        let keep = placed.graph.within(start, depth, show_wanted);
        Ok(GraphView::of(
            &placed,
            keep,
            Some(u32::MAX),
            Some(start),
            None,
            layout,
        ))
    }

    /// [`Wiki::local_graph`] of the page a person names (title, alias, id).
    pub fn local_graph_named(
        &self,
        name: &str,
        depth: u32,
        show_wanted: bool,
    ) -> Result<GraphView> {
        let page = self.page_named(name)?;
        self.local_graph(page, depth, show_wanted)
    }

    /// [`Wiki::local_graph_named`] after bringing the layout up to date in this process (the
    /// CLI's `graph --local`).
    pub fn laid_out_local_graph(
        &self,
        name: &str,
        depth: u32,
        show_wanted: bool,
    ) -> Result<GraphView> {
        let page = self.page_named(name)?;
        self.lay_out_graph(&JobOwner::this_process(), &|| true)?;
        self.local_graph(page, depth, show_wanted)
    }

    /// Nodes whose title matches `query`, best first, with where they sit: pages by the
    /// wiki's search, then wanted pages whose name holds the query.
    pub fn graph_search(&self, query: &str) -> Result<Vec<GraphHit>> {
        let query = query.trim();
        if query.is_empty() {
            return Ok(Vec::new());
        }
        let (placed, _) = self.placed_graph()?;
        let found = self.search(query)?.into_iter().map(|hit| hit.page_id);
        let graph = &placed.graph;
        let sharing = graph.sharing();
        Ok(graph
            .search(found, query)
            .into_iter()
            .map(|i| GraphHit {
                page_id: graph.page_ids[i],
                title: graph.titles[i].clone(),
                label: graph.label(i, &sharing),
                kind: graph.kinds[i],
                x: placed.positions[i].map(|p| p.0),
                y: placed.positions[i].map(|p| p.1),
            })
            .collect())
    }

    /// A page's title and summary, for the node under the pointer or the focus (`None`:
    /// no such page).
    pub fn graph_node_detail(&self, page: PageId) -> Result<Option<GraphNodeDetail>> {
        let Some(summary) = self.store().page_summary(page)? else {
            return Ok(None);
        };
        let title = self
            .store()
            .page(page)?
            .map(|p| p.title)
            .unwrap_or_default();
        Ok(Some(GraphNodeDetail {
            page_id: page,
            title,
            summary,
        }))
    }

    /// The whole graph at its stored places, with the stored layout's state.
    fn placed_graph(&self) -> Result<(PlacedGraph<PageId>, GraphLayoutView)> {
        let store = self.store();
        let graph = graph_of(&store.graph_links()?);
        let state = store.graph_state()?;
        let placed = PlacedGraph::new(graph, store.graph_nodes()?);
        Ok((placed, layout_view(&state)))
    }

    /// `filter` as the graph crate applies it: the tag and folder filters read as the pages
    /// they leave.
    fn node_filter(&self, filter: &GraphFilter) -> Result<NodeFilter<PageId>> {
        let asked = |f: &Option<String>| f.clone().filter(|f| !f.trim().is_empty());
        let tagged = match asked(&filter.tag) {
            Some(tag) => {
                let pages = self.store().pages()?.into_iter();
                Some(
                    pages
                        .filter(|p| tags_have(&p.tags, &tag))
                        .map(|p| p.id)
                        .collect(),
                )
            }
            None => None,
        };
        let in_folder = match asked(&filter.folder) {
            Some(folder) => {
                let origins = self.store().page_origins()?.into_iter();
                let inside = origins.filter(|(_, origin)| origin_in_folder(origin, &folder));
                Some(inside.map(|(page, _)| page).collect())
            }
            None => None,
        };
        Ok(NodeFilter {
            kind: filter.kind.map(node_kind),
            tagged,
            in_folder,
            orphans_only: filter.orphans_only,
            show_wanted: filter.show_wanted,
            community: filter.community,
        })
    }
}
