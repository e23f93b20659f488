//! The command line of a per-event agent hook (`hooks claude --config FILE` and its siblings),
//! read without clap. An agent runs it at every tool call, and building clap's command tree to
//! parse it was about a tenth of such a process, most of it first touches of clap's pages
//! (BENCHMARKS.md, "An agent's per-event hook"). Only the forms clap reads the same way are
//! taken here; anything else (help, a missing or repeated flag, a value that looks like a flag)
//! goes to clap, which parses or explains it as always.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::adapter::Agent;

/// The agent and the policy file of `args` (the whole command line, the program first) when it
/// is `<agent> --config FILE` or `<agent> --config=FILE`; `None` for anything else.
pub fn agent_invocation(args: &[OsString]) -> Option<(Agent, PathBuf)> {
    let [_program, subcommand, rest @ ..] = args else {
        return None;
    };
    let agent = match subcommand.to_str()? {
        "claude" => Agent::Claude,
        "gemini" => Agent::Gemini,
        "codex" => Agent::Codex,
        "cursor" => Agent::Cursor,
        _ => return None,
    };
    let config = match rest {
        [flag, value] if flag == "--config" => value.clone(),
        [flag_and_value] => flag_and_value
            .to_str()?
            .strip_prefix("--config=")
            .map(OsString::from)?,
        _ => return None,
    };
    // No value, or one clap may read as a flag: clap's to judge.
    if config.is_empty() || config.as_encoded_bytes().starts_with(b"-") {
        return None;
    }
    Some((agent, PathBuf::from(config)))
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::{Cli, Command};

    fn args(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    /// What clap makes of `line`, for an agent subcommand.
    fn by_clap(line: &[OsString]) -> Option<(Agent, PathBuf)> {
        match Cli::try_parse_from(line).ok()?.command {
            Command::Claude { config } => Some((Agent::Claude, config)),
            Command::Gemini { config } => Some((Agent::Gemini, config)),
            Command::Codex { config } => Some((Agent::Codex, config)),
            Command::Cursor { config } => Some((Agent::Cursor, config)),
            _ => None,
        }
    }

    #[test]
    fn the_forms_agents_run_are_read_without_clap_as_clap_reads_them() {
        for agent in ["claude", "gemini", "codex", "cursor"] {
            for line in [
                args(&["hooks", agent, "--config", "hooks.yaml"]),
                args(&["hooks", agent, "--config=hooks.yaml"]),
                args(&["hooks", agent, "--config", "/home/a b/project/hooks.yaml"]),
                args(&["hooks", agent, "--config", "./--config"]),
                args(&["hooks", agent, "--config", "hooks=x.yaml"]),
            ] {
                let fast = agent_invocation(&line);
                assert!(fast.is_some(), "taken: {line:?}");
                assert_eq!(fast, by_clap(&line), "{line:?}");
            }
        }
    }

    #[test]
    fn anything_else_is_left_to_clap() {
        for line in [
            args(&["hooks"]),
            args(&["hooks", "claude"]),
            args(&["hooks", "claude", "--config"]),
            args(&["hooks", "claude", "--config="]),
            args(&["hooks", "claude", "--config", ""]),
            args(&["hooks", "claude", "--config", "-h"]),
            args(&["hooks", "claude", "--config", "--help"]),
            args(&["hooks", "claude", "--config=-x.yaml"]),
            args(&["hooks", "claude", "--help"]),
            args(&[
                "hooks", "claude", "--config", "a.yaml", "--config", "b.yaml",
            ]),
            args(&["hooks", "claude", "--config", "a.yaml", "extra"]),
            args(&["hooks", "claude", "-c", "a.yaml"]),
            args(&["hooks", "claude", "--conf", "a.yaml"]),
            args(&["hooks", "Claude", "--config", "a.yaml"]),
            args(&["hooks", "eval", "--config", "a.yaml"]),
            args(&["hooks", "--config", "a.yaml", "claude"]),
        ] {
            assert_eq!(agent_invocation(&line), None, "{line:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_unicode_is_read_as_clap_reads_it() {
        use std::os::unix::ffi::OsStringExt as _;
        let path = OsString::from_vec(b"caf\xe9.yaml".to_vec());
        let line = vec![
            OsString::from("hooks"),
            OsString::from("claude"),
            OsString::from("--config"),
            path.clone(),
        ];
        assert_eq!(
            agent_invocation(&line),
            Some((Agent::Claude, PathBuf::from(path)))
        );
        assert_eq!(agent_invocation(&line), by_clap(&line));
    }
}
