//! The leaf of WikiMind's layers: every rule about text that must agree wherever it is
//! applied. It does no IO and depends on no other WikiMind crate.
//!
//! - [`key`]: which spellings name one topic ([`key::topic_key`]) and the key a page is
//!   found by ([`key::page_key`]).
//! - [`names`]: which known names a text speaks of ([`names::NameIndex`]).
//! - [`fold`]: how a quote is compared with a source (case, whitespace, quote marks, dashes).
//! - [`url`]: a web page's origin, and URLs with their credentials cut out.
//! - [`hash`]: content hashes.
//! - [`line`](mod@line): text kept on one line (titles and list items in prompts and exports).
//! - [`name_rule`]: which names a model proposes may become pages.
//! - [`markdown`]: the one markdown reader (front matter, own titles, readable text, wiki
//!   links in every form, tags).
//! - [`yaml`]: every YAML read, its nesting bounded before it is parsed.
//! - [`anchor`]: where a quote stands in a text, found again after the text changed, and
//!   the headings above it.
//! - [`prose`]: how many sentences a text holds (lint's thin pages).
#![deny(missing_docs)]

pub mod anchor;
pub mod fold;
pub mod hash;
#[cfg(any(test, feature = "hostile"))]
pub mod hostile;
pub mod identity;
pub mod key;
pub mod line;
pub mod markdown;
pub mod name_rule;
pub mod names;
pub mod prose;
pub mod url;
pub mod yaml;
