//! An update of the stored layout from what changed only: the links around the pages and
//! names the store's change log holds ([`Store::graph_links_changed`]), every other node
//! as stored (its place, community and links count). It moves what the whole update moved
//! — new nodes beside their neighbours, nodes whose links changed a little, the rest not at
//! all — without reading every link: the layout needs the moving nodes' links and every
//! node's place and mass, the communities the movers' links and every node's links count.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use wikimind_graph::community::{update_communities, Mover};
use wikimind_graph::layout::{lay_out, LayoutInput, Settings as LayoutSettings};
use wikimind_graph::Point;

use super::{links_hash, GraphLaidOut, LEASE_RENEW_EVERY};
use crate::store::{GraphLayoutFigures, GraphLinks, GraphNodeRow, JobOwner, Store};
use crate::wiki::Result;

/// The layout run this update belongs to.
pub(super) struct Leased<'a> {
    /// Who holds the lease.
    pub owner: &'a JobOwner,
    /// The changes count read before it started.
    pub of_changes: i64,
    /// Asked as it runs: `false` stops it, and nothing is stored.
    pub keep_going: &'a dyn Fn() -> bool,
    /// When the run started.
    pub started: Instant,
}

/// Brings the stored layout (`rows`, every stored node) up to date from `around`. `None`:
/// the stored layout lacks a node the changes lead to (a whole read is needed); `Some(None)`:
/// stopped, or the lease was lost; `Some(Some(_))`: stored.
pub(super) fn lay_out_changed(
    store: &Store,
    run: &Leased<'_>,
    around: GraphLinks,
    rows: &[GraphNodeRow],
) -> Result<Option<Option<GraphLaidOut>>> {
    // The nodes whose links may differ, by name, and whether each is a node now.
    let mut affected: BTreeMap<String, bool> = BTreeMap::new();
    for page in &around.changed_pages {
        affected.insert(format!("p{}", page.0), false);
    }
    for page in &around.pages {
        affected.insert(format!("p{}", page.id.0), true);
    }
    for key in &around.changed_keys {
        affected.insert(format!("w{key}"), false);
    }
    // Every link from or to them, as node names (a page's links to itself left out), and the
    // wanted pages among the changed keys that are linked now.
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    for link in &around.links {
        let from = format!("p{}", link.from.0);
        let to = match link.to {
            Some(page) => format!("p{}", page.0),
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
        let (Some(&a), Some(&b)) = (index.get(from.as_str()), index.get(to.as_str())) else {
            // A neighbour the stored layout does not have: read everything.
            return Ok(None);
        };
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
    let changed: Vec<bool> = (0..n)
        .map(|i| stored[i].is_some_and(|row| row.links_hash != hashes[i]))
        .collect();
    let input = LayoutInput {
        nodes: n,
        edges: pairs,
        previous: stored
            .iter()
            .map(|row| row.map(|r| Point::new(r.x, r.y)))
            .collect(),
        changed: changed.clone(),
        masses: degrees.iter().map(|&d| f64::from(d) + 1.0).collect(),
    };
    let mut last_renewal = Instant::now();
    let mut keep = |_done: usize, _of: usize| {
        if last_renewal.elapsed() >= LEASE_RENEW_EVERY {
            last_renewal = Instant::now();
            let _ = store.renew_graph_lease(run.owner);
        }
        (run.keep_going)()
    };
    let Some(layout) = lay_out(&input, &LayoutSettings::default(), &mut keep) else {
        return Ok(Some(None));
    };
    if !(run.keep_going)() {
        return Ok(Some(None));
    }
    // Communities: the new nodes and those whose links changed move, one by one.
    let movers: Vec<Mover> = (0..n)
        .filter(|&i| stored[i].is_none() || changed[i])
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
    let linked_pairs = degrees.iter().map(|&d| u64::from(d)).sum::<u64>() / 2;
    let took_ms = run.started.elapsed().as_millis() as u64;
    let saved = store.save_graph_layout(
        run.owner,
        &upserts,
        &removed,
        GraphLayoutFigures {
            of_changes: run.of_changes,
            nodes: n as u64,
            edges: linked_pairs,
            took_ms,
            changes_upto: around.changes_upto,
        },
    )?;
    if !saved {
        return Ok(Some(None));
    }
    Ok(Some(Some(GraphLaidOut {
        nodes: n as u64,
        edges: linked_pairs,
        incremental: layout.incremental,
        moved: layout.moved as u64,
        written: (upserts.len() + removed.len()) as u64,
        links_read: around.links.len() as u64,
        took_ms,
    })))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::Model;
    use crate::contract::CompilationResult;
    use crate::store::{
        CompileRecord, JobOwner, NewLink, NewSource, SaveArticle, SourceId, SourceKind,
    };
    use crate::wiki::Wiki;

    /// A page `title` (from a source of its own) linking `links`; returns its source.
    fn page(wiki: &Wiki, title: &str, links: &[&str]) -> SourceId {
        let source = wiki
            .store()
            .ingest_source(&NewSource {
                origin: format!("/notes/{title}.md"),
                kind: SourceKind::File,
                title: Some(title.to_owned()),
                text: format!("# {title}\n\nAbout {title}."),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: None,
            })
            .expect("ingest")
            .source_id();
        let links: Vec<NewLink> = links
            .iter()
            .map(|l| NewLink {
                target: (*l).to_owned(),
                context: "see".to_owned(),
            })
            .collect();
        wiki.store()
            .save_article(&SaveArticle {
                source_id: source,
                result: &CompilationResult {
                    title: title.to_owned(),
                    summary: format!("About {title}."),
                    key_claims: Vec::new(),
                    concepts: Vec::new(),
                    backlink_suggestions: Vec::new(),
                    open_questions: Vec::new(),
                    article_body: format!("About {title}."),
                },
                claims: &[],
                links: &links,
                truncated: false,
                title_is_page: true,
                unnamed_concepts: &[],
                record: &CompileRecord {
                    provider: "test".to_owned(),
                    model: "test".to_owned(),
                    prompt_version: "v1".to_owned(),
                    tokens_in: None,
                    tokens_out: None,
                    latency_ms: 0,
                    attempt: 1,
                    repairs: Vec::new(),
                    warnings: Vec::new(),
                    truncated: false,
                    raw_answer: String::new(),
                },
            })
            .expect("save");
        source
    }

    /// Every stored node is a node of the whole graph read afresh, and the other way round,
    /// with the links count and links hash that read gives; the change log is empty.
    fn assert_stored_as_every_link_says(wiki: &Wiki, step: &str) {
        let model = Model::of(&wiki.store().graph_links().unwrap());
        let rows = wiki.store().graph_nodes().unwrap();
        let stored: HashMap<&str, _> = rows.iter().map(|r| (r.node.as_str(), r)).collect();
        let mut want: Vec<&str> = model.keys.iter().map(String::as_str).collect();
        let mut got: Vec<&str> = stored.keys().copied().collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{step}: the nodes");
        for (i, key) in model.keys.iter().enumerate() {
            let row = stored[key.as_str()];
            assert_eq!(
                row.degree,
                Some(model.neighbours[i].len() as u32),
                "{step}: links of {key}"
            );
            assert_eq!(row.links_hash, model.links_hash(i), "{step}: hash of {key}");
            assert!(row.x.is_finite() && row.y.is_finite(), "{step}: {key}");
        }
        let left = wiki.store().graph_links_changed().unwrap();
        assert!(
            left.changed_pages.is_empty() && left.changed_keys.is_empty(),
            "{step}: the change log is emptied"
        );
    }

    /// Regression for the update that read every link (1.4 s at 100,000 pages): each kind
    /// of change — a page added with links to pages and to a new name, a wanted page
    /// written, a page renamed (links to its old title follow it), a page removed — is
    /// brought up to date from the links around it, and stores what reading every link
    /// stores.
    #[test]
    fn an_update_from_the_change_log_stores_what_reading_every_link_gives() {
        let wiki = Wiki::open_in_memory().unwrap();
        // Enough pages that a change is a small part of the graph.
        for i in 0..40 {
            page(
                &wiki,
                &format!("Topic {i}"),
                &[&format!("Topic {}", (i + 1) % 40)],
            );
        }
        page(&wiki, "Espresso", &["Crema", "Grinder", "Topic 3"]);
        page(&wiki, "Crema", &["Bloom"]);
        page(&wiki, "Grinder", &["Topic 7"]);
        let tamper = page(&wiki, "Tamper", &["Espresso", "Topic 9"]);
        let owner = JobOwner::this_process();
        let first = wiki.lay_out_graph(&owner, &|| true).unwrap().unwrap();
        assert!(!first.incremental);
        assert_stored_as_every_link_says(&wiki, "whole layout");
        let every = first.links_read;

        let steps: [(&str, &dyn Fn()); 5] = [
            ("a page added", &|| {
                page(&wiki, "Roast", &["Espresso", "Crema", "Roast curve"]);
            }),
            ("a wanted page written", &|| {
                page(&wiki, "Bloom", &["Crema", "Topic 12"]);
            }),
            ("a page's links rewritten", &|| {
                wiki.edit_page(
                    "Crema",
                    None,
                    "Crema leads to [[Topic 20]] and [[Topic 21]].",
                )
                .unwrap();
            }),
            ("a page renamed", &|| {
                wiki.rename_page("Grinder", "Burr grinder").unwrap();
            }),
            ("a page removed", &|| {
                wiki.remove_source(tamper).unwrap();
            }),
        ];
        for (step, change) in steps {
            change();
            let done = wiki
                .lay_out_graph(&owner, &|| true)
                .unwrap()
                .unwrap_or_else(|| panic!("{step}: no layout was due"));
            assert!(done.incremental, "{step}");
            assert!(
                done.links_read < every / 2,
                "{step}: read {} links of {every}",
                done.links_read
            );
            assert_stored_as_every_link_says(&wiki, step);
        }
        // The rename kept Espresso's link: it reaches the page by its former title.
        let view = wiki.graph(&super::super::GraphFilter::default()).unwrap();
        let at = |t: &str| view.titles.iter().position(|x| x == t).unwrap() as u32;
        let (espresso, grinder) = (at("Espresso"), at("Burr grinder"));
        assert!(view.edges.chunks_exact(2).any(|e| e == [espresso, grinder]));
    }
}
