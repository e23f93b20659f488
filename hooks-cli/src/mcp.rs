//! `hooks mcp ...`: the user's side of the MCP proxy.
//!
//! - `hooks mcp pins [--config FILE] [--json]`: each server's pinned tools, and the changes
//!   held back (a diff of each against its pin).
//! - `hooks mcp approve <server> | --all [--config FILE]`: trusts the held-back definitions.
//! - `hooks mcp wrap` / `hooks mcp unwrap`: see `mcp_wrap`.
//!
//! The pins are the project's: under `.hooks/mcp-pins/` in the directory of the hooks file
//! (`--config`, `hooks.yaml` by default), where `hooks mcp-proxy --config FILE` keeps them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hooks_mcp::proxy::pins::{PinStore, ServerPins};
use serde_json::{Value, json};

use crate::mcp_wrap::{self, WrapArgs};

/// `hooks mcp ...`.
#[derive(Debug, clap::Subcommand)]
pub enum McpCommand {
    /// List each MCP server's pinned tools and the changes held back until approved.
    Pins {
        /// The project's hooks file (its pins are beside it).
        #[arg(long, default_value = "hooks.yaml")]
        config: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Trust the held-back tool definitions of a server (or of every server).
    Approve {
        /// The server, as its tools name it (`mcp__<server>__<tool>`).
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        server: Option<String>,
        /// Every server.
        #[arg(long)]
        all: bool,
        /// The project's hooks file (its pins are beside it).
        #[arg(long, default_value = "hooks.yaml")]
        config: PathBuf,
    },
    /// Make every stdio MCP server of an agent's configuration, and every streamable-HTTP one
    /// given by its URL without headers or credentials, run through `hooks mcp-proxy`.
    Wrap(WrapArgs),
    /// Undo `hooks mcp wrap`.
    Unwrap(WrapArgs),
}

/// Runs a `hooks mcp` command.
pub fn run(command: McpCommand) -> ExitCode {
    let done = match command {
        McpCommand::Pins { config, json } => pins(&config, json),
        McpCommand::Approve {
            server,
            all,
            config,
        } => approve(&config, server.as_deref(), all),
        McpCommand::Wrap(args) => mcp_wrap::run(&args, mcp_wrap::Direction::Wrap),
        McpCommand::Unwrap(args) => mcp_wrap::run(&args, mcp_wrap::Direction::Unwrap),
    };
    match done {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(problem) => {
            eprintln!("hooks mcp: {problem}");
            ExitCode::from(1)
        }
    }
}

/// The project root of a hooks file: its directory.
pub fn project_of(config: &Path) -> PathBuf {
    let absolute = std::path::absolute(config).unwrap_or_else(|_| config.to_path_buf());
    match absolute.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The pins of the project of `config`.
pub fn store_of(config: &Path) -> PinStore {
    PinStore::of_project(&project_of(config))
}

fn pins(config: &Path, as_json: bool) -> Result<String, String> {
    let store = store_of(config);
    let all = store.all().map_err(|error| error.to_string())?;
    if as_json {
        let servers: Vec<Value> = all.iter().map(pins_json).collect();
        let text = serde_json::to_string_pretty(&json!({
            "dir": store.dir().display().to_string(),
            "servers": servers,
        }))
        .map_err(|error| error.to_string())?;
        return Ok(format!("{text}\n"));
    }
    if all.is_empty() {
        return Ok(format!(
            "no MCP server is pinned yet in {} (the proxy pins a server's tools at its first \
             listing)\n",
            store.dir().display()
        ));
    }
    let mut text = String::new();
    for server in &all {
        let _ = writeln!(
            text,
            "{}: {} tool(s) pinned{}",
            server.server,
            server.tools.len(),
            if server.pending.is_empty() {
                String::new()
            } else {
                format!(", {} held back", server.pending.len())
            }
        );
        for (name, pending) in &server.pending {
            let _ = writeln!(text, "  held back: {name}: {}", pending.why);
            text.push_str(&indent(&diff_of(server, name, &pending.definition), "    "));
        }
        if !server.pending.is_empty() {
            let _ = writeln!(text, "  to trust: hooks mcp approve {}", server.server);
        }
    }
    Ok(text)
}

fn pins_json(server: &ServerPins) -> Value {
    let pending: serde_json::Map<String, Value> = server
        .pending
        .iter()
        .map(|(name, pending)| {
            let change = json!({
                "why": pending.why,
                "pinned": server.tools.get(name),
                "now": pending.definition,
                "diff": diff_of(server, name, &pending.definition),
            });
            (name.clone(), change)
        })
        .collect();
    json!({
        "server": server.server,
        "tools": server.tools.keys().collect::<Vec<_>>(),
        "pending": pending,
    })
}

/// The held-back definition of `name` against its pin, as a unified diff of their JSON.
fn diff_of(server: &ServerPins, name: &str, now: &Value) -> String {
    let pretty = |value: Option<&Value>| {
        value
            .and_then(|value| serde_json::to_string_pretty(value).ok())
            .map(|text| text + "\n")
            .unwrap_or_default()
    };
    let old = pretty(server.tools.get(name));
    let new = pretty(Some(now));
    similar::TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header("pinned", "now")
        .to_string()
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|line| format!("{by}{line}\n")).collect()
}

fn approve(config: &Path, server: Option<&str>, all: bool) -> Result<String, String> {
    let store = store_of(config);
    let servers: Vec<String> = match (server, all) {
        (_, true) => store
            .all()
            .map_err(|error| error.to_string())?
            .into_iter()
            .map(|pins| pins.server)
            .collect(),
        (Some(server), false) => {
            if store
                .load(server)
                .map_err(|error| error.to_string())?
                .is_none()
            {
                return Err(format!(
                    "the MCP server `{server}` has no pins in {}",
                    store.dir().display()
                ));
            }
            vec![server.to_owned()]
        }
        (None, false) => return Err("name a server, or give --all".to_owned()),
    };
    let mut text = String::new();
    for server in servers {
        let approved = store.approve(&server).map_err(|error| error.to_string())?;
        if approved.is_empty() {
            let _ = writeln!(text, "{server}: nothing held back");
        } else {
            let _ = writeln!(text, "{server}: approved {}", approved.join(", "));
        }
    }
    Ok(text)
}
