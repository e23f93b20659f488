//! What `hooks mcp-proxy` adds to a `tools/call` on stdio, in one run, in each protocol era
//! (`handshake`: an `initialize` session; `stateless`: 2026-07-28, client and server both):
//! - `direct`: an rmcp client calls `echo` on a server process over its stdin and stdout;
//! - `proxied`: the same client calls the same server through a proxy process in between,
//!   with the starter modules mounted (safety, redaction, logging to a file), as
//!   `hooks init` writes them;
//! - `pump`: the same client and server with a process between them that only copies bytes
//!   (a thread per direction): what any process on the path costs, the floor of every proxy;
//! - `proxied_bare`: the proxy with no module mounted, its hop alone.
//!
//! The server and the proxy are this benchmark's own executable, started again in another
//! role (`HOOKS_MCP_BENCH_ROLE`): the server is the same code in both cases, and polls its
//! stdin and stdout as the proxy does. With
//! `HOOKS_E2E_MCP_EVERYTHING` naming `mcp-server-everything` (as `.ci/run` installs it), a third
//! pair (`everything/direct`, `everything/proxied`) calls that real server's `echo` the same two
//! ways: the echo above is the worst case for the ratio (it costs nothing but the pipes), a
//! server people run is the usual one. The proxy's added
//! latency is `proxied - direct`; the goal is a median of `proxied` at most 1.2 times
//! `direct`'s. `HOOKS_MCP_BENCH_MODULES` (a comma-separated list) mounts only some of the
//! starter modules, to see what each costs through the proxy.
#![allow(missing_docs, clippy::unwrap_used)]

use std::ffi::OsString;
use std::process::Stdio;
use std::time::Duration;

use criterion::Criterion;
use hooks_core::{HookModule, HookRegistry};
use hooks_mcp::proxy::McpProxy;
use hooks_std::catalog::{ModuleCatalog, ModuleContext};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const ROLE: &str = "HOOKS_MCP_BENCH_ROLE";

/// `server`, `proxy` (the handshake era) or `server-stateless`, `proxy-stateless`.
const STATELESS: &str = "-stateless";

/// The variable naming the starter modules the proxy mounts (`safety,logging`, say); all three
/// when it is not set.
const MODULES: &str = "HOOKS_MCP_BENCH_MODULES";

/// The variable naming the real server's executable.
const EVERYTHING: &str = "HOOKS_E2E_MCP_EVERYTHING";

/// Answers `echo` with its text; `stateless`: speaks only 2026-07-28.
#[derive(Clone)]
struct Echo {
    stateless: bool,
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        if self.stateless {
            vec![ProtocolVersion::V_2026_07_28].into()
        } else {
            ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .filter(|version| version.has_initialize())
                .cloned()
                .collect::<Vec<_>>()
                .into()
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The server role: `Echo` on stdio until stdin closes.
fn serve_echo(stateless: bool) {
    runtime().block_on(async {
        // Polled by the runtime, as the proxy's own are: no thread between the pipe and the
        // server, in the direct case and behind the proxy alike.
        let running = Echo { stateless }
            .serve(hooks_mcp::proxy::stdio::stdio())
            .await
            .unwrap();
        let _ = running.waiting().await;
    });
}

/// The proxy role: the starter modules, in front of this executable in the server role.
fn serve_proxy(stateless: bool, everything: Option<OsString>, modules: bool) {
    let scratch = std::env::temp_dir().join(format!("hooks-mcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let registry = HookRegistry::new();
    let catalog = ModuleCatalog::standard();
    let context = ModuleContext::new(&scratch);
    let starter = [
        ("safety", json!({"workspace": "."})),
        ("redaction", json!({})),
        ("logging", json!({"path": "events.jsonl"})),
    ];
    let mut mounted = Vec::new();
    // Some of them only, to see what each costs through the proxy.
    let chosen = std::env::var(MODULES).ok();
    let chosen = |name: &str| {
        chosen
            .as_deref()
            .is_none_or(|list| list.split(',').any(|chosen| chosen.trim() == name))
    };
    for (name, config) in starter
        .into_iter()
        .filter(|(name, _)| modules && chosen(name))
    {
        let module = catalog.build(name, &config, &context).unwrap();
        mounted.push(module.mount(&registry).unwrap());
    }
    let command: Vec<OsString> = match everything {
        Some(server) => vec![server, "stdio".into()],
        None => vec![
            "env".into(),
            format!("{ROLE}=server{}", if stateless { STATELESS } else { "" }).into(),
            std::env::current_exe().unwrap().into(),
        ],
    };
    let proxy = McpProxy::builder(registry, "bench").build();
    runtime().block_on(proxy.serve_command(&command)).unwrap();
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The pump role: the server in the handshake role behind a process that only copies bytes
/// between the pipes (a thread per direction, the kernel's own copy), which no proxy can beat:
/// what putting any process on the path costs.
fn serve_pump() {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .env(ROLE, "server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_server = child.stdin.take().unwrap();
    let mut from_server = child.stdout.take().unwrap();
    let up = std::thread::spawn(move || std::io::copy(&mut std::io::stdin(), &mut to_server));
    let _ = std::io::copy(&mut from_server, &mut std::io::stdout());
    let _ = up.join();
    let _ = child.wait();
}

/// A client of this executable started in `role`, and the child.
async fn client_of(
    role: &str,
    stateless: bool,
) -> (RunningService<RoleClient, ()>, tokio::process::Child) {
    let mut command = match (role, std::env::var_os(EVERYTHING)) {
        ("everything", Some(server)) => {
            let mut command = tokio::process::Command::new(server);
            command.arg("stdio");
            command
        }
        _ => tokio::process::Command::new(std::env::current_exe().unwrap()),
    };
    let mut child = command
        .env(ROLE, role)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let io = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = if stateless {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        ().serve_with_lifecycle(io, lifecycle).await.unwrap()
    } else {
        ().serve(io).await.unwrap()
    };
    (client, child)
}

/// The `echo` call of a role's server (the real server's argument is `message`).
fn echo(role: &str) -> CallToolRequestParams {
    let arguments = if role.starts_with("everything") {
        json!({"message": "hello"})
    } else {
        json!({"text": "hello"})
    };
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    CallToolRequestParams::new("echo").with_arguments(arguments)
}

fn bench(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("mcp_proxy_stdio");
    group.sample_size(50);
    group.measurement_time(Duration::from_secs(5));
    let mut cases = vec![
        ("handshake/direct", "server"),
        ("handshake/proxied", "proxy"),
        // Any process on the path, doing nothing but copying: the floor of every proxy.
        ("handshake/pump", "pump"),
        // The proxy with no module mounted: what the hop itself costs.
        ("handshake/proxied_bare", "proxy-bare"),
        ("stateless/direct", "server-stateless"),
        ("stateless/proxied", "proxy-stateless"),
    ];
    if std::env::var_os(EVERYTHING).is_some() {
        cases.extend([
            ("everything/direct", "everything"),
            ("everything/proxied", "everything-proxy"),
        ]);
    }
    for (name, role) in cases {
        let stateless = role.ends_with(STATELESS);
        let (client, child) = runtime.block_on(client_of(role, stateless));
        // One call first: the proxy opens the server's session lazily (at `initialize`, or at
        // a stateless client's first request).
        runtime.block_on(client.call_tool(echo(role))).unwrap();
        group.bench_function(name, |b| {
            b.to_async(&runtime)
                .iter(|| async { client.call_tool(echo(role)).await.unwrap() });
        });
        runtime.block_on(client.cancel()).unwrap();
        drop(child);
    }
    group.finish();
}

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("server") => serve_echo(false),
        Ok("server-stateless") => serve_echo(true),
        Ok("proxy") => serve_proxy(false, None, true),
        Ok("pump") => serve_pump(),
        Ok("proxy-bare") => serve_proxy(false, None, false),
        Ok("proxy-stateless") => serve_proxy(true, None, true),
        Ok("everything-proxy") => serve_proxy(false, std::env::var_os(EVERYTHING), true),
        _ => {
            let mut criterion = Criterion::default().configure_from_args();
            bench(&mut criterion);
            criterion.final_summary();
        }
    }
}
