//! What the integration tests of hooks-config share: scratch directories and checks on processes.

#![allow(dead_code)] // each test binary uses its own part

use std::path::Path;
use std::time::{Duration, Instant};

use hooks_config::load_file;
use hooks_core::{HookModule, HookRegistry};

pub use hooks_testing::scratch_dir as scratch;

/// Writes `yaml` as `hooks.yaml` in `dir`, loads it and mounts it on a fresh registry (the
/// hooks stay registered for the registry's life).
pub fn mounted(dir: &Path, yaml: &str) -> HookRegistry {
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).expect("writes the hooks file");
    let config = load_file(&file).unwrap_or_else(|errors| panic!("{errors}"));
    let registry = HookRegistry::new();
    let _mounted = config.mount(&registry).expect("mounts");
    registry
}

/// Whether `pid` is still running. A zombie is dead: once reparented, reaping it is the init
/// process's job.
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit(')')
                .next()
                .map(|rest| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Waits (up to a generous bound) for `pid` to be gone; false if it is still running then.
pub async fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}
