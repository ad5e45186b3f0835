//! The store's upkeep (the graph's layout, its drafts and its lease) commits without moving
//! the generation that caches are kept under, unless something else was committed too.

use std::time::Duration;

use wikimind_store::{GraphLayoutFigures, JobOwner};

use crate::{add, file_store, node_at};

#[test]
fn the_graph_layout_keeps_the_generation_until_anything_else_is_committed() {
    let (dir, store) = file_store();
    add(&store, "/n/a.md", "one");
    let owner = JobOwner {
        host: "here".to_owned(),
        pid: 7,
    };
    let row = node_at;
    let figures = GraphLayoutFigures {
        of_changes: 0,
        nodes: 1,
        edges: 0,
        took_ms: 1,
        changes_upto: 0,
    };

    let read = store.generation().expect("generation");
    assert!(store
        .take_graph_lease(&owner, Duration::from_secs(60), &|_| false)
        .expect("lease"));
    assert!(store
        .save_graph_draft(&owner, &[row("p1", 0.5)])
        .expect("draft"));
    store.renew_graph_lease(&owner).expect("renew");
    assert!(store
        .save_graph_layout(&owner, &[row("p1", 1.0)], &[], figures)
        .expect("save"));
    assert_eq!(
        store.graph_nodes().expect("nodes")[0].x,
        1.0,
        "it was stored"
    );
    assert_eq!(
        store.generation().expect("after the layout"),
        read,
        "a lease, a draft, a renewal and a layout: what was read before is still current"
    );

    // A source written after it moves the generation, and a layout after that keeps the
    // new one, not the first.
    add(&store, "/n/b.md", "two");
    let written = store.generation().expect("after a write");
    assert_ne!(written, read);
    assert!(store
        .take_graph_lease(&owner, Duration::from_secs(60), &|_| false)
        .expect("lease"));
    store.release_graph_lease(&owner).expect("release");
    assert_eq!(store.generation().expect("after a lease"), written);

    // Another process's commit moves it, upkeep or not, even right after the store's own
    // upkeep.
    let other = rusqlite::Connection::open(dir.path().join("wikimind.db")).expect("open");
    other
        .execute(
            "UPDATE graph_state SET heartbeat_at = 'then' WHERE id = 1",
            [],
        )
        .expect("update");
    let elsewhere = store.generation().expect("after another's commit");
    assert_ne!(elsewhere, written);
    assert!(store
        .take_graph_lease(&owner, Duration::from_secs(60), &|_| false)
        .expect("lease"));
    assert_eq!(store.generation().expect("after a lease"), elsewhere);
}
