//! A small MCP server, and a real rmcp client connected to it over an in-process pipe.
#![allow(dead_code)]

pub mod proxied;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use hooks_core::{HookRegistry, HookResult};
use hooks_mcp::HookedServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InputRequiredResult, ListPromptsResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, Prompt, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

/// Tools: `echo` (answers its `text` argument), `structured` (text and structured content),
/// `confirm` (input required first, then a result), `fail` (an `isError` result), `broken` (a
/// protocol error), `hang` (never answers, and counts the calls its client cancelled),
/// `progress` (reports progress twice under the call's token, then answers). Counts the calls
/// that reach it and keeps the arguments of the last one.
#[derive(Clone, Default)]
pub struct TestServer {
    pub calls: Arc<AtomicUsize>,
    pub last_arguments: Arc<Mutex<Option<Map<String, Value>>>>,
    pub cancelled: Arc<AtomicUsize>,
}

impl TestServer {
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// How many `hang` calls were cancelled by their client.
    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }

    pub fn last_arguments(&self) -> Option<Map<String, Value>> {
        lock(&self.last_arguments).clone()
    }

    pub fn tools() -> Vec<Tool> {
        let schema = |properties: Value| match json!({"type": "object", "properties": properties}) {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        vec![
            Tool::new(
                "echo",
                "Answers its text",
                schema(json!({"text": {"type": "string"}})),
            ),
            Tool::new(
                "structured",
                "Counts, with structured output",
                schema(json!({})),
            ),
            Tool::new("confirm", "Asks the client first", schema(json!({}))),
            Tool::new("fail", "Always fails", schema(json!({}))),
            Tool::new("broken", "Answers a protocol error", schema(json!({}))),
            Tool::new("hang", "Never answers", schema(json!({}))),
            Tool::new("progress", "Reports progress", schema(json!({}))),
        ]
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        );
        config.server_info = Implementation::new("test-server", "1.2.3");
        config.instructions = Some("a server for the hooks-mcp tests".to_owned());
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(TestServer::tools()))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greeting",
            Some("Says hello"),
            None,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        *lock(&self.last_arguments) = request.arguments.clone();
        let result = match &*request.name {
            "echo" => {
                let text = request
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            "structured" => {
                let mut result = CallToolResult::success(vec![ContentBlock::text("42 items")]);
                result.structured_content = Some(json!({"count": 42}));
                result
            }
            "confirm" if request.request_state.is_none() => {
                return Ok(InputRequiredResult::from_request_state("pending").into());
            }
            "confirm" => CallToolResult::success(vec![ContentBlock::text("confirmed")]),
            "fail" => CallToolResult::error(vec![ContentBlock::text("disk full")]),
            "broken" => return Err(McpError::internal_error("the backend is down", None)),
            "hang" => {
                context.ct.cancelled().await;
                self.cancelled.fetch_add(1, Ordering::SeqCst);
                // Still no answer: a server that goes away mid-call must not answer it.
                std::future::pending().await
            }
            "progress" => {
                let token = context.meta.get_progress_token();
                for step in [1.0, 2.0] {
                    if let Some(token) = &token {
                        let progress = ProgressNotificationParam::new(token.clone(), step);
                        let _ = context.peer.notify_progress(progress).await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
            other => {
                return Err(McpError::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

/// A client connected to `server` over a tokio duplex pipe.
pub async fn connect<S: ServerHandler>(server: S) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("the client connects")
}

/// A hooked [`TestServer`] on `registry` (default options), with the client and the server.
pub async fn hooked(registry: HookRegistry) -> (RunningService<RoleClient, ()>, TestServer) {
    let inner = TestServer::default();
    let server = HookedServer::builder(inner.clone(), registry).build();
    (connect(server).await, inner)
}

/// A call of `name` with `arguments`.
pub fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

/// The texts of a result's content, in order.
pub fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|block| block.as_text().expect("text content").text.clone())
        .collect()
}

/// Every event a registry emits, with its data, as recorded by [`record`].
pub type Log = Arc<Mutex<Vec<(String, Value)>>>;

/// Registers a recorder of `event` on `registry` (priority last).
pub fn record(registry: &HookRegistry, event: &str, log: &Log) {
    let log = Arc::clone(log);
    registry
        .register(
            event,
            move |event: &str, data: &Value| {
                lock(&log).push((event.to_owned(), data.clone()));
                async { HookResult::cont() }
            },
            i32::MAX,
            "recorder",
        )
        .unwrap();
}

/// `mutex` locked, whether or not a thread panicked while holding it: a panic in a handler or
/// a tool then fails its own test instead of every later lock with a `PoisonError`.
pub use hooks_core::sync::lock;
