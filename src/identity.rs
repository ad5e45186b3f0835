//! A note is itself: the title each file note of the wiki goes by, and what a link to a
//! note means (see `docs/notes.md`, "A note is itself").
//!
//! A note is identified by its path relative to its root (the folder it was ingested or
//! watched from, stored with the source). Its page title is its own title; notes of one root
//! that share a title are told apart by the shortest folder path
//! ([`wikimind_text::identity::identity_titles`]). [`NoteIndex`] holds those titles for
//! every file source of the wiki, and resolves links: a link written as a path names the
//! note at that path; a bare name several notes share names the note beside the linking
//! note, else the shortest path, else the first in byte order.

use std::collections::HashMap;
use std::path::Path;

use wikimind_text::identity::{folder_of, identity_titles, pick_note, Note};
use wikimind_text::key::topic_key;
use wikimind_text::markdown::{rewrite_links, LinkRef, NotePaths};

use crate::store::{
    NewLink, NoteHead, NoteRetitle, Retitled, Source, SourceId, SourceKind, SourceSummary, Store,
    StoreError,
};

/// How many notes one transaction of [`settle_titles`] moves at most (a page's notes are
/// never split between two).
const SETTLE_BATCH: usize = 200;

/// Gives every compiled note the title it goes by now, in transactions of about
/// 200 notes (`SETTLE_BATCH`): a digest titled by a name its note shares with notes of other
/// folders (`constructor`) takes the title that tells it apart (`Parser/constructor`), and
/// one told apart that no longer shares its name takes its plain title again (see
/// [`Store::retitle_notes`]: pages keep their ids and the person's work, notes that only
/// shared a name get pages of their own, marked stale; no model is called). Run after
/// sources are added, moved or removed, and once on the wikis of older builds.
pub fn settle_titles(store: &Store) -> Result<Retitled, StoreError> {
    retitle_where(store, &|note, was| {
        let (now, own) = (topic_key(&note.title), topic_key(&note.own));
        let base = topic_key(
            note.digest_title
                .as_deref()
                .map_or("", |d| d.rsplit('/').next().unwrap_or(d)),
        );
        // Titled by its shared name (or by a title that told it apart before).
        was != now && (was == own || base == own)
    })
}

/// Gives the notes whose titles older builds stored by other rules — plain text files,
/// folders' index notes (`README.md`, `index.md`, `_index.md`) and the pages of a Notion
/// export (`Title <32 hex>.md`) — the title they go by now, when their digest goes by
/// another, as [`settle_titles`] moves notes (see [`Store::retitle_notes`]): a page keeps
/// its id, history and the person's work under the new title and its old title stays a
/// name of it; a note that shared a page by a title not its own gets a page of its own,
/// marked stale. The sources' own titles must be today's already. No model is called.
pub fn retitle_older_titles(store: &Store) -> Result<Retitled, StoreError> {
    retitle_where(store, &|note, was| {
        was != topic_key(&note.title) && titled_by_older_rules(&note.path)
    })
}

/// Whether the note at `path` is of a kind whose own title older builds stored by other
/// rules: a plain text file, a folder's index note, a page of a Notion export.
pub fn titled_by_older_rules(path: &str) -> bool {
    let file = Path::new(path);
    let Some(stem) = file.file_stem().and_then(|s| s.to_str()) else {
        return false;
    };
    let extension = file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match extension.as_str() {
        "txt" => true,
        "md" | "markdown" => {
            wikimind_text::markdown::is_index_file(stem)
                || wikimind_text::markdown::without_notion_id(stem) != stem
        }
        _ => false,
    }
}

/// Moves the compiled notes `select` picks (given the note and the topic key of its
/// digest's title) to the title each goes by now, by the page their digest's title names
/// (a page's notes move together), in transactions of about `SETTLE_BATCH` notes.
fn retitle_where(
    store: &Store,
    select: &dyn Fn(&IndexedNote, &str) -> bool,
) -> Result<Retitled, StoreError> {
    let index = NoteIndex::of(store)?;
    let mut by_digest: std::collections::BTreeMap<String, Vec<NoteRetitle>> = Default::default();
    for note in index.notes() {
        let Some(digest) = &note.digest_title else {
            continue;
        };
        let was = topic_key(digest);
        if select(note, &was) {
            by_digest.entry(was).or_default().push(NoteRetitle {
                source: note.id,
                title: note.title.clone(),
            });
        }
    }
    let mut done = Retitled::default();
    let mut batch: Vec<NoteRetitle> = Vec::new();
    for (_, notes) in by_digest {
        batch.extend(notes);
        if batch.len() >= SETTLE_BATCH {
            add(&mut done, store.retitle_notes(&batch)?);
            batch.clear();
        }
    }
    if !batch.is_empty() {
        add(&mut done, store.retitle_notes(&batch)?);
    }
    Ok(done)
}

fn add(total: &mut Retitled, one: Retitled) {
    total.notes += one.notes;
    total.pages_renamed += one.pages_renamed;
    total.notes_split += one.notes_split;
}

/// A file note as the index holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedNote {
    /// The source.
    pub id: SourceId,
    /// Its root (the folder it was ingested or watched from).
    pub root: String,
    /// Its path relative to the root, `/`-separated, with its extension.
    pub path: String,
    /// Its own title (front matter `title`, first H1, else its file name).
    pub own: String,
    /// The title it goes by: its own, or told apart from notes sharing it.
    pub title: String,
    /// The title of its digest, when it has one.
    pub digest_title: Option<String>,
    /// Its aliases (front matter `aliases`).
    pub aliases: Vec<String>,
}

impl IndexedNote {
    /// Whether it shares its own title with another note of its root and goes by a title
    /// that tells it apart.
    pub fn told_apart(&self) -> bool {
        self.title != self.own
    }

    /// Its folder relative to the root (empty at the root).
    pub fn folder(&self) -> &str {
        folder_of(&self.path)
    }
}

/// One of the notes a shared name may mean.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Candidate {
    /// The title it goes by (`Parser/constructor`).
    pub title: String,
    /// Its path relative to its root (`Parser/constructor.md`).
    pub path: String,
    /// Its source.
    pub source_id: SourceId,
    /// Its page, once compiled.
    pub page_id: Option<crate::store::PageId>,
}

/// The title each file note goes by, and the notes a link names.
#[derive(Debug, Clone, Default)]
pub struct NoteIndex {
    notes: Vec<IndexedNote>,
    by_id: HashMap<SourceId, usize>,
    /// The lookups over the notes' paths, by root; made when a path is first resolved
    /// (an index only listed never pays for them).
    paths: std::sync::OnceLock<HashMap<Option<String>, PathScope>>,
}

/// The notes of one root (or of every root) and the lookups over their paths: what a
/// link written as a path is resolved in, with no pass over every note per link.
#[derive(Debug, Clone, Default)]
struct PathScope {
    /// The notes, as places in [`NoteIndex::notes`], in order.
    notes: Vec<usize>,
    paths: NotePaths,
    /// The documents among them (PDF, EPUB, DOCX), likewise.
    documents: Vec<usize>,
    document_paths: NotePaths,
    /// The notes told apart from others sharing their name, by the topic key of their own
    /// title and of their file name, in order: what a bare name may mean.
    sharing: HashMap<String, Vec<usize>>,
    /// The first note going by each title, by its topic key; made when first asked.
    titled: std::sync::OnceLock<HashMap<String, usize>>,
}

impl PathScope {
    /// The scope of the notes at `members` (places in `notes`).
    fn new(notes: &[IndexedNote], members: Vec<usize>) -> PathScope {
        let documents: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| wikimind_text::markdown::link::is_document(&notes[i].path))
            .collect();
        let mut sharing: HashMap<String, Vec<usize>> = HashMap::new();
        for &i in members.iter().filter(|&&i| notes[i].told_apart()) {
            for key in [
                topic_key(&notes[i].own),
                topic_key(&file_stem(&notes[i].path)),
            ] {
                let places = sharing.entry(key).or_default();
                if places.last() != Some(&i) {
                    places.push(i);
                }
            }
        }
        PathScope {
            paths: NotePaths::new(members.iter().map(|&i| notes[i].path.as_str())),
            document_paths: NotePaths::new(documents.iter().map(|&i| notes[i].path.as_str())),
            notes: members,
            documents,
            sharing,
            titled: std::sync::OnceLock::new(),
        }
    }

    /// The first of these notes going by a title of topic key `key`.
    fn titled(&self, notes: &[IndexedNote], key: &str) -> Option<usize> {
        let titled = self.titled.get_or_init(|| {
            let mut titled = HashMap::new();
            for &i in &self.notes {
                titled.entry(topic_key(&notes[i].title)).or_insert(i);
            }
            titled
        });
        titled.get(key).copied()
    }
}

impl NoteIndex {
    /// The index of every file source of `store`.
    pub fn of(store: &Store) -> Result<NoteIndex, StoreError> {
        Ok(NoteIndex::from_notes(&store.note_sources()?))
    }

    /// The index of the file sources among `sources`.
    pub fn from_sources(sources: &[SourceSummary]) -> NoteIndex {
        let notes: Vec<NoteHead> = sources
            .iter()
            .filter(|s| s.kind == SourceKind::File)
            .map(NoteHead::from)
            .collect();
        NoteIndex::from_notes(&notes)
    }

    /// The index of `notes` (file sources).
    pub fn from_notes(heads: &[NoteHead]) -> NoteIndex {
        let mut notes: Vec<IndexedNote> = Vec::with_capacity(heads.len());
        for s in heads {
            let (root, path) = root_and_path(&s.origin, s.root.as_deref());
            let own = own_title(s.title.as_deref(), &s.origin);
            notes.push(IndexedNote {
                id: s.id,
                root,
                path,
                title: own.clone(),
                own,
                digest_title: s.article_title.clone(),
                aliases: s.aliases.clone(),
            });
        }
        let mut by_root: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, note) in notes.iter().enumerate() {
            by_root.entry(note.root.as_str()).or_default().push(i);
        }
        let mut titles: Vec<(usize, String)> = Vec::new();
        for members in by_root.values() {
            let these: Vec<Note<'_>> = members
                .iter()
                .map(|&i| Note {
                    path: &notes[i].path,
                    title: &notes[i].own,
                    aliases: &notes[i].aliases,
                })
                .collect();
            titles.extend(members.iter().copied().zip(identity_titles(&these)));
        }
        for (i, title) in titles {
            notes[i].title = title;
        }
        let by_id = notes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        NoteIndex {
            notes,
            by_id,
            paths: std::sync::OnceLock::new(),
        }
    }

    /// The notes of `root` (`None`: of every root) and the lookups over their paths.
    fn scope(&self, root: Option<&str>) -> &PathScope {
        static EMPTY: std::sync::OnceLock<PathScope> = std::sync::OnceLock::new();
        let scopes = self.paths.get_or_init(|| {
            let mut members: HashMap<Option<String>, Vec<usize>> = HashMap::new();
            for (i, note) in self.notes.iter().enumerate() {
                members.entry(Some(note.root.clone())).or_default().push(i);
            }
            members.insert(None, (0..self.notes.len()).collect());
            members
                .into_iter()
                .map(|(root, members)| (root, PathScope::new(&self.notes, members)))
                .collect()
        });
        scopes
            .get(&root.map(str::to_owned))
            .unwrap_or_else(|| EMPTY.get_or_init(PathScope::default))
    }

    /// The note of `root` (`None`: of any root) at the note path `path`, as a markdown
    /// link joined it onto the linking note's folder (`written` as the link wrote it), in
    /// Obsidian's order ([`wikimind_text::markdown::resolve_note`]).
    pub fn note_at(&self, root: Option<&str>, path: &str, written: &str) -> Option<&IndexedNote> {
        let scope = self.scope(root);
        let place = scope.paths.resolve(path, written)?;
        Some(&self.notes[scope.notes[place]])
    }

    /// Whether the index holds `source` as it is now: a file with the origin, root, own
    /// title and aliases the index was built with (any other kind of source: always).
    pub fn agrees(&self, source: &Source) -> bool {
        if source.kind != SourceKind::File {
            return true;
        }
        self.note(source.id).is_some_and(|note| {
            let (root, path) = root_and_path(&source.origin, source.root.as_deref());
            note.root == root
                && note.path == path
                && note.own == own_title(source.title.as_deref(), &source.origin)
                && note.aliases == source.aliases
        })
    }

    /// Every file note, oldest source first.
    pub fn notes(&self) -> &[IndexedNote] {
        &self.notes
    }

    /// The note of source `id`, when it is a file.
    pub fn note(&self, id: SourceId) -> Option<&IndexedNote> {
        self.by_id.get(&id).map(|&i| &self.notes[i])
    }

    /// The folder (relative to its root) of each note told apart from notes sharing its
    /// title, by the topic key of the title it goes by: what the library shows beside the
    /// page `Parser/constructor` (`src/Parser`). A note told apart by an alias at its root
    /// has no folder to show and is left out; when notes of several roots go by one title,
    /// the oldest source's folder is kept.
    pub fn told_apart_folders(&self) -> HashMap<String, String> {
        let mut folders = HashMap::new();
        for note in self.notes.iter().filter(|n| n.told_apart()) {
            let folder = note.folder();
            if !folder.is_empty() {
                folders
                    .entry(topic_key(&note.title))
                    .or_insert_with(|| folder.to_owned());
            }
        }
        folders
    }

    /// The note that goes by `title` (by topic key), if one does.
    pub fn note_titled(&self, title: &str) -> Option<&IndexedNote> {
        let key = topic_key(title);
        let scope = self.scope(None);
        scope.titled(&self.notes, &key).map(|i| &self.notes[i])
    }

    /// The notes of one root whose own title is `name` (by topic key) when several share
    /// it, each going by a title that tells it apart (none when at most one note has it).
    /// With `root` `None`, the notes of every root sharing that name in their root.
    pub fn sharing(&self, name: &str, root: Option<&str>) -> Vec<&IndexedNote> {
        let key = topic_key(name);
        if key.is_empty() {
            return Vec::new();
        }
        let mut found: Vec<&IndexedNote> = self
            .notes
            .iter()
            .filter(|n| {
                n.told_apart() && root.is_none_or(|r| n.root == r) && topic_key(&n.own) == key
            })
            .collect();
        // Only notes that share the name within their own root.
        let count = |root: &str| found.iter().filter(|n| n.root == root).count();
        let shared: Vec<bool> = found.iter().map(|n| count(&n.root) > 1).collect();
        let mut keep = shared.into_iter();
        found.retain(|_| keep.next().unwrap_or(false));
        found.sort_by(|a, b| a.path.len().cmp(&b.path.len()).then(a.path.cmp(&b.path)));
        found
    }

    /// The note a wiki link `[[folder/target]]` (or a link the model wrote, or a name it
    /// gave) names, written by the note `from` (`None`: by a page that is no one note's),
    /// when the link is written as a path or names a title several notes share. `None` when
    /// the name is for the wiki's names to resolve (a title, an alias, a topic).
    pub fn resolve(
        &self,
        from: Option<SourceId>,
        folder: Option<&str>,
        target: &str,
    ) -> Option<&IndexedNote> {
        let from = from.and_then(|id| self.note(id));
        let root = from.map(|n| n.root.as_str());
        let here = from.map(IndexedNote::folder);
        let target = target.trim();
        if target.is_empty() {
            return None;
        }
        let written = match folder.filter(|f| !f.is_empty()) {
            Some(folder) => format!("{}/{target}", folder.trim_matches('/')),
            None => target.to_owned(),
        };
        if folder.is_some() {
            // A path: the note at that path (relative to the root, or the one path that ends
            // with it), else the note going by that title.
            if let Some(found) = self.note_at(root, &written, &written) {
                return Some(found);
            }
            let key = topic_key(&written);
            let scope = self.scope(root);
            return scope.titled(&self.notes, &key).map(|i| &self.notes[i]);
        }
        // A bare name: the notes whose own title or file name it is, when several share it.
        let key = topic_key(target);
        let candidates: Vec<&IndexedNote> = match self.scope(root).sharing.get(&key) {
            Some(places) => places.iter().map(|&i| &self.notes[i]).collect(),
            None => return None,
        };
        let paths: Vec<&str> = candidates.iter().map(|n| n.path.as_str()).collect();
        let picked = pick_note(here, &paths)?;
        candidates.into_iter().find(|n| n.path == picked)
    }

    /// The document (PDF, EPUB, DOCX source of the wiki) a link to a document file names,
    /// written by the note `from`, among the documents of its root (a link from a page that
    /// is no one note's: of every root): by the same rules as a link to a note. A path — a
    /// markdown link's (`path` joined onto the linking note's folder, `written` as written),
    /// or a wiki link's folder and name — resolves in Obsidian's order
    /// ([`wikimind_text::markdown::resolve_note`]); a bare file name (`[[paper.pdf]]`)
    /// means the document in the linking note's folder, else the shortest path, else the
    /// first in byte order. `None` when the wiki holds no such document (the link is an
    /// attachment).
    pub fn document(
        &self,
        from: Option<SourceId>,
        path: &str,
        written: &str,
    ) -> Option<&IndexedNote> {
        let from = from.and_then(|id| self.note(id));
        let root = from.map(|n| n.root.as_str());
        let scope = self.scope(root);
        if scope.documents.is_empty() {
            return None;
        }
        if written.contains('/') {
            let place = scope.document_paths.resolve(path, written)?;
            return Some(&self.notes[scope.documents[place]]);
        }
        let documents: Vec<&IndexedNote> =
            scope.documents.iter().map(|&i| &self.notes[i]).collect();
        let paths: Vec<&str> = documents.iter().map(|n| n.path.as_str()).collect();
        let found = {
            // A bare file name, compared as a vault compares names (case aside).
            let name = written.trim().to_lowercase();
            let named: Vec<&str> = paths
                .iter()
                .copied()
                .filter(|p| p.rsplit('/').next().unwrap_or(p).to_lowercase() == name)
                .collect();
            pick_note(from.map(IndexedNote::folder), &named)?
        };
        documents.into_iter().find(|n| n.path == found)
    }

    /// The title a link or name resolves to when [`NoteIndex::resolve`] finds its note and
    /// the note goes by another title; else `None` (the name stays as written).
    pub fn relinked(
        &self,
        from: Option<SourceId>,
        folder: Option<&str>,
        target: &str,
    ) -> Option<String> {
        let note = self.resolve(from, folder, target)?;
        (topic_key(&note.title) != topic_key(target)).then(|| note.title.clone())
    }

    /// Rewrites what the digest or page `body` written for note `from` links by name, so
    /// that links to notes go to the note they name: each of `links` (the body's links in
    /// order, then other names such as backlink suggestions) and each of `names` (concepts)
    /// that is written as a path or is a name several notes share gets the title of the
    /// note it names; the body's links to such notes are written with that title, showing
    /// what they showed (`[[constructor]]` becomes `[[Parser/constructor|constructor]]`).
    /// Returns the body.
    pub fn relink(
        &self,
        from: Option<SourceId>,
        body: &str,
        links: &mut [NewLink],
        names: &mut [String],
    ) -> String {
        if self.notes.iter().all(|n| !n.told_apart()) && !body.contains('/') {
            return body.to_owned();
        }
        let body = rewrite_links(body, &|link: &LinkRef| self.rewritten(from, link));
        // The body's links in order, with the folder each was written with.
        let mut written: Vec<(String, Option<String>)> = body_links(&body)
            .into_iter()
            .map(|l| (l.target, l.folder))
            .collect();
        for link in links.iter_mut() {
            let key = topic_key(&link.target);
            let folder = written
                .iter()
                .position(|(t, _)| topic_key(t) == key)
                .and_then(|at| written.remove(at).1);
            if let Some(title) = self.relinked(from, folder.as_deref(), &link.target) {
                link.target = title;
            }
        }
        for name in names.iter_mut() {
            if let Some(title) = self.relinked(from, None, name) {
                *name = title;
            }
        }
        body
    }

    /// A body link to a note that goes by another title, written with that title.
    fn rewritten(&self, from: Option<SourceId>, link: &LinkRef) -> Option<String> {
        if !link.names_page() || link.attachment {
            return None;
        }
        let note = self.resolve(from, link.folder.as_deref(), &link.target)?;
        if link.folder.is_some() || !note.told_apart() {
            // A path keeps the form it was written in; the renderer reads paths.
            return None;
        }
        let named = LinkRef {
            target: note.title.clone(),
            folder: None,
            shown: Some(link.display()),
            ..link.clone()
        };
        Some(named.written())
    }
}

/// The wiki links of `markdown` to pages, in order, as the reader finds them (outside code
/// and markdown links), with the folder each was written with.
pub fn body_links(markdown: &str) -> Vec<LinkRef> {
    let found = std::cell::RefCell::new(Vec::new());
    rewrite_links(markdown, &|link: &LinkRef| {
        if link.names_page() && !link.attachment {
            found.borrow_mut().push(link.clone());
        }
        None
    });
    found.into_inner()
}

/// A file note's own title: its stored title, else its file name.
fn own_title(title: Option<&str>, origin: &str) -> String {
    title
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| file_stem(origin))
}

/// The wiki's [`NoteIndex`], built once and used again by every compile of a run (and of
/// the runs after it) while the wiki's sources stay the same: building it reads every
/// source, so building it for each compiled note made a compile of N notes cost N². It is
/// built again when a source was added or removed since (by any process:
/// [`Store::sources_stamp`]), and when the note being compiled is not in it as it is now
/// ([`NoteIndex::agrees`]: re-ingesting a note changes it in place, and marks it to be
/// compiled).
#[derive(Debug, Default)]
pub struct NoteCache {
    held: std::sync::Mutex<Option<HeldIndex>>,
}

/// An index as [`NoteCache`] holds it: with the stamp of the sources it was built from.
type HeldIndex = ((i64, i64), std::sync::Arc<NoteIndex>);

impl NoteCache {
    /// The index of `store` now (see the type's documentation for when it is built again).
    pub fn index(&self, store: &Store) -> Result<std::sync::Arc<NoteIndex>, StoreError> {
        let stamp = store.sources_stamp()?;
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, index)) = held.as_ref() {
            if *seen == stamp {
                return Ok(std::sync::Arc::clone(index));
            }
        }
        let index = std::sync::Arc::new(NoteIndex::of(store)?);
        *held = Some((stamp, std::sync::Arc::clone(&index)));
        Ok(index)
    }

    /// The index of `store`, built again unless it holds `source` as it is now.
    pub fn index_for(
        &self,
        store: &Store,
        source: &Source,
    ) -> Result<std::sync::Arc<NoteIndex>, StoreError> {
        let index = self.index(store)?;
        if index.agrees(source) {
            return Ok(index);
        }
        self.forget();
        self.index(store)
    }

    /// Drops the index held, so the next use builds it again.
    pub fn forget(&self) {
        *self.held.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// A file's path relative to its root (`/`-separated): how a note is told apart from notes
/// that share its file name wherever it is shown.
pub(crate) fn note_path(origin: &str, root: Option<&str>) -> String {
    root_and_path(origin, root).1
}

/// A file's root and its path relative to it (`/`-separated). A source without a root (none
/// stored) is in the one tree of every such file: its path is its origin from the top.
fn root_and_path(origin: &str, root: Option<&str>) -> (String, String) {
    let root = root
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| {
            origin
                .strip_prefix(r)
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .unwrap_or("");
    let path = origin[root.len()..].trim_start_matches('/').to_owned();
    (root.to_owned(), path)
}

/// A file's name without its extension.
pub(crate) fn file_stem(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .map_or_else(|| origin.to_owned(), |s| s.to_string_lossy().into_owned())
}
