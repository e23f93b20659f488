//! What the adapter costs per `tools/call`, beside the registry's own emits.
//!
//! The handlers are called directly (no transport), with one request context taken from a
//! real connection. Compared in one run:
//! - `unwrapped`: the server's `call_tool`;
//! - `bare_gate`: `HookSession::run_tool` on a tool that does what the server does, i.e.
//!   the registry's emits and the kernel's gate with no MCP in it;
//! - `wrapped`: the hooked server's `call_tool`.
//!
//! `echo` answers one text block, which the hooks see as a string; `count` adds structured
//! content, which makes the hooks see the result's MCP JSON (the `_json` cases, whose bare
//! gate's tool answers the same JSON).
//!
//! The adapter's own cost is `wrapped - bare_gate` (and `wrapped - unwrapped` is everything
//! the hooks add), each with no handler and with one no-op handler on `tool:pre` and
//! `tool:post`.
//!
//! `starter/<module>` is the hooked server with the modules `hooks init` writes into a hooks
//! file (safety, redaction, logging to a file), each alone and all three: what a policy people
//! run costs per call, which `hooks mcp-proxy` adds on top of its hop.
#![allow(missing_docs, clippy::unwrap_used)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::module::Mounted;
use hooks_core::session::{HookSession, ToolError, tool_fn};
use hooks_core::{HookModule, HookRegistry, HookResult};
use hooks_mcp::{HookedServer, NoHistory, TracingDisplay};
use hooks_std::catalog::{ModuleCatalog, ModuleContext};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, NumberOrString,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
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
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        if request.name == "count" {
            result.structured_content = Some(json!({"count": text.len()}));
        }
        Ok(result.into())
    }
}

/// A request context of a live server connection (rmcp builds peers only for connections).
async fn server_context() -> RequestContext<RoleServer> {
    let (server_io, client_io) = tokio::io::duplex(4096);
    let server = tokio::spawn(async move { Echo.serve(server_io).await.unwrap() });
    let client = ().serve(client_io).await.unwrap();
    let server = server.await.unwrap();
    let context = RequestContext::new(NumberOrString::Number(1), server.peer().clone());
    // Both ends stay alive for the whole run.
    std::mem::forget((client, server));
    context
}

fn registry(handlers: bool) -> HookRegistry {
    let registry = HookRegistry::new();
    if handlers {
        for event in ["tool:pre", "tool:post"] {
            registry
                .register(
                    event,
                    |_: &str, _: &Value| async { HookResult::cont() },
                    0,
                    "noop",
                )
                .unwrap();
        }
    }
    registry
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let context = runtime.block_on(server_context());
    let Value::Object(arguments) = json!({"text": "hello"}) else {
        unreachable!()
    };
    let request = CallToolRequestParams::new("echo").with_arguments(arguments.clone());
    let counting = CallToolRequestParams::new("count").with_arguments(arguments.clone());

    let mut group = c.benchmark_group("mcp_tool_call");
    group.bench_function("unwrapped", |b| {
        b.to_async(&runtime)
            .iter(|| Echo.call_tool(request.clone(), context.clone()));
    });
    for (label, handlers) in [("no_handler", false), ("noop_pre_post", true)] {
        let session = HookSession::builder(registry(handlers))
            .context(Arc::new(NoHistory))
            .display(Arc::new(TracingDisplay))
            .build();
        let tool = tool_fn("echo", |input: Value| async move {
            let text = input["text"].as_str().unwrap_or_default().to_owned();
            Ok::<_, ToolError>(Value::from(text))
        });
        let input = Value::Object(arguments.clone());
        group.bench_function(format!("bare_gate/{label}"), |b| {
            b.to_async(&runtime)
                .iter(|| session.run_tool(&tool, input.clone()));
        });

        let hooked = HookedServer::builder(Echo, registry(handlers))
            .keep_default_fields()
            .build();
        group.bench_function(format!("wrapped/{label}"), |b| {
            b.to_async(&runtime)
                .iter(|| hooked.call_tool(request.clone(), context.clone()));
        });

        // A result with structured content: the hooks see its MCP JSON.
        let counter = tool_fn("count", |input: Value| async move {
            let text = input["text"].as_str().unwrap_or_default();
            Ok::<_, ToolError>(json!({
                "content": [{"type": "text", "text": text}],
                "structuredContent": {"count": text.len()},
                "isError": false,
            }))
        });
        group.bench_function(format!("bare_gate_json/{label}"), |b| {
            b.to_async(&runtime)
                .iter(|| session.run_tool(&counter, input.clone()));
        });
        group.bench_function(format!("wrapped_json/{label}"), |b| {
            b.to_async(&runtime)
                .iter(|| hooked.call_tool(counting.clone(), context.clone()));
        });
    }
    let scratch = std::env::temp_dir().join(format!("hooks-mcp-tool-call-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for modules in [
        &["safety"][..],
        &["redaction"],
        &["logging"],
        &["safety", "redaction", "logging"],
    ] {
        let (registry, _mounted) = starter(&scratch, modules);
        let hooked = HookedServer::builder(Echo, registry)
            .keep_default_fields()
            .build();
        let label = if modules.len() > 1 { "all" } else { modules[0] };
        group.bench_function(format!("starter/{label}"), |b| {
            b.to_async(&runtime)
                .iter(|| hooked.call_tool(request.clone(), context.clone()));
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A registry with `modules` of the starter hooks file mounted (their settings as `hooks init`
/// writes them; the log in `scratch`), and what keeps them mounted.
fn starter(scratch: &std::path::Path, modules: &[&str]) -> (HookRegistry, Vec<Mounted>) {
    let registry = HookRegistry::new();
    let catalog = ModuleCatalog::standard();
    let context = ModuleContext::new(scratch);
    let mounted = modules
        .iter()
        .map(|&name| {
            let config = match name {
                "safety" => json!({"workspace": "."}),
                "logging" => json!({"path": "events.jsonl"}),
                _ => json!({}),
            };
            let module = catalog.build(name, &config, &context).unwrap();
            module.mount(&registry).unwrap()
        })
        .collect();
    (registry, mounted)
}

criterion_group!(benches, bench);
criterion_main!(benches);
