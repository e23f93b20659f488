//! `hooks demo`, run as CI runs it (no terminal): the decisions it shows really happen.

#![allow(clippy::unwrap_used)]

use std::process::Command;

use serde_json::Value;

fn demo_events() -> (Vec<Value>, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["demo", "--json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let summary = lines.pop().unwrap()["summary"].clone();
    (lines, summary)
}

fn decided_by<'e>(events: &'e [Value], hook: &str) -> Vec<&'e Value> {
    events.iter().filter(|e| e["decided_by"] == hook).collect()
}

#[test]
fn the_demo_shows_each_hook_doing_its_job() {
    let (events, summary) = demo_events();

    let safety = decided_by(&events, "safety");
    assert_eq!(safety.len(), 2, "rm -rf / and .env");
    assert!(
        safety
            .iter()
            .any(|e| e["reason"].as_str().unwrap().contains("--no-preserve-root"))
    );
    assert!(safety.iter().all(|e| e["action"] == "deny"));

    let posts: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "tool:post")
        .collect();
    let linted = |e: &&Value| {
        e["injections"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["hook"] == "linter")
    };
    assert!(linted(&posts[0]), "the first write gets lint findings");
    assert!(!linted(&posts[1]), "the fixed file is clean");

    let granted: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "approval:granted")
        .collect();
    assert_eq!(granted.len(), 2);
    assert_eq!(granted[1]["approved_by"], "an earlier \"always\" answer");
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "approval:required")
            .count(),
        1,
        "asked once"
    );

    let prompt = events
        .iter()
        .find(|e| e["event"] == "prompt:submit")
        .unwrap();
    assert_eq!(prompt["modified_by"][0], "redaction");
    let reminder = events
        .iter()
        .find(|e| e["event"] == "provider:request")
        .unwrap();
    assert_eq!(reminder["injections"][0]["ephemeral"], true);

    assert_eq!(
        decided_by(&events, "generated_files").len(),
        1,
        "the YAML matcher"
    );
    assert_eq!(
        decided_by(&events, "no_push_policy").len(),
        1,
        "the YAML command hook"
    );

    assert_eq!(summary["ephemeral_in_history"], false);
    assert_eq!(summary["approvals_asked"], 1);
    assert_eq!(
        summary["log_lines"], summary["events"],
        "every event is logged"
    );
    assert_eq!(summary["events"].as_u64().unwrap() as usize, events.len());
}

#[test]
fn the_transcript_is_plain_text_without_a_terminal() {
    let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["demo", "--no"])
        .output()
        .unwrap();
    let transcript = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success());
    assert!(
        !transcript.contains('\x1b'),
        "no colour codes when stdout is not a terminal"
    );
    assert!(
        transcript.contains("BLOCKED, not approved"),
        "--no denies the write: {transcript}"
    );
    assert!(transcript.contains("summary") && transcript.contains("time in hooks"));
}
