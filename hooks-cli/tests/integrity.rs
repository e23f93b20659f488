//! The guard holds by what a file is, not by what a call calls it: in a project set up by
//! `hooks init claude`, the hooks file and Claude Code's settings are refused to writes that
//! reach them by a glob, by a hard link made earlier, by a patch read from a file, and by a
//! `find` that deletes or rewrites what it finds, through `hooks claude` as Claude Code runs it.
//! Calls that only look alike pass.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A project set up by `hooks init claude`, with a source file and a note beside the guard's.
fn project(test: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("integrity", test);
    let init = support::run(Some(&dir), &["init", "claude"], "");
    assert!(init.status.success(), "{init:?}");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(dir.join("notes.md"), "notes\n").unwrap();
    dir
}

fn claude(dir: &Path, tool: &str, input: Value) -> std::process::Output {
    let event = json!({"session_id": "integrity", "transcript_path": "/tmp/t.jsonl",
        "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
        "tool_use_id": "t1"});
    support::run(
        Some(dir),
        &["claude", "--config", "hooks.yaml"],
        &event.to_string(),
    )
}

fn refused(dir: &Path, command: &str) {
    let output = claude(dir, "Bash", json!({"command": command}));
    let reason = support::claude_denial(&output)
        .unwrap_or_else(|| panic!("`{command}` was let through: {output:?}"));
    assert!(reason.contains("guard-file"), "`{command}`: {reason}");
}

fn passed(dir: &Path, command: &str) {
    let output = claude(dir, "Bash", json!({"command": command}));
    assert_eq!(
        support::claude_denial(&output),
        None,
        "`{command}`: {output:?}"
    );
}

#[test]
fn a_glob_is_every_file_the_shell_expands_it_to() {
    let dir = project("glob");
    for command in [
        "echo 'hooks: {}' > h*.yaml",
        "sed -i s/safety/nothing/ *.yaml",
        "cp /dev/null hook?.yaml",
        "rm -r .cl*",
        "echo {} > .claude/s*.json",
        "ln hook?.yaml notes.txt",
    ] {
        refused(&dir, command);
    }
    // Globs that reach no guard file are what they are.
    passed(&dir, "sed -i s/a/b/ src/*.rs");
    passed(&dir, "echo x > notes*.txt");
}

#[cfg(unix)]
#[test]
fn a_hard_link_made_earlier_is_the_guard_file_under_another_name() {
    let dir = project("hard-link");
    std::fs::hard_link(dir.join("hooks.yaml"), dir.join("notes.txt")).unwrap();
    refused(&dir, "echo 'hooks: {}' > notes.txt");
    let output = claude(
        &dir,
        "Write",
        json!({"file_path": dir.join("notes.txt"), "content": "hooks: {}\n"}),
    );
    let reason = support::claude_denial(&output).unwrap_or_else(|| panic!("{output:?}"));
    assert!(reason.contains("guard-file"), "{reason}");
    // A file of one name is what it is called.
    passed(&dir, "echo more >> notes.md");
}

#[test]
fn a_patch_read_from_a_file_is_checked_file_by_file() {
    let dir = project("patch");
    let yaml = std::fs::read_to_string(dir.join("hooks.yaml")).unwrap();
    let first = yaml.lines().next().unwrap();
    std::fs::write(
        dir.join("fix.diff"),
        format!("--- a/hooks.yaml\n+++ b/hooks.yaml\n@@ -1,1 +1,1 @@\n-{first}\n+# nothing\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("main.diff"),
        "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,1 +1,1 @@\n-fn main() {}\n+fn main() { println!(\"hi\"); }\n",
    )
    .unwrap();
    refused(&dir, "patch -p1 < fix.diff");
    refused(&dir, "patch -p1 -i fix.diff");
    refused(&dir, "git apply fix.diff");
    passed(&dir, "patch -p1 < main.diff");
    passed(&dir, "git apply main.diff");
}

#[test]
fn a_find_that_deletes_or_rewrites_what_it_finds_reaches_the_guard_files_it_selects() {
    let dir = project("find");
    refused(&dir, "find . -name hooks.yaml -delete");
    refused(&dir, "find . -name '*.yaml' -exec sed -i s/a/b/ {} +");
    refused(&dir, "find . -iname 'SETTINGS*' -exec rm {} ;");
    passed(&dir, "find . -name '*.pyc' -delete");
    passed(&dir, "find . -type f -exec grep -l TODO {} +");
    passed(&dir, "find src -name '*.rs' -exec sed -i s/a/b/ {} +");
}
