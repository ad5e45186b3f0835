//! Asking for a wanted page: a person's explicit request that a name pages link to get a
//! page of its own, written from the sources whose digests name it. This stands in for
//! `pages.min_sources` for that one name only; wanted links are never turned into pages
//! on their own (invented links would multiply).

use serde::Serialize;
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::store::{AskedPage, JobSettings, PageId};
use crate::wiki::{Result, Wiki};

/// What asking for a wanted page did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Asked {
    /// The name asked for, as given.
    pub name: String,
    /// `asked` (the page was made and its job queued), `exists` (the name already leads to
    /// a page) or `unnamed` (no source's digest names it: nothing to write it from).
    pub outcome: String,
    /// The page, when there is one.
    pub page: Option<PageId>,
    /// How many sources the new page is written from (0 unless `asked`).
    pub sources: u32,
    /// The page job queued to write it (`null` unless `asked`).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub job: Option<i64>,
}

impl Asked {
    /// One line for a person.
    pub fn message(&self) -> String {
        match self.outcome.as_str() {
            "asked" => format!(
                "{:?} will be written from the {} source(s) that mention it",
                self.name, self.sources
            ),
            "exists" => format!("{:?} already has a page", self.name),
            _ => format!(
                "no source mentions {:?}: add one that does, then ask again",
                self.name
            ),
        }
    }
}

/// Makes the wanted name `name` a topic page fed by the sources whose digests name it and
/// queues its page job with `settings` (the next compile, or the app's runner, writes it).
pub fn ask_for_page(wiki: &Wiki, name: &str, settings: &JobSettings) -> Result<Asked> {
    let store = wiki.store();
    let name = name.trim().to_owned();
    Ok(match store.ask_for_page(&name)? {
        AskedPage::Made { page, sources } => {
            let job = store.enqueue_page(page, settings)?;
            Asked {
                name,
                outcome: "asked".to_owned(),
                page: Some(page),
                sources,
                job: Some(job.0),
            }
        }
        AskedPage::Exists(page) => Asked {
            name,
            outcome: "exists".to_owned(),
            page: Some(page),
            sources: 0,
            job: None,
        },
        AskedPage::Unnamed => Asked {
            name,
            outcome: "unnamed".to_owned(),
            page: None,
            sources: 0,
            job: None,
        },
    })
}
