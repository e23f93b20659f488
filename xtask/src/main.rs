//! Workspace automation, run as `cargo xtask <task>`.
//!
//! - `ci`: the checks CI runs (format, lints, the demo, the docs, the whole test suite), in
//!   that order, stopping at the first failure.

use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  ci    run the checks CI runs: fmt --check, clippy -D warnings, the demo, docs, the tests";

/// One step of `cargo xtask ci`: cargo's arguments and the environment the step needs.
struct Step {
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

/// The steps of `cargo xtask ci`; the same as `.ci/run`.
const CI_STEPS: &[Step] = &[
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("unknown task `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
        None => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn ci() -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    for Step { args, env } in CI_STEPS {
        let shown = format!("cargo {}", args.join(" "));
        eprintln!("==> {shown}");
        match Command::new(&cargo)
            .args(*args)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .status()
        {
            Ok(status) if status.success() => {}
            Ok(status) => {
                eprintln!(
                    "xtask ci: `{shown}` failed ({status}); fix it and run `cargo xtask ci` again"
                );
                return ExitCode::FAILURE;
            }
            Err(error) => {
                eprintln!("xtask ci: could not run `{shown}`: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
