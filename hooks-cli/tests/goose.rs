//! `hooks goose`: Goose's hook JSON on stdin (its event under `event`), every answer read by
//! Goose's rules ([`support::run`] checks each): exit 2 or `{"decision": "block"}` blocks.

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"event": "PreToolUse", "session_id": "s1", "working_dir": "/tmp",
           "tool_name": tool, "tool_input": input, "tool_call_id": "c1"})
}

#[test]
fn gooses_tools_meet_the_canonical_rules_and_a_question_blocks() {
    let config = support::policy("goose", "tools", support::ASK_ON_PUSH);
    let hook = |tool: &str, input: Value| {
        let output = support::agent_hook("goose", &config, &pre_tool(tool, input));
        support::verdict("goose", "PreToolUse", &output)
    };
    let rm = hook("developer__shell", json!({"command": "rm -rf /"}));
    assert!(
        matches!(&rm, Verdict::Block(r) if r.contains("rm-root")),
        "{rm:?}"
    );
    let write = hook(
        "developer__write",
        json!({"path": "/etc/passwd", "content": "x"}),
    );
    assert!(
        matches!(&write, Verdict::Block(r) if r.contains("/etc/passwd")),
        "{write:?}"
    );
    let edit = hook(
        "developer__text_editor",
        json!({"command": "str_replace", "path": "/etc/hosts"}),
    );
    assert!(
        matches!(&edit, Verdict::Block(r) if r.contains("/etc/hosts")),
        "{edit:?}"
    );
    let push = hook("developer__shell", json!({"command": "git push"}));
    assert!(
        matches!(&push, Verdict::Block(r) if r.contains("push to the remote?")),
        "{push:?}"
    );
    assert_eq!(
        hook("developer__shell", json!({"command": "ls"})),
        Verdict::Proceed
    );
}

#[test]
fn a_broken_policy_blocks_goose() {
    let config = support::policy("goose", "broken", "hooks: [");
    let output = support::agent_hook(
        "goose",
        &config,
        &pre_tool("developer__shell", json!({"command": "ls"})),
    );
    assert!(matches!(
        support::verdict("goose", "PreToolUse", &output),
        Verdict::Block(_)
    ));
}

#[test]
fn gooses_validator_refuses_a_failure_that_decides_nothing() {
    let goose = agent("goose").unwrap();
    let crashed = AgentAnswer {
        exit_code: 1,
        ..AgentAnswer::block("it crashed")
    };
    assert!(goose.accepts("PreToolUse", &crashed).is_err());
    let allow = AgentAnswer::json(&json!({"decision": "allow"}));
    assert!(goose.accepts("PreToolUse", &allow).is_err());
}
