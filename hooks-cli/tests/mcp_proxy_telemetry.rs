//! `hooks mcp-proxy` with a hooks file mounting `telemetry`: a call whose `_meta` carries a
//! W3C `traceparent` is exported as a span of that trace, under the client's span, and the
//! server (a small Python one that records what each call carried) is told the proxy's span.
//! The spans are exported over OTLP to a receiver and decoded with the official protobuf types.
//!
//! Needs `python3` for the server; skipped, saying so, without it.

#![allow(clippy::unwrap_used)]

#[path = "../../hooks-otel/tests/support/mod.rs"]
mod otlp;

use std::io::Write as _;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, RequestMetaObject};
use rmcp::transport::TokioChildProcess;

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN: &str = "b7ad6b7169203331";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn python() -> bool {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        let _ = writeln!(
            std::io::stderr(),
            "mcp_proxy_telemetry: skipped: no python3 to run the recording MCP server"
        );
    }
    found
}

#[tokio::test]
async fn a_call_is_traced_under_the_clients_traceparent_and_the_server_is_told_the_proxys_span() {
    if !python() {
        return;
    }
    let receiver = otlp::Receiver::start(otlp::Reply::Ok);
    let dir = hooks_testing::scratch_dir("mcp_proxy_telemetry", "traceparent");
    std::fs::write(
        dir.join("hooks.yaml"),
        format!(
            "modules:\n  telemetry: {{endpoint: \"{}\", service_name: \"mcp-proxy\", timeout_ms: 2000}}\n",
            receiver.endpoint()
        ),
    )
    .unwrap();
    let recorder = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/claude_code/mcp_recorder.py"
    );
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .current_dir(&dir)
        .args(["mcp-proxy", "--config", "hooks.yaml", "--name", "recorder"])
        .args(["--", "python3", recorder, "recorded.txt", "traces.txt"]);
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    let mut meta = RequestMetaObject::default();
    meta.set_traceparent(format!("00-{TRACE_ID}-{CLIENT_SPAN}-01"));
    let mut request = CallToolRequestParams::new("record").with_arguments(
        serde_json::json!({"text": "hello"})
            .as_object()
            .cloned()
            .unwrap(),
    );
    request.meta = Some(meta);
    let result = client.call_tool(request).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    // The proxy exports what is left as it exits, when its client is gone.
    let _ = client.cancel().await;

    let deadline = Instant::now() + Duration::from_secs(15);
    let call = loop {
        let spans = receiver.spans();
        if let Some(call) = spans.iter().find(|s| s.name == "tools/call record") {
            break call.clone();
        }
        assert!(Instant::now() < deadline, "no span of the call: {spans:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(hex(&call.trace_id), TRACE_ID);
    assert_eq!(hex(&call.parent_span_id), CLIENT_SPAN);
    let told = std::fs::read_to_string(dir.join("traces.txt")).unwrap();
    assert_eq!(
        told.trim(),
        format!("00-{TRACE_ID}-{}-01", hex(&call.span_id))
    );
}
