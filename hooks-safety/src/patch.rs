//! Patches read as patches: the files a patch changes, so that each is checked as a write,
//! and its text (added lines that merely mention `~/.ssh/id_rsa`, say) is never read as a
//! command line.
//!
//! Two formats are read:
//! - the one Codex's `apply_patch` tool takes: `*** Begin Patch`, then `*** Add File: P`,
//!   `*** Update File: P` (optionally followed by `*** Move to: Q`) or `*** Delete File: P`
//!   sections, then `*** End Patch`;
//! - unified diffs (`diff --git a/x b/x`, `--- a/x`, `+++ b/x`, `@@ -1,2 +1,3 @@`), with the
//!   `a/` and `b/` prefixes taken off and `/dev/null` standing for no file.
//!
//! A patch that cannot be read whole (no `*** End Patch`, a header with no path, an unknown
//! `***` line, a hunk whose counts do not add up) is an error: a guard that skipped what it
//! cannot read would let through the file it skipped.
//!
//! ```
//! use hooks_safety::patch::{self, Change};
//!
//! let text = "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-x\n+y\n*** End Patch\n";
//! let files = patch::files(text).unwrap();
//! assert_eq!(files[0].path, "src/a.rs");
//! assert_eq!(files[0].change, Change::MoveFrom);
//! assert_eq!(files[1].path, "src/b.rs");
//! assert_eq!(files[1].change, Change::MoveTo);
//! assert!(patch::files("*** Begin Patch\n*** Add File: \n*** End Patch").is_err());
//! ```

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Creates it.
    Add,
    /// Changes its text.
    Update,
    /// Deletes it.
    Delete,
    /// Moves it away (it is gone afterwards).
    MoveFrom,
    /// Moves another file onto it.
    MoveTo,
}

/// A file a patch changes, with its path as the patch writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchedFile {
    /// The path, as written in the patch (relative paths start where the patch applies).
    pub path: String,
    /// What the patch does to it.
    pub change: Change,
}

/// Why a text cannot be read as a patch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the patch cannot be read: {0}")]
pub struct PatchError(String);

/// Whether `text` looks like a patch of either format: what it starts with, before any check.
pub fn looks_like_patch(text: &str) -> bool {
    let start = text.trim_start();
    start.starts_with("*** Begin Patch")
        || start.starts_with("diff --git ")
        || (start.starts_with("--- ") && text.contains("\n+++ "))
}

/// Every file `text` changes, in order; an error if `text` is not a patch of either format, or
/// not one that can be read whole.
pub fn files(text: &str) -> Result<Vec<PatchedFile>, PatchError> {
    if text.trim_start().starts_with("*** Begin Patch") {
        codex(text)
    } else if looks_like_patch(text) {
        unified(text)
    } else {
        Err(PatchError(
            "it starts with neither `*** Begin Patch` nor a unified diff header (`--- a/…`, \
             `diff --git`)"
                .to_owned(),
        ))
    }
}

/// A path named by a header: not empty, no NUL byte.
fn header_path(line_number: usize, header: &str, path: &str) -> Result<String, PatchError> {
    let path = path.trim();
    if path.is_empty() {
        return Err(PatchError(format!(
            "line {line_number}: `{header}` names no file"
        )));
    }
    if path.contains('\0') {
        return Err(PatchError(format!(
            "line {line_number}: the path after `{header}` contains a NUL byte"
        )));
    }
    Ok(path.to_owned())
}

/// The `apply_patch` format.
fn codex(text: &str) -> Result<Vec<PatchedFile>, PatchError> {
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.trim_end_matches('\r'))
        .collect();
    let first = lines.iter().position(|line| !line.trim().is_empty());
    let last = lines.iter().rposition(|line| !line.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(PatchError("it is empty".to_owned()));
    };
    if lines[last].trim() != "*** End Patch" || last == first {
        return Err(PatchError(
            "it does not end with `*** End Patch`, so it may have been cut short".to_owned(),
        ));
    }
    let mut files: Vec<PatchedFile> = Vec::new();
    // The file an `*** Update File:` section names, which a `*** Move to:` may follow.
    let mut updating: Option<usize> = None;
    for (index, line) in lines.iter().enumerate().take(last).skip(first + 1) {
        let number = index + 1;
        let Some(header) = line.strip_prefix("***") else {
            if updating.is_none() && files.is_empty() && !line.trim().is_empty() {
                return Err(PatchError(format!(
                    "line {number}: text before the first file header"
                )));
            }
            continue;
        };
        let header = header.trim_start();
        let (name, change) = if let Some(path) = header.strip_prefix("Add File:") {
            ("*** Add File:", Some((path, Change::Add)))
        } else if let Some(path) = header.strip_prefix("Update File:") {
            ("*** Update File:", Some((path, Change::Update)))
        } else if let Some(path) = header.strip_prefix("Delete File:") {
            ("*** Delete File:", Some((path, Change::Delete)))
        } else if let Some(path) = header.strip_prefix("Move to:") {
            let Some(from) = updating else {
                return Err(PatchError(format!(
                    "line {number}: `*** Move to:` without the `*** Update File:` it moves"
                )));
            };
            let path = header_path(number, "*** Move to:", path)?;
            if let Some(file) = files.get_mut(from) {
                file.change = Change::MoveFrom;
            }
            files.push(PatchedFile {
                path,
                change: Change::MoveTo,
            });
            updating = None;
            continue;
        } else if header.trim() == "End of File" {
            continue;
        } else {
            ("", None)
        };
        let Some((path, change)) = change else {
            return Err(PatchError(format!(
                "line {number}: `{}` is not a header of the patch format",
                line.trim()
            )));
        };
        files.push(PatchedFile {
            path: header_path(number, name, path)?,
            change,
        });
        updating = (change == Change::Update).then(|| files.len() - 1);
    }
    if files.is_empty() {
        return Err(PatchError("it names no file".to_owned()));
    }
    Ok(files)
}

/// A unified diff's path: the `a/` or `b/` prefix taken off, quotes and a trailing timestamp
/// too; `None` for `/dev/null`.
fn diff_path(
    number: usize,
    header: &str,
    raw: &str,
    prefix: &str,
) -> Result<Option<String>, PatchError> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim();
    let raw = raw
        .strip_prefix('"')
        .and_then(|quoted| quoted.strip_suffix('"'))
        .unwrap_or(raw);
    if raw == "/dev/null" {
        return Ok(None);
    }
    let path = raw.strip_prefix(prefix).unwrap_or(raw);
    header_path(number, header, path).map(Some)
}

/// The counts of a hunk header `@@ -a,b +c,d @@`: lines of the old and of the new text.
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let mut ranges = line.strip_prefix("@@ ")?.split(' ');
    let count = |range: &str, sign: char| -> Option<usize> {
        let range = range.strip_prefix(sign)?;
        match range.split_once(',') {
            Some((_, count)) => count.parse().ok(),
            None => range.parse::<usize>().ok().map(|_| 1),
        }
    };
    let old = count(ranges.next()?, '-')?;
    let new = count(ranges.next()?, '+')?;
    Some((old, new))
}

/// A unified diff, `git diff`'s headers (renames, copies, deletions) included.
fn unified(text: &str) -> Result<Vec<PatchedFile>, PatchError> {
    let mut files: Vec<PatchedFile> = Vec::new();
    fn push(files: &mut Vec<PatchedFile>, path: String, change: Change) {
        if !files.iter().any(|f| f.path == path && f.change == change) {
            files.push(PatchedFile { path, change });
        }
    }
    // The file a `diff --git` line names, and how many files were known then: a diff that
    // changes only a mode has no `---`/`+++` lines, and its file is named there alone.
    let mut git_file: Option<(String, usize)> = None;
    // Lines left in the current hunk, old and new text.
    let mut left = (0usize, 0usize);
    let mut old: Option<String> = None;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let number = index + 1;
        if left != (0, 0) {
            match line.chars().next() {
                Some(' ') | None => {
                    left.0 = left.0.saturating_sub(1);
                    left.1 = left.1.saturating_sub(1);
                }
                Some('-') => left.0 = left.0.saturating_sub(1),
                Some('+') => left.1 = left.1.saturating_sub(1),
                Some('\\') => {}
                Some(_) => {
                    return Err(PatchError(format!(
                        "line {number}: the hunk ends before its counts say"
                    )));
                }
            }
            continue;
        }
        if let Some(sides) = line.strip_prefix("diff --git ") {
            if let Some((path, known)) = git_file.take()
                && files.len() == known
            {
                push(&mut files, path, Change::Update);
            }
            if let Some((_, new)) = sides.rsplit_once(" b/") {
                git_file = Some((header_path(number, "diff --git", new)?, files.len()));
            }
        } else if let Some(path) = line.strip_prefix("--- ") {
            old = diff_path(number, "---", path, "a/")?;
        } else if let Some(path) = line.strip_prefix("+++ ") {
            match (old.take(), diff_path(number, "+++", path, "b/")?) {
                (Some(old), Some(new)) if old == new => push(&mut files, new, Change::Update),
                (Some(old), Some(new)) => {
                    push(&mut files, old, Change::MoveFrom);
                    push(&mut files, new, Change::MoveTo);
                }
                (Some(old), None) => push(&mut files, old, Change::Delete),
                (None, Some(new)) => push(&mut files, new, Change::Add),
                (None, None) => {
                    return Err(PatchError(format!(
                        "line {number}: both sides of the diff are `/dev/null`"
                    )));
                }
            }
        } else if line.starts_with("@@") {
            left = hunk_counts(line).ok_or_else(|| {
                PatchError(format!(
                    "line {number}: `{line}` is not a hunk header (`@@ -a,b +c,d @@`)"
                ))
            })?;
        } else if let Some(path) = line
            .strip_prefix("rename from ")
            .or_else(|| line.strip_prefix("rename to "))
            .or_else(|| line.strip_prefix("copy to "))
        {
            let change = if line.starts_with("rename from ") {
                Change::MoveFrom
            } else {
                Change::MoveTo
            };
            push(&mut files, header_path(number, "rename", path)?, change);
        }
    }
    if let Some((path, known)) = git_file
        && files.len() == known
    {
        push(&mut files, path, Change::Update);
    }
    if left != (0, 0) {
        return Err(PatchError(
            "the last hunk ends before its counts say, so it may have been cut short".to_owned(),
        ));
    }
    if files.is_empty() {
        return Err(PatchError("it names no file".to_owned()));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, Change)> {
        files(text)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|f| (f.path, f.change))
            .collect()
    }

    fn refused(text: &str) -> String {
        files(text).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn every_section_of_an_apply_patch_is_named() {
        let text = "*** Begin Patch\n\
                    *** Add File: notes/new.md\n+hello\n\
                    *** Delete File: old.txt\n\
                    *** Update File: src/lib.rs\n@@ fn main\n-a\n+b\n*** End of File\n\
                    *** End Patch\n";
        assert_eq!(
            paths(text),
            [
                ("notes/new.md".to_owned(), Change::Add),
                ("old.txt".to_owned(), Change::Delete),
                ("src/lib.rs".to_owned(), Change::Update),
            ]
        );
    }

    #[test]
    fn added_text_that_looks_like_a_header_is_not_one() {
        // The `+` keeps it text; only a line starting with `***` is a header.
        let text = "*** Begin Patch\n*** Add File: a.md\n+*** Delete File: b\n*** End Patch";
        assert_eq!(paths(text), [("a.md".to_owned(), Change::Add)]);
    }

    #[test]
    fn a_patch_that_cannot_be_read_whole_is_refused() {
        assert!(refused("*** Begin Patch\n*** Add File: a\n+x\n").contains("End Patch"));
        assert!(refused("*** Begin Patch\n*** Update File:   \n*** End Patch").contains("no file"));
        assert!(refused("*** Begin Patch\n*** Remove File: a\n*** End Patch").contains("header"));
        assert!(refused("*** Begin Patch\n*** Move to: b\n*** End Patch").contains("Move to"));
        assert!(refused("*** Begin Patch\n*** End Patch").contains("no file"));
        assert!(refused("*** Begin Patch\nrm -rf /\n*** End Patch").contains("before"));
        assert!(refused("hello").contains("neither"));
    }

    #[test]
    fn a_unified_diff_names_its_files_without_prefixes() {
        let text = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
                    @@ -1,2 +1,2 @@\n--- not a header\n+++ nor this\n keep\n\
                    --- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n\
                    --- a/gone.txt\t2026-01-01\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
        assert_eq!(
            paths(text),
            [
                ("src/a.rs".to_owned(), Change::Update),
                ("new.txt".to_owned(), Change::Add),
                ("gone.txt".to_owned(), Change::Delete),
            ]
        );
    }

    #[test]
    fn a_renaming_diff_names_both_sides_and_a_short_hunk_is_refused() {
        let text = "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n";
        assert_eq!(
            paths(text),
            [
                ("x".to_owned(), Change::MoveFrom),
                ("y".to_owned(), Change::MoveTo)
            ]
        );
        let short = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n";
        assert!(refused(short).contains("cut short"));
        assert!(refused("--- a/x\n+++ b/x\n@@ nonsense @@\n").contains("hunk header"));
        let mode = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
        assert_eq!(paths(mode), [("run.sh".to_owned(), Change::Update)]);
    }
}
