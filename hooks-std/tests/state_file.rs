//! The file store under concurrent processes: many processes updating one session's state at
//! once lose no update and never leave a torn file.

// In a test, a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

use hooks_core::state::StateStore;
use hooks_std::state_file::FileState;
use serde_json::Value;

/// Set in the child processes: the directory of the store they update.
const CHILD_DIR: &str = "HOOKS_STATE_TEST_CHILD_DIR";
/// Set in the child processes: the child's number.
const CHILD_NUMBER: &str = "HOOKS_STATE_TEST_CHILD_NUMBER";

const PROCESSES: usize = 12;
const UPDATES: usize = 40;

/// The child's part: `UPDATES` increments of `count` and appends to `log`, each its own
/// read-modify-write, plus reads in between (which must always parse).
#[test]
fn child_updates_the_shared_session() {
    let (Some(dir), Some(number)) = (
        std::env::var_os(CHILD_DIR),
        std::env::var(CHILD_NUMBER).ok(),
    ) else {
        return; // Run by the parent only.
    };
    let state = StateStore::new(FileState::new(dir))
        .session("shared")
        .unwrap();
    for update in 0..UPDATES {
        state
            .update("count", |count| {
                *count = Value::from(count.as_u64().unwrap_or(0) + 1);
            })
            .unwrap();
        state
            .update("log", |log| {
                if !log.is_array() {
                    *log = Value::Array(Vec::new());
                }
                log.as_array_mut()
                    .unwrap()
                    .push(Value::from(format!("{number}:{update}")));
            })
            .unwrap();
        // A read without the lock sees a whole file.
        state.snapshot().unwrap();
    }
}

#[test]
fn concurrent_processes_lose_no_update() {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "hooks-state-processes-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let me = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|number| {
            Command::new(&me)
                .args([
                    "--exact",
                    "child_updates_the_shared_session",
                    "--test-threads=1",
                ])
                .env(CHILD_DIR, &dir)
                .env(CHILD_NUMBER, number.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a child failed");
    }
    let state = StateStore::new(FileState::new(&dir))
        .session("shared")
        .unwrap();
    assert_eq!(
        state.get_as::<usize>("count").unwrap(),
        Some(PROCESSES * UPDATES)
    );
    let log: Vec<String> = state.get_as("log").unwrap().unwrap();
    assert_eq!(log.len(), PROCESSES * UPDATES);
    for number in 0..PROCESSES {
        let own: Vec<&String> = log
            .iter()
            .filter(|entry| entry.starts_with(&format!("{number}:")))
            .collect();
        let expected: Vec<String> = (0..UPDATES).map(|u| format!("{number}:{u}")).collect();
        assert_eq!(
            own,
            expected.iter().collect::<Vec<_>>(),
            "child {number}'s appends, in order"
        );
    }
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
