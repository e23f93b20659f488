//! `hooks init`: the starter hooks file and the agent's settings, merged with what the user
//! has, backed up, shown as a diff, idempotent, and never written on `--dry-run` or when the
//! settings cannot be read safely.

#![allow(clippy::unwrap_used)]

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn init(dir: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&OsStr> = vec!["init".as_ref()];
    args.extend(extra.iter().map(OsStr::new));
    args.extend(["--dir".as_ref(), dir.as_os_str()]);
    support::run(None, &args, "")
}

fn project(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-init-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

use support::stdout;

/// A settings file as a user has it: 4-space indents, keys not in alphabetical order, a hook of
/// their own on one of the events `hooks init` adds to.
const USER_SETTINGS: &str = r#"{
    "permissions": {
        "allow": ["Bash(npm test)"]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "./my-guard.sh"
                    }
                ]
            }
        ]
    },
    "model": "opus"
}
"#;

const OUR_COMMAND: &str = "hooks claude --config \"$CLAUDE_PROJECT_DIR\"/hooks.yaml";

#[test]
fn claude_settings_are_merged_backed_up_and_shown_and_a_second_run_changes_nothing() {
    let dir = project("claude");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    let settings = dir.join(".claude/settings.json");
    std::fs::write(&settings, USER_SETTINGS).unwrap();

    let first = init(&dir, &["claude"]);
    assert!(first.status.success(), "{first:?}");
    let printed = stdout(&first);
    assert!(
        printed.contains("+modules:"),
        "the diff shows the starter file: {printed}"
    );
    assert!(
        printed.contains("+                        \"command\": \"hooks claude"),
        "the diff shows the new entry: {printed}"
    );
    assert!(printed.contains("backed up"), "{printed}");

    let written = std::fs::read_to_string(&settings).unwrap();
    let value: Value = serde_json::from_str(&written).unwrap();
    // The user's hook first, untouched; ours after it; the other events added.
    let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(pre[0]["hooks"][0]["command"], "./my-guard.sh");
    assert_eq!(pre[1]["hooks"][0]["command"], OUR_COMMAND);
    for event in ["PostToolUse", "UserPromptSubmit"] {
        assert_eq!(value["hooks"][event][0]["hooks"][0]["command"], OUR_COMMAND);
    }
    assert_eq!(value["model"], "opus");
    // The file keeps its order and its indentation: the user's lines are all still there.
    let order: Vec<usize> = ["\"permissions\"", "\"hooks\"", "\"model\""]
        .iter()
        .map(|key| written.find(key).unwrap())
        .collect();
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{written}");
    assert!(written.starts_with("{\n    \"permissions\""), "{written}");
    assert_eq!(
        std::fs::read_to_string(dir.join(".claude/settings.json.bak")).unwrap(),
        USER_SETTINGS
    );
    let starter = std::fs::read_to_string(dir.join("hooks.yaml")).unwrap();
    assert!(starter.contains("safety:") && starter.contains("logging:"));

    let second = init(&dir, &["claude"]);
    assert!(second.status.success());
    assert_eq!(stdout(&second), "already set up: nothing to change\n");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), written);
    assert!(!dir.join(".claude/settings.json.bak.1").exists());
}

#[test]
fn an_existing_hooks_file_is_never_overwritten() {
    let dir = project("keep_yaml");
    std::fs::write(dir.join("team.yaml"), "hooks: {}\n").unwrap();
    let output = init(&dir, &["gemini", "--config", "team.yaml"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("team.yaml")).unwrap(),
        "hooks: {}\n"
    );
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".gemini/settings.json")).unwrap())
            .unwrap();
    for event in ["BeforeTool", "AfterTool", "BeforeAgent"] {
        assert_eq!(
            settings["hooks"][event][0]["hooks"][0]["command"],
            "hooks gemini --config \"${GEMINI_PROJECT_DIR}/team.yaml\""
        );
    }
}

#[test]
fn a_dry_run_prints_the_change_and_writes_nothing() {
    let dir = project("dry_run");
    let output = init(&dir, &["claude", "--dry-run"]);
    assert!(output.status.success());
    let printed = stdout(&output);
    assert!(printed.contains("--- /dev/null"), "{printed}");
    assert!(
        printed.contains("dry run: nothing was written"),
        "{printed}"
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn settings_that_cannot_be_merged_safely_are_left_untouched() {
    let dir = project("broken");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    let settings = dir.join(".claude/settings.json");
    for broken in ["{\"hooks\": {\"PreToolUse\": {}}}", "{ not json", "[]"] {
        std::fs::write(&settings, broken).unwrap();
        let output = init(&dir, &["claude"]);
        assert_eq!(output.status.code(), Some(1), "{broken}");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains("left untouched"), "{error}");
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
        assert!(
            !dir.join("hooks.yaml").exists(),
            "nothing is written at all"
        );
    }
}

#[test]
fn a_config_path_outside_the_project_is_refused() {
    let dir = project("outside");
    for config in ["../elsewhere.yaml", "/etc/hooks.yaml"] {
        let output = init(&dir, &["claude", "--config", config]);
        assert_eq!(output.status.code(), Some(1), "{config}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn cursor_gets_its_own_layout_next_to_the_users_hooks() {
    let dir = project("cursor");
    std::fs::create_dir_all(dir.join(".cursor")).unwrap();
    let settings = dir.join(".cursor/hooks.json");
    std::fs::write(
        &settings,
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{\"command\": \"./format.sh\"}]\n  }\n}\n",
    )
    .unwrap();
    let output = init(&dir, &["cursor"]);
    assert!(output.status.success(), "{output:?}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["version"], 1);
    let edits = written["hooks"]["afterFileEdit"].as_array().unwrap();
    assert_eq!(edits[0]["command"], "./format.sh");
    // Cursor runs hooks in the project directory: the hooks file is named from there.
    assert_eq!(edits[1]["command"], "hooks cursor --config hooks.yaml");
    for event in [
        "beforeShellExecution",
        "beforeMCPExecution",
        "beforeReadFile",
        "beforeSubmitPrompt",
        "stop",
    ] {
        assert_eq!(
            written["hooks"][event][0]["command"], "hooks cursor --config hooks.yaml",
            "{event}"
        );
    }
    assert_eq!(
        stdout(&init(&dir, &["cursor"])),
        "already set up: nothing to change\n"
    );
}

/// What a user gets from `hooks init claude`, run as Claude Code runs it.
#[test]
fn the_starter_policy_guards_claude_code_out_of_the_box() {
    let dir = project("starter");
    assert!(init(&dir, &["claude"]).status.success());
    let check = support::run(
        None,
        &["check".as_ref(), dir.join("hooks.yaml").as_os_str()],
        "",
    );
    assert!(check.status.success(), "{check:?}");
    assert!(
        stdout(&check).contains("ok (3 modules, 0 hooks)"),
        "{}",
        stdout(&check)
    );

    let config = dir.join("hooks.yaml");
    let claude = |input: Value| {
        support::run(
            Some(&dir),
            &["claude".as_ref(), "--config".as_ref(), config.as_os_str()],
            &input.to_string(),
        )
    };
    let bash = |command: &str| {
        serde_json::json!({
            "session_id": "s1", "cwd": dir, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"
        })
    };
    let denied = claude(bash("rm -rf /"));
    assert_eq!(denied.status.code(), Some(2));
    assert!(!denied.stderr.is_empty());
    let fine = claude(bash("cargo test"));
    assert_eq!(fine.status.code(), Some(0), "{fine:?}");
    assert!(fine.stdout.is_empty(), "no opinion is no answer: {fine:?}");
    let log = std::fs::read_to_string(dir.join(".hooks/events.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "both calls are logged");
}
