//! The wiki as markdown text, for a reader that takes text rather than HTML: a model that
//! reads the wiki through a tool (the `wikimind mcp` server), a chat, a clipboard.
//!
//! One rendering per thing a reader asks for: a page with everything known about it
//! ([`page_markdown`]), a window of the page list ([`page_list_markdown`]), search hits
//! ([`search_markdown`]) and an answer to a question ([`ask_markdown`]). How to ask for more (a tool's name, a command) is the shell's to
//! add: these say only what the wiki holds.
//!
//! Titles, bodies, claims and quotes come from model answers and sources; they are passed
//! through as text (a model reads them as such), never as HTML.

use std::fmt::Write as _;

use crate::ask::AskReport;
use crate::reading::{PageWindow, ShownPage};
use crate::store::{PageHit, SourceId, MATCH_END, MATCH_START};

/// A search snippet with its matched words in `**bold**` (the store marks them with
/// [`MATCH_START`] and [`MATCH_END`]).
pub fn bold_matches(snippet: &str) -> String {
    snippet.replace([MATCH_START, MATCH_END], "**")
}

/// A page with everything a reader needs to use it: its title, other names, state (waiting
/// for a rewrite, a refused rewrite, a cut-off answer), summary, body, then its key claims
/// with their confidence, quote and the sources holding each quote, its concepts, open
/// questions, links (wanted pages marked), backlinks and sources.
pub fn page_markdown(page: &ShownPage) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", one_line(&page.title));
    if !page.aliases.is_empty() {
        let _ = writeln!(out, "Also called: {}\n", page.aliases.join(", "));
    }
    if !page.tags.is_empty() {
        let tags: Vec<String> = page.tags.iter().map(|t| format!("#{t}")).collect();
        let _ = writeln!(out, "Tags: {}\n", tags.join(" "));
    }
    if page.is_stale() {
        let _ = writeln!(
            out,
            "_{} feed this page; it waits to be rewritten from all of them and shows the \
             first until then._\n",
            count(page.sources.len(), "source", "sources")
        );
    }
    if let Some(flagged) = &page.flagged {
        let _ = writeln!(
            out,
            "_Its last rewrite was refused, so it keeps the version before: {}_\n",
            one_line(flagged)
        );
    }
    if page.truncated {
        let _ = writeln!(
            out,
            "_A digest feeding it was written from an answer that was cut off._\n"
        );
    }
    if !page.summary.trim().is_empty() {
        let _ = writeln!(out, "**Summary:** {}\n", one_line(&page.summary));
    }
    let body = page.article_body.trim();
    if !body.is_empty() {
        let _ = writeln!(out, "{body}\n");
    }
    claims(&mut out, page);
    if !page.concepts.is_empty() {
        let _ = writeln!(out, "## Concepts\n\n{}\n", page.concepts.join(", "));
    }
    section(
        &mut out,
        "Open questions",
        page.open_questions.iter().cloned(),
    );
    let links = page.links.iter().map(|l| match l.page_id {
        Some(_) => one_line(&l.target),
        None => format!("{} (wanted: no page yet)", one_line(&l.target)),
    });
    section(&mut out, "Links", links);
    let backlinks = page.backlinks.iter().map(|b| {
        if b.context.trim().is_empty() {
            one_line(&b.title)
        } else {
            format!("{}: {}", one_line(&b.title), one_line(&b.context))
        }
    });
    section(&mut out, "Backlinks", backlinks);
    let sources = page.sources.iter().map(|s| {
        let mut line = format!("#{} \"{}\" — {}", s.source_id, one_line(&s.title), s.origin);
        if let Some(url) = s.final_url.as_deref().filter(|u| *u != s.origin) {
            let _ = write!(line, " → {url}");
        }
        let _ = write!(
            line,
            " (compiled {} by {} {})",
            s.compiled_at, s.provider, s.model
        );
        line
    });
    let heading = format!("Sources ({})", page.sources.len());
    section(&mut out, &heading, sources);
    finish(out)
}

/// The key claims, numbered: `**confidence**: claim`, the quote as a block quote, and where
/// the quote was found (or that it was not).
fn claims(out: &mut String, page: &ShownPage) {
    if page.key_claims.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Key claims\n");
    for (i, c) in page.key_claims.iter().enumerate() {
        let claim = &c.claim;
        let _ = writeln!(
            out,
            "{}. **{}**: {}",
            i + 1,
            claim.confidence.as_str(),
            one_line(&claim.claim)
        );
        let quote = claim.quote.as_deref().filter(|q| !q.trim().is_empty());
        for line in quote.unwrap_or_default().trim().lines() {
            let _ = writeln!(out, "   > {}", line.trim_end());
        }
        // A saved answer's claim cites a page; a topic page's claim rests on its sources.
        let cited = c.cited_page.as_deref().map(one_line);
        match (quote, cited) {
            (None, None) => {}
            (None, Some(cited)) => {
                let _ = writeln!(out, "   (cites \"{cited}\")");
            }
            (Some(_), Some(cited)) if claim.grounded => {
                let _ = writeln!(out, "   (quote found in \"{cited}\")");
            }
            (Some(_), Some(cited)) => {
                let _ = writeln!(out, "   (quote not found in \"{cited}\" or its sources)");
            }
            (Some(_), None) if c.source_ids.is_empty() || !claim.grounded => {
                let _ = writeln!(out, "   (quote not found in any source)");
            }
            (Some(_), None) => {
                let names: Vec<String> = c.source_ids.iter().map(|id| source(page, *id)).collect();
                let _ = writeln!(out, "   (in {})", names.join(", "));
            }
        }
        let places = page.cited_places(i);
        if !places.is_empty() {
            let _ = writeln!(out, "   {}", places.join(" "));
        }
    }
    out.push('\n');
}

/// A source of the page as a claim names it: `source #3 "Its digest's title"`.
fn source(page: &ShownPage, id: SourceId) -> String {
    match page.sources.iter().find(|s| s.source_id == id) {
        Some(s) => format!("source #{id} \"{}\"", one_line(&s.title)),
        None => format!("source #{id}"),
    }
}

/// A window of the page list: which pages of how many, then one line per page with its
/// kind, how many sources feed it, whether it waits for a rewrite, and its summary.
pub fn page_list_markdown(window: &PageWindow) -> String {
    let mut out = String::new();
    if window.total == 0 {
        return "The wiki has no pages yet.\n".to_owned();
    }
    if window.pages.is_empty() {
        let _ = writeln!(
            out,
            "No pages from offset {}: the wiki has {}.",
            window.offset,
            count(window.total, "page", "pages")
        );
        return out;
    }
    let first = window.offset + 1;
    let last = window.offset + window.pages.len();
    let _ = writeln!(out, "Pages {first}–{last} of {}, by title:\n", window.total);
    for p in &window.pages {
        let stale = if p.stale { "; to rewrite" } else { "" };
        let _ = write!(
            out,
            "- **{}** ({}; {}{stale})",
            one_line(&p.title),
            p.kind.as_str(),
            count(p.source_count as usize, "source", "sources")
        );
        if p.summary.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, ": {}", one_line(&p.summary));
        }
    }
    if window.capped {
        let _ = writeln!(
            out,
            "\n(At most {} pages are listed at once.)",
            window.limit
        );
    }
    out
}

/// How many characters of a query a search answer repeats.
pub const SHOWN_QUERY_CHARS: usize = 200;

/// `query` as a search answer repeats it: on one line, cut after [`SHOWN_QUERY_CHARS`]
/// characters with `…` (a 10 MB query is not sent back whole).
pub fn shown_query(query: &str) -> String {
    let head = match query.char_indices().nth(SHOWN_QUERY_CHARS) {
        Some((i, _)) => &query[..i],
        None => query,
    };
    let mut shown = one_line(head);
    if head.len() < query.len() {
        shown.push('…');
    }
    shown
}

/// Search hits, best first: each page's title and the snippet where it matched, matched
/// words in bold; or that no page matched.
pub fn search_markdown(query: &str, hits: &[PageHit]) -> String {
    let query = shown_query(query);
    if hits.is_empty() {
        return format!("No page matches \"{query}\".\n");
    }
    let mut out = String::new();
    let matches = if hits.len() == 1 {
        "1 page matches".to_owned()
    } else {
        format!("{} pages match", hits.len())
    };
    let _ = writeln!(out, "{matches} \"{query}\", best first:\n");
    for (i, h) in hits.iter().enumerate() {
        let _ = write!(out, "{}. **{}**", i + 1, one_line(&h.title));
        let snippet = one_line(&bold_matches(&h.snippet));
        if snippet.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, " — {snippet}");
        }
    }
    out
}

/// An answer to a question: the answer, then each claim with its confidence, the page it
/// cites, its quote and whether the quote was found there, the questions worth asking next,
/// the pages read and the notes; for a question the wiki does not cover, the sentence that
/// says so. (An answer that could not be made valid is the caller's to report:
/// [`AskReport::error`].)
pub fn ask_markdown(report: &AskReport) -> String {
    let mut out = String::new();
    let answer = report.answer.trim();
    if !answer.is_empty() {
        let _ = writeln!(out, "{answer}\n");
    }
    if !report.claims.is_empty() {
        let _ = writeln!(out, "## Claims\n");
        for (i, c) in report.claims.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}. **{}** [{}]: {}",
                i + 1,
                c.confidence.as_str(),
                one_line(&c.page),
                one_line(&c.claim)
            );
            let Some(quote) = c.quote.as_deref().filter(|q| !q.trim().is_empty()) else {
                continue;
            };
            for line in quote.trim().lines() {
                let _ = writeln!(out, "   > {}", line.trim_end());
            }
            if c.grounded {
                let _ = writeln!(out, "   (quote found in \"{}\")", one_line(&c.page));
            } else {
                let _ = writeln!(
                    out,
                    "   (quote not found in \"{}\" or its sources)",
                    one_line(&c.page)
                );
            }
        }
        out.push('\n');
    }
    section(
        &mut out,
        "Follow-up questions",
        report.follow_up_questions.iter().map(|q| one_line(q)),
    );
    section(
        &mut out,
        "Pages read",
        report.pages_read.iter().map(|p| one_line(p)),
    );
    section(
        &mut out,
        "Notes",
        report.warnings.iter().map(|w| one_line(w)),
    );
    if let Some(title) = &report.saved {
        let _ = writeln!(out, "Saved as the page \"{}\".", one_line(title));
    }
    finish(out)
}

/// A `## heading` with one `- item` line each; nothing when there are no items.
fn section(out: &mut String, heading: &str, items: impl Iterator<Item = String>) {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return;
    }
    let _ = writeln!(out, "## {heading}\n");
    for item in items {
        let _ = writeln!(out, "- {item}");
    }
    out.push('\n');
}

/// Text that must stay on its line (a title in a heading, a list item): runs of whitespace,
/// line breaks included, become one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `1 source`, `3 sources`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The text with exactly one line break at its end.
fn finish(mut out: String) -> String {
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{CheckedClaim, Confidence};
    use crate::reading::{ListedPage, ShownBacklink, ShownLink, ShownSource};
    use crate::store::{ClaimCounts, PageClaim, PageId, PageKind};

    fn source(id: i64, title: &str) -> ShownSource {
        ShownSource {
            source_id: SourceId(id),
            origin: format!("/notes/{id}.md"),
            final_url: None,
            compiled_at: "2025-03-01T10:00:00Z".into(),
            provider: "ollama".into(),
            model: "qwen2.5:3b".into(),
            title: title.into(),
            summary: String::new(),
        }
    }

    fn claim(
        text: &str,
        confidence: Confidence,
        quote: Option<&str>,
        sources: &[i64],
    ) -> crate::reading::CitedClaim<PageClaim> {
        crate::reading::CitedClaim::uncited(PageClaim {
            claim: CheckedClaim {
                claim: text.into(),
                confidence,
                quote: quote.map(Into::into),
                grounded: !sources.is_empty(),
            },
            source_ids: sources.iter().map(|id| SourceId(*id)).collect(),
            cited_page: None,
            author: Default::default(),
        })
    }

    fn espresso() -> ShownPage {
        ShownPage {
            id: PageId(1),
            kind: PageKind::Topic,
            title: "Espresso".into(),
            aliases: vec!["espressos".into()],
            tags: vec!["coffee".into()],
            summary: "Coffee brewed\nunder pressure.".into(),
            key_claims: vec![
                claim(
                    "Espresso is brewed at nine bars.",
                    Confidence::Sourced,
                    Some("brewed at about nine bars"),
                    &[3, 4],
                ),
                claim(
                    "Crema forms from oils.",
                    Confidence::Inferred,
                    Some("oils rise"),
                    &[],
                ),
                claim("It tastes best short.", Confidence::Opinion, None, &[]),
            ],
            concepts: vec!["pressure".into(), "crema".into()],
            open_questions: vec!["Why nine bars?".into()],
            links: vec![
                ShownLink {
                    target: "Crema".into(),
                    page_id: Some(PageId(2)),
                    article_id: Some(PageId(2)),
                    context: String::new(),
                },
                ShownLink {
                    target: "Tamping".into(),
                    page_id: None,
                    article_id: None,
                    context: String::new(),
                },
            ],
            backlinks: vec![ShownBacklink {
                page_id: PageId(5),
                article_id: PageId(5),
                title: "Coffee".into(),
                context: "See [[Espresso]] for the short drink.".into(),
            }],
            article_body: "Espresso is made by forcing water through [[Crema|coffee]].\n".into(),
            sources: vec![source(3, "Espresso notes"), source(4, "Barista guide")],
            truncated: false,
            version: 2,
            stale_reason: None,
            flagged: None,
            suggestions: Vec::new(),
        }
    }

    #[test]
    fn a_page_shows_its_claims_with_quotes_and_the_sources_holding_them() {
        let text = page_markdown(&espresso());
        assert!(
            text.starts_with("# Espresso\n\nAlso called: espressos\n"),
            "{text}"
        );
        assert!(
            text.contains("**Summary:** Coffee brewed under pressure."),
            "{text}"
        );
        assert!(
            text.contains("forcing water through [[Crema|coffee]]."),
            "{text}"
        );
        assert!(
            text.contains(
                "1. **sourced**: Espresso is brewed at nine bars.\n   > brewed at about nine bars\n   (in source #3 \"Espresso notes\", source #4 \"Barista guide\")"
            ),
            "{text}"
        );
        assert!(
            text.contains("2. **inferred**: Crema forms from oils.\n   > oils rise\n   (quote not found in any source)"),
            "{text}"
        );
        assert!(
            text.contains("3. **opinion**: It tastes best short.\n"),
            "{text}"
        );
        assert!(
            text.contains("## Links\n\n- Crema\n- Tamping (wanted: no page yet)\n"),
            "{text}"
        );
        assert!(
            text.contains("## Backlinks\n\n- Coffee: See [[Espresso]] for the short drink.\n"),
            "{text}"
        );
        assert!(text.contains("## Sources (2)\n\n- #3 \"Espresso notes\" — /notes/3.md (compiled 2025-03-01T10:00:00Z by ollama qwen2.5:3b)\n"), "{text}");
        assert!(!text.contains("waits to be rewritten"), "{text}");
        assert!(text.ends_with(")\n") && !text.ends_with("\n\n"), "{text:?}");
    }

    #[test]
    fn a_page_says_when_it_waits_for_a_rewrite_or_kept_an_older_version() {
        let mut page = espresso();
        page.stale_reason = Some("a source changed".into());
        page.flagged = Some("the answer dropped every claim".into());
        let text = page_markdown(&page);
        assert!(
            text.contains("2 sources feed this page; it waits to be rewritten"),
            "{text}"
        );
        assert!(
            text.contains("keeps the version before: the answer dropped every claim"),
            "{text}"
        );
    }

    #[test]
    fn a_saved_answer_names_the_page_each_claim_cites() {
        let mut page = espresso();
        page.kind = PageKind::Answer;
        let mut found = claim("Nine bars.", Confidence::Sourced, Some("nine bars"), &[3]);
        found.of.cited_page = Some("Espresso".into());
        let mut missed = claim("Old.", Confidence::Inferred, Some("since 1901"), &[]);
        missed.of.cited_page = Some("Espresso".into());
        page.key_claims = vec![found, missed];
        let text = page_markdown(&page);
        assert!(
            text.contains("   > nine bars\n   (quote found in \"Espresso\")\n"),
            "{text}"
        );
        assert!(
            text.contains("   > since 1901\n   (quote not found in \"Espresso\" or its sources)"),
            "{text}"
        );
    }

    #[test]
    fn a_quote_over_several_lines_stays_one_block_quote() {
        let mut page = espresso();
        page.key_claims = vec![claim(
            "Two lines.",
            Confidence::Sourced,
            Some("first line\nsecond line"),
            &[3],
        )];
        let text = page_markdown(&page);
        assert!(
            text.contains("   > first line\n   > second line\n   (in source #3"),
            "{text}"
        );
    }

    fn listed(title: &str, sources: u32) -> ListedPage {
        ListedPage {
            tags: Vec::new(),
            id: PageId(1),
            kind: PageKind::Topic,
            title: title.into(),
            summary: format!("About {title}."),
            source_count: sources,
            stale: false,
            updated_at: String::new(),
            claims: ClaimCounts::default(),
            flagged: None,
            folder: None,
            summary_text: format!("About {title}."),
        }
    }

    #[test]
    fn a_list_window_says_which_pages_of_how_many() {
        let list = vec![listed("Crema", 1), listed("Espresso", 3), listed("Tea", 2)];
        let window = PageWindow::of(list, 1, Some(1));
        assert_eq!(window.next_offset, Some(2));
        let text = page_list_markdown(&window);
        assert_eq!(
            text,
            "Pages 2–2 of 3, by title:\n\n- **Espresso** (topic; 3 sources): About Espresso.\n"
        );
    }

    #[test]
    fn a_window_past_the_end_or_of_an_empty_wiki_says_so() {
        let list = vec![listed("Crema", 1)];
        let past = PageWindow::of(list, 5, None);
        assert_eq!(past.next_offset, None);
        assert_eq!(
            page_list_markdown(&past),
            "No pages from offset 5: the wiki has 1 page.\n"
        );
        let empty = PageWindow::of(Vec::new(), 0, None);
        assert_eq!(page_list_markdown(&empty), "The wiki has no pages yet.\n");
    }

    #[test]
    fn a_window_never_holds_more_than_the_cap() {
        let list: Vec<ListedPage> = (0..600).map(|i| listed(&format!("P{i:03}"), 1)).collect();
        let window = PageWindow::of(list, 0, Some(10_000));
        assert_eq!(window.pages.len(), crate::reading::PAGE_WINDOW_MAX);
        assert!(window.capped);
        assert_eq!(window.next_offset, Some(500));
        assert!(page_list_markdown(&window).contains("At most 500 pages are listed at once."));
        let rest = PageWindow::of(
            (0..600).map(|i| listed(&format!("P{i:03}"), 1)).collect(),
            500,
            None,
        );
        assert_eq!(rest.pages.len(), 50);
        assert_eq!(rest.next_offset, Some(550));
    }

    #[test]
    fn an_answer_shows_each_claim_with_its_page_quote_and_whether_it_grounded() {
        use crate::ask::CitedClaim;
        let cited = |claim: &str, page: &str, quote: &str, grounded: bool| CitedClaim {
            claim: claim.into(),
            confidence: if grounded {
                Confidence::Sourced
            } else {
                Confidence::Inferred
            },
            quote: Some(quote.into()),
            labelled: Confidence::Sourced,
            page: page.into(),
            grounded,
            page_id: None,
            source_ids: Vec::new(),
        };
        let report = AskReport {
            question: "How is espresso brewed?".into(),
            answer: "Under nine bars of pressure, see [[Espresso]].".into(),
            claims: vec![
                cited(
                    "It takes nine bars.",
                    "Espresso",
                    "nine bars of pressure",
                    true,
                ),
                cited("It is old.", "Espresso", "since 1901", false),
            ],
            follow_up_questions: vec!["What grind does it need?".into()],
            pages_read: vec!["Espresso".into(), "Grind Size".into()],
            covered: true,
            saved: None,
            saved_page: None,
            error: None,
            provider: Some("ollama:qwen2.5:3b".into()),
            usage: crate::compile::Usage {
                calls: 1,
                tokens_in: 0,
                tokens_out: 0,
            },
            warnings: Vec::new(),
            attempts: Vec::new(),
            prompt_version: Some("ask-v1".into()),
        };
        assert_eq!(
            ask_markdown(&report),
            "Under nine bars of pressure, see [[Espresso]].\n\n## Claims\n\n\
             1. **sourced** [Espresso]: It takes nine bars.\n   > nine bars of pressure\n   \
             (quote found in \"Espresso\")\n\
             2. **inferred** [Espresso]: It is old.\n   > since 1901\n   \
             (quote not found in \"Espresso\" or its sources)\n\n\
             ## Follow-up questions\n\n- What grind does it need?\n\n\
             ## Pages read\n\n- Espresso\n- Grind Size\n"
        );
    }

    #[test]
    fn search_hits_show_matched_words_in_bold() {
        let hits = vec![PageHit {
            page_id: PageId(1),
            title: "Espresso".into(),
            snippet: format!("brewed at {MATCH_START}nine{MATCH_END}\nbars"),
        }];
        assert_eq!(
            search_markdown("nine", &hits),
            "1 page matches \"nine\", best first:\n\n1. **Espresso** — brewed at **nine** bars\n"
        );
        assert_eq!(search_markdown("zzz", &[]), "No page matches \"zzz\".\n");
    }
}
