//! `hooks claude` run by another agent from Claude Code's settings files: Cursor and the VS
//! Code agent send their own payloads and tool names (`Shell`, `runInTerminal`, `editFiles`);
//! the project stays guarded, and the answer is one each of them reads as a block.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use hooks_config::interop::Verdict;
use serde_json::{Value, json};

/// The safety module, and a question on `Bash`.
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
    let dir = hooks_testing::scratch_dir("foreign-callers", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, POLICY).unwrap();
    file
}

fn claude(config: &Path, input: &Value) -> Output {
    support::run(
        None,
        &["claude".as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

/// Cursor running a Claude Code hook: its common fields, its event and tool names.
fn from_cursor(event: &str, fields: Value) -> Value {
    let mut input = json!({"conversation_id": "c1", "generation_id": "g1",
                           "cursor_version": "2.3.0", "hook_event_name": event,
                           "workspace_roots": ["/tmp"]});
    input
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    input
}

/// Read by both agents: a block each of them takes.
fn blocked_in_both(event: &str, output: &Output) -> String {
    let claude = support::accepts("claude", event, output);
    let cursor = support::accepts("cursor", event, output);
    match (claude, cursor) {
        (Ok(Verdict::Block(reason)), Ok(Verdict::Block(_))) => reason,
        other => panic!("not a block in both: {other:?} {output:?}"),
    }
}

#[test]
fn cursor_running_claude_hooks_is_guarded_and_answered_in_a_form_both_read() {
    let config = policy("cursor");
    for (event, fields) in [
        (
            "preToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "PreToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "beforeShellExecution",
            json!({"command": "rm -rf /", "cwd": "/tmp"}),
        ),
    ] {
        let output = claude(&config, &from_cursor(event, fields));
        assert!(
            blocked_in_both(event, &output).contains("rm-root"),
            "{event}"
        );
    }
    // Cursor does not enforce a question from a Claude Code hook: it blocks, saying it.
    let push = claude(
        &config,
        &from_cursor(
            "preToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "git push"}}),
        ),
    );
    assert!(blocked_in_both("preToolUse", &push).contains("push to the remote?"));
    let fine = claude(
        &config,
        &from_cursor(
            "preToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "ls"}}),
        ),
    );
    assert_eq!(fine.status.code(), Some(0));
    assert!(fine.stdout.is_empty(), "{fine:?}");
}

#[test]
fn the_vs_code_agent_running_claude_hooks_is_guarded_in_claude_codes_protocol() {
    let config = policy("vscode");
    let input = |tool: &str, tool_input: Value| {
        json!({"hookEventName": "PreToolUse", "sessionId": "s1", "cwd": "/tmp",
               "timestamp": "2026-11-25T10:00:00Z", "tool_name": tool,
               "tool_input": tool_input})
    };
    let rm = claude(
        &config,
        &input("runInTerminal", json!({"command": "rm -rf /"})),
    );
    assert!(
        support::claude_denial(&rm).unwrap().contains("rm-root"),
        "{rm:?}"
    );
    let push = claude(
        &config,
        &input("runInTerminal", json!({"command": "git push"})),
    );
    assert_eq!(
        support::accepts("claude", "PreToolUse", &push),
        Ok(Verdict::Ask("push to the remote?".to_owned()))
    );
    let read = claude(
        &config,
        &input("readFile", json!({"filePath": "/etc/shadow"})),
    );
    assert!(
        support::claude_denial(&read)
            .unwrap()
            .contains("/etc/shadow"),
        "{read:?}"
    );
}
