//! SQL functions the store's queries call, written in Rust where SQL would read too much.

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

/// Registers the store's SQL functions on `conn`: `wm_anchored_wikilink(text)`.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        "wm_anchored_wikilink",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let text = ctx.get_raw(0).as_str().unwrap_or("");
            Ok(may_hold_anchored_wikilink(text))
        },
    )
}

/// Whether `text` may hold a wiki link to a heading or block (`[[Page#Heading]]`,
/// `[[Page#^block]]`): some `[[` with a `#` before the next `]]`. A prefilter: every body
/// the markdown reader finds such a link in passes (the `#` of a link's anchor, or of the
/// character reference `&#35;` that stands for it, lies between its brackets), and most
/// bodies, whose `#` are headings, do not, so lint parses only the few that do.
pub(crate) fn may_hold_anchored_wikilink(text: &str) -> bool {
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else {
            return false;
        };
        if after[..close].contains('#') {
            return true;
        }
        rest = &after[close + 2..];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_hash_between_a_links_brackets_passes() {
        let cases: &[(&str, bool)] = &[
            ("", false),
            ("## A heading\n\nSee [[Espresso]].", false),
            ("See [[Espresso#Crema]].", true),
            ("See [[Espresso#^block-1]].", true),
            ("See [[Espresso|the #1 drink]].", true),
            ("[[A]] then # and [[B]]", false),
            ("[[A]] then [[B&#35;C]]", true),
            ("An open [[ with # and no close", false),
            ("[[A\n#B]]", true),
            ("Nested [[a [[b#c]]", true),
            ("#tag [[Espresso]] #other", false),
        ];
        for (text, expected) in cases {
            assert_eq!(may_hold_anchored_wikilink(text), *expected, "{text:?}");
        }
    }
}
