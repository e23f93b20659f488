//! The binary's facts against its command line and its agents, and the guard they make: every
//! subcommand marked, every agent's settings refused to every tool that writes, and the
//! product's files, processes and subcommands kept as before (`guard_files`, `resident`,
//! `self_admin`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod guard_files;
mod resident;
mod self_admin;

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use hooks_config::interop::{AGENTS, Agent, Layout};
use hooks_config::{LayerPaths, PolicyStack};
use hooks_core::{HookAction, HookModule, HookRegistry};
use hooks_std::safety::{Guard, SafetyConfig, SelfProtection};
use serde_json::json;

use super::{BINARY, SUBCOMMANDS, Setup};

/// The workspace the guard of these tests checks commands in.
const WORKSPACE: &str = "/srv/project";

/// What the binary's `safety` modules keep from the agent: the loader's and the catalog's.
fn product_protection() -> SelfProtection {
    let mut protection = hooks_config::protection::self_protection();
    protection.extend(crate::modules::catalog().protection().clone());
    protection
}

/// The binary's guard over `/srv/project`, with `/home/dev` for a home and `packs` on.
fn guard_with(packs: &[&str]) -> Guard {
    let config = SafetyConfig {
        workspace: Some(WORKSPACE.into()),
        home: Some("/home/dev".into()),
        packs: packs.iter().map(|pack| (*pack).to_owned()).collect(),
        ..SafetyConfig::default()
    };
    Guard::new(config, &product_protection()).expect("the test's configuration is valid")
}

/// The denial of `line` with `packs` on, as its rule id and its whole message.
fn denial(packs: &[&str], line: &str) -> Option<(String, String)> {
    guard_with(packs)
        .check(line, Path::new(WORKSPACE))
        .map(|denial| (denial.id(), denial.to_string()))
}

/// Every subcommand of `command`, by its words, that has none of its own, and the `clap`
/// command it is; `help` (clap's) left out.
fn leaves(command: &clap::Command, above: &[String]) -> Vec<(Vec<String>, clap::Command)> {
    let mut found = Vec::new();
    for sub in command.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let mut path = above.to_vec();
        path.push(sub.get_name().to_owned());
        if sub.has_subcommands() {
            found.extend(leaves(sub, &path));
        } else {
            found.push((path, sub.clone()));
        }
    }
    found
}

/// The mark of the subcommand `path`: its row, or an agent's, which answers that agent's hooks.
fn mark(path: &[String]) -> Option<Setup> {
    let words = path.join(" ");
    SUBCOMMANDS
        .iter()
        .find(|(marked, _)| *marked == words)
        .map(|(_, setup)| *setup)
        .or_else(|| {
            (path.len() == 1 && AGENTS.iter().any(|agent| agent.name() == path[0]))
                .then_some(Setup::Reads)
        })
}

/// The command line with every subcommand's arguments built (they are deferred until run).
fn cli() -> clap::Command {
    let mut cli = crate::Cli::command();
    cli.build();
    cli
}

#[test]
fn every_subcommand_says_whether_it_changes_the_guards_setup() {
    let cli = cli();
    assert_eq!(cli.get_name(), BINARY);
    let unmarked: Vec<String> = leaves(&cli, &[])
        .into_iter()
        .filter(|(path, _)| mark(path).is_none())
        .map(|(path, _)| path.join(" "))
        .collect();
    assert!(
        unmarked.is_empty(),
        "mark these in protection::SUBCOMMANDS, as reading the setup or writing it: {unmarked:?}"
    );
}

#[test]
fn the_options_the_marks_name_are_the_subcommands_own() {
    let cli = cli();
    let built = leaves(&cli, &[]);
    for (marked, setup) in SUBCOMMANDS {
        let Some((_, command)) = built.iter().find(|(path, _)| path.join(" ") == *marked) else {
            // Not in this build: its feature is off.
            continue;
        };
        let Setup::Writes {
            when_any,
            unless_any,
        } = setup
        else {
            continue;
        };
        for option in when_any.iter().chain(unless_any.iter()) {
            let known = command.get_arguments().any(|arg| {
                let long = arg.get_long().map(|long| format!("--{long}"));
                let short = arg.get_short().map(|short| format!("-{short}"));
                long.as_deref() == Some(option) || short.as_deref() == Some(option)
            });
            assert!(known, "`{BINARY} {marked}` has no option {option}");
        }
    }
}

#[cfg(all(feature = "mcp", feature = "serve"))]
#[test]
fn every_mark_names_a_subcommand_of_the_full_build() {
    let built: Vec<String> = leaves(&cli(), &[])
        .into_iter()
        .map(|(path, _)| path.join(" "))
        .collect();
    for (marked, _) in SUBCOMMANDS {
        assert!(built.iter().any(|path| path == marked), "{marked}");
    }
}

#[test]
fn what_changes_the_setup_is_refused_and_what_reads_passes() {
    for (marked, setup) in SUBCOMMANDS {
        let line = format!("{BINARY} {marked}");
        match setup {
            Setup::Reads => assert_eq!(denial(&["default"], &line), None, "{line}"),
            Setup::Writes {
                when_any,
                unless_any,
            } => {
                let writing = match when_any.first() {
                    Some(option) => format!("{line} {option} x"),
                    None => line.clone(),
                };
                let refused = denial(&[], &writing).map(|(id, _)| id);
                assert_eq!(refused.as_deref(), Some("guard:self-admin"), "{writing}");
                if !when_any.is_empty() {
                    assert_eq!(denial(&[], &line), None, "{line}");
                }
                for option in *unless_any {
                    let printing = format!("{writing} {option}");
                    assert_eq!(denial(&[], &printing), None, "{printing}");
                }
            }
        }
    }
}

/// A project with the starter hooks file `hooks init` writes, loaded as the agents' adapters
/// load it (the binary's catalog), mounted on a registry.
struct Starter {
    dir: PathBuf,
    registry: HookRegistry,
    _stack: hooks_core::module::Mounted,
}

impl Starter {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("hooks-protection-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("hooks.yaml");
        std::fs::write(&file, crate::init::STARTER).unwrap();
        let stack = PolicyStack::load(&LayerPaths::none(), &file, &crate::modules::catalog())
            .unwrap_or_else(|error| panic!("{error}"));
        let registry = HookRegistry::new();
        let mounted = stack.mount(&registry).unwrap();
        Starter {
            dir,
            registry,
            _stack: mounted,
        }
    }

    /// Whether the call of `tool` with `input` is denied, with the reason.
    async fn denies(&self, tool: &str, input: serde_json::Value) -> (bool, String) {
        let data = json!({"tool_name": tool, "tool_input": input, "cwd": self.dir});
        let result = self.registry.emit("tool:pre", data).await;
        (
            result.action() == HookAction::Deny,
            result.result.reason.clone().unwrap_or_default(),
        )
    }
}

impl Drop for Starter {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The files of `agent`'s hook settings, in the project `dir` and the home directory `home`:
/// the settings files, or for a folder of executables one event's file in it.
fn settings_files(agent: &dyn Agent, dir: &Path, home: &Path) -> Vec<PathBuf> {
    let settings = agent.profile().settings;
    [dir.join(settings.project), home.join(settings.user)]
        .into_iter()
        .map(|file| match settings.layout {
            Layout::Executables(_) => file.join(settings.init_events[0]),
            _ => file,
        })
        .collect()
}

#[tokio::test]
async fn every_agents_settings_are_refused_to_every_tool_that_writes() {
    let starter = Starter::new();
    // A home directory of its own, outside the project and the system's directories (the
    // settings' globs match wherever the home is).
    let home = starter.dir.with_extension("home");
    let mut passed = Vec::new();
    for agent in AGENTS {
        for file in settings_files(*agent, &starter.dir, &home) {
            let path = file.display().to_string();
            let calls = [
                ("Write", json!({"file_path": path, "content": "{}"})),
                (
                    "Edit",
                    json!({"file_path": path, "old_string": "hooks", "new_string": "true"}),
                ),
                ("Bash", json!({"command": format!("echo x > '{path}'")})),
            ];
            for (tool, input) in calls {
                let (denied, reason) = starter.denies(tool, input).await;
                if !(denied && reason.starts_with("[guard:guard-file]")) {
                    passed.push(format!("{} {tool} {path}: {reason}", agent.name()));
                }
            }
        }
    }
    assert!(
        passed.is_empty(),
        "agents' settings the starter's guard lets a tool change: {passed:#?}"
    );
}

#[test]
fn the_servers_port_is_its_addresss() {
    let listen: std::net::SocketAddr = super::SERVE_LISTEN.parse().unwrap();
    assert_eq!(listen.port(), super::SERVE_PORT);
}

#[cfg(feature = "serve")]
#[test]
fn stopping_the_servers_service_or_freeing_its_port_is_refused() {
    let port = crate::serve::DEFAULT_LISTEN.rsplit(':').next().unwrap();
    for line in [
        format!("systemctl --user stop {}", crate::serve::service::UNIT),
        format!("launchctl bootout gui/501/{}", crate::serve::service::LABEL),
        format!("fuser -k {port}/tcp"),
    ] {
        let refused = denial(&[], &line).map(|(id, _)| id);
        assert_eq!(refused.as_deref(), Some("guard:stop-guard"), "{line}");
    }
}

#[cfg(feature = "mcp")]
#[test]
fn the_pins_and_every_configuration_mcp_wrap_rewrites_are_write_protected() {
    assert_eq!(super::PINS_DIR, hooks_mcp::proxy::pins::PROJECT_PINS_DIR);
    let guard = guard_with(&["default"]);
    let pin = format!("{}/everything.json", super::PINS_DIR);
    for file in crate::mcp_wrap::FILES
        .iter()
        .map(|(file, _)| *file)
        .chain([pin.as_str()])
    {
        let written = guard.check_tool_call("Write", &json!({"file_path": file}));
        assert_eq!(
            written.map(|denial| denial.id()).as_deref(),
            Some("guard:guard-file"),
            "{file}"
        );
    }
}
