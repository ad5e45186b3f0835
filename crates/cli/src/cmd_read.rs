//! Reading the wiki: `sources`, `list`, `show`, `search`, `history`, `restore`.
//!
//! What each prints is built by the core ([`wikimind::reading`]); these functions parse,
//! call one core method and print the result as JSON or for people.

use std::io::Write;

use clap::Args;
use wikimind::config::Overrides;
use wikimind::reading::{ShownDigest, ShownLink, ShownPage};
use wikimind::{PageKind, SourceStatus};

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// Runs `wikimind sources`.
pub fn sources(global: &Global, args: SourcesArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    if args.figures {
        let figures = wiki.digest_figures()?;
        if global.json {
            print_json(&figures)?;
        } else {
            writeln!(crate::context::out(), "{}", figures.line())?;
        }
        return Ok(Done::Success);
    }
    let sources = wiki.source_list()?;
    if global.json {
        print_json(&sources)?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    for s in &sources {
        let name = s.title.as_deref().unwrap_or(&s.origin);
        write!(out, "#{:<4} {:<9} {name}", s.id, s.status.as_str())?;
        if !s.pages.is_empty() {
            write!(out, "  → {}", s.pages.join(", "))?;
        }
        writeln!(out)?;
        if let Some(final_url) = redirected(&s.origin, s.final_url.as_deref()) {
            writeln!(out, "      {} → {final_url}", s.origin)?;
        }
        if s.status == SourceStatus::Failed {
            if let Some(r) = &s.reason {
                writeln!(out, "      reason: {r}")?;
            }
        }
    }
    if sources.is_empty() {
        writeln!(out, "no sources yet: add some with `wikimind ingest PATH`")?;
    }
    Ok(Done::Success)
}

/// What `wikimind sources` takes.
#[derive(Debug, clap::Args)]
pub struct SourcesArgs {
    /// Print one line of figures over every compiled source instead: claims shown sourced,
    /// quotes not found, distinct claims, titles that are the source's own.
    #[arg(long)]
    figures: bool,
}

/// Where a web page was finally read from, when redirects took it away from its origin.
fn redirected<'a>(origin: &str, final_url: Option<&'a str>) -> Option<&'a str> {
    final_url.filter(|url| *url != origin)
}

/// Arguments of `wikimind list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only pages with this tag (case-insensitive, `#` optional; `a` also matches `a/b`).
    #[arg(long, value_name = "TAG")]
    tag: Option<String>,
}

/// Runs `wikimind list`.
pub fn list(global: &Global, args: ListArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let pages = wiki.page_list_tagged(args.tag.as_deref())?;
    if global.json {
        print_json(&pages)?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    let (answers, pages): (Vec<_>, Vec<_>) =
        pages.into_iter().partition(|p| p.kind == PageKind::Answer);
    for p in &pages {
        let c = &p.claims;
        let sources = plural(p.source_count, "source", "sources");
        let stale = if p.stale { ", to rewrite" } else { "" };
        writeln!(
            out,
            "{:<40} {sources}{stale}; {} sourced, {} inferred, {} opinion",
            p.title, c.sourced, c.inferred, c.opinion
        )?;
    }
    if !answers.is_empty() {
        writeln!(out, "\nSaved answers:")?;
        for p in &answers {
            writeln!(out, "  {}", p.title)?;
        }
    }
    if let Some(tag) = &args.tag {
        let n = pages.len() + answers.len();
        writeln!(out, "{} tagged {tag}", plural(n as u64, "page", "pages"))?;
        return Ok(Done::Success);
    }
    let wanted = wiki.wanted_pages()?;
    if !wanted.is_empty() {
        let names: Vec<String> = wanted
            .iter()
            .map(|w| format!("{} ({})", w.title, w.mentions))
            .collect();
        writeln!(out, "\nWanted: {}", names.join(", "))?;
    }
    let counts = wiki.page_counts()?;
    write!(
        out,
        "{} from {}; {}",
        plural(counts.pages, "page", "pages"),
        plural(counts.sources, "source", "sources"),
        plural(counts.wanted, "wanted page", "wanted pages")
    )?;
    if counts.stale > 0 {
        write!(out, "; {} to rewrite", counts.stale)?;
    }
    if counts.answers > 0 {
        write!(
            out,
            "; {}",
            plural(counts.answers, "saved answer", "saved answers")
        )?;
    }
    writeln!(out)?;
    Ok(Done::Success)
}

/// `1 source`, `3 sources`.
fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Arguments of `wikimind show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The page: its title in any spelling, one of its aliases, or (when no page has that
    /// name) its id.
    #[arg(
        value_name = "TITLE",
        required_unless_present_any = ["id", "source"],
        conflicts_with_all = ["id", "source"]
    )]
    key: Option<String>,
    /// The page with this id.
    #[arg(long, value_name = "N", conflicts_with = "source")]
    id: Option<i64>,
    /// Show this source's digest (what that one source says) instead of a page.
    #[arg(long, value_name = "ID|PATH|URL")]
    source: Option<String>,
    /// Print the markdown body only.
    #[arg(long, conflicts_with = "html")]
    markdown: bool,
    /// Print the body as sanitised HTML.
    #[arg(long)]
    html: bool,
}

/// Runs `wikimind show`.
pub fn show(global: &Global, args: ShowArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    if let Some(key) = &args.source {
        let source = context::find_source(&wiki, key)?;
        let Some(d) = wiki.shown_digest(source)? else {
            return Err(UsageError(format!(
                "source #{source} has no digest yet: compile it with `wikimind compile {source}`"
            ))
            .into());
        };
        if global.json {
            print_json(&d)?;
        } else if args.markdown {
            writeln!(crate::context::out(), "{}", d.article_body)?;
        } else if args.html {
            writeln!(crate::context::out(), "{}", wiki.render_digest(&d).as_str())?;
        } else {
            print_digest(&mut crate::context::out(), &d)?;
        }
        return Ok(Done::Success);
    }
    let found = match (&args.key, args.id) {
        (Some(key), _) => match wiki.find_page(key) {
            Err(wikimind::wiki::WikiError::AmbiguousName { name, candidates }) => {
                // A name several notes share: list them, and say which to name (exit 2).
                if global.json {
                    print_json(&serde_json::json!({
                        "ambiguous": name,
                        "candidates": candidates,
                    }))?;
                } else {
                    let mut out = crate::context::out();
                    for c in &candidates {
                        writeln!(out, "{}\t{}", c.title, c.path)?;
                    }
                }
                return Err(UsageError(format!(
                    "{name:?} names {} notes (listed): name one by its title, e.g. `wikimind \
                     show {:?}`",
                    candidates.len(),
                    candidates.first().map_or("", |c| c.title.as_str())
                ))
                .into());
            }
            found => found?,
        },
        (None, Some(id)) => Some(wikimind::PageId(id)),
        (None, None) => None,
    };
    let page = match found {
        Some(id) => wiki.shown_page(id)?,
        None => None,
    };
    let Some(p) = page else {
        let asked = match (&args.key, args.id) {
            (Some(key), _) => format!("no page titled {key:?}"),
            (None, Some(id)) => format!("no page has the id {id}"),
            (None, None) => "no page given".to_owned(),
        };
        return Err(UsageError(format!("{asked} (see `wikimind list`)")).into());
    };
    if global.json {
        print_json(&p)?;
    } else if args.markdown {
        writeln!(crate::context::out(), "{}", p.article_body)?;
    } else if args.html {
        writeln!(crate::context::out(), "{}", wiki.render_page(&p)?.as_str())?;
    } else {
        print_page(&mut crate::context::out(), &p)?;
    }
    Ok(Done::Success)
}

/// The whole page for people: title, other names, whether it waits for a rewrite, summary,
/// body, then its claims (with the sources holding each), concepts, open questions, links,
/// backlinks and sources.
fn print_page(out: &mut impl Write, p: &ShownPage) -> std::io::Result<()> {
    writeln!(out, "# {}\n", p.title)?;
    if !p.aliases.is_empty() {
        writeln!(out, "Also called: {}\n", p.aliases.join(", "))?;
    }
    if !p.tags.is_empty() {
        let tags: Vec<String> = p.tags.iter().map(|t| format!("#{t}")).collect();
        writeln!(out, "Tags: {}\n", tags.join(" "))?;
    }
    if p.is_stale() {
        writeln!(
            out,
            "{} feed this page; it will be rewritten from all of them (until then it shows \
             the first).\n",
            plural(p.sources.len() as u64, "source", "sources")
        )?;
    }
    let answer = p.kind == PageKind::Answer;
    match (&p.flagged, answer) {
        (Some(marked), true) => writeln!(out, "Marked: {marked}.\n")?,
        (Some(flagged), false) => writeln!(
            out,
            "Its last rewrite was refused, so it keeps the version before: {flagged}\n"
        )?,
        (None, _) => {}
    }
    if answer {
        // A saved answer's summary is the start of its answer.
        writeln!(out, "A saved answer to this question.\n")?;
    } else {
        writeln!(out, "{}\n", p.summary)?;
    }
    if p.truncated {
        writeln!(out, "(written from an answer that was cut off)\n")?;
    }
    writeln!(out, "{}\n", p.article_body.trim_end())?;
    for s in &p.suggestions {
        let section = if s.section.is_empty() {
            "the top"
        } else {
            s.section.as_str()
        };
        writeln!(
            out,
            "## Suggestion {} for \"{section}\" (the model's text; you edited it: \
             `wikimind suggestion accept|dismiss {:?} {}`)\n{}\n",
            s.id,
            p.title,
            s.id,
            s.text.trim_end()
        )?;
    }
    print_page_claims(out, p)?;
    if answer {
        print_rest(out, &p.concepts, &[], &p.links)?;
        print_section(out, "Follow-up questions", p.open_questions.iter().cloned())?;
    } else {
        print_rest(out, &p.concepts, &p.open_questions, &p.links)?;
    }
    let backlinks = p.backlinks.iter().map(|b| {
        if b.context.is_empty() {
            b.title.clone()
        } else {
            format!("{}: {}", b.title, b.context)
        }
    });
    print_section(out, "Backlinks", backlinks)?;
    if p.sources.len() > 1 {
        writeln!(out, "## Sources ({})", p.sources.len())?;
    }
    for s in &p.sources {
        write!(out, "Source: {}", s.origin)?;
        if let Some(final_url) = redirected(&s.origin, s.final_url.as_deref()) {
            write!(out, " → {final_url}")?;
        }
        write!(
            out,
            " (compiled {} by {} {}) — #{} \"{}\"",
            s.compiled_at, s.provider, s.model, s.source_id, s.title
        )?;
        // Its one-line summary: a hub lists more sources than its claims quote.
        let summary = s.summary.split_whitespace().collect::<Vec<_>>().join(" ");
        if summary.is_empty() {
            writeln!(out)?;
        } else {
            writeln!(out, ": {summary}")?;
        }
    }
    Ok(())
}

/// A source's digest for people: what it says, then the pages it feeds.
fn print_digest(out: &mut impl Write, d: &ShownDigest) -> std::io::Result<()> {
    writeln!(out, "# {} (digest of source #{})\n", d.title, d.source_id)?;
    writeln!(out, "{}\n", d.summary)?;
    if d.truncated {
        writeln!(out, "(written from an answer that was cut off)\n")?;
    }
    writeln!(out, "{}\n", d.article_body.trim_end())?;
    let checked: Vec<_> = d.key_claims.iter().map(|c| c.of.clone()).collect();
    print_claims(out, &checked, |i| places(d.cited_places(i)))?;
    print_rest(out, &d.concepts, &d.open_questions, &d.links)?;
    print_section(out, "Feeds", d.pages.iter().map(|p| p.title.clone()))?;
    write!(out, "Source: {}", d.origin)?;
    if let Some(final_url) = redirected(&d.origin, d.final_url.as_deref()) {
        write!(out, " → {final_url}")?;
    }
    writeln!(
        out,
        " (compiled {} by {} {})",
        d.compiled_at, d.provider, d.model
    )
}

/// Concepts, open questions and links (wanted ones marked).
fn print_rest(
    out: &mut impl Write,
    concepts: &[String],
    questions: &[String],
    links: &[ShownLink],
) -> std::io::Result<()> {
    if !concepts.is_empty() {
        writeln!(out, "Concepts: {}\n", concepts.join(", "))?;
    }
    print_section(out, "Open questions", questions.iter().cloned())?;
    let links = links.iter().map(|l| match l.page_id {
        Some(_) => l.target.clone(),
        None => format!("{} (wanted)", l.target),
    });
    print_section(out, "Links", links)
}

/// A page's claims, each followed by the page it cites (a saved answer's) and the
/// sources holding its quote.
fn print_page_claims(out: &mut impl Write, page: &ShownPage) -> std::io::Result<()> {
    let claims = &page.key_claims;
    let checked: Vec<_> = claims.iter().map(|c| c.claim.clone()).collect();
    print_claims(out, &checked, |i| {
        let places = places(page.cited_places(i));
        let cites = match &claims[i].cited_page {
            Some(page) => format!(" [cites {page:?}]"),
            None => String::new(),
        };
        let ids: Vec<String> = claims[i]
            .source_ids
            .iter()
            .map(|s| format!("#{s}"))
            .collect();
        let yours = if claims[i].author == wikimind::AuthorKind::Person {
            " [yours]"
        } else {
            ""
        };
        if ids.is_empty() {
            format!("{places}{cites}{yours}")
        } else {
            format!("{places}{cites} [source {}]{yours}", ids.join(", "))
        }
    })
}

/// Where a claim's quote stands, as it reads after the claim: ` (title, p. 12)`.
fn places(places: Vec<String>) -> String {
    places.iter().map(|p| format!(" {p}")).collect()
}

/// The key claims, each with its confidence and quote (and whether the quote was found),
/// then what `after` says of the claim at that index.
fn print_claims(
    out: &mut impl Write,
    claims: &[wikimind::contract::CheckedClaim],
    after: impl Fn(usize) -> String,
) -> std::io::Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    writeln!(out, "## Key claims")?;
    for (i, c) in claims.iter().enumerate() {
        // Numbered from 1: `wikimind claim rm TITLE N` takes the number.
        write!(out, "{}. [{}] {}", i + 1, c.confidence.as_str(), c.claim)?;
        if let Some(q) = &c.quote {
            write!(out, " — \"{q}\"")?;
            if !c.grounded {
                write!(out, " (quote not found in the source)")?;
            }
        }
        writeln!(out, "{}", after(i))?;
    }
    writeln!(out)
}

/// A `## heading` with one `- item` line each, then a blank line; nothing when empty.
fn print_section(
    out: &mut impl Write,
    heading: &str,
    items: impl Iterator<Item = String>,
) -> std::io::Result<()> {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return Ok(());
    }
    writeln!(out, "## {heading}")?;
    for item in items {
        writeln!(out, "- {item}")?;
    }
    writeln!(out)
}

/// Arguments of `wikimind search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to look for.
    #[arg(required = true)]
    query: Vec<String>,
}

/// Runs `wikimind search`.
pub fn search(global: &Global, args: SearchArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let mut hits = wiki.search(&args.query.join(" "))?;
    // Matched words read as `**word**` on the terminal and in JSON.
    for h in &mut hits {
        h.snippet = wikimind::markdown::bold_matches(&h.snippet);
    }
    if global.json {
        print_json(&hits)?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    for h in &hits {
        writeln!(out, "{}\n    {}", h.title, h.snippet.replace('\n', " "))?;
    }
    if hits.is_empty() {
        writeln!(out, "no page matches")?;
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The page: its title in any spelling, one of its aliases, or its id.
    #[arg(value_name = "TITLE")]
    key: String,
}

/// Runs `wikimind history`: every version of a page with who wrote it.
pub fn history(global: &Global, args: HistoryArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let id = wiki.page_named(&args.key)?;
    let versions = wiki.page_history(id)?;
    if global.json {
        print_json(&versions)?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    for v in &versions {
        writeln!(
            out,
            "v{:<4} {}  {}  {}",
            v.version,
            v.created_at,
            v.author_label(),
            v.title
        )?;
        for left in &v.claims_left {
            writeln!(out, "       left: \"{}\" ({})", left.claim, left.why)?;
        }
    }
    Ok(Done::Success)
}

/// Arguments of `wikimind restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The page: its title in any spelling, one of its aliases, or its id.
    #[arg(value_name = "TITLE")]
    key: String,
    /// The version to bring back (`wikimind history TITLE` lists them).
    #[arg(value_name = "VERSION", required_unless_present = "compiled")]
    version: Option<u32>,
    /// Bring back the last version the model wrote, dropping your edits, claims you
    /// added or removed, and waiting suggestions ("revert to compiled").
    #[arg(long, conflicts_with = "version")]
    compiled: bool,
}

/// Runs `wikimind restore`: an earlier version becomes the page's newest, written by you.
pub fn restore(global: &Global, args: RestoreArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let id = wiki.page_named(&args.key)?;
    let Some(version) = args.version else {
        let version = wiki.revert_to_compiled(&args.key)?;
        if global.json {
            print_json(&serde_json::json!({"page_id": id, "version": version, "compiled": true}))?;
        } else {
            match version {
                Some(v) => writeln!(
                    crate::context::out(),
                    "reverted {:?} to its compiled version: version {v}",
                    args.key
                )?,
                None => writeln!(crate::context::out(), "{:?} was never compiled", args.key)?,
            }
        }
        return Ok(Done::Success);
    };
    let restored = wiki.restore_page(id, version)?;
    if global.json {
        print_json(&restored)?;
    } else {
        writeln!(
            crate::context::out(),
            "restored version {} of {:?} as version {}",
            restored.restored_from,
            restored.title,
            restored.version
        )?;
    }
    Ok(Done::Success)
}
