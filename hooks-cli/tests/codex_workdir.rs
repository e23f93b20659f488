//! `hooks codex` and the working directory of a shell call: Codex CLI runs the call in a
//! `workdir` the model picks and does not hand to hooks, so a relative path there cannot be
//! placed; a destructive command on one is refused, and everything else goes on.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use hooks_config::interop::Verdict;
use serde_json::{Value, json};

fn policy(test: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("codex-workdir", test);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    let file = dir.join("project/hooks.yaml");
    std::fs::write(&file, "modules:\n  safety:\n    workspace: \".\"\n").unwrap();
    file
}

fn codex(config: &Path, tool_input: Value) -> Output {
    let input = json!({"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": "/tmp",
                       "model": "gpt-5", "turn_id": "t1", "tool_name": "Bash",
                       "tool_input": tool_input, "tool_use_id": "call-1"});
    support::run(
        None,
        &["codex".as_ref(), "--config".as_ref(), config.as_os_str()],
        &input.to_string(),
    )
}

fn verdict(output: &Output) -> Verdict {
    support::accepts("codex", "PreToolUse", output).unwrap()
}

#[test]
fn a_destructive_command_on_a_relative_path_in_an_unknown_workdir_is_refused() {
    let config = policy("unknown");
    for command in ["rm -r sibling", "rm -rf ./build", "cd .. && rm -r sibling"] {
        match verdict(&codex(&config, json!({"command": command}))) {
            Verdict::Block(reason) => assert!(
                reason.contains("sibling") || reason.contains("build"),
                "{reason}"
            ),
            other => panic!("{command}: {other:?}"),
        }
    }
    // As an argv list, as Codex's `shell` tool has it.
    let argv = codex(&config, json!({"command": ["rm", "-r", "sibling"]}));
    assert!(matches!(verdict(&argv), Verdict::Block(_)), "{argv:?}");
    // What destroys nothing, and absolute paths, are judged as before.
    for command in ["cargo test", "ls sibling", "cat notes.txt"] {
        let output = codex(&config, json!({"command": command}));
        assert_eq!(verdict(&output), Verdict::Proceed, "{command}: {output:?}");
    }
}

#[test]
fn a_workdir_the_input_gives_is_where_the_command_runs() {
    let config = policy("given");
    // `etc` is a relative path: under `workdir: "/"` it is the system's.
    let system = codex(&config, json!({"command": "rm -r etc", "workdir": "/"}));
    match verdict(&system) {
        Verdict::Block(reason) => assert!(reason.contains("rm-system"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let project = config.parent().unwrap().to_str().unwrap().to_owned();
    let inside = codex(
        &config,
        json!({"command": "rm -r build", "workdir": project}),
    );
    assert_eq!(verdict(&inside), Verdict::Proceed, "{inside:?}");
}
