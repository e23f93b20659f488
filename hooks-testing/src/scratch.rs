//! Scratch directories for tests that write files (hooks files, logs, workspaces).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty directory for one test `test` of suite `suite`, under the system's temporary
/// directory and unique in this process, so that tests running in parallel never share one.
///
/// Any earlier directory of the same name (left by a killed run) is removed first.
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
    let dir = std::env::temp_dir().join(format!(
        "hooks-{suite}-{}-{test}-{}",
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
