//! What the tests of the `hooks` binary share: running it as a user or an agent runs it.

#![allow(dead_code)] // each test binary uses its own part

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Starts `hooks` with `args` (in `dir`, when given), writes `stdin` and closes it, as an agent
/// does; the process is left running.
pub fn spawn<A: AsRef<OsStr>>(dir: Option<&Path>, args: &[A], stdin: &str) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
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
