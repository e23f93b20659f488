//! The same policy, decided the same way: what the model reads of a tool call through a rig
//! agent is what the kernel's `HookSession::run_tool` tells the agent, since both go through
//! the session's tool-call gate.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::sync::Arc;

use hooks_core::session::{HookSession, ScriptedApprovals, ToolError, tool_fn};
use hooks_core::{HookRegistry, HookResult};
use hooks_rig::RigHooks;
use rig_agent::AgentBuilder;
use serde_json::{Value, json};

use support::{ReadFile, ScriptedModel, Turn};

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
            register: |r| on(r, "tool:pre", HookResult::deny("reads are off today")),
            answer: None,
        },
        Policy {
            name: "ask, refused",
            register: |r| on(r, "tool:pre", HookResult::ask("Read a.txt?")),
            answer: Some("Deny"),
        },
        Policy {
            name: "ask, nobody to ask",
            register: |r| on(r, "tool:pre", HookResult::ask("Read a.txt?")),
            answer: None,
        },
        Policy {
            name: "input dropped",
            register: |r| {
                on(
                    r,
                    "tool:pre",
                    HookResult::modify(json!({"tool_name": "read_file"})),
                );
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
                    HookResult::modify(json!({"tool_name": "read_file"})),
                );
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

fn session(policy: &Policy) -> hooks_core::session::HookSessionBuilder {
    let registry = HookRegistry::new();
    (policy.register)(&registry);
    let mut builder = HookSession::builder(registry);
    if let Some(answer) = policy.answer {
        builder = builder.approvals(Arc::new(ScriptedApprovals::choosing([answer])));
    }
    builder
}

#[tokio::test]
async fn a_rig_agent_and_run_tool_tell_the_agent_the_same() {
    for policy in policies() {
        let tool = tool_fn("read_file", |_: Value| async {
            Ok::<_, ToolError>(json!("file contents"))
        });
        let expected = session(&policy)
            .build()
            .run_tool(&tool, json!({"path": "a.txt"}))
            .await
            .agent_message();

        let model = ScriptedModel::new([
            Turn::Call {
                id: "c1",
                tool: "read_file",
                args: json!({"path": "a.txt"}),
            },
            Turn::Text("ok"),
        ]);
        let agent = AgentBuilder::new(model.model())
            .tool(ReadFile::default())
            .add_hook(RigHooks::new(session(&policy)))
            .build();
        agent.prompt("read a.txt").max_turns(3).await.unwrap();

        let read = model.transcript(1).last().unwrap().clone();
        let expected_json = json!(expected).to_string();
        let expected_text = expected_json.trim_matches('"');
        assert!(
            read.contains(expected_text),
            "{}: the model read {read}, run_tool says {expected}",
            policy.name
        );
    }
}
