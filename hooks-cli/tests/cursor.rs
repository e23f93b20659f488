//! `hooks cursor`: Cursor's hook JSON on stdin, its answers out, driven as Cursor drives it.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

/// A policy that denies `rm -rf`, asks before `git push`, rewrites `npm publish`, protects
/// `.env` files from reads, blocks prompts with "password" and keeps the agent going when
/// its stop status says it was aborted.
const POLICY: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Shell, args: {command: "rm -rf*"}}
      action: block
      message: "recursive deletes are blocked"
    - type: matcher
      match: {tool: Shell, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
    - type: matcher
      match: {tool: Read, args: {file_path: "**/.env"}}
      action: block
      message: "environment files are secret"
    - type: matcher
      match: {tool: "database", args: {sql: "regex:(?i)drop table"}}
      action: block
      message: "no DROP TABLE"
    - type: command
      command: "grep -q 'npm publish' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"npm publish --dry-run\"}}' || true"
  PromptSubmit:
    - type: matcher
      match: {args: {}}
      action: inject
      message: "remember the style guide"
    - type: command
      command: "grep -q password && { echo 'prompts must not carry passwords' >&2; exit 2; } || true"
  ResponseComplete:
    - type: command
      command: "grep -q '\"aborted\"' && { echo 'finish the task first' >&2; exit 2; } || true"
"#;

fn policy(test: &str, yaml: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("cursor", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    file
}

fn cursor(config: &Path, input: &str) -> Output {
    support::run(
        None,
        &["cursor".as_ref(), "--config".as_ref(), config.as_os_str()],
        input,
    )
}

/// What Cursor sends: its common fields and the event's own.
fn event(name: &str, fields: Value) -> String {
    let mut input = json!({
        "conversation_id": "c1",
        "generation_id": "g1",
        "hook_event_name": name,
        "workspace_roots": ["/home/dev/project"],
    });
    input
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    input.to_string()
}

fn answer(output: &Output) -> Value {
    support::stdout_json(output)
}

#[test]
fn shell_commands_are_denied_asked_or_left_to_cursor() {
    let config = policy("shell", POLICY);
    let shell = |command: &str| {
        event(
            "beforeShellExecution",
            json!({"command": command, "cwd": "/home/dev/project"}),
        )
    };

    let denied = cursor(&config, &shell("rm -rf build /"));
    assert_eq!(denied.status.code(), Some(0));
    let denied = answer(&denied);
    assert_eq!(denied["permission"], "deny");
    assert_eq!(denied["user_message"], "recursive deletes are blocked");
    assert_eq!(denied["agent_message"], "recursive deletes are blocked");

    let asked = answer(&cursor(&config, &shell("git push origin main")));
    assert_eq!(asked["permission"], "ask");
    assert_eq!(asked["user_message"], "push to the remote?");

    // No opinion is no answer at all: `allow` would skip the user's own prompt.
    let harmless = cursor(&config, &shell("cargo test"));
    assert_eq!(harmless.status.code(), Some(0));
    assert!(harmless.stdout.is_empty(), "{harmless:?}");
}

#[test]
fn a_rewritten_command_is_denied_because_cursor_cannot_run_the_rewrite() {
    let config = policy("rewrite", POLICY);
    let output = cursor(
        &config,
        &event(
            "beforeShellExecution",
            json!({"command": "npm publish", "cwd": "."}),
        ),
    );
    let answer = answer(&output);
    assert_eq!(answer["permission"], "deny");
    assert!(
        answer["user_message"]
            .as_str()
            .unwrap()
            .contains("Cursor cannot apply"),
        "{answer}"
    );
}

#[test]
fn file_reads_and_mcp_calls_are_tool_calls_for_the_rules() {
    let config = policy("files", POLICY);
    let read = answer(&cursor(
        &config,
        &event(
            "beforeReadFile",
            json!({"file_path": "/home/dev/project/.env", "content": "A=1"}),
        ),
    ));
    assert_eq!(read["permission"], "deny");
    assert_eq!(read["user_message"], "environment files are secret");

    // Cursor has sent MCP arguments as a JSON text: they are read as the object they are.
    let mcp = answer(&cursor(
        &config,
        &event(
            "beforeMCPExecution",
            json!({"tool_name": "database", "tool_input": "{\"sql\": \"drop table users\"}", "command": "mcp-db"}),
        ),
    ));
    assert_eq!(mcp["permission"], "deny");
    assert_eq!(mcp["user_message"], "no DROP TABLE");
}

#[test]
fn prompts_are_stopped_in_cursors_terms_and_context_is_not_lost_silently() {
    let config = policy("prompt", POLICY);
    let blocked = answer(&cursor(
        &config,
        &event(
            "beforeSubmitPrompt",
            json!({"prompt": "my password is hunter2"}),
        ),
    ));
    assert_eq!(blocked["continue"], false);
    assert_eq!(blocked["user_message"], "prompts must not carry passwords");

    // The injection has nowhere to go in Cursor's answer: the user is told on stderr.
    let fine = cursor(
        &config,
        &event("beforeSubmitPrompt", json!({"prompt": "add a test"})),
    );
    assert!(fine.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&fine.stderr);
    assert!(stderr.contains("remember the style guide"), "{stderr}");
}

#[test]
fn a_stop_the_policy_refuses_becomes_a_follow_up() {
    let config = policy("stop", POLICY);
    let refused = answer(&cursor(
        &config,
        &event("stop", json!({"status": "aborted", "loop_count": 1})),
    ));
    assert_eq!(refused["followup_message"], "finish the task first");
    let done = cursor(
        &config,
        &event("stop", json!({"status": "completed", "loop_count": 1})),
    );
    assert!(done.stdout.is_empty());
}

#[test]
fn after_events_take_no_answer() {
    let config = policy("after", POLICY);
    let output = cursor(
        &config,
        &event(
            "afterFileEdit",
            json!({"file_path": "/home/dev/project/src/main.rs", "edits": [{"old_string": "a", "new_string": "b"}]}),
        ),
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}

#[test]
fn a_policy_that_cannot_decide_denies_in_json_and_with_exit_code_2() {
    let broken = policy("broken", "hooks:\n  PreToolUse:\n    - type: nonsense\n");
    let shell = event("beforeShellExecution", json!({"command": "ls", "cwd": "."}));
    let output = cursor(&broken, &shell);
    assert_eq!(output.status.code(), Some(2));
    let answer_json = answer(&output);
    assert_eq!(answer_json["permission"], "deny");
    assert!(
        answer_json["user_message"]
            .as_str()
            .unwrap()
            .contains("policy file is broken"),
        "{answer_json}"
    );

    let prompt = cursor(
        &broken,
        &event("beforeSubmitPrompt", json!({"prompt": "hi"})),
    );
    assert_eq!(prompt.status.code(), Some(2));
    assert_eq!(answer(&prompt)["continue"], false);

    let good = policy("garbage_input", POLICY);
    for garbage in ["", "not json", "[1, 2]", "{\"no_event\": true}"] {
        let output = cursor(&good, garbage);
        assert_eq!(output.status.code(), Some(2), "{garbage:?}");
        assert_eq!(answer(&output)["permission"], "deny", "{garbage:?}");
    }
}
