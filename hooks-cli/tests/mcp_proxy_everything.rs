//! `hooks mcp-proxy` in front of a real MCP server, `@modelcontextprotocol/server-everything`,
//! driven by an rmcp client over the proxy's stdio, as an agent would run it.
//!
//! Runs when `HOOKS_E2E_MCP_EVERYTHING` names the server's `mcp-server-everything` executable
//! (`.ci/run` installs it from npm and sets it); skipped, saying so, otherwise.

#![allow(clippy::unwrap_used)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const SERVER_VAR: &str = "HOOKS_E2E_MCP_EVERYTHING";

/// A secret in the server's environment, of a form the redaction module knows.
const SECRET: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";

const POLICY: &str = r#"modules:
  redaction:
    events: [tool:pre]
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

/// A client of `hooks mcp-proxy` in front of `server`, in `dir` (which gets the policy, and
/// the server's process id in `server.pid`).
async fn connect(dir: &Path, server: &Path) -> RunningService<RoleClient, ()> {
    std::fs::write(dir.join("hooks.yaml"), POLICY).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .current_dir(dir)
        .args([
            "mcp-proxy",
            "--config",
            "hooks.yaml",
            "--name",
            "everything",
        ])
        .args(["--call-timeout", "20", "--", "sh", "-c"])
        .arg(r#"echo $$ > server.pid; exec "$0" stdio"#)
        .arg(server)
        .env("HOOKS_E2E_SECRET", SECRET);
    let transport = TokioChildProcess::new(command).unwrap();
    ().serve(transport).await.expect("the proxy serves")
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

fn scratch(test: &str) -> PathBuf {
    hooks_testing::scratch_dir("mcp_proxy_everything", test)
}

#[tokio::test]
async fn an_allowed_call_reaches_the_server_and_a_denied_one_does_not() {
    let Some(server) = server("an_allowed_call_reaches_the_server_and_a_denied_one_does_not")
    else {
        return;
    };
    let dir = scratch("allow_deny");
    let client = connect(&dir, &server).await;

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "echo"), "{tools:?}");
    let info = client.peer_info().unwrap();
    assert!(
        info.server_info
            .as_ref()
            .is_some_and(|info| info.name.contains("everything")),
        "{info:?}"
    );

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
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn secrets_are_masked_in_results_and_in_arguments_going_to_the_server() {
    let Some(server) = server("secrets_are_masked_in_results_and_in_arguments_going_to_the_server")
    else {
        return;
    };
    let dir = scratch("redaction");
    let client = connect(&dir, &server).await;

    let env = client.call_tool(call("get-env", json!({}))).await.unwrap();
    let env = text(&env);
    assert!(env.contains("HOOKS_E2E_SECRET"), "{env}");
    assert!(
        !env.contains(SECRET),
        "the secret reached the client: {env}"
    );
    assert!(env.contains("[REDACTED:"), "{env}");

    // The server echoes what it received: the argument was masked on its way there.
    let echoed = client
        .call_tool(call("echo", json!({"message": format!("key {SECRET}")})))
        .await
        .unwrap();
    let echoed = text(&echoed);
    assert!(echoed.starts_with("Echo: key [REDACTED:"), "{echoed}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_killed_mid_call_is_an_error_for_the_client() {
    let Some(server) = server("a_server_killed_mid_call_is_an_error_for_the_client") else {
        return;
    };
    let dir = scratch("crash");
    let client = connect(&dir, &server).await;
    // The server is up once it has answered.
    client.list_all_tools().await.unwrap();

    let peer = client.peer().clone();
    let pending = tokio::spawn(async move {
        peer.call_tool(call(
            "trigger-long-running-operation",
            json!({"duration": 15, "steps": 5}),
        ))
        .await
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = std::fs::read_to_string(dir.join("server.pid")).unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());

    let answer = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .expect("the client is answered well before the deadline")
        .unwrap();
    let error = answer.unwrap_err().to_string();
    assert!(error.contains("closed its connection"), "{error}");
    client.cancel().await.unwrap();
}
