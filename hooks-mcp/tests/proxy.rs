//! The proxy between a real rmcp client and the test server, each over its own pipe (as a
//! client and a server process would be): what passes, what is gated, and what each failure
//! tells the client.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::proxied::proxy_to;
use common::{Log, TestServer, call, record, texts};
use hooks_core::{HookRegistry, HookResult};
use hooks_mcp::proxy::{McpProxy, McpProxyBuilder};
use rmcp::model::{
    CallToolRequest, ClientConfig, ClientRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, ProgressNotificationParam, ProgressToken,
    ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};

type Proxied<C = ()> = common::proxied::Proxied<C, TestServer>;

async fn proxied(registry: HookRegistry) -> Proxied {
    proxied_with(registry, (), |builder| builder).await
}

async fn proxied_with<C: ClientHandler>(
    registry: HookRegistry,
    handler: C,
    configure: impl FnOnce(McpProxyBuilder) -> McpProxyBuilder,
) -> Proxied<C> {
    proxy_to(TestServer::default(), registry, handler, configure).await
}

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn deny_text_with(word: &'static str, registry: &HookRegistry) {
    registry
        .register(
            "tool:pre",
            move |_: &str, data: &Value| {
                let bad = data["tool_name"] == "mcp__fixture__echo"
                    && data["tool_input"]["text"]
                        .as_str()
                        .is_some_and(|text| text.contains(word));
                async move {
                    if bad {
                        HookResult::deny(format!("`{word}` may not be echoed"))
                    } else {
                        HookResult::cont()
                    }
                }
            },
            0,
            "no_word",
        )
        .unwrap();
}

#[tokio::test]
async fn the_server_lists_and_info_reach_the_client_unchanged() {
    let proxied = proxied(HookRegistry::new()).await;
    let tools = proxied.client.list_all_tools().await.unwrap();
    assert_eq!(tools, TestServer::tools());
    let prompts = proxied.client.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "greeting");
    let info = proxied.client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "test-server");
    assert_eq!(
        info.instructions.as_deref(),
        Some("a server for the hooks-mcp tests")
    );
}

#[tokio::test]
async fn an_allowed_call_reaches_the_server_under_its_claude_code_name() {
    let registry = HookRegistry::new();
    let log = new_log();
    record(&registry, "tool:pre", &log);
    record(&registry, "tool:post", &log);
    let proxied = proxied(registry).await;

    let result = proxied.call(call("echo", json!({"text": "hello"}))).await;
    assert_eq!(texts(&result), ["hello"]);
    assert_eq!(proxied.server.calls(), 1);

    let log = log.lock().unwrap();
    let (event, pre) = &log[0];
    assert_eq!(event, "tool:pre");
    assert_eq!(pre["tool_name"], "mcp__fixture__echo");
    assert_eq!(pre["tool_input"], json!({"text": "hello"}));
    assert_eq!(pre["mcp_server"], "fixture");
    assert_eq!(log[1].1["tool_result"], "hello");
}

#[tokio::test]
async fn a_denied_call_never_reaches_the_server() {
    let registry = HookRegistry::new();
    deny_text_with("secret-plan", &registry);
    let proxied = proxied(registry).await;

    let result = proxied
        .call(call("echo", json!({"text": "the secret-plan"})))
        .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].contains("`secret-plan` may not be echoed"),
        "{result:?}"
    );
    assert_eq!(proxied.server.calls(), 0, "the server never saw the call");

    // Another call of the same tool still goes through.
    let result = proxied.call(call("echo", json!({"text": "fine"}))).await;
    assert_eq!(texts(&result), ["fine"]);
    assert_eq!(proxied.server.calls(), 1);
}

#[tokio::test]
async fn the_server_receives_the_arguments_as_the_hooks_rewrote_them() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"]["text"] = json!("[REDACTED]");
                async move { HookResult::modify(data) }
            },
            0,
            "mask",
        )
        .unwrap();
    let proxied = proxied(registry).await;

    let result = proxied
        .call(call("echo", json!({"text": "sk-live-123"})))
        .await;
    assert_eq!(texts(&result), ["[REDACTED]"]);
    assert_eq!(
        proxied.server.last_arguments().unwrap()["text"],
        "[REDACTED]"
    );
}

#[tokio::test]
async fn a_call_past_its_deadline_is_an_error_for_the_client() {
    let proxied = proxied_with(HookRegistry::new(), (), |builder| {
        builder.call_timeout(Duration::from_millis(300))
    })
    .await;

    let error = proxied.call_error(call("hang", json!({}))).await;
    let ServiceError::McpError(error) = error else {
        panic!("expected an MCP error, got {error:?}")
    };
    assert!(
        error
            .message
            .contains("did not answer `tools/call` within 0.3 s"),
        "{error:?}"
    );
    assert_eq!(proxied.server.calls(), 1);
    // The proxy still serves.
    let result = proxied.call(call("echo", json!({"text": "after"}))).await;
    assert_eq!(texts(&result), ["after"]);
}

#[tokio::test]
async fn a_server_that_dies_mid_call_is_an_error_for_that_call_and_the_next() {
    let proxied = proxied(HookRegistry::new()).await;
    let peer = proxied.client.peer().clone();
    let pending = tokio::spawn(async move { peer.call_tool(call("hang", json!({}))).await });
    while proxied.server.calls() == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    proxied.crash();

    let error = pending.await.unwrap().unwrap_err();
    assert!(
        error.to_string().contains("closed its connection"),
        "{error}"
    );
    let error = proxied
        .call_error(call("echo", json!({"text": "anyone?"})))
        .await;
    assert!(
        error.to_string().contains("closed its connection"),
        "{error}"
    );
}

/// Waits until `done` holds, for at most five seconds.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} did not happen within 5 s");
}

#[tokio::test]
async fn a_call_the_client_cancels_is_cancelled_at_the_server() {
    let proxied = proxied(HookRegistry::new()).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call("hang", json!({}))));
    let handle = proxied
        .client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    eventually("the call reaching the server", || {
        proxied.server.calls() == 1
    })
    .await;
    handle.cancel(Some("not needed".to_owned())).await.unwrap();

    eventually("the cancellation reaching the server", || {
        proxied.server.cancelled() == 1
    })
    .await;
    // The proxy still serves.
    let result = proxied.call(call("echo", json!({"text": "after"}))).await;
    assert_eq!(texts(&result), ["after"]);
}

#[tokio::test]
async fn a_client_that_leaves_mid_call_ends_the_call_at_the_server() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = TestServer::default();
    let (server_io, upstream_io) = tokio::io::duplex(64 * 1024);
    let serving = server.clone().serve(server_io);
    tokio::spawn(async move {
        if let Ok(running) = serving.await {
            let _ = running.waiting().await;
        }
    });
    // A deadline far beyond the test's patience: only the client's leaving can end the call.
    let proxy = McpProxy::builder(HookRegistry::new(), "fixture")
        .call_timeout(Duration::from_secs(600))
        .build();
    let (proxy_io, mut client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = proxy
            .serve(tokio::io::split(proxy_io), tokio::io::split(upstream_io))
            .await;
    });
    // A client of its own lines, which leaves without a word: no cancellation, its
    // connection just ends.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    client_io
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .unwrap();
    let mut answer = Vec::new();
    while !answer.ends_with(b"\n") {
        let mut byte = [0];
        client_io.read_exact(&mut byte).await.unwrap();
        answer.push(byte[0]);
    }
    let lines = [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "hang", "arguments": {}}}),
    ];
    for line in lines {
        client_io
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }
    eventually("the call reaching the server", || server.calls() == 1).await;
    drop(client_io);

    // The server is told the call is not waited for any more: it does not have to find out
    // when its own connection closes (after rmcp's 5 s wind-down, and its own).
    for _ in 0..300 {
        if server.cancelled() == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server's call did not end within 3 s of its client leaving");
}

/// Keeps the progress the client is told of: its token and its value.
#[derive(Clone, Default)]
struct ProgressLog(Arc<Mutex<Vec<(ProgressToken, f64)>>>);

impl ClientHandler for ProgressLog {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        common::lock(&self.0).push((params.progress_token, params.progress));
    }
}

#[tokio::test]
async fn the_servers_progress_reaches_the_client_under_the_clients_token() {
    let log = ProgressLog::default();
    let proxied = proxied_with(HookRegistry::new(), log.clone(), |builder| builder).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call("progress", json!({}))));
    let handle = proxied
        .client
        .peer()
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let answer = handle.await_response().await.unwrap();
    assert!(
        matches!(answer, ServerResult::CallToolResult(_)),
        "{answer:?}"
    );

    // Progress is sent before the answer, and read in order: both are in by now, or soon.
    eventually("both reports reaching the client", || {
        common::lock(&log.0).len() == 2
    })
    .await;
    assert_eq!(*common::lock(&log.0), [(token.clone(), 1.0), (token, 2.0)]);
}

#[tokio::test]
async fn a_request_over_the_limit_is_refused_with_an_error_and_never_forwarded() {
    let proxied = proxied_with(HookRegistry::new(), (), |builder| {
        builder.max_message_bytes(1024)
    })
    .await;
    let error = proxied
        .call_error(call("echo", json!({"text": "x".repeat(4096)})))
        .await;
    assert!(
        error
            .to_string()
            .contains("over the proxy's limit of 1024 bytes"),
        "{error}"
    );
    assert_eq!(proxied.server.calls(), 0);
    // The session goes on.
    let result = proxied.call(call("echo", json!({"text": "small"}))).await;
    assert_eq!(texts(&result), ["small"]);
}

#[tokio::test]
async fn a_server_answer_over_the_limit_reaches_the_client_as_an_error() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"]["text"] = json!("z".repeat(5000));
                async move { HookResult::modify(data) }
            },
            0,
            "inflate",
        )
        .unwrap();
    let proxied = proxied_with(registry, (), |builder| builder.max_message_bytes(2048)).await;
    let error = proxied
        .call_error(call("echo", json!({"text": "small"})))
        .await;
    assert!(
        error
            .to_string()
            .contains("over the proxy's limit of 2048 bytes"),
        "{error}"
    );
    assert_eq!(proxied.server.calls(), 1);
}

fn ask_about_echo(registry: &HookRegistry) {
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("Send this to the echo server?") },
            0,
            "ask_echo",
        )
        .unwrap();
}

#[tokio::test]
async fn an_ask_to_a_client_that_cannot_elicit_denies_saying_what_it_would_have_asked() {
    let registry = HookRegistry::new();
    ask_about_echo(&registry);
    let proxied = proxied(registry).await;

    let result = proxied.call(call("echo", json!({"text": "hi"}))).await;
    assert_eq!(result.is_error, Some(true));
    let text = &texts(&result)[0];
    assert!(text.contains("would have been asked"), "{text}");
    assert!(text.contains("Send this to the echo server?"), "{text}");
    assert!(text.contains("mcp__fixture__echo"), "{text}");
    assert_eq!(proxied.server.calls(), 0);
}

/// A client that can answer elicitations: it answers with `action`, and keeps what it was
/// asked.
#[derive(Clone)]
struct Answering {
    action: ElicitationAction,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities.elicitation = Some(ElicitationCapability::new());
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        let mut answer = ElicitResult::new(self.action.clone());
        if self.action == ElicitationAction::Accept {
            answer = answer.with_content(json!({"approve": true}));
        }
        Ok(answer)
    }
}

#[tokio::test]
async fn an_ask_is_put_to_the_client_naming_the_exact_call_and_an_accept_lets_it_through() {
    let registry = HookRegistry::new();
    ask_about_echo(&registry);
    let client = Answering {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let asked = Arc::clone(&client.asked);
    let asked_again = Arc::clone(&client.asked);
    let proxied = proxied_with(registry, client, |builder| builder).await;

    let result = proxied.call(call("echo", json!({"text": "hi"}))).await;
    assert_eq!(texts(&result), ["hi"]);
    assert_eq!(proxied.server.calls(), 1);
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].contains("Send this to the echo server?"),
        "{asked:?}"
    );
    assert!(asked[0].contains("mcp__fixture__echo"), "{asked:?}");
    assert!(asked[0].contains(r#"{"text":"hi"}"#), "{asked:?}");

    // The grant was for that call only: the next one is asked again.
    proxied.call(call("echo", json!({"text": "again"}))).await;
    assert_eq!(proxied.server.calls(), 2);
    assert_eq!(asked_again.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_declined_ask_never_reaches_the_server() {
    let registry = HookRegistry::new();
    ask_about_echo(&registry);
    let client = Answering {
        action: ElicitationAction::Decline,
        asked: Arc::default(),
    };
    let proxied = proxied_with(registry, client, |builder| builder).await;

    let result = proxied.call(call("echo", json!({"text": "hi"}))).await;
    assert_eq!(result.is_error, Some(true));
    assert!(texts(&result)[0].contains("not approved"), "{result:?}");
    assert_eq!(proxied.server.calls(), 0);
}

/// A server whose `login` tool asks the user, through a form, for the field it was given;
/// its result says what came back.
#[derive(Clone)]
struct AsksTheUser {
    field: &'static str,
}

impl rmcp::ServerHandler for AsksTheUser {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_tools()
                .build(),
        )
    }

    async fn call_tool(
        &self,
        _request: rmcp::model::CallToolRequestParams,
        context: RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, McpError> {
        let field = rmcp::model::PrimitiveSchemaDefinition::String(
            rmcp::model::StringSchema::new().title(self.field),
        );
        let form = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Sign in to continue".to_owned(),
            requested_schema: rmcp::model::ElicitationSchema::new(
                [(self.field.to_owned(), field)].into(),
            ),
        };
        let text = match context.peer.create_elicitation(form).await {
            Ok(answer) => format!("answered: {:?}", answer.action),
            Err(error) => format!("refused: {error}"),
        };
        Ok(
            rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
                .into(),
        )
    }
}

async fn ask_through_proxy(field: &'static str) -> (String, Vec<String>) {
    let client = Answering {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let asked = Arc::clone(&client.asked);
    let proxied = proxy_to(
        AsksTheUser { field },
        HookRegistry::new(),
        client,
        |builder| builder,
    )
    .await;
    let result = proxied.call(call("login", json!({}))).await;
    let asked = asked.lock().unwrap().clone();
    (texts(&result).remove(0), asked)
}

#[tokio::test]
async fn a_server_form_asking_for_a_token_is_refused_before_the_client_sees_it() {
    let (text, asked) = ask_through_proxy("access_token").await;
    assert!(text.starts_with("refused:"), "{text}");
    assert!(
        text.contains("forbids asking for passwords, keys or tokens"),
        "{text}"
    );
    assert!(asked.is_empty(), "the client was asked: {asked:?}");
}

#[tokio::test]
async fn a_server_form_asking_for_something_ordinary_reaches_the_client() {
    let (text, asked) = ask_through_proxy("username").await;
    assert_eq!(text, "answered: Accept");
    assert_eq!(asked, ["Sign in to continue"]);
}
