//! `hooks cline`: both generations of Cline's hook JSON on stdin (the extension's `PreToolUse`
//! with `preToolUse: {toolName, parameters}`, the SDK's `tool_call` with `tool_call: {name,
//! input}`), every answer read by Cline's rules ([`support::run`] checks each); and the scripts
//! `hooks init cline` writes, run as Cline runs them, failing closed when `hooks` cannot answer.

#![allow(clippy::unwrap_used)]

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use hooks_config::interop::Verdict;
use serde_json::{Value, json};

/// The extension's `PreToolUse` input: every parameter a string.
fn extension_call(tool: &str, parameters: Value) -> Value {
    json!({
        "clineVersion": "3.0.65", "hookName": "PreToolUse", "timestamp": "1760000000000",
        "taskId": "task-1", "workspaceRoots": ["/tmp"], "userId": "u",
        "preToolUse": {"toolName": tool, "parameters": parameters}
    })
}

/// The SDK's `tool_call` input, which carries the extension's fields too.
fn sdk_call(tool: &str, input: Value) -> Value {
    json!({
        "clineVersion": "", "hookName": "tool_call", "timestamp": "2026-11-01T00:00:00Z",
        "taskId": "task-1", "workspaceRoots": ["/tmp"], "userId": "u", "iteration": 1,
        "tool_call": {"id": "call-1", "name": tool, "input": input},
        "preToolUse": {"toolName": tool, "parameters": {}}
    })
}

fn hook(config: &Path, input: &Value) -> Verdict {
    let event = input["hookName"].as_str().unwrap().to_owned();
    let output = support::agent_hook("cline", config, input);
    support::verdict("cline", &event, &output)
}

fn blocked_for(verdict: &Verdict, words: &str) -> bool {
    matches!(verdict, Verdict::Block(reason) if reason.contains(words))
}

#[test]
fn clines_tools_meet_the_canonical_rules_in_both_generations() {
    let config = support::policy("cline", "tools", support::ASK_ON_PUSH);
    let rm = hook(
        &config,
        &extension_call("execute_command", json!({"command": "rm -rf /"})),
    );
    assert!(blocked_for(&rm, "rm-root"), "{rm:?}");
    let write = hook(
        &config,
        &extension_call(
            "write_to_file",
            json!({"path": "/etc/passwd", "content": "x"}),
        ),
    );
    assert!(blocked_for(&write, "/etc/passwd"), "{write:?}");
    let push = hook(
        &config,
        &extension_call("execute_command", json!({"command": "git push"})),
    );
    assert!(blocked_for(&push, "push to the remote?"), "{push:?}");
    assert_eq!(
        hook(
            &config,
            &extension_call("execute_command", json!({"command": "ls"}))
        ),
        Verdict::Proceed
    );

    let second = hook(
        &config,
        &sdk_call("run_commands", json!({"commands": ["ls", "rm -rf /"]})),
    );
    assert!(blocked_for(&second, "rm-root"), "{second:?}");
    let edit = hook(
        &config,
        &sdk_call("editor", json!({"path": "/etc/hosts", "new_text": "x"})),
    );
    assert!(blocked_for(&edit, "/etc/hosts"), "{edit:?}");
    let patch = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n";
    let outside = hook(&config, &sdk_call("apply_patch", json!({"input": patch})));
    assert!(blocked_for(&outside, "outside"), "{outside:?}");
    assert_eq!(
        hook(
            &config,
            &sdk_call("run_commands", json!({"commands": ["ls"]}))
        ),
        Verdict::Proceed
    );
}

#[test]
fn a_broken_policy_or_input_is_a_cancel_cline_reads() {
    let config = support::policy("cline", "broken", "hooks: [");
    let broken = hook(
        &config,
        &extension_call("execute_command", json!({"command": "ls"})),
    );
    assert!(matches!(broken, Verdict::Block(_)), "{broken:?}");
    let config = support::policy("cline", "garbage", support::ASK_ON_PUSH);
    let output = support::run(
        None,
        &["cline".as_ref(), "--config".as_ref(), config.as_os_str()],
        "not json",
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["cancel"], true, "{output:?}");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn the_help_says_what_cline_cannot_do() {
    let output = support::run(None, &["cline", "--help"], "");
    let help = support::stdout(&output);
    assert!(help.contains("cannot ask"), "{help}");
    assert!(help.contains("30 s timeout"), "{help}");
    assert!(help.contains("--yolo"), "{help}");
}

/// A project set up with `hooks init cline`, and its hooks directory.
fn initialised(test: &str) -> (PathBuf, PathBuf) {
    let dir = hooks_testing::scratch_dir("cline-init", test);
    std::fs::write(dir.join("hooks.yaml"), support::ASK_ON_PUSH).unwrap();
    let args: Vec<&OsStr> = vec![
        "init".as_ref(),
        "cline".as_ref(),
        "--dir".as_ref(),
        dir.as_os_str(),
    ];
    let output = support::run(None, &args, "");
    assert!(output.status.success(), "{output:?}");
    let hooks = dir.join(".clinerules/hooks");
    (dir, hooks)
}

/// Runs the script `script` as Cline's extension does (the file itself, in the workspace),
/// with `input` on stdin and `env` set.
fn run_script(script: &Path, cwd: &Path, input: &Value, env: &[(&str, &str)]) -> Output {
    use std::io::Write as _;
    let mut command = Command::new(script);
    command
        .current_dir(cwd)
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// What Cline makes of a script's output on `event`.
fn cline_reads(event: &str, output: &Output) -> Verdict {
    support::verdict("cline", event, output)
}

/// The script with its `hooks` binary replaced by `binary`.
fn pointing_at(script: &Path, binary: &str) {
    let text = std::fs::read_to_string(script).unwrap();
    let line = text
        .lines()
        .find(|line| line.starts_with("hooks="))
        .unwrap();
    let text = text.replace(line, &format!("hooks={binary}"));
    std::fs::write(script, text).unwrap();
}

#[test]
fn init_writes_executable_scripts_that_guard_cline() {
    let (dir, hooks) = initialised("scripts");
    for event in ["PreToolUse", "PostToolUse", "UserPromptSubmit"] {
        let script = hooks.join(event);
        let mode = {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::metadata(&script).unwrap().permissions().mode()
        };
        assert_eq!(mode & 0o111, 0o111, "{event} is executable");
    }
    let script = hooks.join("PreToolUse");
    // Run from elsewhere: the script finds the hooks file from its own directory.
    let elsewhere = std::env::temp_dir();
    let rm = run_script(
        &script,
        &elsewhere,
        &extension_call("execute_command", json!({"command": "git push"})),
        &[],
    );
    let verdict = cline_reads("PreToolUse", &rm);
    assert!(blocked_for(&verdict, "push to the remote?"), "{verdict:?}");
    let ls = run_script(
        &script,
        &dir,
        &sdk_call("run_commands", json!({"commands": ["ls"]})),
        &[],
    );
    assert_eq!(cline_reads("tool_call", &ls), Verdict::Proceed);

    // A second run changes nothing.
    let again = support::run(
        None,
        &[
            "init".as_ref(),
            "cline".as_ref(),
            "--dir".as_ref(),
            dir.as_os_str(),
        ],
        "",
    );
    assert!(!support::stdout(&again).contains("updated"), "{again:?}");
}

#[test]
fn a_script_blocks_when_hooks_is_missing_crashes_or_hangs() {
    let (dir, hooks) = initialised("failing");
    let script = hooks.join("PreToolUse");
    let call = extension_call("execute_command", json!({"command": "ls"}));

    pointing_at(&script, "/nonexistent/bin/hooks");
    let missing = run_script(&script, &dir, &call, &[]);
    let verdict = cline_reads("PreToolUse", &missing);
    assert!(blocked_for(&verdict, "could not decide"), "{verdict:?}");

    let crashing = dir.join("crashing-hooks");
    std::fs::write(&crashing, "#!/bin/sh\necho '{\"cancel\":'\nexit 3\n").unwrap();
    make_executable(&crashing);
    pointing_at(&script, &crashing.display().to_string());
    let crashed = run_script(&script, &dir, &call, &[]);
    assert!(matches!(
        cline_reads("PreToolUse", &crashed),
        Verdict::Block(_)
    ));

    let silent = dir.join("silent-hooks");
    std::fs::write(&silent, "#!/bin/sh\ncat >/dev/null\n").unwrap();
    make_executable(&silent);
    pointing_at(&script, &silent.display().to_string());
    let nothing = run_script(&script, &dir, &call, &[]);
    assert!(matches!(
        cline_reads("PreToolUse", &nothing),
        Verdict::Block(_)
    ));

    let hanging = dir.join("hanging-hooks");
    std::fs::write(&hanging, "#!/bin/sh\nsleep 30\n").unwrap();
    make_executable(&hanging);
    pointing_at(&script, &hanging.display().to_string());
    let started = std::time::Instant::now();
    let hung = run_script(&script, &dir, &call, &[("HOOKS_CLINE_DEADLINE", "1")]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let verdict = cline_reads("PreToolUse", &hung);
    assert!(blocked_for(&verdict, "past 1 s"), "{verdict:?}");
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn init_leaves_a_users_own_script_alone() {
    let dir = hooks_testing::scratch_dir("cline-init", "foreign");
    let hooks = dir.join(".clinerules/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let mine = "#!/bin/sh\necho '{}'\n";
    std::fs::write(hooks.join("PreToolUse"), mine).unwrap();
    let output = support::run(
        None,
        &[
            "init".as_ref(),
            "cline".as_ref(),
            "--dir".as_ref(),
            dir.as_os_str(),
        ],
        "",
    );
    assert!(!output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("not written by `hooks init`"));
    assert_eq!(
        std::fs::read_to_string(hooks.join("PreToolUse")).unwrap(),
        mine
    );
    assert!(!hooks.join("PostToolUse").exists());
}

#[test]
fn dry_run_writes_nothing_and_doctor_reads_the_scripts() {
    let dir = hooks_testing::scratch_dir("cline-init", "dry-run");
    let dry = support::run(
        None,
        &[
            "init".as_ref(),
            "cline".as_ref(),
            "--dry-run".as_ref(),
            "--dir".as_ref(),
            dir.as_os_str(),
        ],
        "",
    );
    assert!(dry.status.success(), "{dry:?}");
    assert!(support::stdout(&dry).contains("PreToolUse"), "{dry:?}");
    assert!(!dir.join(".clinerules").exists());

    let (dir, hooks) = initialised("doctor");
    let doctor = |dir: &Path| {
        let output = support::run(
            None,
            &["doctor".as_ref(), "--dir".as_ref(), dir.as_os_str()],
            "",
        );
        support::stdout(&output) + &String::from_utf8_lossy(&output.stderr)
    };
    let report = doctor(&dir);
    assert!(
        report.contains("runs the guard on PreToolUse, UserPromptSubmit"),
        "{report}"
    );
    std::fs::remove_file(hooks.join("UserPromptSubmit")).unwrap();
    let report = doctor(&dir);
    assert!(
        report.contains("does not run the guard on UserPromptSubmit"),
        "{report}"
    );
}
