//! The guard's plain API: a command line checked in the directory it runs in, a file path,
//! and a tool call's input, with no hook framework around it.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use hooks_safety::{Guard, SafetyConfig, SelfProtection};
use serde_json::json;

fn guard() -> Guard {
    Guard::new(
        SafetyConfig {
            workspace: Some("/srv/project".into()),
            home: Some("/home/dev".into()),
            ..SafetyConfig::default()
        },
        &SelfProtection::none(),
    )
    .unwrap()
}

#[test]
fn a_command_is_judged_from_the_directory_it_runs_in() {
    let guard = guard();
    let wildcard = "rm -rf ./*";
    assert_eq!(guard.check(wildcard, Path::new("/srv/project/build")), None);
    let at_root = guard.check(wildcard, Path::new("/")).unwrap();
    assert_eq!(at_root.id(), "filesystem:rm-root");
    // A relative directory starts at the workspace.
    assert_eq!(guard.check(wildcard, Path::new("target")), None);
    assert_eq!(
        guard.check(wildcard, Path::new(".")).map(|d| d.id()),
        Some("filesystem:rm-workspace".to_owned())
    );
}

#[test]
fn the_allowances_that_let_a_deletion_through_are_reported() {
    let verdict = guard().evaluate("rm -rf target", Path::new("/srv/project"));
    assert_eq!(verdict.denial, None);
    assert_eq!(verdict.allowances, ["policy:workspace"]);
}

#[test]
fn file_paths_and_tool_inputs_are_checked_without_a_registry() {
    let guard = guard();
    assert_eq!(guard.check_path("src/main.rs"), None);
    assert_eq!(
        guard.check_path("/etc/hosts").map(|d| d.id()),
        Some("system:system-path".to_owned())
    );
    assert_eq!(
        guard.check_path("../elsewhere/notes.md").map(|d| d.id()),
        Some("workspace:outside".to_owned())
    );
    let denied = guard
        .check_tool_input(&json!({"command": "git push --force"}))
        .unwrap();
    assert_eq!(denied.id(), "git:push-force");
    assert_eq!(guard.workspace(), Path::new("/srv/project"));
}
