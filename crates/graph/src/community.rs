//! Communities by the Louvain method (Blondel et al., 2008), written here: every node
//! starts alone; nodes move, one at a time in index order, to the neighbouring community
//! that raises the modularity most, until none moves; the communities then become the
//! nodes of a smaller graph and the moves repeat, until a level moves nothing.
//!
//! With a previous result, only the first level runs, from the previous groups (new nodes
//! alone), and only new nodes and their neighbours move: an update never recolours the
//! rest of the graph or merges groups.
//!
//! Deterministic: nodes are visited in index order, neighbouring communities in ascending
//! order, and a tie keeps a node where it is (else goes to the lowest community). The
//! result is numbered by size (0 the largest; equal sizes by their lowest node), then, when
//! a previous result is given, each community takes the previous label most of its nodes
//! had (largest communities choose first), so colours stay put when a page is added.

use crate::neighbours;

/// A weighted graph: adjacency with weights, each edge both ways; `self_weight` the weight
/// of a node's loop (the inner links of an aggregated community, counted both ways).
struct Weighted {
    adjacency: Vec<Vec<(u32, f64)>>,
    self_weight: Vec<f64>,
}

impl Weighted {
    fn degree(&self, i: usize) -> f64 {
        self.adjacency[i].iter().map(|&(_, w)| w).sum::<f64>() + self.self_weight[i]
    }
}

/// The community of each of `nodes` nodes linked by `edges` (direction ignored), labelled
/// as the module documentation says; `previous` (by node index, may be shorter or empty)
/// holds the labels of an earlier run.
pub fn communities(nodes: usize, edges: &[(u32, u32)], previous: &[Option<u32>]) -> Vec<u32> {
    let adjacency = neighbours(nodes, edges);
    let mut graph = Weighted {
        adjacency: adjacency
            .iter()
            .map(|a| a.iter().map(|&j| (j, 1.0)).collect())
            .collect(),
        self_weight: vec![0.0; nodes],
    };
    // membership[i]: the node of the current level that original node i belongs to.
    let mut membership: Vec<u32> = (0..nodes as u32).collect();
    // With an earlier result, the first level starts from it (new nodes alone), so a small
    // change of the graph moves few nodes and the groups stay as they were.
    let mut start = warm_start(nodes, previous);
    for _level in 0..64 {
        let warm = start.take();
        let was_warm = warm.is_some();
        // An update moves only the new nodes and their neighbours: the rest of the graph
        // did not change, and its groups stay as they were.
        let may_move: Option<Vec<bool>> = was_warm.then(|| {
            (0..nodes)
                .map(|i| {
                    let new = |j: usize| previous.get(j).copied().flatten().is_none();
                    new(i) || adjacency[i].iter().any(|&j| new(j as usize))
                })
                .collect()
        });
        let (moved, community) = move_nodes(&graph, warm, may_move.as_deref());
        if !(moved || was_warm) {
            break;
        }
        let (renumbered, count) = renumber(&community);
        for m in &mut membership {
            *m = renumbered[*m as usize];
        }
        graph = aggregate(&graph, &renumbered, count);
        if was_warm {
            // The earlier groups were already the result of every level: merging them
            // again would recolour whole groups for one new page. Nodes moved one by one
            // are enough for an update; a whole layout starts afresh.
            break;
        }
    }
    let labels = by_size(&membership);
    match previous.iter().any(Option::is_some) {
        true => keep_previous_labels(&labels, previous),
        false => labels,
    }
}

/// The first level's starting communities from an earlier result: each labelled node in
/// its label's group, each new node alone (`None`: no earlier result).
fn warm_start(nodes: usize, previous: &[Option<u32>]) -> Option<Vec<u32>> {
    if !previous.iter().any(Option::is_some) {
        return None;
    }
    let mut by_label: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    Some(
        (0..nodes)
            .map(|i| match previous.get(i).copied().flatten() {
                // A group is named by its first node, so the ids stay below `nodes`.
                Some(label) => *by_label.entry(label).or_insert(i as u32),
                None => i as u32,
            })
            .collect(),
    )
}

/// One level of local moves from `start` (each node alone when `None`), of the nodes
/// `may_move` marks (all when `None`). Returns whether any node moved, and each node's
/// community.
fn move_nodes(
    graph: &Weighted,
    start: Option<Vec<u32>>,
    may_move: Option<&[bool]>,
) -> (bool, Vec<u32>) {
    let n = graph.adjacency.len();
    let degrees: Vec<f64> = (0..n).map(|i| graph.degree(i)).collect();
    let total: f64 = degrees.iter().sum();
    let mut community: Vec<u32> = start.unwrap_or_else(|| (0..n as u32).collect());
    if total <= 0.0 {
        return (false, community);
    }
    let mut tot: Vec<f64> = vec![0.0; n];
    for (i, &c) in community.iter().enumerate() {
        tot[c as usize] += degrees[i];
    }
    let mut weight_to = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    let mut moved_any = false;
    for _pass in 0..100 {
        let mut moved = false;
        for i in 0..n {
            if may_move.is_some_and(|m| !m[i]) {
                continue;
            }
            let own = community[i];
            let k = degrees[i];
            touched.clear();
            for &(j, w) in &graph.adjacency[i] {
                let c = community[j as usize];
                if weight_to[c as usize] == 0.0 {
                    touched.push(c);
                }
                weight_to[c as usize] += w;
            }
            tot[own as usize] -= k;
            let gain =
                |c: u32, weight_to: &[f64]| weight_to[c as usize] - tot[c as usize] * k / total;
            let mut best = own;
            let mut best_gain = gain(own, &weight_to);
            touched.sort_unstable();
            for &c in &touched {
                let g = gain(c, &weight_to);
                if g > best_gain + 1e-12 {
                    best = c;
                    best_gain = g;
                }
            }
            tot[best as usize] += k;
            for &c in &touched {
                weight_to[c as usize] = 0.0;
            }
            if best != own {
                community[i] = best;
                moved = true;
                moved_any = true;
            }
        }
        if !moved {
            break;
        }
    }
    (moved_any, community)
}

/// Communities numbered 0.. in order of their first node. Returns them and how many.
fn renumber(community: &[u32]) -> (Vec<u32>, usize) {
    let mut map = vec![u32::MAX; community.len()];
    let mut next = 0u32;
    let out = community
        .iter()
        .map(|&c| {
            if map[c as usize] == u32::MAX {
                map[c as usize] = next;
                next += 1;
            }
            map[c as usize]
        })
        .collect();
    (out, next as usize)
}

/// The graph whose nodes are the communities.
fn aggregate(graph: &Weighted, community: &[u32], count: usize) -> Weighted {
    let mut adjacency: Vec<Vec<(u32, f64)>> = vec![Vec::new(); count];
    let mut self_weight = vec![0.0; count];
    for (i, list) in graph.adjacency.iter().enumerate() {
        let ci = community[i];
        self_weight[ci as usize] += graph.self_weight[i];
        for &(j, w) in list {
            let cj = community[j as usize];
            if ci == cj {
                self_weight[ci as usize] += w;
            } else {
                adjacency[ci as usize].push((cj, w));
            }
        }
    }
    for list in &mut adjacency {
        list.sort_unstable_by_key(|&(j, _)| j);
        let mut merged: Vec<(u32, f64)> = Vec::with_capacity(list.len());
        for &(j, w) in list.iter() {
            match merged.last_mut() {
                Some(last) if last.0 == j => last.1 += w,
                _ => merged.push((j, w)),
            }
        }
        *list = merged;
    }
    Weighted {
        adjacency,
        self_weight,
    }
}

/// Labels by size: 0 the largest community, equal sizes by their lowest node.
fn by_size(membership: &[u32]) -> Vec<u32> {
    let count = membership
        .iter()
        .map(|&c| c as usize + 1)
        .max()
        .unwrap_or(0);
    let mut size = vec![0usize; count];
    let mut first = vec![usize::MAX; count];
    for (i, &c) in membership.iter().enumerate() {
        size[c as usize] += 1;
        first[c as usize] = first[c as usize].min(i);
    }
    let mut order: Vec<usize> = (0..count).filter(|&c| size[c] > 0).collect();
    order.sort_by_key(|&c| (std::cmp::Reverse(size[c]), first[c]));
    let mut label = vec![0u32; count];
    for (rank, &c) in order.iter().enumerate() {
        label[c] = rank as u32;
    }
    membership.iter().map(|&c| label[c as usize]).collect()
}

/// Each community (largest first) takes the previous label most of its nodes had and no
/// larger community took; the others get labels no previous community had.
fn keep_previous_labels(labels: &[u32], previous: &[Option<u32>]) -> Vec<u32> {
    let count = labels.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut votes: Vec<std::collections::BTreeMap<u32, usize>> = vec![Default::default(); count];
    for (i, &c) in labels.iter().enumerate() {
        // `u32::MAX` labels nothing (a stored draft, or no community yet): no vote.
        if let Some(&Some(old)) = previous.get(i).filter(|o| **o != Some(u32::MAX)) {
            *votes[c as usize].entry(old).or_default() += 1;
        }
    }
    let mut taken = std::collections::HashSet::new();
    let mut next_free = (previous.iter().flatten())
        .filter(|&&l| l != u32::MAX)
        .map(|&l| l + 1)
        .max()
        .unwrap_or(0);
    let mut relabel = vec![0u32; count];
    for c in 0..count {
        let mut choices: Vec<(usize, u32)> =
            votes[c].iter().map(|(&label, &n)| (n, label)).collect();
        choices.sort_by_key(|&(n, label)| (std::cmp::Reverse(n), label));
        relabel[c] = match choices.into_iter().find(|(_, l)| !taken.contains(l)) {
            Some((_, l)) => l,
            None => {
                while taken.contains(&next_free) {
                    next_free += 1;
                }
                next_free
            }
        };
        taken.insert(relabel[c]);
    }
    labels.iter().map(|&c| relabel[c as usize]).collect()
}

/// A node that moves in [`update_communities`]: its index and its neighbours' indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mover {
    /// The node.
    pub node: u32,
    /// Its neighbours (each once).
    pub neighbours: Vec<u32>,
}

/// The communities after a change of a few nodes, brought up to date from the stored ones
/// without the rest of the graph (an update's counterpart of [`communities`] with a
/// previous result): each new node starts alone, under a label no node has; then each
/// mover, in the order given, joins the neighbouring community that raises the modularity
/// most (Louvain's move of one node: `k_i,C − Σ_tot(C)·k_i / 2m`), or stays where it is
/// (on a tie; between other communities the lowest label wins). Every other node keeps its
/// label, so an update never recolours the rest of the graph.
///
/// `labels[i]` is node `i`'s community (`None`: a new node), `degrees[i]` how many nodes it
/// is linked with now; `movers` the new nodes and the nodes whose links changed.
pub fn update_communities(labels: &[Option<u32>], degrees: &[u32], movers: &[Mover]) -> Vec<u32> {
    let mut next = labels.iter().flatten().max().map_or(0, |&l| l + 1);
    let current: Vec<u32> = labels
        .iter()
        .map(|l| {
            l.unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let mut current = current;
    let two_m: f64 = degrees.iter().map(|&d| f64::from(d)).sum();
    let mut total: std::collections::HashMap<u32, f64> = std::collections::HashMap::new();
    for (i, &label) in current.iter().enumerate() {
        *total.entry(label).or_default() += f64::from(degrees.get(i).copied().unwrap_or(0));
    }
    if two_m <= 0.0 {
        return current;
    }
    for mover in movers {
        let i = mover.node as usize;
        if i >= current.len() {
            continue;
        }
        let k = f64::from(degrees.get(i).copied().unwrap_or(0));
        let own = current[i];
        *total.entry(own).or_default() -= k;
        // Links from the node into each neighbouring community, in label order.
        let mut into: std::collections::BTreeMap<u32, f64> = std::collections::BTreeMap::new();
        for &j in &mover.neighbours {
            if let Some(&label) = current.get(j as usize) {
                if j as usize != i {
                    *into.entry(label).or_default() += 1.0;
                }
            }
        }
        let gain =
            |label: u32, links: f64| links - total.get(&label).copied().unwrap_or(0.0) * k / two_m;
        let mut best = own;
        let mut best_gain = gain(own, into.get(&own).copied().unwrap_or(0.0));
        for (&label, &links) in &into {
            let g = gain(label, links);
            if g > best_gain + 1e-12 {
                best = label;
                best_gain = g;
            }
        }
        *total.entry(best).or_default() += k;
        current[i] = best;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored draft's nodes (or a wiki's hostile rows) carry `u32::MAX`: it labels no
    /// community, so it is never kept, and never overflows the next free label.
    #[test]
    fn no_community_is_no_label_to_keep() {
        let kept = keep_previous_labels(&[0, 0, 1], &[Some(u32::MAX), Some(u32::MAX), None]);
        assert!(kept.iter().all(|&l| l != u32::MAX), "{kept:?}");
        assert_eq!(kept[0], kept[1]);
        assert_ne!(kept[0], kept[2]);
    }

    fn clique(from: u32, size: u32) -> Vec<(u32, u32)> {
        let mut edges = Vec::new();
        for a in from..from + size {
            for b in a + 1..from + size {
                edges.push((a, b));
            }
        }
        edges
    }

    #[test]
    fn two_cliques_joined_by_one_link_are_two_communities() {
        let mut edges = clique(0, 6);
        edges.extend(clique(6, 5));
        edges.push((5, 6));
        let c = communities(11, &edges, &[]);
        assert!(c[..6].iter().all(|&x| x == c[0]), "{c:?}");
        assert!(c[6..].iter().all(|&x| x == c[6]), "{c:?}");
        assert_ne!(c[0], c[6]);
        // Numbered by size: the clique of six is community 0.
        assert_eq!(c[0], 0);
    }

    #[test]
    fn the_same_graph_gives_the_same_communities() {
        let mut edges = Vec::new();
        for i in 0..500u32 {
            edges.push((i, (i * 7 + 3) % 500));
            edges.push((i, (i + 1) % 500));
        }
        assert_eq!(communities(500, &edges, &[]), communities(500, &edges, &[]));
    }

    #[test]
    fn unlinked_nodes_are_each_their_own_community() {
        let c = communities(3, &[], &[]);
        let mut sorted = c.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2]);
    }

    #[test]
    fn a_new_node_leaves_the_other_labels_as_they_were() {
        let mut edges = clique(0, 4);
        edges.extend(clique(4, 6));
        edges.push((0, 4));
        let before = communities(10, &edges, &[]);
        let previous: Vec<Option<u32>> = before.iter().map(|&l| Some(l + 10)).collect();
        // A new node joined to the small clique: the labels the old nodes had stay.
        edges.push((10, 1));
        edges.push((10, 2));
        let after = communities(11, &edges, &previous);
        for i in 0..10 {
            assert_eq!(after[i], before[i] + 10, "node {i}: {after:?}");
        }
        assert_eq!(after[10], after[1]);
    }

    #[test]
    fn one_more_node_leaves_the_other_groups_whole() {
        // A ring of 40 groups of 25, each a ring with chords, joined to the next by a link.
        let mut edges = Vec::new();
        for g in 0..40u32 {
            let base = g * 25;
            for i in 0..25 {
                edges.push((base + i, base + (i + 1) % 25));
                edges.push((base + i, base + (i * 7 + 3) % 25));
            }
            edges.push((base, ((g + 1) % 40) * 25 + 5));
        }
        let before = communities(1000, &edges, &[]);
        let previous: Vec<Option<u32>> = before.iter().copied().map(Some).collect();
        edges.push((1000, 30));
        edges.push((1000, 31));
        let after = communities(1001, &edges, &previous);
        let moved = (0..1000).filter(|&i| after[i] != before[i]).count();
        assert!(moved <= 3, "{moved} of 1000 nodes changed community");
    }

    #[test]
    fn edges_out_of_range_are_ignored() {
        let c = communities(2, &[(0, 1), (0, 9), (7, 7)], &[]);
        assert_eq!(c, vec![0, 0]);
    }

    #[test]
    fn an_update_moves_a_new_node_into_the_community_it_links_into_and_no_other_node() {
        // Two cliques of five, stored as communities 0 and 1; node 10 is new, linked to three
        // nodes of the second; node 11 is new and alone.
        let labels: Vec<Option<u32>> = (0..10)
            .map(|i| Some(if i < 5 { 0 } else { 1 }))
            .chain([None, None])
            .collect();
        let mut degrees = vec![4u32; 10];
        for j in [5, 6, 7] {
            degrees[j] += 1;
        }
        degrees.extend([3, 0]);
        let movers = [
            Mover {
                node: 10,
                neighbours: vec![5, 6, 7],
            },
            Mover {
                node: 11,
                neighbours: vec![],
            },
        ];
        let got = update_communities(&labels, &degrees, &movers);
        assert_eq!(&got[..10], &[0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
        assert_eq!(got[10], 1);
        assert!(got[11] > 1, "a node alone gets a label of its own: {got:?}");
        // The same input gives the same answer.
        assert_eq!(update_communities(&labels, &degrees, &movers), got);
    }
}
