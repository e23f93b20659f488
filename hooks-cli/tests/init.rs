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
    hooks_testing::scratch_dir("init", test)
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

/// The `hooks` binary as `hooks init` names it: its absolute path.
fn binary() -> String {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_hooks"))
        .unwrap()
        .display()
        .to_string()
}

/// The command `hooks init claude` writes for `hooks.yaml`.
fn our_command() -> String {
    format!(
        "{} claude --config \"$CLAUDE_PROJECT_DIR\"/hooks.yaml",
        binary()
    )
}

/// A directory with a fake `claude` that prints `version` for `--version`, first on the PATH.
fn path_with_claude(test: &str, version: Option<&str>) -> std::ffi::OsString {
    let bin = project(&format!("{test}_bin"));
    if let Some(version) = version {
        let script = bin.join("claude");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // Only the fake: a real Claude Code on the machine must not decide the test.
    std::ffi::OsString::from(format!("{}:/usr/bin:/bin", bin.display()))
}

/// `hooks init` with `PATH` set to `path`.
fn init_with_path(dir: &Path, extra: &[&str], path: &OsStr) -> Output {
    let mut args: Vec<&OsStr> = vec!["init".as_ref()];
    args.extend(extra.iter().map(OsStr::new));
    args.extend(["--dir".as_ref(), dir.as_os_str()]);
    support::run_with_env(None, &args, "", &[("PATH", path)])
}

#[test]
fn claude_settings_are_merged_backed_up_and_shown_and_a_second_run_changes_nothing() {
    let dir = project("claude");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    let settings = dir.join(".claude/settings.json");
    std::fs::write(&settings, USER_SETTINGS).unwrap();

    let path = path_with_claude("claude", Some("2.1.331"));
    let first = init_with_path(&dir, &["claude"], &path);
    assert!(first.status.success(), "{first:?}");
    let printed = stdout(&first);
    assert!(
        printed.contains("+modules:"),
        "the diff shows the starter file: {printed}"
    );
    assert!(
        printed.contains(&format!(
            "+                        \"command\": \"{}",
            binary()
        )),
        "the diff shows the new entry: {printed}"
    );
    assert!(printed.contains("backed up"), "{printed}");

    let written = std::fs::read_to_string(&settings).unwrap();
    let value: Value = serde_json::from_str(&written).unwrap();
    // The user's hook first, untouched; ours after it; the other events added.
    let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(pre[0]["hooks"][0]["command"], "./my-guard.sh");
    assert_eq!(pre[1]["hooks"][0]["command"], our_command());
    for event in ["PostToolUse", "UserPromptSubmit"] {
        assert_eq!(
            value["hooks"][event][0]["hooks"][0]["command"],
            our_command()
        );
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

    let second = init_with_path(&dir, &["claude"], &path);
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
        let hook = &settings["hooks"][event][0]["hooks"][0];
        assert_eq!(
            hook["command"],
            format!(
                "{} gemini --config \"${{GEMINI_PROJECT_DIR}}/team.yaml\"",
                binary()
            )
        );
        // Gemini CLI's timeouts are in milliseconds; it has no fail-closed key.
        assert_eq!(hook["timeout"], 90_000, "{event}");
        assert_eq!(hook.as_object().unwrap().len(), 3, "{hook}");
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
    let command = format!("{} cursor --config hooks.yaml", binary());
    assert_eq!(edits[1]["command"], command);
    for event in [
        "beforeShellExecution",
        "beforeMCPExecution",
        "beforeReadFile",
        "beforeSubmitPrompt",
        "stop",
    ] {
        let hook = &written["hooks"][event][0];
        assert_eq!(hook["command"], command, "{event}");
        assert_eq!(hook["failClosed"], true, "{event}");
        assert_eq!(hook["timeout"], 90, "{event}");
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
    let reason = support::claude_denial(&denied).expect("rm -rf / is denied");
    assert!(reason.contains("rm-root"), "{reason}");
    let fine = claude(bash("cargo test"));
    assert_eq!(fine.status.code(), Some(0), "{fine:?}");
    assert!(fine.stdout.is_empty(), "no opinion is no answer: {fine:?}");
    let log = std::fs::read_to_string(dir.join(".hooks/events.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "both calls are logged");
}

#[test]
fn codex_hooks_json_is_merged_and_a_second_run_changes_nothing() {
    let dir = project("codex");
    git_init(&dir);
    std::fs::create_dir_all(dir.join(".codex")).unwrap();
    let hooks_json = dir.join(".codex/hooks.json");
    std::fs::write(
        &hooks_json,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}"#,
    )
    .unwrap();
    let first = init(&dir, &["codex"]);
    assert!(first.status.success(), "{first:?}");
    assert!(stdout(&first).contains("backed up"), "{}", stdout(&first));
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks_json).unwrap()).unwrap();
    assert_eq!(
        value["hooks"]["Stop"][0]["hooks"][0]["command"],
        "./check.sh"
    );
    for event in ["PreToolUse", "PostToolUse", "UserPromptSubmit"] {
        assert_eq!(
            value["hooks"][event][0]["hooks"][0]["command"],
            format!(
                "{} codex --config \"$(git rev-parse --show-toplevel)/hooks.yaml\"",
                binary()
            ),
            "{event}"
        );
        assert_eq!(value["hooks"][event][0]["hooks"][0]["timeout"], 90);
    }
    let said = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(said.contains("Codex CLI fails open"), "{said}");
    assert!(said.contains("trust"), "{said}");
    let second = init(&dir, &["codex"]);
    assert!(stdout(&second).contains("nothing to change"), "{second:?}");
}

/// `git init` in `dir`, a repository of its own.
fn git_init(dir: &Path) {
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `hooks init codex` run in `dir` with git looking no higher than `ceiling`'s parent.
fn init_codex_alone(dir: &Path, ceiling: &Path) -> Output {
    let ceiling = ceiling.parent().unwrap().as_os_str().to_owned();
    let args: Vec<&OsStr> = vec![
        "init".as_ref(),
        "codex".as_ref(),
        "--dir".as_ref(),
        dir.as_os_str(),
    ];
    support::run_with_env(None, &args, "", &[("GIT_CEILING_DIRECTORIES", &ceiling)])
}

#[test]
fn init_codex_outside_a_git_repository_refuses_and_says_why() {
    let dir = project("codex_no_git");
    let output = init_codex_alone(&dir, &dir);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("not in one"), "{said}");
    assert!(said.contains("git init"), "{said}");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn init_codex_in_a_subfolder_names_the_hooks_file_from_the_repository_root() {
    let root = project("codex_subfolder");
    git_init(&root);
    let dir = root.join("service");
    std::fs::create_dir_all(&dir).unwrap();
    let output = init_codex_alone(&dir, &root);
    assert!(output.status.success(), "{output:?}");
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".codex/hooks.json")).unwrap())
            .unwrap();
    let command = value["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        command.ends_with("\"$(git rev-parse --show-toplevel)/service/hooks.yaml\""),
        "{command}"
    );
    // As Codex CLI runs it, from a folder of the session, `hooks` not on its PATH.
    let input = r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf ~/"}, "cwd": "."}"#;
    let answer = run_sh(
        &command,
        &dir,
        input,
        &[("PATH", "/usr/local/bin:/usr/bin:/bin")],
    );
    let json: Value = serde_json::from_slice(&answer.stdout).unwrap();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer:?}"
    );
}

/// Runs `command` with `sh -c` in `dir`, `env` set, `stdin` written.
fn run_sh(command: &str, dir: &Path, stdin: &str, env: &[(&str, &str)]) -> Output {
    // The sessions' state of this run alone, never the user's own.
    let state = hooks_testing::scratch_dir("init-sh", "state");
    let mut child = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("HOOKS_STATE_DIR", &state)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn claude_gets_on_failure_block_only_from_the_version_that_takes_it() {
    let pre_hook = |dir: &Path| -> Value {
        let settings: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        settings["hooks"]["PreToolUse"][0]["hooks"][0].clone()
    };
    for (version, writes) in [
        (Some("2.1.295"), true),
        (Some("2.1.332"), true),
        (Some("2.1.197"), false),
        (None, false),
    ] {
        let dir = project("claude_versions");
        let path = path_with_claude("claude_versions", version);
        let output = init_with_path(&dir, &["claude"], &path);
        assert!(output.status.success(), "{output:?}");
        let hook = pre_hook(&dir);
        assert_eq!(hook["command"], our_command(), "{version:?}");
        assert_eq!(hook["timeout"], 90, "{version:?}");
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        if writes {
            assert_eq!(hook["onFailure"], "block", "{version:?}");
            assert!(said.contains("blocks the call"), "{said}");
        } else {
            assert!(hook.get("onFailure").is_none(), "{version:?}: {hook}");
            assert!(said.contains("`onFailure` is not written"), "{said}");
            assert!(said.contains("2.1.295"), "{said}");
        }
    }
}

#[test]
fn the_command_names_this_binary_so_the_agents_path_does_not_matter() {
    let dir = project("absolute");
    let path = path_with_claude("absolute", Some("2.1.331"));
    assert!(init_with_path(&dir, &["claude"], &path).status.success());
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap())
            .unwrap();
    let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(Path::new(&binary()).is_absolute());
    let input = serde_json::json!({
        "session_id": "s1", "cwd": dir, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"
    })
    .to_string();
    // No `hooks` on this PATH, as in an editor started from a desktop menu.
    let dir_text = dir.display().to_string();
    let answer = run_sh(
        &command,
        &dir,
        &input,
        &[("PATH", "/usr/bin:/bin"), ("CLAUDE_PROJECT_DIR", &dir_text)],
    );
    let reason = support::claude_denial(&answer).unwrap_or_default();
    assert!(reason.contains("rm-root"), "{answer:?}");
}

/// Runs `command` as Gemini CLI runs a hook's command: `$GEMINI_PROJECT_DIR` in its text
/// replaced by the project directory as Gemini CLI quotes it (`'...'`), then `sh -c` in the
/// project directory with `GEMINI_PROJECT_DIR` set, `hooks` on the PATH.
fn run_as_gemini(command: &str, project: &Path, stdin: &str) -> Output {
    let quoted = format!("'{}'", project.display().to_string().replace('\'', "'\\''"));
    let expanded = command.replace("$GEMINI_PROJECT_DIR", &quoted);
    let bin = Path::new(env!("CARGO_BIN_EXE_hooks")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = std::process::Command::new("sh")
        .args(["-c", &expanded])
        .current_dir(project)
        .env("GEMINI_PROJECT_DIR", project)
        .env("PATH", path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_gemini_command_survives_a_project_path_with_spaces() {
    let dir = project("gemini spaces/my project");
    let output = init(&dir, &["gemini", "--config", "team hooks.yaml"]);
    assert!(output.status.success(), "{output:?}");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".gemini/settings.json")).unwrap())
            .unwrap();
    let command = settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    // The starter policy's safety module denies a recursive delete of the home directory.
    let input = r#"{"session_id": "s", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}}"#;
    let answer = run_as_gemini(&command, &dir, input);
    assert_eq!(answer.status.code(), Some(0), "{command}: {answer:?}");
    let json: Value = serde_json::from_slice(&answer.stdout).unwrap();
    assert_eq!(json["decision"], "deny", "{command}: {json}");
    assert!(
        !json["reason"].as_str().unwrap().contains("policy file"),
        "the hooks file was found: {json}"
    );

    // The form written before this one loses the path at the space.
    let old = "hooks gemini --config \"$GEMINI_PROJECT_DIR\"/'team hooks.yaml'";
    let broken: Value = serde_json::from_slice(&run_as_gemini(old, &dir, input).stdout).unwrap();
    assert!(
        broken["reason"]
            .as_str()
            .unwrap()
            .contains("policy file is broken"),
        "{broken}"
    );
}

#[test]
fn init_gemini_says_where_gemini_runs_hooks_and_warns_when_the_folder_is_untrusted() {
    let dir = project("gemini_trust");
    let home = project("gemini_trust_home");
    let run = |trusted: &str| {
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(home.join(".gemini/trustedFolders.json"), trusted).unwrap();
        let args: Vec<&std::ffi::OsStr> = vec![
            "init".as_ref(),
            "gemini".as_ref(),
            "--dir".as_ref(),
            dir.as_os_str(),
        ];
        support::run_with_env(
            None,
            &args,
            "",
            &[
                ("HOME", home.as_os_str()),
                ("GEMINI_CLI_TRUST_WORKSPACE", "".as_ref()),
            ],
        )
    };
    let untrusted = run("{}");
    let said = String::from_utf8_lossy(&untrusted.stderr).into_owned();
    assert!(said.contains("--skip-trust"), "{said}");
    assert!(said.contains("GEMINI_CLI_TRUST_WORKSPACE=true"), "{said}");
    assert!(
        said.contains("warning: Gemini CLI will not run the hooks"),
        "{said}"
    );

    let parent = dir.parent().unwrap().canonicalize().unwrap();
    let trusted =
        run(&serde_json::json!({parent.display().to_string(): "TRUST_FOLDER"}).to_string());
    let said = String::from_utf8_lossy(&trusted.stderr).into_owned();
    assert!(said.contains("--skip-trust"), "the note stays: {said}");
    assert!(!said.contains("will not run the hooks"), "{said}");

    // The most specific folder decides.
    let denied = run(&serde_json::json!({
        parent.display().to_string(): "TRUST_FOLDER",
        dir.canonicalize().unwrap().display().to_string(): "DO_NOT_TRUST",
    })
    .to_string());
    assert!(
        String::from_utf8_lossy(&denied.stderr).contains("warning"),
        "{denied:?}"
    );

    // `hooks check` warns about the same project.
    std::fs::write(home.join(".gemini/trustedFolders.json"), "{}").unwrap();
    let check = support::run_with_env(
        None,
        &["check".as_ref(), dir.join("hooks.yaml").as_os_str()],
        "",
        &[
            ("HOME", home.as_os_str()),
            ("GEMINI_CLI_TRUST_WORKSPACE", "".as_ref()),
        ],
    );
    assert!(check.status.success(), "{check:?}");
    assert!(
        String::from_utf8_lossy(&check.stderr).contains("will not run the hooks"),
        "{check:?}"
    );
}
