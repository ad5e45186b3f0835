//! The page policy: what becomes of a page when the digests feeding it change, decided from
//! plain facts with no database, so the rule is read (and tested) in one place. The feed
//! ([`super::feed`]) gathers the facts inside its transaction and applies the decision.

use super::PageKind;

/// What the feed knows of a page whose digests changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageFacts<'a> {
    /// A topic page or a saved answer.
    pub kind: PageKind,
    /// The page's title key.
    pub key: &'a str,
    /// Whether a person asked for the page (it stays with a single source).
    pub asked: bool,
    /// How many sources feed it.
    pub sources: usize,
    /// How many of them feed it by their digest's title (`by_title`).
    pub by_title: usize,
    /// The title keys of the digests feeding it (one per source that has a digest).
    pub digest_keys: &'a [String],
    /// The wiki's `pages.min_sources` setting.
    pub min_sources: u32,
}

/// What becomes of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageFate {
    /// It goes: no source feeds it, or only one names it besides a title (a name a single
    /// source gives is a concept chip or a wanted page).
    Removed,
    /// It *is* its one digest, whose title names it: copied, current, no model call.
    IsItsDigest,
    /// It waits for a page job that writes it from all its digests.
    Stale,
}

/// Decides a page's fate (see [`PageFate`]). Raising `min_sources` keeps the pages that
/// exist: a page no title names goes only when a single source is left to name it, and a
/// page a person asked for stays with one.
pub(crate) fn page_fate(facts: &PageFacts<'_>) -> PageFate {
    let keep_with = if facts.asked {
        1
    } else {
        facts.min_sources.clamp(1, 2) as usize
    };
    if facts.sources == 0 || (facts.by_title == 0 && facts.sources < keep_with) {
        return PageFate::Removed;
    }
    match facts.digest_keys {
        [only] if facts.sources == 1 && facts.kind == PageKind::Topic && only == facts.key => {
            PageFate::IsItsDigest
        }
        _ => PageFate::Stale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fate(sources: usize, by_title: usize, keys: &[&str], asked: bool, min: u32) -> PageFate {
        let keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
        page_fate(&PageFacts {
            kind: PageKind::Topic,
            key: "espresso",
            asked,
            sources,
            by_title,
            digest_keys: &keys,
            min_sources: min,
        })
    }

    /// Sources, by title, the digests' keys, asked, `min_sources`, and the fate.
    type Case = (usize, usize, &'static [&'static str], bool, u32, PageFate);

    #[test]
    fn a_page_is_removed_kept_as_its_digest_or_made_stale() {
        use PageFate::*;
        // (sources, by title, digest keys, asked, min_sources) → fate
        let cases: &[Case] = &[
            (0, 0, &[], false, 2, Removed),
            (0, 0, &[], true, 1, Removed),
            (1, 1, &["espresso"], false, 2, IsItsDigest),
            (1, 1, &["espresso"], false, 1, IsItsDigest),
            // One source naming it as a concept: a chip while min_sources is 2 …
            (1, 0, &["coffee"], false, 2, Removed),
            // … a page at 1, or when a person asked for it; written by a page job.
            (1, 0, &["coffee"], false, 1, Stale),
            (1, 0, &["coffee"], true, 2, Stale),
            // A higher setting keeps what exists: two sources keep a concept page.
            (2, 0, &["coffee", "milk"], false, 5, Stale),
            (2, 1, &["espresso", "coffee"], false, 2, Stale),
            // A source without a digest yet: the page waits for its job.
            (1, 1, &[], false, 2, Stale),
            // The single digest titled otherwise (an alias fed it): written by a job.
            (1, 1, &["espressos"], false, 2, Stale),
        ];
        for &(sources, by_title, keys, asked, min, want) in cases {
            assert_eq!(
                fate(sources, by_title, keys, asked, min),
                want,
                "{sources} sources, {by_title} by title, {keys:?}, asked {asked}, min {min}"
            );
        }
    }

    #[test]
    fn a_saved_answer_is_never_its_digest() {
        let keys = vec!["espresso".to_owned()];
        let facts = PageFacts {
            kind: PageKind::Answer,
            key: "espresso",
            asked: false,
            sources: 1,
            by_title: 1,
            digest_keys: &keys,
            min_sources: 2,
        };
        assert_eq!(page_fate(&facts), PageFate::Stale);
    }
}
