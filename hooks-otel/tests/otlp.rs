//! Against the real protocol: an OTLP/HTTP receiver on loopback decodes what the pipeline
//! sends with the official protobuf types, and the tests assert what arrived; and an
//! unreachable or silent collector costs at most the export timeout, never the decision.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks_core::session::gate::BeforeTool;
use hooks_core::session::{HookSession, InMemoryContext, ToolCallStatus, tool_fn};
use hooks_core::{HookAction, HookRegistry, HookResult};
use hooks_otel::{Telemetry, TelemetryConfig};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::trace::v1::{Span, status::StatusCode};
use prost::Message;
use serde_json::{Map, Value, json};
use support::Receiver;
use tracing_subscriber::layer::SubscriberExt;

/// A key in a format the redaction knows (an Anthropic API key); fake.
const FAKE_KEY: &str = "sk-ant-api03-Zq4xFAKEkeyFAKEkeyFAKEkeyFAKEkey0123456789ab";

fn attr<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Any> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn text<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    match attr(attributes, key) {
        Some(Any::StringValue(s)) => Some(s),
        _ => None,
    }
}

fn int(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match attr(attributes, key) {
        Some(Any::IntValue(i)) => Some(*i),
        _ => None,
    }
}

/// Every span of every trace request received.
fn spans(receiver: &Receiver) -> Vec<Span> {
    receiver.spans()
}

fn children<'a>(spans: &'a [Span], parent: &Span) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|s| s.parent_span_id == parent.span_id && s.trace_id == parent.trace_id)
        .collect()
}

fn config(endpoint: String, timeout_ms: u64) -> TelemetryConfig {
    TelemetryConfig {
        endpoint: Some(endpoint),
        service_name: Some("claude-hooks".into()),
        timeout_ms: Some(timeout_ms),
    }
}

fn register(
    registry: &HookRegistry,
    event: &str,
    priority: i32,
    name: &str,
    answer: fn(&Value) -> HookResult,
) {
    registry
        .register(
            event,
            move |_: &str, data: &Value| {
                let result = answer(data);
                async move { result }
            },
            priority,
            name,
        )
        .unwrap();
}

fn policy() -> HookRegistry {
    let registry = HookRegistry::new();
    register(&registry, "tool:pre", 0, "audit", |_| HookResult::cont());
    register(&registry, "tool:pre", 10, "no_rm", |data| {
        let command = data["tool_input"]["command"].as_str().unwrap_or_default();
        if command.starts_with("rm ") {
            HookResult::deny(format!("rm is disabled: `{command}`"))
        } else {
            HookResult::cont()
        }
    });
    register(&registry, "tool:pre", 20, "add_flags", |data| {
        let mut data = data.clone();
        if data["tool_input"]["command"] == "ls" {
            data["tool_input"]["command"] = json!("ls -la");
            HookResult::modify(data)
        } else {
            HookResult::cont()
        }
    });
    register(&registry, "tool:post", 0, "lint", |_| {
        HookResult::inject("lint: 2 warnings")
    });
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async {
                if true {
                    panic!("the linter crashed");
                }
                HookResult::cont()
            },
            5,
            "broken",
        )
        .unwrap();
    registry
}

fn call_fields(id: &str) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("tool_call_id".into(), json!(id));
    fields.insert("session_id".into(), json!("sess-1"));
    fields
}

/// A denied call, then a call whose input a hook rewrites and whose output gets an injection
/// and a crashing hook.
async fn two_calls(session: &HookSession) -> (BeforeTool, ToolCallStatus) {
    let denied = session
        .tool_call_gate("Bash")
        .with_fields(call_fields("call-denied"))
        .before(json!({"command": format!("rm -rf / --token {FAKE_KEY}")}))
        .await;
    let mut gate = session
        .tool_call_gate("Bash")
        .with_fields(call_fields("call-ran"));
    let BeforeTool::Proceed { input, .. } = gate.before(json!({"command": "ls"})).await else {
        panic!("ls is allowed");
    };
    let ran = gate.after(input, Ok(json!("a b c"))).await.status;
    (denied, ran)
}

#[test]
fn the_collector_receives_the_decisions_as_spans_and_metrics() {
    let receiver = Receiver::start(support::Reply::Ok);
    let telemetry = Telemetry::new(&config(receiver.endpoint(), 2_000)).unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let (denied, ran) = tracing::subscriber::with_default(subscriber, || {
        let session = HookSession::builder(policy())
            .context(Arc::new(InMemoryContext::new()))
            .build();
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(two_calls(&session))
    });
    assert!(matches!(denied, BeforeTool::Blocked { .. }), "{denied:?}");
    assert!(matches!(ran, ToolCallStatus::Ran { .. }), "{ran:?}");
    assert!(
        telemetry.flush(),
        "everything is exported within the timeout"
    );

    // Nothing of the secret reaches the collector, in any payload.
    let all = receiver.all_bodies();
    assert!(!all.is_empty());
    for body in &all {
        assert!(
            !body
                .windows(FAKE_KEY.len())
                .any(|w| w == FAKE_KEY.as_bytes()),
            "the secret was exported"
        );
    }
    let request = ExportTraceServiceRequest::decode(&receiver.bodies("/v1/traces")[0][..]).unwrap();
    let resource = request.resource_spans[0].resource.as_ref().unwrap();
    assert_eq!(
        text(&resource.attributes, "service.name"),
        Some("claude-hooks")
    );

    let spans = spans(&receiver);
    let call = |id: &str| {
        spans
            .iter()
            .find(|s| {
                text(&s.attributes, "gen_ai.tool.call.id") == Some(id)
                    && s.name.starts_with("execute_tool")
            })
            .unwrap_or_else(|| panic!("no tool call span {id}: {spans:#?}"))
    };

    // The denied call: its span, the emit that decided, one child per handler.
    let denied = call("call-denied");
    assert_eq!(denied.name, "execute_tool Bash");
    assert_eq!(denied.parent_span_id, Vec::<u8>::new(), "a root span");
    assert_eq!(
        text(&denied.attributes, "gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(text(&denied.attributes, "gen_ai.tool.name"), Some("Bash"));
    assert_eq!(text(&denied.attributes, "hooks.outcome"), Some("blocked"));
    assert_eq!(text(&denied.attributes, "hooks.blocked_by"), Some("no_rm"));
    let reason = text(&denied.attributes, "hooks.reason").unwrap();
    assert!(
        reason.starts_with("rm is disabled: `rm -rf / --token [REDACTED:"),
        "{reason}"
    );
    let emits = children(&spans, denied);
    assert_eq!(emits.len(), 1, "{emits:#?}");
    let emit = emits[0];
    assert_eq!(emit.name, "hooks.emit");
    assert_eq!(text(&emit.attributes, "hooks.event"), Some("tool:pre"));
    assert_eq!(text(&emit.attributes, "hooks.action"), Some("deny"));
    assert_eq!(text(&emit.attributes, "hooks.decided_by"), Some("no_rm"));
    assert_eq!(int(&emit.attributes, "hooks.handlers"), Some(3));
    assert_eq!(int(&emit.attributes, "hooks.failures"), Some(0));
    assert_eq!(
        text(&emit.attributes, "gen_ai.tool.call.id"),
        Some("call-denied")
    );
    assert_eq!(
        text(&emit.attributes, "gen_ai.conversation.id"),
        Some("sess-1")
    );
    assert!(emit.end_time_unix_nano >= emit.start_time_unix_nano);
    let handlers: Vec<_> = children(&spans, emit)
        .iter()
        .map(|h| {
            assert_eq!(h.name, "hooks.handler");
            (
                text(&h.attributes, "hooks.hook.name").unwrap(),
                text(&h.attributes, "hooks.answer").unwrap(),
            )
        })
        .collect();
    assert_eq!(
        handlers,
        [("audit", "continue"), ("no_rm", "deny")],
        "deny stops the chain"
    );

    // The call that ran: a modify before it, an injection and a crashing hook after it.
    let ran = call("call-ran");
    assert_eq!(text(&ran.attributes, "hooks.outcome"), Some("ran"));
    assert_eq!(
        attr(&ran.attributes, "hooks.input_rewritten"),
        Some(&Any::BoolValue(true))
    );
    let emits = children(&spans, ran);
    let emit_of = |event: &str| {
        *emits
            .iter()
            .find(|s| text(&s.attributes, "hooks.event") == Some(event))
            .unwrap()
    };
    let pre = emit_of("tool:pre");
    assert_eq!(text(&pre.attributes, "hooks.action"), Some("modify"));
    assert_eq!(
        text(&pre.attributes, "hooks.modified_by"),
        Some("add_flags")
    );
    let post = emit_of("tool:post");
    assert_eq!(
        text(&post.attributes, "hooks.action"),
        Some("inject_context")
    );
    assert_eq!(int(&post.attributes, "hooks.injections"), Some(1));
    assert_eq!(int(&post.attributes, "hooks.failures"), Some(1));
    let failure = post
        .events
        .iter()
        .find(|e| e.name == "hooks.failure")
        .unwrap();
    assert_eq!(text(&failure.attributes, "hooks.hook.name"), Some("broken"));
    assert_eq!(text(&failure.attributes, "error.type"), Some("panic"));
    let broken = children(&spans, post)
        .into_iter()
        .find(|h| text(&h.attributes, "hooks.hook.name") == Some("broken"))
        .unwrap();
    assert_eq!(text(&broken.attributes, "error.type"), Some("panic"));
    assert_eq!(
        broken.status.as_ref().unwrap().code,
        StatusCode::Error as i32
    );
    let injection = ran
        .events
        .iter()
        .find(|e| e.name == "hooks.injection")
        .unwrap();
    assert_eq!(text(&injection.attributes, "hooks.hook.name"), Some("lint"));
    assert_eq!(
        text(&injection.attributes, "hooks.injection.disposition"),
        Some("delivered")
    );
    assert_eq!(
        int(&injection.attributes, "hooks.injection.tokens"),
        Some(4)
    );
    assert!(
        !format!("{spans:?}").contains("lint: 2 warnings"),
        "an injection's text is not exported"
    );

    // The metrics, derived from the spans.
    let metrics: Vec<_> = receiver
        .bodies("/v1/metrics")
        .iter()
        .map(|body| ExportMetricsServiceRequest::decode(&body[..]).unwrap())
        .flat_map(|request| request.resource_metrics)
        .flat_map(|resource| resource.scope_metrics)
        .flat_map(|scope| scope.metrics)
        .collect();
    let metric = |name: &str| {
        metrics
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.data.as_ref())
            .unwrap_or_else(|| panic!("no metric {name}: {metrics:#?}"))
    };
    let Data::Sum(decisions) = metric("hooks.decisions") else {
        panic!("a counter")
    };
    let deny = decisions
        .data_points
        .iter()
        .find(|p| text(&p.attributes, "hooks.action") == Some("deny"))
        .unwrap();
    assert_eq!(text(&deny.attributes, "hooks.decided_by"), Some("no_rm"));
    assert_eq!(text(&deny.attributes, "hooks.event"), Some("tool:pre"));
    let Data::Histogram(latency) = metric("hooks.handler.duration") else {
        panic!("a histogram")
    };
    let no_rm: Vec<_> = latency
        .data_points
        .iter()
        .filter(|p| text(&p.attributes, "hooks.hook.name") == Some("no_rm"))
        .map(|p| (text(&p.attributes, "hooks.answer").unwrap(), p.count))
        .collect();
    assert_eq!(no_rm.len(), 2, "{no_rm:?}");
    assert!(
        no_rm.contains(&("deny", 1)) && no_rm.contains(&("continue", 1)),
        "{no_rm:?}"
    );
    let Data::Sum(failures) = metric("hooks.failures") else {
        panic!("a counter")
    };
    let panicked = &failures.data_points[0];
    assert_eq!(text(&panicked.attributes, "error.type"), Some("panic"));
    assert_eq!(
        text(&panicked.attributes, "hooks.hook.name"),
        Some("broken")
    );
}

/// Emits one denied call with telemetry pointed at `endpoint`; returns the action, the
/// flush's verdict and how long the flush took.
fn deny_then_flush(endpoint: String, timeout_ms: u64) -> (HookAction, bool, Duration) {
    let telemetry = Telemetry::new(&config(endpoint, timeout_ms)).unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let outcome = tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(policy().emit(
                "tool:pre",
                json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
            ))
    });
    let started = Instant::now();
    let flushed = telemetry.flush();
    (outcome.action(), flushed, started.elapsed())
}

/// The bound is generous: this checks the behaviour (a flush never waits on the collector
/// past the timeout), not a speed.
const SLACK: Duration = Duration::from_millis(300);

#[test]
fn a_collector_that_is_down_costs_at_most_the_timeout_and_not_the_decision() {
    let endpoint = support::closed_endpoint();
    let (action, _flushed, elapsed) = deny_then_flush(endpoint, 200);
    assert_eq!(action, HookAction::Deny);
    assert!(elapsed <= Duration::from_millis(200) + SLACK, "{elapsed:?}");
}

#[test]
fn a_collector_that_never_answers_costs_at_most_the_timeout() {
    let receiver = Receiver::start(support::Reply::Never);
    let (action, flushed, elapsed) = deny_then_flush(receiver.endpoint(), 200);
    assert_eq!(action, HookAction::Deny);
    assert!(!flushed, "nothing was acknowledged");
    assert!(
        elapsed >= Duration::from_millis(150),
        "the flush did wait: {elapsed:?}"
    );
    assert!(elapsed <= Duration::from_millis(200) + SLACK, "{elapsed:?}");
}

#[test]
fn the_run_tool_pipeline_is_unchanged_by_telemetry() {
    let receiver = Receiver::start(support::Reply::Ok);
    let telemetry = Telemetry::new(&config(receiver.endpoint(), 2_000)).unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let status = tracing::subscriber::with_default(subscriber, || {
        let session = HookSession::builder(policy()).build();
        let tool = tool_fn("Bash", |input: Value| async move { Ok(input) });
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(session.run_tool(&tool, json!({"command": "ls"})))
            .status
    });
    assert_eq!(
        status,
        ToolCallStatus::Ran {
            output: json!({"command": "ls -la"})
        }
    );
    assert!(telemetry.flush());
    assert!(
        spans(&receiver)
            .iter()
            .any(|s| s.name == "execute_tool Bash")
    );
}
