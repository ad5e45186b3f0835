//! Where `$ref` points: the schema resources (`$id`) and anchors (`$anchor`) of one
//! document, found by walking only the keywords that hold schemas (an `$id` inside an
//! `enum` is data, not an identifier), and RFC 3986 reference resolution.
//!
//! A reference to a resource outside the document is refused when the schema is loaded:
//! the engine fetches nothing.

use std::collections::HashMap;

use serde_json::Value;

use crate::outcome::push_pointer;

/// The base URI of a document without `$id`.
const DEFAULT_BASE: &str = "urn:wikimind:schema";

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is a list of schemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is an object of schemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// The identifiers of one schema document.
#[derive(Debug, Default)]
pub(super) struct Ids {
    /// For each schema's JSON Pointer, its base URI (after its own `$id`).
    base: HashMap<String, String>,
    /// Each resource's URI (no fragment), and its pointer.
    resources: HashMap<String, String>,
    /// Each anchor as `uri#name`, and its pointer.
    anchors: HashMap<String, String>,
}

impl Ids {
    /// Walks the document's schemas. `Err` names a pointer and what is wrong there.
    pub(super) fn new(doc: &Value) -> Result<Ids, (String, String)> {
        let mut ids = Ids::default();
        let mut stack = vec![(String::new(), DEFAULT_BASE.to_string(), doc)];
        while let Some((pointer, parent_base, schema)) = stack.pop() {
            let Value::Object(map) = schema else {
                continue;
            };
            let mut base = parent_base;
            if let Some(id) = map.get("$id") {
                let id = id
                    .as_str()
                    .ok_or_else(|| (pointer.clone(), "$id must be a string".to_string()))?;
                let resolved = resolve(&base, id).ok_or_else(|| {
                    (
                        pointer.clone(),
                        format!("$id {id} cannot be resolved against {base}"),
                    )
                })?;
                base = strip_fragment(&resolved).to_string();
                ids.resources.insert(base.clone(), pointer.clone());
            }
            if pointer.is_empty() {
                ids.resources
                    .entry(base.clone())
                    .or_insert_with(String::new);
            }
            if let Some(anchor) = map.get("$anchor") {
                let anchor = anchor
                    .as_str()
                    .ok_or_else(|| (pointer.clone(), "$anchor must be a string".to_string()))?;
                ids.anchors
                    .insert(format!("{base}#{anchor}"), pointer.clone());
            }
            let child = |key: &str| {
                let mut p = pointer.clone();
                push_pointer(&mut p, key);
                p
            };
            for key in ONE {
                if let Some(s) = map.get(*key) {
                    stack.push((child(key), base.clone(), s));
                }
            }
            for key in LIST {
                if let Some(Value::Array(list)) = map.get(*key) {
                    for (i, s) in list.iter().enumerate() {
                        let mut p = child(key);
                        push_pointer(&mut p, &i.to_string());
                        stack.push((p, base.clone(), s));
                    }
                }
            }
            for key in MAP {
                if let Some(Value::Object(schemas)) = map.get(*key) {
                    for (name, s) in schemas {
                        let mut p = child(key);
                        push_pointer(&mut p, name);
                        stack.push((p, base.clone(), s));
                    }
                }
            }
            ids.base.insert(pointer, base);
        }
        Ok(ids)
    }

    /// The JSON Pointer a `$ref` written in the schema at `pointer` points to, if it is in
    /// this document.
    pub(super) fn target(&self, pointer: &str, reference: &str) -> Option<String> {
        let base = self.base.get(pointer).map_or(DEFAULT_BASE, String::as_str);
        let resolved = resolve(base, reference)?;
        let (resource, fragment) = match resolved.split_once('#') {
            Some((r, f)) => (r, f),
            None => (resolved.as_str(), ""),
        };
        let at = self.resources.get(resource)?;
        if fragment.is_empty() {
            return Some(at.clone());
        }
        if fragment.starts_with('/') {
            return Some(format!("{at}{}", percent_decode(fragment)?));
        }
        self.anchors.get(&format!("{resource}#{fragment}")).cloned()
    }
}

fn strip_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(u, _)| u)
}

/// Decodes `%XX` in a fragment.
pub(super) fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A URI split as RFC 3986 §3 does.
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(uri: &str) -> Parts<'_> {
    let (rest, fragment) = match uri.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let scheme_end = rest.find(':').filter(|&i| {
        i > 0
            && rest[..i].starts_with(|c: char| c.is_ascii_alphabetic())
            && rest[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let (scheme, rest) = match scheme_end {
        Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// RFC 3986 §5.2: `reference` resolved against `base`. `None` when the base cannot take
/// a relative path (a URN given a relative path).
fn resolve(base: &str, reference: &str) -> Option<String> {
    let r = split(reference);
    let b = split(base);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        scheme = r.scheme;
        authority = r.authority;
        path = remove_dots(r.path);
        query = r.query;
    } else {
        scheme = b.scheme;
        if r.authority.is_some() {
            authority = r.authority;
            path = remove_dots(r.path);
            query = r.query;
        } else {
            authority = b.authority;
            if r.path.is_empty() {
                path = b.path.to_string();
                query = r.query.or(b.query);
            } else {
                if b.authority.is_none() && !b.path.starts_with('/') && !r.path.starts_with('/') {
                    // `urn:x` cannot take a relative path.
                    return None;
                }
                path = if r.path.starts_with('/') {
                    remove_dots(r.path)
                } else {
                    let merged = match (b.authority.is_some(), b.path.is_empty()) {
                        (true, true) => format!("/{}", r.path),
                        _ => match b.path.rfind('/') {
                            Some(i) => format!("{}{}", &b.path[..=i], r.path),
                            None => r.path.to_string(),
                        },
                    };
                    remove_dots(&merged)
                };
                query = r.query;
            }
        }
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment {
        out.push('#');
        out.push_str(f);
    }
    Some(out)
}

/// RFC 3986 §5.2.4.
fn remove_dots(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > usize::from(absolute) {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if absolute && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}
