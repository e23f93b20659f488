//! OpenCode itself behind the plugin `hooks init opencode` writes: the real CLI (`opencode
//! run`), in a network namespace with only loopback, against a mock of an OpenAI-compatible
//! chat API that plays the model. Each scenario checks what really happened: files on disk, and
//! what reached the model.
//!
//! Runs when `HOOKS_E2E_OPENCODE` names the pinned `opencode` executable (see `opencode/`);
//! skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

mod opencode;

use opencode::agent_project::{
    GITHUB_TOKEN_MASK, HOME_MARKER, RM_HOME, STARTER, Step, made_up_token,
};
use opencode::chat_completions::{self, OPENCODE_TOOLS, call_id, first_result};
use opencode::{Project, scenario};

/// The project's own entry, beside the starter's modules: recursive deletes are for people.
const HOOKS: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "rm -r*"}}
      action: block
      message: "recursive deletes are kept for people (REASON-9d2e)"
"#;

#[test]
fn a_denied_rm_leaves_its_target_and_the_model_reads_our_reason() {
    scenario(
        "a_denied_rm_leaves_its_target_and_the_model_reads_our_reason",
        |opencode, scratch| {
            let project = Project::new(scratch, HOOKS);
            let target = project.dir.join("victim/file");
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, "keep me\n").unwrap();
            let api = chat_completions::start(
                OPENCODE_TOOLS,
                vec![Step::Shell("rm -r victim".to_owned())],
            );

            let run = project.run(opencode, &api, "delete the victim folder");

            assert!(target.exists(), "the target was deleted\n{}", run.report());
            let result = first_result(&api, &call_id(0));
            assert!(
                result.as_deref().is_some_and(|r| r.contains("REASON-9d2e")),
                "the model must read our reason, read {result:?}\n{}\n{}",
                api.log(),
                run.report()
            );
        },
    );
}

#[test]
fn a_benign_command_runs_and_its_output_reaches_the_model() {
    scenario(
        "a_benign_command_runs_and_its_output_reaches_the_model",
        |opencode, scratch| {
            let project = Project::new(scratch, HOOKS);
            let api = chat_completions::start(
                OPENCODE_TOOLS,
                vec![Step::Shell(
                    "echo BENIGN-7c41 | tee made-by-agent".to_owned(),
                )],
            );

            let run = project.run(opencode, &api, "make the marker file");

            assert_eq!(run.status, Some(0), "{}", run.report());
            assert!(
                project.dir.join("made-by-agent").exists(),
                "the command did not run\n{}",
                run.report()
            );
            let result = first_result(&api, &call_id(0));
            assert!(
                result.as_deref().is_some_and(|r| r.contains("BENIGN-7c41")),
                "the model must read the output, read {result:?}\n{}",
                run.report()
            );
        },
    );
}

/// With the binary the plugin names gone, OpenCode 1.18.33 runs nothing: the plugin's first
/// call is on the prompt (`chat.message`), which it blocks, so the prompt never reaches the
/// model and no tool is called.
#[test]
fn a_missing_hooks_binary_blocks_the_prompt_and_so_every_call() {
    scenario(
        "a_missing_hooks_binary_blocks_the_prompt_and_so_every_call",
        |opencode, scratch| {
            let project = Project::new(scratch, HOOKS);
            project.plugin_runs("/nonexistent/bin/hooks");
            let api = chat_completions::start(
                OPENCODE_TOOLS,
                vec![Step::Shell("touch made-by-agent".to_owned())],
            );

            let run = project.run(opencode, &api, "make the marker file PROMPT-3e8a");

            assert!(
                !project.dir.join("made-by-agent").exists(),
                "the call ran though `hooks` could not start\n{}",
                run.report()
            );
            assert!(
                !api.any_body_contains("PROMPT-3e8a"),
                "the prompt reached the model though `hooks` could not start\n{}\n{}",
                api.log(),
                run.report()
            );
            assert_ne!(run.status, Some(0), "{}", run.report());
            assert!(
                run.stderr
                    .contains("blocked because the guard could not decide"),
                "OpenCode must say why\n{}",
                run.report()
            );
        },
    );
}

/// The hooks file exactly as `hooks init opencode` writes it denies `rm -rf ~/`: the home keeps
/// its marker, and the model reads why (the guard-file rule answers first here, since the home
/// holds OpenCode's own configuration). A key in the prompt reaches the model masked: the
/// plugin replaces the prompt's text with the redacted one.
#[test]
fn the_starter_file_keeps_the_home_and_masks_a_key_in_the_prompt() {
    scenario(
        "the_starter_file_keeps_the_home_and_masks_a_key_in_the_prompt",
        |opencode, scratch| {
            let project = Project::new(scratch, STARTER);
            let marker = project.home.join(HOME_MARKER);
            std::fs::write(&marker, "the home directory is still here\n").unwrap();
            let key = made_up_token();
            let api =
                chat_completions::start(OPENCODE_TOOLS, vec![Step::Shell(RM_HOME.to_owned())]);

            let prompt = format!("clean up; the deploy token is {key}");
            let run = project.run(opencode, &api, &prompt);

            assert!(marker.exists(), "the home marker is gone\n{}", run.report());
            let result = first_result(&api, &call_id(0));
            assert!(
                result.as_deref().is_some_and(|r| r.contains("`~/`")),
                "the model must read our reason, read {result:?}\n{}",
                run.report()
            );
            assert!(
                !api.any_body_contains(&key),
                "the key reached the mock\n{}\n{}",
                api.log(),
                run.report()
            );
            assert!(
                api.any_body_contains(GITHUB_TOKEN_MASK),
                "the model must read the prompt with the key masked\n{}\n{}",
                api.log(),
                run.report()
            );
        },
    );
}
