//! Where a command runs, and the code packs' checks of one command there: the `filesystem`,
//! `system`, `disk` and `secrets` rules on a program's paths, in the order they are tried.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use super::{Denial, Enabled, Rule};
use crate::RmPolicy;
use crate::paths::PathRules;
use crate::programs::{DISK_TOOL, POWER, WRITER, operands, recursive};

/// The checks that depend on the directory a command runs in.
pub(crate) struct Here<'r> {
    pub(crate) paths: &'r PathRules,
    enabled: &'r Enabled,
    pub(crate) rm_policy: RmPolicy,
    /// Rules that would have fired but for a policy, for the report.
    exemptions: &'r RefCell<Vec<&'static Rule>>,
    cwd: &'r Path,
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
        cwd: &'r Path,
    ) -> Self {
        Here {
            paths,
            enabled,
            rm_policy,
            exemptions,
            cwd,
            cwd_hinted: Cell::new(None),
        }
    }

    /// The directory the command runs in.
    pub(crate) fn cwd(&self) -> &Path {
        self.cwd
    }

    /// `raw` as an absolute path from here.
    pub(crate) fn absolute(&self, raw: &str) -> Result<PathBuf, String> {
        self.paths.absolute_from(raw, self.cwd)
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
            || matches!(program, "unlink" | "init" | "systemctl" | "dd")
            || program.starts_with("mkfs");
        if !interesting {
            return None;
        }
        let (options, operands) = operands(args);
        if let Some(denial) = self.refused_deletion(program, &options, &operands, elevated) {
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
            for operand in &operands {
                if let Some(denial) = self.written_path(operand) {
                    return Some(denial);
                }
            }
        }
        None
    }
}
