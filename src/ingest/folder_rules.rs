//! Which entries of a folder are never read: hidden files and folders (`.git` among them),
//! an Obsidian vault's settings and trash, and what the folder's `.wikimindignore` names.
//!
//! Folder ingest and the watcher ([`crate::watch`]) judge a path by the same
//! [`FolderRules`], so a file ingest leaves out is never picked up by a watch, and the
//! other way round. (Attachments are judged by their extension, once a path is known to be
//! a file: see [`super::SkipReason::Attachment`].)

use std::io::Read;
use std::path::{Component, Path};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::SkipReason;

/// The file at the top of a folder that names what WikiMind leaves out of it, in gitignore
/// syntax (`drafts/`, `*.tmp.md`, `!keep.md`).
pub const IGNORE_FILE: &str = ".wikimindignore";

/// The most of an ignore file that is read (a larger one is read up to here).
const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;

/// The rules of one folder, read once from its [`IGNORE_FILE`].
#[derive(Debug, Clone)]
pub struct FolderRules {
    ignore: Gitignore,
    /// Lines of the ignore file that are not valid patterns, each with its line number.
    pub problems: Vec<String>,
}

impl FolderRules {
    /// The rules of the folder `root` (its [`IGNORE_FILE`] when there is one; an ignore
    /// file that cannot be read ignores nothing, and says so in [`FolderRules::problems`]).
    pub fn of(root: &Path) -> FolderRules {
        let mut builder = GitignoreBuilder::new(root);
        let mut problems = Vec::new();
        let file = root.join(IGNORE_FILE);
        let mut text = String::new();
        match std::fs::File::open(&file) {
            Ok(f) => {
                if let Err(e) = f.take(IGNORE_FILE_LIMIT).read_to_string(&mut text) {
                    problems.push(format!("{}: cannot read: {e}", file.display()));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => problems.push(format!("{}: cannot read: {e}", file.display())),
        }
        for (index, line) in text.lines().enumerate() {
            if let Err(e) = builder.add_line(Some(file.clone()), line) {
                problems.push(format!("{}, line {}: {e}", file.display(), index + 1));
            }
        }
        let ignore = builder.build().unwrap_or_else(|e| {
            problems.push(format!("{}: {e}", file.display()));
            Gitignore::empty()
        });
        FolderRules { ignore, problems }
    }

    /// Rules that leave out only hidden entries (for a folder with no ignore file).
    pub fn none() -> FolderRules {
        FolderRules {
            ignore: Gitignore::empty(),
            problems: Vec::new(),
        }
    }

    /// Why `relative` (a path below the folder, relative to it) is left out, if it is: a
    /// hidden component (the vault's settings and trash named as such), or a match in the
    /// ignore file (the path or one of its parent folders). `is_dir` says whether the path
    /// is a folder. A path that is not relative (or leads out with `..`) is never judged
    /// ignored here.
    pub fn skip_reason(&self, relative: &Path, is_dir: bool) -> Option<SkipReason> {
        let mut components = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => components.push(name),
                Component::CurDir => {}
                _ => return None,
            }
        }
        for name in &components {
            if name.as_encoded_bytes().starts_with(b".") {
                return Some(match name.to_str() {
                    Some(".obsidian") => SkipReason::VaultSettings,
                    Some(".trash") => SkipReason::Trash,
                    _ => SkipReason::Hidden,
                });
            }
        }
        if components.is_empty() {
            return None;
        }
        let relative: std::path::PathBuf = components.iter().collect();
        self.ignore
            .matched_path_or_any_parents(&relative, is_dir)
            .is_ignore()
            .then_some(SkipReason::Ignored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_parts_and_ignore_file_patterns_are_left_out() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(
            dir.path().join(IGNORE_FILE),
            "# drafts are private\ndrafts/\n*.tmp.md\n!keep.tmp.md\n",
        )
        .expect("write");
        let rules = FolderRules::of(dir.path());
        assert!(rules.problems.is_empty(), "{:?}", rules.problems);
        let judge = |p: &str, dir: bool| rules.skip_reason(Path::new(p), dir);
        assert_eq!(judge("tea.md", false), None);
        assert_eq!(judge("drafts", true), Some(SkipReason::Ignored));
        assert_eq!(judge("drafts/tea.md", false), Some(SkipReason::Ignored));
        assert_eq!(judge("a/b.tmp.md", false), Some(SkipReason::Ignored));
        assert_eq!(judge("keep.tmp.md", false), None);
        assert_eq!(judge(".git/HEAD", false), Some(SkipReason::Hidden));
        assert_eq!(
            judge("a/.obsidian/app.json", false),
            Some(SkipReason::VaultSettings)
        );
        assert_eq!(judge(".trash", true), Some(SkipReason::Trash));
        assert_eq!(judge(".wikimindignore", false), Some(SkipReason::Hidden));
        assert_eq!(judge("../outside.md", false), None);
        assert_eq!(judge("/abs.md", false), None);
    }

    #[test]
    fn a_folder_without_an_ignore_file_leaves_out_only_hidden_entries() {
        let dir = tempfile::tempdir().expect("dir");
        let rules = FolderRules::of(dir.path());
        assert_eq!(rules.skip_reason(Path::new("drafts/a.md"), false), None);
        assert_eq!(
            rules.skip_reason(Path::new(".hidden.md"), false),
            Some(SkipReason::Hidden)
        );
    }
}
