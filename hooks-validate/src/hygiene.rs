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

    /// Runs the step in `root`; its output, in the finding, without colour.
    pub fn check(&self, root: &Path) -> Finding {
        self.check_with_colour(root, false)
    }

    /// Runs the step in `root`; its output keeps colour only if `colour` (for a report shown
    /// on a terminal, see [`hooks_std::terminal::colour_for`]).
    pub fn check_with_colour(&self, root: &Path, colour: bool) -> Finding {
        // The cargo that runs us, when there is one, so that the toolchain is the same.
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut command = Command::new(cargo);
        // The output is captured, so the commands see no terminal: cargo is told what the
        // report's reader has, and tools that colour whatever their output is (trybuild) are
        // asked not to; the codes they print all the same are removed below.
        if colour {
            command.env("CARGO_TERM_COLOR", "always");
        } else {
            command
                .env("CARGO_TERM_COLOR", "never")
                .env("NO_COLOR", "1");
        }
        let output = command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(root)
            .output();
        match output {
            Ok(output) if output.status.success() => {
                Finding::pass(Part::Hygiene, self.shown(), "succeeds")
            }
            Ok(output) => {
                let mut text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                if !colour {
                    text = without_escapes(&text);
                }
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

/// `text` without terminal escape sequences: colours and cursor moves (`ESC [ ... letter`),
/// titles and links (`ESC ] ... BEL` or `ESC ] ... ESC \\`), and two-byte escapes.
fn without_escapes(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            plain.push(c);
            continue;
        }
        match chars.next() {
            // Parameters and intermediates, up to the final byte (`@` to `~`).
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_removed_and_text_kept() {
        assert_eq!(
            without_escapes(
                "\x1b[1m\x1b[31merror\x1b[0m: no\x1b[2K such \x1b]8;;http://x\x1b\\link\x1b]8;;\x07 \x1bMcommand"
            ),
            "error: no such link command"
        );
        assert_eq!(without_escapes("plain ✓ text\n"), "plain ✓ text\n");
        assert_eq!(without_escapes("cut \x1b["), "cut ");
    }

    #[test]
    fn a_failing_commands_colour_is_kept_only_when_asked_for() {
        // cargo colours its error when told to, whatever its output is.
        let step = HygieneStep::cargo(["--color", "always", "no-such-subcommand-anywhere"]);

        let plain = step.check(Path::new("."));
        let coloured = step.check_with_colour(Path::new("."), true);

        let has_escape = |finding: &Finding| finding.details.iter().any(|l| l.contains('\x1b'));
        assert!(!plain.passed);
        assert!(!has_escape(&plain), "{plain:?}");
        assert!(
            plain
                .details
                .iter()
                .any(|l| l.contains("no-such-subcommand-anywhere")),
            "{plain:?}"
        );
        assert!(
            has_escape(&coloured),
            "the test's command colours: {coloured:?}"
        );
    }

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
