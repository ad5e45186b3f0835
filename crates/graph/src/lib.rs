//! The graph of the wiki: its nodes and edges, the graph view's rules, and the geometry —
//! where each node sits and which community it belongs to, computed from node indices and
//! edges alone. This crate knows nothing of the store: the app reads pages, links and the
//! stored layout, hands them here in a stable order, and stores what comes back.
//!
//! - [`layout`]: a ForceAtlas2-style force layout with Barnes–Hut repulsion (so 100,000
//!   nodes are feasible), whole ([`layout::lay_out`] with no previous positions) or
//!   incremental (new nodes start beside their placed neighbours, a bounded number of
//!   iterations moves only them and the nodes whose links changed; the others stay put).
//! - [`community`]: Louvain modularity communities, numbered by size, relabelled to keep
//!   the labels of a previous run where the groups are the same.
//! - [`nodes`]: the wiki's pages and wanted pages as nodes and their links as edges
//!   ([`nodes::WikiGraph`]), with the rules the graph view filters, searches and walks a
//!   local graph by.
//! - [`view`]: which nodes a view shows (the overview of the largest above a limit), how
//!   nodes whose names read the same are told apart, the view as records and as DOT, and
//!   the view's records that hold no page id.
//! - [`stored`]: a stored layout brought up to date as data in and data out, whole or from
//!   the links around what changed.
//!
//! A page's id stays the app's own type. The layout and the communities are deterministic:
//! the same input (same order of nodes and edges, same seed) gives the same positions and
//! communities, bit for bit on one machine. Nothing here uses threads, the clock or an
//! unseeded random source.
#![deny(missing_docs)]

pub mod community;
pub mod layout;
pub mod nodes;
mod quadtree;
mod rng;
pub mod stored;
pub mod view;

/// A point of the layout plane.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    /// Horizontal coordinate.
    pub x: f64,
    /// Vertical coordinate.
    pub y: f64,
}

impl Point {
    /// The point at `(x, y)`.
    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// The distance to `other`.
    pub fn distance(self, other: Point) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt()
    }
}

/// The edges of a graph of `nodes` nodes as adjacency lists: undirected, no self loops,
/// each neighbour once, in ascending order (so every walk over them is in one order).
/// Edges naming a node out of range are left out.
pub fn neighbours(nodes: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let mut adjacency: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for &(a, b) in edges {
        if a == b || a as usize >= nodes || b as usize >= nodes {
            continue;
        }
        adjacency[a as usize].push(b);
        adjacency[b as usize].push(a);
    }
    for list in &mut adjacency {
        list.sort_unstable();
        list.dedup();
    }
    adjacency
}
