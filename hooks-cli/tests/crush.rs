//! `hooks crush`: Crush's hook JSON on stdin (its event under `event`), every answer read by
//! Crush's rules ([`support::run`] checks each): exit 2 denies, JSON may carry context or a
//! rewrite merged over the tool input, and an `allow` (which skips its prompt) is never sent.

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"event": "PreToolUse", "session_id": "s1", "cwd": "/tmp",
           "tool_name": tool, "tool_input": input})
}

/// [`support::ASK_ON_PUSH`], and a rewrite of `npm test`, run unconfirmed.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
    - type: command
      name: bun
      matcher: Bash
      rewrite: apply
      command: "grep -q 'npm test' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"bun test\", \"timeout\": 60}}' || true"
"#;

#[test]
fn crushs_tools_meet_the_canonical_rules_and_a_question_blocks() {
    let config = support::policy("crush", "tools", support::ASK_ON_PUSH);
    let hook = |tool: &str, input: Value| {
        let output = support::agent_hook("crush", &config, &pre_tool(tool, input));
        support::verdict("crush", "PreToolUse", &output)
    };
    let rm = hook("bash", json!({"command": "rm -rf /"}));
    assert!(
        matches!(&rm, Verdict::Block(r) if r.contains("rm-root")),
        "{rm:?}"
    );
    let write = hook("write", json!({"file_path": "/etc/passwd", "content": "x"}));
    assert!(
        matches!(&write, Verdict::Block(r) if r.contains("/etc/passwd")),
        "{write:?}"
    );
    let view = hook("view", json!({"file_path": "/etc/shadow"}));
    assert!(
        matches!(&view, Verdict::Block(r) if r.contains("/etc/shadow")),
        "{view:?}"
    );
    let push = hook("bash", json!({"command": "git push"}));
    assert!(
        matches!(&push, Verdict::Block(r) if r.contains("push to the remote?")),
        "{push:?}"
    );
    assert_eq!(hook("bash", json!({"command": "ls"})), Verdict::Proceed);
}

#[test]
fn an_applied_rewrite_reaches_crush_with_every_key() {
    let config = support::policy("crush", "rewrite", POLICY);
    let output = support::agent_hook(
        "crush",
        &config,
        &pre_tool("bash", json!({"command": "npm test", "timeout": 60})),
    );
    assert_eq!(
        support::verdict("crush", "PreToolUse", &output),
        Verdict::RunRewritten(json!({"command": "bun test", "timeout": 60}))
    );
    // A rewrite that drops a key cannot be merged over the old input: it blocks, saying what
    // would have run.
    let dropped = support::agent_hook(
        "crush",
        &config,
        &pre_tool(
            "bash",
            json!({"command": "npm test", "timeout": 60, "description": "tests"}),
        ),
    );
    assert!(
        matches!(
            support::verdict("crush", "PreToolUse", &dropped),
            Verdict::Block(reason) if reason.contains("bun test")
        ),
        "{dropped:?}"
    );
}

#[test]
fn crushs_validator_refuses_an_allow() {
    let crush = agent("crush").unwrap();
    let allow = AgentAnswer::json(&json!({"decision": "allow"}));
    assert!(crush.accepts("PreToolUse", &allow).is_err());
}
