//! The cost of `HookRegistry::emit` itself: the dispatch, merge and isolation around handlers
//! that do no work.
//!
//! Run with `cargo bench -p hooks-core --bench emit`. The handlers answer on their first poll,
//! so each emit is driven by a single poll with a no-op waker: what is measured is the
//! registry, not an executor's scheduling.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use hooks_core::{HookRegistry, HookResult};
use serde_json::{Value, json};

/// Drives a future that must complete without waiting (every handler here is ready at once).
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a benchmarked emit waited; its handlers must answer at once"),
    }
}

async fn noop(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

/// A registry with `count` no-op handlers on `tool:pre`.
fn with_noops(count: usize) -> HookRegistry {
    let registry = HookRegistry::new();
    for i in 0..count {
        registry
            .register("tool:pre", noop, i as i32, format!("noop_{i}"))
            .expect("tool:pre is canonical");
    }
    registry
}

/// A `tool:pre` payload whose `tool_input.content` makes it about `bytes` long as JSON.
fn payload(bytes: usize) -> Value {
    json!({
        "tool_name": "write_file",
        "tool_input": {"file_path": "src/lib.rs", "content": "x".repeat(bytes.saturating_sub(80))},
        "session_id": "bench-session",
    })
}

fn emit_noop_handlers(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/noop_handlers");
    for count in [0, 1, 10, 100] {
        let registry = with_noops(count);
        group.bench_with_input(
            BenchmarkId::from_parameter(count),
            &registry,
            |b, registry| {
                b.iter_batched(
                    || json!({"tool_name": "bash"}),
                    |data| ready(registry.emit(black_box("tool:pre"), data)),
                    BatchSize::SmallInput,
                );
            },
        );
    }
    group.finish();
}

/// The harness floor: moving the payload in and an `EmitResult`-sized answer out, with no
/// registry at all. Subtract it from the figures above to get the registry's own cost.
fn harness_floor(c: &mut Criterion) {
    c.bench_function("emit/harness_floor", |b| {
        b.iter_batched(
            || json!({"tool_name": "bash"}),
            |data| black_box((data, [0_u64; 28])),
            BatchSize::SmallInput,
        );
    });
}

fn emit_unknown_event(c: &mut Criterion) {
    let registry = with_noops(10);
    c.bench_function("emit/unknown_event", |b| {
        b.iter_batched(
            || json!({"tool_name": "bash"}),
            |data| ready(registry.emit(black_box("app:nobody_listens"), data)),
            BatchSize::SmallInput,
        );
    });
}

/// Ten observers on a small and on a 64 KB payload: equal times show that the payload is
/// lent to each handler, never copied.
fn emit_payload_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/10_noop_handlers_payload");
    let registry = with_noops(10);
    for (label, bytes) in [("small", 100), ("64KB", 64 * 1024)] {
        let data = payload(bytes);
        group.bench_with_input(BenchmarkId::from_parameter(label), &data, |b, data| {
            b.iter_batched(
                || data.clone(),
                |data| ready(registry.emit("tool:pre", data)),
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

/// Ten handlers that each rewrite one field of a 1 KB payload: each pays for its own copy,
/// the registry adds none.
fn emit_modify_chain(c: &mut Criterion) {
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
    let data = payload(1024);
    c.bench_function("emit/modify_chain_10_handlers_1KB", |b| {
        b.iter_batched(
            || data.clone(),
            |data| ready(registry.emit("tool:pre", data)),
            BatchSize::SmallInput,
        );
    });
}

criterion_group!(
    benches,
    emit_noop_handlers,
    harness_floor,
    emit_unknown_event,
    emit_payload_size,
    emit_modify_chain
);
criterion_main!(benches);
