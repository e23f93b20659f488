//! OpenCode itself behind the plugin `hooks init opencode` writes: the real CLI (`opencode
//! run`), in a network namespace with only loopback, against a mock of an OpenAI-compatible
//! chat API that plays the model. Each scenario checks what really happened: files on disk, and
//! what reached the model.
//!
//! Runs when `HOOKS_E2E_OPENCODE` names the pinned `opencode` executable (see `opencode/`);
//! skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

mod opencode;

use opencode::chat_api::ChatApi;
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
            let api = ChatApi::start("rm -r victim").unwrap();

            let run = project.run(opencode, &api, "delete the victim folder");

            assert!(target.exists(), "the target was deleted\n{}", run.report());
            let result = api.tool_result();
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
            let api = ChatApi::start("echo BENIGN-7c41 | tee made-by-agent").unwrap();

            let run = project.run(opencode, &api, "make the marker file");

            assert_eq!(run.status, Some(0), "{}", run.report());
            assert!(
                project.dir.join("made-by-agent").exists(),
                "the command did not run\n{}",
                run.report()
            );
            let result = api.tool_result();
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
            let api = ChatApi::start("touch made-by-agent").unwrap();

            let run = project.run(opencode, &api, "make the marker file PROMPT-3e8a");

            assert!(
                !project.dir.join("made-by-agent").exists(),
                "the call ran though `hooks` could not start\n{}",
                run.report()
            );
            assert!(
                !api.requests()
                    .iter()
                    .any(|body| body.to_string().contains("PROMPT-3e8a")),
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
