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
pub mod door;
pub mod events;
pub mod host;
pub mod webview;

pub use events::{ASK_EVENT, GRAPH_EVENT, JOB_EVENT, READING_EVENT, WATCH_EVENT};

use tauri::Manager;
use wikimind::llm::CancellationToken;
use wikimind::queue::JobRunner;
use wikimind::watch::{WatchKeeper, WatchOptions};
use wikimind::wiki::Wiki;

use wikimind::config::Settings;

use crate::door::Door;
use crate::host::{keyring, load_settings, Asking, Host, Opening};

/// The app id of debug builds, so their webview data never mixes with a release's.
pub const DEBUG_IDENTIFIER: &str = "org.wikimind.desktop.dev";

/// Opens the app and runs until its window closes. Returns a message when it cannot start.
pub fn run() -> Result<(), String> {
    let settings = load_settings(&keyring()).map_err(|e| e.to_string())?;
    let opening = Opening::default();
    // The wiki is opened on a thread of its own from the start, beside the window and its
    // web view (at 100,000 pages, opening and reading the library's first screen take a
    // core for a few tenths of a second); commands wait for it at the door. A database an
    // upgrade must bring up to this build takes seconds more (its copy and migrations):
    // the window says so meanwhile, from what the upgrade will be, read before anything
    // changes.
    if let Some(line) = Wiki::upgrade_ahead(&settings) {
        opening.set_database_upgrade(Some(line));
        opening.set_upgrading(true);
    }
    let (window_up, app_handle) = std::sync::mpsc::sync_channel::<tauri::AppHandle>(1);
    {
        let (settings, opening) = (settings.clone(), opening.clone());
        std::thread::Builder::new()
            .name("open-wiki".to_owned())
            .spawn(move || open_and_let_in(settings, &opening, &app_handle))
            .map_err(|e| format!("cannot start opening the wiki: {e}"))?;
    }
    let mut context = tauri::generate_context!();
    if cfg!(debug_assertions) {
        context.config_mut().identifier = DEBUG_IDENTIFIER.to_string();
    }
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .manage(Door::new(settings, opening))
        .setup(move |app| {
            // The thread opening the wiki lets the commands in through this handle.
            let _ = window_up.send(app.handle().clone());
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

/// Opens (upgrading) the wiki of `settings` and reads its library ahead; once the app is
/// up (its handle comes from `app_handle`), lets the commands in. A wiki that cannot be
/// opened, or a panic on the way, is said in the banner and given to every command, which
/// would otherwise wait for ever.
fn open_and_let_in(
    settings: Settings,
    opening: &Opening,
    app_handle: &std::sync::mpsc::Receiver<tauri::AppHandle>,
) {
    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let wiki = open_wiki(&settings, opening).map_err(|e| chain(&e))?;
        read_ahead(&wiki, opening);
        opening.set_database_upgrade(None);
        Ok::<_, String>(wiki)
    }))
    .unwrap_or_else(|panic| Err(panicked(&*panic, "opening the wiki")));
    // No handle: the window never came up, and nothing waits for the wiki.
    let Ok(app) = app_handle.recv() else {
        return;
    };
    let let_in = opened.and_then(|wiki| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let_in(&app, wiki, settings, opening)
        }))
        .unwrap_or_else(|panic| Err(panicked(&*panic, "starting the wiki's queue")))
    });
    if let Err(e) = let_in {
        eprintln!("{e}");
        opening.fail(e.clone());
        app.state::<Door>().open(Err(e));
    }
}

/// What a panic while `doing` says: the panic's message when it has one.
fn panicked(panic: &(dyn std::any::Any + Send), doing: &str) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    format!("{doing} stopped unexpectedly: {what}")
}

/// Opens the wiki the window works on, each notice (an upgrade done) said on standard
/// error and kept for the window's banner; `opening` says whether backfills are left.
fn open_wiki(settings: &Settings, opening: &Opening) -> wikimind::wiki::Result<Wiki> {
    let say = |notice: String| {
        eprintln!("{notice}");
        opening.say(notice);
    };
    // The window opens before the backfills an upgrade left (a large wiki would wait for
    // them): they run on a thread of their own, and the queue starts once they are done.
    let wiki = Wiki::open_for_window(settings, &mut |n| say(n))?;
    opening.set_upgrading(wiki.backfills_pending()?);
    Ok(wiki)
}

/// Starts the library's first read on a thread of its own, while the window and its web
/// view start (or the host is made): the page's first ask finds it held, or waits for it.
/// A wiki being brought up to date reads it after.
fn read_ahead(wiki: &Wiki, opening: &Opening) {
    if opening.upgrading() {
        return;
    }
    let ahead = wiki.clone();
    let _ = std::thread::Builder::new()
        .name("library-ahead".to_owned())
        .spawn(move || drop(ahead.read_library_ahead()));
}

/// Makes the host of the open `wiki` (its job runner, its watched folders, where its
/// events go) and lets the commands in; starts its queue, after the backfills when an
/// upgrade left some.
fn let_in(
    app: &tauri::AppHandle,
    wiki: Wiki,
    settings: Settings,
    opening: &Opening,
) -> Result<(), String> {
    let reading_handle = app.clone();
    // A large document's pages as they are read, for the Add screen's progress line.
    let wiki = wiki.with_reading_progress(wikimind::ingest::ReadingSink(std::sync::Arc::new(
        move |progress| {
            let _ = READING_EVENT.emit(&reading_handle, progress);
        },
    )));
    let handle = app.clone();
    let ask_handle = app.clone();
    let asking = Asking::new(move |progress| {
        // The window may be gone while an answer streams in; nothing to tell then.
        let _ = ASK_EVENT.emit(&ask_handle, &progress);
    });
    let runtime = tauri::async_runtime::handle().inner().clone();
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
    let graph_handle = app.clone();
    queue.on_graph_layout(Box::new(move |state| {
        let _ = GRAPH_EVENT.emit(&graph_handle, state);
    }));
    // Jobs an earlier run (or a killed CLI) left behind go back in line.
    queue.recover().map_err(|e| e.to_string())?;
    // The saved folders are watched while the window is open (unless a `wikimind watch`
    // holds the wiki's watch lease); what changes is queued above.
    let watch_handle = app.clone();
    let watch = WatchKeeper::new(
        wiki.clone(),
        queue.clone(),
        WatchOptions::default(),
        Box::new(move |view| {
            let _ = WATCH_EVENT.emit(&watch_handle, view);
        }),
    );
    let start = {
        let (queue, watch, runtime) = (queue.clone(), watch.clone(), runtime.clone());
        move || {
            queue.start(&runtime, CancellationToken::new());
            watch.start(&runtime, CancellationToken::new());
        }
    };
    if opening.upgrading() {
        let (wiki, opening) = (wiki.clone(), opening.clone());
        std::thread::Builder::new()
            .name("backfills".to_owned())
            .spawn(move || {
                let said = |notice: String| {
                    eprintln!("{notice}");
                    opening.say(notice);
                };
                match wiki.bring_up_to_date(&mut |n| said(n)) {
                    Ok(()) => start(),
                    // Data short of this version's rules is not compiled on.
                    Err(e) => said(format!(
                        "{}; nothing is compiled until the app is opened again",
                        chain(&e)
                    )),
                }
                opening.set_upgrading(false);
            })
            .map_err(|e| format!("cannot start bringing the wiki up to date: {e}"))?;
    } else {
        start();
    }
    app.state::<Door>().open(Ok(Host {
        wiki,
        queue,
        keys,
        asking,
        watch,
    }));
    Ok(())
}

/// An error with its causes, one after another: what the app says when it cannot start.
fn chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        message.push_str(&format!(": {c}"));
        cause = c.source();
    }
    message
}
