//! Reads `tauri.conf.json` and `capabilities/` beside this file at build time.
//!
//! The app's own commands are declared to Tauri's access control here, so each one gets a
//! permission (`allow-<command>`) that `capabilities/main-window.json` grants by name: a
//! command not granted there cannot be called from the window. A test
//! (`commands::tests`) keeps this list, the declared commands and the grants in step.

/// Every command `src/commands.rs` declares.
const COMMANDS: &[&str] = &[
    "library",
    "library_rows",
    "search",
    "page",
    "page_id_by_name",
    "page_text",
    "restore_page_version",
    "sources_window",
    "source",
    "quote",
    "digest_quote",
    "citation_page",
    "open_cited_file",
    "compilations",
    "add_text",
    "add_paths",
    "add_url",
    "ask_for_page",
    "health",
    "health_findings",
    "dismiss_finding",
    "accept_merge",
    "fix_health",
    "remove_source",
    "compile",
    "cancel",
    "cancel_page",
    "jobs",
    "settings",
    "apply_provider",
    "apply_pool",
    "pool",
    "opening",
    "check_connection",
    "save_api_key",
    "ask",
    "cancel_ask",
    "save_answer",
    "notes",
    "note",
    "new_note",
    "save_note",
    "rename_note",
    "remove_note",
    "preview",
    "graph",
    "local_graph",
    "graph_search",
    "graph_node",
    "link_names",
    "edit_page",
    "accept_suggestion",
    "dismiss_suggestion",
    "add_claim",
    "remove_claim",
    "rename_page",
    "revert_page",
    "watched_folders",
    "add_watched_folder",
    "remove_watched_folder",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {e:#}");
    }
}
