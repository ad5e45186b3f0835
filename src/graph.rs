//! The graph view: the wiki's pages and wanted pages as nodes, resolved links as edges,
//! laid out in the core ([`wikimind_graph`]) with positions and communities stored, and
//! every filter of the view a rule here (the shells and the window hold none).
//!
//! **Nodes.** Every page (topic or answer) is a node, named `p<id>`; every name links reach
//! that no page has (a wanted page) is one node, named `w<key>`, titled by its first
//! spelling. Nodes are ordered pages by id, then wanted pages by key: the layout and the
//! communities see them in that order, so the same database gives the same picture.
//! **Edges** are page links as pages resolve them (a link to a page's former title reaches
//! the page), one per ordered pair, a page's links to itself left out. A node's **size** is
//! how many nodes it is linked with, either way.
//!
//! **Layout.** [`Wiki::lay_out_graph`] brings the stored layout up to date: a whole layout
//! the first time (or when more than half the nodes are new), else an incremental one (new
//! nodes beside their neighbours; nodes whose links changed move a little; the rest stay).
//! The job runner calls it once a run's page jobs are done (a queued layout, so a CLI
//! compile keeps it current too); the store counts every change of pages and links, so a
//! layout is due exactly when something changed since the last one. The store also logs
//! which pages and names each change touched, so an update reads only the links from and
//! to the nodes that changed, and takes every other node's place, community and links count
//! as stored (`update`); the whole graph is read for a first layout, a change of more than
//! a quarter of it, or a layout stored by an older build. An update's communities move the
//! new and relinked nodes one by one (Louvain's move of one node) and leave the rest; a
//! whole layout runs Louvain afresh.
//!
//! **Filters** ([`GraphFilter`]): kind, tag (as the library's tag filter reads it), folder
//! of the notes that feed a page, orphans only (pages no other page links to, as `lint`
//! counts them), wanted pages shown or hidden, one community. Above [`GraphFilter::limit`]
//! nodes the view is the overview: the largest nodes only, with the communities to zoom
//! into (a community filter then loads all of its nodes).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;
use wikimind_graph::community::communities;
use wikimind_graph::layout::{lay_out, LayoutInput, Settings as LayoutSettings};
use wikimind_graph::Point;

use crate::reading::tags_have;
use crate::store::{
    GraphLayoutFigures, GraphLinks, GraphNodeRow, GraphState, JobOwner, PageId, PageKind,
};
use crate::wiki::{Result, Wiki, WikiError};

mod update;

/// The nodes the window gets at most at once unless it asks otherwise: above this the
/// view is the overview (the largest nodes) and a community is loaded when chosen.
pub const DEFAULT_NODE_LIMIT: u32 = 12_000;
/// The deepest local graph.
pub const MAX_DEPTH: u32 = 3;
/// A layout lease not renewed for this long belongs to a process that died.
const LEASE_STALE_AFTER: Duration = Duration::from_secs(60);
/// How often a running layout renews its lease.
const LEASE_RENEW_EVERY: Duration = Duration::from_secs(5);
/// The most hits [`Wiki::graph_search`] returns.
const SEARCH_HITS: usize = 20;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum GraphNodeKind {
    /// A topic page.
    Topic,
    /// A saved answer.
    Answer,
    /// A name links reach that no page has.
    Wanted,
}

impl GraphNodeKind {
    /// The name the CLI and the docs use.
    pub fn as_str(self) -> &'static str {
        match self {
            GraphNodeKind::Topic => "topic",
            GraphNodeKind::Answer => "answer",
            GraphNodeKind::Wanted => "wanted",
        }
    }
}

/// Which nodes the graph view shows. The default shows everything up to
/// [`DEFAULT_NODE_LIMIT`] nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
        }
    }
}

/// Where the stored layout stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum GraphLayoutPhase {
    /// The layout is of the wiki as it is.
    Current,
    /// The wiki changed since; an update is due or running, the older positions are shown.
    Updating,
    /// No layout yet: the first one is due or running, and nothing can be drawn until it
    /// is done.
    FirstLayout,
}

/// The stored layout's state, as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphLayoutView {
    /// Where it stands.
    pub phase: GraphLayoutPhase,
    /// Whether a process is laying the graph out now.
    pub running: bool,
    /// Nodes in the stored layout.
    pub laid_out_nodes: u32,
    /// How long the last layout took, in milliseconds.
    pub took_ms: u32,
}

impl GraphLayoutView {
    fn of(state: &GraphState) -> GraphLayoutView {
        GraphLayoutView {
            phase: match (state.laid_out, state.is_due()) {
                (None, _) => GraphLayoutPhase::FirstLayout,
                (Some(_), true) => GraphLayoutPhase::Updating,
                (Some(_), false) => GraphLayoutPhase::Current,
            },
            running: state.running.is_some(),
            laid_out_nodes: u32::try_from(state.nodes).unwrap_or(u32::MAX),
            took_ms: u32::try_from(state.took_ms).unwrap_or(u32::MAX),
        }
    }
}

/// A community as the overview lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CommunityView {
    /// Its label (the `communities` value of its nodes).
    pub label: u32,
    /// How many nodes it has in the whole graph.
    pub size: u32,
    /// The label of its largest node ([`GraphView::told_apart`]).
    pub title: String,
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
    /// Each node's community label.
    pub communities: Vec<u32>,
    /// The edges, two node indices each (the linking page first), flattened.
    pub edges: Vec<u32>,
    /// How many nodes passed the filter (more than are here when `overview` is true).
    pub matched: u32,
    /// Whether only the largest `limit` of the matching nodes are here.
    pub overview: bool,
    /// The index of the node a local graph is centred on.
    pub centre: Option<u32>,
    /// The largest communities of the whole graph (at most 24), largest first.
    pub top_communities: Vec<CommunityView>,
    /// The stored layout's state.
    pub layout: GraphLayoutView,
}

/// A node of a [`GraphView`] shown by a label other than its title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphLabel {
    /// The node's index in the view.
    pub node: u32,
    /// What it is shown as.
    pub label: String,
}

/// One node found by [`Wiki::graph_search`], with where it sits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphHit {
    /// The page (`null`: a wanted page).
    pub page_id: Option<PageId>,
    /// Its title.
    pub title: String,
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

/// What a layout run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphLaidOut {
    /// Nodes laid out.
    pub nodes: u64,
    /// Pairs of linked nodes (two pages linking each other are one pair).
    pub edges: u64,
    /// Whether it was incremental.
    pub incremental: bool,
    /// Nodes that moved (all of them in a whole layout).
    pub moved: u64,
    /// Nodes whose stored row changed.
    pub written: u64,
    /// Page links read to make it: every link, or (an update from the change log) the links
    /// from and to the nodes that changed.
    pub links_read: u64,
    /// How long it took, in milliseconds.
    pub took_ms: u64,
}

/// The graph as `wikimind graph --json` prints it: a record per node and per edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphRecords {
    /// Every node shown.
    pub nodes: Vec<GraphNodeRecord>,
    /// Every edge between nodes shown.
    pub edges: Vec<GraphEdgeRecord>,
}

/// One node of [`GraphRecords`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNodeRecord {
    /// The page id; `null` for a wanted page.
    pub id: Option<PageId>,
    /// The title (a wanted page: its name).
    pub title: String,
    /// What tells it apart from nodes whose names read the same ([`GraphView::told_apart`]):
    /// its title, or `Crema (saved answer)`, `Crema (wanted)`.
    pub label: String,
    /// `topic`, `answer` or `wanted`.
    pub kind: GraphNodeKind,
    /// Position.
    pub x: f32,
    /// Position.
    pub y: f32,
    /// How many nodes it is linked with.
    pub size: u32,
    /// Its community.
    pub community: u32,
}

/// One edge of [`GraphRecords`]: page ids; a link to a wanted page has `target: null` and
/// the wanted page's name as `target_title`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphEdgeRecord {
    /// The linking page.
    pub source: Option<PageId>,
    /// The linked page (`null`: a wanted page).
    pub target: Option<PageId>,
    /// The wanted page's name, for a link to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_title: Option<String>,
}

impl GraphView {
    /// What node `i` is shown as: its label when it is told apart
    /// ([`GraphView::told_apart`]), else its title.
    pub fn label(&self, i: usize) -> &str {
        self.told_apart
            .binary_search_by_key(&(i as u32), |l| l.node)
            .map_or(self.titles[i].as_str(), |at| {
                self.told_apart[at].label.as_str()
            })
    }

    /// The view as a record per node and per edge (`wikimind graph --json`).
    pub fn records(&self) -> GraphRecords {
        let nodes = (0..self.titles.len())
            .map(|i| GraphNodeRecord {
                id: self.page_ids[i],
                title: self.titles[i].clone(),
                label: self.label(i).to_owned(),
                kind: self.kinds[i],
                x: self.xs[i],
                y: self.ys[i],
                size: self.sizes[i],
                community: self.communities[i],
            })
            .collect();
        let edges = self
            .edges
            .chunks_exact(2)
            .map(|pair| {
                let (s, t) = (pair[0] as usize, pair[1] as usize);
                GraphEdgeRecord {
                    source: self.page_ids[s],
                    target: self.page_ids[t],
                    target_title: self.page_ids[t].is_none().then(|| self.titles[t].clone()),
                }
            })
            .collect();
        GraphRecords { nodes, edges }
    }

    /// The view in Graphviz's DOT language (`wikimind graph --dot`): one statement per
    /// node (labelled by its label, at its position, wanted pages dashed) and per edge.
    pub fn dot(&self) -> String {
        let mut out = String::from("digraph wiki {\n  node [shape=box];\n");
        for i in 0..self.titles.len() {
            let style = match self.kinds[i] {
                GraphNodeKind::Wanted => ", style=dashed",
                GraphNodeKind::Answer => ", shape=note",
                GraphNodeKind::Topic => "",
            };
            out.push_str(&format!(
                "  n{i} [label={}, pos=\"{:.1},{:.1}\"{style}];\n",
                dot_string(self.label(i)),
                self.xs[i],
                self.ys[i]
            ));
        }
        for pair in self.edges.chunks_exact(2) {
            out.push_str(&format!("  n{} -> n{};\n", pair[0], pair[1]));
        }
        out.push_str("}\n");
        out
    }
}

/// A DOT string literal: quotes and backslashes escaped, line breaks as `\n`, other
/// control characters dropped.
fn dot_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The wiki's graph in node order, with each node's neighbours.
struct Model {
    keys: Vec<String>,
    page_ids: Vec<Option<PageId>>,
    titles: Vec<String>,
    /// The key of each node's name (`GraphPage::name_key`; a wanted page's own key).
    name_keys: Vec<String>,
    kinds: Vec<GraphNodeKind>,
    /// Directed edges, one per ordered pair, in the order pages and their links come.
    edges: Vec<(u32, u32)>,
    /// Undirected neighbours of each node, ascending.
    neighbours: Vec<Vec<u32>>,
    /// Whether another page links to the node.
    linked_to: Vec<bool>,
}

impl Model {
    fn of(links: &GraphLinks) -> Model {
        let mut keys = Vec::new();
        let mut page_ids = Vec::new();
        let mut titles = Vec::new();
        let mut name_keys = Vec::new();
        let mut kinds = Vec::new();
        let mut index: HashMap<PageId, u32> = HashMap::new();
        for page in &links.pages {
            index.insert(page.id, keys.len() as u32);
            keys.push(format!("p{}", page.id.0));
            page_ids.push(Some(page.id));
            titles.push(page.title.clone());
            name_keys.push(page.name_key.clone());
            kinds.push(match page.kind {
                PageKind::Answer => GraphNodeKind::Answer,
                _ => GraphNodeKind::Topic,
            });
        }
        let mut wanted: BTreeMap<&str, &str> = BTreeMap::new();
        for link in &links.links {
            if link.to.is_none() && !link.target_key.is_empty() {
                wanted
                    .entry(link.target_key.as_str())
                    .or_insert(link.target_title.as_str());
            }
        }
        let mut wanted_index: HashMap<&str, u32> = HashMap::new();
        for (key, title) in wanted {
            wanted_index.insert(key, keys.len() as u32);
            keys.push(format!("w{key}"));
            page_ids.push(None);
            titles.push(title.to_owned());
            name_keys.push(key.to_owned());
            kinds.push(GraphNodeKind::Wanted);
        }
        let mut seen = std::collections::HashSet::new();
        let mut edges = Vec::new();
        for link in &links.links {
            let Some(&from) = index.get(&link.from) else {
                continue;
            };
            let to = match link.to {
                Some(page) => index.get(&page).copied(),
                None => wanted_index.get(link.target_key.as_str()).copied(),
            };
            let Some(to) = to else { continue };
            if from != to && seen.insert((from, to)) {
                edges.push((from, to));
            }
        }
        let neighbours = wikimind_graph::neighbours(keys.len(), &edges);
        let mut linked_to = vec![false; keys.len()];
        for &(_, to) in &edges {
            linked_to[to as usize] = true;
        }
        Model {
            keys,
            page_ids,
            titles,
            name_keys,
            kinds,
            edges,
            neighbours,
            linked_to,
        }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// How many nodes' names have each key.
    fn sharing(&self) -> HashMap<&str, u32> {
        let mut sharing: HashMap<&str, u32> = HashMap::new();
        for key in &self.name_keys {
            *sharing.entry(key.as_str()).or_default() += 1;
        }
        sharing
    }

    /// Node `i`'s label (see [`GraphView::told_apart`]; `sharing` is [`Model::sharing`]): its
    /// title, or, when another node's name reads the same (one key), a title that tells it
    /// apart. One key names at most a topic or a wanted page (a name a page has is not
    /// wanted) and a saved answer (answers' keys are kept apart from topics'), so the topic
    /// keeps its plain title, a saved answer reads `Crema (saved answer)` and a wanted page
    /// `Crema (wanted)`.
    fn label(&self, i: usize, sharing: &HashMap<&str, u32>) -> String {
        let title = &self.titles[i];
        if sharing
            .get(self.name_keys[i].as_str())
            .copied()
            .unwrap_or(0)
            < 2
        {
            return title.clone();
        }
        match self.kinds[i] {
            GraphNodeKind::Topic => title.clone(),
            GraphNodeKind::Answer => format!("{title} (saved answer)"),
            GraphNodeKind::Wanted => format!("{title} (wanted)"),
        }
    }

    /// A hash of a node's neighbours (by name), stable across runs and machines (FNV-1a).
    fn links_hash(&self, i: usize) -> i64 {
        links_hash(
            self.neighbours[i]
                .iter()
                .map(|&j| self.keys[j as usize].as_str())
                .collect(),
        )
    }

    /// How many pairs of nodes are linked (either way).
    fn linked_pairs(&self) -> u64 {
        self.neighbours.iter().map(|a| a.len() as u64).sum::<u64>() / 2
    }
}

/// A hash of a node's neighbours' names (any order), stable across runs and machines
/// (FNV-1a over the names sorted): what `graph_nodes.links_hash` holds.
fn links_hash(mut names: Vec<&str>) -> i64 {
    names.sort_unstable();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for name in names {
        for byte in name.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash as i64
}

impl Model {}

/// Whether a note at `origin` lies inside `folder` (a path or its last parts; sub-folders
/// count). Separators may be `/` or `\`.
pub fn origin_in_folder(origin: &str, folder: &str) -> bool {
    let folder = folder.replace('\\', "/");
    let folder = folder.trim().trim_matches('/');
    if folder.is_empty() {
        return true;
    }
    let origin = origin.replace('\\', "/");
    let Some((dir, _file)) = origin.rsplit_once('/') else {
        return false;
    };
    format!("/{}/", dir.trim_start_matches('/')).contains(&format!("/{folder}/"))
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
        let store = self.store();
        let state = store.graph_state()?;
        if !state.is_due() {
            return Ok(None);
        }
        let here = owner.host.clone();
        if !store.take_graph_lease(owner, LEASE_STALE_AFTER, &|o| o.is_dead_here(&here))? {
            return Ok(None);
        }
        match self.lay_out_leased(owner, &state, keep_going) {
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
    ) -> Result<Option<GraphLaidOut>> {
        let started = Instant::now();
        let of_changes = state.changes;
        let store = self.store();
        let rows = store.graph_nodes()?;
        // An update reads the links around what changed only, when the change log holds
        // every change since the stored layout and the layout stored every node's links
        // count; a change of more than a quarter of the graph reads every link instead.
        if state.changes_tracked() && !rows.is_empty() && rows.iter().all(|r| r.degree.is_some()) {
            let around = store.graph_links_changed()?;
            if around.changed_pages.len() + around.changed_keys.len() <= rows.len() / 4 + 16 {
                let leased = update::Leased {
                    owner,
                    of_changes,
                    keep_going,
                    started,
                };
                if let Some(done) = update::lay_out_changed(store, &leased, around, &rows)? {
                    return Ok(done);
                }
            }
        }
        // The links are dropped once the model holds them: kept, they would double the
        // memory of a whole layout (about 50 MB at 100,000 pages).
        let (model, changes_upto, links_read) = {
            let links = store.graph_links()?;
            let read = links.links.len() as u64;
            (Model::of(&links), links.changes_upto, read)
        };
        let stored: HashMap<String, GraphNodeRow> = rows
            .into_iter()
            .map(|row| (row.node.clone(), row))
            .collect();
        let n = model.len();
        let hashes: Vec<i64> = (0..n).map(|i| model.links_hash(i)).collect();
        let mut previous: Vec<Option<Point>> = Vec::with_capacity(n);
        let mut changed = Vec::with_capacity(n);
        let mut labels: Vec<Option<u32>> = Vec::with_capacity(n);
        for (i, key) in model.keys.iter().enumerate() {
            let row = stored.get(key);
            previous.push(row.map(|r| Point::new(r.x, r.y)));
            changed.push(row.is_some_and(|r| r.links_hash != hashes[i]));
            labels.push(row.map(|r| r.community));
        }
        // Mostly new nodes (a first compile of a vault): a whole layout draws them better
        // than placing each beside the few there were.
        let placed = previous.iter().filter(|p| p.is_some()).count();
        if placed * 2 < n {
            previous.clear();
            changed.clear();
        }
        let input = LayoutInput {
            nodes: n,
            edges: model.edges.clone(),
            previous,
            changed,
            masses: Vec::new(),
        };
        let mut last_renewal = Instant::now();
        let mut keep = |_done: usize, _of: usize| {
            if last_renewal.elapsed() >= LEASE_RENEW_EVERY {
                last_renewal = Instant::now();
                let _ = store.renew_graph_lease(owner);
            }
            keep_going()
        };
        let Some(layout) = lay_out(&input, &LayoutSettings::default(), &mut keep) else {
            return Ok(None);
        };
        if !keep_going() {
            return Ok(None);
        }
        let community = communities(n, &model.edges, &labels);
        let mut upserts = Vec::new();
        for i in 0..n {
            let row = GraphNodeRow {
                node: model.keys[i].clone(),
                x: layout.positions[i].x,
                y: layout.positions[i].y,
                community: community[i],
                links_hash: hashes[i],
                degree: Some(model.neighbours[i].len() as u32),
            };
            if stored.get(&row.node) != Some(&row) {
                upserts.push(row);
            }
        }
        let keys: std::collections::HashSet<&str> = model.keys.iter().map(String::as_str).collect();
        let removed: Vec<String> = stored
            .keys()
            .filter(|k| !keys.contains(k.as_str()))
            .cloned()
            .collect();
        let took_ms = started.elapsed().as_millis() as u64;
        // A layout that lost its lease (paused past it) is older than the one whoever took
        // the lease saves: it is dropped, not stored over that one.
        let saved = store.save_graph_layout(
            owner,
            &upserts,
            &removed,
            GraphLayoutFigures {
                of_changes,
                nodes: n as u64,
                edges: model.linked_pairs(),
                took_ms,
                changes_upto,
            },
        )?;
        if !saved {
            return Ok(None);
        }
        Ok(Some(GraphLaidOut {
            nodes: n as u64,
            edges: model.linked_pairs(),
            incremental: layout.incremental,
            moved: layout.moved as u64,
            written: (upserts.len() + removed.len()) as u64,
            links_read,
            took_ms,
        }))
    }

    /// The stored layout's state.
    pub fn graph_layout_state(&self) -> Result<GraphLayoutView> {
        Ok(GraphLayoutView::of(&self.store().graph_state()?))
    }

    /// The whole graph narrowed by `filter` (see [`GraphFilter`]), at the stored positions;
    /// nodes not laid out yet are left out until the layout places them.
    pub fn graph(&self, filter: &GraphFilter) -> Result<GraphView> {
        let loaded = self.load_graph()?;
        let keep = self.graph_filter(&loaded, filter)?;
        Ok(loaded.view(keep, filter.limit, None))
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
        let loaded = self.load_graph()?;
        let Some(start) = loaded.model.page_ids.iter().position(|p| *p == Some(page)) else {
            return Err(WikiError::NoSuchPage(page.to_string()));
        };
        let n = loaded.model.len();
        let mut distance = vec![u32::MAX; n];
        distance[start] = 0;
        let mut queue = VecDeque::from([start]);
        while let Some(i) = queue.pop_front() {
            if distance[i] == depth {
                continue;
            }
            for &j in &loaded.model.neighbours[i] {
                let j = j as usize;
                if distance[j] == u32::MAX {
                    distance[j] = distance[i] + 1;
                    // A wanted page ends a path: it links nowhere.
                    if loaded.model.kinds[j] != GraphNodeKind::Wanted {
                        queue.push_back(j);
                    }
                }
            }
        }
        let keep: Vec<bool> = (0..n)
            .map(|i| {
                distance[i] != u32::MAX
                    && (show_wanted || loaded.model.kinds[i] != GraphNodeKind::Wanted)
            })
            .collect();
        Ok(loaded.view(keep, Some(u32::MAX), Some(start)))
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
        let loaded = self.load_graph()?;
        let by_page: HashMap<PageId, usize> = loaded
            .model
            .page_ids
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (p, i)))
            .collect();
        let mut hits = Vec::new();
        let push = |i: usize, hits: &mut Vec<GraphHit>| {
            let at = loaded.positions[i];
            hits.push(GraphHit {
                page_id: loaded.model.page_ids[i],
                title: loaded.model.titles[i].clone(),
                kind: loaded.model.kinds[i],
                x: at.map(|p| p.0),
                y: at.map(|p| p.1),
            });
        };
        for hit in self.search(query)? {
            if let Some(&i) = by_page.get(&hit.page_id) {
                push(i, &mut hits);
            }
        }
        let lower = query.to_lowercase();
        for i in 0..loaded.model.len() {
            if hits.len() >= SEARCH_HITS {
                break;
            }
            if loaded.model.kinds[i] == GraphNodeKind::Wanted
                && loaded.model.titles[i].to_lowercase().contains(&lower)
            {
                push(i, &mut hits);
            }
        }
        hits.truncate(SEARCH_HITS);
        Ok(hits)
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

    fn load_graph(&self) -> Result<LoadedGraph> {
        let store = self.store();
        let model = Model::of(&store.graph_links()?);
        let state = store.graph_state()?;
        let stored: HashMap<String, GraphNodeRow> = store
            .graph_nodes()?
            .into_iter()
            .map(|row| (row.node.clone(), row))
            .collect();
        let mut positions = Vec::with_capacity(model.len());
        let mut communities = Vec::with_capacity(model.len());
        for key in &model.keys {
            let row = stored.get(key);
            positions.push(row.map(|r| (r.x as f32, r.y as f32)));
            communities.push(row.map_or(u32::MAX, |r| r.community));
        }
        Ok(LoadedGraph {
            model,
            positions,
            communities,
            layout: GraphLayoutView::of(&state),
        })
    }

    /// Which nodes pass `filter` (before the limit).
    fn graph_filter(&self, loaded: &LoadedGraph, filter: &GraphFilter) -> Result<Vec<bool>> {
        let model = &loaded.model;
        let tags: Option<HashMap<PageId, Vec<String>>> = match &filter.tag {
            Some(tag) if !tag.trim().is_empty() => Some(
                self.store()
                    .pages()?
                    .into_iter()
                    .map(|p| (p.id, p.tags))
                    .collect(),
            ),
            _ => None,
        };
        let folders: Option<std::collections::HashSet<PageId>> = match &filter.folder {
            Some(folder) if !folder.trim().is_empty() => Some(
                self.store()
                    .page_origins()?
                    .into_iter()
                    .filter(|(_, origin)| origin_in_folder(origin, folder))
                    .map(|(page, _)| page)
                    .collect(),
            ),
            _ => None,
        };
        Ok((0..model.len())
            .map(|i| {
                let kind = model.kinds[i];
                if kind == GraphNodeKind::Wanted {
                    return filter.show_wanted
                        && filter.kind.is_none()
                        && tags.is_none()
                        && folders.is_none()
                        && !filter.orphans_only
                        && filter.community.is_none_or(|c| loaded.communities[i] == c);
                }
                let page = model.page_ids[i].unwrap_or(PageId(0));
                let kind_ok = match filter.kind {
                    Some(PageKind::Answer) => kind == GraphNodeKind::Answer,
                    Some(_) => kind == GraphNodeKind::Topic,
                    None => true,
                };
                kind_ok
                    && tags.as_ref().is_none_or(|t| {
                        t.get(&page).is_some_and(|tags| {
                            tags_have(tags, filter.tag.as_deref().unwrap_or(""))
                        })
                    })
                    && folders.as_ref().is_none_or(|f| f.contains(&page))
                    && (!filter.orphans_only || !model.linked_to[i])
                    && filter.community.is_none_or(|c| loaded.communities[i] == c)
            })
            .collect())
    }
}

/// The graph with its stored places.
struct LoadedGraph {
    model: Model,
    positions: Vec<Option<(f32, f32)>>,
    communities: Vec<u32>,
    layout: GraphLayoutView,
}

impl LoadedGraph {
    /// The view of the nodes `keep` marks (those laid out), the largest `limit` of them.
    fn view(&self, mut keep: Vec<bool>, limit: Option<u32>, centre: Option<usize>) -> GraphView {
        let model = &self.model;
        let n = model.len();
        for (i, k) in keep.iter_mut().enumerate() {
            *k = *k && self.positions[i].is_some();
        }
        let sizes: Vec<u32> = model.neighbours.iter().map(|a| a.len() as u32).collect();
        let matched: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
        let limit = limit.unwrap_or(DEFAULT_NODE_LIMIT) as usize;
        let overview = matched.len() > limit;
        let mut chosen = matched.clone();
        if overview {
            chosen.sort_by_key(|&i| (std::cmp::Reverse(sizes[i]), i));
            chosen.truncate(limit);
            if let Some(c) = centre {
                if keep[c] && !chosen.contains(&c) {
                    chosen.push(c);
                }
            }
            chosen.sort_unstable();
        }
        let mut index = vec![u32::MAX; n];
        for (at, &i) in chosen.iter().enumerate() {
            index[i] = at as u32;
        }
        let mut edges = Vec::new();
        for &(a, b) in &model.edges {
            let (ia, ib) = (index[a as usize], index[b as usize]);
            if ia != u32::MAX && ib != u32::MAX {
                edges.push(ia);
                edges.push(ib);
            }
        }
        // The largest communities, each named by its largest node.
        let mut community_size: HashMap<u32, (u32, usize)> = HashMap::new();
        for i in 0..n {
            let label = self.communities[i];
            if label == u32::MAX {
                continue;
            }
            let entry = community_size.entry(label).or_insert((0, i));
            entry.0 += 1;
            if (sizes[i], std::cmp::Reverse(i)) > (sizes[entry.1], std::cmp::Reverse(entry.1)) {
                entry.1 = i;
            }
        }
        let mut top: Vec<(u32, u32, usize)> = community_size
            .into_iter()
            .map(|(label, (size, largest))| (label, size, largest))
            .collect();
        top.sort_by_key(|&(label, size, _)| (std::cmp::Reverse(size), label));
        top.truncate(24);
        let sharing = model.sharing();
        GraphView {
            page_ids: chosen.iter().map(|&i| model.page_ids[i]).collect(),
            titles: chosen.iter().map(|&i| model.titles[i].clone()).collect(),
            told_apart: chosen
                .iter()
                .enumerate()
                .filter_map(|(at, &i)| {
                    let label = model.label(i, &sharing);
                    (label != model.titles[i]).then_some(GraphLabel {
                        node: at as u32,
                        label,
                    })
                })
                .collect(),
            kinds: chosen.iter().map(|&i| model.kinds[i]).collect(),
            xs: chosen
                .iter()
                .map(|&i| self.positions[i].map_or(0.0, |p| p.0))
                .collect(),
            ys: chosen
                .iter()
                .map(|&i| self.positions[i].map_or(0.0, |p| p.1))
                .collect(),
            sizes: chosen.iter().map(|&i| sizes[i]).collect(),
            communities: chosen.iter().map(|&i| self.communities[i]).collect(),
            edges,
            matched: matched.len() as u32,
            overview,
            centre: centre.and_then(|c| (index[c] != u32::MAX).then_some(index[c])),
            top_communities: top
                .into_iter()
                .map(|(label, size, largest)| CommunityView {
                    label,
                    size,
                    title: model.label(largest, &sharing),
                })
                .collect(),
            layout: self.layout.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_matches_a_note_inside_it_or_its_sub_folders() {
        assert!(origin_in_folder("/v/notes/coffee/Espresso.md", "notes"));
        assert!(origin_in_folder(
            "/v/notes/coffee/Espresso.md",
            "notes/coffee/"
        ));
        assert!(origin_in_folder("/v/notes/coffee/Espresso.md", "/v/notes"));
        assert!(origin_in_folder("C:\\v\\notes\\E.md", "notes"));
        assert!(!origin_in_folder("/v/notes-old/E.md", "notes"));
        assert!(!origin_in_folder("/v/coffee.md", "coffee"));
        assert!(!origin_in_folder("note:12", "notes"));
    }

    #[test]
    fn dot_strings_escape_what_would_break_the_file() {
        assert_eq!(
            dot_string("a \"b\" \\ c\nd\u{7}"),
            "\"a \\\"b\\\" \\\\ c\\nd\""
        );
    }
}
