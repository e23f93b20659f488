//! Fault injection in the external runners: command hooks that close their output early,
//! ignore their input, flood for ever, leave children behind or escape their process group;
//! HTTP and LLM endpoints that refuse the connection, stall mid-answer or cut their answer
//! short. In every case the emit returns within the hook's timeout (never waiting for the
//! registry's backstop, which is the hook's timeout plus five seconds), the decision follows
//! `on_failure` (block fails closed), and the failure is named in the reason or message.
//!
//! The faults already covered by `configured.rs` and `remote.rs` (crash, signal, flood, garbage,
//! hang with a child, HTTP 500, truncated JSON, stall before the headers) are listed with their
//! tests in RELIABILITY.md.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;
use support::{gone, mounted};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hooks_core::{HookAction, HookRegistry, MessageLevel};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Well under the registry's backstop (timeout + 5 s): an emit that took longer waited for
/// the backstop, which skips the hook instead of applying its `on_failure`.
const PROMPT: Duration = Duration::from_secs(4);

fn scratch(test: &str) -> PathBuf {
    support::scratch("faults", test)
}

/// One command hook running `script` (as `hook.sh`) with `timeout_ms` and `on_failure`.
fn command_hook(dir: &Path, script: &str, timeout_ms: u64, on_failure: &str) -> HookRegistry {
    std::fs::write(dir.join("hook.sh"), script).unwrap();
    mounted(
        dir,
        &format!(
            "hooks:\n  PreToolUse:\n    - type: command\n      name: policy\n      command: \"sh ./hook.sh\"\n      timeout_ms: {timeout_ms}\n      on_failure: {on_failure}\n"
        ),
    )
}

fn tool_call() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})
}

fn pid_in(file: &Path) -> i32 {
    for _ in 0..100 {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} was never written", file.display());
}

// Command hooks.

#[tokio::test]
async fn a_hook_that_closes_its_output_early_is_read_up_to_there() {
    let cases = [
        // Answers, closes its output, keeps working briefly: the answer counts.
        (
            "cat > /dev/null\necho '{\"decision\": \"block\", \"reason\": \"tests first\"}'\nexec >&-\nsleep 0.3\n",
            HookAction::Deny,
        ),
        // Closes its output without a word and exits 0: no opinion.
        (
            "cat > /dev/null\nexec >&- 2>&-\nexit 0\n",
            HookAction::Continue,
        ),
    ];
    for (script, action) in cases {
        let dir = scratch("closes");
        let registry = command_hook(&dir, script, 5000, "block");
        let outcome = registry.emit("tool:pre", tool_call()).await;
        assert_eq!(outcome.action(), action, "{script}");
        assert!(outcome.failures.is_empty(), "{script}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[tokio::test]
async fn a_hook_that_closes_its_output_then_hangs_is_killed_at_its_timeout() {
    let dir = scratch("closes-hangs");
    let registry = command_hook(&dir, "exec >&- 2>&-\nsleep 30\n", 300, "block");

    let started = Instant::now();
    let outcome = registry.emit("tool:pre", tool_call()).await;

    assert!(started.elapsed() < PROMPT, "{:?}", started.elapsed());
    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(
        outcome
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("timed out")
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_hook_that_never_reads_a_large_event_is_still_killed_at_its_timeout() {
    // The event is larger than a pipe buffer; the hook neither reads nor closes its input.
    let dir = scratch("no-read");
    let registry = command_hook(&dir, "sleep 30\n", 300, "block");
    let big = json!({"tool_name": "Write", "tool_input": {"content": "x".repeat(1 << 20)}});

    let started = Instant::now();
    let outcome = registry.emit("tool:pre", big).await;

    assert!(started.elapsed() < PROMPT, "{:?}", started.elapsed());
    assert_eq!(outcome.action(), HookAction::Deny, "fail closed");
    assert!(
        outcome
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("timed out"),
        "{:?}",
        outcome.result.reason
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_hook_that_floods_for_ever_is_killed_at_its_timeout() {
    for (stream, on_failure, action) in [
        ("", "block", HookAction::Deny),
        (" >&2", "warn", HookAction::Continue),
    ] {
        let dir = scratch("flood");
        let registry = command_hook(
            &dir,
            &format!("cat > /dev/null\nyes flood{stream}\n"),
            400,
            on_failure,
        );

        let started = Instant::now();
        let outcome = registry.emit("tool:pre", tool_call()).await;

        assert!(started.elapsed() < PROMPT, "{:?}", started.elapsed());
        assert_eq!(outcome.action(), action, "{stream}");
        let said = if action == HookAction::Deny {
            outcome.result.reason.clone()
        } else {
            assert_eq!(outcome.result.user_message_level, MessageLevel::Warning);
            outcome.result.user_message.clone()
        };
        assert!(said.unwrap().contains("timed out"), "{stream}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[tokio::test]
async fn a_flood_on_stderr_with_exit_2_still_blocks() {
    let dir = scratch("stderr-flood");
    let registry = command_hook(
        &dir,
        "cat > /dev/null\nhead -c 3000000 /dev/zero | tr '\\0' 'e' >&2\nexit 2\n",
        5000,
        "warn",
    );

    let outcome = registry.emit("tool:pre", tool_call()).await;

    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(outcome.result.reason.as_deref().unwrap().len() <= hooks_config::OUTPUT_CAP);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_child_left_behind_by_a_hook_that_answered_is_killed_with_its_group() {
    let dir = scratch("child");
    let registry = command_hook(
        &dir,
        "cat > /dev/null\nsleep 30 &\necho $! > child.pid\necho '{\"decision\": \"block\", \"reason\": \"no\"}'\n",
        5000,
        "warn",
    );

    let started = Instant::now();
    let outcome = registry.emit("tool:pre", tool_call()).await;

    assert!(started.elapsed() < PROMPT, "the emit waited for the child");
    assert_eq!(outcome.action(), HookAction::Deny);
    let child = pid_in(&dir.join("child.pid"));
    assert!(gone(child).await, "the hook's child {child} outlived it");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_child_that_escapes_the_group_holding_the_output_cannot_hold_up_the_emit() {
    // A daemon that leaves the process group cannot be killed with it; if it keeps the hook's
    // stdout open, the hook's answer never ends. The emit must not wait for it past the
    // timeout, and must not read the unfinished output as an answer.
    let dir = scratch("escape");
    let daemon = "import os, time\nos.setsid()\nopen('daemon.pid', 'w').write(str(os.getpid()))\ntime.sleep(30)\n";
    std::fs::write(dir.join("daemon.py"), daemon).unwrap();
    let registry = command_hook(
        &dir,
        "cat > /dev/null\npython3 daemon.py &\nwhile [ ! -s daemon.pid ]; do sleep 0.05; done\necho '{\"action\": \"continue\"}'\n",
        2500,
        "block",
    );

    let started = Instant::now();
    let outcome = registry.emit("tool:pre", tool_call()).await;
    let waited = started.elapsed();

    let daemon = pid_in(&dir.join("daemon.pid"));
    // Our own process, started by this test: end it by its id.
    let _ = std::process::Command::new("kill")
        .arg("-9")
        .arg(daemon.to_string())
        .status();
    // The hook's own timeout is 2.5 s, the backstop 7.5 s.
    assert!(
        waited < Duration::from_secs(5),
        "the emit waited {waited:?} for the daemon"
    );
    assert_eq!(outcome.action(), HookAction::Deny, "fail closed");
    assert!(
        outcome.result.reason.as_deref().unwrap().contains("output"),
        "{:?}",
        outcome.result.reason
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_missing_or_unrunnable_command_is_a_failure() {
    for (command, why) in [
        ("./no-such-hook.sh", "exited with 127"),
        ("./not-executable.sh", "exited with 126"),
    ] {
        let dir = scratch("missing");
        std::fs::write(dir.join("not-executable.sh"), "echo hi\n").unwrap();
        let registry = mounted(
            &dir,
            &format!(
                "hooks:\n  PreToolUse:\n    - type: command\n      name: policy\n      command: \"{command}\"\n      on_failure: block\n"
            ),
        );
        let outcome = registry.emit("tool:pre", tool_call()).await;
        assert_eq!(outcome.action(), HookAction::Deny, "{command}");
        assert!(
            outcome.result.reason.as_deref().unwrap().contains(why),
            "{command}: {:?}",
            outcome.result.reason
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[tokio::test]
async fn an_answer_the_kernel_could_only_skip_is_a_failure_of_the_hook() {
    // Without this, `on_failure: block` would not apply: the kernel skips such an answer and
    // the chain goes on as if the hook had allowed.
    for answer in [r#"{"action": "inject_context"}"#, r#"{"action": "modify"}"#] {
        let dir = scratch("unusable");
        let registry = command_hook(
            &dir,
            &format!("cat > /dev/null\necho '{answer}'\n"),
            5000,
            "block",
        );
        let outcome = registry.emit("tool:pre", tool_call()).await;
        assert_eq!(outcome.action(), HookAction::Deny, "{answer}");
        assert!(
            outcome
                .result
                .reason
                .as_deref()
                .unwrap()
                .contains("without"),
            "{answer}: {:?}",
            outcome.result.reason
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

// HTTP and LLM endpoints.

/// How a raw endpoint misbehaves after reading the request.
#[derive(Clone, Copy)]
enum Misbehave {
    /// Writes these bytes, then closes the connection.
    WriteAndClose(&'static str),
    /// Writes these bytes, then holds the connection open for 30 s.
    WriteAndStall(&'static str),
}

/// A loopback endpoint that answers every request the same broken way.
async fn endpoint(misbehave: Misbehave) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                read_request(&mut socket).await;
                let (bytes, stall) = match misbehave {
                    Misbehave::WriteAndClose(bytes) => (bytes, false),
                    Misbehave::WriteAndStall(bytes) => (bytes, true),
                };
                let _ = socket.write_all(bytes.as_bytes()).await;
                let _ = socket.flush().await;
                if stall {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                }
            });
        }
    });
    url
}

/// Reads one request, head and body (by content-length), so closing does not reset it.
async fn read_request(socket: &mut tokio::net::TcpStream) {
    let mut raw = Vec::new();
    let mut buffer = [0_u8; 8192];
    loop {
        let read = socket.read(&mut buffer).await.unwrap_or(0);
        if read == 0 {
            return;
        }
        raw.extend_from_slice(&buffer[..read]);
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while raw.len() < end + 4 + length {
                let read = socket.read(&mut buffer).await.unwrap_or(0);
                if read == 0 {
                    return;
                }
                raw.extend_from_slice(&buffer[..read]);
            }
            return;
        }
    }
}

/// A URL nothing listens on: a port bound and released.
async fn refusing() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

const HEAD_200: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";

fn remote_hooks(dir: &Path, url: &str, kind: &str) -> HookRegistry {
    let body = match kind {
        "http" => format!("url: {url}/"),
        _ => format!("model: m\n      base_url: {url}\n      prompt: \"judge {{{{args}}}}\""),
    };
    mounted(
        dir,
        &format!(
            "hooks:\n  PreToolUse:\n    - type: {kind}\n      name: remote\n      {body}\n      timeout_ms: 400\n      on_failure: block\n"
        ),
    )
}

#[tokio::test]
async fn broken_endpoints_fail_closed_within_the_timeout_for_http_and_llm_hooks() {
    let truncated = Box::leak(
        format!(
            "{HEAD_200}content-length: 200\r\nconnection: close\r\n\r\n{{\"choices\": [{{\"mess"
        )
        .into_boxed_str(),
    );
    let stalled = Box::leak(
        format!("{HEAD_200}content-length: 200\r\n\r\n{{\"action\": \"bl").into_boxed_str(),
    );
    let cut_json = Box::leak(
        format!("{HEAD_200}content-length: 14\r\nconnection: close\r\n\r\n{{\"choices\": [{{")
            .into_boxed_str(),
    );
    let garbage_status: &'static str = "HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\nhello";
    let cases: Vec<(&str, Option<Misbehave>, &str)> = vec![
        ("refused", None, "failed"),
        (
            "closed mid-body",
            Some(Misbehave::WriteAndClose(truncated)),
            "could not be read",
        ),
        (
            "stalled mid-body",
            Some(Misbehave::WriteAndStall(stalled)),
            "",
        ),
        ("cut JSON", Some(Misbehave::WriteAndClose(cut_json)), ""),
        (
            "garbage head",
            Some(Misbehave::WriteAndClose(garbage_status)),
            "failed",
        ),
        (
            "no HTTP at all",
            Some(Misbehave::WriteAndClose("SSH-2.0-OpenSSH_9.6\r\n")),
            "failed",
        ),
    ];
    for kind in ["http", "llm"] {
        for (name, misbehave, why) in &cases {
            let url = match misbehave {
                None => refusing().await,
                Some(misbehave) => endpoint(*misbehave).await,
            };
            let dir = scratch("endpoint");
            let registry = remote_hooks(&dir, &url, kind);

            let started = Instant::now();
            let outcome = registry.emit("tool:pre", tool_call()).await;

            assert!(
                started.elapsed() < PROMPT,
                "{kind} {name}: {:?}",
                started.elapsed()
            );
            assert_eq!(
                outcome.action(),
                HookAction::Deny,
                "{kind} {name}: fail closed"
            );
            let reason = outcome.result.reason.clone().unwrap_or_default();
            assert!(
                reason.contains("hook `remote` failed") && reason.contains(why),
                "{kind} {name}: {reason}"
            );
            assert!(outcome.failures.is_empty(), "{kind} {name}: not a skip");
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}

#[tokio::test]
async fn an_llm_answer_that_is_not_json_denies_under_block_and_warns_under_warn() {
    let answers = [
        "Sure! {\"safe\": true}",
        "{\"safe\": true",
        "```json\n{\"safe\": \"yes\"}\n```",
        "{\"action\": \"allow\", \"approval_timeout\": -1}",
        "{\"action\": \"inject_context\"}",
        "",
    ];
    for answer in answers {
        let body = json!({"choices": [{"message": {"content": answer}}]}).to_string();
        let raw = Box::leak(
            format!(
                "{HEAD_200}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_boxed_str(),
        );
        let url = endpoint(Misbehave::WriteAndClose(raw)).await;
        for on_failure in ["block", "warn"] {
            let dir = scratch("llm-garbage");
            let registry = mounted(
                &dir,
                &format!(
                    "hooks:\n  PreToolUse:\n    - type: llm\n      name: judge\n      model: m\n      base_url: {url}\n      prompt: p\n      on_failure: {on_failure}\n"
                ),
            );
            let outcome = registry.emit("tool:pre", tool_call()).await;
            if on_failure == "block" {
                assert_eq!(outcome.action(), HookAction::Deny, "{answer:?}");
            } else {
                assert_eq!(outcome.action(), HookAction::Continue, "{answer:?}");
                assert_eq!(outcome.result.user_message_level, MessageLevel::Warning);
                assert!(
                    outcome
                        .result
                        .user_message
                        .as_deref()
                        .unwrap_or_default()
                        .contains("hook `judge` failed"),
                    "{answer:?}: an allow without a visible warning"
                );
            }
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}
