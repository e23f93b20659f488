//! `hooks droid`: Factory Droid's hook JSON on stdin (Claude Code's fields and
//! Factory's tool names, in either casing), every answer read by Factory Droid's rules ([`support::run`] checks each).

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

/// Rules on canonical tools, and the safety module's path rules.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
"#;

fn policy(test: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("droid", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, POLICY).unwrap();
    file
}

fn droid(config: &Path, input: &Value) -> Output {
    support::run(
        None,
        &["droid".as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": "/tmp",
           "tool_name": tool, "tool_input": input, "permission_mode": "auto-medium"})
}

#[test]
fn droids_camel_case_input_is_read_too() {
    let config = policy("camel");
    let camel = json!({"sessionId": "s1", "hookEventName": "PreToolUse", "cwd": "/tmp",
                       "toolName": "Execute", "toolInput": {"command": "rm -rf /"}});
    let output = droid(&config, &camel);
    assert!(support::claude_denial(&output).is_some(), "{output:?}");
}

#[test]
fn droids_shell_and_file_tools_meet_the_canonical_rules() {
    let config = policy("tools");
    let rm = droid(
        &config,
        &pre_tool("Execute", json!({"command": "rm -rf /"})),
    );
    assert!(
        support::claude_denial(&rm).unwrap().contains("rm-root"),
        "{rm:?}"
    );
    let write = droid(
        &config,
        &pre_tool(
            "Create",
            json!({"file_path": "/etc/passwd", "content": "x"}),
        ),
    );
    assert!(
        support::claude_denial(&write)
            .unwrap()
            .contains("/etc/passwd"),
        "{write:?}"
    );
    let read = droid(
        &config,
        &pre_tool("Read", json!({"file_path": "/etc/shadow"})),
    );
    assert!(
        support::claude_denial(&read)
            .unwrap()
            .contains("/etc/shadow"),
        "{read:?}"
    );

    // A rule on `Bash` asks.
    let push = droid(
        &config,
        &pre_tool("Execute", json!({"command": "git push"})),
    );
    assert_eq!(
        support::accepts("droid", "PreToolUse", &push),
        Ok(hooks_config::interop::Verdict::Ask(
            "push to the remote?".to_owned()
        ))
    );
    let fine = droid(&config, &pre_tool("Execute", json!({"command": "ls"})));
    assert_eq!(fine.status.code(), Some(0));
    assert!(fine.stdout.is_empty(), "{fine:?}");
}

#[test]
fn droids_validator_refuses_an_allow_that_would_skip_its_prompt() {
    let allow = hooks_config::interop::AgentAnswer::json(&json!({"hookSpecificOutput":
        {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));
    let droid = hooks_config::interop::agent("droid").unwrap();
    assert!(droid.accepts("PreToolUse", &allow).is_err());
}
