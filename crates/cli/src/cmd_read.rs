//! Reading the wiki: `sources`, `list`, `show`, `search`.

use std::io::Write;

use clap::Args;
use serde::Serialize;
use serde_json::json;
use wikimind::config::Overrides;
use wikimind::contract::CheckedClaim;
use wikimind::store::{ArticleDetail, ArticleId, SourceStatus};

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// Runs `wikimind sources`.
pub fn sources(global: &Global) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let sources = wiki.store().sources()?;
    if global.json {
        print_json(&sources)?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    for s in &sources {
        let name = s.title.as_deref().unwrap_or(&s.origin);
        write!(out, "#{:<4} {:<9} {name}", s.id, s.status.as_str())?;
        if let Some(t) = &s.article_title {
            write!(out, "  → {t}")?;
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

/// Where a web page was finally read from, when redirects took it away from its origin.
fn redirected<'a>(origin: &str, final_url: Option<&'a str>) -> Option<&'a str> {
    final_url.filter(|url| *url != origin)
}

/// Runs `wikimind list`.
pub fn list(global: &Global) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let articles = wiki.store().articles()?;
    if global.json {
        print_json(&articles)?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    for a in &articles {
        let c = &a.claims;
        writeln!(
            out,
            "{:<40} {} sourced, {} inferred, {} opinion",
            a.title, c.sourced, c.inferred, c.opinion
        )?;
    }
    let counts = wiki.store().counts()?;
    writeln!(
        out,
        "{} articles from {} sources; {} wanted pages",
        counts.articles, counts.sources, counts.wanted
    )?;
    Ok(Done::Success)
}

/// Arguments of `wikimind show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The article's exact title (any case) or id.
    #[arg(value_name = "TITLE|ID")]
    key: String,
    /// Print the markdown body only.
    #[arg(long, conflicts_with = "html")]
    markdown: bool,
    /// Print the body as sanitised HTML.
    #[arg(long)]
    html: bool,
}

#[derive(Serialize)]
struct ShowJson<'a> {
    id: ArticleId,
    title: &'a str,
    summary: &'a str,
    key_claims: &'a [CheckedClaim],
    concepts: &'a [String],
    open_questions: &'a [String],
    links: Vec<serde_json::Value>,
    backlinks: Vec<serde_json::Value>,
    article_body: &'a str,
    sources: Vec<serde_json::Value>,
    truncated: bool,
}

impl<'a> ShowJson<'a> {
    /// The article as `show --json` prints it.
    fn of(a: &'a ArticleDetail) -> ShowJson<'a> {
        ShowJson {
            id: a.id,
            title: &a.title,
            summary: &a.summary,
            key_claims: &a.claims,
            concepts: &a.concepts,
            open_questions: &a.open_questions,
            links: a.links.iter().map(|l| json!({"target": l.target, "article_id": l.article_id})).collect(),
            backlinks: a
                .backlinks
                .iter()
                .map(|b| json!({"article_id": b.article_id, "title": b.title, "context": b.context}))
                .collect(),
            article_body: &a.body,
            sources: a
                .sources
                .iter()
                .map(|s| json!({"source_id": s.source_id, "origin": s.origin, "final_url": s.final_url, "compiled_at": s.compiled_at, "provider": s.provider, "model": s.model}))
                .collect(),
            truncated: a.truncated,
        }
    }
}

/// Runs `wikimind show`.
pub fn show(global: &Global, args: ShowArgs) -> anyhow::Result<Done> {
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let Some(a) = wiki.article(&args.key)? else {
        return Err(UsageError(format!(
            "no article titled {:?} (see `wikimind list`)",
            args.key
        ))
        .into());
    };
    if global.json {
        print_json(&ShowJson::of(&a))?;
    } else if args.markdown {
        writeln!(crate::context::out(), "{}", a.body)?;
    } else if args.html {
        writeln!(crate::context::out(), "{}", wiki.render(&a).as_str())?;
    } else {
        print_article(&mut crate::context::out(), &a)?;
    }
    Ok(Done::Success)
}

/// The whole article for people: title, summary, body, then its claims, concepts, open
/// questions, links, backlinks and sources.
fn print_article(out: &mut impl Write, a: &ArticleDetail) -> std::io::Result<()> {
    writeln!(out, "# {}\n", a.title)?;
    writeln!(out, "{}\n", a.summary)?;
    if a.truncated {
        writeln!(out, "(written from an answer that was cut off)\n")?;
    }
    writeln!(out, "{}\n", a.body.trim_end())?;
    print_claims(out, &a.claims)?;
    if !a.concepts.is_empty() {
        writeln!(out, "Concepts: {}\n", a.concepts.join(", "))?;
    }
    let questions = a.open_questions.iter().cloned();
    print_section(out, "Open questions", questions)?;
    let links = a.links.iter().map(|l| match l.article_id {
        Some(_) => l.target.clone(),
        None => format!("{} (wanted)", l.target),
    });
    print_section(out, "Links", links)?;
    let backlinks = a.backlinks.iter().map(|b| {
        if b.context.is_empty() {
            b.title.clone()
        } else {
            format!("{}: {}", b.title, b.context)
        }
    });
    print_section(out, "Backlinks", backlinks)?;
    for s in &a.sources {
        write!(out, "Source: {}", s.origin)?;
        if let Some(final_url) = redirected(&s.origin, s.final_url.as_deref()) {
            write!(out, " → {final_url}")?;
        }
        writeln!(
            out,
            " (compiled {} by {} {})",
            s.compiled_at, s.provider, s.model
        )?;
    }
    Ok(())
}

/// The key claims, each with its confidence and quote (and whether the quote was found).
fn print_claims(out: &mut impl Write, claims: &[CheckedClaim]) -> std::io::Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    writeln!(out, "## Key claims")?;
    for c in claims {
        write!(out, "- [{}] {}", c.confidence.as_str(), c.claim)?;
        if let Some(q) = &c.quote {
            write!(out, " — \"{q}\"")?;
            if !c.grounded {
                write!(out, " (quote not found in the source)")?;
            }
        }
        writeln!(out)?;
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
    let mut hits = wiki.store().search(&args.query.join(" "))?;
    // Matched words read as `**word**` on the terminal and in JSON.
    use wikimind::store::{MATCH_END, MATCH_START};
    for h in &mut hits {
        h.snippet = h.snippet.replace([MATCH_START, MATCH_END], "**");
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
        writeln!(out, "no article matches")?;
    }
    Ok(Done::Success)
}
