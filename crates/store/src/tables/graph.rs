//! The stored graph layout (`graph_nodes`), its state (`graph_state`) and what changed since
//! (`graph_changes`): where each node of the graph view sits, its community and its links'
//! count, whether the layout is of the wiki as it is now (the schema's triggers count every
//! change of pages, links and former titles), and which pages and names those changes
//! touched (the same triggers write them), so an update reads the links around them only.
//!
//! A layout runs in one process at a time: it is leased as a job is ([`crate::tx::jobs`]),
//! by its owner's heartbeat, so a second process (the CLI beside the app) waits for it
//! instead of computing the same positions twice.

use std::time::Duration;

use rusqlite::{params, OptionalExtension};

use crate::clock::ago;
use crate::{JobOwner, Result, Store, NOW};

/// One node's stored place: the graph crate's record, which its layout reads and makes.
pub use wikimind_graph::stored::GraphNodeRow;

/// Whether the stored layout is current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphState {
    /// Changes of pages, links and former titles ever counted.
    pub changes: i64,
    /// The changes count the stored layout is of; `None`: never laid out.
    pub laid_out: Option<i64>,
    /// When the stored layout was written (UTC, ISO-8601).
    pub laid_out_at: Option<String>,
    /// Nodes and edges of the stored layout, and how long it took (milliseconds).
    pub nodes: u64,
    /// Edges of the stored layout.
    pub edges: u64,
    /// How long the stored layout took, in milliseconds.
    pub took_ms: u64,
    /// The process laying the graph out now, with when it started (UTC, ISO-8601).
    pub running: Option<(JobOwner, String)>,
    /// The changes count from which `graph_changes` holds every change: a stored
    /// layout of an earlier count cannot be brought up to date from them.
    pub tracked_from: i64,
}

impl GraphState {
    /// Whether the wiki changed since the stored layout (or was never laid out).
    pub fn is_due(&self) -> bool {
        self.laid_out != Some(self.changes)
    }

    /// Whether every change since the stored layout is in `graph_changes` (read by
    /// [`Store::graph_links_changed`]).
    pub fn changes_tracked(&self) -> bool {
        self.laid_out.is_some_and(|at| at >= self.tracked_from)
    }
}

/// How a layout ended, for [`Store::save_graph_layout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphLayoutFigures {
    /// The changes count read before the layout started.
    pub of_changes: i64,
    /// Nodes laid out.
    pub nodes: u64,
    /// Edges laid out.
    pub edges: u64,
    /// Time it took, in milliseconds.
    pub took_ms: u64,
    /// The last row of `graph_changes` the layout took in (those up to it are deleted).
    pub changes_upto: i64,
}

impl Store {
    /// Every stored node place, by node name.
    pub fn graph_nodes(&self) -> Result<Vec<GraphNodeRow>> {
        self.read(
            || "reading the graph layout".to_owned(),
            |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT node, x, y, community, links_hash, degree FROM graph_nodes
                     ORDER BY node",
                )?;
                let rows = stmt.query_map([], |row| {
                    Ok(GraphNodeRow {
                        node: row.get(0)?,
                        x: row.get(1)?,
                        y: row.get(2)?,
                        community: u32::try_from(row.get::<_, i64>(3)?).unwrap_or(u32::MAX),
                        links_hash: row.get(4)?,
                        degree: row
                            .get::<_, Option<i64>>(5)?
                            .map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
                    })
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            },
        )
    }

    /// The layout's state.
    pub fn graph_state(&self) -> Result<GraphState> {
        self.read(
            || "reading the graph layout's state".to_owned(),
            |conn| {
                Ok(conn
                    .prepare_cached(
                        "SELECT changes, laid_out, laid_out_at, nodes, edges, took_ms, owner_host,
                            owner_pid, started_at, tracked_from
                     FROM graph_state WHERE id = 1",
                    )?
                    .query_row([], |row| {
                        let host: Option<String> = row.get(6)?;
                        let pid: Option<u32> = row.get(7)?;
                        let started: Option<String> = row.get(8)?;
                        Ok(GraphState {
                            changes: row.get(0)?,
                            laid_out: row.get(1)?,
                            laid_out_at: row.get(2)?,
                            nodes: row.get::<_, i64>(3)?.max(0) as u64,
                            edges: row.get::<_, i64>(4)?.max(0) as u64,
                            took_ms: row.get::<_, i64>(5)?.max(0) as u64,
                            running: match (host, pid, started) {
                                (Some(host), Some(pid), Some(at)) => {
                                    Some((JobOwner { host, pid }, at))
                                }
                                _ => None,
                            },
                            tracked_from: row.get(9)?,
                        })
                    })?)
            },
        )
    }

    /// Takes the layout lease for `owner`: when no one holds it, `owner` does already, or
    /// its holder is gone (a heartbeat older than `stale_after`, or `is_dead` says so).
    /// Returns whether `owner` holds it now.
    pub fn take_graph_lease(
        &self,
        owner: &JobOwner,
        stale_after: Duration,
        is_dead: &dyn Fn(&JobOwner) -> bool,
    ) -> Result<bool> {
        let stale = ago(stale_after.as_secs().max(1));
        self.write_upkeep(
            || "taking the graph layout's lease".to_owned(),
            |tx| {
                let held: Option<(JobOwner, bool)> = tx
                    .query_row(
                        &format!(
                            "SELECT owner_host, owner_pid, heartbeat_at < {stale}
                             FROM graph_state WHERE id = 1 AND owner_host IS NOT NULL"
                        ),
                        [],
                        |row| {
                            Ok((
                                JobOwner {
                                    host: row.get(0)?,
                                    pid: row.get(1)?,
                                },
                                row.get::<_, Option<bool>>(2)?.unwrap_or(true),
                            ))
                        },
                    )
                    .optional()?;
                if let Some((holder, stale)) = held {
                    if holder != *owner && !stale && !is_dead(&holder) {
                        return Ok(false);
                    }
                }
                tx.execute(
                    &format!(
                        "UPDATE graph_state SET owner_host = ?1, owner_pid = ?2,
                                heartbeat_at = {NOW}, started_at = {NOW} WHERE id = 1"
                    ),
                    params![owner.host, owner.pid],
                )?;
                Ok(true)
            },
        )
    }

    /// Renews `owner`'s layout lease (a long layout calls it as it goes).
    pub fn renew_graph_lease(&self, owner: &JobOwner) -> Result<()> {
        self.write_upkeep(
            || "renewing the graph layout's lease".to_owned(),
            |tx| {
                tx.execute(
                    &format!(
                        "UPDATE graph_state SET heartbeat_at = {NOW}
                         WHERE id = 1 AND owner_host = ?1 AND owner_pid = ?2"
                    ),
                    params![owner.host, owner.pid],
                )?;
                Ok(())
            },
        )
    }

    /// Gives the layout lease back (a layout stopped or failed).
    pub fn release_graph_lease(&self, owner: &JobOwner) -> Result<()> {
        self.write_upkeep(
            || "releasing the graph layout's lease".to_owned(),
            |tx| {
                release(tx, owner)?;
                Ok(())
            },
        )
    }

    /// Stores `rows` as a draft of the first layout `owner` is running (see
    /// `wikimind_graph::stored::draft_rows`): their places, for the graph view to draw while
    /// the layout settles; the layout's state stays "no layout yet". `false` (nothing
    /// stored): `owner` no longer holds the lease, or a layout was stored meanwhile.
    pub fn save_graph_draft(&self, owner: &JobOwner, rows: &[GraphNodeRow]) -> Result<bool> {
        self.write_upkeep(
            || format!("storing a draft of the graph layout ({} nodes)", rows.len()),
            |tx| {
                let first: bool = tx
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM graph_state
                                    WHERE id = 1 AND owner_host = ?1 AND owner_pid = ?2
                                      AND laid_out IS NULL)",
                    )?
                    .query_row(params![owner.host, owner.pid], |r| r.get(0))?;
                if first {
                    put_nodes(tx, rows)?;
                }
                Ok(first)
            },
        )
    }

    /// Stores a layout in one transaction: `upserts` written (new and moved nodes, and those
    /// whose community or links changed), `removed` nodes dropped, the changes up to
    /// `figures.changes_upto` forgotten, the state marked laid out as of
    /// `figures.of_changes`, and `owner`'s lease given back. `false`, and nothing written,
    /// when `owner` no longer holds the lease (it paused past the lease and another process
    /// took it: that one's layout is newer).
    pub fn save_graph_layout(
        &self,
        owner: &JobOwner,
        upserts: &[GraphNodeRow],
        removed: &[String],
        figures: GraphLayoutFigures,
    ) -> Result<bool> {
        self.write_upkeep(
            || format!("storing the graph layout of {} nodes", figures.nodes),
            |tx| {
                let held: bool = tx
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM graph_state
                                    WHERE id = 1 AND owner_host = ?1 AND owner_pid = ?2)",
                    )?
                    .query_row(params![owner.host, owner.pid], |r| r.get(0))?;
                if !held {
                    return Ok(false);
                }
                {
                    let mut drop = tx.prepare_cached("DELETE FROM graph_nodes WHERE node = ?1")?;
                    for node in removed {
                        drop.execute([node])?;
                    }
                    put_nodes(tx, upserts)?;
                }
                // Every row handled (the usual case): emptied whole, which SQLite does
                // without visiting each row (a first layout follows many thousands).
                if last_change(tx)? <= figures.changes_upto {
                    tx.prepare_cached("DELETE FROM graph_changes")?
                        .execute([])?;
                } else {
                    tx.prepare_cached("DELETE FROM graph_changes WHERE id <= ?1")?
                        .execute([figures.changes_upto])?;
                }
                tx.execute(
                    &format!(
                        "UPDATE graph_state SET laid_out = ?1, laid_out_at = {NOW}, nodes = ?2,
                                edges = ?3, took_ms = ?4 WHERE id = 1"
                    ),
                    params![
                        figures.of_changes,
                        figures.nodes as i64,
                        figures.edges as i64,
                        figures.took_ms as i64
                    ],
                )?;
                release(tx, owner)?;
                Ok(true)
            },
        )
    }
}

fn release(tx: &rusqlite::Transaction<'_>, owner: &JobOwner) -> rusqlite::Result<usize> {
    tx.prepare_cached(
        "UPDATE graph_state SET owner_host = NULL, owner_pid = NULL, heartbeat_at = NULL,
                started_at = NULL
         WHERE id = 1 AND owner_host = ?1 AND owner_pid = ?2",
    )?
    .execute(params![owner.host, owner.pid])
}

/// The rows of `graph_changes` now: the last row's id (0: none), the pages they touched
/// and the keys they name, each ascending and once.
pub(crate) fn changes(
    conn: &rusqlite::Connection,
) -> rusqlite::Result<(i64, Vec<crate::PageId>, Vec<String>)> {
    let upto: i64 = conn
        .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM graph_changes")?
        .query_row([], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT page_id FROM graph_changes
         WHERE id <= ?1 AND page_id IS NOT NULL ORDER BY page_id",
    )?;
    let pages = stmt
        .query_map([upto], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT key FROM graph_changes
         WHERE id <= ?1 AND key IS NOT NULL AND key <> '' ORDER BY key",
    )?;
    let keys = stmt
        .query_map([upto], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((upto, pages, keys))
}

/// The last row of `graph_changes` (0: none).
pub(crate) fn last_change(conn: &rusqlite::Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COALESCE(MAX(id), 0) FROM graph_changes")?
        .query_row([], |r| r.get(0))
}

/// Writes `rows` into `graph_nodes`, each over the stored row of its node.
fn put_nodes(tx: &rusqlite::Transaction<'_>, rows: &[GraphNodeRow]) -> Result<()> {
    let mut put = tx.prepare_cached(
        "INSERT INTO graph_nodes (node, x, y, community, links_hash, degree)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (node) DO UPDATE SET x = excluded.x, y = excluded.y,
             community = excluded.community, links_hash = excluded.links_hash,
             degree = excluded.degree",
    )?;
    for row in rows {
        put.execute(params![
            row.node,
            row.x,
            row.y,
            i64::from(row.community),
            row.links_hash,
            row.degree.map(i64::from)
        ])?;
    }
    Ok(())
}
