//! The `system` pack: writing into system directories, changing files as root, and
//! recursive permission changes on the trees the system depends on.

use super::Denial;
use super::builtin as rules;
use super::disk::is_device;
use super::here::Here;

impl Here<'_> {
    /// `chmod -R`, `chown -R`, `chgrp -R` on a tree the system depends on: permissions
    /// elsewhere can be put back.
    pub(crate) fn recursive_permissions(&self, operands: &[&str]) -> Option<Denial> {
        if !self.on("system") {
            return None;
        }
        operands
            .iter()
            .filter_map(|t| self.dangerous_target(t))
            .find(|d| matches!(d.rule.as_str(), "rm-root" | "rm-home" | "rm-system"))
            .map(|denial| Denial::new(&rules::RECURSIVE_PERMISSIONS, denial.message))
    }

    /// A program that writes, run as root.
    pub(crate) fn elevated_write(&self, program: &str) -> Option<Denial> {
        self.on("system").then(|| {
            Denial::new(
                &rules::ELEVATED_WRITE,
                format!(
                    "`sudo {program}` is blocked: changing files as root can break the system; \
                     work on files you own, inside the project instead"
                ),
            )
        })
    }

    /// A path written to: a system directory, a disk device or a secret.
    pub(crate) fn written_path(&self, target: &str) -> Option<Denial> {
        if is_device(target) && self.on("disk") {
            return Some(Denial::new(
                &rules::DEVICE_WRITE,
                format!(
                    "writing to `{target}` would overwrite a disk device; write to a file instead"
                ),
            ));
        }
        let path = self.absolute(target).ok()?;
        if self.paths.is_system(&path) && self.on("system") {
            return Some(Denial::new(
                &rules::WRITE_SYSTEM,
                format!(
                    "`{target}` is in a protected system directory; write inside the project \
                     instead"
                ),
            ));
        }
        self.secret(target)
    }
}
