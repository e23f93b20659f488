//! Claude Code hook setups, in the styles people write them (Python, bash with jq, node, perl; a
//! plugin laid out as Claude Code lays plugins out), decide as Claude Code decides, each run
//! three ways: its settings file loaded by `hooks eval`, converted by `hooks import claude` and
//! evaluated, and behind `hooks claude` as Claude Code runs it.
//!
//! The setups live in `tests/claude_setups/`; each test copies one into a scratch project.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A decision, whichever way it was reached.
#[derive(Debug, Clone, PartialEq)]
enum Decision {
    Continue,
    Deny(String),
    Ask(String),
    Context(String),
    Rewrite(Value),
}

/// What one way of running gave: the decision, and what the user is told.
#[derive(Debug, Clone)]
struct Ran {
    decision: Decision,
    message: String,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            // `fs::copy` keeps the scripts' executable bits.
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn setup(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/claude_setups")
        .join(name)
}

/// A scratch project holding the `guards` setup.
fn guards_project(test: &str) -> PathBuf {
    let project = hooks_testing::scratch_dir("claude-fidelity", test);
    copy_dir(&setup("guards"), &project);
    project
}

/// The project with the `rm-guard` plugin installed beside it, and the plugin's hooks file.
fn plugin_project(test: &str) -> (PathBuf, PathBuf) {
    let project = hooks_testing::scratch_dir("claude-fidelity", test);
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let plugin = project.join("plugins/rm-guard");
    copy_dir(&setup("plugin"), &plugin);
    (project, plugin)
}

/// Claude Code's hook input for `event`: the fields it sends, and no others.
fn claude_input(project: &Path, event: &str, fields: Value) -> Value {
    let mut input = json!({
        "session_id": "c0ffee",
        "transcript_path": project.join("transcript.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": event,
    });
    for (key, value) in fields.as_object().unwrap() {
        input[key] = value.clone();
    }
    input
}

/// `hooks eval` on `config`, in `project`, with the input as the event data.
fn by_eval(project: &Path, config: &Path, input: &Value) -> Ran {
    let event = input["hook_event_name"].as_str().unwrap();
    let output = support::run(
        Some(project),
        &[
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--event",
            event,
            "--data",
            "-",
        ],
        &input.to_string(),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "eval --event {event}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = support::stdout_json(&output);
    let text = |key: &str| result[key].as_str().unwrap_or_default().to_owned();
    let decision = match result["action"].as_str().unwrap() {
        "deny" => Decision::Deny(text("reason")),
        "ask_user" => Decision::Ask(text("approval_prompt")),
        "modify" => Decision::Rewrite(result["data"]["tool_input"].clone()),
        _ if !text("context_injection").is_empty() => Decision::Context(text("context_injection")),
        _ => Decision::Continue,
    };
    Ran {
        decision,
        message: text("user_message"),
    }
}

/// `hooks import claude` of `source` (a settings file or a plugin directory) into the project,
/// then `hooks eval` on the result.
fn by_import(project: &Path, source: &Path, input: &Value) -> Ran {
    let imported = project.join("imported.hooks.yaml");
    let output = support::run(
        Some(project),
        &[
            "import",
            "claude",
            source.to_str().unwrap(),
            "--output",
            imported.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    by_eval(project, &imported, input)
}

/// `hooks claude --config config`, started in the project as Claude Code starts it.
fn by_claude(project: &Path, config: &Path, input: &Value) -> Ran {
    let output = support::run(
        Some(project),
        &["claude", "--config", config.to_str().unwrap()],
        &input.to_string(),
    );
    read_claude_answer(&output)
}

/// What Claude Code makes of an answer.
fn read_claude_answer(output: &std::process::Output) -> Ran {
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if output.status.code() == Some(2) {
        return Ran {
            decision: Decision::Deny(stderr),
            message: String::new(),
        };
    }
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    if output.stdout.is_empty() {
        return Ran {
            decision: Decision::Continue,
            message: String::new(),
        };
    }
    let answer = support::stdout_json(output);
    let specific = &answer["hookSpecificOutput"];
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    let decision = if answer["decision"] == "block" {
        Decision::Deny(text(&answer["reason"]))
    } else if specific["permissionDecision"] == "deny" {
        Decision::Deny(text(&specific["permissionDecisionReason"]))
    } else if specific["decision"]["behavior"] == "deny" {
        Decision::Deny(text(&specific["decision"]["message"]))
    } else if specific.get("updatedInput").is_some() {
        Decision::Rewrite(specific["updatedInput"].clone())
    } else if specific["permissionDecision"] == "ask" {
        Decision::Ask(text(&specific["permissionDecisionReason"]))
    } else if specific.get("additionalContext").is_some() {
        Decision::Context(text(&specific["additionalContext"]))
    } else {
        Decision::Continue
    };
    Ran {
        decision,
        message: text(&answer["systemMessage"]),
    }
}

/// The `guards` setup's settings, run all three ways on one input.
fn three_ways(project: &Path, input: &Value) -> [Ran; 3] {
    let settings = project.join(".claude/settings.json");
    [
        by_eval(project, &settings, input),
        by_import(project, &settings, input),
        by_claude(project, &settings, input),
    ]
}

fn assert_all(runs: &[Ran; 3], expected: &Decision) {
    for (way, ran) in ["eval", "import", "claude"].iter().zip(runs) {
        assert_eq!(&ran.decision, expected, "{way}: {ran:?}");
    }
}

#[test]
fn a_stop_rule_reading_tool_input_with_a_default_still_blocks() {
    // `data.get("tool_input", {})` gives None when the key is sent as null; the rule then
    // crashes into its own error handler and lets the agent stop.
    let project = guards_project("stop");
    std::fs::write(
        project.join("transcript.jsonl"),
        "{\"type\":\"assistant\",\"text\":\"3 tests failing\"}\n",
    )
    .unwrap();
    let input = claude_input(&project, "Stop", json!({"stop_hook_active": false}));
    let runs = three_ways(&project, &input);
    assert_all(
        &runs,
        &Decision::Deny("the tests are failing: fix them first".into()),
    );
}

#[test]
fn a_permission_decision_answered_after_the_tool_ran_decides_nothing() {
    let project = guards_project("post");
    let write = json!({"tool_name": "Write",
        "tool_input": {"file_path": "config/.env", "content": "KEY=1"}});
    let before = claude_input(&project, "PreToolUse", write.clone());
    assert_all(
        &three_ways(&project, &before),
        &Decision::Deny("config/.env holds secrets; edit .env.example instead".into()),
    );

    let mut after = write;
    after["tool_response"] = json!({"success": true});
    let after = claude_input(&project, "PostToolUse", after);
    let runs = three_ways(&project, &after);
    // Not a deny about a file that is already written; and the formatter's plain output is a
    // success, not a failed hook.
    assert_all(&runs, &Decision::Continue);
    for ran in &runs {
        assert!(!ran.message.contains("failed"), "{ran:?}");
        assert!(ran.message.contains("permissionDecision"), "{ran:?}");
    }
}

#[test]
fn the_sessions_own_cwd_reaches_the_hook() {
    let project = guards_project("cwd");
    let package = project.join("packages/web");
    std::fs::create_dir_all(&package).unwrap();
    let mut input = claude_input(
        &project,
        "UserPromptSubmit",
        json!({"prompt": "fix the button"}),
    );
    input["cwd"] = json!(package);
    let runs = three_ways(&project, &input);
    assert_all(
        &runs,
        &Decision::Context("You are working in the package packages/web.".into()),
    );
}

#[test]
fn a_blocked_prompt_keeps_the_hooks_message_for_the_user() {
    let project = guards_project("prompt");
    let input = claude_input(
        &project,
        "UserPromptSubmit",
        json!({"prompt": "log in with password hunter2"}),
    );
    let runs = three_ways(&project, &input);
    assert_all(
        &runs,
        &Decision::Deny("the prompt contains a password".into()),
    );
    for ran in &runs {
        assert!(ran.message.contains("vault put"), "{ran:?}");
    }
}

#[test]
fn subagent_start_context_reaches_the_model() {
    let project = guards_project("subagent");
    let input = claude_input(
        &project,
        "SubagentStart",
        json!({"agent_id": "a1", "agent_type": "reviewer"}),
    );
    let runs = three_ways(&project, &input);
    assert_all(
        &runs,
        &Decision::Context("House rules for the reviewer: no force pushes.".into()),
    );
}

#[test]
fn answers_claude_code_rejects_are_warnings_not_decisions() {
    let project = guards_project("rejected");
    let echoed = claude_input(
        &project,
        "Notification",
        json!({"message": "Claude needs your permission", "notification_type": "permission_prompt"}),
    );
    for ran in three_ways(&project, &echoed) {
        assert_eq!(ran.decision, Decision::Continue, "{ran:?}");
        assert!(ran.message.contains("echoed back"), "{ran:?}");
    }
    let asked = claude_input(&project, "PreCompact", json!({"trigger": "auto"}));
    for ran in three_ways(&project, &asked) {
        assert_eq!(ran.decision, Decision::Continue, "{ran:?}");
        assert!(ran.message.contains("`decision: \"ask\"`"), "{ran:?}");
    }
}

#[test]
fn a_rewrite_is_confirmed_unless_the_entry_applies_it() {
    let project = guards_project("rewrite");
    let input = claude_input(
        &project,
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "npm test"}}),
    );
    let runs = three_ways(&project, &input);
    assert_all(
        &runs,
        &Decision::Rewrite(json!({"command": "npm test -- --ci"})),
    );

    // Behind `hooks claude` the user confirms it, told what would run; headless, the model
    // reads the same reason.
    let settings = project.join(".claude/settings.json");
    let output = support::run(
        Some(&project),
        &["claude", "--config", settings.to_str().unwrap()],
        &input.to_string(),
    );
    let answer = support::stdout_json(&output);
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "ask");
    let reason = specific["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("`npm test -- --ci`") && reason.contains("headless"),
        "{reason}"
    );

    // The converted file, its rewriter marked `rewrite: apply`: an allow, as Claude Code ran it.
    let imported = project.join("imported.hooks.yaml");
    let yaml = std::fs::read_to_string(&imported).unwrap();
    let marked = yaml.replace(
        "      name: \"PreToolUse[1].hooks[0]\"\n",
        "      name: \"PreToolUse[1].hooks[0]\"\n      rewrite: apply\n",
    );
    assert_ne!(marked, yaml, "the rewriter's entry is in the file:\n{yaml}");
    std::fs::write(&imported, marked).unwrap();
    // An edited hooks file is in force for the sessions that start after the edit.
    let mut input = input;
    input["session_id"] = json!("rewrite-after-the-edit");
    let output = support::run(
        Some(&project),
        &["claude", "--config", imported.to_str().unwrap()],
        &input.to_string(),
    );
    let answer = support::stdout_json(&output);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"],
        json!({"command": "npm test -- --ci"})
    );
}

#[test]
fn a_plugin_finds_its_scripts_and_runs_in_the_project() {
    let (project, plugin) = plugin_project("plugin");
    let hooks_file = plugin.join("hooks/hooks.json");
    let rm = claude_input(
        &project,
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}),
    );
    let ls = claude_input(
        &project,
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    let denied = Decision::Deny("rm-guard: `rm -rf` is not allowed".into());
    for (input, expected) in [(&rm, &denied), (&ls, &Decision::Continue)] {
        let runs = [
            by_eval(&project, &hooks_file, input),
            by_import(&project, &plugin, input),
            by_claude(&project, &hooks_file, input),
        ];
        assert_all(&runs, expected);
        for ran in &runs {
            assert!(!ran.message.contains("failed"), "{ran:?}");
        }
    }
}

#[test]
fn eval_and_hooks_files_take_claude_code_and_gemini_cli_event_names() {
    let dir = hooks_testing::scratch_dir("claude-fidelity", "names");
    let file = dir.join("hooks.yaml");
    std::fs::write(
        &file,
        "hooks:\n  Stop:\n    - type: matcher\n      match: {}\n      action: inject\n      message: stopped\n",
    )
    .unwrap();
    for (name, fires) in [
        ("Stop", true),
        ("AfterAgent", true),
        ("prompt:complete", true),
        ("UserPromptSubmit", false),
        ("SessionEnd", false),
        ("PreCompact", false),
        ("PostCompact", false),
        ("PostToolUseFailure", false),
        ("PermissionRequest", false),
        ("SubagentStart", false),
        ("SubagentStop", false),
        ("Setup", false),
        ("BeforeTool", false),
    ] {
        let output = support::run(
            None,
            &["eval", "--config", file.to_str().unwrap(), "--event", name],
            "",
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let result = support::stdout_json(&output);
        assert_eq!(result["context_injection"] == "stopped", fires, "{name}");
    }
    let typo = support::run(
        None,
        &[
            "eval",
            "--config",
            file.to_str().unwrap(),
            "--event",
            "Stopp",
        ],
        "",
    );
    let stderr = String::from_utf8_lossy(&typo.stderr);
    assert!(stderr.contains("did you mean `Stop`"), "{stderr}");
}

#[test]
fn a_prompt_matcher_reads_the_prompt_and_one_that_cannot_fire_fails_check() {
    let dir = hooks_testing::scratch_dir("claude-fidelity", "prompt-matcher");
    let file = dir.join("hooks.yaml");
    std::fs::write(
        &file,
        "hooks:\n  UserPromptSubmit:\n    - type: matcher\n      match:\n        args: {prompt: \"*password*\"}\n      action: block\n      message: no passwords in prompts\n",
    )
    .unwrap();
    let input = json!({"prompt": "my password is hunter2", "hook_event_name": "UserPromptSubmit"});
    let output = support::run(
        Some(&dir),
        &["claude", "--config", file.to_str().unwrap()],
        &input.to_string(),
    );
    assert_eq!(
        read_claude_answer(&output).decision,
        Decision::Deny("no passwords in prompts".into())
    );

    let never = dir.join("never.yaml");
    std::fs::write(
        &never,
        "hooks:\n  UserPromptSubmit:\n    - type: matcher\n      match:\n        tool: Bash\n        args: {command: \"*rm*\"}\n      action: block\n",
    )
    .unwrap();
    // A permission request carries the tool call it asks about.
    let request = dir.join("request.yaml");
    std::fs::write(
        &request,
        "hooks:\n  PermissionRequest:\n    - type: matcher\n      match: {tool: Bash, args: {command: \"git push*\"}}\n      action: block\n",
    )
    .unwrap();
    let check = support::run(None, &["check", request.to_str().unwrap()], "");
    assert_eq!(check.status.code(), Some(0), "{check:?}");

    let check = support::run(None, &["check", never.to_str().unwrap()], "");
    assert_eq!(check.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        stderr.contains("never.yaml:5:") && stderr.contains("`match.tool` can never match"),
        "{stderr}"
    );
    assert!(
        stderr.contains("never.yaml:6:") && stderr.contains("`match.args.command`"),
        "{stderr}"
    );
}
