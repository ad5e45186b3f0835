//! The graph view over a real database: nodes and edges as pages and links resolve, the
//! stored layout (deterministic, incremental), filters and the local graph.

use wikimind::graph::{GraphArea, GraphFilter, GraphNodeKind, GraphView};
use wikimind::store::{BulkSeed, JobOwner, PageKind};
use wikimind::wiki::Wiki;
use wikimind::PageId;

use crate::seed;

fn node(view: &GraphView, title: &str) -> usize {
    view.titles
        .iter()
        .position(|t| t == title)
        .unwrap_or_else(|| panic!("no node {title:?} in {:?}", view.titles))
}

fn linked(view: &GraphView, a: &str, b: &str) -> bool {
    let (a, b) = (node(view, a) as u32, node(view, b) as u32);
    view.edges.chunks_exact(2).any(|e| e == [a, b])
}

fn at(view: &GraphView, title: &str) -> (f32, f32) {
    let i = node(view, title);
    (view.xs[i], view.ys[i])
}

/// Four pages: Espresso → Crema → Bloom → (wanted) Roast curve; Grinder alone.
fn small_wiki() -> Wiki {
    let wiki = Wiki::open_in_memory().expect("wiki");
    let store = wiki.store_for_tests();
    let pages = [
        ("Espresso", vec!["Crema"]),
        ("Crema", vec!["Bloom"]),
        ("Bloom", vec!["Roast curve"]),
        ("Grinder", vec![]),
    ];
    for (title, links) in pages {
        let source = seed::add(
            store,
            &format!("/vault/notes/{title}.md"),
            &format!("# {title}\n\nAbout {title}."),
        );
        let links: Vec<_> = links.iter().map(|l| seed::link(l, "see")).collect();
        seed::save(
            store,
            source,
            &seed::result(title, &format!("About {title}.")),
            &links,
        );
    }
    wiki
}

#[test]
fn pages_and_wanted_pages_are_nodes_and_resolved_links_are_edges() {
    let wiki = small_wiki();
    let view = wiki.laid_out_graph(&GraphFilter::default()).expect("graph");
    let mut titles = view.titles.clone();
    titles.sort();
    assert_eq!(
        titles,
        ["Bloom", "Crema", "Espresso", "Grinder", "Roast curve"]
    );
    assert_eq!(
        view.kinds[node(&view, "Roast curve")],
        GraphNodeKind::Wanted
    );
    assert_eq!(view.page_ids[node(&view, "Roast curve")], None);
    assert!(linked(&view, "Espresso", "Crema"));
    assert!(linked(&view, "Crema", "Bloom"));
    assert!(linked(&view, "Bloom", "Roast curve"));
    assert_eq!(view.edges.len(), 6);
    // Size is links either way: Crema is linked with two pages, Grinder with none.
    assert_eq!(view.sizes[node(&view, "Crema")], 2);
    assert_eq!(view.sizes[node(&view, "Grinder")], 0);
    assert_eq!(
        view.layout.phase,
        wikimind::graph::GraphLayoutPhase::Current
    );

    // The CLI's records: page ids, a wanted page with id null and its name as title.
    let records = view.records();
    let wanted = records
        .nodes
        .iter()
        .find(|n| n.title == "Roast curve")
        .unwrap();
    assert_eq!(wanted.id, None);
    assert!(records
        .edges
        .iter()
        .any(|e| e.target.is_none() && e.target_title.as_deref() == Some("Roast curve")));
    let dot = view.dot();
    assert!(dot.starts_with("digraph wiki {") && dot.contains("label=\"Roast curve\""));
}

#[test]
fn each_filter_narrows_the_nodes() {
    let wiki = small_wiki();
    wiki.laid_out_graph(&GraphFilter::default()).expect("graph");
    let titles = |filter: GraphFilter| {
        let mut t = wiki.graph(&filter).expect("graph").titles;
        t.sort();
        t
    };
    assert_eq!(
        titles(GraphFilter {
            show_wanted: false,
            ..GraphFilter::default()
        }),
        ["Bloom", "Crema", "Espresso", "Grinder"]
    );
    // Orphans: no other page links to them.
    assert_eq!(
        titles(GraphFilter {
            orphans_only: true,
            ..GraphFilter::default()
        }),
        ["Espresso", "Grinder"]
    );
    assert_eq!(
        titles(GraphFilter {
            kind: Some(PageKind::Answer),
            ..GraphFilter::default()
        }),
        Vec::<String>::new()
    );
    assert_eq!(
        titles(GraphFilter {
            folder: Some("notes".to_owned()),
            ..GraphFilter::default()
        })
        .len(),
        4
    );
    assert!(titles(GraphFilter {
        folder: Some("elsewhere".to_owned()),
        ..GraphFilter::default()
    })
    .is_empty());
    // Above the limit: the overview keeps the largest nodes and says how many matched.
    let overview = wiki
        .graph(&GraphFilter {
            limit: Some(2),
            ..GraphFilter::default()
        })
        .unwrap();
    assert!(overview.overview);
    assert_eq!(overview.matched, 5);
    assert!(overview.titles.contains(&"Crema".to_owned()));
    assert!(!overview.titles.contains(&"Grinder".to_owned()));
    assert!(!overview.area_whole);
    // Zoomed in on Grinder (linked with nothing): it comes first, the largest fill the rest.
    let (x, y) = at(&wiki.graph(&GraphFilter::default()).unwrap(), "Grinder");
    let area = GraphArea {
        min_x: x - 0.01,
        min_y: y - 0.01,
        max_x: x + 0.01,
        max_y: y + 0.01,
    };
    let zoomed = wiki
        .graph(&GraphFilter {
            limit: Some(2),
            area: Some(area),
            ..GraphFilter::default()
        })
        .unwrap();
    assert!(zoomed.overview);
    assert!(zoomed.area_whole);
    assert_eq!(zoomed.titles.len(), 2);
    assert!(zoomed.titles.contains(&"Grinder".to_owned()));
    let bounds = zoomed.bounds.expect("laid out");
    assert!(bounds.contains(x, y) && bounds.max_x > bounds.min_x);
}

#[test]
fn the_local_graph_follows_links_both_ways_to_the_depth_asked() {
    let wiki = small_wiki();
    wiki.laid_out_graph(&GraphFilter::default()).expect("graph");
    let crema = wiki.page_named("Crema").unwrap();
    let mut one = wiki.local_graph(crema, 1, true).unwrap().titles;
    one.sort();
    assert_eq!(one, ["Bloom", "Crema", "Espresso"]);
    let two = wiki.local_graph(crema, 2, true).unwrap();
    assert_eq!(two.titles.len(), 4, "{:?}", two.titles);
    assert_eq!(two.titles[two.centre.unwrap() as usize], "Crema");
    let hidden = wiki.local_graph(crema, 2, false).unwrap();
    assert!(!hidden.titles.contains(&"Roast curve".to_owned()));
    let err = wiki.local_graph(crema, 4, true).unwrap_err().to_string();
    assert!(err.contains("1 to 3"), "{err}");
    assert!(wiki.local_graph(PageId(999), 1, true).is_err());
    let by_name = wiki.local_graph_named("crema", 1, true).unwrap();
    assert_eq!(by_name.titles.len(), 3);
}

#[test]
fn search_finds_a_node_with_where_it_sits() {
    let wiki = small_wiki();
    let view = wiki.laid_out_graph(&GraphFilter::default()).expect("graph");
    let hits = wiki.graph_search("crema").unwrap();
    assert_eq!(hits[0].title, "Crema");
    assert_eq!((hits[0].x.unwrap(), hits[0].y.unwrap()), at(&view, "Crema"));
    let wanted = wiki.graph_search("roast").unwrap();
    assert!(wanted.iter().any(|h| h.kind == GraphNodeKind::Wanted));
    let detail = wiki
        .graph_node_detail(hits[0].page_id.unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(detail.summary, "A page about Crema.");
}

#[test]
fn adding_a_page_moves_only_it_and_the_pages_it_links() {
    let wiki = small_wiki();
    let before = wiki.laid_out_graph(&GraphFilter::default()).expect("graph");
    let store = wiki.store_for_tests();
    let source = seed::add(store, "/vault/notes/Tamper.md", "# Tamper\n\nAbout Tamper.");
    seed::save(
        store,
        source,
        &seed::result("Tamper", "About Tamper."),
        &[seed::link("Espresso", "see")],
    );
    assert_eq!(
        wiki.graph_layout_state().unwrap().phase,
        wikimind::graph::GraphLayoutPhase::Updating
    );
    let laid = wiki
        .lay_out_graph(&JobOwner::this_process(), &|| true)
        .unwrap()
        .expect("a layout was due");
    assert!(laid.incremental);
    let after = wiki.graph(&GraphFilter::default()).unwrap();
    for title in ["Crema", "Bloom", "Grinder", "Roast curve"] {
        assert_eq!(at(&before, title), at(&after, title), "{title} moved");
    }
    // The new page sits nearer Espresso than the far end of the chain does.
    let d = |a: (f32, f32), b: (f32, f32)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    let tamper = at(&after, "Tamper");
    assert!(d(tamper, at(&after, "Espresso")) < d(tamper, at(&after, "Roast curve")));
    // Nothing changed since: no layout is due.
    assert!(wiki
        .lay_out_graph(&JobOwner::this_process(), &|| true)
        .unwrap()
        .is_none());

    // Removing the source of Grinder removes its node; the others stay.
    let grinder = store
        .find_source("/vault/notes/Grinder.md")
        .unwrap()
        .unwrap()
        .id;
    wiki.remove_source(grinder).unwrap();
    let gone = wiki.laid_out_graph(&GraphFilter::default()).unwrap();
    assert!(!gone.titles.contains(&"Grinder".to_owned()));
    assert_eq!(at(&gone, "Crema"), at(&after, "Crema"));
}

#[test]
fn the_same_wiki_gives_the_same_layout_and_communities() {
    let view = |_: ()| {
        let wiki = Wiki::open_in_memory().expect("wiki");
        wiki.store_for_tests()
            .seed_bulk(&BulkSeed::new(400))
            .expect("seed");
        wiki.laid_out_graph(&GraphFilter::default()).expect("graph")
    };
    let (a, b) = (view(()), view(()));
    assert_eq!(a.xs, b.xs);
    assert_eq!(a.ys, b.ys);
    assert_eq!(a.communities, b.communities);
    assert!(a.titles.len() > 400, "pages and wanted pages");
    // A linked wiki falls into several communities, not one and not one per page.
    let mut labels = a.communities.clone();
    labels.sort_unstable();
    labels.dedup();
    assert!(
        labels.len() > 1 && labels.len() < a.titles.len() / 4,
        "{}",
        labels.len()
    );
}

/// Keeps an answer to `question` as a page of kind `answer` (no claims, no links).
fn save_answer(wiki: &Wiki, question: &str) -> PageId {
    use wikimind::store::{AnswerPage, PageContent};
    wiki.store_for_tests()
        .save_answer(&AnswerPage {
            question,
            content: &PageContent {
                title: question.to_owned(),
                summary: format!("An answer to {question}"),
                body: "An answer.".to_owned(),
                claims: Vec::new(),
                concepts: Vec::new(),
                open_questions: Vec::new(),
                links: Vec::new(),
            },
            marked: None,
            provider: "test",
            model: "test",
        })
        .expect("answer saved")
        .page_id
}

#[test]
fn nodes_whose_names_read_the_same_are_labelled_apart() {
    let wiki = small_wiki();
    // A saved answer titled as the topic Crema, and one titled as the wanted page Roast
    // curve (a link to that name is not to the answer: answers are not link targets).
    let crema_answer = save_answer(&wiki, "Crema");
    let roast_answer = save_answer(&wiki, "Roast curve?");
    let view = wiki.laid_out_graph(&GraphFilter::default()).expect("graph");
    let label_of = |page: Option<PageId>, kind: GraphNodeKind| {
        let i = (0..view.titles.len())
            .find(|&i| view.page_ids[i] == page && view.kinds[i] == kind)
            .unwrap_or_else(|| panic!("no {kind:?} node {page:?} in {:?}", view.titles));
        (view.titles[i].clone(), view.label(i).to_owned())
    };
    let crema = wiki.page_named("Crema").unwrap();
    assert_eq!(
        label_of(Some(crema), GraphNodeKind::Topic),
        ("Crema".into(), "Crema".into())
    );
    assert_eq!(
        label_of(Some(crema_answer), GraphNodeKind::Answer),
        ("Crema".into(), "Crema (saved answer)".into())
    );
    assert_eq!(
        label_of(None, GraphNodeKind::Wanted),
        ("Roast curve".into(), "Roast curve (wanted)".into())
    );
    assert_eq!(
        label_of(Some(roast_answer), GraphNodeKind::Answer),
        ("Roast curve?".into(), "Roast curve? (saved answer)".into())
    );
    // Only those three are listed apart (every other node is shown by its title), and no
    // two nodes are shown alike.
    assert_eq!(view.told_apart.len(), 3, "{:?}", view.told_apart);
    let mut labels: Vec<&str> = (0..view.titles.len()).map(|i| view.label(i)).collect();
    labels.sort_unstable();
    labels.dedup();
    assert_eq!(labels.len(), view.titles.len(), "{labels:?}");

    // The CLI's records and DOT carry the labels; the title stays the name.
    let records = view.records();
    let answer = records
        .nodes
        .iter()
        .find(|n| n.id == Some(crema_answer))
        .unwrap();
    assert_eq!(
        (answer.title.as_str(), answer.label.as_str()),
        ("Crema", "Crema (saved answer)")
    );
    assert!(view.dot().contains("label=\"Roast curve (wanted)\""));
    // A view without the topic still tells the answer apart: labels are of the whole graph.
    let answers = wiki
        .graph(&GraphFilter {
            kind: Some(PageKind::Answer),
            ..GraphFilter::default()
        })
        .unwrap();
    assert!((0..answers.titles.len()).any(|i| answers.label(i) == "Crema (saved answer)"));
    // Search hits carry the same labels (the window shows them as they are): a node told
    // apart, one that is not, and the wanted page.
    let hits = |query: &str| -> Vec<(String, String)> {
        let hits = wiki.graph_search(query).unwrap();
        hits.into_iter().map(|h| (h.title, h.label)).collect()
    };
    let crema_hits = hits("crema");
    assert!(
        crema_hits.contains(&("Crema".into(), "Crema (saved answer)".into()))
            && crema_hits.contains(&("Crema".into(), "Crema".into())),
        "{crema_hits:?}"
    );
    assert!(
        hits("roast").contains(&("Roast curve".into(), "Roast curve (wanted)".into())),
        "{:?}",
        hits("roast")
    );
    assert!(hits("bloom").contains(&("Bloom".into(), "Bloom".into())));
}
