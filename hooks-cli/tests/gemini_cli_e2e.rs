//! Gemini CLI itself behind `hooks gemini`: the real CLI (`gemini -p`), in a network namespace
//! with only loopback, talking to a mock of the Gemini API that plays the model, with the hooks
//! wired as `hooks init gemini` writes them. Each scenario checks what really happened: files
//! on disk, and what reached the model.
//!
//! Runs when `HOOKS_E2E_GEMINI` names the pinned `gemini` executable (`.ci/run` installs the
//! version in `gemini_cli/gemini-cli-version.txt` from npm); skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

#[path = "support/agent_project.rs"]
#[allow(dead_code)]
mod agent_project;
#[path = "support/gemini_api.rs"]
#[allow(dead_code)]
mod gemini_api;
#[path = "support/isolation.rs"]
#[allow(dead_code)]
mod isolation;
#[path = "support/mock_http.rs"]
#[allow(dead_code)]
mod mock_http;

use std::path::Path;
use std::process::Command;

use agent_project::{
    AgentRun, HOOKS, KEEP_OUT, Project, REDACTION_BLOCKED, STARTER, StarterChecks, Step,
};
use gemini_api::response_to;
use isolation::PinnedAgent;
use mock_http::MockServer;

/// Gemini CLI as the scenarios take it.
const GEMINI: PinnedAgent = PinnedAgent {
    name: "Gemini CLI",
    var: "HOOKS_E2E_GEMINI",
    version: include_str!("gemini_cli/gemini-cli-version.txt"),
    package: "@google/gemini-cli",
};

/// The model named on the command line (a named model skips Gemini CLI's routing call).
const MODEL: &str = "gemini-2.5-pro";

/// A project set up by `hooks init gemini`, with the user's settings choosing the API key.
fn project(scratch: &Path) -> Project {
    project_with(scratch, HOOKS)
}

/// [`project`] with `hooks` as the hooks file's own entries.
fn project_with(scratch: &Path, hooks: &str) -> Project {
    let project = Project::new(scratch, "gemini", false, hooks);
    let settings = project.home.join(".gemini");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.json"),
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#,
    )
    .unwrap();
    project
}

/// Runs `gemini -p prompt` in the project against `api`, every tool approved (`--yolo`) so that
/// only hooks can stop a call. The folder is trusted by `GEMINI_CLI_TRUST_WORKSPACE` (Gemini
/// CLI runs a project's hooks only in a trusted folder).
fn run_gemini(gemini: &Path, project: &Project, api: &MockServer, prompt: &str) -> AgentRun {
    let mut command = Command::new(gemini);
    command
        .args(["-p", prompt, "--yolo", "-m", MODEL])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GEMINI_API_KEY", "e2e-mock-key")
        .env("GOOGLE_GEMINI_BASE_URL", api.base_url())
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    project.run(command, || api.log())
}

#[test]
fn a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason() {
    isolation::scenario(
        "a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason",
        &GEMINI,
        |gemini, scratch| {
            let command = "cd .. && rm -rf project";
            let api = gemini_api::start(vec![Step::Shell(command.to_owned())]);
            let project = project(scratch);
            let reason = project.denial_reason(
                "gemini",
                &serde_json::json!({
                    "hook_event_name": "BeforeTool", "session_id": "s", "cwd": project.dir,
                    "tool_name": "run_shell_command", "tool_input": {"command": command},
                }),
            );

            let run = run_gemini(gemini, &project, &api, "start the project over");

            run.assert_finished();
            assert!(
                project.dir.join("hooks.yaml").exists(),
                "the project was deleted\n{}",
                run.report()
            );
            let response = response_to(&api, 0);
            // The reason travels inside JSON text: compare its first words.
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
        &GEMINI,
        |gemini, scratch| {
            let command = "touch made-by-agent && echo OUT 5e1a | tr ' ' -";
            let api = gemini_api::start(vec![Step::Shell(command.to_owned())]);
            let project = project(scratch);

            let run = run_gemini(gemini, &project, &api, "make the marker file");

            run.assert_finished();
            assert!(
                project.dir.join("made-by-agent").exists(),
                "the command did not run\n{}",
                run.report()
            );
            let response = response_to(&api, 0);
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
        &GEMINI,
        |gemini, scratch| {
            let api = gemini_api::start(Vec::new());
            let project = project(scratch);

            let allowed = run_gemini(gemini, &project, &api, "summarise the README, ALLOWED-91d0");
            allowed.assert_finished();
            assert!(
                api.any_body_contains("ALLOWED-91d0"),
                "an allowed prompt must reach the model\n{}",
                allowed.report()
            );

            let blocked = run_gemini(gemini, &project, &api, "deploy with token KEEP-OUT-7f3a");

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
        &GEMINI,
        |gemini, scratch| {
            let outside = scratch.join("outside/planted.txt");
            let inside = scratch.join("project/notes.txt");
            let api = gemini_api::start(vec![
                Step::Write {
                    path: outside.display().to_string(),
                    content: "planted".to_owned(),
                },
                Step::Write {
                    path: inside.display().to_string(),
                    content: "inside".to_owned(),
                },
            ]);
            let project = project(scratch);

            let run = run_gemini(gemini, &project, &api, "write the two files");

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

/// Gemini CLI 0.61 takes a hook that cannot start (bash's exit 127) as a block: with the binary
/// `hooks init` named gone from every entry, the prompt is refused (`BeforeAgent`) before it
/// reaches the model, and nothing runs.
#[test]
fn a_missing_hooks_binary_blocks_the_prompt() {
    isolation::scenario(
        "a_missing_hooks_binary_blocks_the_prompt",
        &GEMINI,
        |gemini, scratch| {
            let api = gemini_api::start(vec![Step::Shell("touch made-by-agent".to_owned())]);
            let project = project(scratch);
            project.break_hooks_binary(".gemini/settings.json", &[]);

            let run = run_gemini(gemini, &project, &api, "make the marker file MARK-3c9d");

            run.assert_ended();
            assert!(
                !project.dir.join("made-by-agent").exists(),
                "the call ran though its hook could not start\n{}",
                run.report()
            );
            assert!(
                !api.any_body_contains("MARK-3c9d"),
                "the prompt reached the model though its hook could not start\n{}",
                run.report()
            );
        },
    );
}

/// The same with only the `BeforeTool` entry broken: the prompt goes through, the tool call
/// is blocked.
#[test]
fn a_missing_hooks_binary_blocks_the_tool_call() {
    isolation::scenario(
        "a_missing_hooks_binary_blocks_the_tool_call",
        &GEMINI,
        |gemini, scratch| {
            let api = gemini_api::start(vec![Step::Shell("touch made-by-agent".to_owned())]);
            let project = project(scratch);
            project.break_hooks_binary(".gemini/settings.json", &["BeforeTool"]);

            let run = run_gemini(gemini, &project, &api, "make the marker file");

            run.assert_ended();
            assert!(
                !project.dir.join("made-by-agent").exists(),
                "the call ran though its hook could not start\n{}",
                run.report()
            );
            assert!(
                response_to(&api, 0).is_some(),
                "the model must be told the call did not run\n{}",
                run.report()
            );
        },
    );
}

/// The hooks file exactly as `hooks init gemini` writes it: `rm -rf ~/` is denied (the home
/// keeps its marker, the model reads why); a key the model prints from a file never reaches
/// it: Gemini CLI cannot take a changed output, so `hooks gemini` denies the `AfterTool`, and
/// Gemini CLI hands the model our reason in place of the output.
#[test]
fn the_starter_file_keeps_the_home_and_a_key_from_the_model() {
    isolation::scenario(
        "the_starter_file_keeps_the_home_and_a_key_from_the_model",
        &GEMINI,
        |gemini, scratch| {
            let checks = StarterChecks::new();
            let api = gemini_api::start(checks.steps.clone());
            let project = project_with(scratch, STARTER);
            checks.plant(&project);

            let run = run_gemini(gemini, &project, &api, "clean up, then read the notes");

            run.assert_finished();
            checks.assert_home_kept(&project, &run, response_to(&api, 0).as_deref());
            checks.assert_key_withheld(
                &run,
                &api,
                response_to(&api, 1).as_deref(),
                REDACTION_BLOCKED,
            );
        },
    );
}
