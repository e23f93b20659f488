//! The spans of every decision (`hooks_core::trace`): what a subscriber sees of an emit, its
//! handlers, a tool call, an approval and an injection, and that texts written by hooks reach
//! a field only through the installed redactor.

#![cfg(feature = "spans")]
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::session::gate::BeforeTool;
use hooks_core::session::{HookSession, InMemoryContext, ScriptedApprovals};
use hooks_core::{HookOptions, HookRegistry, HookResult};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as the subscriber saw it.
#[derive(Debug, Clone, Default)]
struct SeenSpan {
    id: u64,
    name: String,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

/// One event, with the span it was recorded in.
#[derive(Debug, Clone, Default)]
struct SeenEvent {
    span: Option<u64>,
    fields: BTreeMap<String, String>,
}

#[derive(Default)]
struct Seen {
    spans: Vec<SeenSpan>,
    events: Vec<SeenEvent>,
}

impl Seen {
    fn spans(&self, name: &str) -> Vec<&SeenSpan> {
        self.spans.iter().filter(|s| s.name == name).collect()
    }

    fn events(&self, message: &str) -> Vec<&SeenEvent> {
        self.events
            .iter()
            .filter(|e| e.fields.get("message").map(String::as_str) == Some(message))
            .collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

/// A layer that records every span of the `hooks` target with its fields and parent.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Seen>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut span = SeenSpan {
            id: id.into_u64(),
            name: attrs.metadata().name().to_owned(),
            parent: ctx
                .span(id)
                .and_then(|s| s.parent())
                .map(|p| p.id().into_u64()),
            ..SeenSpan::default()
        };
        attrs.record(&mut Fields(&mut span.fields));
        self.0.lock().unwrap().spans.push(span);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut seen = self.0.lock().unwrap();
        if let Some(span) = seen.spans.iter_mut().find(|s| s.id == id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if event.metadata().target() != hooks_core::trace::TARGET {
            return;
        }
        let mut seen = SeenEvent {
            span: ctx.event_span(event).map(|s| s.id().into_u64()),
            ..SeenEvent::default()
        };
        event.record(&mut Fields(&mut seen.fields));
        self.0.lock().unwrap().events.push(seen);
    }
}

/// Runs `body` on a runtime with a capturing subscriber; returns what it saw.
fn capture<F: Future>(body: impl FnOnce() -> F) -> Seen {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(body());
    });
    std::mem::take(&mut *capture.0.lock().unwrap())
}

fn field<'a>(span: &'a SeenSpan, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

const FAKE_KEY: &str = "sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE";

async fn no_rm(_: &str, data: &Value) -> HookResult {
    match data["tool_input"]["command"].as_str() {
        Some(command) if command.starts_with("rm ") => {
            HookResult::deny(format!("rm is disabled (key {FAKE_KEY})"))
        }
        _ => HookResult::cont(),
    }
}

async fn audit(_: &str, _: &Value) -> HookResult {
    HookResult::cont()
}

fn deny_registry() -> HookRegistry {
    let registry = HookRegistry::new();
    registry.register("tool:pre", audit, 0, "audit").unwrap();
    registry.register("tool:pre", no_rm, 10, "no_rm").unwrap();
    registry
}

fn rm_call() -> Value {
    json!({
        "tool_name": "Bash",
        "tool_call_id": "toolu_01",
        "session_id": "sess-7",
        "tool_input": {"command": format!("rm -rf build --token {FAKE_KEY}")},
    })
}

/// Texts from hooks are left out without a redactor and redacted with one; both in one test,
/// since the redactor is process-wide.
#[test]
fn a_denied_emit_is_a_span_with_its_rule_and_a_child_per_handler() {
    let seen = capture(|| async { deny_registry().emit("PreToolUse", rm_call()).await });

    let emits = seen.spans(hooks_core::trace::EMIT_SPAN);
    assert_eq!(emits.len(), 1, "{:?}", seen.spans);
    let emit = emits[0];
    assert_eq!(field(emit, "hooks.event"), Some("tool:pre"));
    assert_eq!(field(emit, "gen_ai.tool.name"), Some("Bash"));
    assert_eq!(field(emit, "gen_ai.tool.call.id"), Some("toolu_01"));
    assert_eq!(field(emit, "gen_ai.conversation.id"), Some("sess-7"));
    assert_eq!(field(emit, "hooks.handlers"), Some("2"));
    assert_eq!(field(emit, "hooks.action"), Some("deny"));
    assert_eq!(field(emit, "hooks.decided_by"), Some("no_rm"));
    assert_eq!(field(emit, "hooks.failures"), Some("0"));
    assert_eq!(
        field(emit, "hooks.reason"),
        None,
        "no redactor: no text from a hook"
    );

    let handlers = seen.spans(hooks_core::trace::HANDLER_SPAN);
    let answers: Vec<_> = handlers
        .iter()
        .map(|h| {
            assert_eq!(
                h.parent,
                Some(emit.id),
                "a handler span is a child of its emit"
            );
            (
                field(h, "hooks.hook.name").unwrap(),
                field(h, "hooks.hook.priority").unwrap(),
                field(h, "hooks.answer").unwrap(),
            )
        })
        .collect();
    assert_eq!(
        answers,
        [("audit", "0", "continue"), ("no_rm", "10", "deny")]
    );

    hooks_core::trace::set_redactor(Arc::new(|text: &str| text.replace(FAKE_KEY, "[REDACTED]")));
    let seen = capture(|| async { deny_registry().emit("PreToolUse", rm_call()).await });
    let emit = seen.spans(hooks_core::trace::EMIT_SPAN)[0];
    assert_eq!(
        field(emit, "hooks.reason"),
        Some("rm is disabled (key [REDACTED])")
    );
    let everything = format!("{:?}{:?}", seen.spans, seen.events);
    assert!(!everything.contains(FAKE_KEY), "{everything}");
}

#[test]
fn an_emit_nobody_hears_has_no_span() {
    let seen = capture(|| async { deny_registry().emit("tool:post", json!({})).await });
    assert!(seen.spans.is_empty(), "{:?}", seen.spans);
}

#[test]
fn a_failing_hook_is_an_error_span_and_a_failure_event() {
    let seen = capture(|| async {
        let registry = HookRegistry::new();
        registry
            .register_with(
                "tool:pre",
                |_: &str, _: &Value| async {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    HookResult::cont()
                },
                HookOptions::new()
                    .name("slow")
                    .timeout(Duration::from_millis(5)),
            )
            .unwrap();
        registry
            .register(
                "tool:pre",
                |_: &str, _: &Value| async { HookResult::modify(json!({"tool_input": {}})) },
                5,
                "rewrite",
            )
            .unwrap();
        registry
            .emit("tool:pre", json!({"tool_name": "Bash"}))
            .await
    });
    let emit = seen.spans(hooks_core::trace::EMIT_SPAN)[0];
    assert_eq!(field(emit, "hooks.failures"), Some("1"));
    assert_eq!(field(emit, "hooks.action"), Some("modify"));
    assert_eq!(field(emit, "hooks.modified_by"), Some("rewrite"));
    let slow = seen.spans(hooks_core::trace::HANDLER_SPAN)[0];
    assert_eq!(field(slow, "hooks.hook.name"), Some("slow"));
    assert_eq!(field(slow, "hooks.answer"), Some("failed"));
    assert_eq!(field(slow, "error.type"), Some("timeout"));
    assert_eq!(field(slow, "otel.status_code"), Some("ERROR"));
    let failures = seen.events(hooks_core::trace::FAILURE_EVENT);
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].span, Some(emit.id));
    assert_eq!(
        failures[0].fields.get("error.type").map(String::as_str),
        Some("timeout")
    );
    assert_eq!(
        failures[0]
            .fields
            .get("hooks.hook.name")
            .map(String::as_str),
        Some("slow")
    );
}

#[test]
fn a_tool_call_span_holds_its_emits_approval_and_injections() {
    let seen = capture(|| async {
        let registry = HookRegistry::new();
        registry
            .register(
                "tool:pre",
                |_: &str, _: &Value| async {
                    HookResult::ask("Run it?").with_context_injection("the shell is watched")
                },
                0,
                "ask_shell",
            )
            .unwrap();
        let session = HookSession::builder(registry)
            .context(Arc::new(InMemoryContext::new()))
            .approvals(Arc::new(ScriptedApprovals::choosing(["Deny"])))
            .build();
        let mut fields = serde_json::Map::new();
        fields.insert("tool_call_id".into(), json!("call-9"));
        let mut gate = session.tool_call_gate("shell").with_fields(fields);
        let before = gate.before(json!({"command": "ls"})).await;
        assert!(matches!(before, BeforeTool::Blocked { .. }), "{before:?}");
    });
    let calls = seen.spans(hooks_core::session::trace::TOOL_CALL_SPAN);
    assert_eq!(calls.len(), 1, "{:?}", seen.spans);
    let call = calls[0];
    assert_eq!(field(call, "otel.name"), Some("execute_tool shell"));
    assert_eq!(field(call, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field(call, "gen_ai.tool.name"), Some("shell"));
    assert_eq!(field(call, "gen_ai.tool.call.id"), Some("call-9"));
    assert_eq!(field(call, "hooks.outcome"), Some("blocked"));
    assert_eq!(field(call, "hooks.blocked_by"), Some("approval"));
    assert_eq!(field(call, "hooks.approval"), Some("denied"));
    assert_eq!(field(call, "hooks.injections"), Some("1"));
    assert!(
        seen.spans(hooks_core::session::trace::GATE_SPAN).is_empty(),
        "the tool call's span is the gate's"
    );

    let emit = seen
        .spans(hooks_core::trace::EMIT_SPAN)
        .into_iter()
        .find(|s| field(s, "hooks.event") == Some("tool:pre"))
        .unwrap();
    assert_eq!(emit.parent, Some(call.id));
    assert_eq!(field(emit, "hooks.action"), Some("ask_user"));

    let approvals = seen.events(hooks_core::session::trace::APPROVAL_EVENT);
    assert_eq!(approvals.len(), 1);
    assert_eq!(approvals[0].span, Some(call.id));
    let approval = &approvals[0].fields;
    assert_eq!(approval["hooks.approval"], "denied");
    assert_eq!(approval["hooks.approval.source"], "user");
    assert_eq!(approval["hooks.hook.name"], "ask_shell");

    let injections = seen.events(hooks_core::session::trace::INJECTION_EVENT);
    assert_eq!(injections.len(), 1);
    assert_eq!(injections[0].span, Some(call.id));
    let injection = &injections[0].fields;
    assert_eq!(injection["hooks.hook.name"], "ask_shell");
    assert_eq!(injection["hooks.injection.disposition"], "delivered");
    assert_eq!(injection["hooks.injection.placement"], "new_message");
    assert!(
        !format!("{:?}", seen.events).contains("the shell is watched"),
        "an injection's text is never recorded"
    );
}

#[test]
fn a_gate_outside_a_tool_call_is_a_gate_span() {
    let seen = capture(|| async {
        let registry = HookRegistry::new();
        registry
            .register(
                "prompt:submit",
                |_: &str, _: &Value| async { HookResult::deny("no prompts today") },
                0,
                "closed",
            )
            .unwrap();
        let session = HookSession::builder(registry).build();
        session.submit_prompt("hello").await
    });
    let gate = seen.spans(hooks_core::session::trace::GATE_SPAN)[0];
    assert_eq!(field(gate, "hooks.event"), Some("prompt:submit"));
    assert_eq!(field(gate, "hooks.outcome"), Some("blocked"));
    assert_eq!(field(gate, "hooks.blocked_by"), Some("closed"));
    let emit = seen.spans(hooks_core::trace::EMIT_SPAN)[0];
    assert_eq!(emit.parent, Some(gate.id));
}

/// A carrier that names every span by a made-up context and adopts only contexts of `00-`.
struct FakeCarrier {
    adopted: Mutex<Vec<String>>,
}

impl hooks_core::trace::ContextCarrier for FakeCarrier {
    fn adopt(&self, _span: &tracing::Span, context: &hooks_core::trace::TraceContext) -> bool {
        self.adopted
            .lock()
            .unwrap()
            .push(context.traceparent.clone());
        context.traceparent.starts_with("00-")
    }

    fn context_of(&self, _span: &tracing::Span) -> Option<hooks_core::trace::TraceContext> {
        Some(hooks_core::trace::TraceContext {
            traceparent: "00-made-up-01".to_owned(),
            tracestate: None,
        })
    }
}

#[test]
fn trace_context_crosses_processes_through_the_installed_carrier() {
    use hooks_core::trace::{TraceContext, adopt_remote_parent, trace_context_of};

    let context = |traceparent: &str| TraceContext {
        traceparent: traceparent.to_owned(),
        tracestate: None,
    };
    let carrier = Arc::new(FakeCarrier {
        adopted: Mutex::new(Vec::new()),
    });
    hooks_core::trace::set_context_carrier(carrier.clone());

    // A span nobody records is never handed to the carrier.
    assert!(!adopt_remote_parent(
        &tracing::Span::none(),
        &context("00-a-b-01")
    ));
    assert_eq!(trace_context_of(&tracing::Span::none()), None);
    assert!(carrier.adopted.lock().unwrap().is_empty());

    let subscriber = tracing_subscriber::registry().with(Capture::default());
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!(target: hooks_core::trace::TARGET, "recorded");
        assert!(adopt_remote_parent(&span, &context("00-a-b-01")));
        assert!(!adopt_remote_parent(&span, &context("garbage")));
        assert_eq!(
            trace_context_of(&span).map(|c| c.traceparent),
            Some("00-made-up-01".to_owned())
        );
    });
    assert_eq!(*carrier.adopted.lock().unwrap(), ["00-a-b-01", "garbage"]);
}
