//! The `hooks` binary, run as a user runs it.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn hooks(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.unwrap_or("").as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn scratch(test: &str, yaml: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("hooks-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    (dir, file)
}

const POLICY: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no_env
      match:
        args:
          file_path: "**/.env*"
      action: block
      message: "Cannot modify environment files"
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn eval_prints_the_merged_result_and_exits_zero_even_on_a_deny() {
    let (dir, file) = scratch("eval", POLICY);
    let data = r#"{"tool_name": "Write", "tool_input": {"file_path": "config/.env"}}"#;

    let denied = hooks(
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "tool:pre",
            "--data",
            data,
        ],
        None,
    );
    let allowed = hooks(
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "PreToolUse",
            "--data",
            "-",
        ],
        Some(r#"{"tool_name": "Write", "tool_input": {"file_path": "src/a.rs"}}"#),
    );

    assert!(denied.status.success(), "{}", text(&denied.stderr));
    let result: Value = serde_json::from_slice(&denied.stdout).unwrap();
    assert_eq!(result["action"], "deny");
    assert_eq!(result["reason"], "Cannot modify environment files");
    assert_eq!(
        result["approval_default"], "deny",
        "reference field names and defaults"
    );
    assert_eq!(text(&denied.stdout).lines().count(), 1, "one JSON object");
    let result: Value = serde_json::from_slice(&allowed.stdout).unwrap();
    assert_eq!(result["action"], "continue");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn eval_reports_bad_input_on_stderr_and_exits_non_zero() {
    let (dir, file) = scratch("eval-errors", "hooks:\n  PreToolUsee: []\n");
    let good = scratch("eval-errors-good", POLICY).1;
    let broken_config = hooks(
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "tool:pre",
        ],
        None,
    );
    let bad_data = hooks(
        &[
            "eval",
            "--config",
            good.to_str().unwrap(),
            "--event",
            "tool:pre",
            "--data",
            "[1",
        ],
        None,
    );
    let bad_event = hooks(
        &[
            "eval",
            "--config",
            good.to_str().unwrap(),
            "--event",
            "tool:prre",
        ],
        None,
    );
    let usage = hooks(&["eval", "--event", "tool:pre"], None);

    for (output, fragment) in [
        (
            &broken_config,
            "hooks.yaml:2:3: unknown event `PreToolUsee`",
        ),
        (&bad_data, "--data is not JSON"),
        (&bad_event, "did you mean `tool:pre`"),
        (&usage, "--config"),
    ] {
        assert!(!output.status.success());
        assert!(output.stdout.is_empty(), "nothing on stdout on error");
        assert!(
            text(&output.stderr).contains(fragment),
            "{}",
            text(&output.stderr)
        );
    }
    assert_eq!(usage.status.code(), Some(2), "a usage error");
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(good.parent().unwrap()).unwrap();
}

#[test]
fn check_validates_every_file_and_prints_every_problem() {
    let (dir, good) = scratch("check", POLICY);
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "hooks:\n  tool:pre:\n    - type: command\n      timeout_ms: 0\n",
    )
    .unwrap();

    let ok = hooks(&["check", good.to_str().unwrap()], None);
    let failed = hooks(
        &["check", good.to_str().unwrap(), bad.to_str().unwrap()],
        None,
    );

    assert!(ok.status.success());
    assert!(text(&ok.stdout).contains("ok (1 hooks)"));
    assert_eq!(failed.status.code(), Some(1));
    let errors = text(&failed.stderr);
    assert!(
        errors.contains("bad.yaml:3:7: hook 1 of `tool:pre` is missing `command`"),
        "{errors}"
    );
    assert!(
        errors.contains("bad.yaml:4:19: `timeout_ms` must be from 1"),
        "{errors}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn events_lists_names_aliases_and_fields() {
    let output = hooks(&["events"], None);
    let listing = text(&output.stdout);
    assert!(output.status.success());
    assert!(
        listing.contains("tool:pre (PreToolUse): tool_name, tool_input\n"),
        "{listing}"
    );
    assert_eq!(listing.lines().count(), hooks_core::events::CANONICAL.len());
}
