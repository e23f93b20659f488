//! `hooks auggie`: Augment Auggie's hook JSON on stdin, every answer read by Auggie's rules
//! ([`support::run`] checks each): only exit 2 blocks a tool call.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

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
    let dir = hooks_testing::scratch_dir("auggie", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, POLICY).unwrap();
    file
}

fn auggie(config: &Path, input: &Value) -> Output {
    support::run(
        None,
        &["auggie".as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/tmp",
           "tool_name": tool, "tool_input": input})
}

fn verdict(output: &Output) -> Verdict {
    support::accepts("auggie", "PreToolUse", output).unwrap()
}

#[test]
fn auggies_tools_meet_the_canonical_rules_and_a_question_blocks() {
    let config = policy("tools");
    let rm = auggie(
        &config,
        &pre_tool("launch-process", json!({"command": "rm -rf /"})),
    );
    assert!(
        matches!(verdict(&rm), Verdict::Block(r) if r.contains("rm-root")),
        "{rm:?}"
    );
    let save = auggie(
        &config,
        &pre_tool("save-file", json!({"path": "/etc/passwd"})),
    );
    assert!(
        matches!(verdict(&save), Verdict::Block(r) if r.contains("/etc/passwd")),
        "{save:?}"
    );
    let push = auggie(
        &config,
        &pre_tool("launch-process", json!({"command": "git push"})),
    );
    assert!(matches!(verdict(&push), Verdict::Block(r) if r.contains("push to the remote?")));
    let fine = auggie(
        &config,
        &pre_tool("launch-process", json!({"command": "ls"})),
    );
    assert_eq!(verdict(&fine), Verdict::Proceed);
    assert!(fine.stdout.is_empty());
}

#[test]
fn auggies_validator_refuses_json_on_a_tool_call() {
    let auggie = agent("auggie").unwrap();
    let json_deny = AgentAnswer::json(&json!({"permissionDecision": "deny", "reason": "no"}));
    assert!(auggie.accepts("PreToolUse", &json_deny).is_err());
}
