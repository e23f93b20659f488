//! Every `hooks ...` command line of the README and the docs (inline, or a line of a code block)
//! names a subcommand the binary answers, and each of its `--flags` is in that subcommand's
//! help: a subcommand or flag the docs name that a build lacks fails here.
//!
//! The binary is the one `cargo install-guard` installed when `HOOKS_INSTALLED_GUARD` names it
//! (CI's install step sets it: the lean guard, which hands `mcp-proxy`, `mcp` and `serve` to the
//! companion beside it), else the test build's own.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The binary checked, and whether it is an installed guard.
fn binary() -> (PathBuf, bool) {
    match std::env::var_os("HOOKS_INSTALLED_GUARD").filter(|path| !path.is_empty()) {
        Some(path) => (PathBuf::from(path), true),
        None => (PathBuf::from(env!("CARGO_BIN_EXE_hooks")), false),
    }
}

/// The README and the user docs (the dated performance notes record history, not commands).
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name != "perf") {
                    walk(&path, found);
                }
            } else if path.extension().is_some_and(|ext| ext == "md") {
                found.push(path);
            }
        }
    }
    let mut found = vec![workspace().join("README.md")];
    walk(&workspace().join("docs"), &mut found);
    found.sort();
    found
}

/// Each `hooks ...` command line of `text`: inline code spans (which may wrap across lines) and
/// code block lines.
fn command_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut prose = String::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            // A block closes any span: the prose before it stands alone.
            prose.push_str("\n\n");
        } else if in_block {
            let command = line.split('#').next().unwrap_or_default().trim();
            if command.starts_with("hooks ") {
                lines.push(command.to_owned());
            }
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    for paragraph in prose.split("\n\n") {
        let spans = paragraph.split('`').skip(1).step_by(2);
        lines.extend(
            spans
                .map(|span| span.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|span| span.starts_with("hooks ")),
        );
    }
    lines
}

/// A subcommand word (not a placeholder such as `<agent>`).
fn is_word(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// `--flag` of a token such as `[--dir`, `--listen=ADDR`, `--json]`.
fn flag_of(token: &str) -> Option<&str> {
    let token = token.trim_matches(|c| "[]()|,.;".contains(c));
    let flag = token.split('=').next()?;
    (flag.len() > 2 && flag.starts_with("--") && is_word(&flag[2..])).then_some(flag)
}

/// `<binary> <path> --help`: its help when it succeeds.
fn help(binary: &Path, path: &[&str]) -> Option<String> {
    let output = Command::new(binary)
        .args(path)
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn every_command_the_docs_name_is_answered() {
    let (binary, installed) = binary();
    let mut helps: BTreeMap<Vec<String>, Option<String>> = BTreeMap::new();
    let mut problems = BTreeSet::new();
    let mut checked = 0;
    for document in documents() {
        let name = document
            .strip_prefix(workspace())
            .unwrap()
            .display()
            .to_string();
        for line in command_lines(&std::fs::read_to_string(&document).unwrap()) {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if !is_word(tokens[1]) {
                continue;
            }
            let mut path = vec![tokens[1].to_owned()];
            let mut lookup = |path: &Vec<String>| {
                helps
                    .entry(path.clone())
                    .or_insert_with(|| {
                        let words: Vec<&str> = path.iter().map(String::as_str).collect();
                        help(&binary, &words)
                    })
                    .clone()
            };
            let Some(mut text) = lookup(&path) else {
                problems.insert(format!("{name}: `{line}`: no `hooks {}`", path[0]));
                continue;
            };
            // A subcommand with subcommands of its own (`hooks mcp wrap`).
            if text.contains("\nCommands:") && tokens.get(2).is_some_and(|word| is_word(word)) {
                path.push(tokens[2].to_owned());
                match lookup(&path) {
                    Some(nested) => text = nested,
                    None => {
                        problems.insert(format!("{name}: `{line}`: no `hooks {}`", path.join(" ")));
                        continue;
                    }
                }
            }
            // Past a lone `--` come the words of another program (`mcp-proxy -- <server>`).
            for token in tokens.iter().skip(2).take_while(|token| **token != "--") {
                if let Some(flag) = flag_of(token)
                    && !text.contains(flag)
                {
                    problems.insert(format!(
                        "{name}: `{line}`: `hooks {}` has no `{flag}`",
                        path.join(" ")
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked > 40,
        "only {checked} command lines found in the docs"
    );
    assert!(
        problems.is_empty(),
        "{} ({}) does not answer what the docs name:\n{}",
        binary.display(),
        if installed {
            "the installed guard"
        } else {
            "this build"
        },
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The installed guard alone, its companion missing: what it hands over fails saying so, and
/// the agent subcommands still decide (a block of the README's example).
#[test]
fn an_installed_guard_without_its_companion_says_what_is_missing_and_still_guards() {
    let (binary, installed) = binary();
    if !installed {
        eprintln!("HOOKS_INSTALLED_GUARD is not set: no installed guard to check");
        return;
    }
    let alone = std::env::temp_dir().join(format!("hooks-guard-alone-{}", std::process::id()));
    std::fs::create_dir_all(&alone).unwrap();
    let guard = alone.join(binary.file_name().unwrap());
    std::fs::copy(&binary, &guard).unwrap();
    for subcommand in ["serve", "mcp-proxy", "mcp"] {
        let output = Command::new(&guard)
            .args([subcommand, "--help"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{subcommand}: {output:?}");
        assert!(
            stderr.contains(&format!("`hooks {subcommand}` is not in this build"))
                && stderr.contains("hooks-full")
                && stderr.contains("cargo install-guard"),
            "{subcommand}: {stderr}"
        );
    }
    let project = alone.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("hooks.yaml"),
        "modules:\n  safety:\n    workspace: \".\"\n",
    )
    .unwrap();
    let mut child = Command::new(&guard)
        .args(["claude", "--config", "hooks.yaml"])
        .current_dir(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf ~/"}, "session_id": "s", "cwd": "."}"#,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(r#""permissionDecision":"deny""#),
        "{output:?}"
    );
    std::fs::remove_dir_all(&alone).unwrap();
}
