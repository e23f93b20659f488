//! What the agent can put where the guard reads: a FIFO or a device in place of a hooks file
//! (managed or the project's), an event larger than any agent sends. Each fails closed at
//! once, saying why, instead of blocking until the agent's timeout decides or reading until
//! memory runs out.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::json;

fn claude_input(cwd: &Path) -> String {
    json!({"session_id": "bounded", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
           "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": "ls"}, "tool_use_id": "t1"})
    .to_string()
}

/// `hooks claude --config <config>` on `input`; ended by the test (it fails) when it takes more
/// than 20 s, which a read blocked on a FIFO would.
fn claude(
    dir: &Path,
    config: &Path,
    input: &str,
    env: &[(&str, &std::ffi::OsStr)],
) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .args(["claude", "--config"])
        .arg(config)
        .current_dir(dir)
        .env("HOOKS_STATE_DIR", dir.join("state"))
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || {
        use std::io::Write as _;
        let _ = stdin.write_all(input.as_bytes());
    });
    let (done, waited) = std::sync::mpsc::channel();
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        if waited.recv_timeout(Duration::from_secs(20)).is_err() {
            let _ = std::process::Command::new("kill")
                .arg(pid.to_string())
                .status();
        }
    });
    let output = child.wait_with_output().unwrap();
    let _ = done.send(());
    watchdog.join().unwrap();
    writer.join().unwrap();
    output
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_in_place_of_the_hooks_file_blocks_the_call_at_once() {
    let dir = hooks_testing::scratch_dir("bounded", "fifo");
    let config = dir.join("hooks.yaml");
    mkfifo(&config);
    let output = claude(&dir, &config, &claude_input(&dir), &[]);
    let reason = support::claude_denial(&output).unwrap_or_else(|| panic!("{output:?}"));
    assert!(reason.contains("not a regular file (a FIFO)"), "{reason}");
}

#[test]
fn a_device_in_place_of_the_managed_file_blocks_the_call() {
    let dir = hooks_testing::scratch_dir("bounded", "device");
    let config = dir.join("hooks.yaml");
    std::fs::write(&config, "hooks: {}\n").unwrap();
    let managed = dir.join("managed");
    std::fs::create_dir_all(&managed).unwrap();
    std::os::unix::fs::symlink("/dev/zero", managed.join("hooks.yaml")).unwrap();
    let output = claude(
        &dir,
        &config,
        &claude_input(&dir),
        &[("HOOKS_MANAGED_DIR", managed.as_os_str())],
    );
    let reason = support::claude_denial(&output).unwrap_or_else(|| panic!("{output:?}"));
    assert!(
        reason.contains("managed") && reason.contains("device"),
        "{reason}"
    );
}

#[test]
fn an_event_larger_than_any_agent_sends_is_not_read_to_its_end() {
    let dir = hooks_testing::scratch_dir("bounded", "large");
    let config = dir.join("hooks.yaml");
    std::fs::write(&config, "hooks: {}\n").unwrap();
    let huge = format!(
        "{{\"hook_event_name\": \"PreToolUse\", \"tool_name\": \"Write\", \"tool_input\": {{\"content\": \"{}\"}}}}",
        "a".repeat(65 * 1024 * 1024)
    );
    let output = claude(&dir, &config, &huge, &[]);
    let reason = support::claude_denial(&output).unwrap_or_else(|| panic!("{output:?}"));
    assert!(reason.contains("larger than"), "{reason}");
}
