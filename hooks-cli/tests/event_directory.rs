//! A call runs where the agent says it does: relative paths and commands are read from the
//! event's own directory (Claude Code's `cwd` after a `cd`, Cursor's `cwd`) and from the
//! directory a shell call names (Gemini CLI's `dir_path`, Codex CLI's `workdir`), in a project
//! set up by `hooks init`, so that moving first and naming the file relatively reaches nothing
//! the guard protects.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A project set up by `hooks init claude`, with its guard files in place.
fn project(test: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("event-dir", test);
    let init = support::run(Some(&dir), &["init", "claude"], "");
    assert!(init.status.success(), "{init:?}");
    assert!(dir.join(".claude/settings.json").exists());
    dir
}

fn claude(dir: &Path, cwd: &Path, tool: &str, input: Value) -> std::process::Output {
    let event = json!({"session_id": "event-dir", "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
        "tool_use_id": "t1"});
    support::run(
        Some(dir),
        &["claude", "--config", "hooks.yaml"],
        &event.to_string(),
    )
}

#[test]
fn after_a_cd_into_the_settings_directory_emptying_them_by_name_is_refused() {
    let dir = project("claude-cd");
    let inside = dir.join(".claude");
    for command in [
        "cp /dev/null settings.json",
        "echo {} > settings.json",
        "rm settings.json",
    ] {
        let output = claude(&dir, &inside, "Bash", json!({"command": command}));
        let reason = support::claude_denial(&output)
            .unwrap_or_else(|| panic!("{command} was let through: {output:?}"));
        assert!(reason.contains("guard-file"), "{command}: {reason}");
    }
    // The same words from the project's root name another file: nothing to refuse.
    let output = claude(
        &dir,
        &dir,
        "Bash",
        json!({"command": "echo {} > settings.json"}),
    );
    assert_eq!(support::claude_denial(&output), None, "{output:?}");
}

#[test]
fn a_file_tool_s_relative_path_is_read_from_the_event_s_directory() {
    let dir = project("relative-write");
    let output = claude(
        &dir,
        &dir.join(".claude"),
        "Write",
        json!({"file_path": "settings.json", "content": "{}"}),
    );
    let reason = support::claude_denial(&output).unwrap_or_else(|| panic!("{output:?}"));
    assert!(reason.contains("guard-file"), "{reason}");
}

#[test]
fn a_shell_call_s_own_directory_is_where_its_command_runs() {
    let dir = project("dir-fields");
    // Gemini CLI's `dir_path`, Codex CLI's `workdir` with other keys beside it: the guard's
    // policy through `hooks claude`'s reading of the call.
    for input in [
        json!({"command": "cp /dev/null settings.json", "dir_path": ".claude"}),
        json!({"command": "cp /dev/null settings.json", "workdir": ".claude",
               "timeout_ms": 1000, "justification": "tidy", "script": "ls"}),
    ] {
        let output = claude(&dir, &dir, "Bash", input.clone());
        let reason = support::claude_denial(&output)
            .unwrap_or_else(|| panic!("{input} was let through: {output:?}"));
        assert!(reason.contains("guard-file"), "{input}: {reason}");
    }
}
