//! The WikiMind desktop app: a Tauri window over the core library.
//!
//! This crate is glue. [`commands`] declares the command surface once (and the TypeScript
//! client is generated from it, see [`bindings`]); [`host`] holds the open wiki and its
//! job runner; [`run`] opens the window, recovers interrupted jobs, and forwards every
//! compile job change (its own and other processes') to the front end as a typed
//! [`JOB_EVENT`] event, a question's answer as it streams in as an [`ASK_EVENT`] event, and
//! the state of the watched folders (watched while the window is open) as a
//! [`WATCH_EVENT`] event ([`events`] declares them, and their payloads, once).
//! No SQL and no business rules live here.

pub mod bindings;
pub mod commands;
pub mod events;
pub mod host;

pub use events::{ASK_EVENT, GRAPH_EVENT, JOB_EVENT, WATCH_EVENT};

use tauri::Manager;
use wikimind::llm::CancellationToken;
use wikimind::queue::JobRunner;
use wikimind::watch::{WatchKeeper, WatchOptions};
use wikimind::wiki::Wiki;

use crate::host::{keyring, load_settings, Asking, Host};

/// The app id of debug builds, so their webview data never mixes with a release's.
pub const DEBUG_IDENTIFIER: &str = "org.wikimind.desktop.dev";

/// Opens the app and runs until its window closes. Returns a message when it cannot start.
pub fn run() -> Result<(), String> {
    let settings = load_settings(&keyring()).map_err(|e| e.to_string())?;
    let mut notices = Vec::new();
    let wiki = Wiki::open_for_shell(&settings, &mut |notice| {
        eprintln!("{notice}");
        notices.push(notice);
    })
    .map_err(|e| {
        let mut message = e.to_string();
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            message.push_str(&format!(": {c}"));
            cause = c.source();
        }
        message
    })?;
    let mut context = tauri::generate_context!();
    if cfg!(debug_assertions) {
        context.config_mut().identifier = DEBUG_IDENTIFIER.to_string();
    }
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            let handle = app.handle().clone();
            let ask_handle = app.handle().clone();
            let asking = Asking::new(move |progress| {
                // The window may be gone while an answer streams in; nothing to tell then.
                let _ = ASK_EVENT.emit(&ask_handle, &progress);
            });
            let runtime =
                tauri::async_runtime::block_on(async { tokio::runtime::Handle::current() });
            let keys: std::sync::Arc<dyn wikimind::llm::KeyStore> = std::sync::Arc::new(keyring());
            let queue = JobRunner::new(
                wiki.clone(),
                settings,
                std::sync::Arc::clone(&keys),
                Box::new(move |job| {
                    // The window may be gone while a job finishes; nothing to tell then.
                    let _ = JOB_EVENT.emit(&handle, &wikimind::view::JobProgress::from(job));
                }),
            );
            let graph_handle = app.handle().clone();
            queue.on_graph_layout(Box::new(move |state| {
                let _ = GRAPH_EVENT.emit(&graph_handle, state);
            }));
            // Jobs an earlier run (or a killed CLI) left behind go back in line, and run.
            queue.recover().map_err(|e| e.to_string())?;
            queue.start(&runtime, CancellationToken::new());
            // The saved folders are watched while the window is open (unless a
            // `wikimind watch` holds the wiki's watch lease); what changes is queued above.
            let watch_handle = app.handle().clone();
            let watch = WatchKeeper::new(
                wiki.clone(),
                queue.clone(),
                WatchOptions::default(),
                Box::new(move |view| {
                    let _ = WATCH_EVENT.emit(&watch_handle, view);
                }),
            );
            watch.start(&runtime, CancellationToken::new());
            app.manage(Host {
                wiki,
                queue,
                keys,
                asking,
                watch,
                notices,
            });
            if cfg!(debug_assertions) {
                if let Some(window) = app.get_webview_window("main") {
                    let _ = window.set_title("WikiMind (development build)");
                }
            }
            Ok(())
        })
        .invoke_handler(commands::invoke_handler())
        .run(context)
        .map_err(|e| format!("the window could not run: {e}"))
}
