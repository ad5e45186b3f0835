//! `wikimind graph`: the wiki's graph (pages and wanted pages, resolved links) at the
//! positions the core laid out, as JSON (`--json`), Graphviz DOT (`--dot`) or a summary.
//! The layout is brought up to date first, so the positions are of the wiki as it is.

use std::io::Write;

use clap::Args;
use wikimind::config::Overrides;
use wikimind::graph::{GraphFilter, GraphView};
use wikimind::PageKind;

use crate::context::{self, print_json};
use crate::{Done, Global, UsageError};

/// What `wikimind graph` takes.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Only the local graph of this page (title, alias or id): the pages within `--depth`
    /// links of it, links followed both ways.
    #[arg(long, value_name = "TITLE")]
    local: Option<String>,
    /// How many links deep the local graph reaches (1 to 3).
    #[arg(long, default_value_t = 1, requires = "local")]
    depth: u32,
    /// Print Graphviz DOT instead (`wikimind graph --dot | dot -Kneato -n -Tsvg`);
    /// `--json` wins over it.
    #[arg(long)]
    dot: bool,
    /// Only pages of this kind: `topic` or `answer`.
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    /// Only pages with this tag (nested tags count for their parent).
    #[arg(long, value_name = "TAG")]
    tag: Option<String>,
    /// Only pages fed by a note inside this folder (sub-folders count).
    #[arg(long, value_name = "FOLDER")]
    folder: Option<String>,
    /// Only pages no other page links to.
    #[arg(long)]
    orphans: bool,
    /// Leave wanted pages (names no page has yet) out.
    #[arg(long)]
    no_wanted: bool,
    /// At most this many nodes, the most linked first.
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
}

/// Runs `wikimind graph`.
pub fn run(global: &Global, args: GraphArgs) -> anyhow::Result<Done> {
    let kind = match args.kind.as_deref() {
        None => None,
        Some("topic") => Some(PageKind::Topic),
        Some("answer") => Some(PageKind::Answer),
        Some(other) => {
            return Err(
                UsageError(format!("--kind takes `topic` or `answer`, not {other:?}")).into(),
            )
        }
    };
    if !(1..=wikimind::graph::MAX_DEPTH).contains(&args.depth) {
        return Err(UsageError(format!(
            "--depth takes 1 to {}, not {}",
            wikimind::graph::MAX_DEPTH,
            args.depth
        ))
        .into());
    }
    let wiki = context::open(&context::settings(global, Overrides::default())?)?;
    let view = match &args.local {
        Some(name) => wiki.laid_out_local_graph(name, args.depth, !args.no_wanted)?,
        None => wiki.laid_out_graph(&GraphFilter {
            kind,
            tag: args.tag,
            folder: args.folder,
            orphans_only: args.orphans,
            show_wanted: !args.no_wanted,
            community: None,
            limit: Some(args.limit.unwrap_or(u32::MAX)),
            area: None,
        })?,
    };
    if global.json {
        print_json(&view.records())?;
    } else if args.dot {
        write!(context::out(), "{}", view.dot())?;
    } else {
        summary(&view)?;
    }
    Ok(Done::Success)
}

fn summary(view: &GraphView) -> anyhow::Result<()> {
    let mut out = context::out();
    let wanted = view.page_ids.iter().filter(|p| p.is_none()).count();
    writeln!(
        out,
        "{} nodes ({} pages, {wanted} wanted), {} links",
        view.titles.len(),
        view.titles.len() - wanted,
        view.edges.len() / 2
    )?;
    if let Some(centre) = view.centre {
        writeln!(out, "around {}", view.label(centre as usize))?;
    }
    let mut largest: Vec<usize> = (0..view.titles.len()).collect();
    largest.sort_by_key(|&i| (std::cmp::Reverse(view.sizes[i]), i));
    for &i in largest.iter().take(10) {
        writeln!(
            out,
            "  {:>4} links  {}{}",
            view.sizes[i],
            view.label(i),
            // A wanted page told apart from a saved answer says so in its label already.
            if view.page_ids[i].is_none() && view.label(i) == view.titles[i] {
                "  (wanted)"
            } else {
                ""
            }
        )?;
    }
    if view.centre.is_none() && !view.top_communities.is_empty() {
        writeln!(out, "communities (largest first):")?;
        for c in view.top_communities.iter().take(8) {
            writeln!(
                out,
                "  #{:<4} {:>5} nodes, around {}",
                c.label, c.size, c.title
            )?;
        }
    }
    Ok(())
}
