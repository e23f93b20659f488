//! Claude Code itself, run headless against a mock of the Messages API inside a network
//! namespace with only loopback, with `hooks claude` registered in the project's settings.
//!
//! The CLI is the executable named by `HOOKS_E2E_CLAUDE` (`.ci/run` installs the version pinned
//! in `claude-code-version.txt` from npm and sets it); without it each scenario says it was
//! skipped and passes.

#![allow(dead_code)] // each scenario uses its own part

pub mod isolation;
pub mod messages_api;
pub mod project;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming the `claude` executable.
pub const CLAUDE_VAR: &str = "HOOKS_E2E_CLAUDE";

/// The version of Claude Code the scenarios are written against.
pub const PINNED_VERSION: &str = include_str!("claude-code-version.txt");

/// Runs `scenario` (given the `claude` executable and a scratch directory) inside its own
/// network namespace, or says why it cannot be run: skipped, printed past the test harness's
/// capture, when `HOOKS_E2E_CLAUDE` is unset; a failure when it names something that is not
/// the pinned Claude Code.
pub fn scenario(test: &str, scenario: impl FnOnce(&Path, &Path)) {
    let claude = match std::env::var_os(CLAUDE_VAR) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "{test}: skipped: set {CLAUDE_VAR} to a `claude` executable of Claude Code {} \
                 to run it (.ci/run does)",
                PINNED_VERSION.trim()
            );
            return;
        }
    };
    if let Some(scratch) = isolation::inside() {
        let interfaces = isolation::network_interfaces();
        assert_eq!(
            interfaces,
            ["lo"],
            "the scenario must run where only loopback exists"
        );
        scenario(&claude, &scratch);
        isolation::mark_done(&scratch);
        return;
    }
    check_version(&claude);
    let scratch = isolation::scratch_dir(test);
    isolation::run_inside(test, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Panics unless `claude --version` names the pinned version.
fn check_version(claude: &Path) {
    let output = Command::new(claude)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .unwrap_or_else(|error| panic!("{CLAUDE_VAR}={}: {error}", claude.display()));
    let version = String::from_utf8_lossy(&output.stdout);
    let pinned = PINNED_VERSION.trim();
    assert!(
        output.status.success() && version.split_whitespace().next() == Some(pinned),
        "{CLAUDE_VAR}={} is not Claude Code {pinned} (`--version` said {:?}, {}); install it \
         with `npm install --prefix target/claude-code @anthropic-ai/claude-code@{pinned}`",
        claude.display(),
        version.trim(),
        String::from_utf8_lossy(&output.stderr).trim()
    );
}
