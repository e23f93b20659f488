//! `cargo xtask ci`: the steps of `.ci/run`, so that a developer reproduces CI with one command.

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
        let shown = format!("cargo {}", args.join(" "));
        eprintln!("==> {shown}");
        let status = Command::new(&cargo)
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
