//! The checks themselves: one function per [`Check`], each SQL over the store (through its
//! read queries) and rules from the leaf crate, returning findings.

use super::*;

pub(super) fn broken_links(store: &Store, unresolved: &[UnresolvedLink]) -> Result<Vec<Finding>> {
    let mut found = Vec::new();
    // Links to a section or block a page does not have.
    let bodies = store.bodies_with_anchored_links()?;
    let mut anchored = Vec::new();
    for page in &bodies {
        for link in wiki_links(&page.body) {
            if let Some(anchor) = link.anchor {
                anchored.push((page, page_key(&link.target), link.target, anchor));
            }
        }
    }
    let keys: HashSet<String> = anchored.iter().map(|(_, k, _, _)| k.clone()).collect();
    let targets = store.bodies_by_key(&keys)?;
    let mut offered = HashMap::new();
    let mut seen = HashSet::new();
    for (page, key, target, anchor) in anchored {
        // A link to no page at all is a wanted page (or, written by a person, below).
        let Some(to) = targets.get(&key) else {
            continue;
        };
        let anchors = offered
            .entry(to.id)
            .or_insert_with(|| body_anchors(&to.body));
        if anchors.has(&anchor) {
            continue;
        }
        let (missing, slug) = match &anchor {
            Anchor::Heading(h) => ("section", wikimind_text::markdown::heading_slug(h)),
            Anchor::Block(b) => ("block", format!("^{b}")),
        };
        let about = format!("{}\n{}\n{slug}", page.key, to.key);
        if !seen.insert(about.clone()) {
            continue;
        }
        let written = anchor.written();
        found.push(finding(
            Check::BrokenLink,
            about,
            vec![page.title.clone(), to.title.clone()],
            format!(
                "{:?} links to [[{target}#{written}]], but {:?} has no such {}",
                page.title,
                to.title,
                if missing == "block" {
                    "block"
                } else {
                    "heading"
                }
            ),
            Detail::BrokenLink {
                target,
                anchor: Some(written),
                missing,
            },
            None,
        ));
    }
    // Links a person wrote to a page that has gone.
    for link in unresolved.iter().filter(|l| l.by_person) {
        let about = format!("{}\n{}\n", page_key(&link.page_title), link.target_key);
        found.push(finding(
            Check::BrokenLink,
            about,
            vec![link.page_title.clone()],
            format!(
                "{:?} (written by you) links to {:?}, which no page answers to any more",
                link.page_title, link.target_title
            ),
            Detail::BrokenLink {
                target: link.target_title.clone(),
                anchor: None,
                missing: "page",
            },
            None,
        ));
    }
    Ok(found)
}

pub(super) fn wanted(store: &Store, unresolved: &[UnresolvedLink]) -> Result<Vec<Finding>> {
    // target key -> (first spelling, linking pages in order)
    let mut by_key: BTreeMap<&str, (&str, Vec<&str>)> = BTreeMap::new();
    for link in unresolved.iter().filter(|l| !l.by_person) {
        let entry = by_key
            .entry(&link.target_key)
            .or_insert_with(|| (&link.target_title, Vec::new()));
        // Links come by page, so a page repeats only right after itself.
        if entry.1.last() != Some(&link.page_title.as_str()) {
            entry.1.push(&link.page_title);
        }
    }
    let keys: Vec<String> = by_key.keys().map(|k| (*k).to_owned()).collect();
    let mut naming = store.sources_naming(&keys, WANTED_SOURCES)?;
    let mut found: Vec<Finding> = by_key
        .into_iter()
        .map(|(key, (target, pages))| {
            let linked_from = pages.len() as u32;
            let sources = naming
                .remove(key)
                .unwrap_or_default()
                .into_iter()
                .map(|(id, origin)| SourceRef { id, origin })
                .collect::<Vec<_>>();
            finding(
                Check::Wanted,
                key.to_owned(),
                pages
                    .into_iter()
                    .take(WANTED_PAGES)
                    .map(str::to_owned)
                    .collect(),
                format!(
                    "{target:?} is wanted: {linked_from} page(s) link to it, {} source(s) name it",
                    sources.len()
                ),
                Detail::Wanted {
                    target: target.to_owned(),
                    linked_from,
                    sources,
                },
                None,
            )
        })
        .collect();
    found.sort_by(|a, b| {
        let n = |f: &Finding| match f.detail {
            Detail::Wanted { linked_from, .. } => linked_from,
            _ => 0,
        };
        n(b).cmp(&n(a))
    });
    Ok(found)
}

pub(super) fn orphans(orphans: &[crate::store::LintPage], pages: u64) -> (Vec<Finding>, u64) {
    let count = orphans.len() as u64;
    let share = if pages == 0 {
        0.0
    } else {
        count as f64 / pages as f64
    };
    if pages >= ORPHAN_SUMMARY_FROM && share > ORPHAN_SHARE {
        let found = finding(
            Check::Orphan,
            "the wiki barely links".to_owned(),
            Vec::new(),
            format!(
                "{count} of {pages} pages ({:.1}%) have no link to them: the wiki barely \
                 links (not listed one by one)",
                share * 100.0
            ),
            Detail::Orphan {
                share,
                orphans: count,
                listed: false,
            },
            None,
        );
        return (vec![found], count);
    }
    let found = orphans
        .iter()
        .map(|page| {
            finding(
                Check::Orphan,
                page.key.clone(),
                vec![page.title.clone()],
                format!("no page links to {:?}", page.title),
                Detail::Orphan {
                    share,
                    orphans: count,
                    listed: true,
                },
                None,
            )
        })
        .collect();
    (found, count)
}

/// Where a file source's origin is on disk (`None` for an origin that is not a plain path).
fn origin_path(origin: &str) -> Option<&Path> {
    (!origin.starts_with(crate::ingest::BYTES_ORIGIN_PREFIX)).then(|| Path::new(origin))
}

pub(super) fn stale(wiki: &Wiki) -> Result<Vec<Finding>> {
    let store = wiki.store();
    let mut found = Vec::new();
    let mut stale_sources = HashSet::new();
    let source_finding = |reason: StaleReason, id: SourceId, origin: &str, hash: &str| {
        let (message, fix) = match reason {
            StaleReason::ChangedOnDisk => (
                format!("{origin} changed on disk since it was read"),
                Some(SafeFix::Reread {
                    source: id,
                    path: origin.to_owned(),
                }),
            ),
            StaleReason::MissingOnDisk => (
                format!("{origin} is gone from disk (remove it with `wikimind rm {id}`)"),
                None,
            ),
            _ => (
                format!("{origin} was ingested again with other text since its digest was made"),
                Some(SafeFix::SourceQueued),
            ),
        };
        finding(
            Check::Stale,
            format!("{origin}\n{hash}"),
            Vec::new(),
            message,
            Detail::Stale {
                reason,
                source: Some(SourceRef {
                    id,
                    origin: origin.to_owned(),
                }),
                detail: None,
            },
            fix,
        )
    };
    for source in store.file_sources()? {
        let Some(path) = origin_path(&source.origin) else {
            continue;
        };
        let metadata = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                found.push(source_finding(
                    StaleReason::MissingOnDisk,
                    source.id,
                    &source.origin,
                    &source.content_hash,
                ));
                stale_sources.insert(source.id);
                continue;
            }
        };
        let now = FileStamp::of(&metadata);
        let unchanged = matches!(
            (now, source.file_size, source.file_mtime_ns),
            (Some(now), Some(size), Some(mtime)) if now.size == size && now.mtime_ns == mtime
        );
        if unchanged {
            continue;
        }
        // Size or time differ (or were never recorded): read it as ingest would.
        let text_now = crate::ingest::ingest_path(path, wiki.ingest_options())
            .ok()
            .and_then(|report| report.sources.into_iter().next())
            .map(|s| content_hash(&s.text));
        if text_now.as_deref() != Some(source.content_hash.as_str()) {
            found.push(source_finding(
                StaleReason::ChangedOnDisk,
                source.id,
                &source.origin,
                &source.content_hash,
            ));
            stale_sources.insert(source.id);
        }
    }
    for source in store.reingested_sources()? {
        if stale_sources.contains(&source.id) {
            continue;
        }
        found.push(source_finding(
            StaleReason::Reingested,
            source.id,
            &source.origin,
            &source.content_hash,
        ));
    }
    for page in store.pages_behind()? {
        found.push(finding(
            Check::Stale,
            page.key.clone(),
            vec![page.title.clone()],
            format!(
                "{:?} is behind its digests ({}){}",
                page.title,
                page.reason,
                if page.queued {
                    "; a write is queued"
                } else {
                    ""
                }
            ),
            Detail::Stale {
                reason: StaleReason::PageBehind,
                source: None,
                detail: Some(page.reason),
            },
            Some(SafeFix::QueuePage(page.id)),
        ));
    }
    Ok(found)
}

pub(super) fn ungrounded(store: &Store) -> Result<Vec<Finding>> {
    let mut indexes = crate::compile::ground::SourceIndexes::new(store);
    // A quote whose citation was lost when its source changed (re-anchoring found it
    // nowhere) is not held by that source, whatever a looser match says.
    let lost: HashSet<(SourceId, String)> = store.lost_citations()?.into_iter().collect();
    let mut found = Vec::new();
    for claim in store.claims_to_recheck()? {
        let holding: Vec<SourceId> = claim
            .sources
            .iter()
            .copied()
            .filter(|s| !lost.contains(&(*s, claim.quote.clone())))
            .collect();
        if indexes.holds(&holding, &claim.quote) {
            continue;
        }
        let on = match claim.table {
            ClaimTable::Page => "page",
            ClaimTable::Digest => "digest",
        };
        found.push(finding(
            Check::Ungrounded,
            format!("{on}\n{}\n{}\n{}", claim.page_key, claim.claim, claim.quote),
            vec![claim.page_title.clone()],
            format!(
                "a claim of {:?} quotes text its sources no longer hold: {:?}",
                claim.page_title, claim.quote
            ),
            Detail::Ungrounded {
                claim: claim.claim,
                quote: claim.quote,
                on,
                source_ids: claim.sources,
            },
            Some(SafeFix::Downgrade {
                table: claim.table,
                claim: claim.id,
            }),
        ));
    }
    Ok(found)
}

pub(super) fn duplicates(store: &Store) -> Result<Vec<Finding>> {
    let pages = store.lint_pages()?;
    let by_id: HashMap<PageId, &crate::store::TopicName> =
        pages.iter().map(|p| (p.id, p)).collect();
    let mut pairs: BTreeMap<(PageId, PageId), Likeness> = BTreeMap::new();
    let mut propose = |a: PageId, b: PageId, why: Likeness| {
        if a != b {
            let pair = (a.min(b), a.max(b));
            pairs
                .entry(pair)
                .and_modify(|w| *w = (*w).min(why))
                .or_insert(why);
        }
    };
    // Each way two pages can share a key, as (key, page) sorted: the pages of one key are
    // a run, its first page the lowest id (sorting beats a map of sets at 100,000 pages).
    let mut by_name: Vec<(String, PageId)> = pages.iter().map(|p| (p.key.clone(), p.id)).collect();
    for name in store.page_names()? {
        let key = name.key.unwrap_or_else(|| page_key(&name.name));
        by_name.push((key, name.page_id));
    }
    let mut by_order = Vec::new();
    let mut by_stem = Vec::with_capacity(pages.len());
    let mut by_initials = Vec::new();
    for page in &pages {
        if let Some(words) = names::sorted_words(&page.key) {
            by_order.push((words, page.id));
        }
        by_stem.push((names::stemmed(&page.key), page.id));
        if let Some(initials) = names::initials(&page.title) {
            by_initials.push((initials, page.id));
        }
    }
    for (keyed, why) in [
        (&mut by_name, Likeness::SharedName),
        (&mut by_order, Likeness::WordOrder),
        (&mut by_stem, Likeness::CommonStem),
        (&mut by_initials, Likeness::Acronym),
    ] {
        keyed.sort_unstable();
        keyed.dedup();
        if why == Likeness::Acronym {
            continue;
        }
        for run in keyed.chunk_by(|a, b| a.0 == b.0) {
            for other in &run[1..] {
                propose(run[0].1, other.1, why);
            }
        }
    }
    for page in &pages {
        if let Some(acronym) = names::acronym(&page.title) {
            let from = by_initials.partition_point(|(k, _)| *k < acronym);
            for (_, other) in by_initials[from..]
                .iter()
                .take_while(|(k, _)| *k == acronym)
            {
                propose(page.id, *other, Likeness::Acronym);
            }
        }
    }
    let paired: BTreeSet<PageId> = pairs.keys().flat_map(|&(a, b)| [a, b]).collect();
    let sources = store.sources_feeding(&paired.into_iter().collect::<Vec<_>>())?;
    let sources_of = |id: PageId| sources.get(&id).copied().unwrap_or(0);
    let mut found = Vec::new();
    for ((a, b), why) in pairs {
        let (Some(a), Some(b)) = (by_id.get(&a), by_id.get(&b)) else {
            continue;
        };
        // The survivor: more sources; on a tie the expansion of an acronym, else the
        // older page (ids only grow).
        let b_first = match sources_of(b.id).cmp(&sources_of(a.id)) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                why == Likeness::Acronym && names::acronym(&a.title).is_some()
            }
        };
        let (survivor, absorbed) = if b_first { (b, a) } else { (a, b) };
        let mut keys = [a.key.as_str(), b.key.as_str()];
        keys.sort_unstable();
        found.push(finding(
            Check::Duplicate,
            keys.join("\n"),
            vec![survivor.title.clone(), absorbed.title.clone()],
            format!(
                "{:?} and {:?} look like one topic ({}): merge them, or dismiss the proposal",
                survivor.title,
                absorbed.title,
                why.describe()
            ),
            Detail::Duplicate {
                survivor: survivor.title.clone(),
                absorbed: absorbed.title.clone(),
                reason: why,
                accept: format!(
                    "wikimind merge {} {}",
                    shell_word(&survivor.title),
                    shell_word(&absorbed.title)
                ),
            },
            None,
        ));
    }
    Ok(found)
}

/// `text` quoted for a POSIX shell.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

pub(super) fn thin(store: &Store) -> Result<Vec<Finding>> {
    let found = store
        .thin_pages(THIN_READ_BELOW, THIN_SENTENCES)?
        .into_iter()
        .map(|page| {
            finding(
                Check::Thin,
                page.key,
                vec![page.title.clone()],
                format!(
                    "{:?} is thin: {} claim(s), {} sentence(s)",
                    page.title, page.claims, page.sentences
                ),
                Detail::Thin {
                    claims: page.claims,
                    sentences: page.sentences,
                },
                None,
            )
        })
        .collect();
    Ok(found)
}

/// How many candidates an `ambiguous_link` finding names at most.
const AMBIGUOUS_CANDIDATES: usize = 10;

/// Each note's link by a bare name that several notes of its root share as their title
/// (one finding per note and name): it goes where [`crate::identity::NoteIndex::resolve`]
/// sends it, which may not be the note meant. Reads only notes that link, in wikis where
/// notes share a title.
pub(super) fn ambiguous_links(store: &Store) -> Result<Vec<Finding>> {
    let index = crate::identity::NoteIndex::of(store)?;
    if index.notes().iter().all(|n| !n.told_apart()) {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for note in index.notes() {
        let Some(text) = store.source_text(note.id)? else {
            continue;
        };
        let mut seen = std::collections::HashSet::new();
        let mut names: Vec<String> = Vec::new();
        if text.contains("[[") {
            names.extend(
                crate::identity::body_links(&text)
                    .into_iter()
                    .filter(|l| l.folder.is_none())
                    .map(|l| l.target),
            );
        }
        if text.contains("](") || text.contains("]:") {
            use wikimind_text::markdown::{markdown_links, Destination};
            names.extend(
                markdown_links(&text, &note.path)
                    .into_iter()
                    .filter_map(|l| match l.destination {
                        Destination::Note { written, .. } if !written.contains('/') => {
                            Some(crate::identity::file_stem(&written))
                        }
                        _ => None,
                    }),
            );
        }
        for target in names {
            let sharing = index.sharing(&target, Some(&note.root));
            if sharing.len() < 2 || !seen.insert(page_key(&target)) {
                continue;
            }
            let Some(resolved) = index.resolve(Some(note.id), None, &target) else {
                continue;
            };
            let mut candidates: Vec<String> = vec![resolved.title.clone()];
            candidates.extend(
                sharing
                    .iter()
                    .filter(|n| n.id != resolved.id)
                    .map(|n| n.title.clone()),
            );
            candidates.truncate(AMBIGUOUS_CANDIDATES);
            let page = note
                .digest_title
                .clone()
                .unwrap_or_else(|| note.title.clone());
            found.push(finding(
                Check::AmbiguousLink,
                format!("{}\n{}", note.path, page_key(&target)),
                vec![page],
                format!(
                    "{target:?} in {} names {} notes; it goes to {:?} (write the path to \
                     choose, e.g. [[{}]])",
                    note.path,
                    sharing.len(),
                    resolved.title,
                    resolved.title
                ),
                Detail::AmbiguousLink {
                    target,
                    source: SourceRef {
                        id: note.id,
                        origin: format!("{}/{}", note.root, note.path),
                    },
                    resolved: resolved.title.clone(),
                    candidates,
                    notes: sharing.len(),
                },
                None,
            ));
        }
    }
    Ok(found)
}
