//! Removing a source: its digest, compile log and jobs go, links that reached its digest
//! find another or become wanted, and every page it fed is brought in step — one
//! transaction.

use crate::tables::sources::drop_orphan_concepts;
use crate::tx::feed::{pages_fed_by, refresh_page};
use crate::{Result, SourceId, Store};

impl Store {
    /// Removes a source with its article (digest), compile log and jobs, in one
    /// transaction. Links that pointed to its article go to another article with the same
    /// title, or become wanted pages again. Each page it fed is brought in step: removed
    /// when no source is left (links to it become wanted), made of the one digest left when
    /// that digest's title names it, else marked stale saying the source was removed.
    /// Returns whether the source existed.
    pub fn remove_source(&self, id: SourceId) -> Result<bool> {
        let min_sources = self.min_sources();
        self.write(
            || format!("removing source {id}"),
            |tx| {
                let fed = pages_fed_by(tx, id)?;
                // `links.to_article` is ON DELETE SET NULL; everything else cascades.
                let removed = tx
                    .prepare_cached("DELETE FROM sources WHERE id = ?1")?
                    .execute([id])?;
                if removed == 0 {
                    return Ok(false);
                }
                tx.prepare_cached(
                    "UPDATE links SET to_article =
                         (SELECT a.id FROM articles a WHERE a.title_norm = links.target_norm
                          ORDER BY a.id LIMIT 1)
                     WHERE to_article IS NULL
                       AND EXISTS (SELECT 1 FROM articles a
                                   WHERE a.title_norm = links.target_norm)",
                )?
                .execute([])?;
                drop_orphan_concepts(tx)?;
                for page in fed {
                    tx.prepare_cached(
                        "UPDATE pages SET sources_lost = sources_lost + 1 WHERE id = ?1",
                    )?
                    .execute([page])?;
                    refresh_page(tx, page, &format!("source {id} was removed"), min_sources)?;
                }
                Ok(true)
            },
        )
    }
}
