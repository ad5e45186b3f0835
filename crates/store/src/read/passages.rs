//! A throwaway full-text index over passages of text: an FTS5 table in a SQLite database
//! of its own, in memory, built once by its caller and dropped with it. The eval's raw-source
//! comparison searches the wiki's sources through it (see `wikimind::ask::sources`).
//!
//! It is not part of the wiki's database on purpose: only the eval reads it, it is built in
//! well under a second for thousands of passages, and a persistent table would have to be
//! kept in step with every ingest, edit and removal of a source (and grow every wiki) for
//! a comparison most people run rarely. Being private to one run, its connection needs
//! none of the settings shared files get (WAL, `busy_timeout`).
//!
//! The table uses the pages' tokenizer (`unicode61 remove_diacritics 2`) and the same query
//! rules as [`Store::match_pages`](crate::Store::match_pages): any of the question's terms,
//! ranked by BM25, a passage's source name weighing more than its text.

use std::sync::Mutex;

use rusqlite::{params, Connection};

use crate::read::ask::any_of;
use crate::{QueryTerm, Result, StoreError};

/// What the index is called in errors.
const LOCATION: &str = "the passage index (in memory)";

/// A full-text index over passages, each searchable by its source's name and its text.
pub struct PassageIndex {
    conn: Mutex<Connection>,
    len: usize,
}

impl std::fmt::Debug for PassageIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassageIndex")
            .field("passages", &self.len)
            .finish()
    }
}

impl PassageIndex {
    /// Indexes `passages`, each a source name and a passage of its text; a passage is
    /// known by its position in the list, from 0.
    pub fn build<'a>(
        passages: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<PassageIndex> {
        let open_error = |source| StoreError::Open {
            path: LOCATION.into(),
            source,
        };
        let mut conn = Connection::open_in_memory().map_err(open_error)?;
        let mut len = 0;
        let fill = |conn: &mut Connection| -> Result<()> {
            let tx = conn.transaction()?;
            tx.execute_batch(
                "CREATE VIRTUAL TABLE passages USING fts5(
                     source, text,
                     tokenize = 'unicode61 remove_diacritics 2'
                 );",
            )?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO passages (rowid, source, text) VALUES (?1, ?2, ?3)",
                )?;
                for (i, (source, text)) in passages.into_iter().enumerate() {
                    insert.execute(params![i as i64 + 1, source, text])?;
                    len = i + 1;
                }
            }
            tx.commit()?;
            Ok(())
        };
        fill(&mut conn).map_err(|e| e.within(|| "indexing passages".to_owned(), LOCATION))?;
        Ok(PassageIndex {
            conn: Mutex::new(conn),
            len,
        })
    }

    /// How many passages it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no passage.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The passages matching any of `terms`, best first by BM25 (the source's name weighs
    /// twice its text; ties by position), at most `limit`, each with its rank (lower is
    /// better).
    pub fn search(&self, terms: &[QueryTerm], limit: usize) -> Result<Vec<(usize, f64)>> {
        let Some(query) = any_of(terms) else {
            return Ok(Vec::new());
        };
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let run = || -> Result<Vec<(usize, f64)>> {
            let mut stmt = conn.prepare_cached(
                "SELECT rowid, bm25(passages, 2.0, 1.0) AS rank FROM passages
                 WHERE passages MATCH ?1 ORDER BY rank, rowid LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![query, limit as i64], |row| {
                let rowid: i64 = row.get(0)?;
                Ok((usize::try_from(rowid - 1).unwrap_or(0), row.get(1)?))
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        };
        run().map_err(|e| e.within(|| format!("finding the passages of {query:?}"), LOCATION))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(word: &str, prefix: bool) -> QueryTerm {
        QueryTerm {
            word: word.into(),
            prefix,
        }
    }

    #[test]
    fn passages_are_found_by_their_words_best_first() {
        let index = PassageIndex::build([
            ("Tea", "Green tea is steamed. Café culture is elsewhere."),
            ("Espresso", "Espresso is brewed at nine bars."),
            (
                "Grinders",
                "Burr grinders crush beans; espresso needs an even grind.",
            ),
        ])
        .unwrap();
        assert_eq!(index.len(), 3);
        let found: Vec<usize> = index
            .search(&[term("espresso", true)], 10)
            .unwrap()
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        assert_eq!(found, [1, 2], "named by its source first");
        // Diacritics do not matter, prefixes find longer words, a limit is kept.
        let cafe = index.search(&[term("cafe", false)], 10).unwrap();
        assert_eq!(cafe.len(), 1);
        assert_eq!(cafe[0].0, 0);
        assert_eq!(index.search(&[term("grind", true)], 10).unwrap().len(), 1);
        assert_eq!(
            index
                .search(&[term("espresso", true), term("tea", false)], 2)
                .unwrap()
                .len(),
            2
        );
        assert!(index
            .search(&[term("quark", false)], 10)
            .unwrap()
            .is_empty());
        assert!(index.search(&[term("?!", false)], 10).unwrap().is_empty());
        assert!(PassageIndex::build([]).unwrap().is_empty());
    }
}
