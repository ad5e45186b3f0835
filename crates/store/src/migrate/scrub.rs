//! Migration steps written in Rust that rewrite what older builds stored.
//!
//! [`scrub_url_origins`] (migration 4) gives every web page the origin the current code
//! computes for it: builds before the URL fix stored a URL as typed, `user:password@` (and
//! possibly a `#fragment`) included, and that text could also reach the messages stored
//! beside the source.

use std::collections::HashSet;

use rusqlite::{params, Transaction};

use crate::migrate::frozen::v13::{url_origin, without_userinfo};

/// The origin given to a source whose identity another source already holds: its identity
/// with `#source-<its id>` after it. An identity never has a fragment, so this never
/// collides with one, and the id makes it unique.
pub(crate) fn duplicate_origin(identity: &str, id: i64) -> String {
    format!("{identity}#source-{id}")
}

/// Rewrites the origin of every web page source to its identity ([`url_origin`]: the URL
/// normalised, without fragment and without credentials), and its final URL likewise.
///
/// Every row is kept. When two sources come to the same identity, the one that already
/// held it keeps it (that is the one ingesting the URL finds today), otherwise the
/// earliest; every later one gets [`duplicate_origin`], so it stays listed and reachable
/// by that origin or its id, with its article and compile log.
///
/// The old origin text is also replaced by the new one wherever a message stored it: the
/// source's title hint and failure reason, the reason and raw answer of compile records,
/// and the error of jobs. A stored origin that no longer parses as a URL (no build stored
/// one) has its credentials cut out as messages do ([`without_userinfo`]).
pub(crate) fn scrub_url_origins(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let urls: Vec<(i64, String, Option<String>)> = {
        let mut stmt =
            tx.prepare("SELECT id, origin, final_url FROM sources WHERE kind = 'url' ORDER BY id")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let identity = |url: &str| url_origin(url).unwrap_or_else(|| without_userinfo(url));

    let mut changes: Vec<(i64, String, String)> = Vec::new();
    for (id, origin, _) in &urls {
        let wanted = identity(origin);
        if wanted != *origin {
            changes.push((*id, origin.clone(), wanted));
        }
    }
    // Every origin that stays as it is, of every kind.
    let mut taken: HashSet<String> = {
        let mut stmt = tx.prepare("SELECT id, origin FROM sources")?;
        let rows = stmt.query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?;
        let mut kept = HashSet::new();
        for row in rows {
            let (id, origin) = row?;
            if !changes.iter().any(|(changed, _, _)| *changed == id) {
                kept.insert(origin);
            }
        }
        kept
    };
    for (id, _, new) in &mut changes {
        if !taken.insert(new.clone()) {
            *new = duplicate_origin(new, *id);
            taken.insert(new.clone());
        }
    }

    // Two passes, so that no origin is ever held twice in between (`origin` is UNIQUE).
    for (id, _, _) in &changes {
        tx.execute(
            "UPDATE sources SET origin = 'scrubbing:' || id WHERE id = ?1",
            [id],
        )?;
    }
    for (id, _, new) in &changes {
        tx.execute(
            "UPDATE sources SET origin = ?2 WHERE id = ?1",
            params![id, new],
        )?;
    }
    for (id, _, final_url) in &urls {
        if let Some(final_url) = final_url {
            let clean = identity(final_url);
            if clean != *final_url {
                tx.execute(
                    "UPDATE sources SET final_url = ?2 WHERE id = ?1",
                    params![id, clean],
                )?;
            }
        }
    }

    // Longest first, so an origin that begins another one never cuts into it.
    changes.sort_by_key(|(_, old, _)| std::cmp::Reverse(old.len()));
    for (_, old, new) in &changes {
        for (table, column) in [
            ("sources", "title_hint"),
            ("sources", "reason"),
            ("compilations", "reason"),
            ("compilations", "raw_answer"),
            ("jobs", "error"),
        ] {
            tx.execute(
                &format!(
                    "UPDATE {table} SET {column} = replace({column}, ?1, ?2)
                     WHERE instr({column}, ?1) > 0"
                ),
                params![old, new],
            )?;
        }
    }
    Ok(())
}
