//! OpenTelemetry trace context through the proxy: a call whose `_meta` names a span is traced
//! under it, and the server receives a `traceparent` naming the proxy's span. Exported over
//! OTLP to a receiver and decoded with the official protobuf types.
//!
//! One test in its own binary: the telemetry pipeline is the process's global subscriber.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../hooks-otel/tests/support/mod.rs"]
mod otlp;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hooks_core::HookRegistry;
use hooks_otel::{Telemetry, TelemetryConfig};
use opentelemetry_proto::tonic::trace::v1::Span;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, RequestMetaObject, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Map;

use common::lock;
use common::proxied::proxy_to;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";

/// A server with one tool, `work`, that keeps the `traceparent` each call arrived with.
#[derive(Clone, Default)]
struct TracedServer {
    traceparents: Arc<Mutex<Vec<Option<String>>>>,
}

impl ServerHandler for TracedServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "work",
            "Does some work",
            Map::new(),
        )]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let traceparent = context.meta.get_traceparent().map(str::to_owned);
        lock(&self.traceparents).push(traceparent);
        Ok(CallToolResult::success(vec![ContentBlock::text("done")]).into())
    }
}

fn call_with(traceparent: &str) -> CallToolRequestParams {
    let mut meta = RequestMetaObject::default();
    meta.set_traceparent(traceparent);
    meta.set_tracestate("vendor=opaque");
    let mut request = CallToolRequestParams::new("work");
    request.meta = Some(meta);
    request
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Every span the receiver got so far.
fn exported(receiver: &otlp::Receiver) -> Vec<Span> {
    receiver.spans()
}

#[tokio::test]
async fn a_call_is_traced_under_the_clients_span_and_the_server_is_told_the_proxys() {
    let receiver = otlp::Receiver::start(otlp::Reply::Ok);
    let telemetry = Telemetry::install(&TelemetryConfig {
        endpoint: Some(receiver.endpoint()),
        service_name: Some("mcp-proxy".into()),
        timeout_ms: Some(2000),
    })
    .unwrap();

    let server = TracedServer::default();
    let proxied = proxy_to(server.clone(), HookRegistry::new(), (), |builder| builder).await;
    let traced = format!("00-{TRACE_ID}-{CLIENT_SPAN}-01");
    let result = proxied.call(call_with(&traced)).await;
    assert_eq!(common::texts(&result), ["done"]);
    // Malformed: an id of the wrong length. Ignored, never an error.
    let result = proxied.call(call_with("00-4bf92f35-00f067aa-01")).await;
    assert_eq!(common::texts(&result), ["done"]);

    // The spans end as the answers go out; wait for both calls' to be exported.
    let deadline = Instant::now() + Duration::from_secs(10);
    let calls = loop {
        telemetry.flush();
        let spans = exported(&receiver);
        let calls: Vec<Span> = spans
            .into_iter()
            .filter(|s| s.name == "tools/call work")
            .collect();
        if calls.len() == 2 || Instant::now() > deadline {
            break calls;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(calls.len(), 2, "{calls:#?}");
    let (under_client, fresh): (Vec<&Span>, Vec<&Span>) =
        calls.iter().partition(|s| hex(&s.trace_id) == TRACE_ID);
    let [traced_call] = under_client[..] else {
        panic!("one call in the client's trace: {calls:#?}")
    };
    assert_eq!(hex(&traced_call.parent_span_id), CLIENT_SPAN);
    assert_eq!(traced_call.trace_state, "vendor=opaque");

    // The gate's span of the call is the proxy span's child.
    let spans = exported(&receiver);
    assert!(
        spans.iter().any(|s| s.name.starts_with("execute_tool")
            && s.parent_span_id == traced_call.span_id
            && s.trace_id == traced_call.trace_id),
        "{spans:#?}"
    );

    // The server was told the proxy's span, in the client's trace.
    let told = lock(&server.traceparents).clone();
    assert_eq!(
        told[0].as_deref(),
        Some(&*format!("00-{TRACE_ID}-{}-01", hex(&traced_call.span_id)))
    );

    // The malformed context started a trace of its own, a root span, which the server was told.
    let [fresh_call] = fresh[..] else {
        panic!("one call in a new trace: {calls:#?}")
    };
    assert!(fresh_call.parent_span_id.is_empty(), "{fresh_call:#?}");
    assert_eq!(
        told[1].as_deref(),
        Some(&*format!(
            "00-{}-{}-01",
            hex(&fresh_call.trace_id),
            hex(&fresh_call.span_id)
        ))
    );
}
