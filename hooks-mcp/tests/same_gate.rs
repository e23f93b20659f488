//! The same policy, decided the same way: what an MCP client is answered for a tool call is
//! what the kernel's `HookSession::run_tool` tells the agent, since both go through the
//! session's tool-call gate.

#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use common::{TestServer, call, connect, texts};
use hooks_core::HookResult;
use hooks_core::session::{ToolCallStatus, ToolError, tool_fn};
use hooks_mcp::HookedServer;
use hooks_testing::{GatePolicy, gate_policies};
use serde_json::{Value, json};

#[tokio::test]
async fn an_mcp_client_and_run_tool_are_told_the_same() {
    for policy in gate_policies("echo") {
        // The same tool as the test server's `echo`: it answers its `text` argument.
        let echo = tool_fn("echo", |input: Value| async move {
            Ok::<_, ToolError>(input["text"].clone())
        });
        let expected = policy
            .session()
            .unwrap()
            .build()
            .run_tool(&echo, json!({"text": "hello"}))
            .await;

        let server =
            HookedServer::builder(TestServer::default(), policy.session().unwrap()).build();
        let client = connect(server).await;
        let answered = client
            .call_tool(call("echo", json!({"text": "hello"})))
            .await
            .unwrap();

        assert_eq!(
            texts(&answered),
            [expected.agent_message()],
            "{}",
            policy.name
        );
        let failed = !matches!(expected.status, ToolCallStatus::Ran { .. });
        assert_eq!(answered.is_error, Some(failed), "{}", policy.name);
    }
}

#[tokio::test]
async fn a_rewritten_error_reaches_an_mcp_client_as_run_tool_reports_it() {
    let policy = GatePolicy::new("error rewritten").on(
        "tool:error",
        HookResult::modify(json!({"error": "try later"})),
    );
    // The same as the test server's `fail`: it fails with "disk full".
    let fail = tool_fn("fail", |_: Value| async {
        Err::<Value, _>(ToolError::new("disk full"))
    });
    let expected = policy
        .session()
        .unwrap()
        .build()
        .run_tool(&fail, json!({}))
        .await;
    let ToolCallStatus::Errored { error } = expected.status else {
        panic!("{}: {expected:?}", policy.name);
    };

    let server = HookedServer::builder(TestServer::default(), policy.session().unwrap()).build();
    let client = connect(server).await;
    let answered = client.call_tool(call("fail", json!({}))).await.unwrap();

    assert_eq!(error, "try later");
    assert_eq!(texts(&answered), [error]);
    assert_eq!(answered.is_error, Some(true));
}
