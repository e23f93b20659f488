//! Where a command runs, and the code packs' checks of one command there: the `filesystem`,
//! `system`, `disk` and `secrets` rules on a program's paths, in the order they are tried.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::{Denial, Enabled, Rule};
use crate::RmPolicy;
use crate::paths::PathRules;
use crate::programs::{DISK_TOOL, POWER, WRITER, operands, recursive};

/// Where a command runs, as far as the line shows: the directory (moved by `cd`), and the
/// variables the line has assigned before it.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The directory relative paths start from.
    pub cwd: PathBuf,
    /// Whether `cwd` is known: false after a `cd` whose target is computed when the line
    /// runs (`cd "$dir"`, `cd -`), or one inside a substitution.
    pub cwd_known: bool,
    /// Variables assigned earlier in the line, with their value when it is literal text.
    /// Shared until changed: a place is copied at every `cd` and nested script, and a copy
    /// must not cost the size of everything assigned so far.
    pub vars: Rc<HashMap<String, Option<String>>>,
}

/// The longest value of a variable the check follows: a longer one (a line doubling a value
/// forty times) is taken as unknown, as a computed one is, instead of being built.
pub(crate) const MAX_VALUE_BYTES: usize = 64 * 1024;

/// The longest word the check builds by putting the variables' values in: past it, the word
/// is read as written, its variables unknown.
pub(crate) const MAX_WORD_BYTES: usize = 256 * 1024;

impl Place {
    /// The place of a line that starts in `cwd`.
    pub(crate) fn at(cwd: &Path) -> Self {
        Place {
            cwd: cwd.to_path_buf(),
            cwd_known: true,
            vars: Rc::default(),
        }
    }

    /// Whether the line assigned `name`.
    pub(crate) fn assigned(&self, name: &str) -> bool {
        self.vars.contains_key(name)
    }

    /// Records that the line assigns `name` (`value` when it is literal text and not longer
    /// than [`MAX_VALUE_BYTES`]).
    pub(crate) fn assign(&mut self, name: &str, value: Option<String>) {
        let value = value.filter(|value| value.len() <= MAX_VALUE_BYTES);
        Rc::make_mut(&mut self.vars).insert(name.to_owned(), value);
    }

    /// `word` with the variables the line assigned literal text to replaced by that text
    /// (`$NAME`, `${NAME}`); others stay as written. `None` when nothing changes, and when the
    /// word would grow past [`MAX_WORD_BYTES`] (it is then read as written).
    pub(crate) fn substitute(&self, word: &str) -> Option<String> {
        if self.vars.is_empty() || !word.contains('$') {
            return None;
        }
        let mut out = String::with_capacity(word.len());
        let mut rest = word;
        let mut changed = false;
        while let Some(dollar) = rest.find('$') {
            out.push_str(&rest[..dollar]);
            let after = &rest[dollar + 1..];
            let (name, width) = match after.strip_prefix('{') {
                Some(braced) => match braced.find('}') {
                    Some(close) => (&braced[..close], close + 2),
                    None => ("", 0),
                },
                None => {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (&after[..end], end)
                }
            };
            match self.vars.get(name) {
                Some(Some(value)) if !name.is_empty() => {
                    if out.len() + value.len() > MAX_WORD_BYTES {
                        return None;
                    }
                    out.push_str(value);
                    rest = &after[width..];
                    changed = true;
                }
                _ => {
                    out.push('$');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        changed.then_some(out)
    }
}

/// The checks that depend on where a command runs.
pub(crate) struct Here<'r> {
    pub(crate) paths: &'r PathRules,
    enabled: &'r Enabled,
    pub(crate) rm_policy: RmPolicy,
    /// Rules that would have fired but for a policy, for the report.
    exemptions: &'r RefCell<Vec<&'static Rule>>,
    place: &'r Place,
    /// Whether the directory's path holds a literal of the protected patterns, once known.
    pub(crate) cwd_hinted: Cell<Option<bool>>,
}

impl<'r> Here<'r> {
    /// The checks for a command run in `cwd`.
    pub(crate) fn new(
        paths: &'r PathRules,
        enabled: &'r Enabled,
        rm_policy: RmPolicy,
        exemptions: &'r RefCell<Vec<&'static Rule>>,
        place: &'r Place,
    ) -> Self {
        Here {
            paths,
            enabled,
            rm_policy,
            exemptions,
            place,
            cwd_hinted: Cell::new(None),
        }
    }

    /// Where the command runs.
    pub(crate) fn place(&self) -> &Place {
        self.place
    }

    /// The directory the command runs in.
    pub(crate) fn cwd(&self) -> &Path {
        &self.place.cwd
    }

    /// `raw` as an absolute path from here.
    pub(crate) fn absolute(&self, raw: &str) -> Result<PathBuf, String> {
        self.paths.absolute_from(raw, &self.place.cwd)
    }

    /// `raw` with a leading `$TMPDIR` replaced by the temporary directory, unless the line
    /// assigned `TMPDIR` itself: then `$TMPDIR` is whatever the line made it, and stays
    /// computed.
    pub(crate) fn expand_temp(&self, raw: &str) -> Option<String> {
        if self.place.assigned("TMPDIR") {
            return None;
        }
        self.paths.expand_temp(raw)
    }

    /// Whether the pack `pack` is on.
    pub(crate) fn on(&self, pack: &str) -> bool {
        self.enabled.has(pack)
    }

    /// Records that `rule` let a deletion through.
    pub(crate) fn exempt(&self, rule: &'static Rule) {
        self.exemptions.borrow_mut().push(rule);
    }

    /// Destructive programs and their dangerous uses.
    pub(crate) fn destructive(
        &self,
        program: &str,
        roles: u16,
        args: &[String],
        elevated: bool,
    ) -> Option<Denial> {
        let interesting = elevated
            || roles & (WRITER | DISK_TOOL | POWER) != 0
            || matches!(
                program,
                "unlink" | "init" | "systemctl" | "dd" | "format" | "del" | "erase" | "rd"
            )
            || program.starts_with("mkfs");
        if !interesting {
            return None;
        }
        let (options, operands) = operands(args);
        if let Some(denial) = self.refused_deletion(program, &options, &operands, elevated) {
            return Some(denial);
        }
        if self.on("filesystem")
            && let Some(denial) = Self::windows_root_deletion(program, args)
        {
            return Some(denial);
        }
        if self.on("disk")
            && let Some(denial) = self.disk(program, args, &operands)
        {
            return Some(denial);
        }
        if matches!(program, "chmod" | "chown" | "chgrp")
            && recursive(&options)
            && let Some(denial) = self.recursive_permissions(&operands)
        {
            return Some(denial);
        }
        if elevated
            && roles & WRITER != 0
            && let Some(denial) = self.elevated_write(program)
        {
            return Some(denial);
        }
        if roles & WRITER != 0 {
            // `cp`, `install` and `ln` write only their last operand; the others are read.
            let written = match program {
                "cp" | "install" | "ln" => operands.len().saturating_sub(1),
                _ => 0,
            };
            for operand in &operands[written..] {
                if let Some(denial) = self.written_path(operand) {
                    return Some(denial);
                }
            }
        }
        None
    }
}
