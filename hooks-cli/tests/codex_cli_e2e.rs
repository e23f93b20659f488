//! Codex CLI itself behind `hooks codex`: the real CLI (`codex exec`), in a network namespace
//! with only loopback, talking to a mock of the OpenAI Responses API that plays the model, with
//! the hooks wired as `hooks init codex` writes them. Each scenario checks what really
//! happened: files on disk, and what reached the model.
//!
//! Runs when `HOOKS_E2E_CODEX` names the pinned `codex` executable (`.ci/run` installs the
//! version in `codex_cli/codex-version.txt` from npm); skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

#[path = "support/agent_project.rs"]
#[allow(dead_code)]
mod agent_project;
#[path = "support/isolation.rs"]
#[allow(dead_code)]
mod isolation;
#[path = "support/mock_http.rs"]
#[allow(dead_code)]
mod mock_http;
#[path = "support/responses_api.rs"]
#[allow(dead_code)]
mod responses_api;

use std::path::Path;
use std::process::Command;

use agent_project::{
    AgentRun, HOOKS, KEEP_OUT, Project, REDACTION_BLOCKED, STARTER, StarterChecks, Step,
};
use isolation::PinnedAgent;
use mock_http::MockServer;
use responses_api::{call_id, first_output};

/// Codex CLI as the scenarios take it.
const CODEX: PinnedAgent = PinnedAgent {
    name: "Codex CLI",
    var: "HOOKS_E2E_CODEX",
    version: include_str!("codex_cli/codex-version.txt"),
    package: "@openai/codex",
};

/// A model Codex CLI knows (its tools, `exec_command` and `apply_patch`, follow the model).
const MODEL: &str = "gpt-5.5";

/// A project set up by `hooks init codex` (in a git repository, as it requires), with Codex
/// CLI's user config pointing it at `api` and trusting the project, as `codex exec --trust`
/// records it (Codex CLI ignores an untrusted project's `.codex/`, its hooks included).
fn project(scratch: &Path, api: &MockServer) -> Project {
    project_with(scratch, api, HOOKS)
}

/// [`project`] with `hooks` as the hooks file's own entries.
fn project_with(scratch: &Path, api: &MockServer, hooks: &str) -> Project {
    let project = Project::new(scratch, "codex", true, hooks);
    let codex_home = project.home.join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let config = format!(
        "model = \"{MODEL}\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
         name = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
         env_key = \"OPENAI_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n\
         [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        api.base_url(),
        project.dir.display()
    );
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    project
}

/// Runs `codex exec prompt` in the project against `api`. The hooks are trusted for this run
/// only (`--dangerously-bypass-hook-trust`: `codex exec` silently skips untrusted hooks, and
/// trusting them is an interactive step), and the shell runs unsandboxed and unasked, so that
/// only hooks can stop a call.
fn run_codex(codex: &Path, project: &Project, api: &MockServer, prompt: &str) -> AgentRun {
    let mut command = Command::new(codex);
    command
        .args(["exec", "--dangerously-bypass-hook-trust"])
        .args(["--sandbox", "danger-full-access", prompt])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("CODEX_HOME", project.home.join(".codex"))
        .env("OPENAI_API_KEY", "sk-e2e-mock");
    project.run(command, || api.log())
}

/// What Codex CLI hands `hooks codex` for the shell command `command`.
fn shell_call(project: &Project, command: &str) -> serde_json::Value {
    serde_json::json!({
        "hook_event_name": "PreToolUse", "session_id": "s", "turn_id": "t",
        "cwd": project.dir, "model": MODEL, "permission_mode": "bypassPermissions",
        "tool_name": "Bash", "tool_use_id": "c", "tool_input": {"command": command},
    })
}

#[test]
fn a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason() {
    isolation::scenario(
        "a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason",
        &CODEX,
        |codex, scratch| {
            let command = "cd .. && rm -rf project";
            let api = responses_api::start(vec![Step::Shell(command.to_owned())]);
            let project = project(scratch, &api);
            let reason = project.denial_reason("codex", &shell_call(&project, command));

            let run = run_codex(codex, &project, &api, "start the project over");

            run.assert_finished();
            assert!(
                project.dir.join("hooks.yaml").exists(),
                "the project was deleted\n{}",
                run.report()
            );
            let output = first_output(&api, &call_id(0));
            assert!(
                output.as_deref().is_some_and(|text| text.contains(&reason)),
                "the model must read our reason {reason:?}, read {output:?}\n{}",
                run.report()
            );
        },
    );
}

#[test]
fn a_benign_command_runs_and_its_output_reaches_the_model() {
    isolation::scenario(
        "a_benign_command_runs_and_its_output_reaches_the_model",
        &CODEX,
        |codex, scratch| {
            // The output differs from the command's text, so only a run can produce it.
            let command = "touch made-by-agent && echo OUT 5e1a | tr ' ' -";
            let api = responses_api::start(vec![Step::Shell(command.to_owned())]);
            let project = project(scratch, &api);

            let run = run_codex(codex, &project, &api, "make the marker file");

            run.assert_finished();
            assert!(
                project.dir.join("made-by-agent").exists(),
                "the command did not run\n{}",
                run.report()
            );
            let output = first_output(&api, &call_id(0));
            assert!(
                output
                    .as_deref()
                    .is_some_and(|text| text.contains("OUT-5e1a")),
                "the command's output must reach the model, got {output:?}\n{}",
                run.report()
            );
        },
    );
}

#[test]
fn a_blocked_prompt_never_reaches_the_model() {
    isolation::scenario(
        "a_blocked_prompt_never_reaches_the_model",
        &CODEX,
        |codex, scratch| {
            let api = responses_api::start(Vec::new());
            let project = project(scratch, &api);

            // First a prompt the policy lets through: the way to the model is open.
            let allowed = run_codex(codex, &project, &api, "summarise the README, ALLOWED-91d0");
            allowed.assert_finished();
            assert!(
                api.any_body_contains("ALLOWED-91d0"),
                "an allowed prompt must reach the model\n{}",
                allowed.report()
            );

            let blocked = run_codex(codex, &project, &api, "deploy with token KEEP-OUT-7f3a");

            blocked.assert_ended();
            assert!(
                !api.any_body_contains(KEEP_OUT),
                "the blocked prompt reached the mock\n{}",
                blocked.report()
            );
        },
    );
}

/// Codex CLI writes files by patches (`apply_patch`), read by `hooks codex` path by path.
#[test]
fn a_patch_outside_the_project_is_denied_and_one_inside_is_not() {
    isolation::scenario(
        "a_patch_outside_the_project_is_denied_and_one_inside_is_not",
        &CODEX,
        |codex, scratch| {
            let api = responses_api::start(vec![
                Step::Write {
                    path: "../outside/planted.txt".to_owned(),
                    content: "planted".to_owned(),
                },
                Step::Write {
                    path: "notes.txt".to_owned(),
                    content: "inside".to_owned(),
                },
            ]);
            let project = project(scratch, &api);

            let run = run_codex(codex, &project, &api, "write the two files");

            run.assert_finished();
            assert!(
                !project.outside.join("planted.txt").exists(),
                "a patch wrote outside the project\n{}",
                run.report()
            );
            assert!(
                project.dir.join("notes.txt").exists(),
                "a patch inside the project was not written\n{}",
                run.report()
            );
        },
    );
}

/// Codex CLI has no setting that makes a failed hook block: with the binary `hooks init` named
/// gone (the hook exits 127), the call runs. This records that it still fails open, and fails
/// the day it stops doing so (then `hooks init codex` and the docs should say so).
#[test]
fn a_missing_hooks_binary_lets_the_call_run_codex_fails_open() {
    isolation::scenario(
        "a_missing_hooks_binary_lets_the_call_run_codex_fails_open",
        &CODEX,
        |codex, scratch| {
            let api = responses_api::start(vec![Step::Shell("touch made-by-agent".to_owned())]);
            let project = project(scratch, &api);
            project.break_hooks_binary(".codex/hooks.json", &[]);

            let run = run_codex(codex, &project, &api, "make the marker file");

            run.assert_finished();
            assert!(
                project.dir.join("made-by-agent").exists(),
                "Codex CLI no longer runs a call whose hook could not start: it fails closed now\n{}",
                run.report()
            );
        },
    );
}

/// The hooks file exactly as `hooks init codex` writes it: `rm -rf ~/` is denied (the home
/// keeps its marker, the model reads why); a key the model prints from a file never reaches
/// it: Codex CLI cannot take a changed output, so `hooks codex` blocks the `PostToolUse`, and
/// Codex CLI hands the model our reason in place of the output.
#[test]
fn the_starter_file_keeps_the_home_and_a_key_from_the_model() {
    isolation::scenario(
        "the_starter_file_keeps_the_home_and_a_key_from_the_model",
        &CODEX,
        |codex, scratch| {
            let checks = StarterChecks::new();
            let api = responses_api::start(checks.steps.clone());
            let project = project_with(scratch, &api, STARTER);
            checks.plant(&project);

            let run = run_codex(codex, &project, &api, "clean up, then read the notes");

            run.assert_finished();
            checks.assert_home_kept(&project, &run, first_output(&api, &call_id(0)).as_deref());
            checks.assert_key_withheld(
                &run,
                &api,
                first_output(&api, &call_id(1)).as_deref(),
                REDACTION_BLOCKED,
            );
        },
    );
}
