//! Tests of the layout stored against what reading every link gives.

use std::collections::HashMap;

use super::{graph_of, GraphFilter};
use crate::store::{fixtures, JobOwner, NewLink, NewSource, SaveArticle, SourceId, SourceKind};
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
            links: &links,
            record: &fixtures::record("test", "test"),
            ..fixtures::digest(source, &fixtures::result(title, &format!("About {title}.")))
        })
        .expect("save");
    source
}

/// Every stored node is a node of the whole graph read afresh, and the other way round,
/// with the links count and links hash that read gives; the change log is empty.
fn assert_stored_as_every_link_says(wiki: &Wiki, step: &str) {
    let model = graph_of(&wiki.store().graph_links().unwrap());
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
    let view = wiki.graph(&GraphFilter::default()).unwrap();
    let at = |t: &str| view.titles.iter().position(|x| x == t).unwrap() as u32;
    let (espresso, grinder) = (at("Espresso"), at("Burr grinder"));
    assert!(view.edges.chunks_exact(2).any(|e| e == [espresso, grinder]));
}

/// Twelve pages in a ring, with a name no page has.
fn ring(wiki: &Wiki) {
    for i in 0..12 {
        let next = format!("Topic {}", (i + 1) % 12);
        page(wiki, &format!("Topic {i}"), &[&next, "Roast curve"]);
    }
}

/// A first layout stores drafts of itself as it runs: the graph view draws every node at
/// its draft place while the layout still says it is the first; a layout stopped after
/// drafts lays every node out afresh the next time, as a wiki that never had drafts does.
#[test]
fn a_first_layout_shows_drafts_and_a_stopped_one_starts_afresh() {
    let wiki = Wiki::open_in_memory().unwrap();
    ring(&wiki);
    let owner = JobOwner::this_process();
    let seen = std::cell::RefCell::new(Vec::new());
    let asked = std::cell::Cell::new(0);
    let stopped = wiki
        .lay_out_graph_drafting(
            &owner,
            &|| {
                asked.set(asked.get() + 1);
                asked.get() < 20
            },
            &|| {
                seen.borrow_mut()
                    .push(wiki.graph(&GraphFilter::default()).unwrap())
            },
            std::time::Duration::ZERO,
        )
        .unwrap();
    assert!(stopped.is_none(), "stopped before the end");
    let seen = seen.into_inner();
    assert!(seen.len() >= 10, "{} drafts", seen.len());
    for draft in &seen {
        assert_eq!(draft.layout.phase, super::GraphLayoutPhase::FirstLayout);
        assert_eq!(draft.titles.len(), 13, "every page and the wanted page");
        assert!(draft.top_communities.is_empty(), "no community yet");
    }
    assert_ne!(seen[0].xs, seen[seen.len() - 1].xs, "the drafts settle");

    // Laid out to the end after the drafts, and on a wiki that never had any: the same.
    wiki.lay_out_graph(&owner, &|| true).unwrap().unwrap();
    let fresh = Wiki::open_in_memory().unwrap();
    ring(&fresh);
    fresh.lay_out_graph(&owner, &|| true).unwrap().unwrap();
    let rows = |w: &Wiki| {
        let mut rows = w.store().graph_nodes().unwrap();
        rows.sort_by(|a, b| a.node.cmp(&b.node));
        rows
    };
    assert_eq!(rows(&wiki), rows(&fresh));
    let view = wiki.graph(&GraphFilter::default()).unwrap();
    assert_eq!(view.layout.phase, super::GraphLayoutPhase::Current);
    assert!(!view.top_communities.is_empty());
}
