//! `hooks mcp-proxy --listen` in front of a real MCP server, `@modelcontextprotocol/server-everything`,
//! driven by an rmcp client over streamable HTTP: the server run per session on stdio
//! (`-- <command>`), and the server's own streamable-HTTP mode (`--upstream URL`).
//!
//! Runs when `HOOKS_E2E_MCP_EVERYTHING` names the server's `mcp-server-everything` executable
//! (`.ci/run` installs it from npm and sets it); skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const SERVER_VAR: &str = "HOOKS_E2E_MCP_EVERYTHING";

/// A secret in the server's environment, of a form the redaction module knows.
const SECRET: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";

const POLICY: &str = r#"modules:
  redaction: {}
hooks:
  PreToolUse:
    - type: matcher
      name: no_forbidden_echo
      match:
        tool: mcp__everything__echo
        args:
          message: "*forbidden*"
      action: block
      message: "that message may not be echoed"
"#;

/// The server's executable, or `None` (having said the test is skipped).
fn server(test: &str) -> Option<PathBuf> {
    match std::env::var_os(SERVER_VAR) {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "{test}: skipped: set {SERVER_VAR} to the `mcp-server-everything` executable of \
                 @modelcontextprotocol/server-everything (.ci/run installs it)"
            );
            None
        }
    }
}

/// `hooks mcp-proxy --listen 127.0.0.1:0` with `upstream` (the arguments naming the server),
/// in `dir`; the proxy's process (killed when dropped) and its URL, from the line it prints.
async fn proxy(dir: &Path, upstream: &[&str]) -> (Child, String) {
    std::fs::write(dir.join("hooks.yaml"), POLICY).unwrap();
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .current_dir(dir)
        .args([
            "mcp-proxy",
            "--config",
            "hooks.yaml",
            "--name",
            "everything",
        ])
        .args(["--call-timeout", "20", "--listen", "127.0.0.1:0"])
        .args(upstream)
        .env("HOOKS_E2E_SECRET", SECRET)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(proxy.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("hooks mcp-proxy: listening on ") {
                return url.to_owned();
            }
        }
        panic!("the proxy ended without listening")
    })
    .await
    .expect("the proxy listens");
    // The rest of its log goes on to this test's, so that its pipe never fills.
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("proxy: {line}");
        }
    });
    (proxy, url)
}

async fn client(url: &str) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(url))
        .await
        .expect("the client connects to the proxy over HTTP")
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The checks both setups pass: an allowed call answered, a denied one answered by the gate
/// (never by the server), a secret of the server's environment masked on its way back.
async fn allowed_denied_and_masked(client: &RunningService<RoleClient, ()>) {
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "echo"), "{tools:?}");

    let allowed = client
        .call_tool(call("echo", json!({"message": "hello"})))
        .await
        .unwrap();
    assert_eq!(text(&allowed), "Echo: hello");

    let denied = client
        .call_tool(call("echo", json!({"message": "a forbidden word"})))
        .await
        .unwrap();
    assert_eq!(denied.is_error, Some(true));
    let said = text(&denied);
    assert!(said.contains("that message may not be echoed"), "{said}");
    assert!(!said.contains("Echo:"), "the server answered: {said}");

    let env = text(&client.call_tool(call("get-env", json!({}))).await.unwrap());
    assert!(env.contains("HOOKS_E2E_SECRET"), "{env}");
    assert!(
        !env.contains(SECRET),
        "the secret reached the client: {env}"
    );
}

#[tokio::test]
async fn an_http_client_through_the_proxy_to_a_stdio_server() {
    let Some(server) = server("an_http_client_through_the_proxy_to_a_stdio_server") else {
        return;
    };
    let dir = hooks_testing::scratch_dir("mcp_proxy_http_everything", "listen_stdio");
    let server = server.to_string_lossy().into_owned();
    let (_proxy, url) = proxy(&dir, &["--", &server, "stdio"]).await;
    let client = client(&url).await;
    allowed_denied_and_masked(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_http_client_through_the_proxy_to_a_streamable_http_server() {
    let Some(server) = server("an_http_client_through_the_proxy_to_a_streamable_http_server")
    else {
        return;
    };
    let dir = hooks_testing::scratch_dir("mcp_proxy_http_everything", "listen_upstream");
    // A port that was just free, for the server (it takes its port from PORT).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _server = Command::new(&server)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .env("HOOKS_E2E_SECRET", SECRET)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let upstream = format!("http://127.0.0.1:{port}/mcp");
    tokio::time::timeout(Duration::from_secs(20), async {
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the server listens");

    let (_proxy, url) = proxy(&dir, &["--upstream", &upstream]).await;
    let client = client(&url).await;
    allowed_denied_and_masked(&client).await;
    client.cancel().await.unwrap();
}
