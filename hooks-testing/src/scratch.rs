//! Scratch directories for tests that write files (hooks files, logs, workspaces).
//!
//! They live under one directory of the system's temporary directory, `hooks-tests`, named by
//! the test process. A test process cannot remove its own when it ends (the test harness has no
//! hook for that), so the first scratch directory a process asks for removes those of test
//! processes that have ended: a run leaves the directories of its last test binary only, and a
//! failing test's files stay to be looked at when its binary is run alone.

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// Where every scratch directory goes.
fn root() -> PathBuf {
    std::env::temp_dir().join("hooks-tests")
}

/// A fresh, empty directory for one test `test` of suite `suite`, under the system's temporary
/// directory and unique in this process, so that tests running in parallel never share one.
/// It is outside any project (nothing above it is a repository or holds a hooks file).
///
/// Any earlier directory of the same name is removed first, and so are the directories of test
/// processes that have ended (the module's documentation).
///
/// ```
/// let dir = hooks_testing::scratch_dir("docs", "example");
/// assert!(dir.is_dir());
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
/// ```
///
/// # Panics
///
/// When the directory cannot be created: a test cannot go on without it.
pub fn scratch_dir(suite: &str, test: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static SWEPT: Once = Once::new();
    let root = root();
    SWEPT.call_once(|| remove_ended(&root, SystemTime::now()));
    let dir = root.join(format!(
        "{}-{suite}-{test}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(error) = std::fs::create_dir_all(&dir) {
        panic!(
            "cannot create the scratch directory {}: {error}",
            dir.display()
        );
    }
    dir
}

/// Removes the directories in `root` of test processes that have ended.
fn remove_ended(root: &Path, now: SystemTime) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && has_ended(pid, &entry.path(), now) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether process `pid`, which made `dir`, has ended: on Linux, whether it is gone from
/// `/proc`; elsewhere, whether `dir` is a day old (no test runs that long).
fn has_ended(pid: u32, dir: &Path, now: SystemTime) -> bool {
    if cfg!(target_os = "linux") {
        return !Path::new("/proc").join(pid.to_string()).exists();
    }
    std::fs::metadata(dir)
        .and_then(|metadata| metadata.modified())
        .is_ok_and(|made| {
            now.duration_since(made)
                .is_ok_and(|age| age > Duration::from_secs(24 * 60 * 60))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directories_of_ended_processes_are_removed_and_others_kept() {
        let root = root().join(format!("sweep-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        // A process that cannot be running (above Linux's largest pid), this one, and a
        // directory that is not a scratch directory.
        let ended = root.join("4294967295-suite-test-0");
        let running = root.join(format!("{}-suite-test-0", std::process::id()));
        let other = root.join("notes");
        for dir in [&ended, &running, &other] {
            std::fs::create_dir_all(dir).expect("a directory");
        }
        let in_a_day = SystemTime::now() + Duration::from_secs(2 * 24 * 60 * 60);
        remove_ended(&root, in_a_day);
        assert!(!ended.exists(), "its process has ended");
        assert!(running.exists(), "this process runs");
        assert!(other.exists(), "not a scratch directory");
        let _ = std::fs::remove_dir_all(&root);
    }
}
