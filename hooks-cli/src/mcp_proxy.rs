//! `hooks mcp-proxy --config FILE [--name NAME] -- <server command...>`: the policy in FILE
//! (and every `#[hook]` linked in) on every tool call of an MCP server, for any MCP client.
//! The client runs this command where it would run the server; the proxy starts the server
//! and speaks MCP to both over stdio (see `hooks_mcp::proxy` for what is gated and how).
//!
//! The server's tools are pinned in `.hooks/mcp-pins/` beside FILE (`hooks mcp pins`, `hooks mcp
//! approve`): a tool that changes after its pin is held back until approved.
//!
//! The policy is the file's with the managed and user hooks files over it, as for the agent
//! adapters. A policy that cannot be loaded is an error before the server starts: the client
//! sees the server fail to start, and no call goes through unguarded.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use hooks_core::HookRegistry;
use hooks_core::module::{HookModule, Mounted};
use hooks_mcp::proxy::{DEFAULT_MAX_MESSAGE_BYTES, McpProxy, server_name_of};

use crate::modules::{flush_telemetry, load_layers, unloadable};

/// The arguments of `hooks mcp-proxy`.
#[derive(Debug, clap::Args)]
pub struct McpProxyArgs {
    /// The policy: a hooks YAML file (or a Claude Code settings file).
    #[arg(long)]
    config: PathBuf,
    /// The server's name in the tool names the hooks see, `mcp__<name>__<tool>` (default: the
    /// command's file name).
    #[arg(long)]
    name: Option<String>,
    /// Seconds a forwarded request may take before the client gets an error.
    #[arg(long, default_value_t = 30.0, value_parser = positive_seconds)]
    call_timeout: f64,
    /// The largest message accepted from the client or the server, in bytes; a larger one is
    /// dropped, never forwarded.
    #[arg(long, default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true, required = true, num_args = 1..)]
    command: Vec<OsString>,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(seconds),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// Runs the proxy until the client closes its side.
pub fn run(args: McpProxyArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("hooks mcp-proxy: {problem}");
            ExitCode::from(1)
        }
    }
}

fn serve(args: McpProxyArgs) -> Result<(), String> {
    let policy = load_layers(&args.config).map_err(|error| unloadable(&error))?;
    // The policy layers, and every #[hook] linked into this binary, as for the agent adapters.
    let registry = HookRegistry::new();
    registry
        .register_annotated(|_| true)
        .map_err(|error| error.to_string())?;
    let _mounted: Mounted = policy.mount(&registry).map_err(|error| error.to_string())?;
    let name = match (args.name, args.command.first()) {
        (Some(name), _) => name,
        (None, Some(program)) => server_name_of(program),
        (None, None) => return Err("no MCP server command was given".to_owned()),
    };
    // The server's tools are pinned in the project of the policy file.
    let proxy = McpProxy::builder(registry, name)
        .pins(crate::mcp::store_of(&args.config))
        .call_timeout(Duration::from_secs_f64(args.call_timeout))
        .max_message_bytes(args.max_message_bytes)
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    let served = runtime.block_on(proxy.serve_command(&args.command));
    flush_telemetry();
    served.map_err(|error| error.to_string())
}
