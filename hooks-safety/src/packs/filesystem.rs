//! The `filesystem` pack: recursive deletion of the root, the home directory, system
//! directories, the whole workspace or anything outside it, deletion as root, and programs
//! computed when the command runs.

use std::path::Path;

use super::builtin as rules;
use super::here::Here;
use super::{Denial, Enabled};
use crate::RmPolicy;
use crate::programs::{forced, operands, recursive};

/// `find` tests that select some files only.
pub(crate) const FIND_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-regex",
    "-iregex",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-empty",
    "-size",
    "-user",
    "-group",
    "-perm",
];

/// A program computed when the command runs (`$RM -rf ...`) cannot be checked: with
/// recursive options it is denied.
pub(crate) fn computed_program(
    enabled: &Enabled,
    program: &str,
    args: &[String],
) -> Option<Denial> {
    if !(program.starts_with('$') || program.starts_with('`')) || !enabled.has("filesystem") {
        return None;
    }
    let (options, _) = operands(args);
    recursive(&options).then(|| {
        Denial::new(
            &rules::COMPUTED_PROGRAM,
            format!(
                "the program `{program}` is computed when the command runs, with recursive \
                 options, so it cannot be checked; name the program directly"
            ),
        )
    })
}

impl Here<'_> {
    /// A deletion the filesystem pack refuses: as root, with `--no-preserve-root`, of a
    /// dangerous target, or (under `rm_policy: temp_only`) outside the temporary directories.
    pub(crate) fn refused_deletion(
        &self,
        program: &str,
        options: &[&str],
        operands: &[&str],
        elevated: bool,
    ) -> Option<Denial> {
        let deleting = matches!(program, "rm" | "rmdir" | "unlink" | "shred");
        if !deleting || !self.on("filesystem") {
            return None;
        }
        if elevated {
            return Some(Denial::new(
                &rules::ELEVATED_DELETE,
                format!(
                    "`sudo {program}` is blocked: deleting as root can destroy the system; \
                     delete files you own, inside the project instead"
                ),
            ));
        }
        if options.contains(&"--no-preserve-root") {
            return Some(Denial::new(
                &rules::NO_PRESERVE_ROOT,
                "`--no-preserve-root` is blocked: it exists only to delete the whole file \
                 system; delete a specific directory instead"
                    .to_owned(),
            ));
        }
        if program == "rm" && recursive(options) {
            if let Some(denial) = operands.iter().find_map(|t| self.dangerous_target(t)) {
                return Some(denial);
            }
            if self.rm_policy == RmPolicy::TempOnly
                && forced(options)
                && let Some(target) = operands.iter().find(|t| !self.literally_temporary(t))
            {
                return Some(Denial::new(
                    &rules::RM_OUTSIDE_TEMP,
                    format!(
                        "refusing `rm -rf {target}`: with `rm_policy: temp_only` only \
                             /tmp, /var/tmp and $TMPDIR may be deleted recursively; delete \
                             specific files, or ask the user"
                    ),
                ));
            }
        }
        None
    }

    /// `find ROOTS … -delete`: with tests (`-name '*.orig'`) only some files go, so only the
    /// trees the system depends on are refused; without, the whole root goes.
    pub(crate) fn find_delete(&self, roots: &[&str], filtered: bool) -> Option<Denial> {
        if !self.on("filesystem") {
            return None;
        }
        for denial in roots.iter().filter_map(|root| self.dangerous_target(root)) {
            if !filtered || matches!(denial.rule.as_str(), "rm-root" | "rm-home" | "rm-system") {
                return Some(denial);
            }
            self.exempt(&rules::POLICY_FILTERED);
        }
        None
    }

    /// Why deleting `target` from inline code is refused, if it is.
    pub(crate) fn deletion(&self, target: &str, recursive: bool) -> Option<String> {
        if recursive {
            self.dangerous_target(target).map(|d| d.message)
        } else {
            self.written_path(target).map(|d| d.message)
        }
    }

    /// Whether `target` is literally under a temporary directory (`/tmp/…`, `$TMPDIR/…`).
    pub(crate) fn literally_temporary(&self, target: &str) -> bool {
        let expanded = self.expand_temp(target);
        let candidate = expanded.as_deref().unwrap_or(target);
        candidate.starts_with('/')
            && self
                .absolute(candidate)
                .is_ok_and(|path| self.paths.in_temp(&path))
    }

    /// A recursive target that would take the system, the home directory or the workspace.
    pub(crate) fn dangerous_target(&self, target: &str) -> Option<Denial> {
        let globbed = target.ends_with('*');
        let stripped = target
            .trim_end_matches('*')
            .trim_end_matches(".*")
            .trim_end_matches('/');
        let stripped = if stripped.is_empty() && target.starts_with('/') {
            "/"
        } else {
            stripped
        };
        let expanded = self.expand_temp(stripped);
        let stripped = expanded.as_deref().unwrap_or(stripped);
        let computed = (stripped.starts_with('$')
            && !(stripped.starts_with("$HOME") || stripped.starts_with("${HOME}")))
            || stripped.starts_with('`');
        if computed {
            return Some(Denial::new(
                &rules::RM_COMPUTED,
                format!(
                    "refusing to delete `{target}` recursively: the shell computes that path \
                     when it runs, so it cannot be checked; name the directory directly instead"
                ),
            ));
        }
        if !self.place().cwd_known && !stripped.starts_with(['/', '~']) {
            return Some(Denial::new(
                &rules::RM_COMPUTED,
                format!(
                    "refusing to delete `{target}` recursively: an earlier `cd` moved to a \
                     directory the shell computes when it runs, so where `{target}` is cannot \
                     be checked; use an absolute path inside the project instead"
                ),
            ));
        }
        let path = match self.absolute(if stripped.is_empty() { "." } else { stripped }) {
            Ok(path) => path,
            Err(why) => {
                return Some(Denial::new(
                    &rules::RM_OUTSIDE,
                    format!("refusing to delete `{target}`: {why}"),
                ));
            }
        };
        let paths = self.paths;
        let (rule, what) = if path == Path::new("/") {
            (&rules::RM_ROOT, "the root of the file system")
        } else if paths.home.as_deref() == Some(path.as_path()) {
            (&rules::RM_HOME, "your home directory")
        } else if paths.is_system(&path) {
            (&rules::RM_SYSTEM, "a protected system directory")
        } else if path == paths.workspace {
            (&rules::RM_WORKSPACE, "the whole workspace")
        } else if paths.workspace.starts_with(&path) {
            // Checked before the temporary directories: a workspace under /tmp goes with its
            // parent all the same.
            (
                &rules::RM_WORKSPACE,
                "a directory that holds the whole workspace",
            )
        } else if paths.is_secret(&path) || paths.is_secret(&path.join("*")) {
            // `~/.ssh` itself, or a directory whose every file is protected (`.ssh/**`).
            return Some(Denial::new(
                &rules::SECRET_FILE,
                format!(
                    "refusing to delete `{target}` recursively: it holds keys or credentials; \
                     ask the user to handle it instead"
                ),
            ));
        } else if paths.in_workspace(&path) {
            self.exempt(&rules::POLICY_WORKSPACE);
            return None;
        } else if paths.in_temp(&path) && (globbed || !paths.is_temp_root(&path)) {
            self.exempt(&rules::POLICY_TEMP);
            return None;
        } else if paths.is_temp_root(&path) {
            (&rules::RM_TEMP_ROOT, "a whole temporary directory")
        } else {
            (&rules::RM_OUTSIDE, "outside the workspace")
        };
        Some(Denial::new(
            rule,
            format!(
                "refusing to delete `{target}` recursively: it is {what}; delete the specific \
                 build or output directory inside the project instead"
            ),
        ))
    }

    /// `del /s`, `rd /s` (cmd.exe) of a drive's root: `C:\`, `C:`, `\`.
    pub(super) fn windows_root_deletion(program: &str, args: &[String]) -> Option<Denial> {
        let program = program.to_ascii_lowercase();
        if !matches!(program.as_str(), "del" | "erase" | "rd" | "rmdir") {
            return None;
        }
        let recursive = args.iter().any(|a| a.eq_ignore_ascii_case("/s"));
        let root = args.iter().find(|a| is_drive_root(a))?;
        recursive.then(|| {
            Denial::new(
                &rules::RM_ROOT,
                format!(
                    "refusing `{program} /s {root}`: it deletes a whole drive; delete the specific \
                     directory inside the project instead"
                ),
            )
        })
    }
}

/// A drive letter alone or its root (`C:`, `c:\`, `C:\*`), or the current drive's root.
pub(crate) fn is_drive_root(word: &str) -> bool {
    let trimmed = word.trim_end_matches(['*', '.']).trim_end_matches('\\');
    let bytes = trimmed.as_bytes();
    (trimmed.is_empty() && word.starts_with('\\'))
        || (bytes.len() == 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}
