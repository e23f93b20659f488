//! Protected files found by what they are, not by the name a call gives: a hard link to
//! `.env` under another name is `.env`, and a search tool's glob reads every file it matches.
//! Both need the file system, looked through with a bound: at most [`MAX_ENTRIES`] entries of
//! the directories searched, links not followed, `.git` left out.

use std::path::{Path, PathBuf};

use globset::GlobBuilder;

use crate::paths::PathRules;

/// The most directory entries one search looks at.
const MAX_ENTRIES: usize = 20_000;

/// The deepest directory one search goes into, below where it starts.
const MAX_DEPTH: usize = 16;

/// The files under `base` (itself included), in no set order, for as long as `visit` says
/// `None`; its first answer.
fn search<T>(
    base: &Path,
    mut visit: impl FnMut(&Path, &std::fs::Metadata) -> Option<T>,
) -> Option<T> {
    let mut seen = 0;
    let mut pending = vec![(base.to_path_buf(), 0)];
    while let Some((dir, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return None;
            }
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if depth < MAX_DEPTH && entry.file_name() != ".git" {
                    pending.push((path, depth + 1));
                }
            } else if let Some(found) = visit(&path, &meta) {
                return Some(found);
            }
        }
    }
    None
}

/// The protected file `path` is another name of, found in the workspace: `path` is a
/// regular file with more than one link, and a protected file there is the same file.
#[cfg(unix)]
pub(crate) fn linked_secret(paths: &PathRules, path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.nlink() < 2 {
        return None;
    }
    let (device, inode) = (meta.dev(), meta.ino());
    let same = |other: &Path, other_meta: &std::fs::Metadata| {
        (other_meta.dev() == device && other_meta.ino() == inode && paths.is_secret(other))
            .then(|| other.to_path_buf())
    };
    let parent = path.parent()?;
    search(parent, |other, meta| {
        same(other, meta).filter(|_| other.parent() == Some(parent))
    })
    .or_else(|| search(&paths.workspace, same))
}

/// Without the file system's inodes, no file is known to be another's name.
#[cfg(not(unix))]
pub(crate) fn linked_secret(_paths: &PathRules, _path: &Path) -> Option<PathBuf> {
    None
}

/// A protected file under `base` that the search glob `glob` matches (by its name when the
/// glob has no `/`, by its path below `base` otherwise); a glob that does not compile matches
/// nothing here (the tool will refuse it).
pub(crate) fn globbed_secret(paths: &PathRules, base: &Path, glob: &str) -> Option<PathBuf> {
    let matcher = GlobBuilder::new(glob)
        .literal_separator(glob.contains('/'))
        .build()
        .ok()?
        .compile_matcher();
    search(base, |file, _| {
        let candidate = if glob.contains('/') {
            file.strip_prefix(base).unwrap_or(file).to_path_buf()
        } else {
            PathBuf::from(file.file_name()?)
        };
        (matcher.is_match(&candidate) && paths.is_secret(file)).then(|| file.to_path_buf())
    })
}
