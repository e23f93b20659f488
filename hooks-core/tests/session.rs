//! Applying results: approvals, the injection policy, ephemeral injections, output control and
//! the tool-call gate.

// The helpers below unwrap as the tests do: in a test, a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use hooks_core::session::approval::{DecisionSource, ScriptedAnswer};
use hooks_core::session::injection::{Disposition, INJECTION_AUDIT_EVENT, Oversize, Placement};
use hooks_core::session::sinks::{ContextMessage, ContextSink, MessageKind};
use hooks_core::session::{Blocked, ModelRequest};
use hooks_core::session::{
    HookSession, InMemoryContext, InMemoryDisplay, InjectionPolicy, Proceed, ScriptedApprovals,
    ToolCallStatus, ToolError, tool_fn,
};
use hooks_core::{ApprovalDefault, HookRegistry, HookResult, InjectionRole, MessageLevel};
use hooks_testing::{EventRecorder, MockTool};
use serde_json::{Value, json};

/// A session over `registry` with in-memory sinks the test can read.
struct Rig {
    session: HookSession,
    context: Arc<InMemoryContext>,
    display: Arc<InMemoryDisplay>,
}

fn rig(
    registry: &HookRegistry,
    approvals: Option<Arc<ScriptedApprovals>>,
    policy: InjectionPolicy,
) -> Rig {
    let context = Arc::new(InMemoryContext::new());
    let display = Arc::new(InMemoryDisplay::new());
    let mut builder = HookSession::builder(registry.clone())
        .context(context.clone())
        .display(display.clone())
        .injection_policy(policy);
    if let Some(approvals) = approvals {
        builder = builder.approvals(approvals);
    }
    Rig {
        session: builder.build(),
        context,
        display,
    }
}

/// Registers a handler on `event` that answers `answer` every time.
fn answer(registry: &HookRegistry, event: &str, name: &str, answer: HookResult) {
    registry
        .register(
            event,
            move |_: &str, _: &Value| {
                let answer = answer.clone();
                async move { answer }
            },
            0,
            name,
        )
        .unwrap();
}

fn ask_before_writes(registry: &HookRegistry, timeout: Duration, default: ApprovalDefault) {
    answer(
        registry,
        "tool:pre",
        "production_guard",
        HookResult::ask("Allow write to production.env?")
            .with_approval_options(["Allow once", "Allow always", "Deny", "Deny always"])
            .with_approval_timeout(timeout)
            .with_approval_default(default),
    );
}

// Approvals.

#[tokio::test(start_paused = true)]
async fn an_unanswered_approval_times_out_to_deny_by_default() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(30), ApprovalDefault::Deny);
    let approvals = Arc::new(ScriptedApprovals::new([ScriptedAnswer::Hang]));
    let rig = rig(
        &registry,
        Some(approvals.clone()),
        InjectionPolicy::default(),
    );
    let tool = MockTool::new("write_file").returning(json!("written"));

    let started = tokio::time::Instant::now();
    let outcome = rig
        .session
        .run_tool(&tool, json!({"path": "production.env"}))
        .await;

    assert_eq!(
        started.elapsed(),
        Duration::from_secs(30),
        "waited exactly the timeout"
    );
    match &outcome.status {
        ToolCallStatus::Blocked(Blocked::ByApproval { prompt, decision }) => {
            assert_eq!(prompt, "Allow write to production.env?");
            assert!(!decision.allowed);
            assert_eq!(decision.source, DecisionSource::Timeout);
        }
        other => panic!("expected a denial by approval, got {other:?}"),
    }
    assert!(tool.inputs().is_empty(), "the tool never ran");
    assert_eq!(approvals.asked().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_approval_times_out_to_allow_when_the_hook_says_so() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(5), ApprovalDefault::Allow);
    let approvals = Arc::new(ScriptedApprovals::new([ScriptedAnswer::Hang]));
    let rig = rig(&registry, Some(approvals), InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("written"));

    let outcome = rig
        .session
        .run_tool(&tool, json!({"path": "production.env"}))
        .await;

    assert_eq!(
        outcome.status,
        ToolCallStatus::Ran {
            output: json!("written")
        }
    );
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn a_failing_provider_and_a_missing_provider_fall_back_to_the_default() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(5), ApprovalDefault::Deny);
    let failing = Arc::new(ScriptedApprovals::new([ScriptedAnswer::Fail(
        "tty closed".into(),
    )]));
    let tool = MockTool::new("write_file").returning(json!("written"));

    let with_failing = rig(&registry, Some(failing), InjectionPolicy::default());
    let outcome = with_failing.session.run_tool(&tool, json!({})).await;
    assert!(
        matches!(
            &outcome.status,
            ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. })
                if decision.source == DecisionSource::ProviderError("tty closed".into())
        ),
        "{outcome:?}"
    );

    let without = rig(&registry, None, InjectionPolicy::default());
    let outcome = without.session.run_tool(&tool, json!({})).await;
    assert!(
        matches!(
            &outcome.status,
            ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. })
                if decision.source == DecisionSource::NoProvider
        ),
        "{outcome:?}"
    );
    assert!(tool.inputs().is_empty());
}

#[tokio::test]
async fn an_answer_that_is_not_an_option_gets_the_default_not_an_allow() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(5), ApprovalDefault::Deny);
    let approvals = Arc::new(ScriptedApprovals::choosing(["sure, go ahead"]));
    let rig = rig(&registry, Some(approvals), InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("written"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    assert!(
        matches!(
            &outcome.status,
            ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. })
                if decision.source == DecisionSource::UnusableAnswer("sure, go ahead".into())
        ),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn allow_always_is_remembered_for_the_session() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(5), ApprovalDefault::Deny);
    let approvals = Arc::new(ScriptedApprovals::choosing(["Allow always"]));
    let rig = rig(
        &registry,
        Some(approvals.clone()),
        InjectionPolicy::default(),
    );
    let tool = MockTool::new("write_file").returning(json!("written"));

    let first = rig.session.run_tool(&tool, json!({"n": 1})).await;
    let second = rig.session.run_tool(&tool, json!({"n": 2})).await;

    assert!(matches!(first.status, ToolCallStatus::Ran { .. }));
    assert!(matches!(second.status, ToolCallStatus::Ran { .. }));
    assert_eq!(approvals.asked().len(), 1, "the user is not asked twice");
    assert_eq!(tool.calls(), 2);
}

#[tokio::test]
async fn deny_always_is_remembered_and_allow_once_is_not() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(5), ApprovalDefault::Allow);
    let approvals = Arc::new(ScriptedApprovals::choosing(["Allow once", "Deny always"]));
    let rig = rig(
        &registry,
        Some(approvals.clone()),
        InjectionPolicy::default(),
    );
    let tool = MockTool::new("write_file").returning(json!("written"));

    let once = rig.session.run_tool(&tool, json!({})).await;
    let refused = rig.session.run_tool(&tool, json!({})).await;
    let remembered = rig.session.run_tool(&tool, json!({})).await;

    assert!(matches!(once.status, ToolCallStatus::Ran { .. }));
    assert!(matches!(refused.status, ToolCallStatus::Blocked(_)));
    assert!(
        matches!(
            &remembered.status,
            ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. })
                if decision.source == DecisionSource::Remembered
        ),
        "{remembered:?}"
    );
    assert_eq!(approvals.asked().len(), 2);
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn approval_decisions_are_emitted_as_granted_and_denied_events() {
    let registry = HookRegistry::new();
    ask_before_writes(&registry, Duration::from_secs(5), ApprovalDefault::Deny);
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    let approvals = Arc::new(ScriptedApprovals::choosing(["Allow once", "Deny"]));
    let rig = rig(&registry, Some(approvals), InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("written"));

    rig.session.run_tool(&tool, json!({})).await;
    rig.session.run_tool(&tool, json!({})).await;

    recorder.assert_count("approval:required", 2);
    let granted: Vec<Value> = recorder
        .of("approval:granted")
        .iter()
        .map(|r| r.data().clone())
        .collect();
    let denied: Vec<Value> = recorder
        .of("approval:denied")
        .iter()
        .map(|r| r.data().clone())
        .collect();
    assert_eq!(granted.len(), 1);
    assert_eq!(granted[0]["choice"], "Allow once");
    assert_eq!(granted[0]["prompt"], "Allow write to production.env?");
    assert_eq!(granted[0]["hook"], "production_guard");
    assert_eq!(granted[0]["event"], "tool:pre");
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["choice"], "Deny");
    assert_eq!(denied[0]["decided_by"], "the user");
}

// The injection policy.

fn inject_on_post(registry: &HookRegistry, result: HookResult) {
    answer(registry, "tool:post", "feedback", result);
}

#[tokio::test]
async fn the_turn_budget_refuses_injections_once_spent_and_resets_at_the_next_prompt() {
    let registry = HookRegistry::new();
    inject_on_post(&registry, HookResult::inject("x".repeat(32))); // 8 tokens
    let policy = InjectionPolicy {
        budget_per_turn: Some(10),
        ..InjectionPolicy::default()
    };
    let rig = rig(&registry, None, policy);
    let tool = MockTool::new("read_file").returning(json!("contents"));

    let first = rig.session.run_tool(&tool, json!({})).await;
    let second = rig.session.run_tool(&tool, json!({})).await;
    assert!(matches!(
        rig.session.submit_prompt("next turn").await,
        Proceed::Yes(_)
    ));
    let third = rig.session.run_tool(&tool, json!({})).await;

    assert_eq!(first.injections[0].disposition, Disposition::Delivered);
    assert_eq!(
        second.injections[0].disposition,
        Disposition::RejectedBudgetSpent {
            tokens: 8,
            remaining: 2
        }
    );
    assert_eq!(second.injections[0].placement, Placement::Rejected);
    assert_eq!(
        third.injections[0].disposition,
        Disposition::Delivered,
        "the budget reset"
    );
    let warnings: Vec<_> = rig
        .display
        .shown()
        .into_iter()
        .filter(|m| m.level == MessageLevel::Warning && &*m.hook == "injection_policy")
        .collect();
    assert_eq!(warnings.len(), 1, "the rejection is visible, not silent");
    assert!(warnings[0].text.contains("budget"), "{}", warnings[0].text);
    let stored = rig
        .context
        .messages()
        .iter()
        .filter(|m| m.kind == MessageKind::Injection)
        .count();
    assert_eq!(stored, 2);
}

#[tokio::test]
async fn an_oversized_injection_is_truncated_with_a_warning() {
    let registry = HookRegistry::new();
    inject_on_post(&registry, HookResult::inject("lint ".repeat(1000))); // 5,000 bytes
    let policy = InjectionPolicy {
        size_limit: Some(1024),
        ..InjectionPolicy::default()
    };
    let rig = rig(&registry, None, policy);
    let tool = MockTool::new("write_file").returning(json!("ok"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    let audit = &outcome.injections[0];
    assert_eq!(
        audit.disposition,
        Disposition::Truncated {
            original_bytes: 5000
        }
    );
    assert!(audit.text.len() <= 1024 && audit.text.starts_with("lint lint"));
    let stored = rig.context.messages();
    assert!(
        stored
            .iter()
            .any(|m| m.kind == MessageKind::Injection && m.content == audit.text)
    );
    assert!(
        rig.display
            .shown()
            .iter()
            .any(|m| m.text.contains("truncated"))
    );
}

#[tokio::test]
async fn an_oversized_injection_is_rejected_whole_when_the_policy_says_so() {
    let registry = HookRegistry::new();
    inject_on_post(&registry, HookResult::inject("y".repeat(20 * 1024)));
    let policy = InjectionPolicy {
        oversize: Oversize::Reject,
        ..InjectionPolicy::default()
    };
    let rig = rig(&registry, None, policy);
    let tool = MockTool::new("write_file").returning(json!("ok"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    assert_eq!(
        outcome.injections[0].disposition,
        Disposition::RejectedTooLarge {
            bytes: 20 * 1024,
            limit: 10 * 1024
        }
    );
    assert!(
        rig.context
            .messages()
            .iter()
            .all(|m| m.kind != MessageKind::Injection)
    );
    assert!(
        rig.display
            .shown()
            .iter()
            .any(|m| m.text.contains("rejected"))
    );
    assert_eq!(rig.session.audit_log().len(), 1, "the rejection is audited");
}

#[tokio::test]
async fn every_injection_is_audited_with_provenance_and_emitted() {
    let registry = HookRegistry::new();
    inject_on_post(
        &registry,
        HookResult::inject("lint: ok").with_role(InjectionRole::User),
    );
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("ok"));

    rig.session.run_tool(&tool, json!({})).await;

    let log = rig.session.audit_log();
    assert_eq!(log.len(), 1);
    assert_eq!((&*log[0].hook, &*log[0].event), ("feedback", "tool:post"));
    assert_eq!(log[0].at.len(), 24, "an RFC 3339 time");
    let emitted: Vec<Value> = recorder
        .of(INJECTION_AUDIT_EVENT)
        .iter()
        .map(|r| r.data().clone())
        .collect();
    assert_eq!(emitted.len(), 1);
    assert_eq!(emitted[0]["hook"], "feedback");
    assert_eq!(emitted[0]["text"], "lint: ok");
    assert_eq!(emitted[0]["disposition"]["kind"], "delivered");
}

#[tokio::test]
async fn a_limitless_policy_delivers_everything() {
    let registry = HookRegistry::new();
    inject_on_post(&registry, HookResult::inject("z".repeat(200_000)));
    let rig = rig(&registry, None, InjectionPolicy::unlimited());
    let tool = MockTool::new("write_file").returning(json!("ok"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    assert_eq!(outcome.injections[0].disposition, Disposition::Delivered);
    assert_eq!(outcome.injections[0].text.len(), 200_000);
}

// Placement: ephemeral, persistent, appended; roles.

#[tokio::test]
async fn an_ephemeral_injection_reaches_the_next_model_call_only_and_never_the_history() {
    let registry = HookRegistry::new();
    inject_on_post(
        &registry,
        HookResult::inject("todo: 2 open").with_ephemeral(true),
    );
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("ok"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;
    let first_call = rig.session.provider_request(json!({"messages": []})).await;
    let second_call = rig.session.provider_request(json!({"messages": []})).await;

    assert_eq!(outcome.injections[0].placement, Placement::NextModelCall);
    assert!(
        rig.context
            .messages()
            .iter()
            .all(|m| !m.content.contains("todo")),
        "not stored"
    );
    let Proceed::Yes(ModelRequest { ephemeral, .. }) = first_call else {
        panic!("{first_call:?}")
    };
    assert_eq!(ephemeral.len(), 1);
    assert_eq!(ephemeral[0].content, "todo: 2 open");
    let Proceed::Yes(ModelRequest { ephemeral, .. }) = second_call else {
        panic!("{second_call:?}")
    };
    assert!(ephemeral.is_empty(), "delivered once");
}

#[tokio::test]
async fn persistent_injections_keep_their_role_and_can_append_to_the_tool_result() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async {
                HookResult::inject("note: file is generated").with_role(InjectionRole::Assistant)
            },
            0,
            "note",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async {
                HookResult::inject("lint: 1 warning").with_append_to_last_tool_result(true)
            },
            1,
            "lint",
        )
        .unwrap();
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("wrote 3 lines"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    let history = rig.context.messages();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[0].kind, MessageKind::ToolResult);
    assert_eq!(history[0].content, "wrote 3 lines\n\nlint: 1 warning");
    assert_eq!(history[1].kind, MessageKind::Injection);
    assert_eq!(history[1].role, InjectionRole::Assistant);
    assert_eq!(history[1].hook.as_deref(), Some("note"));
    assert_eq!(
        outcome.injections[1].placement,
        Placement::AppendedToToolResult
    );
}

// Output control.

#[tokio::test]
async fn user_messages_reach_the_display_and_suppress_output_never_hides_the_tool_output() {
    let registry = HookRegistry::new();
    inject_on_post(
        &registry,
        HookResult::cont()
            .with_user_message("formatted 3 files", MessageLevel::Info)
            .with_suppress_output(true),
    );
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("format").returning(json!("diff: 3 files changed"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    assert_eq!(
        outcome.status,
        ToolCallStatus::Ran {
            output: json!("diff: 3 files changed")
        }
    );
    assert_eq!(outcome.agent_message(), "diff: 3 files changed");
    let shown = rig.display.shown();
    assert_eq!(shown.len(), 1);
    assert_eq!(
        (shown[0].text.as_str(), shown[0].level),
        ("formatted 3 files", MessageLevel::Info)
    );
    assert!(shown[0].suppress_output);
}

#[tokio::test]
async fn a_failing_hook_is_shown_to_the_user_as_a_warning() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { Err::<HookResult, _>("metrics backend unreachable") },
            0,
            "metrics",
        )
        .unwrap();
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("read_file").returning(json!("ok"));

    let outcome = rig.session.run_tool(&tool, json!({})).await;

    assert!(
        matches!(outcome.status, ToolCallStatus::Ran { .. }),
        "a failing observer changes nothing"
    );
    let shown = rig.display.shown();
    assert_eq!(shown.len(), 1);
    assert_eq!(
        (&*shown[0].hook, &*shown[0].event, shown[0].level),
        ("metrics", "tool:post", MessageLevel::Warning)
    );
    assert!(
        shown[0].text.contains("metrics backend unreachable"),
        "{}",
        shown[0].text
    );
}

// The tool-call gate.

#[tokio::test]
async fn a_denied_tool_never_runs_and_the_agent_is_told_why() {
    let registry = HookRegistry::new();
    answer(
        &registry,
        "tool:pre",
        "safety",
        HookResult::deny("rm -rf is blocked; delete files one by one"),
    );
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("bash").returning(json!(""));

    let outcome = rig
        .session
        .run_tool(&tool, json!({"command": "rm -rf /"}))
        .await;

    assert!(tool.inputs().is_empty());
    recorder.assert_not_emitted("tool:post");
    assert_eq!(outcome.input, json!({"command": "rm -rf /"}));
    assert!(
        outcome.agent_message().contains("rm -rf is blocked"),
        "{}",
        outcome.agent_message()
    );
    let history = rig.context.messages();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].kind, MessageKind::ToolResult);
    assert!(history[0].content.contains("rm -rf is blocked"));
}

#[tokio::test]
async fn a_modified_tool_input_is_what_the_tool_receives() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"]["path"] = json!("sandbox/out.txt");
                async move { HookResult::modify(data).with_reason("writes go to the sandbox") }
            },
            0,
            "sandbox",
        )
        .unwrap();
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("write_file").returning(json!("ok"));

    let outcome = rig
        .session
        .run_tool(&tool, json!({"path": "/tmp/out.txt", "content": "x"}))
        .await;

    let expected = json!({"path": "sandbox/out.txt", "content": "x"});
    assert_eq!(tool.inputs(), vec![expected.clone()]);
    assert_eq!(outcome.input, expected);
}

#[tokio::test]
async fn a_failing_tool_emits_tool_error_not_tool_post() {
    let registry = HookRegistry::new();
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = tool_fn("read_file", |_: Value| async {
        Err(ToolError::new("no such file: a.txt"))
    });

    let outcome = rig.session.run_tool(&tool, json!({"path": "a.txt"})).await;

    assert_eq!(
        outcome.status,
        ToolCallStatus::Errored {
            error: "no such file: a.txt".into()
        }
    );
    recorder.assert_not_emitted("tool:post");
    let errors: Vec<Value> = recorder
        .of("tool:error")
        .iter()
        .map(|r| r.data().clone())
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["tool_name"], "read_file");
    assert_eq!(errors[0]["tool_input"], json!({"path": "a.txt"}));
    assert_eq!(errors[0]["error"], "no such file: a.txt");
}

#[tokio::test]
async fn tool_post_hooks_may_rewrite_or_withhold_the_output() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                let redacted = data["tool_result"]
                    .as_str()
                    .unwrap_or("")
                    .replace("sk-123", "sk-***");
                data["tool_result"] = json!(redacted);
                async move { HookResult::modify(data) }
            },
            0,
            "redact",
        )
        .unwrap();
    let rig1 = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("cat").returning(json!("KEY=sk-123"));
    let rewritten = rig1.session.run_tool(&tool, json!({})).await;
    assert_eq!(
        rewritten.status,
        ToolCallStatus::Ran {
            output: json!("KEY=sk-***")
        }
    );

    answer(
        &registry,
        "tool:post",
        "secrets_guard",
        HookResult::deny("the output holds a secret"),
    );
    let rig2 = rig(&registry, None, InjectionPolicy::default());
    let withheld = rig2.session.run_tool(&tool, json!({})).await;
    assert_eq!(
        withheld.status,
        ToolCallStatus::Withheld {
            reason: "the output holds a secret".into()
        }
    );
    assert!(rig2.context.messages()[0].content.contains("withheld"));
}

#[tokio::test]
async fn a_tool_pre_hook_that_drops_the_input_blocks_the_call() {
    let registry = HookRegistry::new();
    answer(
        &registry,
        "tool:pre",
        "broken",
        HookResult::modify(json!({"tool_name": "bash"})),
    );
    let rig = rig(&registry, None, InjectionPolicy::default());
    let tool = MockTool::new("bash").returning(json!(""));

    let outcome = rig.session.run_tool(&tool, json!({"command": "ls"})).await;

    assert!(matches!(
        outcome.status,
        ToolCallStatus::Blocked(Blocked::InvalidModification { .. })
    ));
    assert!(
        tool.inputs().is_empty(),
        "fail closed: the tool does not run"
    );
}

// Prompt and model-request helpers.

#[tokio::test]
async fn submit_prompt_applies_a_rewrite_or_a_refusal() {
    let registry = HookRegistry::new();
    registry
        .register(
            "prompt:submit",
            |_: &str, data: &Value| {
                let prompt = data["prompt"].as_str().unwrap_or_default().to_owned();
                async move {
                    if prompt.contains("drop table") {
                        HookResult::deny("destructive SQL is not accepted as a prompt")
                    } else {
                        HookResult::modify(json!({"prompt": prompt.trim()}))
                    }
                }
            },
            0,
            "prompt_guard",
        )
        .unwrap();
    let rig = rig(&registry, None, InjectionPolicy::default());

    assert_eq!(
        rig.session.submit_prompt("  list files  ").await,
        Proceed::Yes("list files".into())
    );
    assert!(matches!(
        rig.session.submit_prompt("please drop table users").await,
        Proceed::No(Blocked::ByHook { hook: Some(hook), .. }) if &*hook == "prompt_guard"
    ));
}

#[tokio::test]
async fn provider_request_hands_the_redacted_request_to_the_model() {
    let registry = HookRegistry::new();
    registry
        .register(
            "provider:request",
            |_: &str, data: &Value| {
                let text = data["request"]
                    .to_string()
                    .replace("sk-live-42", "[REDACTED]");
                let request: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                async move { HookResult::modify(json!({"request": request})) }
            },
            0,
            "redaction",
        )
        .unwrap();
    let rig = rig(&registry, None, InjectionPolicy::default());

    let cleared = rig
        .session
        .provider_request(json!({"messages": [{"role": "user", "content": "key sk-live-42"}]}))
        .await;

    let Proceed::Yes(ModelRequest { request, .. }) = cleared else {
        panic!("{cleared:?}")
    };
    assert_eq!(request["messages"][0]["content"], "key [REDACTED]");
}

/// A history that drops what it is given, and says so.
#[derive(Default)]
struct Forgetful {
    given: std::sync::Mutex<Vec<ContextMessage>>,
}

impl ContextSink for Forgetful {
    fn add_message(&self, message: ContextMessage) {
        self.given.lock().unwrap().push(message);
    }

    fn append_to_last_tool_result(&self, _text: &str) -> bool {
        false
    }

    fn keeps_history(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn a_history_that_keeps_nothing_is_not_given_tool_results_but_still_injections() {
    let registry = HookRegistry::new();
    answer(
        &registry,
        "tool:post",
        "note",
        HookResult::inject("remember the note"),
    );
    let history = Arc::new(Forgetful::default());
    let session = HookSession::builder(registry.clone())
        .context(history.clone())
        .build();
    let tool = tool_fn("read", |_| async { Ok(json!({"lines": 3})) });
    let outcome = session.run_tool(&tool, json!({})).await;
    assert_eq!(outcome.agent_message(), r#"{"lines":3}"#);
    let given = history.given.lock().unwrap();
    assert!(
        given.iter().all(|m| m.kind != MessageKind::ToolResult),
        "{given:?}"
    );
    assert!(
        given
            .iter()
            .any(|m| m.content.contains("remember the note")),
        "{given:?}"
    );
}

#[tokio::test]
async fn the_outcome_says_whether_a_tool_post_hook_rewrote_the_data() {
    let tool = tool_fn("read", |_| async { Ok(json!({"lines": 3})) });
    let quiet = HookRegistry::new();
    answer(&quiet, "tool:post", "noop", HookResult::cont());
    let untouched = HookSession::builder(quiet)
        .build()
        .run_tool(&tool, json!({}))
        .await;
    assert!(!untouched.output_rewritten);
    let rewriting = HookRegistry::new();
    answer(
        &rewriting,
        "tool:post",
        "shorten",
        HookResult::modify(json!({"tool_name": "read", "tool_result": {"lines": 1}})),
    );
    let rewritten = HookSession::builder(rewriting)
        .build()
        .run_tool(&tool, json!({}))
        .await;
    assert!(rewritten.output_rewritten);
    assert_eq!(
        rewritten.status,
        ToolCallStatus::Ran {
            output: json!({"lines": 1})
        }
    );
}
