//! Newtype ids and the small enums stored as text.

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Serialize};

/// An id type: a number in the database and in JSON, and with the `ts` feature a *branded*
/// number in TypeScript (`number & { readonly __brand: "PageId" }`), so the window cannot
/// pass a source's id where a page's is wanted. serde writes a newtype struct as its number
/// and reads it from one, so JSON never sees the wrapper.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $brand:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        pub struct $name(#[cfg_attr(feature = "ts", ts(type = $brand))] pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.0))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                i64::column_result(value).map($name)
            }
        }
    };
}

id_type!(
    /// Identifies a source (row of `sources`).
    SourceId,
    "number & { readonly __brand: \"SourceId\" }"
);
id_type!(
    /// Identifies an article (row of `articles`). A recompile keeps it.
    ArticleId,
    "number & { readonly __brand: \"ArticleId\" }"
);
id_type!(
    /// Identifies a compile job (row of `jobs`).
    JobId,
    "number & { readonly __brand: \"JobId\" }"
);
id_type!(
    /// Identifies a wiki page (row of `pages`). The pages of an upgraded wiki have the ids
    /// of the articles they were made from; an id is never given to a second page.
    PageId,
    "number & { readonly __brand: \"PageId\" }"
);

macro_rules! text_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// The name stored in the database and printed by the shells.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// Parses a stored name exactly.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                let text = value.as_str()?;
                $name::parse(text).ok_or_else(|| {
                    FromSqlError::Other(
                        format!(concat!("unknown ", stringify!($name), " {:?}"), text).into(),
                    )
                })
            }
        }
    };
}

text_enum!(
    /// Where a source came from.
    SourceKind {
        /// A file on disk; the origin is its canonical path.
        File => "file",
        /// A web page; the origin is its URL.
        Url => "url",
        /// Pasted text; the origin is `text:<sha256>`.
        Text => "text",
        /// Text read from standard input.
        Stdin => "stdin",
        /// A note written in the wiki; the origin is `note:<id>`, stable across renames.
        Note => "note",
    }
);

text_enum!(
    /// Where a source is in its life.
    SourceStatus {
        /// Not compiled yet.
        Pending => "pending",
        /// A compile is running (or was interrupted).
        Compiling => "compiling",
        /// Its article is up to date.
        Compiled => "compiled",
        /// The last compile failed; the reason is kept.
        Failed => "failed",
        /// The text changed since its article was compiled.
        Stale => "stale",
    }
);

text_enum!(
    /// The state of a compile job.
    JobState {
        /// Waiting to run.
        Queued => "queued",
        /// Taken by a worker.
        Running => "running",
        /// Finished and the article was saved.
        Done => "done",
        /// Finished without an article.
        Failed => "failed",
        /// Stopped by a person before it finished; it will not run.
        Cancelled => "cancelled",
    }
);

text_enum!(
    /// What a wiki page is.
    PageKind {
        /// A page about one topic, written from the digests that name it.
        Topic => "topic",
        /// A saved answer to a question.
        Answer => "answer",
    }
);

text_enum!(
    /// Who wrote a version of a page.
    AuthorKind {
        /// A model (its provider and model are recorded).
        Model => "model",
        /// A person (an edit, a restore of an earlier version, a claim they wrote).
        Person => "person",
    }
);

text_enum!(
    /// What a person's version of a page did.
    PersonChange {
        /// The person edited the page.
        Edited => "edited",
        /// The person's work, kept over a model's rewrite (section by section).
        Kept => "kept",
        /// Another page was merged into this one, with the person's work on it.
        Merged => "merged",
        /// The person accepted a suggestion.
        Accepted => "accepted",
        /// The person added a claim of their own.
        ClaimAdded => "claim_added",
        /// The person removed a claim.
        ClaimRemoved => "claim_removed",
        /// The person renamed the page.
        Renamed => "renamed",
        /// The person went back to the last compiled version.
        Reverted => "reverted",
        /// The person restored an earlier version.
        Restored => "restored",
        /// Notes the page held only by a name they share went to pages of their own, or
        /// the page took the title its note goes by (a note is itself: identity by path);
        /// the person's work on it stays.
        Split => "split",
    }
);

impl Default for AuthorKind {
    /// The model: everything written before a person could write.
    fn default() -> AuthorKind {
        AuthorKind::Model
    }
}

/// What a compile job works on: a source (its digest is compiled) or a page (it is written
/// from its digests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "id")]
pub enum JobTarget {
    /// Compile this source's digest.
    Source(SourceId),
    /// Write this page from its digests.
    Page(PageId),
}

impl std::fmt::Display for JobTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobTarget::Source(id) => write!(f, "source {id}"),
            JobTarget::Page(id) => write!(f, "page {id}"),
        }
    }
}
