//! The `hooks` binary, run as a user runs it.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

fn hooks(args: &[&str], stdin: Option<&str>) -> Output {
    support::run(None, args, stdin.unwrap_or(""))
}

fn scratch(test: &str, yaml: &str) -> (PathBuf, PathBuf) {
    let dir = hooks_testing::scratch_dir("cli", test);
    let file = dir.join("hooks.yaml");
    std::fs::write(&file, yaml).unwrap();
    (dir, file)
}

const POLICY: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no_env
      match:
        args:
          file_path: "**/.env*"
      action: block
      message: "Cannot modify environment files"
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn eval_prints_the_merged_result_and_exits_zero_even_on_a_deny() {
    let (dir, file) = scratch("eval", POLICY);
    let data = r#"{"tool_name": "Write", "tool_input": {"file_path": "config/.env"}}"#;

    let denied = hooks(
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "tool:pre",
            "--data",
            data,
        ],
        None,
    );
    let allowed = hooks(
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "PreToolUse",
            "--data",
            "-",
        ],
        Some(r#"{"tool_name": "Write", "tool_input": {"file_path": "src/a.rs"}}"#),
    );

    assert!(denied.status.success(), "{}", text(&denied.stderr));
    let result: Value = serde_json::from_slice(&denied.stdout).unwrap();
    assert_eq!(result["action"], "deny");
    assert_eq!(result["reason"], "Cannot modify environment files");
    assert_eq!(
        result["approval_default"], "deny",
        "reference field names and defaults"
    );
    assert_eq!(text(&denied.stdout).lines().count(), 1, "one JSON object");
    let result: Value = serde_json::from_slice(&allowed.stdout).unwrap();
    assert_eq!(result["action"], "continue");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Two entries on one event: one injects a note, the other denies.
const TWO_ENTRIES: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: write_note
      match:
        tool: Write
      action: inject
      message: "writes are reviewed"
    - type: matcher
      name: no_env
      match:
        args:
          file_path: "**/.env*"
      action: block
      message: "Cannot modify environment files"
"#;

#[test]
fn eval_names_the_hook_behind_each_part_of_the_result() {
    let (dir, file) = scratch("eval-provenance", TWO_ENTRIES);
    let data = r#"{"tool_name": "Write", "tool_input": {"file_path": "config/.env"}}"#;
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "tool:pre",
            "--data",
            data,
        ];
        args.extend_from_slice(extra);
        hooks(&args, None)
    };

    let plain = args(&[]);
    let explained = args(&["--provenance"]);

    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let result: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert_eq!(
        result["action"], "deny",
        "stdout stays the reference result"
    );
    let stderr = text(&plain.stderr);
    assert!(
        stderr.contains("decided by `no_env` (deny): Cannot modify environment files"),
        "{stderr}"
    );
    assert!(
        stderr.contains("injected by `write_note`: writes are reviewed"),
        "{stderr}"
    );
    assert!(!stderr.contains("decided by `write_note`"), "{stderr}");

    assert!(explained.status.success(), "{}", text(&explained.stderr));
    let explained: Value = serde_json::from_slice(&explained.stdout).unwrap();
    assert_eq!(explained["result"]["action"], "deny");
    assert_eq!(explained["provenance"]["decided_by"], "no_env");
    assert_eq!(
        explained["provenance"]["injections"][0]["hook"],
        "write_note"
    );
    assert_eq!(
        explained["provenance"]["modified_by"],
        serde_json::json!([])
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn eval_names_the_hook_behind_a_warning() {
    let (dir, file) = scratch(
        "eval-warning",
        "hooks:\n  PreToolUse:\n    - type: command\n      name: broken_gate\n      command: \"exit 3\"\n",
    );
    let args = [
        "eval",
        "--config",
        file.to_str().unwrap(),
        "--event",
        "tool:pre",
        "--data",
        r#"{"tool_name": "Write", "tool_input": {}}"#,
    ];
    let plain = hooks(&args, None);
    let explained = hooks(&[&args[..], &["--provenance"]].concat(), None);

    assert!(plain.status.success(), "{}", text(&plain.stderr));
    assert!(
        text(&plain.stderr)
            .contains("message (warning) from `broken_gate`: hook `broken_gate` failed"),
        "{}",
        text(&plain.stderr)
    );
    let explained: Value = serde_json::from_slice(&explained.stdout).unwrap();
    assert_eq!(
        explained["provenance"]["messages"][0]["hook"],
        "broken_gate"
    );
    assert_eq!(explained["provenance"]["decided_by"], Value::Null);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn eval_reports_bad_input_on_stderr_and_exits_non_zero() {
    let (dir, file) = scratch("eval-errors", "hooks:\n  PreToolUsee: []\n");
    let good = scratch("eval-errors-good", POLICY).1;
    let broken_config = hooks(
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "tool:pre",
        ],
        None,
    );
    let bad_data = hooks(
        &[
            "eval",
            "--config",
            good.to_str().unwrap(),
            "--event",
            "tool:pre",
            "--data",
            "[1",
        ],
        None,
    );
    let bad_event = hooks(
        &[
            "eval",
            "--config",
            good.to_str().unwrap(),
            "--event",
            "tool:prre",
        ],
        None,
    );
    let usage = hooks(&["eval", "--event", "tool:pre"], None);

    for (output, fragment) in [
        (
            &broken_config,
            "hooks.yaml:2:3: unknown event `PreToolUsee`",
        ),
        (&bad_data, "--data is not JSON"),
        (&bad_event, "did you mean `tool:pre`"),
        (&usage, "--config"),
    ] {
        assert!(!output.status.success());
        assert!(output.stdout.is_empty(), "nothing on stdout on error");
        assert!(
            text(&output.stderr).contains(fragment),
            "{}",
            text(&output.stderr)
        );
    }
    assert_eq!(usage.status.code(), Some(2), "a usage error");
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(good.parent().unwrap()).unwrap();
}

#[test]
fn check_validates_every_file_and_prints_every_problem() {
    let (dir, good) = scratch("check", POLICY);
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "hooks:\n  tool:pre:\n    - type: command\n      timeout_ms: 0\n",
    )
    .unwrap();

    let ok = hooks(&["check", good.to_str().unwrap()], None);
    let failed = hooks(
        &["check", good.to_str().unwrap(), bad.to_str().unwrap()],
        None,
    );

    assert!(ok.status.success());
    assert!(text(&ok.stdout).contains("ok (1 hook)"));
    // What changed this release for a user's file is said where the file is checked.
    assert!(
        text(&ok.stderr).contains("hooks trust"),
        "{}",
        text(&ok.stderr)
    );
    assert_eq!(failed.status.code(), Some(1));
    let errors = text(&failed.stderr);
    assert!(
        errors.contains("bad.yaml:3:7: hook 1 of `tool:pre` is missing `command`"),
        "{errors}"
    );
    assert!(
        errors.contains("bad.yaml:4:19: `timeout_ms` must be from 1"),
        "{errors}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_reports_a_wrong_key_and_what_it_leaves_missing_in_one_run() {
    let (dir, file) = scratch(
        "check-one-run",
        "modules:\n  redaction:\n    patterns:\n      - name: token\n        regexp: \"tok_[a-z]+\"\nhooks:\n  tool:pre:\n    - type: matcher\n      action: deny\n      match: {tol: Bash}\n",
    );

    let output = hooks(&["check", file.to_str().unwrap()], None);

    assert_eq!(output.status.code(), Some(1));
    let errors = text(&output.stderr);
    for expected in [
        "hooks.yaml:4:9: module `redaction`: missing field `regex`",
        "hooks.yaml:5:9: module `redaction`: unknown field `regexp`",
        "hooks.yaml:9:15: `action` must be block, allow, ask or inject, not `deny`",
        "hooks.yaml:10:15: unknown key `tol` in `match`",
    ] {
        assert!(errors.contains(expected), "{expected:?} in {errors}");
    }
    assert_eq!(errors.lines().count(), 4, "{errors}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn events_lists_names_aliases_fields_and_groups() {
    let output = hooks(&["events"], None);
    let listing = text(&output.stdout);
    assert!(output.status.success());
    assert!(
        listing.contains("tool:pre (PreToolUse): tool_name, tool_input, tool_call_id?\n"),
        "{listing}"
    );
    assert!(listing.contains("plan:start\n"), "{listing}");
    let (events, groups) = listing
        .split_once("\n\nfield groups")
        .expect("the groups follow the events");
    assert_eq!(events.lines().count(), hooks_core::events::CANONICAL.len());
    assert!(
        groups.contains(
            "\ntool: tool_name, tool_input, tool_call_id, tool_result, error \
             [tool:pre, tool:post, tool:error]\n"
        ),
        "{groups}"
    );
    for group in ["prompt", "provider", "session", "compaction", "approval"] {
        assert!(
            groups.contains(&format!("\n{group}: ")),
            "{group}: {groups}"
        );
    }
}

/// Our policy for the adapters: a matcher that blocks `.env` writes, one that injects a
/// reminder after every Bash call, and a command hook that rewrites `python` to `python3`.
const ADAPTER_POLICY: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no_env
      match:
        tool: "{Write,write_file}"
        args:
          file_path: "**/.env"
      action: block
      message: "secrets stay out of reach"
    - type: command
      name: python3
      matcher: "Bash|run_shell_command"
      command: |
        input=$(cat)
        case "$input" in
          *'"command":"python '*) echo '{"action": "modify", "modified_args": {"command": "python3 x.py"}}' ;;
        esac
  PostToolUse:
    - type: matcher
      name: reminder
      match:
        tool: "Bash"
      action: inject
      message: "remember to run the tests"
"#;

fn claude_input(event: &str, tool: &str, tool_input: Value) -> String {
    serde_json::json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/p",
                       "hook_event_name": event, "tool_name": tool, "tool_input": tool_input})
    .to_string()
}

#[test]
fn claude_adapter_answers_in_claude_codes_protocol() {
    let (_dir, file) = scratch("claude-adapter", ADAPTER_POLICY);
    let config = file.to_str().unwrap();
    let run = |input: String| hooks(&["claude", "--config", config], Some(&input));

    // A block: exit 2, the reason on stderr.
    let blocked = run(claude_input(
        "PreToolUse",
        "Write",
        serde_json::json!({"file_path": "app/.env"}),
    ));
    assert_eq!(blocked.status.code(), Some(2));
    assert_eq!(text(&blocked.stderr).trim(), "secrets stay out of reach");

    // Nothing to say: no output at all (never `allow`, which would skip the user's prompt).
    let quiet = run(claude_input(
        "PreToolUse",
        "Bash",
        serde_json::json!({"command": "ls"}),
    ));
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(text(&quiet.stdout), "");

    // A rewrite: the updated input, for the user to confirm.
    let rewritten = run(claude_input(
        "PreToolUse",
        "Bash",
        serde_json::json!({"command": "python x.py"}),
    ));
    assert_eq!(
        rewritten.status.code(),
        Some(0),
        "{}",
        text(&rewritten.stderr)
    );
    let answer: Value = serde_json::from_slice(&rewritten.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"]["command"],
        "python3 x.py"
    );
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");

    // Context for the model.
    let context = run(claude_input(
        "PostToolUse",
        "Bash",
        serde_json::json!({"command": "ls"}),
    ));
    let answer: Value = serde_json::from_slice(&context.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"],
        "remember to run the tests"
    );
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PostToolUse");
}

#[test]
fn adapters_fail_closed_when_the_policy_cannot_decide() {
    let (dir, file) = scratch("claude-fail-closed", "hooks:\n  PreToolUze: []\n");
    let input = claude_input("PreToolUse", "Bash", serde_json::json!({"command": "ls"}));
    let broken = hooks(
        &["claude", "--config", file.to_str().unwrap()],
        Some(&input),
    );
    assert_eq!(broken.status.code(), Some(2));
    assert!(
        text(&broken.stderr).contains("PreToolUze"),
        "{}",
        text(&broken.stderr)
    );

    let good = dir.join("good.yaml");
    std::fs::write(&good, ADAPTER_POLICY).unwrap();
    for garbage in ["", "not json", "[]", "{\"tool_name\": \"Bash\"}"] {
        let output = hooks(
            &["claude", "--config", good.to_str().unwrap()],
            Some(garbage),
        );
        assert_eq!(output.status.code(), Some(2), "{garbage}");
        assert!(
            text(&output.stderr).contains("could not decide"),
            "{garbage}"
        );
    }
    // Gemini CLI: the documented deny, not an exit code it reports as a failed hook.
    let missing = hooks(
        &["gemini", "--config", "/nonexistent/hooks.yaml"],
        Some(&input),
    );
    assert_eq!(missing.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert_eq!(answer["decision"], "deny");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("could not decide"),
        "{answer}"
    );
}

#[test]
fn gemini_adapter_answers_in_gemini_clis_protocol() {
    let (_dir, file) = scratch("gemini-adapter", ADAPTER_POLICY);
    let config = file.to_str().unwrap();
    let input = |tool: &str, tool_input: Value| {
        serde_json::json!({"session_id": "s", "hook_event_name": "BeforeTool", "tool_name": tool,
                           "tool_input": tool_input})
        .to_string()
    };
    let blocked = hooks(
        &["gemini", "--config", config],
        Some(&input(
            "write_file",
            serde_json::json!({"file_path": "a/.env"}),
        )),
    );
    assert_eq!(blocked.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&blocked.stdout).unwrap();
    assert_eq!(
        answer,
        serde_json::json!({"decision": "deny", "reason": "secrets stay out of reach"})
    );

    // Gemini CLI runs a rewrite without asking anyone: it blocks, saying what would have run...
    let python = input(
        "run_shell_command",
        serde_json::json!({"command": "python x.py"}),
    );
    let rewritten = hooks(&["gemini", "--config", config], Some(&python));
    let answer: Value = serde_json::from_slice(&rewritten.stdout).unwrap();
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("`python3 x.py`"),
        "{answer}"
    );
    // ...unless the entry that rewrote it opts in.
    let opted_in = ADAPTER_POLICY.replace(
        "      name: python3\n",
        "      name: python3\n      rewrite: apply\n",
    );
    let (_dir, file) = scratch("gemini-adapter-opted-in", &opted_in);
    let rewritten = hooks(
        &["gemini", "--config", file.to_str().unwrap()],
        Some(&python),
    );
    let answer: Value = serde_json::from_slice(&rewritten.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["tool_input"],
        serde_json::json!({"command": "python3 x.py"})
    );
}

#[test]
fn import_claude_writes_yaml_that_check_accepts_and_says_what_it_left_out() {
    let dir = hooks_testing::scratch_dir("cli", "import");
    let settings = dir.join("settings.json");
    std::fs::write(
        &settings,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}],
                      "Stop": [{"hooks": [{"type": "agent", "prompt": "check"}]}]}}"#,
    )
    .unwrap();
    let out = dir.join("imported.hooks.yaml");
    let import = hooks(
        &[
            "import",
            "claude",
            settings.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    assert!(
        text(&import.stderr).contains("left out: "),
        "{}",
        text(&import.stderr)
    );
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(
        yaml.contains("matcher: \"Bash\"") && yaml.contains("timeout_ms: 5000"),
        "{yaml}"
    );
    let check = hooks(&["check", out.to_str().unwrap()], None);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));

    let broken = hooks(&["import", "claude", "/nonexistent/settings.json"], None);
    assert_eq!(broken.status.code(), Some(1));
}

#[test]
fn import_codex_reads_hooks_json_and_config_toml() {
    let dir = hooks_testing::scratch_dir("cli", "import-codex");
    let hooks_json = dir.join("hooks.json");
    std::fs::write(
        &hooks_json,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}],
                      "SubagentStop": [{"hooks": [{"type": "command", "command": "./done.sh"}]}]}}"#,
    )
    .unwrap();
    let config_toml = dir.join("config.toml");
    std::fs::write(
        &config_toml,
        "model = \"gpt-5\"\n\n[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = \"command\"\ncommand = \"./scan.sh\"\ntimeout = 2\n",
    )
    .unwrap();
    for (settings, expected) in [
        (
            &hooks_json,
            ["\"tool:pre\":  # PreToolUse", "\"codex:subagent_stop\":"],
        ),
        (
            &config_toml,
            ["\"prompt:submit\":  # UserPromptSubmit", "timeout_ms: 2000"],
        ),
    ] {
        let out = dir.join("imported.yaml");
        let import = hooks(
            &[
                "import",
                "codex",
                settings.to_str().unwrap(),
                "--output",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
        let yaml = std::fs::read_to_string(&out).unwrap();
        for line in expected {
            assert!(yaml.contains(line), "{line}: {yaml}");
        }
        let check = hooks(&["check", out.to_str().unwrap()], None);
        assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    }
}

#[test]
fn every_agent_has_its_subcommand_and_its_help_says_what_it_can_do() {
    let listed = text(&hooks(&["--help"], None).stdout);
    for agent in hooks_config::interop::AGENTS {
        assert!(
            listed.contains(&format!("  {}  ", agent.name())),
            "{}: {listed}",
            agent.name()
        );
        let help = hooks(&[agent.name(), "--help"], None);
        assert_eq!(help.status.code(), Some(0), "{help:?}");
        let help = text(&help.stdout);
        for said in [
            agent.profile().display_name,
            "Asking:",
            "Rewrites:",
            "--config",
        ] {
            assert!(help.contains(said), "{}: {said}: {help}", agent.name());
        }
    }
    // `import` offers the agents that have a hooks file to import, and no other.
    let cursor = hooks(&["import", "cursor", "hooks.json"], None);
    assert_eq!(cursor.status.code(), Some(2), "{cursor:?}");
    assert!(
        text(&cursor.stderr).contains("[possible values: claude, codex, qwen, droid]"),
        "{cursor:?}"
    );
}
