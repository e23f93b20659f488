//! `hooks qwen`: Qwen Code's hook JSON on stdin (Claude Code's fields over Gemini CLI's tool
//! ids), every answer read by Qwen Code's rules ([`support::run`] checks each).

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
    let dir = hooks_testing::scratch_dir("qwen", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, POLICY).unwrap();
    file
}

fn qwen(config: &Path, input: &Value) -> Output {
    support::run(
        None,
        &["qwen".as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": "/tmp",
           "tool_name": tool, "tool_input": input, "tool_call_id": "c1",
           "permission_mode": "default"})
}

#[test]
fn qwens_shell_and_file_tools_meet_the_canonical_rules() {
    let config = policy("tools");
    let rm = qwen(
        &config,
        &pre_tool("run_shell_command", json!({"command": "rm -rf /"})),
    );
    assert!(
        support::claude_denial(&rm).unwrap().contains("rm-root"),
        "{rm:?}"
    );
    let write = qwen(
        &config,
        &pre_tool(
            "write_file",
            json!({"file_path": "/etc/passwd", "content": "x"}),
        ),
    );
    assert!(
        support::claude_denial(&write)
            .unwrap()
            .contains("/etc/passwd"),
        "{write:?}"
    );
    let read = qwen(
        &config,
        &pre_tool("read_file", json!({"absolute_path": "/etc/shadow"})),
    );
    assert!(
        support::claude_denial(&read)
            .unwrap()
            .contains("/etc/shadow"),
        "{read:?}"
    );

    // A rule on `Bash` asks; headless, Qwen Code takes the question as a deny.
    let push = qwen(
        &config,
        &pre_tool("run_shell_command", json!({"command": "git push"})),
    );
    assert_eq!(
        support::accepts("qwen", "PreToolUse", &push),
        Ok(hooks_config::interop::Verdict::Ask(
            "push to the remote?".to_owned()
        ))
    );
    let fine = qwen(
        &config,
        &pre_tool("run_shell_command", json!({"command": "ls"})),
    );
    assert_eq!(fine.status.code(), Some(0));
    assert!(fine.stdout.is_empty(), "{fine:?}");
}

#[test]
fn qwens_validator_refuses_an_allow_that_would_skip_its_prompt() {
    let allow = hooks_config::interop::AgentAnswer::json(&json!({"hookSpecificOutput":
        {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));
    let qwen = hooks_config::interop::agent("qwen").unwrap();
    assert!(qwen.accepts("PreToolUse", &allow).is_err());
}
