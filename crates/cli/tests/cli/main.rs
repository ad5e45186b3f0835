//! The CLI's integration tests: the real `wikimind` binary against local servers that
//! speak the model protocols, in temp data dirs. One test binary (its modules below) so the
//! suite links once.

mod common;

mod ask;
mod citations;
mod crash;
mod demo;
mod dialects;
mod documents;
mod eval;
mod flow;
mod graph;
mod hubs;
mod identity;
mod lint;
mod markdown_links;
mod mcp;
mod page_jobs;
mod pages;
mod parse;
mod pool;
mod vault;
mod watch;
mod writing;
