//! GitHub Copilot CLI itself behind `hooks copilot`: the real CLI (`copilot -p`), offline with
//! its own model provider (`COPILOT_PROVIDER_BASE_URL`, no GitHub account), in a network
//! namespace with only loopback, talking to a mock of the OpenAI Chat Completions API that
//! plays the model, with the hooks wired as `hooks init copilot` writes them. Each scenario
//! checks what really happened: files on disk, and what reached the model.
//!
//! Copilot CLI does not act on the answer to a submitted prompt, so there is no prompt check.
//! Which tool writes files follows the model: with a GPT model the freeform `apply_patch`, with
//! a Claude model `create` and `edit`; both are checked.
//!
//! Runs when `HOOKS_E2E_COPILOT` names the pinned `copilot` executable (`.ci/run` installs the
//! version in `copilot_cli/copilot-version.txt` from npm); skipped, saying so, otherwise.

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

use agent_project::{AgentRun, HOOKS, Project, STARTER, StarterChecks, Step};
use chat_completions::{COPILOT_GPT_TOOLS, COPILOT_TOOLS, call_id, first_result};
use isolation::PinnedAgent;
use mock_http::MockServer;

/// GitHub Copilot CLI as the scenarios take it.
const COPILOT: PinnedAgent = PinnedAgent {
    name: "GitHub Copilot CLI",
    var: "HOOKS_E2E_COPILOT",
    version: include_str!("copilot_cli/copilot-version.txt"),
    package: "@github/copilot",
};

/// The model the scenarios name unless they say otherwise: a GPT model (Copilot CLI then offers
/// `bash` and the freeform `apply_patch`).
const GPT_MODEL: &str = "gpt-4o";

/// A Claude model: Copilot CLI then offers `create` and `edit` instead of `apply_patch`.
const CLAUDE_MODEL: &str = "claude-sonnet-4.5";

/// A project set up by `hooks init copilot` (in a git repository: the command it writes finds
/// the hooks file from the repository's root).
fn project(scratch: &Path) -> Project {
    Project::new(scratch, "copilot", true, HOOKS)
}

/// Runs `copilot -p prompt` in the project against `api`, every tool allowed so that only hooks
/// can stop a call. In prompt mode Copilot CLI loads a repository's hooks only in a trusted
/// folder or with `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true`; without either, they are
/// skipped without a word.
fn run_copilot(copilot: &Path, project: &Project, api: &MockServer, prompt: &str) -> AgentRun {
    run_copilot_as(copilot, project, api, prompt, GPT_MODEL)
}

/// [`run_copilot`] with the model `model`.
fn run_copilot_as(
    copilot: &Path,
    project: &Project,
    api: &MockServer,
    prompt: &str,
    model: &str,
) -> AgentRun {
    let mut command = Command::new(copilot);
    command
        .args(["-p", prompt, "--allow-all-tools"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("COPILOT_OFFLINE", "true")
        .env(
            "COPILOT_PROVIDER_BASE_URL",
            format!("{}/v1", api.base_url()),
        )
        .env("COPILOT_PROVIDER_API_KEY", "sk-e2e-mock")
        .env("COPILOT_MODEL", model)
        .env("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true");
    project.run(command, || api.log())
}

#[test]
fn a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason() {
    isolation::scenario(
        "a_denied_rm_leaves_its_target_in_place_and_the_model_reads_our_reason",
        &COPILOT,
        |copilot, scratch| {
            let command = "cd .. && rm -rf project";
            let api = chat_completions::start(COPILOT_TOOLS, vec![Step::Shell(command.to_owned())]);
            let project = project(scratch);
            let reason = project.denial_reason(
                "copilot",
                &serde_json::json!({
                    "hook_event_name": "PreToolUse", "session_id": "s", "cwd": project.dir,
                    "tool_name": "bash", "tool_input": {"command": command},
                }),
            );

            let run = run_copilot(copilot, &project, &api, "start the project over");

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
        &COPILOT,
        |copilot, scratch| {
            let command = "touch made-by-agent && echo OUT 5e1a | tr ' ' -";
            let api = chat_completions::start(COPILOT_TOOLS, vec![Step::Shell(command.to_owned())]);
            let project = project(scratch);

            let run = run_copilot(copilot, &project, &api, "make the marker file");

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

/// Copilot CLI 1.0.102 denies a tool call whose `preToolUse` hook cannot start ("Denied by
/// preToolUse hook ... (hook errored)"): with the binary `hooks init` named gone, the call does
/// not run.
#[test]
fn a_missing_hooks_binary_blocks_the_call() {
    isolation::scenario(
        "a_missing_hooks_binary_blocks_the_call",
        &COPILOT,
        |copilot, scratch| {
            let api = chat_completions::start(
                COPILOT_TOOLS,
                vec![Step::Shell("touch made-by-agent".to_owned())],
            );
            let project = project(scratch);
            project.break_hooks_binary(".github/hooks/hooks.json", &[]);

            let run = run_copilot(copilot, &project, &api, "make the marker file");

            run.assert_finished();
            assert!(
                !project.dir.join("made-by-agent").exists(),
                "the call ran though its hook could not start\n{}",
                run.report()
            );
            assert!(
                first_result(&api, &call_id(0)).is_some(),
                "the model must be told the call did not run\n{}",
                run.report()
            );
        },
    );
}

/// The model writes one file outside the project and one inside it, by the tool `tools` offers
/// with `model`: the first must be denied, the second written.
fn a_write_outside_is_denied_and_one_inside_is_not(
    test: &str,
    tools: chat_completions::Tools,
    model: &'static str,
) {
    isolation::scenario(test, &COPILOT, |copilot, scratch| {
        let outside = scratch.join("outside/planted.txt");
        let inside = scratch.join("project/notes.txt");
        let api = chat_completions::start(
            tools,
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

        let run = run_copilot_as(copilot, &project, &api, "write the two files", model);

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
    });
}

#[test]
fn an_apply_patch_outside_the_project_is_denied_and_one_inside_is_not() {
    a_write_outside_is_denied_and_one_inside_is_not(
        "an_apply_patch_outside_the_project_is_denied_and_one_inside_is_not",
        COPILOT_GPT_TOOLS,
        GPT_MODEL,
    );
}

#[test]
fn a_create_outside_the_project_is_denied_and_one_inside_is_not() {
    a_write_outside_is_denied_and_one_inside_is_not(
        "a_create_outside_the_project_is_denied_and_one_inside_is_not",
        COPILOT_TOOLS,
        CLAUDE_MODEL,
    );
}

/// The hooks file exactly as `hooks init copilot` writes it: `rm -rf ~/` is denied (the home
/// keeps its marker, the model reads why). A key the model prints from a file never reaches
/// it, but by Copilot CLI's own doing: it masks the token as `******` in the output, while a
/// `postToolUse` hook has no way to change or withhold the output (`hooks copilot` can only
/// say on stderr that it would have redacted it).
#[test]
fn the_starter_file_keeps_the_home_and_copilot_masks_a_key_itself() {
    isolation::scenario(
        "the_starter_file_keeps_the_home_and_copilot_masks_a_key_itself",
        &COPILOT,
        |copilot, scratch| {
            let checks = StarterChecks::new();
            let api = chat_completions::start(COPILOT_TOOLS, checks.steps.clone());
            let project = Project::new(scratch, "copilot", true, STARTER);
            checks.plant(&project);

            let run = run_copilot(copilot, &project, &api, "clean up, then read the notes");

            run.assert_finished();
            checks.assert_home_kept(&project, &run, first_result(&api, &call_id(0)).as_deref());
            checks.assert_key_withheld(
                &run,
                &api,
                first_result(&api, &call_id(1)).as_deref(),
                "deploy with the token ******",
            );
        },
    );
}
