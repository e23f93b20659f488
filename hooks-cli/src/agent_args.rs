//! The command line of a per-event agent hook (`hooks claude --config FILE` and its siblings,
//! one per agent of [`AGENTS`]): its subcommands as clap sees them, built from the list
//! ([`AgentCommand`]), and its one form read without clap ([`agent_invocation`]).
//!
//! Most runs are read without clap. An agent runs it at every tool call, and building clap's command tree to
//! parse it was about a tenth of such a process, most of it first touches of clap's pages
//! (BENCHMARKS.md, "An agent's per-event hook"). Only the forms clap reads the same way are
//! taken here; anything else (help, a missing or repeated flag, a value that looks like a flag)
//! goes to clap, which parses or explains it as always.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{ArgMatches, Command, FromArgMatches, Subcommand};
use hooks_config::interop::{AGENTS, Agent, agent};

/// `hooks <agent> --config FILE`: one subcommand per agent.
#[derive(Clone)]
pub struct AgentCommand {
    /// The agent whose hook this runs as.
    pub agent: &'static dyn Agent,
    /// The policy file.
    pub config: PathBuf,
}

/// The `--config` of an agent subcommand (built only when that subcommand is the one run).
fn config_arg(command: Command) -> Command {
    command.arg(
        clap::Arg::new("config")
            .long("config")
            .required(true)
            .value_name("CONFIG")
            .value_parser(clap::value_parser!(PathBuf))
            .help("The policy: a hooks YAML file (or a Claude Code settings file)"),
    )
}

impl Subcommand for AgentCommand {
    fn augment_subcommands(command: Command) -> Command {
        AGENTS.iter().fold(command, |command, agent| {
            let about = format!(
                "Run as {}'s hook: its hook JSON on stdin, its protocol out",
                agent.profile().display_name
            );
            let mut long_about = format!(
                "{about}.\n\n{}",
                agent
                    .profile()
                    .capabilities
                    .describe(agent.profile().display_name)
            );
            if let Some(limits) = agent.profile().limits {
                long_about.push_str("\nLimits: ");
                long_about.push_str(limits);
            }
            command.subcommand(
                Command::new(agent.name())
                    .about(about)
                    .long_about(long_about)
                    .defer(config_arg),
            )
        })
    }

    fn augment_subcommands_for_update(command: Command) -> Command {
        Self::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        agent(name).is_some()
    }
}

impl FromArgMatches for AgentCommand {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let missing = || clap::Error::new(clap::error::ErrorKind::MissingSubcommand);
        let (name, arguments) = matches.subcommand().ok_or_else(missing)?;
        let agent = agent(name).ok_or_else(missing)?;
        let config = arguments
            .get_one::<PathBuf>("config")
            .cloned()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingRequiredArgument))?;
        Ok(AgentCommand { agent, config })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// An agent named on the command line (`hooks init claude`).
#[derive(Clone, Copy)]
pub struct AgentName(pub &'static dyn Agent);

/// The parser of an agent's name, offering the agents `offered` keeps.
pub fn agent_name(offered: fn(&dyn Agent) -> bool) -> impl TypedValueParser<Value = AgentName> {
    let names = AGENTS.iter().filter(|agent| offered(**agent)).map(|agent| {
        PossibleValue::new(agent.name()).help(format!(
            "{}: {}",
            agent.profile().display_name,
            agent.profile().settings.project
        ))
    });
    PossibleValuesParser::new(names).try_map(|name: String| {
        agent(&name)
            .map(AgentName)
            .ok_or_else(|| format!("no agent is called `{name}`"))
    })
}

/// The agent and the policy file of `args` (the whole command line, the program first) when it
/// is `<agent> --config FILE` or `<agent> --config=FILE`; `None` for anything else.
pub fn agent_invocation(args: &[OsString]) -> Option<(&'static dyn Agent, PathBuf)> {
    let [_program, subcommand, rest @ ..] = args else {
        return None;
    };
    let agent = agent(subcommand.to_str()?)?;
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

    /// The agent's name and the policy file, comparable.
    fn named(invocation: (&'static dyn Agent, PathBuf)) -> (&'static str, PathBuf) {
        (invocation.0.name(), invocation.1)
    }

    /// What the fast path makes of `line`, comparable.
    fn fast(line: &[OsString]) -> Option<(&'static str, PathBuf)> {
        agent_invocation(line).map(named)
    }

    /// What clap makes of `line`, for an agent subcommand.
    fn by_clap(line: &[OsString]) -> Option<(&'static str, PathBuf)> {
        match Cli::try_parse_from(line).ok()?.command {
            Command::Agent(command) => Some((command.agent.name(), command.config)),
            _ => None,
        }
    }

    #[test]
    fn the_forms_agents_run_are_read_without_clap_as_clap_reads_them() {
        let names: Vec<&str> = hooks_config::interop::AGENTS
            .iter()
            .map(|agent| agent.name())
            .collect();
        // Every agent of the rows, none named by hand: one added is read so the day it is.
        assert!(!names.is_empty());
        for agent in names {
            for line in [
                args(&["hooks", agent, "--config", "hooks.yaml"]),
                args(&["hooks", agent, "--config=hooks.yaml"]),
                args(&["hooks", agent, "--config", "/home/a b/project/hooks.yaml"]),
                args(&["hooks", agent, "--config", "./--config"]),
                args(&["hooks", agent, "--config", "hooks=x.yaml"]),
            ] {
                let fast = fast(&line);
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
            assert!(agent_invocation(&line).is_none(), "{line:?}");
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
        assert_eq!(fast(&line), Some(("claude", PathBuf::from(path))));
        assert_eq!(fast(&line), by_clap(&line));
    }
}
