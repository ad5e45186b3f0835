//! The backfills this build runs after a wiki opens: data changes that need today's rules
//! (see [`crate::store::Store::backfill_cursor`] for the bookkeeping). Each is versioned:
//! raising a version runs it again from the start on every wiki; each works in batches, so
//! an interrupted run picks up where it stopped.
//!
//! - `reground-digest-claims` and `reground-page-claims` (version 1): claims shown grounded
//!   are checked again by the current grounding rule (an ellipsis quote's pieces of three
//!   words or more, in order, near each other) against the sources that held them; one no
//!   source holds is shown `inferred`, its quote kept. Saved answers' claims, grounded
//!   against the page they cite, are not read.
//! - `note-metadata` (version 1): what the markdown reader says of each source is derived
//!   again: a markdown file's own title (front matter `title`, first H1, file name), and the
//!   tags and aliases of markdown files and pasted text; aliases become names of the page
//!   the source's title names. Web pages and other files are left as they are.
//! - `names` (version 1): names written with link syntax (`Core plugins|core plugin`,
//!   `Topic#Heading`) in link targets, concepts, aliases and page titles are reduced to the
//!   name they give (the markdown reader's link rule); names that are no names (`{`,
//!   `1:16`, `photo.jpg`) are dropped; a page whose title now names another page is merged
//!   into it (the one merge operation, `crate::store::Store::merge_pages`), and a page
//!   whose title is no name is removed, its digests and their claims kept. A source's own
//!   title is always a name. Version 2 brings the clause and six-word rules (a run of a
//!   sentence, `The textbook pressure is nine bars`, is no name); a name some source writes
//!   as a link is its author's and only the rules on form apply to it.
//! - `citations-digest-claims` and `citations-page-claims` (version 1): where the quote of
//!   each claim shown grounded stands in the sources that hold it (its citations: byte
//!   range, quote with context, page, heading path) is recorded, as a compile records it
//!   now. A quote that cannot be placed is counted and named in the notice; every claim and
//!   source is kept.
//! - `pdf-pages` (version 1): a PDF file stored by a build before pages were kept is read
//!   again from its path; where it reads as the text stored, its pages are recorded and its
//!   citations anchored again, so they say their page. A file gone or changed is named in
//!   the notice (ingesting it again gives its citations pages). In batches of a few PDFs.
//! - `citations-prune` (version 1): the citations of quotes no claim cites any more (a
//!   page rewritten without the claim, a claim no longer grounded) go; older builds kept them
//!   until the source's digest was saved again. In batches of sources.
//! - `note-identity` (version 1): a note is itself. Pages that held notes merged only by a
//!   shared file name (`a/Index.md` and `b/Index.md` on one `Index` page) are split: the
//!   page keeps its id, history and the person's work with the note whose title that tells
//!   it apart is shortest (`a/Index`; ties: byte order), its old title staying a name of it;
//!   each other note gets a page of its own, marked stale so the next compile writes it;
//!   the history says so. Nothing is deleted and no model is called
//!   ([`crate::identity::settle_titles`], in transactions of a few hundred notes).
//! - `note-titles` and `note-title-pages` (version 1): the own titles older builds stored
//!   for plain text files (now their standalone first line), folders' index notes
//!   (`README.md`, `index.md`, `_index.md`: now their folder's name) and the pages of a
//!   Notion export (`Title <32 hex>.md`: now without the id) are read again, in batches of
//!   sources (`note-titles`); then each such note whose digest goes by another title takes
//!   its own (`note-title-pages`, [`crate::identity::retitle_older_titles`]): its page keeps
//!   its id, history and the person's work under the new title, the old title staying a
//!   name of it; a note that only shared a page by another title (a text file digested
//!   under the model's title) gets a page of its own, marked stale. No model is called.
//! - `page-sentences` (version: the rule's, [`wikimind_text::prose::SENTENCES_RULE`]): the
//!   sentences and characters of every page's body are counted, as a write counts them now,
//!   so lint's thin check reads the counts instead of the bodies. Until it is done, the
//!   bodies not yet counted are read as before. Nothing a person sees changes.

use crate::compile::ground::SourceIndexes;
use crate::store::{ClaimTable, Result, SourceKind, SourceMetadata, SourceRow, Store};

/// The backfill that derives own titles, tags and aliases again, and its version.
const NOTE_METADATA: (&str, u32) = ("note-metadata", 1);

/// The backfill that brings names to today's rules, and its version.
const NAMES: (&str, u32) = ("names", 2);

/// The backfill that reads again the own titles older builds stored for plain text files,
/// index notes and Notion pages, and the one that gives their pages those titles.
const NOTE_TITLES: (&str, u32) = ("note-titles", 1);
const NOTE_TITLE_PAGES: (&str, u32) = ("note-title-pages", 1);

/// The backfill that gives notes merged by a shared file name pages of their own.
const NOTE_IDENTITY: (&str, u32) = ("note-identity", 1);

/// The backfill that counts the sentences of every page's body, and its version (the
/// rule's: a new rule counts again).
const PAGE_SENTENCES: (&str, u32) = ("page-sentences", wikimind_text::prose::SENTENCES_RULE);

/// How many pages one batch of [`PAGE_SENTENCES`] counts.
const PAGE_SENTENCES_BATCH: usize = 2_000;

/// How many claims one batch (one transaction) checks.
const BATCH: usize = 500;

/// Every backfill of this build: name, version, the claims it checks.
const REGROUND: &[(&str, u32, ClaimTable)] = &[
    ("reground-digest-claims", 1, ClaimTable::Digest),
    ("reground-page-claims", 1, ClaimTable::Page),
];

/// The backfills that record where each grounded claim's quote stands in its sources
/// (its citations): name, version, the claims they read.
const CITATIONS: &[(&str, u32, ClaimTable)] = &[
    ("citations-digest-claims", 1, ClaimTable::Digest),
    ("citations-page-claims", 1, ClaimTable::Page),
];

/// The backfill that lets go of citations no claim cites any more (older builds kept them
/// until the source's digest was saved again), and its version.
const CITATIONS_PRUNE: (&str, u32) = ("citations-prune", 1);

/// The backfill that reads again the pages of PDFs an older build stored without them,
/// and its version.
const PDF_PAGES: (&str, u32) = ("pdf-pages", 1);

/// How many PDFs one batch of [`PDF_PAGES`] reads (each may take a second or more).
const PDF_BATCH: usize = 8;

/// The largest PDF [`PDF_PAGES`] reads again.
const PDF_PAGES_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// How many quotes that cannot be placed a citations backfill names in its notice.
const UNPLACED_NAMED: usize = 3;

/// A citations backfill: the claims shown grounded, in batches, each quote placed in the
/// sources that hold it (the rules are `wikimind_text::anchor`'s, applied by the store). A
/// quote it cannot place is counted and named in the notice; its claim is kept as it is.
fn citations(
    store: &Store,
    name: &'static str,
    version: u32,
    table: ClaimTable,
) -> Result<BackfillReport> {
    let mut report = BackfillReport::new(name);
    let mut unplaced: Vec<String> = Vec::new();
    let mut unplaced_count = 0;
    while let Some(from) = store.backfill_cursor(name, version)? {
        let claims = store.grounded_claims_after(table, from, BATCH)?;
        let to = claims.last().map_or(from, |c| c.id);
        let done = claims.len() < BATCH;
        if let Some(batch) =
            store.record_citation_batch(name, version, (from, to), &claims, done)?
        {
            report.checked += claims.len();
            report.changed += batch.placed;
            unplaced_count += batch.unplaced.len();
            for quote in batch.unplaced {
                if unplaced.len() < UNPLACED_NAMED {
                    unplaced.push(quote);
                }
            }
        }
    }
    if report.changed > 0 || unplaced_count > 0 {
        let mut detail = format!(
            "recorded where the quotes of {} of {} grounded claims stand in their sources",
            report.changed, report.checked
        );
        if unplaced_count > 0 {
            let named: Vec<String> = unplaced.iter().map(|q| format!("{q:?}")).collect();
            detail.push_str(&format!(
                "; {unplaced_count} could not be placed (the claims are kept as they are; \
                 `wikimind lint --check ungrounded` lists those no longer grounded): {}{}",
                named.join(", "),
                if unplaced_count > named.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        report.detail = Some(detail);
    }
    Ok(report)
}

/// The citations backfill that lets go of what no claim cites any more, in batches of
/// sources.
fn prune_citations(store: &Store) -> Result<BackfillReport> {
    let (name, version) = CITATIONS_PRUNE;
    let mut report = BackfillReport::new(name);
    while let Some(from) = store.backfill_cursor(name, version)? {
        let sources = store.cited_sources_after(from, BATCH)?;
        let to = sources.last().map_or(from, |s| s.0);
        let done = sources.len() < BATCH;
        if let Some(gone) =
            store.record_citation_prune_batch(name, version, (from, to), &sources, done)?
        {
            report.checked += sources.len();
            report.changed += gone;
        }
    }
    if report.changed > 0 {
        report.detail = Some(format!(
            "let go of {} citations no claim cites any more, in {} sources",
            report.changed, report.checked
        ));
    }
    Ok(report)
}

/// The backfill that counts the sentences of every page's body by today's rule, in
/// batches of pages. It has nothing to tell a person.
fn page_sentences(store: &Store) -> Result<BackfillReport> {
    let (name, version) = PAGE_SENTENCES;
    let mut report = BackfillReport::new(name);
    while let Some(batch) = store.count_sentences_batch(name, version, PAGE_SENTENCES_BATCH)? {
        report.checked += batch.looked;
    }
    Ok(report)
}

/// The backfill that gives PDFs stored without their pages (by builds before pages were
/// kept) their pages: each file still at its path is read again, and where what it reads
/// is the text stored, its pages are recorded and its citations say their page. A file
/// gone, changed since, or unreadable is counted and named; nothing is dropped.
fn pdf_pages(store: &Store) -> Result<BackfillReport> {
    let (name, version) = PDF_PAGES;
    let mut report = BackfillReport::new(name);
    // The PDFs whose pages could not be read as stored: how many, and the first few named.
    let mut left: Vec<String> = Vec::new();
    let mut left_count = 0;
    while let Some(from) = store.backfill_cursor(name, version)? {
        let sources = store.pageless_pdfs_after(from, PDF_BATCH)?;
        let looked = sources.len();
        let to = sources.last().map_or(from, |s| s.id.0);
        let done = looked < PDF_BATCH;
        let mut read = Vec::new();
        let mut unread = Vec::new();
        for source in sources {
            match pages_again(&source) {
                Ok(pages) => read.push((source, pages)),
                Err(why) => unread.push(format!("{} ({why})", source.origin)),
            }
        }
        // Another process recording the same batch first is fine: the loop reads the
        // cursor again.
        if let Some(recorded) = store.record_pages_batch(name, version, (from, to), &read, done)? {
            report.checked += looked;
            report.changed += recorded;
            // Read, but its text changed between the reading and the batch.
            left_count += unread.len() + (read.len() - recorded);
            left.extend(unread);
        }
    }
    left.truncate(UNPLACED_NAMED);
    if report.changed > 0 || left_count > 0 {
        let mut detail = format!(
            "read the pages of {} PDFs stored without them; their citations say their page",
            report.changed
        );
        if left_count > 0 {
            detail.push_str(&format!(
                "; {left_count} could not be read as stored (ingest them again to give their \
                 citations pages): {}{}",
                left.join(", "),
                if left_count > left.len() { ", …" } else { "" }
            ));
        }
        report.detail = Some(detail);
    }
    Ok(report)
}

/// The pages of a PDF stored without them, read again from its file: an error saying why
/// when the file is gone, cannot be read, or no longer reads as the text stored.
fn pages_again(
    source: &crate::store::PagelessPdf,
) -> std::result::Result<Vec<crate::store::SourcePage>, String> {
    let path = std::path::Path::new(&source.origin);
    let gone = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => "the file is gone".to_owned(),
        _ => format!("the file cannot be read: {e}"),
    };
    // Read whole into memory, so bounded (a file may have grown since it was ingested).
    if std::fs::metadata(path).map_err(gone)?.len() > PDF_PAGES_MAX_BYTES {
        return Err(format!(
            "the file is now larger than {} MB",
            PDF_PAGES_MAX_BYTES / (1024 * 1024)
        ));
    }
    let bytes = std::fs::read(path).map_err(gone)?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let document = wikimind_documents::pdf::read_pdf(
        &bytes,
        stem.as_deref(),
        &wikimind_documents::Limits::default(),
    )
    .map_err(|e| e.to_string())?;
    if document.text != source.text {
        return Err("the file changed since it was read".to_owned());
    }
    Ok(document
        .pages
        .into_iter()
        .map(|p| crate::store::SourcePage {
            number: p.number,
            label: p.label,
            start: p.start,
            end: p.end,
        })
        .collect())
}

/// What one backfill did in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackfillReport {
    /// The backfill's name.
    pub name: &'static str,
    /// The rows it checked in this run.
    pub checked: usize,
    /// The claims it no longer shows as grounded.
    pub downgraded: usize,
    /// The rows it changed otherwise (sources given another title, tags or aliases).
    pub changed: usize,
    /// What it changed, for a person, when a count says too little.
    pub detail: Option<String>,
}

impl BackfillReport {
    /// The report of `name` before it did anything.
    fn new(name: &'static str) -> BackfillReport {
        BackfillReport {
            name,
            checked: 0,
            downgraded: 0,
            changed: 0,
            detail: None,
        }
    }

    /// The line a shell shows for this run, when it changed anything a person would notice.
    pub fn notice(&self) -> Option<String> {
        if self.downgraded > 0 {
            return Some(format!(
                "{}: checked {} claims again; {} no longer ground and are shown inferred",
                self.name, self.checked, self.downgraded
            ));
        }
        if let Some(detail) = &self.detail {
            return Some(format!("{}: {detail}", self.name));
        }
        (self.changed > 0).then(|| {
            format!(
                "{}: read {} sources again; {} got another title, tags or aliases",
                self.name, self.checked, self.changed
            )
        })
    }
}

/// Every backfill of this build, by name and version: what [`pending`] asks the store about.
fn every_backfill() -> Vec<(&'static str, u32)> {
    let mut all: Vec<(&'static str, u32)> = REGROUND
        .iter()
        .chain(CITATIONS)
        .map(|&(name, version, _)| (name, version))
        .collect();
    all.extend([
        PDF_PAGES,
        CITATIONS_PRUNE,
        NOTE_METADATA,
        NOTE_TITLES,
        NOTE_TITLE_PAGES,
        NAMES,
        NOTE_IDENTITY,
        PAGE_SENTENCES,
    ]);
    all
}

/// Whether a backfill of this build has work left on this wiki (one the wiki never ran, or
/// one an earlier run left half done): what a shell asks before it decides to bring the
/// data up to date in the background.
pub fn pending(store: &Store) -> Result<bool> {
    for (name, version) in every_backfill() {
        if store.backfill_cursor(name, version)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Runs every pending backfill to its end; reports the ones that checked anything.
pub fn run_backfills(store: &Store) -> Result<Vec<BackfillReport>> {
    let mut reports = Vec::new();
    for &(name, version, table) in REGROUND {
        let mut report = BackfillReport::new(name);
        while let Some(from) = store.backfill_cursor(name, version)? {
            let claims = store.grounded_claims_after(table, from, BATCH)?;
            let mut indexes = SourceIndexes::new(store);
            let mut downgrade = Vec::new();
            for claim in &claims {
                if !indexes.holds(&claim.sources, &claim.quote) {
                    downgrade.push(claim.id);
                }
            }
            let to = claims.last().map_or(from, |c| c.id);
            let done = claims.len() < BATCH;
            // Another process recording the same batch first is fine: the loop reads
            // the cursor again.
            if store.record_reground_batch(name, version, table, (from, to), &downgrade, done)? {
                report.checked += claims.len();
                report.downgraded += downgrade.len();
            }
        }
        if report.checked > 0 {
            reports.push(report);
        }
    }
    // After the re-grounding: only claims still grounded are cited.
    for &(name, version, table) in CITATIONS {
        let report = citations(store, name, version, table)?;
        if report.checked > 0 {
            reports.push(report);
        }
    }
    let report = pdf_pages(store)?;
    if report.checked > 0 {
        reports.push(report);
    }
    let report = prune_citations(store)?;
    if report.checked > 0 {
        reports.push(report);
    }
    let report = note_metadata(store)?;
    if report.checked > 0 {
        reports.push(report);
    }
    if let Some(report) = note_titles(store)? {
        reports.push(report);
    }
    // After the metadata: own titles (which are always names) are today's.
    if store.backfill_cursor(NAMES.0, NAMES.1)?.is_some() {
        let written = written_links(store)?;
        let is_name = |n: &str| {
            let key = wikimind_text::key::topic_key(n);
            if written.contains(&key) {
                wikimind_text::name_rule::not_a_written_name(n).is_none()
            } else {
                wikimind_text::name_rule::not_a_name(n).is_none()
            }
        };
        let rules = crate::store::NameRules {
            reduce: &wikimind_text::markdown::reduce_name,
            is_name: &is_name,
        };
        if let Some(cleanup) =
            store.clean_names(NAMES.0, NAMES.1, &rules, crate::store::DEFAULT_MIN_SOURCES)?
        {
            let pages = store.page_counts()?.pages;
            let mut report = BackfillReport::new(NAMES.0);
            report.checked = pages as usize;
            report.changed = cleanup.total();
            if cleanup.total() > 0 {
                report.detail = Some(format!(
                    "{} names fixed, {} dropped; {} pages retitled, {} merged, {} removed, {} flagged",
                    cleanup.names_fixed,
                    cleanup.names_dropped,
                    cleanup.pages_retitled,
                    cleanup.pages_merged,
                    cleanup.pages_removed,
                    cleanup.pages_flagged
                ));
            }
            reports.push(report);
        }
    }
    // After the names: titles are today's, so a shared name is found as today's rules say.
    if store
        .backfill_cursor(NOTE_IDENTITY.0, NOTE_IDENTITY.1)?
        .is_some()
    {
        let done = crate::identity::settle_titles(store)?;
        store.finish_backfill(NOTE_IDENTITY.0, NOTE_IDENTITY.1)?;
        if done.notes > 0 {
            let mut report = BackfillReport::new(NOTE_IDENTITY.0);
            report.checked = done.notes;
            report.changed = done.notes;
            let plural = |n: usize, one: &str, many: &str| {
                format!("{n} {}", if n == 1 { one } else { many })
            };
            report.detail = Some(format!(
                "{} that shared a name with notes of other folders go by titles that tell \
                 them apart; {} kept their id under such a title, {} got pages of their own \
                 (marked stale: the next compile writes them)",
                plural(done.notes, "note", "notes"),
                plural(done.pages_renamed, "page", "pages"),
                plural(done.notes_split, "note", "notes"),
            ));
            reports.push(report);
        }
    }
    let report = page_sentences(store)?;
    if report.checked > 0 {
        reports.push(report);
    }
    Ok(reports)
}

/// The keys of every link target the sources write (their authors' names), read in batches.
fn written_links(store: &Store) -> Result<std::collections::HashSet<String>> {
    let mut keys = std::collections::HashSet::new();
    let mut after = 0;
    loop {
        let sources = store.sources_after(after, BATCH)?;
        for source in &sources {
            for link in wikimind_text::markdown::wiki_links(&source.text) {
                keys.insert(wikimind_text::key::topic_key(&link.target));
            }
        }
        match sources.last() {
            Some(last) if sources.len() == BATCH => after = last.id.0,
            _ => return Ok(keys),
        }
    }
}

/// The `note-titles` and `note-title-pages` backfills (see the module documentation): the
/// report when either changed anything.
fn note_titles(store: &Store) -> Result<Option<BackfillReport>> {
    let (name, version) = NOTE_TITLES;
    let mut report = BackfillReport::new(name);
    while let Some(from) = store.backfill_cursor(name, version)? {
        let sources = store.sources_after(from, BATCH)?;
        let rows: Vec<SourceMetadata> = sources
            .iter()
            .filter(|s| {
                s.kind == SourceKind::File && crate::identity::titled_by_older_rules(&s.origin)
            })
            .filter_map(|s| {
                let meta =
                    crate::ingest::text_file_metadata(std::path::Path::new(&s.origin), &s.text)?;
                Some(SourceMetadata {
                    source: s.id,
                    title: meta.title,
                    tags: meta.tags,
                    aliases: meta.aliases,
                })
            })
            .collect();
        let to = sources.last().map_or(from, |s| s.id.0);
        let done = sources.len() < BATCH;
        if let Some(changed) =
            store.record_metadata_batch(name, version, (from, to), &rows, done)?
        {
            report.checked += sources.len();
            report.changed += changed;
        }
    }
    // After the titles: the notes whose digest goes by another title take theirs.
    let (pages, pages_version) = NOTE_TITLE_PAGES;
    if store.backfill_cursor(pages, pages_version)?.is_none() {
        return Ok((report.changed > 0).then_some(report));
    }
    let done = crate::identity::retitle_older_titles(store)?;
    store.finish_backfill(pages, pages_version)?;
    if report.changed == 0 && done.notes == 0 {
        return Ok(None);
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let titles = report.changed;
    report.checked = report.checked.max(done.notes);
    report.changed = report.changed.max(done.notes);
    let pages = if done.notes == 0 {
        "every page already went by them".to_owned()
    } else {
        format!(
            "{} went by another title and now go by their own: {} kept their id under it \
             (the old title still opens them), {} got pages of their own (marked stale: the \
             next compile writes them)",
            plural(done.notes, "note", "notes"),
            plural(done.pages_renamed, "page", "pages"),
            plural(done.notes_split, "note", "notes"),
        )
    };
    report.detail = Some(format!(
        "{} of plain text, folder index and Notion notes read again by today's rules; {pages}",
        plural(titles, "title", "titles"),
    ));
    Ok(Some(report))
}

/// The `note-metadata` backfill (see the module documentation).
fn note_metadata(store: &Store) -> Result<BackfillReport> {
    let (name, version) = NOTE_METADATA;
    let mut report = BackfillReport::new(name);
    while let Some(from) = store.backfill_cursor(name, version)? {
        let sources = store.sources_after(from, BATCH)?;
        let rows: Vec<SourceMetadata> = sources.iter().filter_map(metadata_of).collect();
        let to = sources.last().map_or(from, |s| s.id.0);
        let done = sources.len() < BATCH;
        if let Some(changed) =
            store.record_metadata_batch(name, version, (from, to), &rows, done)?
        {
            report.checked += sources.len();
            report.changed += changed;
        }
    }
    Ok(report)
}

/// What the markdown reader says of `source` today: `None` for sources it does not read
/// (web pages, plain text and HTML files).
fn metadata_of(source: &SourceRow) -> Option<SourceMetadata> {
    let (title, stem) = match source.kind {
        SourceKind::File => {
            let path = std::path::Path::new(&source.origin);
            let markdown = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown")
            });
            if !markdown {
                return None;
            }
            (
                true,
                path.file_stem().map(|s| s.to_string_lossy().into_owned()),
            )
        }
        // A pasted text's title may be the one a person gave: it is kept.
        SourceKind::Text | SourceKind::Stdin => (false, None),
        _ => return None,
    };
    let note = wikimind_text::markdown::read_note(&source.text, stem.as_deref());
    Some(SourceMetadata {
        source: source.id,
        title: if title { note.title } else { None },
        tags: note.tags,
        aliases: note.aliases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wiki that never ran them has every backfill pending; once they ran, none, and
    /// what `pending` asks about is what the run records (no backfill of the run is left
    /// out of it, or a window would start its queue while one still had work).
    #[test]
    fn pending_names_every_backfill_the_run_records() {
        let store = Store::open_in_memory().unwrap();
        assert!(pending(&store).unwrap(), "a fresh wiki has not run them");
        run_backfills(&store).unwrap();
        assert!(!pending(&store).unwrap());
        let mut recorded = store.backfills_done().unwrap();
        recorded.sort();
        let mut listed: Vec<(String, u32)> = every_backfill()
            .into_iter()
            .map(|(name, version)| (name.to_owned(), version))
            .collect();
        listed.sort();
        assert_eq!(recorded, listed);
    }
}
