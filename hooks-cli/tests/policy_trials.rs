//! A hooks file tried before it is deployed: `hooks test` (tables of cases), `hooks replay`
//! (recorded events decided again), and the agent each event comes from.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

fn hooks(args: &[&str]) -> Output {
    support::run(None, args, "")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A directory holding `files` (name, text).
fn project(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = hooks_testing::scratch_dir("policy-trials", test);
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

const GUARD: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no_env
      match:
        tool: Write
        args:
          file_path: "**/.env*"
      action: block
      message: "Cannot modify environment files"
    - type: matcher
      name: ask_push
      match:
        tool: Bash
        args:
          command: "git push*"
      action: ask
      message: "Push to the remote?"
"#;

const PASSING: &str = r#"cases:
  - name: writing an env file
    tool: Write
    input: {file_path: config/.env, content: "KEY=1"}
    expect: deny
    reason: environment files
  - name: pushing
    tool: Bash
    input: {command: git push origin main}
    expect: ask
  - name: listing
    tool: Bash
    input: {command: ls}
    expect: allow
  - name: Claude Code's own input
    agent: claude
    hook: {hook_event_name: PreToolUse, session_id: s1, tool_name: Write, tool_input: {file_path: .env}}
    expect: deny
  - name: a prompt
    event: UserPromptSubmit
    data: {prompt: hello}
    expect: allow
"#;

#[test]
fn a_passing_table_says_so_and_exits_zero() {
    let dir = project(
        "passing",
        &[("hooks.yaml", GUARD), ("guard.test.yaml", PASSING)],
    );
    let output = hooks(&["test", dir.to_str().unwrap()]);
    let printed = support::stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{printed}{}",
        stderr(&output)
    );
    assert!(printed.contains("5 passed, 0 failed"), "{printed}");
}

#[test]
fn a_failing_case_is_shown_as_a_diff_and_exits_one() {
    let table = "cases:\n  - name: listing is denied\n    tool: Bash\n    input: {command: ls}\n    expect: deny\n  - name: env reason\n    tool: Write\n    input: {file_path: .env}\n    expect: deny\n    reason: secrets\n";
    let dir = project(
        "failing",
        &[("hooks.yaml", GUARD), ("guard.test.yaml", table)],
    );
    let file = dir.join("guard.test.yaml");
    let output = hooks(&["test", file.to_str().unwrap()]);
    let printed = support::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    assert!(printed.contains("FAIL listing is denied ("), "{printed}");
    assert!(printed.contains("guard.test.yaml:2)"), "{printed}");
    assert!(
        printed.contains("  - expected: deny\n  + got:      allow\n"),
        "{printed}"
    );
    assert!(
        printed.contains("  - expected: deny, reason containing \"secrets\"\n  + got:      deny, reason \"Cannot modify environment files\", decided by `no_env`"),
        "{printed}"
    );
    assert!(printed.contains("0 passed, 2 failed"), "{printed}");

    let json = hooks(&["test", file.to_str().unwrap(), "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: Value = support::stdout_json(&json);
    assert_eq!(report["passed"], false);
    let case = &report["tables"][0]["cases"][0];
    assert_eq!(
        (&case["expected"], &case["got"]),
        (&json!("deny"), &json!("allow"))
    );
    assert_eq!(case["line"], 2);
}

#[test]
fn a_malformed_table_is_an_error_at_its_line() {
    let table = "cases:\n  - tool: Bash\n    input: {command: ls}\n    expect: perhaps\n";
    let dir = project(
        "malformed",
        &[("hooks.yaml", GUARD), ("bad.test.yaml", table)],
    );
    let output = hooks(&["test", dir.join("bad.test.yaml").to_str().unwrap()]);
    let problems = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{problems}");
    assert!(
        problems.contains("bad.test.yaml:4:13: `expect` is allow, deny or ask, not `perhaps`"),
        "{problems}"
    );
}

#[test]
fn a_table_without_cases_or_a_directory_without_tables_fails() {
    let dir = project(
        "empty",
        &[("hooks.yaml", GUARD), ("none.test.yaml", "cases: []\n")],
    );
    let output = hooks(&["test", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("tests nothing"),
        "{}",
        stderr(&output)
    );

    let bare = project("no-tables", &[("hooks.yaml", GUARD)]);
    let output = hooks(&["test", bare.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("holds no table of cases"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_table_whose_hooks_file_is_broken_fails_saying_why() {
    let dir = project(
        "broken-config",
        &[
            ("hooks.yaml", "hooks:\n  NoSuchEvent: []\n"),
            ("t.test.yaml", PASSING),
        ],
    );
    let output = hooks(&["test", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("does not load"),
        "{}",
        stderr(&output)
    );
}

/// A log as the logging module writes it: one line per event.
fn log_line(event: &str, data: Value, action: Option<&str>) -> String {
    let mut record = json!({"time": "2026-11-20T10:00:00Z", "event": event, "data": data});
    if let Some(action) = action {
        record["result"] = json!({"action": action, "reason": null, "decided_by": null,
            "modified_by": [], "injections": [], "messages": [], "failures": []});
    }
    record.to_string()
}

fn write_call(path: &str) -> Value {
    json!({"tool_name": "Write", "tool_input": {"file_path": path}, "session_id": "s1", "agent": "claude"})
}

fn bash(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "session_id": "s1"})
}

/// A log recorded under no policy at all: everything went ahead.
fn recorded_log(dir: &Path) -> PathBuf {
    let lines = [
        log_line(
            "session:start",
            json!({"session_id": "s1"}),
            Some("continue"),
        ),
        log_line("tool:pre", write_call("src/main.rs"), Some("continue")),
        log_line("tool:pre", write_call(".env.local"), Some("continue")),
        log_line("tool:pre", bash("git push origin main"), Some("continue")),
        log_line(
            "prompt:submit",
            json!({"prompt": "ship it"}),
            Some("continue"),
        ),
        log_line(
            "tool:pre",
            bash("echo [REDACTED:openai_key]"),
            Some("continue"),
        ),
        "{not json".to_owned(),
    ];
    let log = dir.join("events.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    log
}

#[test]
fn replay_lists_each_decision_that_would_change_with_counts() {
    let dir = project("replay", &[("hooks.yaml", GUARD)]);
    let log = recorded_log(&dir);
    let before = std::fs::read_to_string(&log).unwrap();
    let output = hooks(&[
        "replay",
        log.to_str().unwrap(),
        "--config",
        dir.join("hooks.yaml").to_str().unwrap(),
    ]);
    let printed = support::stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{printed}{}",
        stderr(&output)
    );
    assert!(
        printed.contains("events.jsonl:3: tool:pre Write .env.local: allow → deny: Cannot modify environment files"),
        "{printed}"
    );
    assert!(
        printed.contains("events.jsonl:4: tool:pre Bash git push origin main: allow → ask"),
        "{printed}"
    );
    assert!(
        printed.contains("4 events decided again: 2 would change, 2 would not"),
        "{printed}"
    );
    assert!(
        printed.contains("  allow → ask: 1\n  allow → deny: 1\n"),
        "{printed}"
    );
    assert!(printed.contains("3 lines not decided again:"), "{printed}");
    assert!(
        printed.contains("`session:start` is neither a tool call nor a prompt"),
        "{printed}"
    );
    assert!(printed.contains("redacted a secret"), "{printed}");
    assert!(printed.contains("not JSON"), "{printed}");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        before,
        "a replay writes nothing"
    );

    let json = hooks(&[
        "replay",
        log.to_str().unwrap(),
        "--config",
        dir.join("hooks.yaml").to_str().unwrap(),
        "--json",
    ]);
    let report: Value = support::stdout_json(&json);
    assert_eq!(report["replayed"], 4);
    assert_eq!(report["changed"][0]["line"], 3);
    assert_eq!(report["changed"][0]["after"], "deny");
    assert_eq!(report["not_replayed"].as_array().unwrap().len(), 3);
}

#[test]
fn replay_without_recorded_decisions_needs_a_baseline() {
    let dir = project(
        "replay-baseline",
        &[("hooks.yaml", GUARD), ("old.yaml", "hooks: {}\n")],
    );
    let log = dir.join("events.jsonl");
    let lines = [
        log_line("tool:pre", write_call(".env"), None),
        log_line("tool:pre", write_call("README.md"), None),
    ];
    std::fs::write(&log, lines.join("\n")).unwrap();
    let config = dir.join("hooks.yaml");
    let alone = hooks(&[
        "replay",
        log.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    let printed = support::stdout(&alone);
    assert!(printed.contains("0 events decided again"), "{printed}");
    assert!(
        printed.contains("2: the log holds no decision for it, and no baseline"),
        "{printed}"
    );

    let compared = hooks(&[
        "replay",
        log.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--baseline",
        dir.join("old.yaml").to_str().unwrap(),
    ]);
    let printed = support::stdout(&compared);
    assert!(
        printed.contains("events.jsonl:1: tool:pre Write .env: allow → deny"),
        "{printed}"
    );
    assert!(
        printed.contains("2 events decided again: 1 would change"),
        "{printed}"
    );
}

#[test]
fn replay_of_a_missing_log_fails() {
    let dir = project("replay-missing", &[("hooks.yaml", GUARD)]);
    let output = hooks(&[
        "replay",
        dir.join("nope.jsonl").to_str().unwrap(),
        "--config",
        dir.join("hooks.yaml").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("cannot read"),
        "{}",
        stderr(&output)
    );
}

/// The agent's name reaches the policy: a Cedar policy that forbids only Codex.
#[cfg(feature = "cedar")]
#[test]
fn the_cedar_principal_is_the_agent_that_called() {
    let config = r#"hooks:
  PreToolUse:
    - type: cedar
      policies: |
        @reason("codex may not run make")
        forbid(principal == Agent::"codex", action == Action::"Bash", resource)
        when { context.input has command && context.input.command like "make*" };
"#;
    let dir = project("principal", &[("hooks.yaml", config)]);
    let file = dir.join("hooks.yaml");
    let claude = support::run(
        None,
        &["claude", "--config", file.to_str().unwrap()],
        r#"{"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "make all"}}"#,
    );
    assert_eq!(support::claude_denial(&claude), None, "{}", stderr(&claude));
    let codex = support::run(
        None,
        &["codex", "--config", file.to_str().unwrap()],
        r#"{"hook_event_name": "PreToolUse", "session_id": "s1", "turn_id": "t1", "cwd": "/tmp", "model": "gpt-5", "tool_name": "Bash", "tool_input": {"command": "make all"}, "tool_use_id": "c1"}"#,
    );
    let answer = format!("{}{}", support::stdout(&codex), stderr(&codex));
    assert!(answer.contains("codex may not run make"), "{answer}");
}
