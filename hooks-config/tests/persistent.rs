//! Persistent command hooks: one process answers many events, a JSON line each way; it is
//! restarted when it dies, killed at its timeout and when unmounted, and can never answer one
//! event with another's answer.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;
use support::{alive, gone};

use std::path::{Path, PathBuf};
use std::time::Duration;

use hooks_config::{ConfigErrors, load_file, load_str};
use hooks_core::{HookAction, HookModule, HookRegistry, Mounted};
use serde_json::{Value, json};

fn scratch(test: &str) -> PathBuf {
    support::scratch("persistent", test)
}

/// Mounts one persistent hook running `script` (Python, written to `server.py`) on tool:pre.
fn persistent(dir: &Path, script: &str, extra: &str) -> (HookRegistry, Mounted) {
    std::fs::write(dir.join("server.py"), script).unwrap();
    let file = dir.join("hooks.yaml");
    std::fs::write(
        &file,
        format!(
            "hooks:\n  PreToolUse:\n    - type: command\n      name: policy\n      persistent: true\n      command: \"python3 -u server.py\"\n{extra}"
        ),
    )
    .unwrap();
    let config = load_file(&file).unwrap_or_else(|errors| panic!("{errors}"));
    let registry = HookRegistry::new();
    let mounted = config.mount(&registry).unwrap();
    (registry, mounted)
}

/// A server answering each request with its pid and the request's `n` as context, and denying
/// `rm`. Behaviour for particular `n` is added by `special`, Python run before the answer.
fn server(special: &str) -> String {
    format!(
        r#"import json, os, sys, time
for line in sys.stdin:
    request = json.loads(line)
    n = request["tool_input"].get("n", 0)
{special}
    if request["tool_input"].get("command", "").startswith("rm"):
        answer = {{"decision": "block", "reason": "no rm (pid %d)" % os.getpid()}}
    else:
        answer = {{"hookSpecificOutput": {{"additionalContext": "%d:%s:%s" % (os.getpid(), n, request["hook_event_name"])}}}}
    answer["request_id"] = request["request_id"]
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"#
    )
}

fn call(n: u64) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls", "n": n}})
}

/// The (pid, n) of a context answer.
async fn ask(registry: &HookRegistry, n: u64) -> (String, String) {
    let outcome = registry.emit("tool:pre", call(n)).await;
    assert!(
        outcome.failures.is_empty() && outcome.messages.is_empty(),
        "{outcome:?}"
    );
    let context = &outcome.injections[0].text;
    let mut parts = context.split(':');
    let pid = parts.next().unwrap().to_owned();
    let answered = parts.next().unwrap().to_owned();
    assert_eq!(parts.next(), Some("PreToolUse"), "{context}");
    (pid, answered)
}

#[tokio::test]
async fn one_process_answers_every_event_in_turn() {
    let dir = scratch("one");
    let (registry, _mounted) = persistent(&dir, &server(""), "");
    let (first_pid, n) = ask(&registry, 1).await;
    assert_eq!(n, "1");
    for n in 2..=20 {
        let (pid, answered) = ask(&registry, n).await;
        assert_eq!(pid, first_pid, "the process is started once");
        assert_eq!(answered, n.to_string());
    }
    let denied = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
        )
        .await;
    assert_eq!(denied.action(), HookAction::Deny);
    assert_eq!(
        denied.result.reason.as_deref(),
        Some(format!("no rm (pid {first_pid})").as_str())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_emits_each_get_their_own_answer() {
    let dir = scratch("concurrent");
    let (registry, _mounted) = persistent(&dir, &server(""), "");
    let registry = std::sync::Arc::new(registry);
    let tasks: Vec<_> = (1..=32)
        .map(|n| {
            let registry = registry.clone();
            tokio::spawn(async move { (n, ask(&registry, n).await) })
        })
        .collect();
    let mut pids = std::collections::BTreeSet::new();
    for task in tasks {
        let (n, (pid, answered)) = task.await.unwrap();
        assert_eq!(answered, n.to_string(), "event {n} got another's answer");
        pids.insert(pid);
    }
    assert_eq!(pids.len(), 1, "one process for all: {pids:?}");
}

#[tokio::test]
async fn a_process_that_died_between_events_is_restarted_silently() {
    let dir = scratch("restart");
    // Answers one request, then exits (and so does the shell that started it).
    let script = server("").replace(
        "    sys.stdout.flush()\n",
        "    sys.stdout.flush()\n    open('shell.pid', 'w').write(str(os.getppid()))\n    sys.exit(0)\n",
    );
    let (registry, _mounted) = persistent(&dir, &script, "");
    let (first, _) = ask(&registry, 1).await;
    let pid: i32 = first.parse().unwrap();
    assert!(gone(pid).await);
    let shell: i32 = std::fs::read_to_string(dir.join("shell.pid"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(gone(shell).await);
    let (second, answered) = ask(&registry, 2).await;
    assert_ne!(first, second);
    assert_eq!(answered, "2");
}

#[tokio::test]
async fn dying_mid_request_is_a_failure_that_on_failure_decides_and_the_next_event_restarts() {
    let dir = scratch("mid-request");
    let crash = "    if n == 2:\n        sys.stderr.write('policy crashed\\n'); sys.stderr.flush(); os._exit(3)\n";
    let (registry, _mounted) = persistent(&dir, &server(crash), "      on_failure: block\n");
    let (first, _) = ask(&registry, 1).await;
    let crashed = registry.emit("tool:pre", call(2)).await;
    assert_eq!(
        crashed.action(),
        HookAction::Deny,
        "fail closed: {crashed:?}"
    );
    let reason = crashed.result.reason.clone().unwrap();
    assert!(
        reason.contains("exited with 3: policy crashed") && reason.contains("restarted"),
        "{reason}"
    );
    let (second, answered) = ask(&registry, 3).await;
    assert_ne!(first, second);
    assert_eq!(answered, "3");
}

#[tokio::test]
async fn a_hang_is_killed_at_the_timeout_with_its_group_and_the_next_event_gets_a_fresh_process() {
    let dir = scratch("hang");
    // On n == 2 it starts a child that would outlive it, then hangs. The timeout leaves room
    // for the interpreter to start on a loaded machine: the first event must not time out.
    let hang = "    if n == 2:\n        import subprocess\n        child = subprocess.Popen(['sleep', '300'])\n        open('child.pid', 'w').write(str(child.pid))\n        time.sleep(300)\n";
    let (registry, _mounted) = persistent(
        &dir,
        &server(hang),
        "      timeout_ms: 3000\n      on_failure: block\n",
    );
    let (first, _) = ask(&registry, 1).await;
    let hung = registry.emit("tool:pre", call(2)).await;
    assert_eq!(hung.action(), HookAction::Deny);
    assert!(
        hung.result.reason.as_deref().unwrap().contains("timed out"),
        "{hung:?}"
    );
    assert!(
        gone(first.parse().unwrap()).await,
        "the hung process is killed"
    );
    let child: i32 = std::fs::read_to_string(dir.join("child.pid"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(gone(child).await, "its child goes with its process group");
    let (second, answered) = ask(&registry, 3).await;
    assert_ne!(first, second);
    assert_eq!(answered, "3");
}

#[tokio::test]
async fn an_unreadable_answer_fails_and_restarts_the_process() {
    let dir = scratch("garbage");
    let garbage =
        "    if n == 2:\n        sys.stdout.write('not json\\n'); sys.stdout.flush(); continue\n";
    let (registry, _mounted) = persistent(&dir, &server(garbage), "");
    let (first, _) = ask(&registry, 1).await;
    let warned = registry.emit("tool:pre", call(2)).await;
    // on_failure defaults to warn: the event continues, with a visible warning.
    assert_eq!(warned.action(), HookAction::Continue);
    let warning = &warned.messages[0].text;
    assert!(
        warning.contains("not a JSON object") && warning.contains("restarted"),
        "{warning}"
    );
    let (second, answered) = ask(&registry, 3).await;
    assert_ne!(first, second);
    assert_eq!(answered, "3");
}

#[tokio::test]
async fn a_wrong_request_id_is_never_taken_as_the_answer() {
    let dir = scratch("wrong-id");
    let wrong = "    if n == 2:\n        request['request_id'] += 100\n";
    let (registry, _mounted) = persistent(
        &dir,
        &server(wrong).replace(
            "if request[\"tool_input\"].get(\"command\", \"\").startswith(\"rm\")",
            "if n == 2",
        ),
        "      on_failure: block\n",
    );
    let (first, _) = ask(&registry, 1).await;
    let refused = registry.emit("tool:pre", call(2)).await;
    // The script meant a block, but for another request: it is a failure, blocked by policy,
    // and the reason is the mismatch, not the script's.
    assert_eq!(refused.action(), HookAction::Deny);
    let reason = refused.result.reason.clone().unwrap();
    assert!(reason.contains("when request"), "{reason}");
    assert!(!reason.contains("no rm"), "{reason}");
    let (second, _) = ask(&registry, 3).await;
    assert_ne!(first, second);
}

#[tokio::test]
async fn a_stray_line_between_answers_is_never_read_as_the_next_answer() {
    let dir = scratch("stray");
    // After answering n == 1, the same write carries a line nobody asked for.
    let script = server("").replace(
        "    sys.stdout.write(json.dumps(answer) + \"\\n\")\n",
        "    extra = '{\"decision\": \"block\", \"reason\": \"stray\"}\\n' if n == 1 else ''\n    sys.stdout.write(json.dumps(answer) + \"\\n\" + extra)\n",
    );
    let (registry, _mounted) = persistent(&dir, &script, "");
    let (first, _) = ask(&registry, 1).await;
    // Give the stray line time to arrive, as it would between two real events.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (second, answered) = ask(&registry, 2).await;
    assert_eq!(
        answered, "2",
        "event 2 gets its own answer, not the stray block"
    );
    assert_ne!(first, second, "the out-of-step process was replaced");
}

#[tokio::test]
async fn an_answer_over_the_cap_kills_the_process() {
    let dir = scratch("flood");
    let flood = "    if n == 2:\n        sys.stdout.write('x' * (2 * 1024 * 1024)); sys.stdout.flush(); continue\n";
    let (registry, _mounted) = persistent(&dir, &server(flood), "      on_failure: block\n");
    let (first, _) = ask(&registry, 1).await;
    let flooded = registry.emit("tool:pre", call(2)).await;
    assert_eq!(flooded.action(), HookAction::Deny);
    assert!(
        flooded
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("more than"),
        "{flooded:?}"
    );
    assert!(gone(first.parse().unwrap()).await);
}

#[tokio::test]
async fn unmounting_kills_the_process() {
    let dir = scratch("unmount");
    let (registry, mounted) = persistent(&dir, &server(""), "");
    let (pid, _) = ask(&registry, 1).await;
    let pid: i32 = pid.parse().unwrap();
    assert!(alive(pid));
    assert_eq!(mounted.unmount(), 1);
    assert!(gone(pid).await, "the process outlived its hook");
    assert!(!registry.has_handlers("tool:pre"));
}

#[tokio::test]
async fn the_process_starts_at_the_first_event_not_at_mount() {
    let dir = scratch("lazy");
    let script = format!(
        "import os\nopen('started', 'w').write(str(os.getpid()))\n{}",
        server("")
    );
    let (registry, _mounted) = persistent(&dir, &script, "");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!dir.join("started").exists());
    let (pid, _) = ask(&registry, 1).await;
    assert_eq!(std::fs::read_to_string(dir.join("started")).unwrap(), pid);
}

#[tokio::test]
async fn a_command_that_cannot_run_fails_every_event_by_policy() {
    let dir = scratch("missing");
    std::fs::write(
        dir.join("hooks.yaml"),
        "hooks:\n  PreToolUse:\n    - type: command\n      persistent: true\n      command: \"exec ./no-such-program\"\n      on_failure: block\n",
    )
    .unwrap();
    let registry = HookRegistry::new();
    let _mounted = load_file(&dir.join("hooks.yaml"))
        .unwrap()
        .mount(&registry)
        .unwrap();
    for n in 0..3 {
        let outcome = registry.emit("tool:pre", call(n)).await;
        assert_eq!(outcome.action(), HookAction::Deny, "{outcome:?}");
        assert!(
            outcome
                .result
                .reason
                .as_deref()
                .unwrap()
                .contains("exited with 127"),
            "{outcome:?}"
        );
    }
}

#[test]
fn persistent_is_a_flag_and_excludes_async() {
    let errors = |yaml: &str| {
        let ConfigErrors(errors) =
            load_str(yaml, Path::new("hooks.yaml"), Path::new(".")).unwrap_err();
        errors
            .into_iter()
            .map(|e| (e.line, e.message))
            .collect::<Vec<_>>()
    };
    let both = errors(
        "hooks:\n  PreToolUse:\n    - type: command\n      command: x\n      async: true\n      persistent: true\n",
    );
    assert_eq!(both.len(), 1, "{both:?}");
    assert_eq!(both[0].0, 6);
    assert!(both[0].1.contains("cannot both be true"), "{both:?}");
    let mistyped = errors(
        "hooks:\n  PreToolUse:\n    - type: command\n      command: x\n      persistent: sometimes\n",
    );
    assert!(
        mistyped[0]
            .1
            .contains("`persistent` must be true or false, not `sometimes`"),
        "{mistyped:?}"
    );
}
