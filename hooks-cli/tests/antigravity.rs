//! `hooks antigravity`: Antigravity CLI's tool call JSON on stdin (no event name: a
//! `toolCall` is `PreToolUse`), every answer read by its reported rules ([`support::run`]
//! checks each): it blocks on silence, so every answer is a decision, and never `allow` on a
//! tool call.

#![allow(clippy::unwrap_used)]

mod support;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

fn tool_call(name: &str, args: Value) -> Value {
    json!({"toolCall": {"name": name, "args": args}, "conversationId": "c1",
           "workspacePaths": ["/tmp"]})
}

#[test]
fn antigravitys_tools_meet_the_canonical_rules() {
    let config = support::policy("antigravity", "tools", support::ASK_ON_PUSH);
    let hook = |name: &str, args: Value| {
        let output = support::agent_hook("antigravity", &config, &tool_call(name, args));
        support::verdict("antigravity", "PreToolUse", &output)
    };
    let rm = hook(
        "run_command",
        json!({"CommandLine": "rm -rf /", "Cwd": "/tmp"}),
    );
    assert!(
        matches!(&rm, Verdict::Block(r) if r.contains("rm-root")),
        "{rm:?}"
    );
    let write = hook(
        "write_to_file",
        json!({"TargetFile": "/etc/passwd", "CodeContent": "x"}),
    );
    assert!(
        matches!(&write, Verdict::Block(r) if r.contains("/etc/passwd")),
        "{write:?}"
    );
    // A question is put even where the user once chose "always allow".
    let push = hook("run_command", json!({"CommandLine": "git push"}));
    assert_eq!(push, Verdict::Ask("push to the remote?".to_owned()));
    // Nothing to say leaves the call to Antigravity's own permission flow.
    let fine = support::agent_hook(
        "antigravity",
        &config,
        &tool_call("run_command", json!({"CommandLine": "ls"})),
    );
    assert_eq!(
        support::stdout_json(&fine),
        json!({"decision": "ask"}),
        "{fine:?}"
    );
}

#[test]
fn unreadable_input_is_a_deny_for_antigravity() {
    let config = support::policy("antigravity", "unreadable", support::ASK_ON_PUSH);
    let output = support::run(
        None,
        &[
            "antigravity".as_ref(),
            "--config".as_ref(),
            config.as_os_str(),
        ],
        "not json",
    );
    assert_eq!(
        support::stdout_json(&output)["decision"],
        "deny",
        "{output:?}"
    );
}

#[test]
fn antigravitys_validator_refuses_an_allow_on_a_tool_call() {
    let allow = AgentAnswer::json(&json!({"decision": "allow"}));
    assert!(
        agent("antigravity")
            .unwrap()
            .accepts("PreToolUse", &allow)
            .is_err()
    );
}
