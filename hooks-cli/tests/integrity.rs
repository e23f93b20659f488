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

/// `hooks claude` on a harmless call of `session`, with the sessions' state in `state`.
fn call_in(dir: &Path, state: &Path, session: &str) -> std::process::Output {
    let event = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": dir,
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
        "tool_use_id": "t1"});
    support::spawn_with_state(
        Some(dir),
        &["claude", "--config", "hooks.yaml"],
        &event.to_string(),
        state,
    )
    .wait_with_output()
    .unwrap()
}

#[test]
fn a_change_that_got_through_blocks_the_rest_of_the_session() {
    let dir = project("snapshot");
    let state = dir.join("state");
    assert_eq!(support::claude_denial(&call_in(&dir, &state, "s1")), None);
    // Changed behind the guard's back (here by the test, as a write the checker missed would).
    let mut yaml = std::fs::read_to_string(dir.join("hooks.yaml")).unwrap();
    yaml.push_str("# changed\n");
    std::fs::write(dir.join("hooks.yaml"), yaml).unwrap();
    let reason = support::claude_denial(&call_in(&dir, &state, "s1")).unwrap();
    assert!(
        reason.contains("changed since this session started")
            && reason.contains("hooks.yaml")
            && reason.contains("hooks trust"),
        "{reason}"
    );
    // A session that starts now runs with the file as it is.
    assert_eq!(support::claude_denial(&call_in(&dir, &state, "s2")), None);
    // The agent's own settings are watched for their hooks: another setting the agent writes
    // itself (a theme, a permission) blocks nothing; taking a hook out does.
    let settings = dir.join(".claude/settings.json");
    let mut parsed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    parsed["theme"] = json!("dark");
    std::fs::write(&settings, parsed.to_string()).unwrap();
    assert_eq!(support::claude_denial(&call_in(&dir, &state, "s2")), None);
    parsed["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("PreToolUse");
    std::fs::write(&settings, parsed.to_string()).unwrap();
    let reason = support::claude_denial(&call_in(&dir, &state, "s2")).unwrap();
    assert!(reason.contains("settings.json"), "{reason}");
}

#[test]
fn hooks_trust_needs_a_terminal_and_is_refused_to_the_agent() {
    let dir = project("trust-refused");
    // No controlling terminal, as an agent's tool process may have none.
    let output = std::process::Command::new("setsid")
        .args([
            "-w",
            env!("CARGO_BIN_EXE_hooks"),
            "trust",
            "--config",
            "hooks.yaml",
        ])
        .current_dir(&dir)
        .env("HOOKS_STATE_DIR", dir.join("state"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("needs the user at a terminal"), "{stderr}");
    // Run from the agent's shell, the guard refuses it before it runs.
    let output = claude(
        &dir,
        "Bash",
        json!({"command": "hooks trust --config hooks.yaml"}),
    );
    let reason = support::claude_denial(&output).unwrap_or_else(|| panic!("{output:?}"));
    assert!(reason.contains("self-admin"), "{reason}");
}

/// Runs `hooks trust` in a terminal of its own and types back the code it shows (as the
/// user would), through Python's `pty`.
const TYPE_BACK: &str = r#"import os, pty, re, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
seen = b""
while b"to accept: " not in seen:
    seen += os.read(fd, 1024)
code = re.search(rb"Type (\w+) to accept", seen).group(1)
os.write(fd, code + b"\n")
out = b""
try:
    while True:
        chunk = os.read(fd, 1024)
        if not chunk:
            break
        out += chunk
except OSError:
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode())
sys.exit(os.waitstatus_to_exitcode(status))
"#;

#[test]
fn a_change_the_user_accepted_at_a_terminal_lets_the_session_go_on() {
    let dir = project("trust-accepted");
    let state = dir.join("state");
    assert_eq!(support::claude_denial(&call_in(&dir, &state, "s1")), None);
    let mut yaml = std::fs::read_to_string(dir.join("hooks.yaml")).unwrap();
    yaml.push_str("# reviewed by the user\n");
    std::fs::write(dir.join("hooks.yaml"), yaml).unwrap();
    assert!(support::claude_denial(&call_in(&dir, &state, "s1")).is_some());
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            TYPE_BACK,
            env!("CARGO_BIN_EXE_hooks"),
            "trust",
            "--config",
            "hooks.yaml",
        ])
        .current_dir(&dir)
        .env("HOOKS_STATE_DIR", &state)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("accepted"),
        "{output:?}"
    );
    assert_eq!(support::claude_denial(&call_in(&dir, &state, "s1")), None);
}

#[test]
fn claude_code_s_subagents_and_skills_are_guard_files() {
    // Their frontmatter can declare hooks that Claude Code runs outside the guard.
    let dir = project("frontmatter");
    for file in [
        ".claude/agents/reviewer.md",
        ".claude/skills/deploy/SKILL.md",
    ] {
        let output = claude(
            &dir,
            "Write",
            json!({"file_path": dir.join(file), "content": "---\nhooks: {}\n---\n"}),
        );
        let reason =
            support::claude_denial(&output).unwrap_or_else(|| panic!("{file}: {output:?}"));
        assert!(reason.contains("guard-file"), "{file}: {reason}");
        refused(&dir, &format!("echo x > {file}"));
    }
    // Reading them is fine, and other markdown is not a guard file.
    let read = claude(
        &dir,
        "Read",
        json!({"file_path": dir.join(".claude/agents/reviewer.md")}),
    );
    assert_eq!(support::claude_denial(&read), None, "{read:?}");
    passed(&dir, "echo x > docs.md");
}

#[test]
fn a_write_in_a_directory_the_shell_computes_is_refused_when_it_could_be_a_guard_file() {
    let dir = project("computed-dir");
    // `.claude` reached through a substitution or a variable: where the relative target lands
    // is unknown.
    refused(&dir, "cd \"$(echo .claude)\" && echo {} > settings.json");
    refused(&dir, "cd \"$SETTINGS_DIR\" && cp /dev/null hooks.yaml");
    refused(&dir, "cd \"$(echo .claude)\"; echo {} > s*.json");
    // A name no guard file has is written wherever it lands.
    passed(&dir, "cd \"$(echo src)\" && echo x > notes.txt");
}
