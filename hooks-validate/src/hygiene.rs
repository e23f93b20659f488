//! The hygiene part: commands that must succeed in the workspace (`cargo fmt --check`,
//! `cargo clippy -D warnings`, a project's UI tests).

use std::path::Path;
use std::process::Command;

use crate::report::{Finding, Part};

/// How many lines of a failed command's output the report keeps.
const OUTPUT_LINES: usize = 20;

/// One cargo command of the hygiene part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HygieneStep {
    /// cargo's arguments.
    pub args: Vec<String>,
    /// Environment variables the command needs.
    pub env: Vec<(String, String)>,
}

impl HygieneStep {
    /// `cargo ARGS...`.
    pub fn cargo<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        HygieneStep {
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
        }
    }

    /// The same with an environment variable set.
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// `cargo fmt --all -- --check`.
    pub fn fmt() -> Self {
        HygieneStep::cargo(["fmt", "--all", "--", "--check"])
    }

    /// `cargo clippy --workspace --all-targets -- -D warnings`.
    pub fn clippy() -> Self {
        HygieneStep::cargo([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])
    }

    /// The command as a user would type it.
    pub fn shown(&self) -> String {
        format!("cargo {}", self.args.join(" "))
    }

    /// Runs the step in `root`.
    pub fn check(&self, root: &Path) -> Finding {
        // The cargo that runs us, when there is one, so that the toolchain is the same.
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let output = Command::new(cargo)
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(root)
            .output();
        match output {
            Ok(output) if output.status.success() => {
                Finding::pass(Part::Hygiene, self.shown(), "succeeds")
            }
            Ok(output) => {
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                let tail = lines[lines.len().saturating_sub(OUTPUT_LINES)..]
                    .iter()
                    .map(|line| (*line).to_owned())
                    .collect();
                Finding::fail(
                    Part::Hygiene,
                    self.shown(),
                    format!("fails ({}); run it to see everything", output.status),
                )
                .with_details(tail)
            }
            Err(error) => Finding::fail(
                Part::Hygiene,
                self.shown(),
                format!("cannot be run: {error}"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_command_fails_with_its_output() {
        let finding = HygieneStep::cargo(["no-such-subcommand-anywhere"]).check(Path::new("."));
        assert!(!finding.passed);
        assert_eq!(finding.subject, "cargo no-such-subcommand-anywhere");
        assert!(
            finding
                .details
                .iter()
                .any(|l| l.contains("no-such-subcommand-anywhere")),
            "{finding:?}"
        );
    }

    #[test]
    fn a_succeeding_command_passes() {
        assert!(
            HygieneStep::cargo(["--version"])
                .check(Path::new("."))
                .passed
        );
    }
}
