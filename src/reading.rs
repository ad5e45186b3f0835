//! What a shell shows when a person reads the wiki: the items of the page list, a page
//! with its sources, a source's digest, the source list and a page's history.
//!
//! These are the JSON contracts of `wikimind list`, `show`, `sources` and `history` (see
//! `docs/cli.md`); shells print them as they are, or walk them for people.
//! Everything here is built from the store by [`Wiki`](crate::wiki::Wiki) methods.

use serde::{Deserialize, Serialize};

use crate::contract::CheckedClaim;
use crate::store::{
    ArticleId, AuthorKind, Citation, ClaimCounts, ClaimLeft, PageClaim, PageId, PageKind,
    PageVersionInfo, PersonChange, SourceId, SourceKind, SourceStatus,
};

/// A page as it is listed: one row of `list --json`, of MCP's `list_pages` and of the
/// window's library (the one shape of a listed page; [`Wiki::page_list`] builds it).
///
/// [`Wiki::page_list`]: crate::wiki::Wiki::page_list
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ListedPage {
    /// Its id.
    pub id: PageId,
    /// What it is (`topic`).
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// Its summary as stored (markdown: wiki links as written).
    pub summary: String,
    /// How many sources' digests feed it.
    pub source_count: u32,
    /// Whether it waits to be rewritten from all its digests.
    pub stale: bool,
    /// When its current version was written (UTC, ISO-8601).
    pub updated_at: String,
    /// Its claims by confidence.
    pub claims: ClaimCounts,
    /// The tags of the sources whose topic it is.
    pub tags: Vec<String>,
    /// Why it is marked: a topic page's refused rewrite, or a saved answer's claims that
    /// did not ground in the pages they cite (`null`: not marked).
    pub flagged: Option<String>,
    /// The folder of the note this page is, relative to the folder it was ingested or
    /// watched from (`/`-separated, `src/Parser` for the page `Parser/constructor`), when
    /// the note shares its title with notes of other folders and goes by a title that tells
    /// it apart (see `docs/notes.md`, "A note is itself"); `null` for every other page.
    pub folder: Option<String>,
    /// Its summary as it reads: plain text, each wiki link as the text it shows
    /// (`[[T|shown]]` as `shown`, `[[T#H]]` as `T > H`).
    pub summary_text: String,
}

impl ListedPage {
    /// Whether it has `tag` ([`tags_have`]).
    pub fn has_tag(&self, tag: &str) -> bool {
        tags_have(&self.tags, tag)
    }
}

/// A tag as a person types or picks it, without the white space around it and a leading
/// `#`: what [`tags_have`] looks for and what a filter says it narrows to.
pub fn bare_tag(tag: &str) -> &str {
    tag.trim().trim_start_matches('#')
}

/// Whether a page with `tags` has `tag` (compared case-insensitively, as [`bare_tag`]
/// reads it; a tag `a/b` also has its parent `a`, as nested tags do in Obsidian). No page
/// has the empty tag.
pub fn tags_have(tags: &[String], tag: &str) -> bool {
    let wanted = bare_tag(tag).to_lowercase();
    !wanted.is_empty()
        && tags.iter().any(|t| {
            let t = t.to_lowercase();
            t == wanted || t.starts_with(&format!("{wanted}/"))
        })
}

/// Every tag of `tags` and every parent of a nested one (`coffee` of `coffee/tools`, which
/// [`tags_have`] finds on every `coffee/…` page), each once in its first spelling, sorted
/// case-insensitively: the tags a person can narrow a list of pages to.
pub fn tag_choices<'a>(tags: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut seen = std::collections::HashMap::new();
    for tag in tags {
        let mut end = 0;
        for part in tag.split('/') {
            end += part.len();
            let parent = &tag[..end];
            end += 1;
            if !parent.is_empty() {
                seen.entry(parent.to_lowercase())
                    .or_insert_with(|| parent.to_owned());
            }
        }
    }
    let mut choices: Vec<(String, String)> = seen.into_iter().collect();
    choices.sort();
    choices.into_iter().map(|(_, tag)| tag).collect()
}

/// A claim as `show` shows it: the claim, and where its quote stands in its sources
/// (`citations`, one per matched piece of the quote in each source that holds it; empty for
/// a claim without a quote that grounds). It reads as the claim it wraps (`Deref`); in
/// JSON its keys are the claim's and `citations`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitedClaim<C> {
    /// The claim.
    #[serde(flatten)]
    pub of: C,
    /// Where its quote stands: source, byte range into the source's stored text, page,
    /// page label, heading path and the quoted text.
    pub citations: Vec<Citation>,
}

impl<C> std::ops::Deref for CitedClaim<C> {
    type Target = C;

    fn deref(&self) -> &C {
        &self.of
    }
}

impl<C> CitedClaim<C> {
    /// `claim` with no citations.
    pub fn uncited(claim: C) -> CitedClaim<C> {
        CitedClaim {
            of: claim,
            citations: Vec::new(),
        }
    }
}

/// How a citation reads after a claim: `p. LABEL` (the printed label), else `p. PAGE`
/// (the physical page), else `§ Heading` (the innermost heading above the quote), else
/// nothing.
pub fn citation_place(citation: &Citation) -> Option<String> {
    if let Some(label) = citation
        .page_label
        .as_deref()
        .filter(|l| !l.trim().is_empty())
    {
        return Some(format!("p. {}", label.trim()));
    }
    if let Some(page) = citation.page {
        return Some(format!("p. {page}"));
    }
    citation
        .heading
        .last()
        .map(|h| format!("§ {}", crate::text::line::one_line(h)))
}

/// How a claim's citations read after it for people, one per place: `(title, p. LABEL)`,
/// else `(title, p. PAGE)`, else `(title, § Heading)`, `title` naming the source
/// (`title_of`); a citation with no page and no heading says nothing (the source list
/// names the source). Places repeated (the pieces of one quote on one page) read once.
pub fn cited_places(citations: &[Citation], title_of: impl Fn(SourceId) -> String) -> Vec<String> {
    let mut places: Vec<String> = Vec::new();
    for citation in citations {
        let Some(place) = citation_place(citation) else {
            continue;
        };
        let line = format!(
            "({}, {place})",
            crate::text::line::one_line(&title_of(citation.source_id))
        );
        if !places.contains(&line) {
            places.push(line);
        }
    }
    places
}

/// A link going out of a page or digest, resolved to a page now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownLink {
    /// The target as written.
    pub target: String,
    /// The page it resolves to; `None` is a wanted page.
    pub page_id: Option<PageId>,
    /// The same id as `page_id`, under the key scripts read before pages (page ids are the
    /// ids articles had).
    pub article_id: Option<PageId>,
    /// The sentence around the link.
    pub context: String,
}

/// A page that links to the one shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownBacklink {
    /// The linking page.
    pub page_id: PageId,
    /// The same id, under the key scripts read before pages.
    pub article_id: PageId,
    /// Its title.
    pub title: String,
    /// The sentence around the link.
    pub context: String,
}

/// A source feeding the page shown, with its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownSource {
    /// The source.
    pub source_id: SourceId,
    /// Its origin (path, URL, `text:<hash>`).
    pub origin: String,
    /// For a web page that redirected, the URL it was finally read from (`null` otherwise).
    pub final_url: Option<String>,
    /// When its digest was compiled (UTC, ISO-8601).
    pub compiled_at: String,
    /// The provider that compiled its digest.
    pub provider: String,
    /// The model that compiled its digest.
    pub model: String,
    /// Its digest's title (several digests may share one).
    pub title: String,
    /// Its digest's summary.
    pub summary: String,
}

/// A page as `show` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShownPage {
    /// Its id.
    pub id: PageId,
    /// What it is (`topic`).
    pub kind: PageKind,
    /// Its title.
    pub title: String,
    /// Its other names: spellings its digests used, and titles it had before.
    pub aliases: Vec<String>,
    /// The tags of the sources whose topic it is.
    pub tags: Vec<String>,
    /// Its summary.
    pub summary: String,
    /// Its claims, each with the sources whose text holds its quote (`source_ids`) and
    /// where it stands in them (`citations`).
    pub key_claims: Vec<CitedClaim<PageClaim>>,
    /// Its concepts.
    pub concepts: Vec<String>,
    /// The questions its sources leave open.
    pub open_questions: Vec<String>,
    /// Links going out, resolved now.
    pub links: Vec<ShownLink>,
    /// Pages linking here.
    pub backlinks: Vec<ShownBacklink>,
    /// Its body (markdown with `[[wiki links]]`).
    pub article_body: String,
    /// The sources feeding it, oldest digest first.
    pub sources: Vec<ShownSource>,
    /// Whether a digest feeding it was written from an answer that was cut off.
    pub truncated: bool,
    /// The number of its current version.
    pub version: u32,
    /// Why it waits to be rewritten from all its digests (`null`: it is current).
    pub stale_reason: Option<String>,
    /// Why its last rewrite was refused and the previous version kept (`null`: fine).
    pub flagged: Option<String>,
    /// The model's texts for sections a person edited whose edits conflict, waiting to be
    /// accepted or dismissed.
    pub suggestions: Vec<crate::store::Suggestion>,
}

impl ShownPage {
    /// Whether it waits to be rewritten from all its digests.
    pub fn is_stale(&self) -> bool {
        self.stale_reason.is_some()
    }

    /// The title a citation names source `id` by: its digest's title, else `#id`.
    pub fn source_title(&self, id: SourceId) -> String {
        self.sources
            .iter()
            .find(|s| s.source_id == id)
            .map_or_else(|| format!("#{id}"), |s| s.title.clone())
    }

    /// How claim `i`'s citations read after it ([`cited_places`]).
    pub fn cited_places(&self, i: usize) -> Vec<String> {
        self.key_claims.get(i).map_or_else(Vec::new, |c| {
            cited_places(&c.citations, |id| self.source_title(id))
        })
    }
}

/// A page named by title and id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageRef {
    /// Its id.
    pub id: PageId,
    /// Its title.
    pub title: String,
}

/// A source's digest as `show --source` shows it: what that one source says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShownDigest {
    /// Always `digest`.
    pub kind: &'static str,
    /// The digest's id (its article id).
    pub id: ArticleId,
    /// The source it digests.
    pub source_id: SourceId,
    /// The source's origin.
    pub origin: String,
    /// For a web page that redirected, the URL it was finally read from.
    pub final_url: Option<String>,
    /// Its title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Its claims as checked against the source, each with where its quote stands in it
    /// (`citations`).
    pub key_claims: Vec<CitedClaim<CheckedClaim>>,
    /// Its concepts.
    pub concepts: Vec<String>,
    /// The questions the source leaves open.
    pub open_questions: Vec<String>,
    /// Its links, resolved to pages now.
    pub links: Vec<ShownLink>,
    /// Its body (markdown with `[[wiki links]]`).
    pub article_body: String,
    /// Whether it was written from an answer that was cut off.
    pub truncated: bool,
    /// When it was compiled (UTC, ISO-8601).
    pub compiled_at: String,
    /// The provider that compiled it.
    pub provider: String,
    /// The model that compiled it.
    pub model: String,
    /// The pages it feeds, by title.
    pub pages: Vec<PageRef>,
}

impl ShownDigest {
    /// How claim `i`'s citations read after it ([`cited_places`]), the source named by the
    /// digest's title.
    pub fn cited_places(&self, i: usize) -> Vec<String> {
        self.key_claims.get(i).map_or_else(Vec::new, |c| {
            cited_places(&c.citations, |_| self.title.clone())
        })
    }
}

/// A source as `sources` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedSource {
    /// Its id.
    pub id: SourceId,
    /// Its identity (path, URL, `text:<hash>`).
    pub origin: String,
    /// Where it came from.
    pub kind: SourceKind,
    /// The title hint given at ingest.
    pub title: Option<String>,
    /// Its status.
    pub status: SourceStatus,
    /// Why the last compile failed, when `status` is `failed`.
    pub reason: Option<String>,
    /// The titles of the pages its digest feeds (empty before it compiles).
    pub pages: Vec<String>,
    /// When its text or status last changed (UTC, ISO-8601).
    pub updated_at: String,
    /// For a web page that redirected, the URL it was finally read from (`null` otherwise).
    pub final_url: Option<String>,
    /// Its tags (a note's front matter `tags` and inline `#tags`).
    pub tags: Vec<String>,
    /// Other names it gives its topic (a note's front matter `aliases`).
    pub aliases: Vec<String>,
    /// For a file, the folder it was ingested or watched from.
    pub root: Option<String>,
    /// For a file, its path relative to its root (`Parser/constructor.md`).
    pub path: Option<String>,
    /// For a note that shares its title with other notes of its root, the title that tells
    /// it apart (`Parser/constructor`); `null` otherwise.
    pub told_apart_as: Option<String>,
}

/// One version of a page as it is listed: a row of `history --json` and of the window's
/// history panel (the one shape of a listed version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ListedVersion {
    /// Its number (1 for the first).
    pub version: u32,
    /// The title it showed.
    pub title: String,
    /// When it was written (UTC, ISO-8601).
    pub created_at: String,
    /// Who wrote it, for people: `provider:model` for a model, `you` for a person.
    pub author: String,
    /// Who wrote it: `model` or `person`.
    pub author_kind: AuthorKind,
    /// The provider, when a model wrote it.
    pub provider: Option<String>,
    /// The model, when a model wrote it.
    pub model: Option<String>,
    /// The version it copies, when it is a restore.
    pub restored_from: Option<u32>,
    /// What a person's version did: `edited`, `kept` (the person's work kept over a
    /// model's rewrite), `merged`, `accepted`, `claim_added`, `claim_removed`, `renamed`,
    /// `reverted`, `restored`; `null` for a model's version and for a person's version
    /// older than the record.
    pub change: Option<PersonChange>,
    /// The claims that left the page when the model wrote this version because the page
    /// was full, and why (each stays in its source's digest and in search); empty for
    /// every other version.
    pub claims_left: Vec<ClaimLeft>,
    /// Who wrote it, as every shell says it ([`ListedVersion::author_label`]: `you
    /// (restored version 1)`, `ollama:llama3.2`).
    pub label: String,
}

impl ListedVersion {
    /// Who wrote it, as every shell shows it: `provider:model`, or `you` with what the
    /// version did (`you (edited)`, `your work kept over the rewrite`, `you (restored
    /// version 1)`, …). The one home of this label (the CLI's `history` and the app's
    /// history panel).
    pub fn author_label(&self) -> String {
        if self.author_kind == AuthorKind::Model {
            return self.author.clone();
        }
        let from = self.restored_from;
        match (self.change, from) {
            (Some(PersonChange::Kept), _) => "your work, kept over the rewrite".to_owned(),
            (Some(PersonChange::Merged), _) => "you (merged a page into it)".to_owned(),
            (Some(PersonChange::Edited), _) => "you (edited)".to_owned(),
            (Some(PersonChange::Accepted), _) => "you (accepted a suggestion)".to_owned(),
            (Some(PersonChange::ClaimAdded), _) => "you (added a claim)".to_owned(),
            (Some(PersonChange::ClaimRemoved), _) => "you (removed a claim)".to_owned(),
            (Some(PersonChange::Renamed), _) => "you (renamed it)".to_owned(),
            (Some(PersonChange::Split), _) => {
                "WikiMind (notes that only shared its name got pages of their own)".to_owned()
            }
            (Some(PersonChange::Reverted), Some(v)) => {
                format!("you (back to compiled version {v})")
            }
            (_, Some(v)) => format!("you (restored version {v})"),
            _ => self.author.clone(),
        }
    }
}

impl From<PageVersionInfo> for ListedVersion {
    fn from(info: PageVersionInfo) -> ListedVersion {
        let author = match info.author_kind {
            AuthorKind::Person => "you".to_owned(),
            AuthorKind::Model => format!(
                "{}:{}",
                info.provider.as_deref().unwrap_or("?"),
                info.model.as_deref().unwrap_or("?")
            ),
        };
        let mut listed = ListedVersion {
            version: info.version,
            title: info.title,
            created_at: info.created_at,
            author,
            author_kind: info.author_kind,
            provider: info.provider,
            model: info.model,
            restored_from: info.restored_from,
            change: info.change,
            claims_left: info.claims_left,
            label: String::new(),
        };
        listed.label = listed.author_label();
        listed
    }
}

/// What `restore` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// The page.
    pub page_id: PageId,
    /// Its title now.
    pub title: String,
    /// The version copied.
    pub restored_from: u32,
    /// The new version it made.
    pub version: u32,
}

/// How many pages a window of the page list holds when the caller does not say.
pub const PAGE_WINDOW_DEFAULT: usize = 50;

/// The most pages one window of the page list holds: a caller asking for more gets this
/// many (and the offset of the next window).
pub const PAGE_WINDOW_MAX: usize = 500;

/// A window of the page list, by title (see [`Wiki::page_window`](crate::wiki::Wiki::page_window)):
/// what a reader that cannot take a whole large wiki at once is given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageWindow {
    /// How many pages the wiki has.
    pub total: usize,
    /// Where the window starts in the list (0 for the first page).
    pub offset: usize,
    /// How many pages the window may hold: the limit asked for, at most
    /// [`PAGE_WINDOW_MAX`].
    pub limit: usize,
    /// Whether the limit asked for was more than [`PAGE_WINDOW_MAX`] and was lowered.
    pub capped: bool,
    /// The pages in the window, by title.
    pub pages: Vec<ListedPage>,
    /// Where the next window starts (`null`: this one reaches the end of the list).
    pub next_offset: Option<usize>,
}

impl PageWindow {
    /// The window of `list` (every page, by title) starting at `offset` and holding at most
    /// `limit` pages ([`PAGE_WINDOW_DEFAULT`] when `None`, never more than
    /// [`PAGE_WINDOW_MAX`]). An offset past the end gives an empty window.
    pub fn of(list: Vec<ListedPage>, offset: usize, limit: Option<usize>) -> PageWindow {
        match PageWindow::listing(list, offset, limit, Ok::<_, std::convert::Infallible>) {
            Ok(window) => window,
        }
    }

    /// [`PageWindow::of`] over a list of anything in page order, `list_them` turning only
    /// the part in the window into listed pages: what it costs to list a page is paid for
    /// the window, not the wiki.
    pub fn listing<T, E>(
        list: Vec<T>,
        offset: usize,
        limit: Option<usize>,
        list_them: impl FnOnce(Vec<T>) -> Result<Vec<ListedPage>, E>,
    ) -> Result<PageWindow, E> {
        let asked = limit.unwrap_or(PAGE_WINDOW_DEFAULT);
        let limit = asked.min(PAGE_WINDOW_MAX);
        let total = list.len();
        let pages = list_them(list.into_iter().skip(offset).take(limit).collect())?;
        let end = offset.saturating_add(pages.len());
        Ok(PageWindow {
            total,
            offset,
            limit,
            capped: asked > limit,
            next_offset: (end < total && !pages.is_empty()).then_some(end),
            pages,
        })
    }
}

/// What a person notices first of a wiki's digests, counted over every compiled source:
/// claims shown sourced (their quote found in the source), quotes shown "not found",
/// claims that are not a repeat of another claim of the same digest, and digests titled
/// as their source is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DigestFigures {
    /// Compiled sources counted.
    pub digests: usize,
    /// Their claims.
    pub claims: usize,
    /// Claims shown `sourced`: their quote was found in the source.
    pub sourced: usize,
    /// Claims whose quote was not found in the source (shown `inferred`, "quote not found").
    pub quotes_not_found: usize,
    /// Claims that say something no earlier claim of the same digest says (compared after
    /// folding case, whitespace, quotes and dashes).
    pub distinct: usize,
    /// Digests whose title is their source's own title (compared ignoring case).
    pub own_titles: usize,
}

impl DigestFigures {
    /// Counts one digest of a source titled `source_title`.
    pub fn add(&mut self, source_title: Option<&str>, digest: &ShownDigest) {
        self.digests += 1;
        let mut seen = std::collections::HashSet::new();
        for c in &digest.key_claims {
            self.claims += 1;
            if c.confidence == crate::contract::Confidence::Sourced && c.grounded {
                self.sourced += 1;
            }
            if c.quote.is_some() && !c.grounded {
                self.quotes_not_found += 1;
            }
            if seen.insert(crate::compile::ground::normalise(c.claim.trim())) {
                self.distinct += 1;
            }
        }
        let own = source_title.map(str::trim).unwrap_or_default();
        if !own.is_empty() && digest.title.trim().to_lowercase() == own.to_lowercase() {
            self.own_titles += 1;
        }
    }

    /// One line for people: `12 notes, 60 claims: 48 sourced (quote found in the note), 0
    /// quotes not found, 55 distinct; 10 of 12 titles are the notes' own`.
    pub fn line(&self) -> String {
        format!(
            "{} notes, {} claims: {} sourced (quote found in the note), {} quotes not found, {} distinct; {} of {} titles are the notes' own",
            self.digests,
            self.claims,
            self.sourced,
            self.quotes_not_found,
            self.distinct,
            self.own_titles,
            self.digests
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Confidence;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| (*t).to_owned()).collect()
    }

    #[test]
    fn a_tag_is_found_in_any_case_with_or_without_hash_and_as_a_parent() {
        let espresso = tags(&["coffee", "method/pressure"]);
        assert!(tags_have(&espresso, "#METHOD"), "a parent of a nested tag");
        assert!(tags_have(&espresso, " method/Pressure "));
        assert!(tags_have(&tags(&["Drinks"]), "drinks"));
        assert!(
            !tags_have(&espresso, "meth"),
            "a prefix of a name is not its parent"
        );
        assert!(!tags_have(&espresso, ""), "no page has the empty tag");
        assert!(!tags_have(&espresso, "#"));
        assert_eq!(bare_tag("  ##gear "), "gear");
    }

    #[test]
    fn the_tag_choices_hold_every_parent_once_in_its_first_spelling() {
        let pages = [
            tags(&["coffee", "method/pressure"]),
            tags(&["Drinks"]),
            tags(&[]),
            tags(&["Coffee", "Method/Pressure/high"]),
        ];
        assert_eq!(
            tag_choices(pages.iter().flatten()),
            [
                "coffee",
                "Drinks",
                "method",
                "method/pressure",
                "Method/Pressure/high"
            ]
        );
    }

    fn claim(
        text: &str,
        confidence: Confidence,
        quote: Option<&str>,
        grounded: bool,
    ) -> CheckedClaim {
        CheckedClaim {
            claim: text.into(),
            confidence,
            quote: quote.map(str::to_owned),
            grounded,
        }
    }

    fn digest(title: &str, key_claims: Vec<CheckedClaim>) -> ShownDigest {
        ShownDigest {
            kind: "digest",
            id: crate::store::ArticleId(1),
            source_id: SourceId(1),
            origin: "notes/espresso.md".into(),
            final_url: None,
            title: title.into(),
            summary: String::new(),
            key_claims: key_claims.into_iter().map(CitedClaim::uncited).collect(),
            concepts: Vec::new(),
            open_questions: Vec::new(),
            links: Vec::new(),
            article_body: String::new(),
            truncated: false,
            compiled_at: String::new(),
            provider: String::new(),
            model: String::new(),
            pages: Vec::new(),
        }
    }

    #[test]
    fn figures_count_what_a_reader_sees() {
        let mut figures = DigestFigures::default();
        figures.add(
            Some("Espresso"),
            &digest(
                "espresso",
                vec![
                    claim("Nine bars.", Confidence::Sourced, Some("nine bars"), true),
                    claim("Nine  BARS.", Confidence::Inferred, Some("ten bars"), false),
                    claim("Crema.", Confidence::Inferred, None, false),
                ],
            ),
        );
        figures.add(Some("Tea"), &digest("Coffee", vec![]));
        assert_eq!(
            figures,
            DigestFigures {
                digests: 2,
                claims: 3,
                sourced: 1,
                quotes_not_found: 1,
                distinct: 2,
                own_titles: 1,
            }
        );
        assert_eq!(
            figures.line(),
            "2 notes, 3 claims: 1 sourced (quote found in the note), 1 quotes not found, 2 distinct; 1 of 2 titles are the notes' own"
        );
    }

    #[test]
    fn a_versions_author_reads_the_same_in_every_shell() {
        let info = |kind, restored_from, change| PageVersionInfo {
            version: 2,
            title: "T".into(),
            created_at: "2026-11-25T00:00:00Z".into(),
            author_kind: kind,
            provider: (kind == AuthorKind::Model).then(|| "ollama".into()),
            model: (kind == AuthorKind::Model).then(|| "llama3.2".into()),
            restored_from,
            change,
            claims_left: Vec::new(),
        };
        let label =
            |kind, from, change| ListedVersion::from(info(kind, from, change)).author_label();
        let person = |from, change| label(AuthorKind::Person, from, change);
        assert_eq!(person(None, None), "you", "a version older than the record");
        assert_eq!(
            person(Some(1), Some(PersonChange::Restored)),
            "you (restored version 1)"
        );
        assert_eq!(person(Some(1), None), "you (restored version 1)");
        assert_eq!(person(None, Some(PersonChange::Edited)), "you (edited)");
        assert_eq!(
            person(None, Some(PersonChange::Kept)),
            "your work, kept over the rewrite"
        );
        assert_eq!(
            person(Some(3), Some(PersonChange::Reverted)),
            "you (back to compiled version 3)"
        );
        assert_eq!(
            person(None, Some(PersonChange::Accepted)),
            "you (accepted a suggestion)"
        );
        assert_eq!(label(AuthorKind::Model, None, None), "ollama:llama3.2");
    }
}
