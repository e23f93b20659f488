//! The same policy, decided the same way: what an MCP client is answered for a tool call is
//! what the kernel's `HookSession::run_tool` tells the agent, since both go through the
//! session's tool-call gate.

#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use std::sync::Arc;

use common::{TestServer, call, connect, texts};
use hooks_core::session::HookSessionBuilder;
use hooks_core::session::{HookSession, ScriptedApprovals, ToolCallStatus, ToolError, tool_fn};
use hooks_core::{HookRegistry, HookResult};
use hooks_mcp::HookedServer;
use serde_json::{Value, json};

/// One policy: its handlers, and the user's answer to an approval (if anyone is asked).
struct Policy {
    name: &'static str,
    register: fn(&HookRegistry),
    answer: Option<&'static str>,
}

fn on(registry: &HookRegistry, event: &str, answer: HookResult) {
    registry
        .register(
            event,
            move |_: &str, _: &Value| {
                let answer = answer.clone();
                async move { answer }
            },
            0,
            "policy",
        )
        .unwrap();
}

fn policies() -> Vec<Policy> {
    vec![
        Policy {
            name: "deny before",
            register: |r| on(r, "tool:pre", HookResult::deny("echoes are off today")),
            answer: None,
        },
        Policy {
            name: "ask, refused",
            register: |r| on(r, "tool:pre", HookResult::ask("Echo?")),
            answer: Some("Deny"),
        },
        Policy {
            name: "ask, approved",
            register: |r| on(r, "tool:pre", HookResult::ask("Echo?")),
            answer: Some("Allow"),
        },
        Policy {
            name: "ask, nobody to ask",
            register: |r| on(r, "tool:pre", HookResult::ask("Echo?")),
            answer: None,
        },
        Policy {
            name: "input dropped",
            register: |r| {
                on(
                    r,
                    "tool:pre",
                    HookResult::modify(json!({"tool_name": "echo"})),
                )
            },
            answer: None,
        },
        Policy {
            name: "output withheld",
            register: |r| on(r, "tool:post", HookResult::deny("it holds a secret")),
            answer: None,
        },
        Policy {
            name: "output dropped",
            register: |r| {
                on(
                    r,
                    "tool:post",
                    HookResult::modify(json!({"tool_name": "echo"})),
                )
            },
            answer: None,
        },
        Policy {
            name: "output rewritten",
            register: |r| {
                on(
                    r,
                    "tool:post",
                    HookResult::modify(json!({"tool_result": "[redacted]"})),
                );
            },
            answer: None,
        },
    ]
}

fn session(policy: &Policy) -> HookSessionBuilder {
    let registry = HookRegistry::new();
    (policy.register)(&registry);
    let mut builder = HookSession::builder(registry);
    if let Some(answer) = policy.answer {
        builder = builder.approvals(Arc::new(ScriptedApprovals::choosing([answer])));
    }
    builder
}

#[tokio::test]
async fn an_mcp_client_and_run_tool_are_told_the_same() {
    for policy in policies() {
        // The same tool as the test server's `echo`: it answers its `text` argument.
        let echo = tool_fn("echo", |input: Value| async move {
            Ok::<_, ToolError>(input["text"].clone())
        });
        let expected = session(&policy)
            .build()
            .run_tool(&echo, json!({"text": "hello"}))
            .await;

        let server = HookedServer::builder(TestServer::default(), session(&policy)).build();
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
    let policy = Policy {
        name: "error rewritten",
        register: |r| {
            on(
                r,
                "tool:error",
                HookResult::modify(json!({"error": "try later"})),
            )
        },
        answer: None,
    };
    // The same as the test server's `fail`: it fails with "disk full".
    let fail = tool_fn("fail", |_: Value| async {
        Err::<Value, _>(ToolError::new("disk full"))
    });
    let expected = session(&policy).build().run_tool(&fail, json!({})).await;
    let ToolCallStatus::Errored { error } = expected.status else {
        panic!("{}: {expected:?}", policy.name);
    };

    let server = HookedServer::builder(TestServer::default(), session(&policy)).build();
    let client = connect(server).await;
    let answered = client.call_tool(call("fail", json!({}))).await.unwrap();

    assert_eq!(error, "try later");
    assert_eq!(texts(&answered), [error]);
    assert_eq!(answered.is_error, Some(true));
}
