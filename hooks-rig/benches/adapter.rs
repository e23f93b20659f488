//! What the rig adapter adds to a tool call beyond the registry's own emits.
//!
//! Run with `cargo bench -p hooks-rig --bench adapter`. Each iteration is one tool call:
//!
//! - `adapter/hook`: the hook's dispatch and outcome boundaries (what rig's `on_dispatch`
//!   and `on_outcome` call), i.e. parsing the arguments, building both events' data with the
//!   run's ids, `tool:pre` and `tool:post`, and applying their results through the session;
//! - `adapter/bare_emits`: the two emits alone, with the same data built from an
//!   already-parsed input, as an application calling the registry by hand would do.
//!
//! Both registries hold one no-op handler on each event, which answers on its first poll;
//! each future is driven by a single poll with a no-op waker, so no executor is measured.
//! The adapter's cost is the difference of the two medians.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::{HookRegistry, HookResult};
use hooks_rig::{RigHooks, RunIds};
use rig_agent::agent::{DispatchEvent, OutcomeEvent, RunId};
use rig_agent::core::effect::{EffectId, EffectKind, Outcome};
use rig_agent::core::message::CallId;
use rig_agent::tool::{ToolOutput, ToolResult};
use serde_json::{Map, Value, json};

/// Drives a future that must complete without waiting.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a benchmarked call waited; its handlers must answer at once"),
    }
}

async fn noop(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

fn registry() -> HookRegistry {
    let registry = HookRegistry::new();
    for event in ["tool:pre", "tool:post"] {
        registry
            .register(event, noop, 0, "noop")
            .expect("a canonical event");
    }
    registry
}

fn adapter(c: &mut Criterion) {
    let args = r#"{"path":"src/main.rs","line":42}"#;
    let kind = EffectKind::ToolCall {
        name: "read_file".to_owned(),
        args: args.to_owned(),
    };
    let call_id = CallId::from_wire("call-1");
    let outcome = Ok(Outcome::ToolResult {
        result: ToolResult::success(ToolOutput::text("fn main() {}")),
    });
    let ids = RunIds {
        run_id: RunId::new(),
        turn: 1,
        agent_name: Some("bench"),
    };
    let mut group = c.benchmark_group("adapter");

    let hooks = RigHooks::new(registry());
    group.bench_function("hook", |b| {
        b.iter(|| {
            let dispatch = DispatchEvent {
                id: EffectId::from_raw(1),
                kind: &kind,
                turn: 1,
                call_id: Some(&call_id),
                context: None,
            };
            black_box(ready(hooks.dispatch(&ids, &dispatch)));
            let answer = OutcomeEvent {
                id: EffectId::from_raw(1),
                kind: &kind,
                outcome: &outcome,
                turn: 1,
                call_id: Some(&call_id),
                context: None,
            };
            black_box(ready(hooks.outcome(&ids, &answer)));
        });
    });

    let bare = registry();
    let input: Value = serde_json::from_str(args).expect("JSON arguments");
    let run_id = ids.run_id.to_string();
    let base = || {
        let mut data = Map::with_capacity(7);
        data.insert("run_id".into(), Value::from(run_id.as_str()));
        data.insert("turn".into(), json!(1));
        data.insert("agent_name".into(), json!("bench"));
        data.insert("tool_name".into(), json!("read_file"));
        data.insert("tool_call_id".into(), json!("call-1"));
        data.insert("tool_input".into(), input.clone());
        data
    };
    group.bench_function("bare_emits", |b| {
        b.iter(|| {
            black_box(ready(bare.emit("tool:pre", Value::Object(base()))));
            let mut post = base();
            post.insert("tool_result".into(), json!("fn main() {}"));
            black_box(ready(bare.emit("tool:post", Value::Object(post))));
        });
    });
    group.finish();
}

criterion_group!(benches, adapter);
criterion_main!(benches);
