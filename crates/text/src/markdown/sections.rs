//! A page body's sections, and the three-way merge that lets a person's edits survive a
//! model's rewrite section by section.
//!
//! A body divides into sections at its markdown headings (every level; headings inside code
//! blocks are text): the text before the first heading is a section of its own (the *top*),
//! and each heading starts one that runs to the next heading.
//!
//! [`merge_sections`] merges three versions of a body: `base` (the last version the model
//! wrote), `mine` (the person's current version) and `theirs` (the model's new version).
//! Sections are matched across versions by heading (slug, then order among equal slugs),
//! then, for a heading renamed on one side, by content. Then, for each section:
//!
//! - only the model changed it: the new text is taken;
//! - only the person changed it: the person's text is kept;
//! - both changed it: the two edits are merged line by line (a three-way text merge, as
//!   `git merge-file` does); a clean merge is taken, a conflict keeps the person's text and
//!   the model's becomes a [`SectionSuggestion`];
//! - the person added it: it stays where the person put it;
//! - the person deleted it: it stays deleted, whatever the model did to it;
//! - the model added it: it goes after the section it follows in the new version;
//! - the model dropped it: it is dropped, unless the person changed it (then it is kept).

use std::collections::HashMap;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};

use super::link::heading_slug;

/// One section of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section<'a> {
    /// The heading's text (`None` for the top: the text before the first heading).
    pub heading: Option<String>,
    /// The whole section as written: its heading line and what follows, up to the next
    /// heading.
    pub text: &'a str,
    /// What follows the heading (the whole text for the top).
    pub body: &'a str,
}

impl Section<'_> {
    /// The heading's text, or `""` for the top.
    pub fn name(&self) -> &str {
        self.heading.as_deref().unwrap_or("")
    }
}

/// The sections of `markdown`, in order. Empty text gives no section; text before the
/// first heading (blank lines aside) gives the top.
pub fn sections(markdown: &str) -> Vec<Section<'_>> {
    // Headings as (start of the heading, end of the heading, its text).
    let mut heads: Vec<(usize, usize, String)> = Vec::new();
    let mut current: Option<(usize, usize, String)> = None;
    for (event, range) in Parser::new_ext(markdown, super::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                current = Some((range.start, range.end, String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, _, h)) = current.as_mut() {
                    h.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(head) = current.take() {
                    heads.push(head);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(heads.len() + 1);
    // A heading nested in a list or quote starts inside its line: cut at line starts.
    let first = heads
        .first()
        .map_or(markdown.len(), |h| line_start(markdown, h.0));
    if !markdown[..first].trim().is_empty() {
        out.push(Section {
            heading: None,
            text: &markdown[..first],
            body: &markdown[..first],
        });
    }
    for (i, (start, end, heading)) in heads.iter().enumerate() {
        let start = line_start(markdown, *start);
        let next = heads
            .get(i + 1)
            .map_or(markdown.len(), |h| line_start(markdown, h.0));
        if next <= start {
            continue;
        }
        let end = (*end).clamp(start, next);
        out.push(Section {
            heading: Some(heading.trim().to_owned()),
            text: &markdown[start..next],
            body: &markdown[end..next],
        });
    }
    out
}

/// The start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The model's text for a section both sides changed, kept for the person to accept or
/// dismiss.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionSuggestion {
    /// The heading of the section as the person has it (`""` for the top).
    pub section: String,
    /// The model's whole section, heading line included.
    pub text: String,
}

/// The outcome of [`merge_sections`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionMerge {
    /// The merged body.
    pub body: String,
    /// Sections both sides changed whose edits conflict: the person's text is in `body`,
    /// the model's is here.
    pub suggestions: Vec<SectionSuggestion>,
    /// Sections whose person's text was kept over the model's change.
    pub kept: usize,
    /// Sections whose edits from both sides merged cleanly.
    pub merged: usize,
}

/// Merges `mine` (the person's version) and `theirs` (the model's new version) of a body
/// whose common ancestor is `base`, section by section (see the module documentation).
pub fn merge_sections(base: &str, mine: &str, theirs: &str) -> SectionMerge {
    if same(mine, base) {
        return SectionMerge {
            body: theirs.to_owned(),
            ..SectionMerge::default()
        };
    }
    if same(theirs, base) || same(mine, theirs) {
        return SectionMerge {
            body: mine.to_owned(),
            ..SectionMerge::default()
        };
    }
    let base_s = sections(base);
    let mine_s = sections(mine);
    let theirs_s = sections(theirs);
    let mine_to_base = match_to(&base_s, &mine_s);
    let theirs_to_base = match_to(&base_s, &theirs_s);
    let base_to_theirs: HashMap<usize, usize> = theirs_to_base
        .iter()
        .enumerate()
        .filter_map(|(t, b)| b.map(|b| (b, t)))
        .collect();
    let kept_bases: Vec<usize> = mine_to_base.iter().flatten().copied().collect();

    // Sections the model added, by the matched section they follow (`None`: the start).
    let mut added: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut after: Option<usize> = None;
    for (t, b) in theirs_to_base.iter().enumerate() {
        match b {
            Some(b) if kept_bases.contains(b) => after = Some(*b),
            Some(_) => {}
            None => added.entry(after).or_default().push(t),
        }
    }

    let mut merge = SectionMerge::default();
    let mut parts: Vec<String> = Vec::new();
    let mut push_added = |parts: &mut Vec<String>, key: Option<usize>| {
        for t in added.remove(&key).unwrap_or_default() {
            parts.push(theirs_s[t].text.to_owned());
        }
    };
    // A model's section before every matched one goes first, after the person's top.
    let top_first = mine_s.first().is_some_and(|s| s.heading.is_none());
    if !top_first {
        push_added(&mut parts, None);
    }
    for (m, section) in mine_s.iter().enumerate() {
        let Some(b) = mine_to_base[m] else {
            parts.push(section.text.to_owned());
            if m == 0 && top_first {
                push_added(&mut parts, None);
            }
            continue;
        };
        let base_text = base_s[b].text;
        match base_to_theirs.get(&b).map(|&t| theirs_s[t].text) {
            // The model dropped it: so does the merge, unless the person changed it.
            None => {
                if !same(section.text, base_text) {
                    parts.push(section.text.to_owned());
                    merge.kept += 1;
                }
            }
            Some(new) if same(section.text, base_text) => parts.push(new.to_owned()),
            Some(new) if same(new, base_text) || same(new, section.text) => {
                parts.push(section.text.to_owned());
            }
            Some(new) => match diffy::merge(
                &ends_line(base_text),
                &ends_line(section.text),
                &ends_line(new),
            ) {
                Ok(clean) => {
                    parts.push(clean);
                    merge.merged += 1;
                }
                Err(_) => {
                    parts.push(section.text.to_owned());
                    merge.kept += 1;
                    merge.suggestions.push(SectionSuggestion {
                        section: section.name().to_owned(),
                        text: new.trim_end().to_owned(),
                    });
                }
            },
        }
        if m == 0 && top_first {
            push_added(&mut parts, None);
        }
        push_added(&mut parts, Some(b));
    }
    // Sections the model added after sections the person deleted or never had.
    let mut rest: Vec<(Option<usize>, Vec<usize>)> = added.into_iter().collect();
    rest.sort();
    for (_, ts) in rest {
        for t in ts {
            parts.push(theirs_s[t].text.to_owned());
        }
    }
    merge.body = join(&parts);
    merge
}

/// Whether two texts are the same but for trailing whitespace.
fn same(a: &str, b: &str) -> bool {
    a.trim_end() == b.trim_end()
}

/// `text` ending with one newline (a line merge compares whole lines).
fn ends_line(text: &str) -> String {
    let mut text = text.trim_end().to_owned();
    text.push('\n');
    text
}

/// Sections joined with one blank line between them.
fn join(parts: &[String]) -> String {
    let mut body = String::new();
    for part in parts {
        let part = part.trim_end();
        if part.trim().is_empty() {
            continue;
        }
        if !body.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(part);
    }
    body.push('\n');
    body
}

/// For each section of `other`, the section of `base` it is (by heading, then by content
/// for a renamed heading); `None` for a section `base` lacks.
fn match_to(base: &[Section<'_>], other: &[Section<'_>]) -> Vec<Option<usize>> {
    let keys = |list: &[Section<'_>]| -> Vec<String> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        list.iter()
            .map(|s| {
                let slug = s
                    .heading
                    .as_deref()
                    .map_or_else(String::new, |h| format!("#{}", heading_slug(h)));
                let n = seen.entry(slug.clone()).or_default();
                *n += 1;
                format!("{slug}/{n}")
            })
            .collect()
    };
    let base_keys = keys(base);
    let other_keys = keys(other);
    let mut taken = vec![false; base.len()];
    let mut out = vec![None; other.len()];
    for (o, key) in other_keys.iter().enumerate() {
        if let Some(b) = base_keys.iter().position(|k| k == key) {
            if !taken[b] {
                taken[b] = true;
                out[o] = Some(b);
            }
        }
    }
    // Renamed headings: the unmatched pairs most alike, alike enough.
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (o, section) in other.iter().enumerate() {
        if out[o].is_some() || section.heading.is_none() {
            continue;
        }
        for (b, base_section) in base.iter().enumerate() {
            if taken[b] || base_section.heading.is_none() {
                continue;
            }
            let score = likeness(base_section.body, section.body);
            if score >= 0.5 {
                pairs.push((score, o, b));
            }
        }
    }
    pairs.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    for (_, o, b) in pairs {
        if out[o].is_none() && !taken[b] {
            taken[b] = true;
            out[o] = Some(b);
        }
    }
    out
}

/// How alike two section bodies are: the share of their non-blank lines (trimmed) they
/// have in common, over the larger count (1 when both are empty).
fn likeness(a: &str, b: &str) -> f64 {
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (a, b) = (lines(a), lines(b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut rest = b.clone();
    let mut common = 0;
    for line in &a {
        if let Some(i) = rest.iter().position(|l| l == line) {
            rest.swap_remove(i);
            common += 1;
        }
    }
    common as f64 / a.len().max(b.len()) as f64
}

#[cfg(test)]
#[path = "sections_tests.rs"]
mod tests;
