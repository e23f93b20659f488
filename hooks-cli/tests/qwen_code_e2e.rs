//! Qwen Code itself behind `hooks qwen`: the real CLI (`qwen -p`), in a network namespace with
//! only loopback, talking to a mock of the OpenAI Chat Completions API that plays the model,
//! with the hooks wired as `hooks init qwen` writes them. Each scenario checks what really
//! happened: files on disk, and what reached the model.
//!
//! Runs when `HOOKS_E2E_QWEN` names the pinned `qwen` executable (`.ci/run` installs the
//! version in `qwen_code/qwen-code-version.txt` from npm); skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

#[path = "support/agent_project.rs"]
#[allow(dead_code)]
mod agent_project;
#[path = "support/chat_completions.rs"]
#[allow(dead_code)]
mod chat_completions;
#[path = "support/isolation.rs"]
#[allow(dead_code)]
mod isolation;
#[path = "support/mock_http.rs"]
#[allow(dead_code)]
mod mock_http;

use std::path::Path;
use std::process::Command;

use agent_project::{AgentRun, HOOKS, KEEP_OUT, Project, STARTER, StarterChecks, Step};
use chat_completions::{QWEN_TOOLS, call_id, first_result};
use isolation::PinnedAgent;
use mock_http::MockServer;

/// Qwen Code as the scenarios take it.
const QWEN: PinnedAgent = PinnedAgent {
    name: "Qwen Code",
    var: "HOOKS_E2E_QWEN",
    version: include_str!("qwen_code/qwen-code-version.txt"),
    package: "@qwen-code/qwen-code",
};

/// A project set up by `hooks init qwen`.
fn project(scratch: &Path) -> Project {
    Project::new(scratch, "qwen", false, HOOKS)
}

/// Runs `qwen -p prompt` in the project against `api` (an OpenAI-compatible provider), every
/// tool approved (`--yolo`) so that only hooks can stop a call.
fn run_qwen(qwen: &Path, project: &Project, api: &MockServer, prompt: &str) -> AgentRun {
    let mut command = Command::new(qwen);
    command
        .args(["-p", prompt, "--yolo", "--auth-type", "openai"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("OPENAI_API_KEY", "sk-e2e-mock")
        .env("OPENAI_BASE_URL", format!("{}/v1", api.base_url()))
        .env("OPENAI_MODEL", "qwen3-coder-plus")
        .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
    project.run(command, || api.log())
}

#[test]
fn a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason() {
    isolation::scenario(
        "a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason",
        &QWEN,
        |qwen, scratch| {
            let command = "cd .. && rm -rf project";
            let api = chat_completions::start(QWEN_TOOLS, vec![Step::Shell(command.to_owned())]);
            let project = project(scratch);
            let reason = project.denial_reason(
                "qwen",
                &serde_json::json!({
                    "hook_event_name": "PreToolUse", "session_id": "s", "cwd": project.dir,
                    "tool_name": "run_shell_command", "tool_input": {"command": command},
                }),
            );

            let run = run_qwen(qwen, &project, &api, "start the project over");

            run.assert_finished();
            assert!(
                project.dir.join("hooks.yaml").exists(),
                "the project was deleted\n{}",
                run.report()
            );
            let response = first_result(&api, &call_id(0));
            let words: String = reason.chars().take(40).collect();
            assert!(
                response
                    .as_deref()
                    .is_some_and(|text| text.contains(&words)),
                "the model must read our reason {reason:?}, read {response:?}\n{}",
                run.report()
            );
        },
    );
}

#[test]
fn a_benign_command_runs_and_its_output_reaches_the_model() {
    isolation::scenario(
        "a_benign_command_runs_and_its_output_reaches_the_model",
        &QWEN,
        |qwen, scratch| {
            let command = "touch made-by-agent && echo OUT 5e1a | tr ' ' -";
            let api = chat_completions::start(QWEN_TOOLS, vec![Step::Shell(command.to_owned())]);
            let project = project(scratch);

            let run = run_qwen(qwen, &project, &api, "make the marker file");

            run.assert_finished();
            assert!(
                project.dir.join("made-by-agent").exists(),
                "the command did not run\n{}",
                run.report()
            );
            let response = first_result(&api, &call_id(0));
            assert!(
                response
                    .as_deref()
                    .is_some_and(|text| text.contains("OUT-5e1a")),
                "the command's output must reach the model, got {response:?}\n{}",
                run.report()
            );
        },
    );
}

#[test]
fn a_blocked_prompt_never_reaches_the_model() {
    isolation::scenario(
        "a_blocked_prompt_never_reaches_the_model",
        &QWEN,
        |qwen, scratch| {
            let api = chat_completions::start(QWEN_TOOLS, Vec::new());
            let project = project(scratch);

            let allowed = run_qwen(qwen, &project, &api, "summarise the README, ALLOWED-91d0");
            allowed.assert_finished();
            assert!(
                api.any_body_contains("ALLOWED-91d0"),
                "an allowed prompt must reach the model\n{}",
                allowed.report()
            );

            let blocked = run_qwen(qwen, &project, &api, "deploy with token KEEP-OUT-7f3a");

            blocked.assert_ended();
            assert!(
                !api.any_body_contains(KEEP_OUT),
                "the blocked prompt reached the mock\n{}",
                blocked.report()
            );
        },
    );
}

#[test]
fn a_write_outside_the_project_is_denied_and_one_inside_is_not() {
    isolation::scenario(
        "a_write_outside_the_project_is_denied_and_one_inside_is_not",
        &QWEN,
        |qwen, scratch| {
            let outside = scratch.join("outside/planted.txt");
            let inside = scratch.join("project/notes.txt");
            let api = chat_completions::start(
                QWEN_TOOLS,
                vec![
                    Step::Write {
                        path: outside.display().to_string(),
                        content: "planted".to_owned(),
                    },
                    Step::Write {
                        path: inside.display().to_string(),
                        content: "inside".to_owned(),
                    },
                ],
            );
            let project = project(scratch);

            let run = run_qwen(qwen, &project, &api, "write the two files");

            run.assert_finished();
            assert!(
                !outside.exists(),
                "a write outside the project went through\n{}",
                run.report()
            );
            assert!(
                inside.exists(),
                "a write inside the project was not done\n{}",
                run.report()
            );
        },
    );
}

/// Qwen Code has no setting that makes a failed hook block: with the binary `hooks init` named
/// gone, the call runs. This records that it fails open, and fails the day it stops doing so.
#[test]
fn a_missing_hooks_binary_lets_the_call_run_qwen_fails_open() {
    isolation::scenario(
        "a_missing_hooks_binary_lets_the_call_run_qwen_fails_open",
        &QWEN,
        |qwen, scratch| {
            let api = chat_completions::start(
                QWEN_TOOLS,
                vec![Step::Shell("touch made-by-agent".to_owned())],
            );
            let project = project(scratch);
            project.break_hooks_binary(".qwen/settings.json", &[]);

            let run = run_qwen(qwen, &project, &api, "make the marker file");

            run.assert_finished();
            assert!(
                project.dir.join("made-by-agent").exists(),
                "Qwen Code no longer runs a call whose hook could not start: it fails closed now\n{}",
                run.report()
            );
        },
    );
}

/// The hooks file exactly as `hooks init qwen` writes it: `rm -rf ~/` is denied (the home keeps
/// its marker, the model reads why). A key the model prints from a file **reaches the model**:
/// Qwen Code gives a `PostToolUse` hook no way to change or withhold a tool's output (the block
/// `hooks qwen` answers is added beside it), so this records the gap.
///
/// Qwen Code's shell tool now and then answers a command with no output at all when the machine
/// is busy (its own `Output: (empty)`, which the hooks' log shows before any hook ran; once in a
/// full CI run). Such a run shows nothing of the gap, so the scenario then runs once more.
#[test]
fn the_starter_file_keeps_the_home_but_a_printed_key_reaches_the_model() {
    isolation::scenario(
        "the_starter_file_keeps_the_home_but_a_printed_key_reaches_the_model",
        &QWEN,
        |qwen, scratch| {
            for attempt in 1..=2 {
                let checks = StarterChecks::new();
                let api = chat_completions::start(QWEN_TOOLS, checks.steps.clone());
                let scratch = scratch.join(format!("attempt-{attempt}"));
                let project = Project::new(&scratch, "qwen", false, STARTER);
                checks.plant(&project);

                let run = run_qwen(qwen, &project, &api, "clean up, then read the notes");

                run.assert_finished();
                checks.assert_home_kept(&project, &run, first_result(&api, &call_id(0)).as_deref());
                let read = first_result(&api, &call_id(1));
                let printed_nothing = read
                    .as_deref()
                    .is_some_and(|read| read.contains("Output: (empty)"));
                if printed_nothing && attempt == 1 {
                    continue;
                }
                checks.assert_key_reached(&run, &api, read.as_deref());
                return;
            }
        },
    );
}
