//! `wikimind graph`: the graph of a compiled vault as JSON, DOT and a local graph.

use serde_json::Value;
use wikimind_testserver::TestServer;

use crate::common::Env;

fn id_of(graph: &Value, title: &str) -> Value {
    graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["title"] == title)
        .unwrap_or_else(|| panic!("no node {title}: {graph}"))["id"]
        .clone()
}

fn compiled_vault(server: &TestServer) -> Env {
    let env = Env::new(server);
    env.write_note(
        "Espresso.md",
        "# Espresso\n\nEspresso carries [[Crema]] on top.\n",
    );
    env.write_note(
        "Crema.md",
        "# Crema\n\nCrema shows how fresh the beans were; see [[Bloom]].\n",
    );
    env.write_note(
        "Bloom.md",
        "# Bloom\n\nBloom is the gas fresh coffee lets out, see [[Roast curve]].\n",
    );
    env.cmd()
        .args(["ingest", env.notes().to_str().unwrap()])
        .assert()
        .success();
    env.cmd().args(["compile"]).assert().success();
    env
}

#[test]
fn graph_json_has_pages_wanted_pages_and_links_by_page_id() {
    let server = TestServer::start();
    let env = compiled_vault(&server);
    let graph = env.json(&["graph"]);
    let node = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["title"] == "Crema")
        .expect("Crema is a node");
    for key in ["id", "title", "kind", "x", "y", "size", "community"] {
        assert!(node.get(key).is_some(), "{key} missing: {node}");
    }
    assert_eq!(node["kind"], "topic");
    assert!(node["id"].is_i64());
    let (espresso, crema) = (id_of(&graph, "Espresso"), id_of(&graph, "Crema"));
    let edges = graph["edges"].as_array().unwrap();
    assert!(
        edges
            .iter()
            .any(|e| e["source"] == espresso && e["target"] == crema),
        "{graph}"
    );
    // A wanted page: id null, its name as title; the link to it names it.
    assert_eq!(id_of(&graph, "Roast curve"), Value::Null);
    assert!(edges
        .iter()
        .any(|e| e["target"].is_null() && e["target_title"] == "Roast curve"));
    // Asking again gives the same positions: they are stored, not recomputed.
    assert_eq!(env.json(&["graph"])["nodes"], graph["nodes"]);
    // Wanted pages hidden.
    let pages = env.json(&["graph", "--no-wanted"]);
    assert!(pages["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| !n["id"].is_null()));
}

#[test]
fn graph_local_dot_and_bad_depth() {
    let server = TestServer::start();
    let env = compiled_vault(&server);
    let local = env.json(&["graph", "--local", "crema", "--depth", "1"]);
    let mut titles: Vec<&str> = local["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].as_str().unwrap())
        .collect();
    titles.sort_unstable();
    assert_eq!(titles, ["Bloom", "Crema", "Espresso"]);
    let deeper = env.json(&["graph", "--local", "Crema", "--depth", "2"]);
    assert_eq!(deeper["nodes"].as_array().unwrap().len(), 4);

    let dot = env.human(&["graph", "--dot"]);
    assert!(dot.starts_with("digraph wiki {"), "{dot}");
    assert!(dot.contains("label=\"Crema\""));

    let summary = env.human(&["graph"]);
    assert!(summary.contains("nodes"), "{summary}");

    env.cmd()
        .args(["graph", "--local", "Crema", "--depth", "4"])
        .assert()
        .code(2);
    env.cmd()
        .args(["graph", "--local", "No such page"])
        .assert()
        .code(1);
}

/// A saved answer whose question reads as a topic's name (`#Crema` and `Crema`) is told
/// apart by its label; the topic keeps its title as its label, and `title` stays the name.
#[test]
fn graph_json_labels_a_saved_answer_apart_from_the_topic_it_reads_as() {
    let server = TestServer::start();
    let env = compiled_vault(&server);
    let report = env.json(&["ask", "#Crema", "--save"]);
    assert_eq!(report["saved"], "#Crema", "{report}");
    let graph = env.json(&["graph"]);
    let label = |title: &str, kind: &str| {
        graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["title"] == title && n["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} node {title}: {graph}"))["label"]
            .clone()
    };
    assert_eq!(label("Crema", "topic"), "Crema");
    assert_eq!(label("#Crema", "answer"), "#Crema (saved answer)");
    assert_eq!(label("Espresso", "topic"), "Espresso");
    assert_eq!(label("Roast curve", "wanted"), "Roast curve");
    env.cmd()
        .args(["graph", "--dot"])
        .assert()
        .success()
        .stdout(predicates::str::contains("label=\"#Crema (saved answer)\""));
}
