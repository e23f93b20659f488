//! The standard modules under a per-event agent hook: each `hooks claude|gemini|cursor` run is a
//! process of its own, started by the agent for one event, with the modules mounted from the
//! project's hooks file. Driven as the agents drive it: their JSON on stdin, their answer read.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

fn project(test: &str, yaml: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("agent-modules", test);
    std::fs::write(dir.join("hooks.yaml"), yaml).unwrap();
    dir
}

fn run(agent: &str, dir: &Path, input: &Value) -> Output {
    support::run(
        Some(dir),
        &[agent, "--config", "hooks.yaml"],
        &input.to_string(),
    )
}

use support::stdout_json;

fn claude(event: &str, fields: Value) -> Value {
    let mut input = json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": ".", "hook_event_name": event});
    input
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    input
}

#[test]
fn the_approval_module_asks_in_each_agents_terms() {
    let dir = project(
        "approval",
        "modules:\n  approval:\n    tools: [Write, write_file, Shell]\n",
    );
    let write =
        json!({"tool_name": "Write", "tool_input": {"file_path": "src/lib.rs", "content": "x"}});
    let asked = run("claude", &dir, &claude("PreToolUse", write));
    assert_eq!(asked.status.code(), Some(0), "{asked:?}");
    let answer = stdout_json(&asked);
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "ask");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("src/lib.rs"),
        "{answer}"
    );

    // Gemini CLI cannot ask from a hook: the documented answer is a deny with the question.
    let gemini = run(
        "gemini",
        &dir,
        &json!({"session_id": "s1", "cwd": ".", "hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": {"file_path": "a.txt"}}),
    );
    assert_eq!(gemini.status.code(), Some(0), "{gemini:?}");
    let answer = stdout_json(&gemini);
    assert_eq!(answer["decision"], "deny");
    assert!(
        answer["reason"].as_str().unwrap().contains("cannot ask"),
        "{answer}"
    );

    let cursor = run(
        "cursor",
        &dir,
        &json!({"hook_event_name": "beforeShellExecution", "conversation_id": "c", "generation_id": "g", "command": "make deploy", "cwd": "."}),
    );
    assert_eq!(stdout_json(&cursor)["permission"], "ask");
}

#[test]
fn the_reminder_rides_on_each_prompt_from_the_todo_file() {
    let dir = project(
        "reminder",
        "modules:\n  reminder:\n    file: TODO.md\n    events: [prompt:submit]\n",
    );
    std::fs::write(dir.join("TODO.md"), "- [ ] migrate the schema\n").unwrap();
    let output = run(
        "claude",
        &dir,
        &claude("UserPromptSubmit", json!({"prompt": "next step?"})),
    );
    let answer = stdout_json(&output);
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"],
        "Current todos:\n- migrate the schema"
    );
}

#[test]
fn the_linter_reads_the_written_file_from_the_event_alone() {
    let dir = project(
        "linter",
        "modules:\n  linter:\n    workspace: \".\"\n    linters:\n      py: [sh, -c, \"grep -n TODO $1 && exit 1 || exit 0\", lint, \"{file}\"]\n",
    );
    std::fs::write(dir.join("app.py"), "x = 1  # TODO remove\n").unwrap();
    let output = run(
        "claude",
        &dir,
        &claude(
            "PostToolUse",
            json!({"tool_name": "Write", "tool_input": {"file_path": dir.join("app.py")}, "tool_response": {"success": true}}),
        ),
    );
    let answer = stdout_json(&output);
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.contains("1:x = 1  # TODO remove"), "{answer}");
}

#[test]
fn thirty_two_hook_processes_at_once_log_every_event_whole() {
    let dir = project(
        "logging",
        "modules:\n  logging:\n    path: .hooks/events.jsonl\n",
    );
    let children: Vec<_> = (0..32)
        .map(|n| {
            let input = claude(
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": format!("echo {n}"), "padding": "x".repeat(2000)}}),
            );
            support::spawn(
                Some(&dir),
                &["claude", "--config", "hooks.yaml"],
                &input.to_string(),
            )
        })
        .collect();
    for child in children {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let log = std::fs::read_to_string(dir.join(".hooks/events.jsonl")).unwrap();
    let mut seen: Vec<String> = log
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).expect("a whole JSON line");
            record["data"]["tool_input"]["command"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    seen.sort();
    let mut expected: Vec<String> = (0..32).map(|n| format!("echo {n}")).collect();
    expected.sort();
    assert_eq!(seen, expected);
}

#[test]
fn the_safety_workspace_is_the_hooks_files_directory_when_run_from_there() {
    // As Claude Code runs it: in the project, the hooks file named relative to it.
    let dir = project("workspace", "modules:\n  safety: {workspace: \".\"}\n");
    let write = |path: &str| {
        claude(
            "PreToolUse",
            json!({"tool_name": "Write", "tool_input": {"file_path": path, "content": "x"}}),
        )
    };
    let inside = run("claude", &dir, &write("src/main.rs"));
    assert_eq!(inside.status.code(), Some(0), "{inside:?}");
    let secret = run("claude", &dir, &write(".env"));
    let reason = support::claude_denial(&secret).expect("the secret file is denied");
    assert!(
        reason.contains(&*dir.join(".env").to_string_lossy()),
        "the path is resolved in the project: {reason}"
    );
}
