//! The text a claim's citation is checked against when the answer was made from the wiki's
//! pages: the page the claim cites (by title or any other name) — its title, summary, body,
//! claims and their grounded quotes — and the text of each of that page's sources, read
//! from the store whether or not the page was sent, each indexed once per answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::compile::GroundingIndex;
use crate::store::{PageId, SourceId, Store};

use super::check::{cited_name, Grounding};

/// A cited page's text, indexed once: the page itself, then each of its sources.
struct CitedText {
    page_id: PageId,
    title: String,
    page: GroundingIndex,
    sources: Vec<(SourceId, GroundingIndex)>,
}

/// Looks quotes up in the pages of one wiki, each page read and indexed on its first
/// citation (see the module documentation).
pub struct PageTexts<'a> {
    store: &'a Store,
    cache: Mutex<HashMap<String, Option<Arc<CitedText>>>>,
}

impl<'a> PageTexts<'a> {
    /// Nothing read yet.
    pub fn new(store: &'a Store) -> PageTexts<'a> {
        PageTexts {
            store,
            cache: Mutex::default(),
        }
    }

    /// Where the page named `name` holds `quote`: its id and title when a page has that
    /// name, and whether its own text or one of its sources holds the quote (an empty
    /// quote is found nowhere). A page that cannot be read counts as no page.
    pub fn grounds(&self, name: &str, quote: &str) -> Grounding {
        let Ok(Some(cited)) = self.cited_text(name) else {
            return Grounding::default();
        };
        let mut grounding = Grounding {
            page_id: Some(cited.page_id),
            title: Some(cited.title.clone()),
            found: false,
            source_ids: Vec::new(),
        };
        if quote.trim().is_empty() {
            return grounding;
        }
        grounding.source_ids = cited
            .sources
            .iter()
            .filter(|(_, text)| text.contains(quote))
            .map(|(id, _)| *id)
            .collect();
        grounding.found = !grounding.source_ids.is_empty() || cited.page.contains(quote);
        grounding
    }

    /// The text of the page `name` names, indexed once; `None` when no page has that name.
    fn cited_text(&self, name: &str) -> crate::store::Result<Option<Arc<CitedText>>> {
        let key = crate::store::page_key(&cited_name(name));
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let store = self.store;
        let cited = match store.find_page(name)? {
            None => None,
            Some(id) => match store.page(id)? {
                // A saved answer is never evidence: only topic pages, written from sources,
                // can hold a quote that backs a claim.
                Some(page) if page.kind != crate::store::PageKind::Topic => None,
                None => None,
                Some(page) => {
                    // Only a quote grounding confirmed is the page's own words.
                    let text = super::material::page_words(&page);
                    let sources = store
                        .page_source_texts(id)?
                        .into_iter()
                        .map(|(sid, text)| {
                            (sid, GroundingIndex::new(&crate::compile::readable(&text)))
                        })
                        .collect();
                    Some(Arc::new(CitedText {
                        page_id: id,
                        title: page.title,
                        page: GroundingIndex::new(&text),
                        sources,
                    }))
                }
            },
        };
        if let Ok(mut c) = self.cache.lock() {
            c.insert(key, cited.clone());
        }
        Ok(cited)
    }
}
