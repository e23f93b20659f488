//! `cargo xtask ci`: the steps of `.ci/run`, so that a developer reproduces CI with one command.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::{Failure, cargo, project_root};

/// One step: cargo's arguments and the environment the step needs.
struct Step {
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

/// The steps, in the order `.ci/run` runs them.
const STEPS: &[Step] = &[
    Step {
        args: &["fmt", "--all", "--", "--check"],
        env: &[],
    },
    Step {
        args: &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        env: &[],
    },
    Step {
        args: &["xtask", "validate", "--only", "config,annotated,behaviour"],
        env: &[],
    },
    Step {
        args: &["run", "--quiet", "-p", "hooks-cli", "--", "demo", "--json"],
        env: &[],
    },
    Step {
        args: &["doc", "--no-deps", "--workspace", "--quiet"],
        env: &[("RUSTDOCFLAGS", "-D warnings")],
    },
    Step {
        args: &["test", "--workspace"],
        env: &[],
    },
];

pub fn run() -> Result<(), Failure> {
    let cargo = cargo();
    for Step { args, env } in STEPS {
        let mut command = Command::new(&cargo);
        if args.first() == Some(&"test") {
            // The end-to-end tests run the real Claude Code, which `.ci/run` installs first.
            command.env("HOOKS_E2E_CLAUDE", install_claude_code()?);
        }
        let shown = format!("cargo {}", args.join(" "));
        eprintln!("==> {shown}");
        let status = command
            .args(*args)
            .envs(env.iter().copied())
            .current_dir(project_root())
            .stdout(Stdio::null())
            .status()
            .map_err(|error| Failure::Failed(format!("could not run `{shown}`: {error}")))?;
        if !status.success() {
            return Err(Failure::Failed(format!(
                "`{shown}` failed ({status}); fix it and run `cargo xtask ci` again"
            )));
        }
    }
    Ok(())
}

/// Installs the Claude Code version the end-to-end tests are pinned to into `target/claude-code`
/// (as `.ci/run` does) and returns its `claude` executable.
fn install_claude_code() -> Result<PathBuf, Failure> {
    let root = project_root();
    let pin = root.join("hooks-cli/tests/claude_code/claude-code-version.txt");
    let version = std::fs::read_to_string(&pin)
        .map_err(|error| Failure::Failed(format!("{}: {error}", pin.display())))?;
    let package = format!("@anthropic-ai/claude-code@{}", version.trim());
    eprintln!("==> npm install {package} (for the end-to-end tests)");
    let status = Command::new("npm")
        .args([
            "install",
            "--prefix",
            "target/claude-code",
            "--no-audit",
            "--no-fund",
        ])
        .arg(&package)
        .current_dir(&root)
        .stdout(Stdio::null())
        .status()
        .map_err(|error| Failure::Failed(format!("could not run npm: {error}")))?;
    if !status.success() {
        return Err(Failure::Failed(format!(
            "`npm install {package}` failed ({status})"
        )));
    }
    Ok(root.join("target/claude-code/node_modules/.bin/claude"))
}
