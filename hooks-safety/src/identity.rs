//! Protected files found by what they are, not by the name a call gives: a hard link to
//! `.env` or `hooks.yaml` under another name is that file, a glob (`h*.yaml`) names every
//! file the shell expands it to, a search tool's glob reads every file it matches, and `find`
//! acts on every file its tests select. All need the file system, looked through with a
//! bound: at most [`MAX_ENTRIES`] entries of the directories searched, links not followed,
//! `.git` left out.

use std::path::{Path, PathBuf};

use globset::GlobBuilder;

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

/// The file `path` is another name of, found in its directory or in `workspace`, for which
/// `is` holds (a protected file, a guard file): `path` is a regular file with more than one
/// link, and that file is the same file.
#[cfg(unix)]
pub(crate) fn linked(workspace: &Path, path: &Path, is: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.nlink() < 2 {
        return None;
    }
    let (device, inode) = (meta.dev(), meta.ino());
    let same = |other: &Path, other_meta: &std::fs::Metadata| {
        (other_meta.dev() == device && other_meta.ino() == inode && is(other))
            .then(|| other.to_path_buf())
    };
    let parent = path.parent()?;
    search(parent, |other, meta| {
        same(other, meta).filter(|_| other.parent() == Some(parent))
    })
    .or_else(|| search(workspace, same))
}

/// Without the file system's inodes, no file is known to be another's name.
#[cfg(not(unix))]
pub(crate) fn linked(
    _workspace: &Path,
    _path: &Path,
    _is: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    None
}

/// Whether `word` holds characters the shell expands as a glob.
pub(crate) fn is_glob(word: &str) -> bool {
    word.contains(['*', '?', '['])
}

/// What the shell expands the glob `pattern` to, from the directory `base`, component by
/// component as `sh` does (a `*` does not match a leading `.` unless the pattern's component
/// starts with one); empty when nothing matches (the shell then passes the word as it is).
pub(crate) fn expand(pattern: &str, base: &Path) -> Vec<PathBuf> {
    let (mut found, rest) = match pattern.strip_prefix('/') {
        Some(rest) => (vec![PathBuf::from("/")], rest),
        None => (vec![base.to_path_buf()], pattern),
    };
    let mut seen = 0;
    for component in rest.split('/').filter(|c| !c.is_empty()) {
        if !is_glob(component) {
            found = found.into_iter().map(|dir| dir.join(component)).collect();
            continue;
        }
        let Ok(glob) = GlobBuilder::new(component).literal_separator(true).build() else {
            return Vec::new();
        };
        let matcher = glob.compile_matcher();
        let mut next = Vec::new();
        for dir in &found {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > MAX_ENTRIES {
                    return next;
                }
                let name = entry.file_name();
                let hidden = name.as_encoded_bytes().first() == Some(&b'.');
                if (!hidden || component.starts_with('.')) && matcher.is_match(&name) {
                    next.push(dir.join(name));
                }
            }
        }
        found = next;
    }
    found.retain(|path| std::fs::symlink_metadata(path).is_ok());
    found
}

/// A file under `roots` (directories already made absolute) that `find` with the name tests
/// `names` (`-name`, `-iname` patterns; none: every file) selects and for which `is` holds.
pub(crate) fn found_by_find(
    roots: &[PathBuf],
    names: &[(&str, bool)],
    is: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let matchers: Vec<_> = names
        .iter()
        .filter_map(|(pattern, folded)| {
            GlobBuilder::new(pattern)
                .case_insensitive(*folded)
                .build()
                .ok()
                .map(|glob| glob.compile_matcher())
        })
        .collect();
    roots.iter().find_map(|root| {
        search(root, |file, _| {
            let name = file.file_name()?;
            let selected = matchers.is_empty() || matchers.iter().any(|m| m.is_match(name));
            (selected && is(file)).then(|| file.to_path_buf())
        })
    })
}

/// A file under `base` for which `is` holds (a protected file) that the search glob `glob`
/// matches (by its name when the glob has no `/`, by its path below `base` otherwise); a glob
/// that does not compile matches nothing here (the tool will refuse it).
pub(crate) fn globbed(base: &Path, glob: &str, is: impl Fn(&Path) -> bool) -> Option<PathBuf> {
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
        (matcher.is_match(&candidate) && is(file)).then(|| file.to_path_buf())
    })
}
