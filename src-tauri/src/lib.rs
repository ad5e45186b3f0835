//! The WikiMind desktop app: a Tauri window over the core library.
//!
//! This crate is glue. [`commands`] declares the command surface once (and the TypeScript
//! client is generated from it, see [`bindings`]); [`host`] holds the open wiki and its
//! compile queue; [`run`] opens the window, and forwards every compile job change to the
//! front end as a typed [`JOB_EVENT`] event. No SQL and no business rules live here.

pub mod bindings;
pub mod commands;
pub mod host;

use tauri::{Emitter, Manager};
use wikimind::queue::CompileQueue;
use wikimind::wiki::Wiki;

use crate::host::{load_settings, Host, KEYRING_SERVICE};

/// The event carrying a [`wikimind::view::JobProgress`] each time a compile job changes.
pub const JOB_EVENT: &str = "job";

/// The app id of debug builds, so their webview data never mixes with a release's.
pub const DEBUG_IDENTIFIER: &str = "org.wikimind.desktop.dev";

/// Opens the app and runs until its window closes. Returns a message when it cannot start.
pub fn run() -> Result<(), String> {
    let settings = load_settings().map_err(|e| e.to_string())?;
    let wiki = Wiki::open(&settings.data_dir).map_err(|e| e.to_string())?;
    let mut context = tauri::generate_context!();
    if cfg!(debug_assertions) {
        context.config_mut().identifier = DEBUG_IDENTIFIER.to_string();
    }
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            let handle = app.handle().clone();
            let runtime =
                tauri::async_runtime::block_on(async { tokio::runtime::Handle::current() });
            let queue = CompileQueue::new(
                wiki.clone(),
                settings,
                runtime,
                Box::new(move |job| {
                    // The window may be gone while a job finishes; nothing to tell then.
                    let _ = handle.emit(JOB_EVENT, job);
                }),
            );
            app.manage(Host {
                wiki,
                queue,
                keyring: wikimind::llm::SystemKeyring::with_service(KEYRING_SERVICE),
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
