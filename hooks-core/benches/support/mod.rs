//! What the emit benchmarks share: handlers that answer at once, the registries and payloads
//! of the cases, and a way to drive an emit without an executor.

#![allow(dead_code)] // each bench binary uses its own part

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hooks_core::decision::ToolPreDecision;
use hooks_core::view::ToolPre;
use hooks_core::{HookOptions, HookRegistry, HookResult};
use serde_json::{Value, json};

/// Drives a future that must complete without waiting (every handler here is ready at once).
pub fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a benchmarked emit waited; its handlers must answer at once"),
    }
}

/// A handler with nothing to say.
pub async fn noop(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

/// A registry with `count` no-op handlers on `tool:pre`.
pub fn with_noops(count: usize) -> HookRegistry {
    let registry = HookRegistry::new();
    for i in 0..count {
        registry
            .register("tool:pre", noop, i as i32, format!("noop_{i}"))
            .expect("tool:pre is canonical");
    }
    registry
}

/// The payload of the handler-count cases: a small `tool:pre` event.
pub fn small() -> Value {
    json!({"tool_name": "bash"})
}

/// A `tool:pre` payload whose `tool_input.content` makes it about `bytes` long as JSON.
pub fn payload(bytes: usize) -> Value {
    json!({
        "tool_name": "write_file",
        "tool_input": {"file_path": "src/lib.rs", "content": "x".repeat(bytes.saturating_sub(80))},
        "session_id": "bench-session",
    })
}

/// A handler that denies everything.
pub async fn deny(_event: &str, _data: &Value) -> HookResult {
    HookResult::deny("denied")
}

/// 100 handlers on `tool:pre`, the one at priority `denier` denying, the others no-ops.
pub fn deny_at(denier: i32) -> HookRegistry {
    let registry = HookRegistry::new();
    for i in 0..100 {
        let name = format!("hook_{i}");
        if i == denier {
            registry.register("tool:pre", deny, i, name)
        } else {
            registry.register("tool:pre", noop, i, name)
        }
        .expect("tool:pre is canonical");
    }
    registry
}

/// Ten handlers on `tool:pre` that each rewrite one field of the payload (each pays for its
/// own copy).
pub fn modify_chain() -> HookRegistry {
    let registry = HookRegistry::new();
    for i in 0..10 {
        registry
            .register(
                "tool:pre",
                move |_: &str, data: &Value| {
                    let mut changed = data.clone();
                    changed["step"] = json!(i);
                    async move { HookResult::modify(changed) }
                },
                i,
                format!("modify_{i}"),
            )
            .expect("tool:pre is canonical");
    }
    registry
}

/// Ten handlers on `app:collect` that each answer with a one-field object.
pub fn collectors() -> HookRegistry {
    let registry = HookRegistry::new();
    for i in 0..10 {
        registry
            .register(
                "app:collect",
                move |_: &str, _: &Value| async move {
                    HookResult::cont().with_data(json!({"from": i}))
                },
                i,
                format!("collect_{i}"),
            )
            .expect("app:collect is a valid custom event");
    }
    registry
}

/// A realistic `tool:pre` payload for the typed-versus-JSON case.
pub fn tool_call() -> Value {
    json!({
        "tool_name": "bash",
        "tool_input": {"command": "cargo test --workspace"},
        "tool_call_id": "call_1",
        "session_id": "bench-session"
    })
}

/// The policy of the typed-versus-JSON case, written against the JSON: read `tool_name` and
/// `tool_input.command` by key.
pub async fn json_policy(_event: &str, data: &Value) -> HookResult {
    let Some(tool) = data["tool_name"].as_str() else {
        return HookResult::deny("tool:pre without a tool name");
    };
    match data["tool_input"]["command"].as_str() {
        Some(command) if tool == "bash" && command.starts_with("sudo ") => {
            HookResult::deny("no sudo")
        }
        _ => HookResult::cont(),
    }
}

/// The same policy through the typed view and a decision.
pub async fn typed_policy(call: ToolPre<'_>) -> ToolPreDecision {
    match call.tool_input()["command"].as_str() {
        Some(command) if call.tool_name() == "bash" && command.starts_with("sudo ") => {
            ToolPreDecision::deny("no sudo")
        }
        _ => ToolPreDecision::proceed(),
    }
}

/// A registry with [`json_policy`] on `tool:pre`.
pub fn json_policy_registry() -> HookRegistry {
    let registry = HookRegistry::new();
    registry
        .register("tool:pre", json_policy, 0, "json_policy")
        .expect("tool:pre is canonical");
    registry
}

/// A registry with [`typed_policy`] on its view's event, `tool:pre`.
pub fn typed_policy_registry() -> HookRegistry {
    let registry = HookRegistry::new();
    registry
        .register_view(typed_policy, HookOptions::new().name("typed_policy"))
        .expect("a view's event is canonical");
    registry
}
