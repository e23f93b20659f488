//! `hooks copilot`: GitHub Copilot CLI's hook JSON on stdin in both of its dialects (camelCase
//! with `toolArgs` as a JSON text, and PascalCase with snake_case fields), every answer read by
//! Copilot's rules ([`support::run`] checks each): a non-zero exit is a skipped hook there, so
//! every block must be JSON on exit 0.

#![allow(clippy::unwrap_used)]

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use hooks_config::interop::{AgentAnswer, Verdict, agent};
use serde_json::{Value, json};

/// The safety module's command and path rules, a question, and two rewrites: one applied, one
/// that wants confirmation.
const POLICY: &str = r#"modules:
  safety:
    workspace: "."
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "git push*"}}
      action: ask
      message: "push to the remote?"
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
    - type: matcher
      match: {tool: Bash, args: {command: "curl*"}}
      action: block
      message: "no network from here"
"#;

fn policy(test: &str, yaml: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("copilot", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    file
}

fn copilot(config: &Path, input: &str) -> Output {
    support::run(
        None,
        &["copilot".as_ref(), "--config".as_ref(), config.as_os_str()],
        input,
    )
}

/// A camelCase `preToolUse`: no event name, the arguments as a JSON text.
fn camel(tool: &str, args: Value) -> String {
    json!({"sessionId": "s1", "timestamp": 1_764_000_000_000_u64, "cwd": "/tmp",
           "toolName": tool, "toolArgs": args.to_string()})
    .to_string()
}

/// A PascalCase `PreToolUse`: snake_case fields, as `hooks init copilot` has it sent.
fn pascal(tool: &str, input: Value) -> String {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1",
           "timestamp": "2026-11-25T10:00:00Z", "cwd": "/tmp",
           "tool_name": tool, "tool_input": input})
    .to_string()
}

/// What Copilot does with the answer to its tool event `event`.
fn verdict(event: &str, output: &Output) -> Verdict {
    support::accepts("copilot", event, output).unwrap()
}

fn blocked(event: &str, output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    match verdict(event, output) {
        Verdict::Block(reason) => reason,
        other => panic!("not blocked: {other:?} {output:?}"),
    }
}

#[test]
fn both_dialects_meet_the_safety_rules_on_canonical_tools() {
    let config = policy("dialects", POLICY);
    let rm = copilot(&config, &camel("bash", json!({"command": "rm -rf /"})));
    assert!(blocked("preToolUse", &rm).contains("rm-root"), "{rm:?}");
    let rm = copilot(&config, &pascal("bash", json!({"command": "rm -rf /"})));
    assert!(blocked("PreToolUse", &rm).contains("rm-root"), "{rm:?}");
    // The PascalCase answer repeats the decision where the VS Code agent reads it.
    let answer = support::stdout_json(&rm);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");

    let create = copilot(
        &config,
        &camel("create", json!({"path": "/etc/passwd", "file_text": "x"})),
    );
    assert!(blocked("preToolUse", &create).contains("/etc/passwd"));
    let view = copilot(&config, &pascal("view", json!({"path": "/etc/shadow"})));
    assert!(blocked("PreToolUse", &view).contains("/etc/shadow"));

    let fine = copilot(&config, &camel("bash", json!({"command": "ls"})));
    assert_eq!(fine.status.code(), Some(0));
    assert!(fine.stdout.is_empty(), "never an explicit allow: {fine:?}");
}

/// Copilot CLI sends its freeform `apply_patch` as `Edit` with the patch as the whole input, a
/// JSON string: the patch is checked file by file, so a file added outside the workspace is
/// denied and one inside is not.
#[test]
fn a_freeform_patch_is_checked_file_by_file() {
    let config = policy("freeform_patch", POLICY);
    let workspace = config.parent().unwrap();
    let patch = |path: &Path| {
        format!(
            "*** Begin Patch\n*** Add File: {}\n+planted\n*** End Patch\n",
            path.display()
        )
    };
    let outside = workspace.parent().unwrap().join("elsewhere/planted.txt");
    let denied = copilot(&config, &pascal("Edit", Value::from(patch(&outside))));
    assert!(
        blocked("PreToolUse", &denied).contains("planted.txt"),
        "{denied:?}"
    );

    let inside = workspace.join("notes.txt");
    let fine = copilot(&config, &pascal("Edit", Value::from(patch(&inside))));
    assert_eq!(fine.status.code(), Some(0), "{fine:?}");
    assert!(fine.stdout.is_empty(), "{fine:?}");
}

#[test]
fn the_vs_code_agent_running_the_same_file_is_guarded_too() {
    let config = policy("vscode", POLICY);
    let input = json!({"hookEventName": "PreToolUse", "sessionId": "s1", "cwd": "/tmp",
                       "timestamp": "2026-11-25T10:00:00Z", "tool_name": "runInTerminal",
                       "tool_input": {"command": "rm -rf /"}});
    let output = copilot(&config, &input.to_string());
    assert!(
        blocked("PreToolUse", &output).contains("rm-root"),
        "{output:?}"
    );
    assert_eq!(
        support::stdout_json(&output)["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

#[test]
fn a_question_is_a_deny_that_says_it_and_rewrites_run_only_when_applied() {
    let config = policy("ask", POLICY);
    let push = copilot(&config, &camel("bash", json!({"command": "git push"})));
    assert!(blocked("preToolUse", &push).contains("push to the remote?"));

    let publish = copilot(&config, &camel("bash", json!({"command": "npm publish"})));
    assert!(blocked("preToolUse", &publish).contains("npm publish --dry-run"));

    let python = copilot(&config, &camel("bash", json!({"command": "python x.py"})));
    assert_eq!(
        verdict("preToolUse", &python),
        Verdict::RunRewritten(json!({"command": "python3 x.py"}))
    );
    assert_eq!(
        support::stdout_json(&python)["modifiedArgs"],
        json!({"command": "python3 x.py"})
    );
}

#[test]
fn a_permission_request_is_denied_with_behavior() {
    let config = policy("permission", POLICY);
    let input = json!({"hook_event_name": "permissionRequest", "sessionId": "s1",
                       "toolName": "bash", "toolArgs": "{\"command\": \"curl example.com\"}"});
    let output = copilot(&config, &input.to_string());
    let answer = support::stdout_json(&output);
    assert_eq!(answer["behavior"], "deny");
    assert_eq!(
        verdict("permissionRequest", &output),
        Verdict::Block("no network from here".to_owned())
    );
}

#[test]
fn a_policy_that_cannot_decide_denies_on_exit_0() {
    let broken = policy("broken", "hooks:\n  PreToolUse:\n    - type: nonsense\n");
    let output = copilot(&broken, &camel("bash", json!({"command": "ls"})));
    assert!(blocked("preToolUse", &output).contains("policy file is broken"));
    let good = policy("garbage", POLICY);
    for garbage in ["", "not json", "[1]", "{\"nothing\": \"known\"}"] {
        let output = copilot(&good, garbage);
        assert_eq!(output.status.code(), Some(0), "{garbage:?}");
        for event in ["preToolUse", "PreToolUse", "permissionRequest"] {
            assert!(
                matches!(verdict(event, &output), Verdict::Block(_)),
                "{event} {garbage:?}: {output:?}"
            );
        }
    }
}

#[test]
fn copilots_validator_refuses_what_copilot_would_skip_or_a_guard_must_not_say() {
    let copilot = agent("copilot").unwrap();
    let ask = AgentAnswer::json(&json!({"permissionDecision": "ask",
                                         "permissionDecisionReason": "sure?"}));
    assert!(copilot.accepts("preToolUse", &ask).is_err());
    let allow = AgentAnswer::json(&json!({"permissionDecision": "allow"}));
    assert!(copilot.accepts("preToolUse", &allow).is_err());
    // Exit 2 is a skipped hook on preToolUse, a deny on permissionRequest.
    let exit_2 = AgentAnswer::block("no");
    assert!(copilot.accepts("preToolUse", &exit_2).is_err());
    assert!(matches!(
        copilot.accepts("permissionRequest", &exit_2),
        Ok(Verdict::Block(_))
    ));
}

#[test]
fn init_writes_a_versioned_hooks_file_copilot_and_vs_code_both_run() {
    let dir = hooks_testing::scratch_dir("copilot", "init");
    // Copilot's command finds the hooks file from the repository's root.
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(git.success());
    let args: Vec<&OsStr> = vec![
        "init".as_ref(),
        "copilot".as_ref(),
        "--dir".as_ref(),
        dir.as_os_str(),
    ];
    let output = support::run(None, &args, "");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    // Copilot CLI's prompt mode skips repository hooks in an untrusted folder: said at init.
    let said = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS"),
        "{said}"
    );
    let text = std::fs::read_to_string(dir.join(".github/hooks/hooks.json")).unwrap();
    let settings: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(settings["version"], 1);
    let entry = &settings["hooks"]["PreToolUse"][0];
    assert_eq!(entry["type"], "command");
    let command = entry["bash"].as_str().unwrap();
    // This binary by its absolute path, not a name looked up on the agent's PATH.
    assert!(command.starts_with('/'), "{command}");
    assert!(command.contains(" copilot --config "), "{command}");
    assert_eq!(entry["command"], entry["bash"]);
    // Copilot's timeout key and the VS Code agent's, both in seconds and above our deadline.
    assert_eq!(entry["timeoutSec"], 90, "{entry}");
    assert_eq!(entry["timeout"], entry["timeoutSec"]);
    // A second run changes nothing.
    let again = support::run(None, &args, "");
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join(".github/hooks/hooks.json")).unwrap(),
        text
    );
}
