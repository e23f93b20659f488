//! Claude Code itself behind `hooks claude`: the real CLI (`claude -p`), in a network namespace
//! with only loopback, talking to a mock of the Messages API that plays the model. Each scenario
//! checks what really happened: files on disk, and what reached the model.
//!
//! Runs when `HOOKS_E2E_CLAUDE` names the pinned `claude` executable (see `claude_code/`);
//! skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

mod claude_code;

use claude_code::agent_project::{
    HOME_MARKER, KEY_FILE, RM_HOME, RM_HOME_REASON, STARTER, made_up_token,
};
use claude_code::messages_api::{self, MessagesRequest, Script, TOOL_USE_ID};
use claude_code::mock_http::{MockServer, Request};
use claude_code::project::Project;
use claude_code::scenario;

/// The project's own entries, beside the starter's modules (safety, redaction, logging): a
/// command hook that keeps prompts carrying a marker on this machine, and a matcher that gives
/// every prompt a piece of context.
const HOOKS: &str = r#"hooks:
  prompt:submit:
    - type: command
      command: "grep -q 'KEEP-OUT-7f3a' && { echo 'prompts marked keep-out stay on this machine' >&2; exit 2; } || exit 0"
    - type: matcher
      match: {}
      action: inject
      message: "CONTEXT-4c1e: the style guide is in STYLE.md"
"#;

/// The model's turns, in the order the mock received them.
fn turns(api: &MockServer) -> Vec<Request> {
    api.requests()
        .into_iter()
        .filter(Request::is_turn)
        .collect()
}

/// `cd .. && rm -rf project`: the safety module refuses to delete the workspace, while Claude
/// Code itself would run it (its own check stops `rm` of the working directory and its
/// parents, not a `cd` out of it first), so the project survives only if `hooks claude`
/// denied the call.
#[test]
fn a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason() {
    scenario(
        "a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason",
        |claude, scratch| {
            let project = Project::new(scratch, HOOKS);
            let source = project.dir.join("src/main.rs");
            std::fs::create_dir_all(source.parent().unwrap()).unwrap();
            std::fs::write(&source, "fn main() {}\n").unwrap();
            let command = "cd .. && rm -rf project";
            let reason = project.deny_reason(command);
            let api = messages_api::start(Script {
                bash_command: Some(command.to_owned()),
                ..Script::default()
            });

            let run = project.run_claude(claude, &api, "start the project over");

            run.assert_finished();
            assert!(source.exists(), "the project was deleted\n{}", run.report());
            let answered = turns(&api)
                .iter()
                .find_map(|request| request.tool_result(TOOL_USE_ID));
            let Some((text, is_error)) = answered else {
                panic!(
                    "the model never got the tool call's result\n{}",
                    run.report()
                );
            };
            assert!(
                is_error && text.contains(&reason),
                "the model must read the denial with our reason {reason:?}, read {text:?}\n{}",
                run.report()
            );
        },
    );
}

/// A project set up by `hooks init` with the pinned Claude Code installed, whose first
/// `PreToolUse` entry `break_hook` then changes (the command it runs, its timeout); the call
/// the model asks for must not run, and the model must be told it was blocked.
fn a_broken_hook_blocks_the_call(
    test: &str,
    break_hook: impl FnOnce(&std::path::Path, &mut serde_json::Value, &str),
) {
    scenario(test, |claude, scratch| {
        let project = Project::new(scratch, HOOKS);
        let mut settings = project.init_with(claude);
        let written = settings.to_string();
        let pre = &mut settings["hooks"]["PreToolUse"][0]["hooks"][0];
        assert_eq!(
            pre["onFailure"], "block",
            "hooks init must set onFailure for the pinned version: {written}"
        );
        let command = pre["command"].as_str().unwrap().to_owned();
        let (binary, rest) = command.split_once(' ').unwrap();
        assert!(binary.starts_with('/'), "an absolute path: {command}");
        break_hook(scratch, pre, rest);
        project.write_settings(&settings);
        let api = messages_api::start(Script {
            bash_command: Some("touch made-by-agent".to_owned()),
            ..Script::default()
        });

        let run = project.run_claude(claude, &api, "create the marker file");

        run.assert_finished();
        assert!(
            !project.dir.join("made-by-agent").exists(),
            "the call ran though its hook failed\n{}",
            run.report()
        );
        let answered = turns(&api)
            .iter()
            .find_map(|request| request.tool_result(TOOL_USE_ID));
        assert!(
            matches!(answered, Some((_, true))),
            "the model must be told the call was blocked, got {answered:?}\n{}",
            run.report()
        );
    });
}

/// An executable script in `dir` named `name`, for a hook command to run.
fn script(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `hooks init` with the pinned Claude Code installed writes `"onFailure": "block"`; then a
/// `PreToolUse` entry whose binary has gone missing blocks the call (Claude Code 2.1.295 and
/// later), where without the key the command would run.
#[test]
fn a_missing_hooks_binary_blocks_the_call_when_init_set_on_failure() {
    a_broken_hook_blocks_the_call(
        "a_missing_hooks_binary_blocks_the_call_when_init_set_on_failure",
        |_, pre, rest| {
            pre["command"] = serde_json::Value::from(format!("/nonexistent/bin/hooks {rest}"));
        },
    );
}

/// The hook's process dies of a signal before it answers (a crash): with the `onFailure`
/// init wrote, the call is blocked.
#[test]
fn a_crashing_hook_blocks_the_call_when_init_set_on_failure() {
    a_broken_hook_blocks_the_call(
        "a_crashing_hook_blocks_the_call_when_init_set_on_failure",
        |scratch, pre, rest| {
            let crash = script(scratch, "crashing-hooks", "cat >/dev/null\nkill -SEGV $$");
            pre["command"] = serde_json::Value::from(format!("{} {rest}", crash.display()));
        },
    );
}

/// The hook never answers: past its timeout (short here, so the test is quick) Claude Code
/// gives up on it, and with the `onFailure` init wrote the call is blocked.
#[test]
fn a_hanging_hook_blocks_the_call_when_init_set_on_failure() {
    a_broken_hook_blocks_the_call(
        "a_hanging_hook_blocks_the_call_when_init_set_on_failure",
        |scratch, pre, rest| {
            let hang = script(scratch, "hanging-hooks", "exec sleep 60");
            pre["command"] = serde_json::Value::from(format!("{} {rest}", hang.display()));
            pre["timeout"] = serde_json::Value::from(2);
        },
    );
}

#[test]
fn a_benign_command_runs() {
    scenario("a_benign_command_runs", |claude, scratch| {
        let project = Project::new(scratch, HOOKS);
        let api = messages_api::start(Script {
            bash_command: Some("touch made-by-agent".to_owned()),
            ..Script::default()
        });

        let run = project.run_claude(claude, &api, "create the marker file");

        run.assert_finished();
        assert!(
            project.dir.join("made-by-agent").exists(),
            "the command did not run\n{}",
            run.report()
        );
        let answered = turns(&api)
            .iter()
            .find_map(|request| request.tool_result(TOOL_USE_ID));
        assert!(
            matches!(answered, Some((_, false))),
            "the model must get the command's result as a success, got {answered:?}\n{}",
            run.report()
        );
    });
}

#[test]
fn a_blocked_prompt_never_reaches_the_model() {
    scenario(
        "a_blocked_prompt_never_reaches_the_model",
        |claude, scratch| {
            let project = Project::new(scratch, HOOKS);
            let api = messages_api::start(Script::default());

            // First a prompt the policy lets through: the way to the model is open.
            let allowed = project.run_claude(claude, &api, "summarise the README, ALLOWED-91d0");
            allowed.assert_finished();
            assert!(
                turns(&api)
                    .iter()
                    .any(|request| request.body.contains("ALLOWED-91d0")),
                "an allowed prompt must reach the model\n{}",
                allowed.report()
            );

            let blocked = project.run_claude(claude, &api, "deploy with token KEEP-OUT-7f3a");

            blocked.assert_finished();
            let leaked: Vec<_> = api
                .requests()
                .into_iter()
                .filter(|request| request.body.contains("KEEP-OUT-7f3a"))
                .collect();
            assert!(
                leaked.is_empty(),
                "the blocked prompt reached the mock in {} request(s)\n{}",
                leaked.len(),
                blocked.report()
            );
            let said = blocked.result["result"].as_str().unwrap_or_default();
            assert!(
                said.contains("prompts marked keep-out stay on this machine"),
                "the user must be told our reason\n{}",
                blocked.report()
            );
        },
    );
}

#[test]
fn context_from_a_hook_reaches_the_model() {
    scenario(
        "context_from_a_hook_reaches_the_model",
        |claude, scratch| {
            let project = Project::new(scratch, HOOKS);
            let api = messages_api::start(Script::default());

            let run = project.run_claude(claude, &api, "what should I know before editing?");

            run.assert_finished();
            let turns = turns(&api);
            assert!(
                turns.iter().any(|request| {
                    request.body.contains("what should I know before editing?")
                        && request
                            .body
                            .contains("CONTEXT-4c1e: the style guide is in STYLE.md")
                }),
                "the hook's context must reach the model with the prompt\n{}",
                run.report()
            );
        },
    );
}

/// The same context entry under Claude Code's own name for the event, as a user who knows
/// Claude Code writes it.
#[test]
fn claude_code_event_names_work_in_the_hooks_file() {
    scenario(
        "claude_code_event_names_work_in_the_hooks_file",
        |claude, scratch| {
            let project = Project::new(
                scratch,
                "hooks:\n  UserPromptSubmit:\n    - type: matcher\n      match: {}\n      \
                 action: inject\n      message: \"CONTEXT-b7d2\"\n",
            );
            let api = messages_api::start(Script::default());

            let run = project.run_claude(claude, &api, "what should I know?");

            run.assert_finished();
            assert!(
                turns(&api)
                    .iter()
                    .any(|request| request.body.contains("CONTEXT-b7d2")),
                "the hook's context must reach the model\n{}",
                run.report()
            );
        },
    );
}

/// The hooks file exactly as `hooks init claude` writes it denies `rm -rf ~/`: the home keeps
/// its marker, and the model reads why.
#[test]
fn the_starter_file_denies_deleting_the_home() {
    scenario(
        "the_starter_file_denies_deleting_the_home",
        |claude, scratch| {
            let project = Project::new(scratch, STARTER);
            let marker = project.home.join(HOME_MARKER);
            std::fs::write(&marker, "the home directory is still here\n").unwrap();
            let api = messages_api::start(Script {
                bash_command: Some(RM_HOME.to_owned()),
                ..Script::default()
            });

            let run = project.run_claude(claude, &api, "clean up");

            run.assert_finished();
            assert!(marker.exists(), "the home marker is gone\n{}", run.report());
            let answered = turns(&api)
                .iter()
                .find_map(|request| request.tool_result(TOOL_USE_ID));
            assert!(
                answered
                    .as_ref()
                    .is_some_and(|(text, _)| text.contains(RM_HOME_REASON)),
                "the model must read our reason, read {answered:?}\n{}",
                run.report()
            );
        },
    );
}

/// The hooks file exactly as `hooks init claude` writes it, and a key the model prints from a
/// file of the project: it **reaches the model**. Claude Code gives a `PostToolUse` hook no way
/// to change or withhold a built-in tool's output (only an MCP tool's); the block `hooks claude`
/// answers is added beside the output. This records the gap.
#[test]
fn a_key_the_model_prints_reaches_it_past_the_starter_file() {
    scenario(
        "a_key_the_model_prints_reaches_it_past_the_starter_file",
        |claude, scratch| {
            let project = Project::new(scratch, STARTER);
            let key = made_up_token();
            std::fs::write(
                project.dir.join(KEY_FILE),
                format!("deploy with the token {key} (rotate monthly)\n"),
            )
            .unwrap();
            let api = messages_api::start(Script {
                bash_command: Some(format!("cat {KEY_FILE}")),
                ..Script::default()
            });

            let run = project.run_claude(claude, &api, "read the notes");

            run.assert_finished();
            assert!(
                api.any_body_contains(&key),
                "the key no longer reaches the model: Claude Code withholds or changes a tool's \
                 output now; check and update this scenario and docs/agents.md\n{}",
                run.report()
            );
        },
    );
}
