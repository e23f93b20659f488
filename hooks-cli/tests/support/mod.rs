//! What the tests of the `hooks` binary share: running it as a user or an agent runs it.

#![allow(dead_code)] // each test binary uses its own part

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

/// Starts `hooks` with `args` (in `dir`, when given), writes `stdin` and closes it, as an agent
/// does; the process is left running.
pub fn spawn<A: AsRef<OsStr>>(dir: Option<&Path>, args: &[A], stdin: &str) -> Child {
    // Session state goes to one directory of the test run, never the user's own.
    static STATE: OnceLock<PathBuf> = OnceLock::new();
    let state = STATE.get_or_init(|| hooks_testing::scratch_dir("cli-state", "shared"));
    spawn_with_state(dir, args, stdin, state)
}

/// [`spawn`], with the session state kept in `state_dir`.
pub fn spawn_with_state<A: AsRef<OsStr>>(
    dir: Option<&Path>,
    args: &[A],
    stdin: &str,
    state_dir: &Path,
) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .env("HOOKS_STATE_DIR", state_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the hooks binary starts");
    if let Some(mut input) = child.stdin.take() {
        // A command that does not read its input (`hooks init`) may exit first.
        let _ = input.write_all(stdin.as_bytes());
    }
    child
}

/// Runs `hooks` with `args` and `stdin` to the end.
pub fn run<A: AsRef<OsStr>>(dir: Option<&Path>, args: &[A], stdin: &str) -> Output {
    spawn(dir, args, stdin)
        .wait_with_output()
        .expect("the hooks binary ends")
}

/// Its standard output, as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Its standard output, as the JSON answer an agent reads.
pub fn stdout_json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("not JSON ({error}): {:?}", stdout(output)))
}

/// The reason Claude Code reads when `hooks claude` blocks: exit 2 with the reason on stderr,
/// or (when a hook also has a message for the user) the event's JSON block; `None` when the
/// answer does not block.
pub fn claude_denial(output: &Output) -> Option<String> {
    match output.status.code() {
        Some(2) => Some(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        Some(0) if !output.stdout.is_empty() => {
            let answer = stdout_json(output);
            let specific = &answer["hookSpecificOutput"];
            if specific["permissionDecision"] == "deny" {
                specific["permissionDecisionReason"]
                    .as_str()
                    .map(str::to_owned)
            } else if answer["decision"] == "block" {
                answer["reason"].as_str().map(str::to_owned)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Runs `hooks` with `args` and `stdin` in an environment with `env` added.
pub fn run_with_env<A: AsRef<OsStr>>(
    dir: Option<&Path>,
    args: &[A],
    stdin: &str,
    env: &[(&str, &OsStr)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the hooks binary starts");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("the hooks binary ends")
}

/// Whether Codex CLI takes `output` as the answer of a hook on `event`, as its output parser
/// and the JSON schemas of its hook outputs say (openai/codex, `codex-rs/hooks/src/engine/
/// output_parser.rs` and `codex-rs/hooks/schema/generated/`), narrowed to what a guard may
/// say: an answer Codex CLI rejects counts as a failed hook, and the tool call then runs.
///
/// Accepted: exit 2 with a reason on stderr; exit 0 with nothing; exit 0 with a JSON object
/// holding only `systemMessage` and the event's own fields (`decision: "block"` with a
/// non-empty `reason`; `hookSpecificOutput` naming the event, with `additionalContext`, a
/// `permissionDecision` of `deny` with a non-empty reason or of `allow` with `updatedInput`,
/// or on `PermissionRequest` a `decision` of `behavior: "deny"` with a message). Refused:
/// `permissionDecision: "ask"`, an `allow` without `updatedInput` (it would skip the user's
/// own approval), `decision: "approve"`, `continue`, `stopReason`, `suppressOutput`, and any
/// other field.
pub fn codex_accepts(event: &str, output: &Output) -> Result<(), String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(2) if stderr.trim().is_empty() => Err("exit 2 without a reason on stderr".into()),
        Some(2) if !stdout.trim().is_empty() => Err(format!("exit 2 with stdout {stdout:?}")),
        Some(2) => Ok(()),
        Some(0) if stdout.trim().is_empty() => Ok(()),
        Some(0) => match serde_json::from_str::<serde_json::Value>(&stdout) {
            Ok(serde_json::Value::Object(answer)) => codex_json(event, &answer),
            _ => Err(format!("stdout is not a JSON object: {stdout:?}")),
        },
        other => Err(format!(
            "exit code {other:?}: Codex CLI counts it a failed hook"
        )),
    }
}

fn codex_json(
    event: &str,
    answer: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), String> {
    use serde_json::Value;
    let non_empty = |value: Option<&Value>| {
        value
            .and_then(Value::as_str)
            .is_some_and(|text| !text.trim().is_empty())
    };
    let blocks_by_decision = [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
    ];
    let has_specific = [
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "SubagentStart",
    ];
    for (key, value) in answer {
        match key.as_str() {
            "systemMessage" if value.is_string() => {}
            "decision" if blocks_by_decision.contains(&event) => {
                if value != "block" {
                    return Err(format!("`decision: {value}` on {event}"));
                }
                if !non_empty(answer.get("reason")) {
                    return Err(format!("`decision: block` without a reason on {event}"));
                }
            }
            "reason" if blocks_by_decision.contains(&event) => {
                if answer.get("decision").is_none() {
                    return Err(format!("`reason` without `decision` on {event}"));
                }
            }
            "hookSpecificOutput" if has_specific.contains(&event) => {
                codex_specific(event, value)?;
            }
            other => return Err(format!("`{other}` is not taken on {event}: {value}")),
        }
    }
    Ok(())
}

fn codex_specific(event: &str, specific: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let Some(specific) = specific.as_object() else {
        return Err(format!("hookSpecificOutput is not an object: {specific}"));
    };
    if specific.get("hookEventName") != Some(&Value::from(event)) {
        return Err(format!("hookEventName is not {event}: {specific:?}"));
    }
    let reason = specific
        .get("permissionDecisionReason")
        .and_then(Value::as_str);
    for (key, value) in specific {
        match (event, key.as_str()) {
            (_, "hookEventName") => {}
            (
                "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "SessionStart"
                | "SubagentStart",
                "additionalContext",
            ) if value.is_string() => {}
            ("PreToolUse", "permissionDecision") => match value.as_str() {
                Some("deny") if reason.is_some_and(|r| !r.trim().is_empty()) => {}
                Some("allow") if specific.get("updatedInput").is_some_and(Value::is_object) => {}
                _ => return Err(format!("permissionDecision {value} as sent: {specific:?}")),
            },
            ("PreToolUse", "permissionDecisionReason")
                if specific.contains_key("permissionDecision") => {}
            ("PreToolUse", "updatedInput")
                if specific.get("permissionDecision") == Some(&Value::from("allow")) => {}
            ("PermissionRequest", "decision") => {
                let behavior = value.get("behavior");
                let message = value.get("message").and_then(Value::as_str);
                let keys_ok = value
                    .as_object()
                    .is_some_and(|d| d.keys().all(|k| k == "behavior" || k == "message"));
                if behavior != Some(&Value::from("deny"))
                    || message.is_none_or(|m| m.trim().is_empty())
                    || !keys_ok
                {
                    return Err(format!("PermissionRequest decision {value}"));
                }
            }
            _ => {
                return Err(format!(
                    "hookSpecificOutput.{key} is not taken on {event}: {value}"
                ));
            }
        }
    }
    Ok(())
}
