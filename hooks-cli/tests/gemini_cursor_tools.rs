//! Gemini CLI's and Cursor's file and shell tools reach the policy under canonical names, so
//! the safety module's path and command rules apply to them as to Claude Code's; a rule written
//! on the agent's own tool name still matches. Every answer is read by the agent's own rules
//! ([`support::run`] checks each).

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::Verdict;
use serde_json::{Value, json};

/// The safety module, and a rule on Cursor's own name of its shell tool.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Shell, args: {command: "make deploy*"}}
      action: block
      message: "deploys go through CI"
"#;

fn gemini_before_tool(tool: &str, input: Value) -> Value {
    json!({"session_id": "s1", "hook_event_name": "BeforeTool", "cwd": "/tmp",
           "timestamp": "2026-11-26T00:00:00Z", "tool_name": tool, "tool_input": input})
}

fn cursor_pre_tool(tool: &str, input: Value) -> Value {
    json!({"conversation_id": "c1", "generation_id": "g1", "hook_event_name": "preToolUse",
           "workspace_roots": ["/tmp"], "tool_name": tool, "tool_input": input})
}

fn blocked_for(verdict: &Verdict, text: &str) -> bool {
    matches!(verdict, Verdict::Block(reason) if reason.contains(text))
}

#[test]
fn geminis_file_and_shell_tools_meet_the_safety_rules() {
    let config = support::policy("gemini-tools", "safety", POLICY);
    let hook = |tool: &str, input: Value| {
        let output = support::agent_hook("gemini", &config, &gemini_before_tool(tool, input));
        support::verdict("gemini", "BeforeTool", &output)
    };
    for (tool, input, named) in [
        (
            "write_file",
            json!({"file_path": "/etc/passwd", "content": "x"}),
            "/etc/passwd",
        ),
        (
            "replace",
            json!({"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
            "/etc/hosts",
        ),
        (
            "read_file",
            json!({"absolute_path": "/etc/shadow"}),
            "/etc/shadow",
        ),
        (
            "run_shell_command",
            json!({"command": "rm -rf /"}),
            "rm-root",
        ),
    ] {
        let verdict = hook(tool, input);
        assert!(blocked_for(&verdict, named), "{tool}: {verdict:?}");
    }
    assert_eq!(
        hook("run_shell_command", json!({"command": "ls"})),
        Verdict::Proceed
    );
}

#[test]
fn cursors_file_and_shell_tools_meet_the_safety_rules() {
    let config = support::policy("cursor-tools", "safety", POLICY);
    let hook = |tool: &str, input: Value| {
        let output = support::agent_hook("cursor", &config, &cursor_pre_tool(tool, input));
        support::verdict("cursor", "preToolUse", &output)
    };
    for (tool, input, named) in [
        (
            "Write",
            json!({"file_path": "/etc/passwd", "content": "x"}),
            "/etc/passwd",
        ),
        ("Edit", json!({"path": "/etc/hosts"}), "/etc/hosts"),
        ("Delete", json!({"path": "/etc/hosts"}), "/etc/hosts"),
        ("Read", json!({"path": "/etc/shadow"}), "/etc/shadow"),
        ("Shell", json!({"command": "rm -rf /"}), "rm-root"),
        // A rule written on Cursor's own name still matches its canonical call.
        (
            "Shell",
            json!({"command": "make deploy"}),
            "deploys go through CI",
        ),
    ] {
        let verdict = hook(tool, input);
        assert!(blocked_for(&verdict, named), "{tool}: {verdict:?}");
    }
    assert_eq!(hook("Shell", json!({"command": "ls"})), Verdict::Proceed);
}
