//! The graph view's rules over a [`WikiGraph`] and its stored places ([`PlacedGraph`]):
//! which nodes a view shows ([`PlacedGraph::select`]: above its limit the overview of the
//! largest nodes, with the communities to zoom into), how nodes whose names read the same
//! are told apart, and the view as records and as Graphviz DOT ([`ViewColumns`]); with the
//! view's records that hold no page id (the app's view, which does, is built from these).

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::nodes::WikiGraph;
use crate::stored::GraphNodeRow;

/// The nodes the window gets at most at once unless it asks otherwise: above this the
/// view is the overview (the largest nodes) and a community is loaded when chosen.
pub const DEFAULT_NODE_LIMIT: u32 = 12_000;
/// A node's community when it has none yet: its place is a draft of a first layout still
/// running, or it is not laid out.
pub const NO_COMMUNITY: u32 = u32::MAX;
/// The deepest local graph.
pub const MAX_DEPTH: u32 = 3;
/// The most hits a graph search returns.
pub const SEARCH_HITS: usize = 20;
/// The most communities a view lists.
const TOP_COMMUNITIES: usize = 24;

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
    /// The state of a layout that is `laid_out` (or never was), `due` (the wiki changed
    /// since, or it never was), `running` in some process, of `nodes` nodes that took
    /// `took_ms`.
    pub fn new(laid_out: bool, due: bool, running: bool, nodes: u64, took_ms: u64) -> Self {
        GraphLayoutView {
            phase: match (laid_out, due) {
                (false, _) => GraphLayoutPhase::FirstLayout,
                (true, true) => GraphLayoutPhase::Updating,
                (true, false) => GraphLayoutPhase::Current,
            },
            running,
            laid_out_nodes: u32::try_from(nodes).unwrap_or(u32::MAX),
            took_ms: u32::try_from(took_ms).unwrap_or(u32::MAX),
        }
    }
}

/// A rectangle of the layout plane (the part of the graph a window shows, with a margin):
/// above the node limit, a view asked for an area shows every node inside it first
/// ([`PlacedGraph::select`]), so zooming into the overview loads what is there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphArea {
    /// Its left edge.
    pub min_x: f32,
    /// Its top edge.
    pub min_y: f32,
    /// Its right edge.
    pub max_x: f32,
    /// Its bottom edge.
    pub max_y: f32,
}

impl GraphArea {
    /// Whether the point `(x, y)` lies inside (edges included).
    pub fn contains(&self, x: f32, y: f32) -> bool {
        (self.min_x..=self.max_x).contains(&x) && (self.min_y..=self.max_y).contains(&y)
    }

    /// The smallest area holding every point of `points` (`None`: there are none).
    pub fn around(points: impl IntoIterator<Item = (f32, f32)>) -> Option<GraphArea> {
        points.into_iter().fold(None, |area, (x, y)| {
            Some(match area {
                None => GraphArea {
                    min_x: x,
                    min_y: y,
                    max_x: x,
                    max_y: y,
                },
                Some(a) => GraphArea {
                    min_x: a.min_x.min(x),
                    min_y: a.min_y.min(y),
                    max_x: a.max_x.max(x),
                    max_y: a.max_y.max(y),
                },
            })
        })
    }
}

/// A community as the overview lists it.
// The window's bindings carry these docs as they are: `GraphView` is the app's view.
#[allow(rustdoc::broken_intra_doc_links)]
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

/// A node of a [`GraphView`] shown by a label other than its title.
// The window's bindings carry these docs as they are: `GraphView` is the app's view.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GraphLabel {
    /// The node's index in the view.
    pub node: u32,
    /// What it is shown as.
    pub label: String,
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
pub struct GraphRecords<P> {
    /// Every node shown.
    pub nodes: Vec<GraphNodeRecord<P>>,
    /// Every edge between nodes shown.
    pub edges: Vec<GraphEdgeRecord<P>>,
}

/// One node of [`GraphRecords`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNodeRecord<P> {
    /// The page id; `null` for a wanted page.
    pub id: Option<P>,
    /// The title (a wanted page: its name).
    pub title: String,
    /// What tells it apart from nodes whose names read the same (a view's `told_apart`):
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
pub struct GraphEdgeRecord<P> {
    /// The linking page.
    pub source: Option<P>,
    /// The linked page (`null`: a wanted page).
    pub target: Option<P>,
    /// The wanted page's name, for a link to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_title: Option<String>,
}

/// A view's columns, borrowed from the app's `GraphView` (the view packed by column, the
/// same index naming one node in each): what its labels, records and DOT are made from.
#[derive(Debug, Clone, Copy)]
pub struct ViewColumns<'a, P> {
    /// Each node's page (`None`: a wanted page).
    pub page_ids: &'a [Option<P>],
    /// Each node's title.
    pub titles: &'a [String],
    /// The nodes shown by another label than their title, by index, ascending.
    pub told_apart: &'a [GraphLabel],
    /// Each node's kind.
    pub kinds: &'a [GraphNodeKind],
    /// Each node's horizontal position.
    pub xs: &'a [f32],
    /// Each node's vertical position.
    pub ys: &'a [f32],
    /// Each node's size.
    pub sizes: &'a [u32],
    /// Each node's community.
    pub communities: &'a [u32],
    /// The edges, two node indices each, flattened.
    pub edges: &'a [u32],
}

impl<'a, P: Copy> ViewColumns<'a, P> {
    /// What node `i` is shown as: its label when it is told apart, else its title.
    pub fn label(&self, i: usize) -> &'a str {
        self.told_apart
            .binary_search_by_key(&(i as u32), |l| l.node)
            .map_or(self.titles[i].as_str(), |at| {
                self.told_apart[at].label.as_str()
            })
    }

    /// The view as a record per node and per edge (`wikimind graph --json`).
    pub fn records(&self) -> GraphRecords<P> {
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

/// The graph with its stored places: each node's position and community as the stored
/// layout holds them (`None` and `u32::MAX`: not laid out yet).
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedGraph<P> {
    /// The graph.
    pub graph: WikiGraph<P>,
    /// Each node's stored position.
    pub positions: Vec<Option<(f32, f32)>>,
    /// Each node's stored community.
    pub communities: Vec<u32>,
}

/// Which nodes a view shows and how ([`PlacedGraph::select`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The nodes shown, ascending: the view's node `k` is the graph's `nodes[k]`.
    pub nodes: Vec<usize>,
    /// The view's nodes shown by a label other than their title, ascending (a view's
    /// `told_apart`).
    pub told_apart: Vec<GraphLabel>,
    /// The edges between nodes shown, two view indices each, flattened.
    pub edges: Vec<u32>,
    /// How many nodes passed the filter.
    pub matched: u32,
    /// Whether only `limit` of them are shown.
    pub overview: bool,
    /// Whether every node that passed the filter and lies in the area asked for (no area:
    /// anywhere) is shown: `true` unless the view is an overview.
    pub area_whole: bool,
    /// The area every laid-out node of the whole graph lies in (`None`: none is laid out).
    pub bounds: Option<GraphArea>,
    /// The view index of the node a local graph is centred on.
    pub centre: Option<u32>,
    /// The largest communities of the whole graph, largest first.
    pub top_communities: Vec<CommunityView>,
}

impl<P: Copy + Eq + Hash + Display> PlacedGraph<P> {
    /// `graph` at the places `rows` (the stored layout) give its nodes.
    pub fn new(graph: WikiGraph<P>, rows: Vec<GraphNodeRow>) -> PlacedGraph<P> {
        let stored: HashMap<String, GraphNodeRow> = rows
            .into_iter()
            .map(|row| (row.node.clone(), row))
            .collect();
        let mut positions = Vec::with_capacity(graph.len());
        let mut communities = Vec::with_capacity(graph.len());
        for key in &graph.keys {
            let row = stored.get(key);
            positions.push(row.map(|r| (r.x as f32, r.y as f32)));
            communities.push(row.map_or(NO_COMMUNITY, |r| r.community));
        }
        PlacedGraph {
            graph,
            positions,
            communities,
        }
    }

    /// The nodes `keep` marks that are laid out, at most `limit` of them (`None`:
    /// [`DEFAULT_NODE_LIMIT`]; the centre `centre` of a local graph always among them).
    /// Above the limit the view is an overview: the nodes inside `area` first, largest
    /// first, then the largest of the rest (without an area: the largest).
    pub fn select(
        &self,
        mut keep: Vec<bool>,
        limit: Option<u32>,
        centre: Option<usize>,
        area: Option<&GraphArea>,
    ) -> Selection {
        let graph = &self.graph;
        let n = graph.len();
        for (i, k) in keep.iter_mut().enumerate() {
            *k = *k && self.positions[i].is_some();
        }
        let sizes = graph.sizes();
        let matched: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
        let limit = limit.unwrap_or(DEFAULT_NODE_LIMIT) as usize;
        let overview = matched.len() > limit;
        let inside = |i: usize| {
            area.is_none_or(|a| self.positions[i].is_some_and(|(x, y)| a.contains(x, y)))
        };
        let mut area_whole = true;
        let mut chosen = matched.clone();
        if overview {
            chosen.sort_by_key(|&i| (!inside(i), std::cmp::Reverse(sizes[i]), i));
            area_whole = chosen.get(limit).is_none_or(|&i| !inside(i));
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
        for &(a, b) in &graph.edges {
            let (ia, ib) = (index[a as usize], index[b as usize]);
            if ia != u32::MAX && ib != u32::MAX {
                edges.push(ia);
                edges.push(ib);
            }
        }
        let sharing = graph.sharing();
        Selection {
            told_apart: chosen
                .iter()
                .enumerate()
                .filter_map(|(at, &i)| {
                    let label = graph.label(i, &sharing);
                    (label != graph.titles[i]).then_some(GraphLabel {
                        node: at as u32,
                        label,
                    })
                })
                .collect(),
            edges,
            matched: matched.len() as u32,
            overview,
            area_whole,
            bounds: GraphArea::around(self.positions.iter().flatten().copied()),
            centre: centre.and_then(|c| (index[c] != u32::MAX).then_some(index[c])),
            top_communities: self.top_communities(&sizes, &sharing),
            nodes: chosen,
        }
    }

    /// The largest communities, each named by its largest node.
    fn top_communities(&self, sizes: &[u32], sharing: &HashMap<&str, u32>) -> Vec<CommunityView> {
        let mut community_size: HashMap<u32, (u32, usize)> = HashMap::new();
        for i in 0..self.graph.len() {
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
        top.truncate(TOP_COMMUNITIES);
        top.into_iter()
            .map(|(label, size, largest)| CommunityView {
                label,
                size,
                title: self.graph.label(largest, sharing),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coffee graph laid out but for Grinder, in communities 0 (Espresso and both
    /// Cremas) and 1 (the rest).
    fn placed() -> PlacedGraph<i64> {
        let graph = crate::nodes::tests::coffee();
        let rows = (graph.keys.iter().enumerate())
            .filter(|&(i, _)| i != 5)
            .map(|(i, key)| GraphNodeRow {
                node: key.clone(),
                x: i as f64,
                y: -(i as f64),
                community: u32::from(i >= 3),
                links_hash: 0,
                degree: None,
            })
            .collect();
        PlacedGraph::new(graph, rows)
    }

    #[test]
    fn above_its_limit_a_view_shows_the_largest_nodes_and_keeps_the_centre() {
        let placed = placed();
        assert_eq!(placed.positions[4], Some((4.0, -4.0)));
        assert_eq!(placed.communities[5], u32::MAX);
        let view = placed.select(vec![true; 7], Some(2), Some(4), None);
        // Grinder is not laid out yet: left out.
        assert_eq!(view.matched, 6);
        assert!(view.overview);
        // Espresso (3 links), then of Crema and Roast (wanted), 2 links each, the first;
        // and the centre.
        assert_eq!(view.nodes, [0, 1, 4]);
        assert_eq!(view.edges, [0, 1]);
        assert_eq!(view.centre, Some(2));
        let told_apart = GraphLabel {
            node: 2,
            label: "Roast (saved answer)".to_owned(),
        };
        assert_eq!(view.told_apart, [told_apart]);
        let community = |label, title: &str| CommunityView {
            label,
            size: 3,
            title: title.to_owned(),
        };
        assert_eq!(
            view.top_communities,
            [community(0, "Espresso"), community(1, "Roast (wanted)")]
        );
        let whole = placed.select(vec![true; 7], None, None, None);
        assert!(!whole.overview);
        assert_eq!(whole.nodes, [0, 1, 2, 3, 4, 6]);
    }

    #[test]
    fn an_overview_of_an_area_shows_the_nodes_inside_it_first() {
        let placed = placed();
        // Tamper (1 link), Roast the answer (none) and Roast the wanted page (2); Grinder
        // would be inside too, but is not laid out.
        let area = GraphArea {
            min_x: 2.5,
            min_y: -6.5,
            max_x: 6.5,
            max_y: -2.5,
        };
        let view = placed.select(vec![true; 7], Some(2), None, Some(&area));
        assert!(view.overview);
        assert_eq!(view.nodes, [3, 6]);
        assert!(!view.area_whole, "Roast the answer is inside and left out");
        let view = placed.select(vec![true; 7], Some(3), None, Some(&area));
        assert_eq!(view.nodes, [3, 4, 6]);
        assert!(view.area_whole);
        // Room to spare goes to the largest of the rest: Espresso.
        let view = placed.select(vec![true; 7], Some(4), None, Some(&area));
        assert_eq!(view.nodes, [0, 3, 4, 6]);
        assert!(view.area_whole);
        // Without an area, an overview is never whole; a view under its limit always is.
        assert!(!placed.select(vec![true; 7], Some(4), None, None).area_whole);
        assert!(
            placed
                .select(vec![true; 7], None, None, Some(&area))
                .area_whole
        );
        let bounds = GraphArea {
            min_x: 0.0,
            min_y: -6.0,
            max_x: 6.0,
            max_y: 0.0,
        };
        assert_eq!(view.bounds, Some(bounds));
    }

    #[test]
    fn records_and_dot_name_nodes_by_their_labels() {
        let placed = placed();
        let view = placed.select(vec![true; 7], None, None, None);
        let pick = |i: usize| view.nodes[i];
        let page_ids: Vec<Option<i64>> = (0..6).map(|i| placed.graph.page_ids[pick(i)]).collect();
        let titles: Vec<String> = (0..6)
            .map(|i| placed.graph.titles[pick(i)].clone())
            .collect();
        let kinds: Vec<GraphNodeKind> = (0..6).map(|i| placed.graph.kinds[pick(i)]).collect();
        let xs: Vec<f32> = (0..6).map(|i| pick(i) as f32).collect();
        let columns = ViewColumns {
            page_ids: &page_ids,
            titles: &titles,
            told_apart: &view.told_apart,
            kinds: &kinds,
            xs: &xs,
            ys: &xs,
            sizes: &[0; 6],
            communities: &[0; 6],
            edges: &view.edges,
        };
        assert_eq!(columns.label(2), "Crema (saved answer)");
        assert_eq!(columns.label(1), "Crema");
        let records = columns.records();
        assert_eq!(records.nodes[5].label, "Roast (wanted)");
        assert_eq!(records.nodes[5].id, None);
        let to_wanted = records.edges.iter().find(|e| e.target.is_none()).unwrap();
        assert_eq!(to_wanted.source, Some(1));
        assert_eq!(to_wanted.target_title.as_deref(), Some("Roast"));
        let dot = columns.dot();
        assert!(dot.contains("  n5 [label=\"Roast (wanted)\", pos=\"6.0,6.0\", style=dashed];\n"));
        assert!(
            dot.contains("  n2 [label=\"Crema (saved answer)\", pos=\"2.0,2.0\", shape=note];\n")
        );
        assert!(dot.contains("  n0 -> n1;\n"));
    }

    #[test]
    fn dot_strings_escape_what_would_break_the_file() {
        assert_eq!(
            dot_string("a \"b\" \\ c\nd\u{7}"),
            "\"a \\\"b\\\" \\\\ c\\nd\""
        );
    }
}
