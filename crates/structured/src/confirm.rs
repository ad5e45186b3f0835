//! Readings the lenient reader could only make tentatively (`12,111` as one number, a
//! bare word such as `none` as text) are kept only where the schema confirms them; the
//! answer is refused otherwise, naming where.

use serde_json::Value;

use crate::outcome::{Repair, RepairKind};
use crate::schema::{Schema, Violation};

/// Readings the reader could only make tentatively, that the schema does not confirm.
pub(crate) fn unconfirmed(schema: &Schema, value: &Value, repairs: &[Repair]) -> Vec<Violation> {
    let mut out = unconfirmed_digit_groups(schema, repairs);
    out.extend(unconfirmed_words(schema, value, repairs));
    out
}

/// `12,111` read as one number is only sure where the schema asks for a number: anywhere
/// else the digits may be several values, and the answer is refused, naming where.
fn unconfirmed_digit_groups(schema: &Schema, repairs: &[Repair]) -> Vec<Violation> {
    repairs
        .iter()
        .filter(|r| r.kind == RepairKind::JoinedDigitGroups && !schema.expects_number_at(&r.path))
        .map(|r| Violation {
            path: r.path.clone(),
            message: "digits with commas between them may be one number written with thousands separators or several values, and the schema does not say a number is expected here".into(),
        })
        .collect()
}

/// A bare word that may be a misspelt literal (`fals`, `none`, `TRUE`, `undefined`) is
/// only sure to be text where the schema asks for text (or turned it into the boolean
/// asked for): anywhere else the answer is refused, naming where.
fn unconfirmed_words(schema: &Schema, value: &Value, repairs: &[Repair]) -> Vec<Violation> {
    repairs
        .iter()
        .filter(|r| r.kind == RepairKind::UnquotedString)
        .filter_map(|r| {
            let word = value.pointer(&r.path)?.as_str()?;
            (literal_like(word) && !schema.expects_text_at(&r.path)).then(|| Violation {
                path: r.path.clone(),
                message: format!(
                    "the bare word {word:?} may be a misspelt literal (true, false, null) or text, and the schema does not say text is expected here"
                ),
            })
        })
        .collect()
}

/// Spellings of literals from other languages, other cases, or cut short.
fn literal_like(word: &str) -> bool {
    let w = word.trim().to_ascii_lowercase();
    let w = w.trim_start_matches(['+', '-']);
    let spelled = [
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "nan",
        "infinity",
        "inf",
    ]
    .contains(&w);
    let cut = w.len() >= 3
        && w.len() < 5
        && ["true", "false", "null"]
            .iter()
            .any(|l| l.starts_with(w) && *l != w);
    spelled || cut
}
