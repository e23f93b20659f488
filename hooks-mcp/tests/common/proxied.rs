//! A real rmcp client talking to a server through the proxy, each over its own pipe (as a
//! client and a server process would be).

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient, ServerHandler, ServiceError, ServiceExt};

use hooks_core::HookRegistry;
use hooks_mcp::proxy::{McpProxy, McpProxyBuilder};

/// A client of the proxy, the server behind it, and a way to make the server vanish.
pub struct Proxied<C: ClientHandler, S> {
    pub client: RunningService<RoleClient, C>,
    pub server: S,
    /// The server's task: aborted, its end of the pipe closes, as a crash closes it.
    server_task: tokio::task::JoinHandle<()>,
}

impl<C: ClientHandler, S> Proxied<C, S> {
    /// The server goes away as a crashed process does.
    pub fn crash(&self) {
        self.server_task.abort();
    }

    /// Calls a tool through the proxy; the call must be answered with a result.
    pub async fn call(&self, request: CallToolRequestParams) -> CallToolResult {
        self.client
            .call_tool(request)
            .await
            .expect("the call is answered with a result")
    }

    /// Calls a tool through the proxy; the call must be answered with an error.
    pub async fn call_error(&self, request: CallToolRequestParams) -> ServiceError {
        self.client
            .call_tool(request)
            .await
            .expect_err("the call is answered with an error")
    }
}

/// `server` behind a proxy named `fixture` on `registry` (set up further by `configure`), and
/// a client with `handler` connected to the proxy.
pub async fn proxy_to<S, C>(
    server: S,
    registry: HookRegistry,
    handler: C,
    configure: impl FnOnce(McpProxyBuilder) -> McpProxyBuilder,
) -> Proxied<C, S>
where
    S: ServerHandler + Clone,
    C: ClientHandler,
{
    let (server_io, upstream_io) = tokio::io::duplex(64 * 1024);
    let running = server.clone().serve(server_io);
    let server_task = tokio::spawn(async move {
        if let Ok(running) = running.await {
            let _ = running.waiting().await;
        }
    });
    let proxy = configure(McpProxy::builder(registry, "fixture")).build();
    let (proxy_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = proxy
            .serve(tokio::io::split(proxy_io), tokio::io::split(upstream_io))
            .await;
    });
    let client = handler.serve(client_io).await.expect("the client connects");
    Proxied {
        client,
        server,
        server_task,
    }
}
