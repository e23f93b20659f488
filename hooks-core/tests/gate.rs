//! The public steps of the tool-call gate, for integrations that call the tool themselves:
//! `before` (tool:pre, approval, a rewritten input) and `after` (tool:post or tool:error, a
//! rewritten or withheld output), and the generic gate of any blocking event.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use hooks_core::session::Blocked;
use hooks_core::session::approval::DecisionSource;
use hooks_core::session::gate::BeforeTool;
use hooks_core::session::sinks::MessageKind;
use hooks_core::session::{
    HookSession, InMemoryContext, ScriptedApprovals, ToolCallStatus, ToolError,
};
use hooks_core::{HookRegistry, HookResult};
use hooks_testing::EventRecorder;
use serde_json::{Value, json};

/// Registers a handler on `event` that answers `answer` every time.
fn answer(registry: &HookRegistry, event: &str, answer: HookResult) {
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

/// Registers a `modify` handler on `event` that sets `field` to `value`.
fn rewrite(registry: &HookRegistry, event: &str, field: &'static str, value: Value) {
    registry
        .register(
            event,
            move |_: &str, data: &Value| {
                let mut data = data.clone();
                data[field] = value.clone();
                async move { HookResult::modify(data) }
            },
            0,
            "rewrite",
        )
        .unwrap();
}

fn session(registry: &HookRegistry) -> HookSession {
    HookSession::builder(registry.clone()).build()
}

#[tokio::test]
async fn before_proceeds_with_the_input_untouched_when_no_hook_objects() {
    let registry = HookRegistry::new();
    answer(&registry, "tool:pre", HookResult::cont());
    let session = session(&registry);

    let decision = session
        .tool_call_gate("read_file")
        .before(json!({"path": "a.txt"}))
        .await;

    assert_eq!(
        decision,
        BeforeTool::Proceed {
            input: json!({"path": "a.txt"}),
            rewritten: false
        }
    );
}

#[tokio::test]
async fn before_blocks_on_a_deny_and_records_why_in_the_history() {
    let registry = HookRegistry::new();
    answer(&registry, "tool:pre", HookResult::deny("no deletes"));
    let context = Arc::new(InMemoryContext::new());
    let session = HookSession::builder(registry.clone())
        .context(context.clone())
        .build();

    let decision = session
        .tool_call_gate("delete_file")
        .before(json!({"path": "/"}))
        .await;

    let BeforeTool::Blocked { blocked, input } = decision else {
        panic!("a deny let the call proceed: {decision:?}");
    };
    assert_eq!(
        blocked,
        Blocked::ByHook {
            reason: "no deletes".into(),
            hook: Some("policy".into())
        }
    );
    assert_eq!(input, json!({"path": "/"}));
    let history = context.messages();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].kind, MessageKind::ToolResult);
    assert_eq!(history[0].content, "Tool call denied by a hook: no deletes");
}

#[tokio::test]
async fn before_puts_an_ask_to_the_provider_and_blocks_without_one() {
    let registry = HookRegistry::new();
    answer(&registry, "tool:pre", HookResult::ask("Run the shell?"));
    let approvals = Arc::new(ScriptedApprovals::choosing(["Deny", "Allow"]));
    let asked = HookSession::builder(registry.clone())
        .approvals(approvals.clone())
        .build();

    let refused = asked.tool_call_gate("shell").before(json!({})).await;
    let approved = asked.tool_call_gate("shell").before(json!({})).await;
    let unasked = session(&registry)
        .tool_call_gate("shell")
        .before(json!({}))
        .await;

    assert!(
        matches!(&refused, BeforeTool::Blocked { blocked: Blocked::ByApproval { decision, .. }, .. }
            if decision.source == DecisionSource::User),
        "{refused:?}"
    );
    assert!(
        matches!(approved, BeforeTool::Proceed { .. }),
        "{approved:?}"
    );
    assert!(
        matches!(&unasked, BeforeTool::Blocked { blocked: Blocked::ByApproval { decision, .. }, .. }
            if decision.source == DecisionSource::NoProvider),
        "no provider is a deny: {unasked:?}"
    );
    assert_eq!(approvals.asked().len(), 2);
}

#[tokio::test]
async fn before_hands_over_a_rewritten_input_and_blocks_a_dropped_one() {
    let registry = HookRegistry::new();
    rewrite(
        &registry,
        "tool:pre",
        "tool_input",
        json!({"path": "/sandbox/a.txt"}),
    );
    let rewritten = session(&registry)
        .tool_call_gate("read_file")
        .before(json!({"path": "a.txt"}))
        .await;
    assert_eq!(
        rewritten,
        BeforeTool::Proceed {
            input: json!({"path": "/sandbox/a.txt"}),
            rewritten: true
        }
    );

    let dropping = HookRegistry::new();
    answer(
        &dropping,
        "tool:pre",
        HookResult::modify(json!({"tool_name": "read_file"})),
    );
    let dropped = session(&dropping)
        .tool_call_gate("read_file")
        .before(json!({"path": "a.txt"}))
        .await;
    assert!(
        matches!(
            &dropped,
            BeforeTool::Blocked {
                blocked: Blocked::InvalidModification { .. },
                input: Value::Null
            }
        ),
        "{dropped:?}"
    );
}

#[tokio::test]
async fn after_passes_the_output_through_or_rewrites_it() {
    let quiet = HookRegistry::new();
    let untouched = session(&quiet)
        .tool_call_gate("cat")
        .after(json!({}), Ok(json!("KEY=sk-123")))
        .await;
    assert_eq!(
        untouched.status,
        ToolCallStatus::Ran {
            output: json!("KEY=sk-123")
        }
    );
    assert!(!untouched.output_rewritten);

    let redacting = HookRegistry::new();
    rewrite(&redacting, "tool:post", "tool_result", json!("KEY=***"));
    let redacted = session(&redacting)
        .tool_call_gate("cat")
        .after(json!({}), Ok(json!("KEY=sk-123")))
        .await;
    assert_eq!(
        redacted.status,
        ToolCallStatus::Ran {
            output: json!("KEY=***")
        }
    );
    assert!(redacted.output_rewritten);
}

#[tokio::test]
async fn after_withholds_the_output_on_a_deny_or_when_a_hook_drops_it() {
    let denying = HookRegistry::new();
    answer(&denying, "tool:post", HookResult::deny("contains a secret"));
    let denied = session(&denying)
        .tool_call_gate("cat")
        .after(json!({}), Ok(json!("KEY=sk-123")))
        .await;
    assert_eq!(
        denied.status,
        ToolCallStatus::Withheld {
            reason: "contains a secret".into()
        }
    );

    let dropping = HookRegistry::new();
    answer(
        &dropping,
        "tool:post",
        HookResult::modify(json!({"tool_name": "cat"})),
    );
    let dropped = session(&dropping)
        .tool_call_gate("cat")
        .after(json!({}), Ok(json!("KEY=sk-123")))
        .await;
    assert!(
        matches!(&dropped.status, ToolCallStatus::Withheld { reason } if reason.contains("left no `tool_result`")),
        "{dropped:?}"
    );
}

#[tokio::test]
async fn after_a_failure_emits_tool_error_whose_hooks_may_rewrite_the_error() {
    let registry = HookRegistry::new();
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    rewrite(
        &registry,
        "tool:error",
        "error",
        json!("the disk is busy, try later"),
    );

    let outcome = session(&registry)
        .tool_call_gate("write_file")
        .after(json!({"path": "a"}), Err(ToolError::new("EBUSY")))
        .await;

    assert_eq!(
        outcome.status,
        ToolCallStatus::Errored {
            error: "the disk is busy, try later".into()
        }
    );
    assert!(outcome.output_rewritten);
    recorder.assert_not_emitted("tool:post");
    assert_eq!(recorder.of("tool:error").len(), 1);
}

#[tokio::test]
async fn a_tool_error_hook_that_drops_the_error_leaves_the_tools_own() {
    let registry = HookRegistry::new();
    answer(
        &registry,
        "tool:error",
        HookResult::modify(json!({"tool_name": "write_file"})),
    );

    let outcome = session(&registry)
        .tool_call_gate("write_file")
        .after(json!({}), Err(ToolError::new("EBUSY")))
        .await;

    assert_eq!(
        outcome.status,
        ToolCallStatus::Errored {
            error: "EBUSY".into()
        }
    );
}

#[tokio::test]
async fn the_callers_fields_reach_both_events_but_never_replace_the_tool_name() {
    let registry = HookRegistry::new();
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    let session = session(&registry);
    let fields = || {
        let mut fields = serde_json::Map::new();
        fields.insert("call_id".to_owned(), json!("c1"));
        fields.insert("tool_name".to_owned(), json!("an impostor"));
        fields
    };

    let mut gate = session.tool_call_gate("read_file").with_fields(fields());
    gate.before(json!({})).await;
    gate.after(json!({}), Ok(json!("ok"))).await;

    for event in ["tool:pre", "tool:post"] {
        let data = recorder.of(event)[0].data().clone();
        assert_eq!(data["call_id"], "c1", "{event}");
        assert_eq!(data["tool_name"], "read_file", "{event}");
    }
}

#[tokio::test]
async fn the_outcome_keeps_the_injections_of_both_steps_in_order() {
    let registry = HookRegistry::new();
    answer(&registry, "tool:pre", HookResult::inject("before"));
    answer(&registry, "tool:post", HookResult::inject("after"));
    let session = session(&registry);

    let mut gate = session.tool_call_gate("read_file");
    let BeforeTool::Proceed { input, .. } = gate.before(json!({})).await else {
        panic!("blocked");
    };
    assert_eq!(gate.injections().len(), 1);
    let outcome = gate.after(input, Ok(json!("ok"))).await;

    let texts: Vec<&str> = outcome.injections.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["before", "after"]);
}

#[tokio::test]
async fn the_generic_gate_settles_any_blocking_event() {
    let registry = HookRegistry::new();
    answer(&registry, "plan:start", HookResult::deny("no plans today"));
    answer(
        &registry,
        "context:pre_compact",
        HookResult::ask("Compact now?"),
    );
    let session = session(&registry);

    let denied = session.gate("plan:start", json!({"plan": "x"})).await;
    let unasked = session.gate("context:pre_compact", json!({})).await;
    let free = session.gate("plan:end", json!({"plan": "x"})).await;

    assert!(
        matches!(&denied.blocked, Some(Blocked::ByHook { reason, .. }) if reason == "no plans today")
    );
    assert!(matches!(&unasked.blocked, Some(Blocked::ByApproval { .. })));
    assert_eq!(free.blocked, None);
}

#[tokio::test]
async fn run_tool_is_the_two_steps_around_the_tool() {
    let registry = HookRegistry::new();
    rewrite(
        &registry,
        "tool:pre",
        "tool_input",
        json!({"path": "/sandbox/a"}),
    );
    rewrite(&registry, "tool:error", "error", json!("rewritten"));
    let session = session(&registry);
    let tool = hooks_core::session::tool_fn("read_file", |input: Value| async move {
        Err::<Value, _>(ToolError::new(format!("no such file: {}", input["path"])))
    });

    let outcome = session.run_tool(&tool, json!({"path": "a"})).await;

    assert_eq!(outcome.input, json!({"path": "/sandbox/a"}));
    assert_eq!(
        outcome.status,
        ToolCallStatus::Errored {
            error: "rewritten".into()
        }
    );
}

/// Takes any tool, as an application's dispatch helper would.
async fn run_any(
    session: &HookSession,
    tool: impl hooks_core::session::Tool,
    input: Value,
) -> Value {
    match session.run_tool(&tool, input).await.status {
        ToolCallStatus::Ran { output } => output,
        other => panic!("the tool did not complete: {other:?}"),
    }
}

#[tokio::test]
async fn boxed_and_shared_tools_are_tools() {
    let registry = HookRegistry::new();
    rewrite(&registry, "tool:pre", "tool_input", json!({"path": "b"}));
    let session = session(&registry);
    let echo = |name: &'static str| {
        hooks_core::session::tool_fn(name, move |input: Value| async move {
            Ok::<_, ToolError>(json!({"tool": name, "path": input["path"]}))
        })
    };
    let tools: Vec<Box<dyn hooks_core::session::Tool>> =
        vec![Box::new(echo("read")), Box::new(echo("list"))];
    let shared: Arc<dyn hooks_core::session::Tool> = Arc::new(echo("stat"));

    // A boxed tool from a list, by reference and by value; a shared one; a reference to either.
    let boxed = session.run_tool(&tools[1], json!({"path": "a"})).await;
    let by_value = run_any(&session, tools.into_iter().next().unwrap(), json!({})).await;
    let by_arc = run_any(&session, shared.clone(), json!({})).await;
    let by_ref = run_any(&session, &shared, json!({})).await;

    assert_eq!(
        boxed.status,
        ToolCallStatus::Ran {
            output: json!({"tool": "list", "path": "b"})
        }
    );
    assert_eq!(by_value, json!({"tool": "read", "path": "b"}));
    assert_eq!(by_arc, json!({"tool": "stat", "path": "b"}));
    assert_eq!(by_ref, by_arc);
}
