//! `cargo xtask validate` end to end: the real workspace passes, the broken fixture fails with
//! every problem located, `--json` is JSON, and a mistyped part is a usage error.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::Path;
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_workspace_passes_and_its_hooks_are_listed() {
    let output = xtask(&["validate", "--only", "config,annotated,behaviour"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    for line in [
        "✓ hooks-cli/demo/hooks.yaml: 2 hooks",
        "✓ registration: hooks-core's canary is seen",
        "✓ fixture::forbid_tool: tool:pre (PreToolUse), priority -50, fixtures/annotated-hooks/src/lib.rs:",
        "✓ safety: passes the 6 checks of the suite",
        "✓ linter: passes the 6 checks of the suite",
    ] {
        assert!(stdout.contains(line), "missing `{line}` in\n{stdout}");
    }
    // The broken fixture is a workspace of its own, not part of this one.
    assert!(!stdout.contains("broken-workspace"), "{stdout}");
    assert!(stdout.ends_with("0 failed\n"), "{stdout}");
}

#[test]
fn a_broken_hooks_file_fails_with_each_problem_located() {
    let output = xtask(&[
        "validate",
        "--only",
        "config",
        "hooks-validate/tests/broken-workspace",
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("✗ hooks-validate/tests/broken-workspace/hooks.yaml: 2 problems"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "hooks-validate/tests/broken-workspace/hooks.yaml:11:3: unknown event `PreToolUze`"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("validate: 1 passed, 1 failed"), "{stdout}");
}

#[test]
fn json_reports_the_same_findings() {
    let output = xtask(&["validate", "--json", "--only", "annotated"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["passed"], true);
    let subjects: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["subject"].as_str().unwrap())
        .collect();
    assert!(subjects.contains(&"fixture::forbid_tool"), "{report}");
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["part"] == "annotated")
    );
}

#[test]
fn the_module_filter_runs_the_suite_on_the_named_modules_only() {
    let output = xtask(&["validate", "--only", "behaviour", "--module", "redact"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("✓ redaction:"), "{stdout}");
    assert!(!stdout.contains("safety"), "{stdout}");
}

#[test]
fn a_mistyped_part_is_a_usage_error_naming_the_parts() {
    let output = xtask(&["validate", "--only", "lint"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "unknown part `lint`; the parts are config, annotated, behaviour and hygiene"
        ),
        "{stderr}"
    );
}
