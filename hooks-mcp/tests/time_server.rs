//! The proxy in front of a real server of the 2026-07-28 era: PyPI `mcp-server-time` (on
//! Python `mcp` 2.3, which answers only `server/discover`, never `initialize`), started as a
//! process and driven through the proxy by an rmcp client of each era.
//!
//! Runs when `HOOKS_MCP_TIME_SERVER` names the server's `mcp-server-time` executable (`.ci/run`
//! installs the versions of `time_server/requirements.txt` in a virtualenv under `target/`);
//! skipped with a message otherwise. The server runs offline.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use std::process::Stdio;

use common::{call, texts};
use hooks_core::{HookRegistry, HookResult};
use hooks_mcp::proxy::McpProxy;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const SERVER_VAR: &str = "HOOKS_MCP_TIME_SERVER";

/// A client of the era `stateless` says, through a proxy on `registry`, to a fresh server.
async fn through_proxy(
    server: &str,
    registry: HookRegistry,
    stateless: bool,
) -> (RunningService<RoleClient, ()>, tokio::process::Child) {
    let mut child = tokio::process::Command::new(server)
        .arg("--local-timezone=Etc/UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let upstream = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let proxy = McpProxy::builder(registry, "time").build();
    let (proxy_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = proxy.serve(tokio::io::split(proxy_io), upstream).await;
    });
    let client = if stateless {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        ().serve_with_lifecycle(client_io, lifecycle).await
    } else {
        ().serve(client_io).await
    };
    (
        client.expect("the client connects through the proxy"),
        child,
    )
}

fn deny_conversions(registry: &HookRegistry) {
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let conversion = data["tool_name"] == "mcp__time__convert_time";
                async move {
                    if conversion {
                        HookResult::deny("no time conversions here")
                    } else {
                        HookResult::cont()
                    }
                }
            },
            0,
            "no_conversions",
        )
        .unwrap();
}

#[tokio::test]
async fn a_client_of_each_era_reaches_mcp_server_time_and_the_gate_holds() {
    let Ok(server) = std::env::var(SERVER_VAR) else {
        eprintln!("skipped: {SERVER_VAR} does not name mcp-server-time (see .ci/run)");
        return;
    };
    for stateless in [false, true] {
        let registry = HookRegistry::new();
        deny_conversions(&registry);
        let (client, _child) = through_proxy(&server, registry, stateless).await;
        let era = if stateless { "2026-07-28" } else { "handshake" };

        let info = client.peer_info().unwrap();
        assert_eq!(info.protocol_version.has_initialize(), !stateless, "{era}");
        let name = info.server_info.as_ref().map(|info| info.name.clone());
        assert_eq!(name.as_deref(), Some("mcp-time"), "{era}: {info:?}");

        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<_> = tools.iter().map(|tool| tool.name.to_string()).collect();
        assert!(
            names.contains(&"get_current_time".to_owned()),
            "{era}: {names:?}"
        );

        let now = client
            .call_tool(call("get_current_time", json!({"timezone": "Etc/UTC"})))
            .await
            .unwrap();
        assert_ne!(now.is_error, Some(true), "{era}: {now:?}");
        assert!(texts(&now)[0].contains("Etc/UTC"), "{era}: {now:?}");

        let arguments = json!({"source_timezone": "Etc/UTC", "time": "12:00",
                               "target_timezone": "Asia/Tokyo"});
        let denied = client
            .call_tool(call("convert_time", arguments))
            .await
            .unwrap();
        assert_eq!(denied.is_error, Some(true), "{era}: {denied:?}");
        assert!(texts(&denied)[0].contains("no time conversions"), "{era}");
        client.cancel().await.unwrap();
    }
}
