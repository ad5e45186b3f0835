//! The wiki's graph as nodes and edges ([`WikiGraph`]): every page (topic or answer) is a
//! node, named `p<id>`; every name links reach that no page has (a wanted page) is one node,
//! named `w<key>`, titled by its first spelling. Nodes are ordered pages by id, then wanted
//! pages by key: the layout and the communities see them in that order, so the same
//! database gives the same picture. **Edges** are page links as pages resolve them (a link
//! to a page's former title reaches the page), one per ordered pair, a page's links to
//! itself left out. A node's **size** is how many nodes it is linked with, either way.
//!
//! The app reads the pages and links from its store and hands them here as [`PageNode`]s
//! and [`LinkEdge`]s (this crate cannot see the store's records); a page's id is the app's
//! own type `P`, kept as it is so the view it builds carries it unchanged.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Display;
use std::hash::Hash;

use crate::stored::links_hash;
use crate::view::GraphNodeKind;

/// A page as a node: its id, kind (topic or answer), title and the key of its name (its
/// title's key; a saved answer's without the prefix that keeps answers' keys apart from
/// topics'). Two nodes whose names have one key read the same to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageNode<'a, P> {
    /// The page.
    pub id: P,
    /// [`GraphNodeKind::Topic`] or [`GraphNodeKind::Answer`].
    pub kind: GraphNodeKind,
    /// Its title.
    pub title: &'a str,
    /// The key of its name.
    pub name_key: &'a str,
}

/// A page link as an edge: the page it is on, the page it resolves to (`None`: a wanted
/// page, or nothing when `target_key` is empty), and the name it gives with that name's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkEdge<'a, P> {
    /// The page the link is on.
    pub from: P,
    /// The page it resolves to; `None`: a wanted page.
    pub to: Option<P>,
    /// The name it gives, as written.
    pub target_title: &'a str,
    /// The key of that name.
    pub target_key: &'a str,
}

/// The wiki's graph in node order (see the module documentation), with each node's
/// neighbours. Every field holds one value per node, by index, except `edges`.
#[derive(Debug, Clone, PartialEq)]
pub struct WikiGraph<P> {
    /// Each node's name: `p<id>` or `w<key>` (what the stored layout is keyed by).
    pub keys: Vec<String>,
    /// Each node's page (`None`: a wanted page).
    pub page_ids: Vec<Option<P>>,
    /// Each node's title (a wanted page: its name as first linked).
    pub titles: Vec<String>,
    /// The key of each node's name ([`PageNode::name_key`]; a wanted page's own key).
    pub name_keys: Vec<String>,
    /// Each node's kind.
    pub kinds: Vec<GraphNodeKind>,
    /// Directed edges, one per ordered pair, in the order pages and their links come.
    pub edges: Vec<(u32, u32)>,
    /// Undirected neighbours of each node, ascending.
    pub neighbours: Vec<Vec<u32>>,
    /// Whether another page links to the node.
    pub linked_to: Vec<bool>,
}

/// Which nodes a view keeps ([`WikiGraph::passing`]), before its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFilter<P: Hash + Eq> {
    /// Only pages of this kind (`None`: topics and answers).
    pub kind: Option<GraphNodeKind>,
    /// Only these pages (`None`: every page): those with a tag, as the app reads tags.
    pub tagged: Option<HashSet<P>>,
    /// Only these pages (`None`: every page): those fed by a note in a folder.
    pub in_folder: Option<HashSet<P>>,
    /// Only pages no other page links to (as `lint` counts orphans).
    pub orphans_only: bool,
    /// Whether wanted pages are shown (never with a kind, a tag or a folder, nor among
    /// orphans).
    pub show_wanted: bool,
    /// Only this community.
    pub community: Option<u32>,
}

impl<P: Copy + Eq + Hash + Display> WikiGraph<P> {
    /// The graph of `pages` (by id) and the page links `links` (walked twice, so a cheap
    /// iterator over the app's rows).
    pub fn new<'a>(
        pages: impl IntoIterator<Item = PageNode<'a, P>>,
        links: impl IntoIterator<Item = LinkEdge<'a, P>> + Clone,
    ) -> WikiGraph<P> {
        let mut graph = WikiGraph {
            keys: Vec::new(),
            page_ids: Vec::new(),
            titles: Vec::new(),
            name_keys: Vec::new(),
            kinds: Vec::new(),
            edges: Vec::new(),
            neighbours: Vec::new(),
            linked_to: Vec::new(),
        };
        let mut index: HashMap<P, u32> = HashMap::new();
        for page in pages {
            index.insert(page.id, graph.keys.len() as u32);
            graph.push(
                format!("p{}", page.id),
                Some(page.id),
                page.title,
                page.name_key,
                match page.kind {
                    GraphNodeKind::Answer => GraphNodeKind::Answer,
                    _ => GraphNodeKind::Topic,
                },
            );
        }
        let mut wanted: BTreeMap<&str, &str> = BTreeMap::new();
        for link in links.clone() {
            if link.to.is_none() && !link.target_key.is_empty() {
                wanted.entry(link.target_key).or_insert(link.target_title);
            }
        }
        let mut wanted_index: HashMap<&str, u32> = HashMap::new();
        for (key, title) in wanted {
            wanted_index.insert(key, graph.keys.len() as u32);
            graph.push(format!("w{key}"), None, title, key, GraphNodeKind::Wanted);
        }
        let mut seen = HashSet::new();
        for link in links {
            let Some(&from) = index.get(&link.from) else {
                continue;
            };
            let to = match link.to {
                Some(page) => index.get(&page).copied(),
                None => wanted_index.get(link.target_key).copied(),
            };
            let Some(to) = to else { continue };
            if from != to && seen.insert((from, to)) {
                graph.edges.push((from, to));
            }
        }
        graph.neighbours = crate::neighbours(graph.len(), &graph.edges);
        graph.linked_to = vec![false; graph.len()];
        for &(_, to) in &graph.edges {
            graph.linked_to[to as usize] = true;
        }
        graph
    }

    fn push(
        &mut self,
        key: String,
        page: Option<P>,
        title: &str,
        name_key: &str,
        kind: GraphNodeKind,
    ) {
        self.keys.push(key);
        self.page_ids.push(page);
        self.titles.push(title.to_owned());
        self.name_keys.push(name_key.to_owned());
        self.kinds.push(kind);
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it has no node.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The node of `page`.
    pub fn node_of(&self, page: P) -> Option<usize> {
        self.page_ids.iter().position(|p| *p == Some(page))
    }

    /// Every page's node, by page.
    pub fn nodes_by_page(&self) -> HashMap<P, usize> {
        self.page_ids
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (p, i)))
            .collect()
    }

    /// How many nodes' names have each key.
    pub fn sharing(&self) -> HashMap<&str, u32> {
        let mut sharing: HashMap<&str, u32> = HashMap::new();
        for key in &self.name_keys {
            *sharing.entry(key.as_str()).or_default() += 1;
        }
        sharing
    }

    /// Node `i`'s label (`sharing` is [`WikiGraph::sharing`]): its title, or, when another
    /// node's name reads the same (one key), a title that tells it apart. One key names at
    /// most a topic or a wanted page (a name a page has is not wanted) and a saved answer
    /// (answers' keys are kept apart from topics'), so the topic keeps its plain title, a
    /// saved answer reads `Crema (saved answer)` and a wanted page `Crema (wanted)`.
    pub fn label(&self, i: usize, sharing: &HashMap<&str, u32>) -> String {
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

    /// A hash of node `i`'s neighbours (by name), stable across runs and machines
    /// ([`links_hash`]).
    pub fn links_hash(&self, i: usize) -> i64 {
        links_hash(
            self.neighbours[i]
                .iter()
                .map(|&j| self.keys[j as usize].as_str())
                .collect(),
        )
    }

    /// How many pairs of nodes are linked (either way).
    pub fn linked_pairs(&self) -> u64 {
        self.neighbours.iter().map(|a| a.len() as u64).sum::<u64>() / 2
    }

    /// Each node's size: how many nodes it is linked with, either way.
    pub fn sizes(&self) -> Vec<u32> {
        self.neighbours.iter().map(|a| a.len() as u32).collect()
    }

    /// Which nodes pass `filter`; `communities` holds each node's community label.
    pub fn passing(&self, filter: &NodeFilter<P>, communities: &[u32]) -> Vec<bool> {
        (0..self.len())
            .map(|i| {
                let kind = self.kinds[i];
                let community_ok = filter.community.is_none_or(|c| communities[i] == c);
                if kind == GraphNodeKind::Wanted {
                    return filter.show_wanted
                        && filter.kind.is_none()
                        && filter.tagged.is_none()
                        && filter.in_folder.is_none()
                        && !filter.orphans_only
                        && community_ok;
                }
                let among = |pages: &Option<HashSet<P>>| {
                    let page = self.page_ids[i];
                    pages
                        .as_ref()
                        .is_none_or(|pages| page.is_some_and(|p| pages.contains(&p)))
                };
                filter.kind.is_none_or(|k| k == kind)
                    && among(&filter.tagged)
                    && among(&filter.in_folder)
                    && (!filter.orphans_only || !self.linked_to[i])
                    && community_ok
            })
            .collect()
    }

    /// The nodes within `depth` links of node `start`, links followed both ways (a wanted
    /// page ends a path: it links nowhere), wanted pages among them when `show_wanted`.
    pub fn within(&self, start: usize, depth: u32, show_wanted: bool) -> Vec<bool> {
        let n = self.len();
        let mut distance = vec![u32::MAX; n];
        distance[start] = 0;
        let mut queue = VecDeque::from([start]);
        while let Some(i) = queue.pop_front() {
            if distance[i] == depth {
                continue;
            }
            for &j in &self.neighbours[i] {
                let j = j as usize;
                if distance[j] == u32::MAX {
                    distance[j] = distance[i] + 1;
                    if self.kinds[j] != GraphNodeKind::Wanted {
                        queue.push_back(j);
                    }
                }
            }
        }
        (0..n)
            .map(|i| {
                distance[i] != u32::MAX && (show_wanted || self.kinds[i] != GraphNodeKind::Wanted)
            })
            .collect()
    }

    /// The nodes a search for `query` finds, best first, at most
    /// [`SEARCH_HITS`](crate::view::SEARCH_HITS): `pages` (the pages the wiki's search found,
    /// best first) that are nodes, then wanted pages whose name holds the query (any case).
    pub fn search(&self, pages: impl IntoIterator<Item = P>, query: &str) -> Vec<usize> {
        let by_page = self.nodes_by_page();
        let mut hits: Vec<usize> = pages
            .into_iter()
            .filter_map(|p| by_page.get(&p).copied())
            .take(crate::view::SEARCH_HITS)
            .collect();
        let lower = query.trim().to_lowercase();
        for i in 0..self.len() {
            if hits.len() >= crate::view::SEARCH_HITS {
                break;
            }
            if self.kinds[i] == GraphNodeKind::Wanted
                && self.titles[i].to_lowercase().contains(&lower)
            {
                hits.push(i);
            }
        }
        hits
    }
}

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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use GraphNodeKind::{Answer, Topic};

    /// Espresso → Crema → Tamper, Espresso → Roast (wanted), Grinder → Roast, a saved answer
    /// titled Crema → Espresso, and a saved answer titled Tamper (linked by nothing).
    pub(crate) fn coffee() -> WikiGraph<i64> {
        let pages = [
            (1, Topic, "Espresso", "espresso"),
            (2, Topic, "Crema", "crema"),
            (3, Answer, "Crema", "crema"),
            (4, Topic, "Tamper", "tamper"),
            (5, Answer, "Roast", "roast"),
            (6, Topic, "Grinder", "grinder"),
        ];
        let links = [
            (1, Some(2), "Crema", "crema"),
            (1, None, "Roast", "roast"),
            (1, Some(1), "Espresso", "espresso"),
            (2, Some(4), "Tamper", "tamper"),
            (3, Some(1), "Espresso", "espresso"),
            (6, None, "roast", "roast"),
            (6, None, "", ""),
        ];
        WikiGraph::new(
            pages.iter().map(|&(id, kind, title, name_key)| PageNode {
                id,
                kind,
                title,
                name_key,
            }),
            links
                .iter()
                .map(|&(from, to, target_title, target_key)| LinkEdge {
                    from,
                    to,
                    target_title,
                    target_key,
                }),
        )
    }

    fn titles(graph: &WikiGraph<i64>, keep: &[bool]) -> Vec<String> {
        (0..graph.len())
            .filter(|&i| keep[i])
            .map(|i| format!("{} {}", graph.kinds[i].as_str(), graph.titles[i]))
            .collect()
    }

    #[test]
    fn pages_come_by_id_then_wanted_pages_by_key_and_self_links_are_left_out() {
        let graph = coffee();
        assert_eq!(graph.keys, ["p1", "p2", "p3", "p4", "p5", "p6", "wroast"]);
        // The wanted page is titled as first linked.
        assert_eq!(graph.titles[6], "Roast");
        assert_eq!(graph.edges, [(0, 1), (0, 6), (1, 3), (2, 0), (5, 6)]);
        assert_eq!(graph.sizes(), [3, 2, 1, 1, 0, 1, 2]);
        assert_eq!(graph.linked_pairs(), 5);
    }

    #[test]
    fn names_that_read_the_same_are_told_apart_and_a_topic_keeps_its_title() {
        let graph = coffee();
        let sharing = graph.sharing();
        let labels: Vec<String> = (0..graph.len()).map(|i| graph.label(i, &sharing)).collect();
        assert_eq!(
            labels,
            [
                "Espresso",
                "Crema",
                "Crema (saved answer)",
                "Tamper",
                "Roast (saved answer)",
                "Grinder",
                "Roast (wanted)"
            ]
        );
    }

    #[test]
    fn a_local_graph_follows_links_both_ways_and_a_wanted_page_ends_a_path() {
        let graph = coffee();
        let one = graph.within(0, 1, true);
        assert_eq!(
            titles(&graph, &one),
            [
                "topic Espresso",
                "topic Crema",
                "answer Crema",
                "wanted Roast"
            ]
        );
        // Grinder is two links away through the wanted page only: not reached.
        let two = graph.within(0, 2, false);
        assert_eq!(
            titles(&graph, &two),
            [
                "topic Espresso",
                "topic Crema",
                "answer Crema",
                "topic Tamper"
            ]
        );
    }

    #[test]
    fn filters_keep_wanted_pages_only_when_nothing_narrows_the_pages() {
        let graph = coffee();
        let communities = [0, 0, 0, 1, 2, 1, 1];
        let all = NodeFilter {
            kind: None,
            tagged: None,
            in_folder: None,
            orphans_only: false,
            show_wanted: true,
            community: None,
        };
        assert!(graph.passing(&all, &communities).iter().all(|&k| k));
        let answers = NodeFilter {
            kind: Some(Answer),
            ..all.clone()
        };
        assert_eq!(
            titles(&graph, &graph.passing(&answers, &communities)),
            ["answer Crema", "answer Roast"]
        );
        let orphans = NodeFilter {
            orphans_only: true,
            ..all.clone()
        };
        assert_eq!(
            titles(&graph, &graph.passing(&orphans, &communities)),
            ["answer Crema", "answer Roast", "topic Grinder"]
        );
        let some = NodeFilter {
            tagged: Some(HashSet::from([2, 6, 4])),
            ..all.clone()
        };
        assert_eq!(
            titles(&graph, &graph.passing(&some, &communities)),
            ["topic Crema", "topic Tamper", "topic Grinder"]
        );
        let both = NodeFilter {
            in_folder: Some(HashSet::from([1, 2, 6])),
            ..some
        };
        assert_eq!(
            titles(&graph, &graph.passing(&both, &communities)),
            ["topic Crema", "topic Grinder"]
        );
        let community = NodeFilter {
            community: Some(1),
            show_wanted: false,
            ..all
        };
        assert_eq!(
            titles(&graph, &graph.passing(&community, &communities)),
            ["topic Tamper", "topic Grinder"]
        );
    }

    #[test]
    fn a_search_gives_the_pages_found_then_wanted_pages_holding_the_query() {
        let graph = coffee();
        // Page 99 is no node; the wanted page matches in any case.
        assert_eq!(graph.search([4, 99, 1], " ROA "), [3, 0, 6]);
        assert_eq!(graph.search(1..=6, "nothing").len(), 6);
    }

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
}
