//! The rules migrations 4, 6, 8 and 20 applied, as they were when those migrations were
//! written: a migration's result must not change when today's code changes, so its Rust
//! step calls these copies, never `wikimind_text` (whose rules may move on; the next
//! change to a rule there is a backfill, not an edit here). Never edit this file: a
//! change to a released migration's rules is caught by nothing else.
//!
//! Copied from `wikimind_text::key` and `wikimind_text::url` at schema version 13.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use url::Url;

/// The key every spelling of one topic shares (see the module documentation): lowercase
/// words separated by single spaces, empty when `name` has no letter or digit.
pub(crate) fn topic_key(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut last: Option<char> = None;
    for c in name.nfkd().filter(|c| !is_combining_mark(*c)) {
        if is_apostrophe(c) {
            continue;
        }
        let joins = match c {
            '+' | '#' => last.is_some_and(|l| l.is_alphanumeric() || l == '+' || l == '#'),
            c if c.is_alphanumeric() => {
                !last.is_some_and(|l| l.is_alphanumeric() && l.is_numeric() != c.is_numeric())
            }
            _ => false,
        };
        if !joins || c == ' ' {
            end_word(&mut word, &mut words);
        }
        if c.is_alphanumeric() || (joins && (c == '+' || c == '#')) {
            // Final sigma is a lowercase sigma at the end of a word: one letter for keys.
            word.extend(c.to_lowercase().map(|l| if l == 'ς' { 'σ' } else { l }));
            last = Some(c);
        } else {
            last = None;
        }
    }
    end_word(&mut word, &mut words);
    words.join(" ")
}

fn end_word(word: &mut String, words: &mut Vec<String>) {
    if !word.is_empty() {
        words.push(singular(word));
        word.clear();
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{02BC}')
}

/// One form for a word and its regular English plural. Only words of plain ASCII letters
/// are touched: a plural `s` goes (not from `ss`, `us` or `is`, nor from a word of three
/// letters or fewer), then `ie` becomes `y`, then an `e` after `s`, `x`, `z`, `ch` or `sh`
/// goes — applied to singulars too, so both forms meet.
fn singular(word: &str) -> String {
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut w = word;
    if w.len() > 3
        && w.ends_with('s')
        && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
    {
        w = &w[..w.len() - 1];
    }
    if let Some(stem) = w.strip_suffix("ie") {
        if !stem.is_empty() {
            return format!("{stem}y");
        }
    }
    if let Some(stem) = w.strip_suffix('e') {
        if ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|end| stem.ends_with(end))
        {
            return stem.to_string();
        }
    }
    w.to_string()
}

/// The key a page is found by: the [`topic_key`] of its name, or — for a name with no
/// letter or digit, which has no topic key — its [`normalize_title`] form (which no topic
/// key can equal, as topic keys hold only letters, digits, `+`, `#` and spaces).
pub(crate) fn page_key(name: &str) -> String {
    let key = topic_key(name);
    if key.is_empty() {
        normalize_title(name)
    } else {
        key
    }
}

/// The key titles, concept names and link targets are matched by: trimmed, lowercased,
/// inner runs of whitespace collapsed to one space.
pub(crate) fn normalize_title(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The origin of a web page for a URL as typed: the URL parsed and normalised, without its
/// fragment and without `user:password@`. The same URL always gives the same origin. Errors
/// (not a URL, not http or https) never repeat credentials.
pub(crate) fn url_origin(url: &str) -> Option<String> {
    parse_http_url(url).map(|parsed| shown_url(&parsed))
}

/// Parses an http or https URL and drops its fragment (credentials are kept: they are sent).
fn parse_http_url(url: &str) -> Option<Url> {
    let given = url.trim();
    let mut parsed = Url::parse(given).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    parsed.set_fragment(None);
    Some(parsed)
}

/// A URL fit to store and show: no `user:password@`, no fragment.
fn shown_url(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_fragment(None);
    if shown.set_password(None).is_err() || shown.set_username("").is_err() {
        // A URL that cannot hold credentials (no host) has none to hide.
        return without_userinfo(url.as_str());
    }
    shown.to_string()
}

/// Text that may be a URL, with anything between `//` and the last `@` of the authority
/// removed: the form of a URL fit for a message, whether or not it parses.
pub(crate) fn without_userinfo(text: &str) -> String {
    let Some(scheme_end) = text.find("//") else {
        return text.to_owned();
    };
    let authority_start = scheme_end + 2;
    let authority_end = text[authority_start..]
        .find(['/', '?', '#', '\\'])
        .map_or(text.len(), |i| authority_start + i);
    match text[authority_start..authority_end].rfind('@') {
        Some(at) => format!(
            "{}{}",
            &text[..authority_start],
            &text[authority_start + at + 1..]
        ),
        None => text.to_owned(),
    }
}

/// The `title` a raw compile answer asked for (trimmed), read as migration 6 reads it: the
/// JSON object from the answer's first `{` to its last `}` (code fences and prose around it
/// ignored), strictly. An answer that needed repairs to read gives none, and the digest's
/// title loses its ` (N)` suffix instead.
pub(crate) fn asked_title(raw_answer: &str) -> Option<String> {
    let start = raw_answer.find('{')?;
    let end = raw_answer.rfind('}')?;
    let object: serde_json::Value = serde_json::from_str(raw_answer.get(start..=end)?).ok()?;
    let title = object.get("title")?.as_str()?.trim();
    (!title.is_empty()).then(|| title.to_owned())
}
