//! The element ids the app owns in a rendered page, and the ids headings get around them.
//!
//! A page body is text from a model that read untrusted sources, and every id in it ends up
//! with the `wm-` prefix: a heading's slug (`## Burr grinders` → `wm-burr-grinders`) or an id
//! written in raw HTML. The app gives its own marks ids with the same prefix — the first mark
//! of a cited quote is `wm-cited-quote`, footnote `N` is `wm-fn-N` — and the app looks them
//! up by id (the page scrolls to the cited quote; a footnote reference links to
//! `#wm-fn-N`). So those ids are listed here, once, and a body cannot take them: the heading
//! slugger treats them as already used (`## Cited quote` gets `wm-cited-quote-1`, a heading
//! `Fn 1` gets `wm-fn-1-1`), and an id written in raw HTML that is one of them is dropped.
//! The lists are generated into the UI's bindings (`APP_IDS`, `NUMBERED_APP_IDS`).
//!
//! Ids the UI gives its own elements outside the body (`main`, `article-title`,
//! `quote-mark`, …) have no `wm-` prefix, so no body id can equal them.

use std::collections::{HashMap, HashSet};

/// The id of the first mark of a cited quote ([`super::render_article_marked`]).
pub const CITED_QUOTE_ID: &str = "wm-cited-quote";

/// The prefix of footnote `N`'s id, `wm-fn-N` (its reference links to `#wm-fn-N`).
pub const FOOTNOTE_ID_PREFIX: &str = "wm-fn-";

/// Every fixed id the app gives its own elements in a rendered page. No heading or raw
/// HTML of a body gets one of these.
pub const APP_IDS: &[&str] = &[CITED_QUOTE_ID];

/// Ids the app numbers: each prefix followed by a number of ASCII digits (`wm-fn-1`,
/// `wm-fn-12`) is the app's. A number means digits only: `wm-fn-1-1` is free.
pub const NUMBERED_APP_IDS: &[&str] = &[FOOTNOTE_ID_PREFIX];

/// Whether the app owns `id`: one of [`APP_IDS`], or a prefix of [`NUMBERED_APP_IDS`]
/// followed by a number.
pub fn is_app_id(id: &str) -> bool {
    APP_IDS.contains(&id)
        || NUMBERED_APP_IDS.iter().any(|prefix| {
            id.strip_prefix(prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// The id (without its `wm-` prefix) that the first heading with `slug` gets: the slug, or
/// when that is the app's, the slug with the first number after it that is not. Links to a
/// heading (`[[#Cited quote]]`, `[[Page#Cited quote]]`) point at this id.
pub fn first_heading_id(slug: &str) -> String {
    HeadingIds::default().next(slug)
}

/// The ids given to a body's headings so far, so each heading gets one of its own.
#[derive(Debug, Default)]
pub(crate) struct HeadingIds {
    /// How many candidates each slug has tried.
    tried: HashMap<String, usize>,
    /// Every id given (without the `wm-` prefix).
    used: HashSet<String>,
}

impl HeadingIds {
    /// The id of the next heading with `slug` (without the `wm-` prefix): the slug, else
    /// `slug-1`, `slug-2`, …, the first that no earlier heading has. A candidate the app
    /// owns gets `-1` after it (`fn-1` → `fn-1-1`): every `fn-N` is the app's, so counting
    /// on alone would never leave them, while a number then `-1` is never an app's number.
    pub(crate) fn next(&mut self, slug: &str) -> String {
        let n = self.tried.entry(slug.to_owned()).or_insert(0);
        loop {
            let mut id = if *n == 0 {
                slug.to_owned()
            } else {
                format!("{slug}-{n}")
            };
            *n += 1;
            if is_app_id(&format!("wm-{id}")) {
                id.push_str("-1");
            }
            if !self.used.contains(&id) && !is_app_id(&format!("wm-{id}")) {
                self.used.insert(id.clone());
                return id;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_owns_its_listed_and_numbered_ids_only() {
        for (id, owned) in [
            ("wm-cited-quote", true),
            ("wm-fn-1", true),
            ("wm-fn-42", true),
            ("wm-fn-", false),
            ("wm-fn-1-1", false),
            ("wm-fn-x", false),
            ("wm-fn", false),
            ("wm-cited-quote-1", false),
            ("wm-burr-grinders", false),
        ] {
            assert_eq!(is_app_id(id), owned, "{id}");
        }
    }

    #[test]
    fn each_heading_gets_an_id_of_its_own_around_the_apps() {
        let mut ids = HeadingIds::default();
        let got: Vec<String> = [
            "a-1",
            "a",
            "a",
            "fn",
            "fn",
            "fn",
            "fn-1",
            "cited-quote",
            "cited-quote",
        ]
        .iter()
        .map(|s| ids.next(s))
        .collect();
        assert_eq!(
            got,
            [
                "a-1",
                "a",
                "a-2",
                "fn",
                "fn-1-1",
                "fn-2-1",
                "fn-1-2",
                "cited-quote-1",
                "cited-quote-2"
            ]
        );
        assert_eq!(first_heading_id("cited-quote"), "cited-quote-1");
        assert_eq!(first_heading_id("fn-3"), "fn-3-1");
        assert_eq!(first_heading_id("espresso"), "espresso");
    }
}
