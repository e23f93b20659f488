//! `hooks mcp-proxy --config FILE [--name NAME] [--listen ADDR] (-- <server command...> |
//! --upstream URL)`: the policy in FILE (and every `#[hook]` linked in) on every tool call of an
//! MCP server, for any MCP client. By default the client runs this command where it would run
//! the server and speaks MCP to it on stdio; with `--listen` the client connects over
//! streamable HTTP instead (`http://ADDR/mcp`). The server is a command the proxy starts (on
//! stdio), or with `--upstream` a streamable-HTTP server (see `hooks_mcp::proxy` for what is
//! gated and how).
//!
//! The server's tools are pinned in `.hooks/mcp-pins/` beside FILE (`hooks mcp pins`, `hooks mcp
//! approve`): a tool that changes after its pin is held back until approved.
//!
//! The policy is the file's with the managed and user hooks files over it, decided as the agent
//! adapters decide ([`Policy`]: the same `#[hook]`s, the managed re-check of a rewrite). A policy that cannot be loaded is an error before the server starts: the client
//! sees the server fail to start, and no call goes through unguarded.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use std::sync::Arc;

use hooks_config::Policy;
use hooks_core::state::MemoryState;
use hooks_mcp::proxy::{DEFAULT_MAX_MESSAGE_BYTES, MCP_PATH, McpProxy, Upstream, server_name_of};

use crate::adapter;
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
    /// The server is a streamable-HTTP MCP server at this URL (its MCP endpoint, http:// or
    /// https://) instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    /// Serve the client over streamable HTTP on this address (host:port; the endpoint is
    /// `/mcp`) instead of stdio. Each client session gets a server of its own. Only a loopback
    /// address unless `--allow-remote-clients`.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Let `--listen` take an address other machines reach (no authentication is asked of
    /// the clients: put the proxy behind one that does).
    #[arg(long, requires = "listen")]
    allow_remote_clients: bool,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true, required_unless_present = "upstream", num_args = 1..)]
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
    let stack = load_layers(&args.config).map_err(|error| unloadable(&error))?;
    // The policy the agent adapters decide with: the same layers, `#[hook]`s and re-check.
    let policy: Arc<Policy> = Arc::new(adapter::mount(&stack, None::<MemoryState>)?);
    let upstream = match (&args.upstream, args.command.is_empty()) {
        (Some(url), _) => Upstream::url(url).map_err(|error| error.to_string())?,
        (None, false) => Upstream::Command(args.command.clone()),
        (None, true) => return Err("no MCP server command was given".to_owned()),
    };
    let name = match (args.name, &upstream) {
        (Some(name), _) => name,
        (None, Upstream::Command(command)) => command
            .first()
            .map(|program| server_name_of(program))
            .unwrap_or_default(),
        (None, Upstream::Url(url)) => server_name_of_url(url),
        (None, _) => return Err("no MCP server was given".to_owned()),
    };
    // The server's tools are pinned in the project of the policy file.
    let proxy = McpProxy::builder(policy.registry().clone(), name)
        .decide_with(policy)
        .pins(crate::mcp::store_of(&args.config))
        .call_timeout(Duration::from_secs_f64(args.call_timeout))
        .max_message_bytes(args.max_message_bytes)
        .allow_remote_clients(args.allow_remote_clients)
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    let served = runtime.block_on(async {
        match (args.listen, upstream) {
            (Some(address), upstream) => {
                let listener = tokio::net::TcpListener::bind(&address)
                    .await
                    .map_err(|error| format!("cannot listen on `{address}`: {error}"))?;
                if let Ok(bound) = listener.local_addr() {
                    // The one line a script waits for (the port, when it asked for port 0).
                    eprintln!("hooks mcp-proxy: listening on http://{bound}{MCP_PATH}");
                }
                proxy.serve_http(listener, upstream).await
            }
            (None, Upstream::Url(url)) => {
                proxy
                    .serve_url(hooks_mcp::proxy::stdio::stdio(), &url)
                    .await
            }
            (None, _) => proxy.serve_command(&args.command).await,
        }
        .map_err(|error| error.to_string())
    });
    flush_telemetry();
    served
}

/// The name of the server at `url`, when `--name` does not give one: its host.
fn server_name_of_url(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(bracketed),
        None => host.split(':').next().unwrap_or(host),
    };
    host.to_owned()
}

#[cfg(test)]
mod tests {
    use super::server_name_of_url;

    #[test]
    fn a_server_at_a_url_is_named_by_its_host() {
        assert_eq!(
            server_name_of_url("https://mcp.example.com/mcp"),
            "mcp.example.com"
        );
        assert_eq!(server_name_of_url("http://127.0.0.1:3001/mcp"), "127.0.0.1");
        assert_eq!(server_name_of_url("http://user@[::1]:80/"), "::1");
        assert_eq!(server_name_of_url("http://docs?x=1"), "docs");
    }
}
