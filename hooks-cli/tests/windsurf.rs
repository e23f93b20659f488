//! `hooks windsurf`: Windsurf's (Devin Desktop's) action JSON on stdin, its details under
//! `tool_info`, every answer read by Windsurf's rules ([`support::run`] checks each): only exit
//! 2 blocks, and only a `pre_*` action.

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

fn action(name: &str, info: Value) -> Value {
    json!({"agent_action_name": name, "trajectory_id": "t1", "execution_id": "e1",
           "timestamp": "2026-11-26T00:00:00Z", "tool_info": info})
}

#[test]
fn windsurfs_actions_meet_the_canonical_rules() {
    let config = support::policy("windsurf", "actions", support::ASK_ON_PUSH);
    let hook = |name: &str, info: Value| {
        let output = support::agent_hook("windsurf", &config, &action(name, info));
        support::verdict("windsurf", name, &output)
    };
    let rm = hook(
        "pre_run_command",
        json!({"command_line": "rm -rf /", "cwd": "/tmp"}),
    );
    assert!(
        matches!(&rm, Verdict::Block(r) if r.contains("rm-root")),
        "{rm:?}"
    );
    let read = hook("pre_read_code", json!({"file_path": "/etc/shadow"}));
    assert!(
        matches!(&read, Verdict::Block(r) if r.contains("/etc/shadow")),
        "{read:?}"
    );
    let write = hook(
        "pre_write_code",
        json!({"file_path": "/etc/passwd", "edits": [{"old_string": "a", "new_string": "b"}]}),
    );
    assert!(
        matches!(&write, Verdict::Block(r) if r.contains("/etc/passwd")),
        "{write:?}"
    );
    // Windsurf cannot ask: the question is the reason of a block.
    let push = hook(
        "pre_run_command",
        json!({"command_line": "git push", "cwd": "/tmp"}),
    );
    assert!(
        matches!(&push, Verdict::Block(r) if r.contains("push to the remote?")),
        "{push:?}"
    );
    assert_eq!(
        hook(
            "pre_run_command",
            json!({"command_line": "ls", "cwd": "/tmp"})
        ),
        Verdict::Proceed
    );
    // After the action nothing can be stopped: the answer says so, and blocks nothing.
    assert_eq!(
        hook(
            "post_run_command",
            json!({"command_line": "rm -rf /", "cwd": "/tmp"})
        ),
        Verdict::Proceed
    );
}

#[test]
fn unreadable_input_blocks_windsurf() {
    let config = support::policy("windsurf", "unreadable", support::ASK_ON_PUSH);
    let output = support::run(
        None,
        &["windsurf".as_ref(), "--config".as_ref(), config.as_os_str()],
        "not json",
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[test]
fn windsurfs_validator_refuses_a_json_decision() {
    let windsurf = agent("windsurf").unwrap();
    let deny = AgentAnswer::json(&json!({"decision": "deny", "reason": "no"}));
    assert!(windsurf.accepts("pre_run_command", &deny).is_err());
}
