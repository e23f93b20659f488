//! A real rmcp client calls a hooked server over an in-process pipe: what the client sees, and
//! what the hooks see.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use std::sync::{Arc, Mutex};

use common::{Log, TestServer, call, connect, hooked, lock, record, texts};
use hooks_core::session::approval::ScriptedAnswer;
use hooks_core::session::{HookSession, ScriptedApprovals};
use hooks_core::{HookRegistry, HookResult};
use hooks_mcp::HookedServer;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, ErrorCode, ProtocolVersion,
};
use rmcp::service::serve_directly;
use rmcp::{ClientHandler, RoleClient, RoleServer, ServerHandler};
use serde_json::{Value, json};

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

#[tokio::test]
async fn tools_prompts_and_server_info_pass_through_unchanged() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::deny("no tools today") },
            0,
            "deny_all",
        )
        .unwrap();
    let (client, _inner) = hooked(registry).await;

    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools, TestServer::tools());
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.len(), 1, "the server's own list_prompts answered");
    assert_eq!(prompts[0].name, "greeting");

    let info = client.peer_info().unwrap();
    let implementation = info.server_info.as_ref().unwrap();
    assert_eq!(implementation.name, "test-server");
    assert_eq!(implementation.version, "1.2.3");
    assert_eq!(
        info.instructions.as_deref(),
        Some("a server for the hooks-mcp tests")
    );
    assert!(info.capabilities.tools.is_some() && info.capabilities.prompts.is_some());
}

#[tokio::test]
async fn a_denied_call_never_reaches_the_tool_and_answers_the_reason_as_a_tool_error() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let dangerous = data["tool_input"]["text"]
                    .as_str()
                    .is_some_and(|text| text.contains("rm -rf"));
                async move {
                    if dangerous {
                        HookResult::deny("rm -rf is not allowed here")
                    } else {
                        HookResult::cont()
                    }
                }
            },
            0,
            "no_rm",
        )
        .unwrap();
    let log = new_log();
    record(&registry, "tool:post", &log);
    let (client, inner) = hooked(registry).await;

    let result = client
        .call_tool(call("echo", json!({"text": "rm -rf /"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        texts(&result),
        ["Tool call denied by a hook: rm -rf is not allowed here"]
    );
    assert_eq!(inner.calls(), 0, "the tool never ran");
    assert!(lock(&log).is_empty(), "no tool:post for a denied call");

    let allowed = client
        .call_tool(call("echo", json!({"text": "ls"})))
        .await
        .unwrap();
    assert_eq!(allowed.is_error, Some(false));
    assert_eq!(texts(&allowed), ["ls"]);
    assert_eq!(inner.calls(), 1);
}

#[tokio::test]
async fn a_rewritten_argument_reaches_the_tool() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"]["text"] = json!("rewritten");
                data["tool_input"]["added"] = json!(true);
                async move { HookResult::modify(data) }
            },
            0,
            "rewrite",
        )
        .unwrap();
    let (client, inner) = hooked(registry).await;

    let result = client
        .call_tool(call("echo", json!({"text": "original"})))
        .await
        .unwrap();
    assert_eq!(texts(&result), ["rewritten"]);
    let arguments = inner.last_arguments().unwrap();
    assert_eq!(arguments["text"], "rewritten");
    assert_eq!(arguments["added"], true);
}

#[tokio::test]
async fn a_call_without_arguments_still_has_none_when_no_hook_adds_any() {
    let log = new_log();
    let registry = HookRegistry::new();
    record(&registry, "tool:pre", &log);
    let (client, inner) = hooked(registry).await;

    client
        .call_tool(CallToolRequestParams::new("echo"))
        .await
        .unwrap();
    assert_eq!(inner.last_arguments(), None);
    assert_eq!(lock(&log)[0].1["tool_input"], json!({}));
}

#[tokio::test]
async fn arguments_rewritten_into_a_non_object_fail_closed() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"] = json!("not an object");
                async move { HookResult::modify(data) }
            },
            0,
            "bad_rewrite",
        )
        .unwrap();
    let (client, inner) = hooked(registry).await;

    let result = client
        .call_tool(call("echo", json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].contains("must be a JSON object"),
        "{result:?}"
    );
    assert_eq!(inner.calls(), 0);
}

#[tokio::test]
async fn injections_are_appended_to_the_result_content() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::inject("note from tool:pre") },
            0,
            "pre_note",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async {
                HookResult::inject("lint: line 3 has trailing whitespace").with_ephemeral(true)
            },
            0,
            "linter",
        )
        .unwrap();
    let (client, _inner) = hooked(registry).await;

    let result = client
        .call_tool(call("echo", json!({"text": "written"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        texts(&result),
        [
            "written",
            "note from tool:pre",
            "lint: line 3 has trailing whitespace"
        ]
    );
}

#[tokio::test]
async fn injections_over_the_policy_are_cut_as_the_policy_says() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { HookResult::inject("x".repeat(100)) },
            0,
            "verbose",
        )
        .unwrap();
    let session =
        HookSession::builder(registry).injection_policy(hooks_core::session::InjectionPolicy {
            size_limit: Some(10),
            oversize: hooks_core::session::injection::Oversize::Reject,
            budget_per_turn: None,
        });
    let server = HookedServer::builder(TestServer::default(), session).build();
    let client = connect(server).await;

    let result = client
        .call_tool(call("echo", json!({"text": "out"})))
        .await
        .unwrap();
    assert_eq!(
        texts(&result),
        ["out"],
        "the rejected injection is not appended"
    );
}

#[tokio::test]
async fn tool_post_rewrites_and_withholds_the_result() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                let answer = if data["tool_input"]["text"] == "secret" {
                    HookResult::deny("the output holds a secret")
                } else if data["tool_input"]["text"] == "plain" {
                    // A whole result replaced by plain text.
                    data["tool_result"] = json!("replaced by plain text");
                    HookResult::modify(data)
                } else if data["tool_result"].is_string() {
                    data["tool_result"] = json!("[redacted]");
                    HookResult::modify(data)
                } else {
                    data["tool_result"]["content"][0]["text"] = json!("[redacted] items");
                    data["tool_result"]["structuredContent"]["count"] = json!(0);
                    HookResult::modify(data)
                };
                async move { answer }
            },
            0,
            "redact",
        )
        .unwrap();
    let (client, inner) = hooked(registry).await;

    let redacted = client
        .call_tool(call("echo", json!({"text": "token=abc"})))
        .await
        .unwrap();
    assert_eq!(texts(&redacted), ["[redacted]"]);
    assert_eq!(redacted.is_error, Some(false));

    let structured = client
        .call_tool(call("structured", json!({})))
        .await
        .unwrap();
    assert_eq!(texts(&structured), ["[redacted] items"]);
    assert_eq!(structured.structured_content, Some(json!({"count": 0})));
    assert_eq!(structured.is_error, Some(false));

    let plain = client
        .call_tool(call("structured", json!({"text": "plain"})))
        .await
        .unwrap();
    assert_eq!(texts(&plain), ["replaced by plain text"]);
    assert_eq!(plain.structured_content, None);

    let withheld = client
        .call_tool(call("echo", json!({"text": "secret"})))
        .await
        .unwrap();
    assert_eq!(withheld.is_error, Some(true));
    assert_eq!(
        texts(&withheld),
        ["The tool ran, but its output was withheld: the output holds a secret"]
    );
    assert_eq!(inner.calls(), 4, "tool:post runs after the tool");
}

#[tokio::test]
async fn hooks_see_a_text_result_as_its_text_and_any_other_as_mcp_json() {
    let log = new_log();
    let registry = HookRegistry::new();
    record(&registry, "tool:post", &log);
    let (client, _inner) = hooked(registry).await;

    let echoed = client
        .call_tool(call("echo", json!({"text": "hello"})))
        .await
        .unwrap();
    let structured = client
        .call_tool(call("structured", json!({})))
        .await
        .unwrap();
    let log = lock(&log);
    let (event, data) = &log[0];
    assert_eq!(event, "tool:post");
    assert_eq!(data["tool_name"], "echo");
    assert_eq!(data["tool_input"], json!({"text": "hello"}));
    assert_eq!(data["tool_result"], "hello");
    let data = &log[1].1;
    assert_eq!(data["tool_result"]["content"][0]["text"], "42 items");
    assert_eq!(
        data["tool_result"]["structuredContent"],
        json!({"count": 42})
    );
    assert_eq!(data["tool_result"]["isError"], false);
    // Unchanged by the hooks, both reach the client exactly as the server answered.
    assert_eq!(texts(&echoed), ["hello"]);
    assert_eq!(structured.structured_content, Some(json!({"count": 42})));
}

#[tokio::test]
async fn with_nobody_reading_tool_post_a_result_reaches_the_client_as_it_was() {
    // Only a tool:pre hook: the result is not converted for anyone, and is sent as it was.
    let log = new_log();
    let registry = HookRegistry::new();
    record(&registry, "tool:pre", &log);
    let (client, _inner) = hooked(registry).await;
    let structured = client
        .call_tool(call("structured", json!({})))
        .await
        .unwrap();
    assert_eq!(texts(&structured), ["42 items"]);
    assert_eq!(structured.structured_content, Some(json!({"count": 42})));
    assert_eq!(structured.is_error, Some(false));
    let echoed = client
        .call_tool(call("echo", json!({"text": "hello"})))
        .await
        .unwrap();
    assert_eq!(texts(&echoed), ["hello"]);
    assert_eq!(lock(&log).len(), 2, "tool:pre heard both calls");
}

#[tokio::test]
async fn an_observer_alone_still_sees_the_result() {
    // An observer (the logging module is one) reads every emit: the result is given to it.
    let seen = new_log();
    let registry = HookRegistry::new();
    let sink = Arc::clone(&seen);
    let _observer = registry.observe(move |event: &str, outcome: &hooks_core::EmitResult| {
        let data = outcome.result.data.clone().unwrap_or_default();
        lock(&sink).push((event.to_owned(), data));
    });
    let (client, _inner) = hooked(registry).await;
    client
        .call_tool(call("structured", json!({})))
        .await
        .unwrap();
    let seen = lock(&seen);
    let post = seen.iter().find(|(event, _)| event == "tool:post").unwrap();
    assert_eq!(
        post.1["tool_result"]["structuredContent"],
        json!({"count": 42})
    );
}

#[tokio::test]
async fn a_failing_tool_emits_tool_error_and_its_failure_reaches_the_client() {
    let log = new_log();
    let registry = HookRegistry::new();
    record(&registry, "tool:error", &log);
    record(&registry, "tool:post", &log);
    registry
        .register(
            "tool:error",
            |_: &str, _: &Value| async { HookResult::inject("hint: free some disk space") },
            0,
            "hint",
        )
        .unwrap();
    let (client, inner) = hooked(registry).await;

    let result = client.call_tool(call("fail", json!({}))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(texts(&result), ["disk full", "hint: free some disk space"]);

    let error = client
        .call_tool(call("broken", json!({})))
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(error) => {
            assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
            assert_eq!(error.message, "the backend is down");
        }
        other => panic!("expected the server's protocol error, got {other:?}"),
    }
    assert_eq!(inner.calls(), 2);

    let log = lock(&log);
    let events: Vec<(&str, &Value)> = log.iter().map(|(e, d)| (e.as_str(), &d["error"])).collect();
    assert_eq!(
        events,
        [
            ("tool:error", &json!("disk full")),
            ("tool:error", &json!("the backend is down")),
        ],
        "tool:error, never tool:post"
    );
}

#[tokio::test]
async fn ask_user_goes_to_the_approval_provider() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let prompt = format!("Run {}?", data["tool_name"].as_str().unwrap_or("?"));
                async move { HookResult::ask(prompt) }
            },
            0,
            "confirm",
        )
        .unwrap();
    let approvals = Arc::new(ScriptedApprovals::new([
        ScriptedAnswer::Choose("Deny".into()),
        ScriptedAnswer::Choose("Allow".into()),
    ]));
    let inner = TestServer::default();
    let session = HookSession::builder(registry).approvals(approvals.clone());
    let server = HookedServer::builder(inner.clone(), session).build();
    let client = connect(server).await;

    let refused = client
        .call_tool(call("echo", json!({"text": "one"})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(texts(&refused)[0].contains("not approved"), "{refused:?}");
    assert!(texts(&refused)[0].contains("Run echo?"), "{refused:?}");
    assert_eq!(inner.calls(), 0);

    let approved = client
        .call_tool(call("echo", json!({"text": "two"})))
        .await
        .unwrap();
    assert_eq!(texts(&approved), ["two"]);
    assert_eq!(inner.calls(), 1);
    assert_eq!(approvals.asked().len(), 2);
    assert_eq!(approvals.asked()[0].prompt, "Run echo?");
}

#[tokio::test]
async fn ask_user_without_a_provider_takes_the_default_deny() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("Run it?") },
            0,
            "confirm",
        )
        .unwrap();
    let (client, inner) = hooked(registry).await;

    let result = client
        .call_tool(call("echo", json!({"text": "x"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(inner.calls(), 0);
}

#[tokio::test]
async fn events_carry_the_server_name_and_session_id() {
    let log = new_log();
    let registry = HookRegistry::new();
    record(&registry, "tool:pre", &log);
    record(&registry, "tool:post", &log);
    let server = HookedServer::builder(TestServer::default(), registry)
        .session_id("session-42")
        .build();
    let client = connect(server).await;

    client
        .call_tool(call("echo", json!({"text": "x"})))
        .await
        .unwrap();
    let log = lock(&log);
    assert_eq!(log.len(), 2);
    for (event, data) in log.iter() {
        assert_eq!(data["mcp_server"], "test-server", "{event}");
        assert_eq!(data["session_id"], "session-42", "{event}");
    }
}

#[tokio::test]
async fn keep_default_fields_leaves_the_registry_defaults_alone() {
    let log = new_log();
    let registry = HookRegistry::new();
    registry.set_default_fields([("app", json!("mine"))]);
    record(&registry, "tool:pre", &log);
    let server = HookedServer::builder(TestServer::default(), registry)
        .session_id("session-7")
        .keep_default_fields()
        .build();
    let client = connect(server).await;

    client
        .call_tool(call("echo", json!({"text": "x"})))
        .await
        .unwrap();
    let data = &lock(&log)[0].1;
    assert_eq!(data["app"], "mine");
    assert!(data.get("mcp_server").is_none());
    // The hook session still names itself on every event it emits.
    assert_eq!(data["session_id"], "session-7");
}

#[tokio::test]
async fn an_interim_answer_passes_through_and_the_retry_is_gated_again() {
    let log = new_log();
    let registry = HookRegistry::new();
    record(&registry, "tool:pre", &log);
    record(&registry, "tool:post", &log);
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { HookResult::inject("checked") },
            0,
            "note",
        )
        .unwrap();
    // Interim answers need protocol 2026-07-28, which has no initialize handshake: both
    // ends are served directly, each told the other's configuration.
    let inner = TestServer::default();
    let server = HookedServer::builder(inner.clone(), registry).build();
    let mut client_config = ClientConfig::default();
    client_config.protocol_version = ProtocolVersion::V_2026_07_28;
    let mut server_config = server.get_info();
    server_config.protocol_version = ProtocolVersion::V_2026_07_28;
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let _server =
        serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client_config.clone()));
    let client = serve_directly::<RoleClient, _, _, _, _>(
        Probe(client_config),
        client_io,
        Some(server_config.into()),
    );

    let first = client
        .call_tool_once(call("confirm", json!({})))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(interim) = first else {
        panic!("expected the server's input-required answer, got {first:?}")
    };
    assert_eq!(interim.request_state.as_deref(), Some("pending"));

    let mut retry = call("confirm", json!({}));
    retry.request_state = interim.request_state.clone();
    let result = client.call_tool(retry).await.unwrap();
    assert_eq!(texts(&result), ["confirmed", "checked"]);
    assert_eq!(inner.calls(), 2);
    let events: Vec<String> = lock(&log).iter().map(|(e, _)| e.clone()).collect();
    assert_eq!(events, ["tool:pre", "tool:post", "tool:pre", "tool:post"]);
}

/// A client of a given configuration.
struct Probe(ClientConfig);

impl ClientHandler for Probe {
    fn get_info(&self) -> ClientConfig {
        self.0.clone()
    }
}
