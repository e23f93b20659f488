//! Paths: normalised the way the file system will see them, then checked against the blocked
//! system directories, the protected (secret) files, the write-protected files (the guard's
//! own configuration: reading allowed, changing not) and the workspace.
//!
//! A path is made absolute (relative paths from the workspace, `~` and `$HOME` from the home
//! directory), then normalised lexically (`.`, `..`, doubled slashes, a trailing `/.`), then
//! resolved through symbolic links as far as it exists. Both the lexical and the resolved form
//! are checked, so a link from the workspace into `/etc` is caught, and so is a path whose
//! target does not exist yet.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use crate::literals::Literals;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// Compiled path rules.
#[derive(Debug)]
pub(crate) struct PathRules {
    blocked: LazyGlobSet,
    protected: LazyGlobSet,
    /// A literal every protected path must contain (one per pattern), to skip the glob match
    /// for words that cannot be secrets; `None` when a pattern has no literal.
    protected_hints: Option<Literals>,
    /// Whether the home directory's path holds one of those literals.
    home_hinted: bool,
    allowed: LazyGlobSet,
    /// Files that may be read but not changed: what configures the guard.
    guarded: LazyGlobSet,
    /// A literal every write-protected path holds (one per pattern), as for the secrets.
    guarded_hints: Option<Literals>,
    /// The directories that hold write-protected files: deleted or moved whole, they take the
    /// files with them.
    guarded_dirs: LazyGlobSet,
    guarded_dir_hints: Option<Literals>,
    pub(crate) workspace: PathBuf,
    pub(crate) home: Option<PathBuf>,
    temp: PathBuf,
    /// Every temporary directory: `/tmp`, `/var/tmp` and the system's (`$TMPDIR`).
    temps: Vec<PathBuf>,
    confine: bool,
}

/// What a path is, when it must not be touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Fine,
    /// In a blocked system directory.
    System(PathBuf),
    /// A protected file (secrets, keys).
    Secret(PathBuf),
    /// Outside the workspace.
    Outside(PathBuf),
    /// A write-protected file (the guard's configuration), about to be changed.
    Guarded(PathBuf),
    /// Not a usable path at all.
    Invalid(String),
}

/// The globs of `patterns` (`field` names them in errors), each checked.
fn globs(field: &str, patterns: &[String]) -> Result<Vec<Glob>, String> {
    patterns
        .iter()
        .map(|pattern| {
            GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|error| {
                    format!("`{field}`: the pattern `{pattern}` does not compile: {error}")
                })
        })
        .collect()
}

/// What a tool does with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads it (or lists it): write-protected files stay readable.
    Read,
    /// Writes, edits, moves, deletes or truncates it, or does what cannot be told apart.
    Write,
}

/// A list of path globs: the module's built-in entries and the configured ones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Globs<'a> {
    /// The built-in patterns (unless the configuration replaces them), which the tests compile:
    /// they need no check when the rules are made.
    pub(crate) built_in: &'a [String],
    /// The configured patterns, checked when the rules are made.
    pub(crate) configured: &'a [String],
}

impl Globs<'_> {
    /// Every pattern, each once.
    fn patterns(&self) -> Vec<String> {
        let mut patterns = self.built_in.to_vec();
        for pattern in self.configured {
            if !patterns.contains(pattern) {
                patterns.push(pattern.clone());
            }
        }
        patterns
    }
}

/// A glob set compiled at its first match. Building the matchers costs more than everything
/// else a per-event hook process does for an event, and most events (a shell command without a path
/// argument, a prompt) never match a path. A configured list is still checked when the rules
/// are made, so a bad pattern is a configuration error, not a surprise later.
#[derive(Debug)]
struct LazyGlobSet {
    field: &'static str,
    patterns: Vec<String>,
    set: OnceLock<Result<GlobSet, String>>,
}

impl LazyGlobSet {
    fn new(field: &'static str, list: Globs<'_>) -> Result<Self, String> {
        globs(field, list.configured)?;
        Ok(LazyGlobSet {
            field,
            patterns: list.patterns(),
            set: OnceLock::new(),
        })
    }

    /// Whether `path` matches; `Err` if the set could not be built (too large for the
    /// matcher's limits), which the callers treat as a match of whatever fails closed.
    fn is_match(&self, path: &Path) -> Result<bool, &str> {
        let set = self.set.get_or_init(|| {
            let mut builder = GlobSetBuilder::new();
            for glob in globs(self.field, &self.patterns)? {
                builder.add(glob);
            }
            builder
                .build()
                .map_err(|error| format!("`{}`: {error}", self.field))
        });
        match set {
            Ok(set) => Ok(set.is_match(path)),
            Err(error) => Err(error),
        }
    }
}

impl PathRules {
    pub(crate) fn new(
        blocked: Globs<'_>,
        protected: Globs<'_>,
        allowed: Globs<'_>,
        guarded: Globs<'_>,
        workspace: PathBuf,
        home: Option<PathBuf>,
        confine: bool,
    ) -> Result<Self, String> {
        let guarded_patterns = guarded.patterns();
        let protected_hints = literal_hints(&protected.patterns());
        let home_hinted = match (&protected_hints, &home) {
            (None, _) => true,
            (Some(hints), Some(home)) => hints.is_match(home.as_os_str().as_encoded_bytes()),
            (Some(_), None) => false,
        };
        Ok(PathRules {
            blocked: LazyGlobSet::new("blocked_paths", blocked)?,
            protected: LazyGlobSet::new("protected_files", protected)?,
            protected_hints,
            home_hinted,
            allowed: LazyGlobSet::new("allowed_files", allowed)?,
            guarded: LazyGlobSet::new("guard_files", guarded)?,
            guarded_hints: literal_hints(&guarded_patterns),
            guarded_dirs: LazyGlobSet {
                field: "guard_files",
                patterns: dir_prefixes(&guarded_patterns),
                set: OnceLock::new(),
            },
            guarded_dir_hints: literal_hints(&dir_prefixes(&guarded_patterns)),
            workspace: resolve_links(&lexical(&workspace)),
            home: home.map(|home| lexical(&home)),
            temp: lexical(&std::env::temp_dir()),
            temps: {
                let mut temps = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
                let system = lexical(&std::env::temp_dir());
                if !temps.contains(&system) {
                    temps.push(system);
                }
                temps
            },
            confine,
        })
    }

    /// The absolute, normalised form of `raw`, relative paths taken from `base`.
    pub(crate) fn absolute_from(&self, raw: &str, base: &Path) -> Result<PathBuf, String> {
        if raw.contains('\0') {
            return Err("it contains a NUL byte".to_owned());
        }
        if let Some(user) = raw.strip_prefix('~')
            && home_relative(raw).is_none()
            && !user.starts_with(['+', '-'])
        {
            // `~name/…` is another user's home directory, which a shell expands and this
            // check cannot.
            let name = user.split('/').next().unwrap_or(user);
            return Err(format!(
                "it is in the home directory of the user `{name}`, which cannot be checked"
            ));
        }
        let expanded = match (&self.home, home_relative(raw)) {
            (Some(home), Some(rest)) => home.join(rest),
            (None, Some(_)) => {
                return Err("it names the home directory, which is unknown".to_owned());
            }
            (_, None) => PathBuf::from(raw),
        };
        Ok(lexical(&base.join(expanded)))
    }

    /// `raw` with a leading `$TMPDIR`, `${TMPDIR}` or `${TMPDIR:-…}` replaced by the system's
    /// temporary directory, if it has one.
    pub(crate) fn expand_temp(&self, raw: &str) -> Option<String> {
        let rest = raw
            .strip_prefix("$TMPDIR")
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
            .or_else(|| raw.strip_prefix("${TMPDIR}"))
            .or_else(|| {
                raw.strip_prefix("${TMPDIR:-")
                    .and_then(|rest| rest.split_once('}'))
                    .map(|(_, rest)| rest)
            })?;
        Some(format!("{}{rest}", self.temp.display()))
    }

    /// Whether `path` (absolute, normalised) is a temporary directory or inside one.
    pub(crate) fn in_temp(&self, path: &Path) -> bool {
        self.temps.iter().any(|temp| path.starts_with(temp))
    }

    /// Whether `path` is one of the temporary directories themselves.
    pub(crate) fn is_temp_root(&self, path: &Path) -> bool {
        self.temps.iter().any(|temp| path == temp)
    }

    /// Whether `path` (absolute, normalised) is in a blocked system directory.
    pub(crate) fn is_system(&self, path: &Path) -> bool {
        // A set that cannot be built blocks everything it might have blocked.
        self.blocked.is_match(path).unwrap_or(true)
    }

    /// Whether `word`, taken from `cwd`, could name a protected file: false when none of the
    /// protected patterns' literals appears in it, in `cwd` or in the home directory.
    #[cfg(test)]
    pub(crate) fn might_be_secret(&self, word: &str, cwd: &Path) -> bool {
        self.secret_hint(word.as_bytes())
            || self.secret_hint(cwd.as_os_str().as_encoded_bytes())
            || (home_relative(word).is_some() && self.home_hinted)
    }

    /// Whether `text` holds a literal of the protected patterns (true when they have none).
    pub(crate) fn secret_hint(&self, text: &[u8]) -> bool {
        self.protected_hints
            .as_ref()
            .is_none_or(|hints| hints.is_match(text))
    }

    /// Whether the home directory's path holds a literal of the protected patterns.
    pub(crate) fn home_hinted(&self) -> bool {
        self.home_hinted
    }

    /// Whether `path` is a protected file that is not explicitly allowed.
    pub(crate) fn is_secret(&self, path: &Path) -> bool {
        self.protected.is_match(path).unwrap_or(true)
            && !self.allowed.is_match(path).unwrap_or(false)
    }

    /// Whether every file in the directory `path` is a protected one (`~/.ssh` under
    /// `**/.ssh/**`), whatever its name: a name no pattern singles out stands for them all.
    pub(crate) fn holds_only_secrets(&self, path: &Path) -> bool {
        !self.is_secret(path) && self.is_secret(&path.join("hooks-any-file"))
    }

    /// Whether a file called `name`, in a directory that cannot be known, could be a
    /// write-protected one: a guard pattern ends in that name, or in a file glob it matches
    /// (`*.json`; a pattern ending in `**`, every file of a folder, is left out, or every name
    /// would be one).
    pub(crate) fn could_be_guarded(&self, name: &str) -> bool {
        self.guarded.patterns.iter().any(|pattern| {
            let last = pattern.rsplit('/').next().unwrap_or(pattern);
            if last == "**" || last == "*" {
                return false;
            }
            GlobBuilder::new(last)
                .literal_separator(true)
                .build()
                .is_ok_and(|glob| glob.compile_matcher().is_match(name))
        })
    }

    /// Whether `path` (absolute, normalised) is a write-protected file.
    pub(crate) fn is_guarded(&self, path: &Path) -> bool {
        hinted(&self.guarded_hints, path) && self.guarded.is_match(path).unwrap_or(true)
    }

    /// Whether changing `path` (absolute, normalised, as a command names it) changes a
    /// write-protected file: it is one, or a directory that holds one (deleting or moving
    /// `.claude` takes `.claude/settings.json` with it). The path found is returned.
    ///
    /// A target that is itself a symbolic link is followed: a link already in the tree (a
    /// checked-out one, or one made before the guard ran) would otherwise let a write through
    /// to the file it names. Only the target is looked at, one `lstat`: a link among its
    /// directories is not followed, which would cost a system call per directory of every
    /// file a command writes. A link to a guard file cannot be made from inside the agent
    /// (`ln`'s targets and inline code naming the file are refused), and the file tools'
    /// check (`check_absolute`) follows links in full. A hard link made before the guard ran
    /// is found by its inode (a file with more than one name, compared with the workspace's).
    pub(crate) fn changes_guarded(&self, path: &Path) -> Option<PathBuf> {
        self.guarded_at(path)
            .or_else(|| {
                let is_link =
                    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
                is_link
                    .then(|| resolve_links(path))
                    .and_then(|resolved| self.guarded_at(&resolved))
            })
            // A hard link made earlier is the guard file under another name.
            .or_else(|| {
                crate::identity::linked(&self.workspace, path, |other| self.is_guarded(other))
            })
    }

    /// `path` itself, if it is a write-protected file or a directory holding one.
    fn guarded_at(&self, path: &Path) -> Option<PathBuf> {
        let guarded = self.is_guarded(path)
            || (hinted(&self.guarded_dir_hints, path)
                && self.guarded_dirs.is_match(path).unwrap_or(true));
        guarded.then(|| path.to_path_buf())
    }

    /// Whether `path` is inside the workspace (the workspace itself included).
    pub(crate) fn in_workspace(&self, path: &Path) -> bool {
        path.starts_with(&self.workspace)
    }

    /// The verdict on a path a file tool is about to use as `access` says, `raw` taken from
    /// the directory `base` when it is relative (the absolute, normalised form, not following
    /// links, is what [`PathRules::absolute_from`] gives).
    pub(crate) fn check_from(&self, raw: &str, base: &Path, access: Access) -> Verdict {
        match self.absolute_from(raw, base) {
            Ok(path) => self.check_absolute(path, access),
            Err(why) => Verdict::Invalid(why),
        }
    }

    /// [`PathRules::check_from`] of a path already made absolute and normalised.
    pub(crate) fn check_absolute(&self, lexical: PathBuf, access: Access) -> Verdict {
        let resolved = resolve_links(&lexical);
        for path in [&lexical, &resolved] {
            if self.is_system(path) {
                return Verdict::System(path.clone());
            }
            if self.is_secret(path) {
                return Verdict::Secret(path.clone());
            }
        }
        // Before the workspace: a user-level hook setting is outside it, and the user is told
        // how to change it rather than to stay in the project.
        if access == Access::Write
            && let Some(guarded) = self
                .guarded_at(&lexical)
                .or_else(|| self.guarded_at(&resolved))
                .or_else(|| {
                    crate::identity::linked(&self.workspace, &resolved, |path| {
                        self.is_guarded(path)
                    })
                })
        {
            return Verdict::Guarded(guarded);
        }
        if self.confine && !(self.in_workspace(&lexical) && self.in_workspace(&resolved)) {
            let outside = if self.in_workspace(&lexical) {
                resolved
            } else {
                lexical
            };
            return Verdict::Outside(outside);
        }
        Verdict::Fine
    }
}

/// Whether `path` holds one of `hints` (always, when there are none to tell).
fn hinted(hints: &Option<Literals>, path: &Path) -> bool {
    hints
        .as_ref()
        .is_none_or(|hints| hints.is_match(path.as_os_str().as_encoded_bytes()))
}

/// For each pattern, its longest literal run without a separator (a path component or part
/// of one, which lexical normalisation keeps whole); `None` if a pattern has none.
fn literal_hints(patterns: &[String]) -> Option<Literals> {
    let mut hints = Vec::new();
    for pattern in patterns {
        let longest = pattern
            .split(|c| "*?[]{}/\\!".contains(c))
            // The first of the longest: `.agent` rather than `rules` in `**/.agent/rules/**`,
            // a rarer word in a path.
            .rev()
            .max_by_key(|part| part.len())
            .filter(|part| !part.is_empty())?;
        hints.push(longest.to_owned());
    }
    Some(Literals::new(hints, false))
}

/// The directories that hold write-protected files, as globs: each pattern's leading
/// components, when they name a hidden directory or start at the root (`**/.agent/rules/**`
/// gives `**/.agent` and `**/.agent/rules`). Deleting or moving one takes the files with it.
/// A pattern's ordinary directories (`**/rules/rules.json`) are left out: `src/rules` is far
/// more often a program's own code than a plugin's settings.
fn dir_prefixes(patterns: &[String]) -> Vec<String> {
    let mut prefixes: Vec<String> = Vec::new();
    for pattern in patterns {
        let parts: Vec<&str> = pattern.split('/').collect();
        for end in 1..parts.len() {
            let prefix = &parts[..end];
            let last = prefix.last().copied().unwrap_or_default();
            let named = prefix
                .iter()
                .any(|part| part.starts_with('.') && !part.contains(['*', '?', '[', '{']));
            let absolute = pattern.starts_with('/') && prefix.len() > 1;
            if last.is_empty() || last == "**" || !(named || absolute) {
                continue;
            }
            let glob = prefix.join("/");
            if !prefixes.contains(&glob) {
                prefixes.push(glob);
            }
        }
    }
    prefixes
}

/// The part after `~/`, `$HOME/` or `${HOME}/` (or `""` for the home directory itself).
fn home_relative(raw: &str) -> Option<&str> {
    ["~", "$HOME", "${HOME}"].iter().find_map(|prefix| {
        let rest = raw.strip_prefix(prefix)?;
        if rest.is_empty() {
            Some("")
        } else {
            rest.strip_prefix('/')
        }
    })
}

/// `path` without `.`, `..` (never above the root) or repeated separators.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut normal = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => normal.push(part),
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    normal
}

/// `path` with every symbolic link in its existing part resolved.
pub(crate) fn resolve_links(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(resolved) = existing.canonicalize() {
            return rest
                .iter()
                .rev()
                .fold(resolved, |path, part| path.join(part));
        }
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation_removes_dots_and_doubled_slashes() {
        assert_eq!(
            lexical(Path::new("/a/./b//c/../d/.")),
            PathBuf::from("/a/b/d")
        );
        assert_eq!(
            lexical(Path::new("/../../etc/passwd")),
            PathBuf::from("/etc/passwd")
        );
        assert_eq!(
            lexical(Path::new("/srv/ws/./a/../../etc")),
            PathBuf::from("/srv/etc")
        );
    }

    #[test]
    fn literal_hints_skip_only_words_that_cannot_match() {
        let patterns: Vec<String> = ["**/.env", "**/id_rsa*", "/etc/sudoers.d/**"]
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        let list = |configured| Globs {
            built_in: &[],
            configured,
        };
        let rules = PathRules::new(
            list(&[]),
            list(&patterns),
            list(&[]),
            list(&[]),
            "/srv/ws".into(),
            None,
            true,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let ws = Path::new("/srv/ws");
        assert!(rules.might_be_secret("config/.env", ws));
        assert!(rules.might_be_secret("id_rsa", ws));
        assert!(rules.might_be_secret("x", Path::new("/etc/sudoers.d")));
        assert!(!rules.might_be_secret("src/main.rs", ws));
        let none = literal_hints(&["**/*".to_owned()]);
        assert!(
            none.is_none(),
            "a pattern without a literal disables the shortcut"
        );
    }

    #[test]
    fn the_built_in_lists_compile_so_they_need_no_check_at_start() {
        let defaults = crate::SafetyConfig::with_built_in_lists(&crate::SelfProtection::none());
        for (field, list) in [
            ("blocked_paths", &defaults.blocked_paths),
            ("protected_files", &defaults.protected_files),
            ("allowed_files", &defaults.allowed_files),
        ] {
            assert!(!list.is_empty(), "{field}");
            let globs = globs(field, list).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(globs.len(), list.len());
        }
    }

    #[test]
    fn a_set_that_cannot_be_built_fails_closed() {
        // Only a built-in list skips the check at start; were one broken, it blocks.
        let broken = vec!["**/[unclosed".to_owned()];
        let list = Globs {
            built_in: &broken,
            configured: &[],
        };
        let rules = PathRules::new(list, list, list, list, "/srv/ws".into(), None, true)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(rules.is_system(Path::new("/srv/ws/src/main.rs")));
        assert!(rules.is_secret(Path::new("/srv/ws/src/main.rs")));
        let checked = Globs {
            built_in: &[],
            configured: &broken,
        };
        let error = PathRules::new(
            checked,
            checked,
            checked,
            checked,
            "/srv/ws".into(),
            None,
            true,
        )
        .err()
        .unwrap_or_default();
        assert!(error.contains("does not compile"), "{error}");
    }

    #[test]
    fn the_directories_holding_guard_files_are_hidden_or_absolute_ones() {
        let patterns: Vec<String> = [
            "**/.agent/rules/**",
            "**/rules/rules.json",
            "**/policy.yaml",
            "/srv/ws/policy/guard.yml",
        ]
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
        assert_eq!(
            dir_prefixes(&patterns),
            [
                "**/.agent",
                "**/.agent/rules",
                "/srv",
                "/srv/ws",
                "/srv/ws/policy"
            ]
        );
    }

    #[test]
    fn home_prefixes_are_recognised() {
        assert_eq!(home_relative("~/.ssh/id_rsa"), Some(".ssh/id_rsa"));
        assert_eq!(home_relative("$HOME"), Some(""));
        assert_eq!(home_relative("${HOME}/x"), Some("x"));
        assert_eq!(home_relative("~user/x"), None);
        assert_eq!(home_relative("src/~"), None);
    }
}
