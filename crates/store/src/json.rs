//! The one codec of the JSON columns (`sources.tags`, `pages.concepts`,
//! `page_versions.claims`, `jobs.settings`, the compile log's repairs, …): a value is written
//! with [`to_json`] and read with [`from_json`] (in a query body) or [`column`] (in a row
//! mapper). A value that does not decode is an error naming its column, never read as empty
//! or as a default: a corrupt column is something to say, not to hide.

use rusqlite::types::Type;
use rusqlite::Row;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{Result, StoreError};

/// `value` as the JSON text stored in `column`.
pub(crate) fn to_json<T: Serialize + ?Sized>(column: &'static str, value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Json { column, source })
}

/// The value of `column` stored as `text`.
pub(crate) fn from_json<T: DeserializeOwned>(column: &'static str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|source| StoreError::Json { column, source })
}

/// The JSON column `column` at `index` of `row`, decoded: for row mappers, which return
/// rusqlite's error (the decode error rides inside it, naming the column).
pub(crate) fn column<T: DeserializeOwned>(
    row: &Row<'_>,
    index: usize,
    column: &'static str,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    from_json(column, &text)
        .map_err(|error| rusqlite::Error::FromSqlConversionFailure(index, Type::Text, error.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_column_is_an_error_that_names_it_never_an_empty_value() {
        let error = from_json::<Vec<String>>("sources.tags", "[\"coffee\"").unwrap_err();
        assert!(error.to_string().contains("sources.tags"), "{error}");
        let read: Vec<String> = from_json("sources.tags", "[\"coffee\"]").unwrap();
        assert_eq!(read, ["coffee"]);

        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let error = conn
            .query_row("SELECT 'not json'", [], |row| {
                column::<Vec<String>>(row, 0, "sources.aliases")
            })
            .unwrap_err();
        assert!(error.to_string().contains("sources.aliases"), "{error}");
    }
}
