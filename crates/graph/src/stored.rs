//! Bringing a stored layout up to date, as data in and data out: the app reads the stored
//! nodes ([`GraphNodeRow`]) and the links, calls [`relay_whole`] or [`relay_changed`], and
//! stores the [`Relaid`] rows that come back (it holds the lease, the clock and the store).
//!
//! **Whole** ([`relay_whole`]): every node of the graph, laid out from the stored places
//! (new nodes beside their neighbours, nodes whose links changed move a little, the rest
//! stay), or afresh when more than half the nodes are new; Louvain runs afresh, keeping the
//! stored labels where the groups are the same. **From what changed** ([`relay_changed`]):
//! the links around the pages and names a change touched, every other node as stored (its
//! place, community and links count). It moves what the whole update moves — new nodes
//! beside their neighbours, nodes whose links changed a little, the rest not at all —
//! without every link: the layout needs the moving nodes' links and every node's place and
//! mass, the communities the movers' links and every node's links count; the new and
//! relinked nodes change community one by one (Louvain's move of one node).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Display;
use std::hash::Hash;

use crate::community::{communities, update_communities, Mover};
use crate::layout::{lay_out, lay_out_drafting, LayoutInput, Settings};
use crate::nodes::{LinkEdge, WikiGraph};
use crate::view::GraphLaidOut;
use crate::Point;

/// One node's stored place.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphNodeRow {
    /// `p` and a page id, or `w` and the key of a wanted page's name.
    pub node: String,
    /// Horizontal position.
    pub x: f64,
    /// Vertical position.
    pub y: f64,
    /// Its community's label.
    pub community: u32,
    /// A hash of its neighbours when it was laid out.
    pub links_hash: i64,
    /// How many nodes it was linked with then; `None`: laid out by a build that did not
    /// store it.
    pub degree: Option<u32>,
}

/// What a layout computed, to store.
#[derive(Debug, Clone, PartialEq)]
pub struct Relaid {
    /// The rows to write (new nodes, and nodes whose place, community or links changed).
    pub upserts: Vec<GraphNodeRow>,
    /// The stored nodes that are gone.
    pub removed: Vec<String>,
    /// Nodes laid out.
    pub nodes: u64,
    /// Pairs of linked nodes.
    pub edges: u64,
    /// Whether it was incremental.
    pub incremental: bool,
    /// Nodes that moved.
    pub moved: u64,
}

impl Relaid {
    /// What the layout did, once stored: it read `links_read` links and took `took_ms`.
    pub fn laid_out(&self, links_read: u64, took_ms: u64) -> GraphLaidOut {
        GraphLaidOut {
            nodes: self.nodes,
            edges: self.edges,
            incremental: self.incremental,
            moved: self.moved,
            written: (self.upserts.len() + self.removed.len()) as u64,
            links_read,
            took_ms,
        }
    }
}

/// The pages and names a change touched, with the links around them (every link from or to
/// those pages, and to the changed keys), as the app's change log gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed<'a, P> {
    /// The pages the changes touched (some may be gone).
    pub pages: &'a [P],
    /// Those of them that are pages now.
    pub pages_now: Vec<P>,
    /// The keys whose meaning may have changed (a wanted page among them may be wanted no
    /// more).
    pub keys: &'a [String],
    /// The links around them.
    pub links: Vec<LinkEdge<'a, P>>,
}

/// A hash of a node's neighbours' names (any order), stable across runs and machines
/// (FNV-1a over the names sorted): what [`GraphNodeRow::links_hash`] holds.
pub fn links_hash(mut names: Vec<&str>) -> i64 {
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

/// The community a stored node has while its place is a draft of a first layout still
/// running ([`draft_rows`]): drawn where it is, never a place a layout starts from.
pub const DRAFT_COMMUNITY: u32 = crate::view::NO_COMMUNITY;

/// The rows that store `positions` (one per node of `graph`, in its order) as a draft of
/// a first layout: no community ([`DRAFT_COMMUNITY`]), no links count or hash, so the
/// layout that follows reads every link and lays every node out afresh.
pub fn draft_rows<P>(graph: &WikiGraph<P>, positions: &[Point]) -> Vec<GraphNodeRow> {
    (graph.keys.iter().zip(positions))
        .filter(|(_, p)| p.x.is_finite() && p.y.is_finite())
        .map(|(key, p)| GraphNodeRow {
            node: key.clone(),
            x: p.x,
            y: p.y,
            community: DRAFT_COMMUNITY,
            links_hash: 0,
            degree: None,
        })
        .collect()
}

/// Lays the whole of `graph` out from the stored layout `rows` (see the module
/// documentation). `keep_going` is asked as the layout runs (with how many iterations ran
/// and will): `false` stops it, and `None` comes back. `draft` sees every node's position
/// after each iteration ([`lay_out_drafting`]). A stored draft ([`DRAFT_COMMUNITY`]) is no
/// place to start from: its nodes are laid out as new.
pub fn relay_whole<P: Copy + Eq + Hash + Display>(
    graph: &WikiGraph<P>,
    rows: Vec<GraphNodeRow>,
    keep_going: &mut dyn FnMut(usize, usize) -> bool,
    draft: &mut dyn FnMut(&[Point]),
) -> Option<Relaid> {
    let stored: HashMap<String, GraphNodeRow> = rows
        .into_iter()
        .map(|row| (row.node.clone(), row))
        .collect();
    let n = graph.len();
    let hashes: Vec<i64> = (0..n).map(|i| graph.links_hash(i)).collect();
    let mut previous: Vec<Option<Point>> = Vec::with_capacity(n);
    let mut changed = Vec::with_capacity(n);
    let mut labels: Vec<Option<u32>> = Vec::with_capacity(n);
    for (i, key) in graph.keys.iter().enumerate() {
        let row = stored.get(key).filter(|r| r.community != DRAFT_COMMUNITY);
        previous.push(row.map(|r| Point::new(r.x, r.y)));
        changed.push(row.is_some_and(|r| r.links_hash != hashes[i]));
        labels.push(row.map(|r| r.community));
    }
    // Mostly new nodes (a first compile of a vault): a whole layout draws them better than
    // placing each beside the few there were.
    let placed = previous.iter().filter(|p| p.is_some()).count();
    if placed * 2 < n {
        previous.clear();
        changed.clear();
    }
    let input = LayoutInput {
        nodes: n,
        edges: graph.edges.clone(),
        previous,
        changed,
        masses: Vec::new(),
    };
    let layout = lay_out_drafting(&input, &Settings::default(), keep_going, draft)?;
    let community = communities(n, &graph.edges, &labels);
    let mut upserts = Vec::new();
    for i in 0..n {
        let row = GraphNodeRow {
            node: graph.keys[i].clone(),
            x: layout.positions[i].x,
            y: layout.positions[i].y,
            community: community[i],
            links_hash: hashes[i],
            degree: Some(graph.neighbours[i].len() as u32),
        };
        if stored.get(&row.node) != Some(&row) {
            upserts.push(row);
        }
    }
    let keys: HashSet<&str> = graph.keys.iter().map(String::as_str).collect();
    let removed: Vec<String> = stored
        .keys()
        .filter(|k| !keys.contains(k.as_str()))
        .cloned()
        .collect();
    Some(Relaid {
        upserts,
        removed,
        nodes: n as u64,
        edges: graph.linked_pairs(),
        incremental: layout.incremental,
        moved: layout.moved as u64,
    })
}

/// Brings the stored layout (`rows`, every stored node) up to date from `changed` (see the
/// module documentation). `None`: the stored layout lacks a node the changes lead to (a
/// whole read is needed); `Some(None)`: stopped (`keep_going` said `false`, as in
/// [`relay_whole`]); `Some(Some(_))`: what to store.
pub fn relay_changed<P: Copy + Display>(
    rows: &[GraphNodeRow],
    changed: &Changed<'_, P>,
    keep_going: &mut dyn FnMut(usize, usize) -> bool,
) -> Option<Option<Relaid>> {
    // The nodes whose links may differ, by name, and whether each is a node now.
    let mut affected: BTreeMap<String, bool> = BTreeMap::new();
    for page in changed.pages {
        affected.insert(format!("p{page}"), false);
    }
    for page in &changed.pages_now {
        affected.insert(format!("p{page}"), true);
    }
    for key in changed.keys {
        affected.insert(format!("w{key}"), false);
    }
    // Every link from or to them, as node names (a page's links to itself left out), and the
    // wanted pages among the changed keys that are linked now.
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    for link in &changed.links {
        let from = format!("p{}", link.from);
        let to = match link.to {
            Some(page) => format!("p{page}"),
            None if link.target_key.is_empty() => continue,
            None => {
                let name = format!("w{}", link.target_key);
                if let Some(now) = affected.get_mut(&name) {
                    *now = true;
                }
                name
            }
        };
        if from != to && (affected.contains_key(&from) || affected.contains_key(&to)) {
            edges.insert((from, to));
        }
    }
    // Each node now: the stored ones not gone, then the new ones (in name order).
    let mut names: Vec<&str> = Vec::with_capacity(rows.len() + 16);
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(rows.len() + 16);
    let mut stored: Vec<Option<&GraphNodeRow>> = Vec::with_capacity(rows.len() + 16);
    for row in rows {
        if affected.get(&row.node) == Some(&false) {
            continue;
        }
        index.insert(row.node.as_str(), names.len());
        names.push(row.node.as_str());
        stored.push(Some(row));
    }
    for (name, &now) in &affected {
        if now && !index.contains_key(name.as_str()) {
            index.insert(name.as_str(), names.len());
            names.push(name.as_str());
            stored.push(None);
        }
    }
    let n = names.len();
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(edges.len());
    let mut neighbours: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (from, to) in &edges {
        // A neighbour the stored layout does not have: read everything.
        let (&a, &b) = (index.get(from.as_str())?, index.get(to.as_str())?);
        pairs.push((a as u32, b as u32));
        neighbours.entry(a).or_default().insert(b);
        neighbours.entry(b).or_default().insert(a);
    }
    // Links counts and hashes: the affected nodes' anew, the others' as stored.
    let is_affected = |i: usize| affected.get(names[i]) == Some(&true);
    let mut degrees = Vec::with_capacity(n);
    let mut hashes = Vec::with_capacity(n);
    for (i, row) in stored.iter().enumerate() {
        if is_affected(i) {
            let around_i = neighbours.get(&i);
            degrees.push(around_i.map_or(0, |s| s.len() as u32));
            hashes.push(links_hash(
                around_i.into_iter().flatten().map(|&j| names[j]).collect(),
            ));
        } else {
            let row = row.expect("every node not affected is stored");
            degrees.push(row.degree.unwrap_or(0));
            hashes.push(row.links_hash);
        }
    }
    let relinked: Vec<bool> = (0..n)
        .map(|i| stored[i].is_some_and(|row| row.links_hash != hashes[i]))
        .collect();
    let input = LayoutInput {
        nodes: n,
        edges: pairs,
        previous: stored
            .iter()
            .map(|row| row.map(|r| Point::new(r.x, r.y)))
            .collect(),
        changed: relinked.clone(),
        masses: degrees.iter().map(|&d| f64::from(d) + 1.0).collect(),
    };
    let Some(layout) = lay_out(&input, &Settings::default(), keep_going) else {
        return Some(None);
    };
    // Communities: the new nodes and those whose links changed move, one by one.
    let movers: Vec<Mover> = (0..n)
        .filter(|&i| stored[i].is_none() || relinked[i])
        .map(|i| Mover {
            node: i as u32,
            neighbours: neighbours
                .get(&i)
                .into_iter()
                .flatten()
                .map(|&j| j as u32)
                .collect(),
        })
        .collect();
    let labels: Vec<Option<u32>> = stored.iter().map(|r| r.map(|r| r.community)).collect();
    let community = update_communities(&labels, &degrees, &movers);
    let mut upserts = Vec::new();
    for i in 0..n {
        let p = layout.positions[i];
        let same = stored[i].is_some_and(|r| {
            r.x == p.x
                && r.y == p.y
                && r.community == community[i]
                && r.links_hash == hashes[i]
                && r.degree == Some(degrees[i])
        });
        if !same {
            upserts.push(GraphNodeRow {
                node: names[i].to_owned(),
                x: p.x,
                y: p.y,
                community: community[i],
                links_hash: hashes[i],
                degree: Some(degrees[i]),
            });
        }
    }
    let removed: Vec<String> = rows
        .iter()
        .filter(|r| affected.get(&r.node) == Some(&false))
        .map(|r| r.node.clone())
        .collect();
    Some(Some(Relaid {
        upserts,
        removed,
        nodes: n as u64,
        edges: degrees.iter().map(|&d| u64::from(d)).sum::<u64>() / 2,
        incremental: layout.incremental,
        moved: layout.moved as u64,
    }))
}
