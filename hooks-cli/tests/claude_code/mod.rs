//! Claude Code itself, run headless against a mock of the Messages API inside a network
//! namespace with only loopback, with `hooks claude` registered in the project's settings.
//!
//! The CLI is the executable named by `HOOKS_E2E_CLAUDE` (`.ci/run` installs the version pinned
//! in `claude-code-version.txt` from npm and sets it); without it each scenario says it was
//! skipped and passes.

#![allow(dead_code)] // each scenario uses its own part

#[path = "../support/agent_project.rs"]
pub mod agent_project;
#[path = "../support/isolation.rs"]
pub mod isolation;
pub mod messages_api;
#[path = "../support/mock_http.rs"]
pub mod mock_http;
pub mod project;

use std::path::Path;

use isolation::PinnedAgent;

/// Claude Code as the scenarios take it.
pub const CLAUDE_CODE: PinnedAgent = PinnedAgent {
    name: "Claude Code",
    var: CLAUDE_VAR,
    version: PINNED_VERSION,
    package: "@anthropic-ai/claude-code",
};

/// The variable naming the `claude` executable.
pub const CLAUDE_VAR: &str = "HOOKS_E2E_CLAUDE";

/// The version of Claude Code the scenarios are written against.
pub const PINNED_VERSION: &str = include_str!("claude-code-version.txt");

/// Runs `scenario` (given the `claude` executable and a scratch directory) inside its own
/// network namespace (see [`isolation::scenario`]).
pub fn scenario(test: &str, scenario: impl FnOnce(&Path, &Path)) {
    isolation::scenario(test, &CLAUDE_CODE, scenario);
}
