//! `wikimind mcp`: serves the wiki to MCP clients (Claude Desktop, IDEs, agents) over
//! standard input and output until the client closes them.

use clap::Args;
use rmcp::ServiceExt;
use wikimind::config::Overrides;
use wikimind::ingest::Reach;

use crate::context::{self, ProviderFlags};
use crate::{Done, Global};
use wikimind_mcp::WikiServer;

/// Arguments of `wikimind mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Let clients add sources (the `add_source` tool): text or a web page, ingested and
    /// compiled while the server runs. Without it the server only reads.
    #[arg(long)]
    allow_write: bool,
    /// Let `add_source` download from loopback, link-local and private addresses (this
    /// machine, its network). Without it a URL, a redirect or a name resolving to one is
    /// refused, so a page the assistant read cannot steer it into an internal service.
    #[arg(long)]
    allow_private_urls: bool,
    #[command(flatten)]
    provider: ProviderFlags,
    /// Compiles running at once (for `add_source`).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
}

/// Runs `wikimind mcp`: standard output carries the protocol only; messages go to
/// standard error.
pub fn run(global: &Global, args: McpArgs) -> anyhow::Result<Done> {
    let overrides = Overrides {
        concurrency: args.concurrency,
        ..args.provider.overrides()
    };
    let settings = context::settings(global, overrides)?;
    let wiki = context::open(&settings)?;
    let mode = if args.allow_write {
        "clients may add sources"
    } else {
        "read-only; --allow-write lets clients add sources"
    };
    eprintln!(
        "serving the wiki in {} over MCP on standard input and output ({mode})",
        settings.data_dir.display()
    );
    let reach = if args.allow_private_urls {
        Reach::Anywhere
    } else {
        Reach::public_only()
    };
    let keys = std::sync::Arc::new(context::keyring());
    let server = WikiServer::new(wiki, settings, keys, args.allow_write, reach);
    context::runtime()?.block_on(async {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow::anyhow!("the MCP session did not start: {e}"))?;
        running.waiting().await?;
        anyhow::Ok(())
    })?;
    Ok(Done::Success)
}
