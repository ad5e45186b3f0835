//! Reading the wiki: `sources`, `list`, `show`, `search`.

use std::io::Write;

use clap::Args;
use serde::Serialize;
use serde_json::json;
use wikimind::config::Overrides;
use wikimind::store::{ArticleId, SourceStatus};

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
    key_claims: &'a [wikimind::contract::CheckedClaim],
    concepts: &'a [String],
    open_questions: &'a [String],
    links: Vec<serde_json::Value>,
    backlinks: Vec<serde_json::Value>,
    article_body: &'a str,
    sources: Vec<serde_json::Value>,
    truncated: bool,
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
        print_json(&ShowJson {
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
        })?;
        return Ok(Done::Success);
    }
    let mut out = crate::context::out();
    if args.markdown {
        writeln!(out, "{}", a.body)?;
        return Ok(Done::Success);
    }
    if args.html {
        writeln!(out, "{}", wiki.render(&a).as_str())?;
        return Ok(Done::Success);
    }
    writeln!(out, "# {}\n", a.title)?;
    writeln!(out, "{}\n", a.summary)?;
    if a.truncated {
        writeln!(out, "(written from an answer that was cut off)\n")?;
    }
    writeln!(out, "{}\n", a.body.trim_end())?;
    if !a.claims.is_empty() {
        writeln!(out, "## Key claims")?;
        for c in &a.claims {
            write!(out, "- [{}] {}", c.confidence.as_str(), c.claim)?;
            if let Some(q) = &c.quote {
                write!(out, " — \"{q}\"")?;
                if !c.grounded {
                    write!(out, " (quote not found in the source)")?;
                }
            }
            writeln!(out)?;
        }
        writeln!(out)?;
    }
    if !a.concepts.is_empty() {
        writeln!(out, "Concepts: {}\n", a.concepts.join(", "))?;
    }
    if !a.open_questions.is_empty() {
        writeln!(out, "## Open questions")?;
        for q in &a.open_questions {
            writeln!(out, "- {q}")?;
        }
        writeln!(out)?;
    }
    if !a.links.is_empty() {
        writeln!(out, "## Links")?;
        for l in &a.links {
            match l.article_id {
                Some(_) => writeln!(out, "- {}", l.target)?,
                None => writeln!(out, "- {} (wanted)", l.target)?,
            }
        }
        writeln!(out)?;
    }
    if !a.backlinks.is_empty() {
        writeln!(out, "## Backlinks")?;
        for b in &a.backlinks {
            if b.context.is_empty() {
                writeln!(out, "- {}", b.title)?;
            } else {
                writeln!(out, "- {}: {}", b.title, b.context)?;
            }
        }
        writeln!(out)?;
    }
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
    Ok(Done::Success)
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
