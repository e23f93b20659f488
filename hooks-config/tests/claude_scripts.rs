//! Claude Code hook scripts, unchanged, under our runner: a project with representative scripts
//! in Claude Code's style (bash reading stdin, python answering JSON, exit code 2, a crashing
//! hook) and its `.claude/settings.json`. Each case runs the scripts twice: as Claude Code
//! would (its matchers, its stdin, its reading of exit codes and JSON, written out below) and
//! through our loader and registry; the decisions must be the same.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hooks_config::interop::claude::CLAUDE;
use hooks_core::{HookAction, HookModule, HookRegistry};
use regex::Regex;
use serde_json::{Value, json};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/claude-scripts")
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Decision {
    Block(String),
    Ask(String),
    Context(String),
    Proceed,
}

/// Claude Code's matcher, as its documentation states it.
fn claude_matches(matcher: Option<&str>, subject: Option<&str>) -> bool {
    let Some(matcher) = matcher.filter(|m| !m.is_empty() && *m != "*") else {
        return true;
    };
    let Some(subject) = subject else {
        return true;
    };
    if matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-|, ".contains(c))
    {
        matcher.split(['|', ',']).any(|name| name.trim() == subject)
    } else {
        Regex::new(matcher).unwrap().is_match(subject)
    }
}

/// One hook script run the way Claude Code runs it, its answer read by Claude Code's rules.
fn claude_code_runs(command: &str, event: &str, input: &Value) -> Decision {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(project())
        .env("CLAUDE_PROJECT_DIR", project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        // A script that exits without reading its input closes the pipe: not an error.
        let _ = stdin.write_all(input.to_string().as_bytes());
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    match output.status.code() {
        Some(2) => Decision::Block(stderr),
        Some(0) if stdout.starts_with('{') => {
            let answer: Value = serde_json::from_str(&stdout).unwrap();
            let specific = &answer["hookSpecificOutput"];
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            if answer["decision"] == "block" {
                Decision::Block(text(&answer["reason"]))
            } else if specific["permissionDecision"] == "deny" {
                Decision::Block(text(&specific["permissionDecisionReason"]))
            } else if specific["permissionDecision"] == "ask" {
                Decision::Ask(text(&specific["permissionDecisionReason"]))
            } else if specific["additionalContext"].is_string() {
                Decision::Context(text(&specific["additionalContext"]))
            } else {
                Decision::Proceed
            }
        }
        // Plain output is context for prompts and session starts only.
        Some(0) if !stdout.is_empty() && matches!(event, "UserPromptSubmit" | "SessionStart") => {
            Decision::Context(stdout)
        }
        // Any other exit code is a non-blocking error: the action proceeds.
        _ => Decision::Proceed,
    }
}

/// What Claude Code decides for `input`: every matching hook of the settings file runs; deny
/// wins over ask, ask over context.
fn claude_code_decides(input: &Value) -> Decision {
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(project().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let event = input["hook_event_name"].as_str().unwrap();
    let subject = input["tool_name"].as_str();
    let mut decisions = Vec::new();
    for group in settings["hooks"][event].as_array().into_iter().flatten() {
        if claude_matches(group["matcher"].as_str(), subject) {
            for hook in group["hooks"].as_array().unwrap() {
                decisions.push(claude_code_runs(
                    hook["command"].as_str().unwrap(),
                    event,
                    input,
                ));
            }
        }
    }
    let rank = |d: &Decision| match d {
        Decision::Block(_) => 0,
        Decision::Ask(_) => 1,
        Decision::Context(_) => 2,
        Decision::Proceed => 3,
    };
    decisions
        .into_iter()
        .min_by_key(rank)
        .unwrap_or(Decision::Proceed)
}

/// What our registry decides for `input`, with the settings file loaded directly.
async fn we_decide(input: &Value) -> Decision {
    let config = hooks_config::load_file(&project().join(".claude/settings.json")).unwrap();
    let registry = HookRegistry::new();
    let _mounted = config.mount(&registry).unwrap();
    let mapped = CLAUDE.event_in(&input.to_string()).unwrap();
    let outcome = registry.emit(&mapped.event, mapped.data).await;
    let result = outcome.result;
    match result.action {
        HookAction::Deny => Decision::Block(result.reason.unwrap_or_default()),
        HookAction::AskUser => Decision::Ask(result.approval_prompt.unwrap_or_default()),
        _ => match result.context_injection {
            Some(context) => Decision::Context(context),
            None => Decision::Proceed,
        },
    }
}

fn tool_call(event: &str, tool: &str, tool_input: Value) -> Value {
    json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": project(),
           "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
           "tool_input": tool_input, "tool_use_id": "toolu_1"})
}

fn cases() -> Vec<(Value, Decision)> {
    let block = |reason: &str| Decision::Block(reason.to_owned());
    let mut failed = tool_call("PostToolUse", "Bash", json!({"command": "cargo test"}));
    failed["tool_response"] = json!({"stdout": "test parser ... FAILED", "exit_code": 101});
    let mut passed = tool_call("PostToolUse", "Bash", json!({"command": "cargo test"}));
    passed["tool_response"] = json!({"stdout": "test parser ... ok", "exit_code": 0});
    let prompt = |text: &str| json!({"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": text});
    let stop = |active: bool| json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": active});
    vec![
        (
            tool_call("PreToolUse", "Bash", json!({"command": "rm -rf build"})),
            block("Blocked: rm -rf is not allowed here"),
        ),
        (
            tool_call("PreToolUse", "Bash", json!({"command": "ls -la"})),
            Decision::Proceed,
        ),
        (
            tool_call(
                "PreToolUse",
                "Write",
                json!({"file_path": "/app/.env", "content": "K=v"}),
            ),
            block("/app/.env holds secrets"),
        ),
        (
            tool_call("PreToolUse", "Edit", json!({"file_path": "Cargo.lock"})),
            Decision::Ask("Cargo.lock is generated; edit it anyway?".into()),
        ),
        (
            tool_call("PreToolUse", "Write", json!({"file_path": "src/main.rs"})),
            Decision::Proceed,
        ),
        // The crashing hook: Claude Code proceeds, and so do we (with a warning for the user).
        (
            tool_call(
                "PreToolUse",
                "mcp__github__create_issue",
                json!({"title": "x"}),
            ),
            Decision::Proceed,
        ),
        (
            prompt("my password is hunter2"),
            block("prompts must not hold passwords"),
        ),
        (
            prompt("add a parser test"),
            Decision::Context("Today is the day of the test run.".into()),
        ),
        (
            failed,
            Decision::Context("Tests failed: fix them before going on.".into()),
        ),
        (passed, Decision::Proceed),
        (stop(false), block("Run the test suite before stopping.")),
        (stop(true), Decision::Proceed),
    ]
}

#[tokio::test]
async fn the_settings_file_decides_as_claude_code_would() {
    for (input, expected) in cases() {
        let theirs = claude_code_decides(&input);
        assert_eq!(theirs, expected, "the reference reading of {input}");
        assert_eq!(we_decide(&input).await, theirs, "{input}");
    }
}

#[tokio::test]
async fn the_imported_yaml_decides_as_the_settings_file_does() {
    let settings = project().join(".claude/settings.json");
    let imported = hooks_config::interop::claude::import_settings(
        &std::fs::read_to_string(&settings).unwrap(),
        &settings,
    )
    .unwrap();
    assert!(
        imported.left_out.is_empty() && imported.notes.is_empty(),
        "{imported:?}"
    );
    let config = hooks_config::load_str(&imported.to_yaml(), &settings, &project()).unwrap();
    let registry = HookRegistry::new();
    let _mounted = config.mount(&registry).unwrap();
    for (input, expected) in cases() {
        let mapped = CLAUDE.event_in(&input.to_string()).unwrap();
        let outcome = registry.emit(&mapped.event, mapped.data).await;
        let blocked = outcome.result.action == HookAction::Deny;
        assert_eq!(blocked, matches!(expected, Decision::Block(_)), "{input}");
    }
}
