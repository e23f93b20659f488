//! A tiny MCP server with a `shell` tool, wrapped so that a hook refuses destructive commands
//! and another one adds a note to every result. A client connected over an in-process pipe
//! calls it twice and prints what it gets.
//!
//! Run with `cargo run -p hooks-mcp --example guarded_server`. To serve a real client instead,
//! pass the wrapped server to the transport you already use (e.g. rmcp's stdio transport,
//! feature `transport-io`): `HookedServer::builder(Shell, registry).build().serve(stdio())`.

use hooks_core::{HookRegistry, HookResult};
use hooks_mcp::HookedServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The server: one `shell` tool that pretends to run its `command`.
struct Shell;

impl ServerHandler for Shell {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        config.server_info = Implementation::new("shell-server", "0.1.0");
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let Value::Object(schema) = json!({
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        }) else {
            unreachable!("a JSON object literal")
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "shell",
            "Runs a shell command",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let command = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("command"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let output = format!("(pretending to run `{command}`)");
        Ok(CallToolResult::success(vec![ContentBlock::text(output)]).into())
    }
}

/// Refuses commands that delete recursively.
async fn no_recursive_delete(_event: &str, data: &Value) -> HookResult {
    let command = data["tool_input"]["command"].as_str().unwrap_or_default();
    if command.contains("rm -rf") || command.contains("rm -r ") {
        HookResult::deny(format!(
            "`{command}` deletes recursively; ask a human to do it"
        ))
    } else {
        HookResult::cont()
    }
}

/// Reminds the model where the output came from.
async fn provenance_note(_event: &str, data: &Value) -> HookResult {
    let server = data["mcp_server"].as_str().unwrap_or("an MCP server");
    HookResult::inject(format!("note: this output comes from {server}"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = HookRegistry::new();
    registry.register("tool:pre", no_recursive_delete, 0, "no_recursive_delete")?;
    registry.register("tool:post", provenance_note, 0, "provenance_note")?;

    // The one line of setup: wrap the server, then serve it as before.
    let server = HookedServer::builder(Shell, registry).build();

    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await?;

    for command in ["ls -l", "rm -rf /"] {
        let Value::Object(arguments) = json!({ "command": command }) else {
            unreachable!("a JSON object literal")
        };
        let result = client
            .call_tool(CallToolRequestParams::new("shell").with_arguments(arguments))
            .await?;
        println!("$ {command}  (isError: {:?})", result.is_error);
        for block in &result.content {
            if let Some(text) = block.as_text() {
                println!("  {}", text.text);
            }
        }
    }
    client.cancel().await?;
    Ok(())
}
