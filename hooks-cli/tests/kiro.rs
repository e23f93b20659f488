//! `hooks kiro`: Kiro's hook JSON on stdin (its v3 triggers and its 2.x camelCase events),
//! every answer read by Kiro's rules ([`support::run`] checks each): only exit 2 blocks.

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

fn pre_tool(event: &str, tool: &str, input: Value) -> Value {
    json!({"hook_event_name": event, "cwd": "/tmp", "tool_name": tool, "tool_input": input})
}

#[test]
fn kiros_tools_meet_the_canonical_rules_and_a_question_blocks() {
    let config = support::policy("kiro", "tools", support::ASK_ON_PUSH);
    for event in ["PreToolUse", "preToolUse"] {
        let hook = |tool: &str, input: Value| {
            let output = support::agent_hook("kiro", &config, &pre_tool(event, tool, input));
            support::verdict("kiro", event, &output)
        };
        let rm = hook("execute_bash", json!({"command": "rm -rf /"}));
        assert!(
            matches!(&rm, Verdict::Block(r) if r.contains("rm-root")),
            "{rm:?}"
        );
        let write = hook(
            "fs_write",
            json!({"command": "create", "path": "/etc/passwd", "file_text": "x"}),
        );
        assert!(
            matches!(&write, Verdict::Block(r) if r.contains("/etc/passwd")),
            "{write:?}"
        );
        let read = hook("fs_read", json!({"path": "/etc/shadow", "mode": "Line"}));
        assert!(
            matches!(&read, Verdict::Block(r) if r.contains("/etc/shadow")),
            "{read:?}"
        );
        let push = hook("execute_bash", json!({"command": "git push"}));
        assert!(
            matches!(&push, Verdict::Block(r) if r.contains("push to the remote?")),
            "{push:?}"
        );
        assert_eq!(
            hook("execute_bash", json!({"command": "ls"})),
            Verdict::Proceed
        );
    }
}

#[test]
fn a_broken_policy_blocks_kiro() {
    let config = support::policy("kiro", "broken", "hooks: [");
    let output = support::agent_hook(
        "kiro",
        &config,
        &pre_tool("PreToolUse", "execute_bash", json!({"command": "ls"})),
    );
    assert!(matches!(
        support::verdict("kiro", "PreToolUse", &output),
        Verdict::Block(_)
    ));
}

#[test]
fn kiros_validator_refuses_a_json_deny() {
    let deny = AgentAnswer::json(&json!({"decision": "deny", "reason": "no"}));
    assert!(agent("kiro").unwrap().accepts("PreToolUse", &deny).is_err());
}
