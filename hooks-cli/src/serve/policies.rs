//! The hooks files `hooks serve` answers with, one per project, loaded on first use and
//! reloaded when they change: the project's file, or the managed or user file layered over it
//! (their modification times and sizes, checked on every request).
//!
//! A file that stops loading (a broken edit, a deletion) leaves the last policy that loaded in
//! force, never a window without a guard: the problem is logged once per change and shown on
//! `/health`. A file that never loaded answers as `hooks <agent>` does with it: a block that
//! says why.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use hooks_config::{LayerPaths, Level, Policy, PolicyStack};
use hooks_core::state::{MemoryState, StateBackend};
use hooks_std::state_file::FileState;
use serde::Serialize;

use crate::adapter;
use crate::modules::{catalog, unloadable};

/// What identifies a version of a file: its modification time and size (`None`: unreadable).
type FileStamp = Option<(SystemTime, u64)>;

fn stamp_of(file: &Path) -> FileStamp {
    let meta = std::fs::metadata(file).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// What identifies a version of a project's policy: the stamps of its file and of the
/// managed and user files over it (one appearing or going away is a change too).
type Stamp = [FileStamp; 3];

/// One hooks file as the server knows it.
#[derive(Default)]
struct Slot {
    /// The version last read, loaded or not.
    stamp: Stamp,
    /// Whether a version was read at all.
    read: bool,
    /// The last version that loaded.
    good: Option<Arc<Policy>>,
    /// Why the version last read does not load (`None`: it does).
    broken: Option<String>,
}

/// The session states of every project, shared by the policies as they are reloaded (an
/// "always" answer outlives an edit of the hooks file): the files `hooks <agent>` keeps them
/// in ([`FileState::from_env`]), so that a session decides the same whichever of the two
/// answers it; in memory where no state directory is known.
fn shared_state() -> Arc<dyn StateBackend> {
    match FileState::from_env() {
        Some(files) => Arc::new(files),
        None => Arc::new(MemoryState::new()),
    }
}

/// The hooks files in use, by path.
pub struct Policies {
    slots: Mutex<HashMap<PathBuf, Slot>>,
    state: Arc<dyn StateBackend>,
    /// Where the managed and user files are.
    layers: LayerPaths,
}

/// A hooks file's state, as `/health` shows it to a caller with the token.
#[derive(Debug, Serialize)]
pub struct FileReport {
    /// The file.
    pub file: PathBuf,
    /// Whether a policy from it is in force.
    pub in_force: bool,
    /// Why its current version does not load, when it does not.
    pub broken: Option<String>,
}

impl Policies {
    /// No file loaded yet; the managed and user files looked for in `layers`.
    pub fn new(layers: LayerPaths) -> Self {
        Policies {
            slots: Mutex::default(),
            state: shared_state(),
            layers,
        }
    }

    /// The stamp of the policy of the project file `file`.
    fn stamp(&self, file: &Path) -> Stamp {
        let layer = |level| self.layers.of(level).and_then(stamp_of);
        [stamp_of(file), layer(Level::Managed), layer(Level::User)]
    }

    fn slots(&self) -> MutexGuard<'_, HashMap<PathBuf, Slot>> {
        // A slot is replaced whole, so a panic elsewhere leaves the map consistent.
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The policy of `file`, reloaded when the file changed; the load errors when no
    /// version of it has loaded.
    pub fn get(&self, file: &Path) -> Result<Arc<Policy>, String> {
        let stamp = self.stamp(file);
        {
            let slots = self.slots();
            if let Some(slot) = slots
                .get(file)
                .filter(|slot| slot.read && slot.stamp == stamp)
            {
                return current(slot);
            }
        }
        // Loaded without the lock: another project's requests go on meanwhile. Two requests
        // may load the same new version; either result is the same.
        let loaded = PolicyStack::load(&self.layers, file, &catalog())
            .map_err(|error| unloadable(&error))
            .and_then(|stack| adapter::mount(&stack, Some(self.state.clone())));
        let mut slots = self.slots();
        let slot = slots.entry(file.to_path_buf()).or_default();
        slot.stamp = stamp;
        slot.read = true;
        match loaded {
            Ok(policy) => {
                if slot.broken.take().is_some() || slot.good.is_some() {
                    eprintln!("hooks serve: {}: reloaded", file.display());
                }
                slot.good = Some(Arc::new(policy));
            }
            Err(errors) => {
                if slot.good.is_some() {
                    eprintln!(
                        "hooks serve: {}: does not load, the last version that did stays in \
                         force:\n{errors}",
                        file.display()
                    );
                } else {
                    eprintln!("hooks serve: {}: does not load:\n{errors}", file.display());
                }
                slot.broken = Some(errors);
            }
        }
        current(slot)
    }

    /// Every file in use, sorted.
    pub fn report(&self) -> Vec<FileReport> {
        let mut files: Vec<FileReport> = self
            .slots()
            .iter()
            .map(|(file, slot)| FileReport {
                file: file.clone(),
                in_force: slot.good.is_some(),
                broken: slot.broken.clone(),
            })
            .collect();
        files.sort_by(|a, b| a.file.cmp(&b.file));
        files
    }
}

/// The policy in force for `slot`, or why there is none.
fn current(slot: &Slot) -> Result<Arc<Policy>, String> {
    match (&slot.good, &slot.broken) {
        (Some(policy), _) => Ok(Arc::clone(policy)),
        (None, Some(errors)) => Err(errors.clone()),
        (None, None) => Err("the hooks file was never read".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const GOOD: &str = "hooks: {}\n";

    #[test]
    fn a_broken_edit_keeps_the_last_policy_and_is_reported() {
        let dir = hooks_testing::scratch_dir("serve-policies", "broken-edit");
        let file = dir.join("hooks.yaml");
        std::fs::write(&file, GOOD).unwrap();
        let policies = Policies::new(LayerPaths::none());
        let first = policies.get(&file).unwrap();
        // Same version: the same policy, not a reload.
        assert!(Arc::ptr_eq(&first, &policies.get(&file).unwrap()));
        std::fs::write(&file, "hooks: [not, a, map]\nmore: x\n").unwrap();
        let kept = policies.get(&file).unwrap();
        assert!(Arc::ptr_eq(&first, &kept), "the last good policy stays");
        let report = policies.report();
        assert_eq!(report.len(), 1);
        assert!(report[0].in_force);
        assert!(report[0].broken.is_some(), "{report:?}");
        std::fs::remove_file(&file).unwrap();
        assert!(Arc::ptr_eq(&first, &policies.get(&file).unwrap()));
        std::fs::write(&file, "hooks:\n  PreToolUse: []\n").unwrap();
        let fixed = policies.get(&file).unwrap();
        assert!(!Arc::ptr_eq(&first, &fixed), "a fixed file is reloaded");
        assert!(policies.report()[0].broken.is_none());
    }

    #[test]
    fn an_edit_of_the_user_or_managed_file_reloads_the_project() {
        let dir = hooks_testing::scratch_dir("serve-policies", "layers");
        let (managed, user) = (dir.join("managed.yaml"), dir.join("user.yaml"));
        let file = dir.join("hooks.yaml");
        std::fs::write(&file, GOOD).unwrap();
        let policies = Policies::new(LayerPaths {
            managed: Some(managed.clone()),
            user: Some(user.clone()),
        });
        let first = policies.get(&file).unwrap();
        // A user file appearing is a new policy.
        std::fs::write(&user, "hooks:\n  PreToolUse: []\n").unwrap();
        let with_user = policies.get(&file).unwrap();
        assert!(!Arc::ptr_eq(&first, &with_user), "the user file is seen");
        assert!(Arc::ptr_eq(&with_user, &policies.get(&file).unwrap()));
        // So is a managed one, and a broken edit of it keeps the last good policy.
        std::fs::write(&managed, "hooks:\n  Stop: []\n").unwrap();
        let with_managed = policies.get(&file).unwrap();
        assert!(
            !Arc::ptr_eq(&with_user, &with_managed),
            "the managed file is seen"
        );
        std::fs::write(&managed, "hooks: [broken\n").unwrap();
        assert!(Arc::ptr_eq(&with_managed, &policies.get(&file).unwrap()));
        let report = policies.report();
        assert!(
            report[0].broken.as_deref().unwrap().contains("managed"),
            "{report:?}"
        );
    }

    #[test]
    fn a_file_that_never_loaded_has_no_policy() {
        let dir = hooks_testing::scratch_dir("serve-policies", "never");
        let policies = Policies::new(LayerPaths::none());
        let error = policies.get(&dir.join("missing.yaml")).err().unwrap();
        assert!(!error.is_empty());
        assert!(!policies.report()[0].in_force);
    }
}
