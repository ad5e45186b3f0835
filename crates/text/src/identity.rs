//! A note is itself: identity by path.
//!
//! Each note is its own source, identified by its path relative to its *root* (the folder it
//! was ingested or watched from). A note's page title is its own title; when two notes under
//! one root share a title (by topic key: `constructor` and `Constructor` are one title),
//! each is shown with the shortest folder path that tells them apart (`Parser/constructor`,
//! `Lexer/constructor`), unless it declares an alias no other note of the root uses as a
//! title or alias (`Parser.constructor`), which then names it. A file name alone never makes
//! two notes one page.
//!
//! [`identity_titles`] gives each note of one root its title; [`pick_note`] chooses the note a
//! bare shared name (`[[constructor]]`) means from a linking note.

use std::collections::HashMap;

use crate::key::topic_key;

/// A note of one root, as [`identity_titles`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct Note<'a> {
    /// Its path relative to the root, `/`-separated, with its extension (`Parser/constructor.md`).
    pub path: &'a str,
    /// Its own title (front matter `title`, first H1, else its file name).
    pub title: &'a str,
    /// The aliases its front matter declares.
    pub aliases: &'a [String],
}

/// The folder part of a root-relative path (empty at the root).
pub fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// The title of each of `notes` (all under one root), in order: its own title, or for notes
/// sharing a title the shortest folder path that tells them apart joined to the title
/// (`Parser/constructor`; a deeper path `a/Parser/constructor` only when `Parser/` is not
/// enough), or an alias of its own that no other note uses. Notes of one folder that share a
/// title stay one topic (nothing but their file names tells them apart, and a file name
/// alone never makes or splits a topic).
pub fn identity_titles(notes: &[Note<'_>]) -> Vec<String> {
    // Every name already taken as a title or an alias: by how many notes, and the notes
    // whose title it is. One map, hashed quickly: a vault's 100,000 notes are keyed at
    // each launch and each lint.
    let mut names: Names = HashMap::with_capacity_and_hasher(notes.len(), Default::default());
    for (i, note) in notes.iter().enumerate() {
        let name = names.entry(topic_key(note.title)).or_default();
        name.used += 1;
        name.titles.push(i);
        if note.aliases.is_empty() {
            continue;
        }
        let mut own: Vec<String> = note.aliases.iter().map(|a| topic_key(a)).collect();
        own.sort();
        own.dedup();
        for alias in own {
            names.entry(alias).or_default().used += 1;
        }
    }
    let mut titles: Vec<String> = notes.iter().map(|n| n.title.to_owned()).collect();
    for (key, name) in &names {
        let group = &name.titles;
        if group.len() < 2 || key.is_empty() {
            continue;
        }
        let one_folder = group
            .iter()
            .all(|&i| folder_of(notes[i].path) == folder_of(notes[group[0]].path));
        if one_folder {
            continue;
        }
        for &i in group {
            let note = &notes[i];
            let alias = note.aliases.iter().find(|a| {
                let k = topic_key(a);
                !k.is_empty()
                    && names
                        .get(&k)
                        .is_some_and(|n| n.used == 1 && n.titles.is_empty())
            });
            titles[i] = match alias {
                Some(alias) => alias.trim().to_owned(),
                None => shortest_path_title(note, group, notes, &names),
            };
        }
    }
    titles
}

/// A name of the notes of one root ([`identity_titles`]).
#[derive(Default)]
struct Name {
    /// How many notes use it, as their title or an alias.
    used: usize,
    /// The notes whose title it is.
    titles: Vec<usize>,
}

/// The names of the notes of one root, by key.
type Names = HashMap<String, Name, foldhash::fast::RandomState>;

/// `note`'s title with the fewest trailing folders of its path that no other note of
/// `group` ends with, and that no note of the root already uses as a name.
fn shortest_path_title(
    note: &Note<'_>,
    group: &[usize],
    notes: &[Note<'_>],
    names: &Names,
) -> String {
    let folders: Vec<&str> = folder_parts(note.path);
    let others: Vec<Vec<&str>> = group
        .iter()
        .map(|&j| &notes[j])
        .filter(|other| other.path != note.path)
        .map(|other| folder_parts(other.path))
        .collect();
    // Notes of one folder that share a title are one topic: the author named them alike
    // and no folder tells them apart. So are the notes of a group all in one folder.
    let mine = folder_of(note.path);
    let others: Vec<Vec<&str>> = others.into_iter().filter(|o| o.join("/") != mine).collect();
    if others.is_empty() {
        return note.title.trim().to_owned();
    }
    // The one folder of the group at the root: its empty folder path tells it apart (and a
    // bare name means it, the shortest path).
    if folders.is_empty() {
        return note.title.trim().to_owned();
    }
    // Folders are compared as names are: `Meeting Notes` and `meeting-notes` would give
    // titles with one key, and so one page.
    let tail_key = |parts: &[&str]| topic_key(&parts.join("/"));
    for depth in 1..=folders.len() {
        let tail = &folders[folders.len() - depth..];
        let key = tail_key(tail);
        let shared = others
            .iter()
            .any(|o| o.len() >= depth && tail_key(&o[o.len() - depth..]) == key);
        let title = format!("{}/{}", tail.join("/"), note.title.trim());
        if !shared && !names.contains_key(&topic_key(&title)) {
            return title;
        }
    }
    // Every trailing part of its folder is another's too, or names another note: its whole
    // folder path; and where whole folder paths differ only in case or punctuation
    // (`Parser/` and `parser/`), a number in byte order of the paths tells them apart.
    let title = format!("{mine}/{}", note.title.trim());
    let mine_key = topic_key(mine);
    let before = group
        .iter()
        .map(|&j| folder_of(notes[j].path))
        .filter(|folder| *folder < mine && topic_key(folder) == mine_key)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if before == 0 {
        title
    } else {
        format!("{title} ({})", before + 1)
    }
}

fn folder_parts(path: &str) -> Vec<&str> {
    folder_of(path)
        .split('/')
        .filter(|p| !p.is_empty())
        .collect()
}

/// Which of `candidates` (root-relative paths of notes sharing a name) a bare link to that
/// name from a note in `from_folder` means: a note in that folder, else the shortest path,
/// else the first in byte order. `None` when there is no candidate.
pub fn pick_note<'a>(from_folder: Option<&str>, candidates: &[&'a str]) -> Option<&'a str> {
    if let Some(folder) = from_folder {
        let here: Vec<&&str> = candidates
            .iter()
            .filter(|c| folder_of(c) == folder)
            .collect();
        if let Some(first) = here.into_iter().min() {
            return Some(first);
        }
    }
    candidates
        .iter()
        .min_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(notes: &[(&str, &str, &[&str])]) -> Vec<String> {
        let aliases: Vec<Vec<String>> = notes
            .iter()
            .map(|(_, _, a)| a.iter().map(|s| s.to_string()).collect())
            .collect();
        let notes: Vec<Note<'_>> = notes
            .iter()
            .zip(&aliases)
            .map(|((path, title, _), aliases)| Note {
                path,
                title,
                aliases,
            })
            .collect();
        identity_titles(&notes)
    }

    #[test]
    fn a_title_of_its_own_stays_plain() {
        assert_eq!(
            titles(&[("a/Index.md", "Index", &[]), ("b/Other.md", "Other", &[])]),
            ["Index", "Other"]
        );
    }

    #[test]
    fn notes_sharing_a_title_are_told_apart_by_the_shortest_folder_path() {
        assert_eq!(
            titles(&[
                ("src/Parser/constructor.md", "constructor", &[]),
                ("src/Lexer/constructor.md", "constructor", &[]),
                ("old/Parser/constructor.md", "Constructor", &[]),
                ("constructor.md", "constructor", &[]),
                ("Parser/Index.md", "Index", &[]),
            ]),
            [
                "src/Parser/constructor",
                "Lexer/constructor",
                "old/Parser/Constructor",
                "constructor",
                "Index"
            ]
        );
        // Two in one folder are one topic; a third elsewhere is told apart from both.
        assert_eq!(
            titles(&[
                ("a/x.md", "Setup", &[]),
                ("a/y.md", "Setup", &[]),
                ("b/Setup.md", "Setup", &[])
            ]),
            ["a/Setup", "a/Setup", "b/Setup"]
        );
        assert_eq!(
            titles(&[("a/x.md", "Setup", &[]), ("a/y.md", "Setup", &[])]),
            ["Setup", "Setup"]
        );
    }

    #[test]
    fn folders_that_differ_only_in_case_or_punctuation_still_tell_notes_apart() {
        // Titles are keyed without case and punctuation: `Parser/constructor` and
        // `parser/constructor` would be one page.
        assert_eq!(
            titles(&[
                ("Parser/constructor.md", "constructor", &[]),
                ("parser/constructor.md", "constructor", &[]),
                ("parser/other.md", "constructor", &[]),
            ]),
            [
                "Parser/constructor",
                "parser/constructor (2)",
                "parser/constructor (2)"
            ]
        );
        assert_eq!(
            titles(&[
                ("work/meeting-notes/Todo.md", "Todo", &[]),
                ("home/Meeting Notes/Todo.md", "Todo", &[]),
            ]),
            ["work/meeting-notes/Todo", "home/Meeting Notes/Todo"]
        );
    }

    #[test]
    fn an_alias_of_its_own_already_tells_a_note_apart() {
        assert_eq!(
            titles(&[
                (
                    "Parser/constructor.md",
                    "constructor",
                    &["Parser.constructor"]
                ),
                ("Lexer/constructor.md", "constructor", &["constructor"]),
            ]),
            ["Parser.constructor", "Lexer/constructor"]
        );
    }

    #[test]
    fn a_path_title_another_note_has_is_not_taken() {
        assert_eq!(
            titles(&[
                ("x/Parser/constructor.md", "constructor", &[]),
                ("y/Lexer/constructor.md", "constructor", &[]),
                ("Parser constructor.md", "Parser constructor", &[]),
            ]),
            [
                "x/Parser/constructor",
                "Lexer/constructor",
                "Parser constructor"
            ]
        );
    }

    #[test]
    fn a_bare_shared_name_means_the_note_beside_the_link_else_the_shortest_path() {
        let c = ["b/x/c.md", "a/c.md", "z/c.md"];
        assert_eq!(pick_note(Some("z"), &c), Some("z/c.md"));
        assert_eq!(pick_note(Some("q"), &c), Some("a/c.md"));
        assert_eq!(pick_note(None, &c), Some("a/c.md"));
        assert_eq!(pick_note(None, &[]), None);
    }
}
