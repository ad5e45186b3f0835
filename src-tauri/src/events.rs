//! The events the app sends the window, declared once.
//!
//! `define_events!` turns each line into an [`Event`] constant, typed by the one payload it
//! carries (so the Rust side cannot send another), and into an entry of [`signatures`],
//! from which `ui/src/bindings.ts` gets the event's name and an `Events` map (name →
//! payload type) that types the window's `listen`.

use std::marker::PhantomData;

use serde::Serialize;
use tauri::Emitter;
use wikimind::graph::GraphLayoutView;
use wikimind::ingest::ReadingProgress;
use wikimind::view::{AskProgress, JobProgress};
use wikimind::watch::WatchedView;

use crate::commands::ts_name;

/// An event the app sends the window, carrying a `P` each time.
pub struct Event<P> {
    name: &'static str,
    payload: PhantomData<fn(&P)>,
}

impl<P: Serialize> Event<P> {
    const fn new(name: &'static str) -> Self {
        Event {
            name,
            payload: PhantomData,
        }
    }

    /// The name the window listens to.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Sends `payload` to every window of `app`.
    pub fn emit<R: tauri::Runtime>(&self, app: &impl Emitter<R>, payload: &P) -> tauri::Result<()> {
        app.emit(self.name, payload)
    }
}

/// One event as the TypeScript generator sees it.
#[derive(Debug, Clone)]
pub struct EventSignature {
    /// The constant's name (also the generated constant's).
    pub constant: &'static str,
    /// The event's name on the wire.
    pub name: &'static str,
    /// Its documentation.
    pub doc: &'static str,
    /// The TypeScript type of its payload.
    pub payload: String,
}

macro_rules! define_events {
    ($(
        $(#[doc = $doc:literal])+
        const $constant:ident: $payload:ty = $name:literal;
    )*) => {
        $(
            $(#[doc = $doc])+
            pub const $constant: Event<$payload> = Event::new($name);
        )*

        /// Every declared event, for the TypeScript generator.
        pub fn signatures() -> Vec<EventSignature> {
            vec![$(EventSignature {
                constant: stringify!($constant),
                name: $name,
                doc: concat!($($doc, "\n"),+),
                payload: ts_name::<$payload>(),
            }),*]
        }
    };
}

define_events! {
    /// The event carrying a JobProgress each time a compile job changes (this app's jobs
    /// and other processes').
    const JOB_EVENT: JobProgress = "job";
    /// The event carrying an AskProgress while a question is answered.
    const ASK_EVENT: AskProgress = "ask";
    /// The event carrying a WatchedView each time the watched folders' state changes.
    const WATCH_EVENT: WatchedView = "watch";
    /// The event carrying the graph layout's state when a layout starts and when it ends
    /// (the Graph screen follows a compile run with it).
    const GRAPH_EVENT: GraphLayoutView = "graph";
    /// The event carrying a ReadingProgress while a large document (a PDF) is read as it
    /// is added: its pages read so far.
    const READING_EVENT: ReadingProgress = "reading";
}
