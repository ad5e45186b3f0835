//! Reads that join several tables: digests and their detail, pages as the wiki shows and
//! searches them, what asking finds, and the names a compile prompt lists. They write
//! nothing, and call only [`crate::tables`] and the root modules.

pub(crate) mod ask;
pub(crate) mod digests;
pub(crate) mod graph;
pub(crate) mod known_names;
pub(crate) mod page_lists;
pub(crate) mod pages;
pub(crate) mod passages;
