//! `hooks codex`: Codex CLI's hook JSON on stdin, driven as Codex CLI drives it, and every
//! answer checked against the shapes Codex CLI accepts (its validator, run by
//! [`support::run`]): an answer it rejects counts as a failed hook, and the tool call then
//! runs.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

/// A policy with an answer of every kind on every Codex CLI event.
const POLICY: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "rm -rf*"}}
      action: block
      message: "recursive deletes are blocked"
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
    - type: matcher
      match: {tool: apply_patch}
      action: inject
      message: "patches follow the style guide"
    - type: command
      name: dry_run
      matcher: Bash
      command: "grep -q 'npm publish' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"npm publish --dry-run\"}}' || true"
    - type: command
      name: python3
      matcher: Bash
      rewrite: apply
      command: "grep -q 'python x.py' && echo '{\"action\": \"modify\", \"modified_args\": {\"command\": \"python3 x.py\"}}' || true"
  approval:required:
    - type: command
      command: "grep -q '\"command\":\"curl' && { echo 'no network from here' >&2; exit 2; } || true"
    - type: matcher
      match: {args: {}}
      action: ask
      message: "run it?"
  PostToolUse:
    - type: matcher
      match: {tool: Bash}
      action: inject
      message: "remember to run the tests"
    - type: command
      command: "grep -q LEAKED && { echo 'the output holds a secret' >&2; exit 2; } || true"
  PromptSubmit:
    - type: command
      command: "grep -q password && { echo 'prompts must not carry passwords' >&2; exit 2; } || true"
    - type: matcher
      match: {args: {}}
      action: inject
      message: "the style guide applies"
  ResponseComplete:
    - type: command
      command: "grep -q '\"stop_hook_active\":false' && { echo 'run the tests first' >&2; exit 2; } || true"
  SessionStart:
    - type: command
      command: "grep -q '\"source\":\"resume\"' && { echo 'no resuming here' >&2; exit 2; } || true"
    - type: matcher
      match: {args: {}}
      action: inject
      message: "this is the payments service"
  "codex:subagent_start":
    - type: matcher
      match: {args: {}}
      action: inject
      message: "subagents follow the same rules"
  "codex:subagent_stop":
    - type: command
      command: "echo 'the subagent left work undone' >&2; exit 2"
  context:pre_compact:
    - type: command
      command: "grep -q manual && { echo 'keep the context' >&2; exit 2; } || true"
    - type: matcher
      match: {args: {}}
      action: inject
      message: "compaction keeps the plan"
  session:end:
    - type: matcher
      match: {args: {}}
      action: inject
      message: "the log is in .hooks"
"#;

fn policy(test: &str, yaml: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("codex", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    file
}

/// What Codex CLI sends: Claude Code's fields plus its own, and the event's.
fn event(name: &str, fields: Value) -> String {
    let mut input = json!({
        "session_id": "0197a1b2-0000-7000-8000-000000000001",
        "turn_id": "turn-1",
        "transcript_path": null,
        "cwd": "/home/dev/project",
        "hook_event_name": name,
        "model": "gpt-5",
        "permission_mode": "default",
        "agent_id": "main",
        "agent_type": "default",
    });
    input
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    input.to_string()
}

fn bash(event_name: &str, command: &str) -> String {
    event(
        event_name,
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "call-1"}),
    )
}

/// Runs `hooks codex` on `input` and checks the answer is one Codex CLI accepts on
/// `event_name` (whatever the input says its event is).
fn codex(config: &Path, event_name: &str, input: &str) -> Output {
    let output = support::run(
        None,
        &["codex".as_ref(), "--config".as_ref(), config.as_os_str()],
        input,
    );
    if let Err(problem) = support::accepts("codex", event_name, &output) {
        panic!("Codex CLI would reject the answer to {event_name} ({problem}): {output:?}");
    }
    output
}

fn answer(output: &Output) -> Value {
    support::stdout_json(output)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_denied_tool_call_is_a_permission_decision_deny_with_its_reason() {
    let config = policy("deny", POLICY);
    let denied = codex(&config, "PreToolUse", &bash("PreToolUse", "rm -rf build /"));
    assert_eq!(denied.status.code(), Some(0));
    let specific = &answer(&denied)["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    assert_eq!(
        specific["permissionDecisionReason"],
        "recursive deletes are blocked"
    );

    // No opinion is no answer at all.
    let harmless = codex(&config, "PreToolUse", &bash("PreToolUse", "cargo test"));
    assert!(harmless.stdout.is_empty(), "{harmless:?}");
    assert!(harmless.stderr.is_empty(), "{harmless:?}");
}

#[test]
fn a_question_becomes_a_deny_that_asks_because_codex_rejects_ask() {
    let config = policy("ask", POLICY);
    let asked = codex(
        &config,
        "PreToolUse",
        &bash("PreToolUse", "git push origin main"),
    );
    let specific = &answer(&asked)["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    let reason = specific["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("push to the remote?"), "{reason}");

    // On an approval request, Codex CLI's own prompt asks: no decision.
    let approval = codex(
        &config,
        "PermissionRequest",
        &event(
            "PermissionRequest",
            json!({"tool_name": "Bash", "tool_input": {"command": "make deploy", "description": "deploy"}}),
        ),
    );
    assert!(approval.stdout.is_empty(), "{approval:?}");
}

#[test]
fn a_rewrite_blocks_saying_what_would_run_unless_its_entry_opts_in() {
    let config = policy("rewrite", POLICY);
    let blocked = codex(&config, "PreToolUse", &bash("PreToolUse", "npm publish"));
    let specific = &answer(&blocked)["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    let reason = specific["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("`npm publish --dry-run`"), "{reason}");
    assert!(reason.contains("`dry_run`"), "names the hook: {reason}");
    assert!(reason.contains("rewrite: apply"), "{reason}");

    let applied = codex(&config, "PreToolUse", &bash("PreToolUse", "python x.py"));
    let specific = &answer(&applied)["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "allow");
    assert_eq!(specific["updatedInput"], json!({"command": "python3 x.py"}));
}

#[test]
fn context_goes_where_codex_takes_it_and_to_the_user_elsewhere() {
    let config = policy("context", POLICY);
    let patch = event(
        "PreToolUse",
        json!({"tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"}, "tool_use_id": "call-2"}),
    );
    let pre = codex(&config, "PreToolUse", &patch);
    let pre = answer(&pre);
    assert_eq!(
        pre["hookSpecificOutput"]["additionalContext"],
        "patches follow the style guide"
    );
    assert!(
        pre["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none(),
        "{pre}"
    );

    let post = event(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "a.txt", "tool_use_id": "call-3"}),
    );
    let post = answer(&codex(&config, "PostToolUse", &post));
    assert_eq!(
        post["hookSpecificOutput"]["additionalContext"],
        "remember to run the tests"
    );

    let prompt = answer(&codex(
        &config,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({"prompt": "add a test"})),
    ));
    assert_eq!(
        prompt["hookSpecificOutput"]["additionalContext"],
        "the style guide applies"
    );

    let start = answer(&codex(
        &config,
        "SessionStart",
        &event("SessionStart", json!({"source": "startup"})),
    ));
    assert_eq!(
        start["hookSpecificOutput"]["additionalContext"],
        "this is the payments service"
    );

    let subagent = answer(&codex(
        &config,
        "SubagentStart",
        &event(
            "SubagentStart",
            json!({"agent_id": "worker-1", "agent_type": "explorer"}),
        ),
    ));
    assert_eq!(
        subagent["hookSpecificOutput"]["additionalContext"],
        "subagents follow the same rules"
    );

    // PreCompact and SessionEnd take no context: the user is told.
    let compact = answer(&codex(
        &config,
        "PreCompact",
        &event("PreCompact", json!({"trigger": "auto"})),
    ));
    assert!(
        compact["systemMessage"]
            .as_str()
            .unwrap()
            .contains("compaction keeps the plan"),
        "{compact}"
    );
    let end = answer(&codex(
        &config,
        "SessionEnd",
        &event("SessionEnd", json!({"reason": "exit"})),
    ));
    assert!(
        end["systemMessage"]
            .as_str()
            .unwrap()
            .contains("the log is in .hooks"),
        "{end}"
    );
}

#[test]
fn each_event_blocks_in_its_own_terms() {
    let config = policy("block", POLICY);
    let permission = answer(&codex(
        &config,
        "PermissionRequest",
        &event(
            "PermissionRequest",
            json!({"tool_name": "Bash", "tool_input": {"command": "curl example.com"}}),
        ),
    ));
    assert_eq!(
        permission["hookSpecificOutput"]["decision"],
        json!({"behavior": "deny", "message": "no network from here"})
    );

    let post = event(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": "KEY=LEAKED", "tool_use_id": "call-4"}),
    );
    let post = answer(&codex(&config, "PostToolUse", &post));
    assert_eq!(post["decision"], "block");
    assert_eq!(post["reason"], "the output holds a secret");

    let prompt = answer(&codex(
        &config,
        "UserPromptSubmit",
        &event(
            "UserPromptSubmit",
            json!({"prompt": "my password is hunter2"}),
        ),
    ));
    assert_eq!(prompt["decision"], "block");
    assert_eq!(prompt["reason"], "prompts must not carry passwords");

    let stop = answer(&codex(
        &config,
        "Stop",
        &event(
            "Stop",
            json!({"stop_hook_active": false, "last_assistant_message": "done"}),
        ),
    ));
    assert_eq!(stop["decision"], "block");
    assert_eq!(stop["reason"], "run the tests first");
    let stopped = codex(
        &config,
        "Stop",
        &event(
            "Stop",
            json!({"stop_hook_active": true, "last_assistant_message": "done"}),
        ),
    );
    assert!(stopped.stdout.is_empty(), "{stopped:?}");

    let subagent = answer(&codex(
        &config,
        "SubagentStop",
        &event(
            "SubagentStop",
            json!({"agent_id": "worker-1", "stop_hook_active": false}),
        ),
    ));
    assert_eq!(subagent["decision"], "block");
    assert_eq!(subagent["reason"], "the subagent left work undone");

    // Codex CLI lets no hook stop a session start or a compaction: exit 2 with the reason.
    let resume = codex(
        &config,
        "SessionStart",
        &event("SessionStart", json!({"source": "resume"})),
    );
    assert_eq!(resume.status.code(), Some(2));
    assert!(stderr(&resume).contains("no resuming here"), "{resume:?}");
    let compact = codex(
        &config,
        "PreCompact",
        &event("PreCompact", json!({"trigger": "manual"})),
    );
    assert_eq!(compact.status.code(), Some(2));
    assert!(stderr(&compact).contains("keep the context"), "{compact:?}");
}

#[test]
fn a_policy_that_cannot_decide_blocks_with_exit_code_2() {
    let broken = policy("broken", "hooks:\n  PreToolUse:\n    - type: nonsense\n");
    for (name, input) in [
        ("PreToolUse", bash("PreToolUse", "ls")),
        ("PermissionRequest", bash("PermissionRequest", "ls")),
        (
            "UserPromptSubmit",
            event("UserPromptSubmit", json!({"prompt": "hi"})),
        ),
    ] {
        let output = codex(&broken, name, &input);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(
            stderr(&output).contains("policy file is broken"),
            "{output:?}"
        );
    }
    let good = policy("garbage", POLICY);
    for garbage in ["", "not json", "[1, 2]", "{\"tool_name\": \"Bash\"}"] {
        let output = codex(&good, "PreToolUse", garbage);
        assert_eq!(output.status.code(), Some(2), "{garbage:?}");
    }
}

#[test]
fn the_validator_refuses_what_codex_rejects() {
    // Claude Code's answers to a question and a rewrite are exactly what Codex CLI rejects:
    // the check that every answer above passes can fail.
    let config = policy("validator", POLICY);
    for command in ["git push origin main", "npm publish"] {
        let claude = support::run(
            None,
            &["claude".as_ref(), "--config".as_ref(), config.as_os_str()],
            &bash("PreToolUse", command),
        );
        let problem = support::accepts("codex", "PreToolUse", &claude).unwrap_err();
        // A question's `ask`, or a rewrite's `updatedInput` without an allow: whichever the
        // validator meets first.
        assert!(
            problem.contains("permissionDecision") || problem.contains("updatedInput"),
            "{problem}"
        );
    }
}
