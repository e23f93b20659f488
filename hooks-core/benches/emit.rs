//! The cost of `HookRegistry::emit` itself: the dispatch, merge and isolation around handlers
//! that do no work.
//!
//! Run with `cargo bench -p hooks-core --bench emit`. The handlers answer on their first poll,
//! so each emit is driven by a single poll with a no-op waker: what is measured is the
//! registry, not an executor's scheduling.
//!
//! Each measured iteration is what an orchestrator does: move a prepared payload into `emit`
//! and drop the result. Payloads are built in chunks outside the timed loop; `emit/floor`
//! times the same loop with the registry taken out (move the payload, drop it).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hooks_core::decision::ToolPreDecision;
use hooks_core::view::ToolPre;
use hooks_core::{HookRegistry, HookResult, hook};
use serde_json::Value;

mod support;
use support::{
    collectors, deny_at, json_policy_registry, modify_chain, noop, payload, ready, small,
    tool_call, typed_policy, typed_policy_registry, with_noops,
};

/// Times `iters` runs of `routine` on fresh payloads from `payload`, each result dropped at
/// once; building the payloads is not timed.
fn timed<T>(iters: u64, payload: impl Fn() -> Value, routine: impl Fn(Value) -> T) -> Duration {
    const CHUNK: u64 = 1024;
    let mut elapsed = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let inputs: Vec<Value> = (0..left.min(CHUNK)).map(|_| payload()).collect();
        left -= inputs.len() as u64;
        let start = Instant::now();
        for data in inputs {
            drop(black_box(routine(data)));
        }
        elapsed += start.elapsed();
    }
    elapsed
}

fn emit_noop_handlers(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/noop_handlers");
    for count in [0, 1, 10, 100] {
        let registry = with_noops(count);
        group.bench_with_input(
            BenchmarkId::from_parameter(count),
            &registry,
            |b, registry| {
                b.iter_custom(|iters| {
                    timed(iters, small, |data| {
                        ready(registry.emit(black_box("tool:pre"), data))
                    })
                });
            },
        );
    }
    group.finish();
}

/// The same loop without the registry: the payload is moved and dropped. Subtract it from the
/// figures above to get the registry's own cost.
fn harness_floor(c: &mut Criterion) {
    c.bench_function("emit/floor", |b| {
        b.iter_custom(|iters| timed(iters, small, |data| data));
    });
}

fn emit_unknown_event(c: &mut Criterion) {
    let registry = with_noops(10);
    c.bench_function("emit/unknown_event", |b| {
        b.iter_custom(|iters| {
            timed(iters, small, |data| {
                ready(registry.emit(black_box("app:nobody_listens"), data))
            })
        });
    });
    // The check an emitter can make before building an expensive payload.
    c.bench_function("has_handlers/unknown_event", |b| {
        b.iter(|| registry.has_handlers(black_box("app:nobody_listens")));
    });
    c.bench_function("has_handlers/listened_event", |b| {
        b.iter(|| registry.has_handlers(black_box("tool:pre")));
    });
}

/// Ten observers on a small and on a 64 KB payload, each beside its floor (the payload moved
/// and dropped without a registry) and beside the cost of one clone of it: margins over the
/// floors far below ten clones show that the payload is lent to each handler, never copied.
fn emit_payload_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/10_noop_handlers_payload");
    let registry = with_noops(10);
    for (label, bytes) in [("small", 100), ("64KB", 64 * 1024)] {
        let data = payload(bytes);
        group.bench_with_input(BenchmarkId::new("emit", label), &data, |b, data| {
            b.iter_custom(|iters| {
                timed(
                    iters,
                    || data.clone(),
                    |data| ready(registry.emit("tool:pre", data)),
                )
            });
        });
        group.bench_with_input(BenchmarkId::new("floor", label), &data, |b, data| {
            b.iter_custom(|iters| timed(iters, || data.clone(), |data| data));
        });
        // What one copy of the payload would cost: ten handlers would pay it ten times.
        group.bench_with_input(BenchmarkId::new("one_clone", label), &data, |b, data| {
            b.iter_custom(|iters| timed(iters, || data.clone(), |data| data.clone()));
        });
    }
    group.finish();
}

/// Ten handlers that each rewrite one field of a 1 KB or 64 KB payload: each pays for its own
/// copy, the registry adds none.
fn emit_modify_chain(c: &mut Criterion) {
    let registry = modify_chain();
    for (label, bytes) in [("1KB", 1024), ("64KB", 64 * 1024)] {
        let data = payload(bytes);
        c.bench_function(&format!("emit/modify_chain_10_handlers_{label}"), |b| {
            b.iter_custom(|iters| {
                timed(
                    iters,
                    || data.clone(),
                    |data| ready(registry.emit("tool:pre", data)),
                )
            });
        });
    }
}

/// A deny among 100 handlers: first, nothing after it runs; last, all 99 before it do.
fn emit_deny_first_versus_last(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/deny_of_100");
    for (label, denier) in [("first", 0), ("last", 99)] {
        let registry = deny_at(denier);
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                timed(iters, small, |data| ready(registry.emit("tool:pre", data)))
            });
        });
    }
    group.finish();
}

/// `emit_and_collect` over ten handlers that each answer with a small value.
fn emit_and_collect_10_handlers(c: &mut Criterion) {
    let registry = collectors();
    c.bench_function("emit_and_collect/10_handlers", |b| {
        b.iter_custom(|iters| {
            timed(iters, small, |data| {
                ready(registry.emit_and_collect("app:collect", data, Duration::from_secs(1)))
            })
        });
    });
}

/// Ten no-op handlers emitted to from this thread and a second one while a third registers
/// and unregisters a handler on the same event as fast as it can, beside the same emits with
/// nobody writing: readers never wait for a writer, so the two should be close.
fn emit_during_registration_churn(c: &mut Criterion) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut group = c.benchmark_group("emit/10_noop_handlers_2_threads");
    for churn in [false, true] {
        let registry = Arc::new(with_noops(10));
        let stop = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::new();
        {
            let (registry, stop) = (Arc::clone(&registry), Arc::clone(&stop));
            workers.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    drop(black_box(ready(registry.emit("tool:pre", small()))));
                }
            }));
        }
        let mut churned = None;
        if churn {
            let (registry, stop) = (Arc::clone(&registry), Arc::clone(&stop));
            let count = Arc::new(std::sync::atomic::AtomicU64::new(0));
            let counter = Arc::clone(&count);
            churned = Some(count);
            workers.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let handle = registry
                        .register("tool:pre", noop, 50, "churn")
                        .expect("tool:pre is canonical");
                    handle.unregister();
                    counter.fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
        let label = if churn {
            "with_registration_churn"
        } else {
            "quiet"
        };
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                timed(iters, small, |data| ready(registry.emit("tool:pre", data)))
            });
        });
        stop.store(true, Ordering::Relaxed);
        for worker in workers {
            worker.join().expect("a bench thread panicked");
        }
        if let Some(count) = churned {
            // Proof that the writer was busy the whole time, not starved.
            println!(
                "registrations during the run: {}",
                count.load(Ordering::Relaxed)
            );
        }
    }
    group.finish();
}

/// The ten functions of the annotated-versus-hand-registered case, with their priorities.
macro_rules! ten_noops {
    ($then:ident) => {
        $then!(
            a0 = 0,
            a1 = 1,
            a2 = 2,
            a3 = 3,
            a4 = 4,
            a5 = 5,
            a6 = 6,
            a7 = 7,
            a8 = 8,
            a9 = 9
        );
    };
}

/// Ten `#[hook]` functions on one event, for the annotated-versus-hand-registered case.
macro_rules! annotated_noops {
    ($($name:ident = $priority:literal),+) => {$(
        #[hook(event = "bench:annotated", priority = $priority)]
        async fn $name(_event: &str, _data: &Value) -> HookResult {
            HookResult::cont()
        }
    )+};
}

ten_noops!(annotated_noops);

/// An annotated hook is registered as an ordinary handler: it must cost the same to call.
fn emit_annotated_versus_hand_registered(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/10_handlers");
    let annotated = HookRegistry::new();
    let handles = annotated
        .register_annotated(|hook| hook.event() == "bench:annotated")
        .expect("bench events are valid");
    assert_eq!(handles.len(), 10, "all ten annotated hooks are linked");
    group.bench_function("annotated", |b| {
        b.iter_custom(|iters| {
            timed(iters, small, |data| {
                ready(annotated.emit("bench:annotated", data))
            })
        });
    });
    // The very same ten functions, registered by hand: only the registration route differs.
    let by_hand = HookRegistry::new();
    macro_rules! by_hand {
        ($($function:ident = $priority:literal),+) => {$(
            by_hand
                .register("bench:by_hand", $function, $priority, stringify!($function))
                .expect("bench events are valid");
        )+};
    }
    ten_noops!(by_hand);
    group.bench_function("hand_registered", |b| {
        b.iter_custom(|iters| {
            timed(iters, small, |data| {
                ready(by_hand.emit("bench:by_hand", data))
            })
        });
    });
    group.finish();
}

/// The typed policy again, registered by `#[hook]` (the event inferred from the view).
#[hook(name = "bench_typed_annotated")]
async fn typed_policy_annotated(call: ToolPre<'_>) -> ToolPreDecision {
    typed_policy(call).await
}

/// One handler reading `tool_name` and `tool_input` from the JSON, beside the same logic
/// through the typed view (registered by hand and by `#[hook]`): the view's cost is its
/// lookups of the fields, with no copy. Budget: typed at most 10% above JSON.
fn emit_typed_versus_json(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit/typed_vs_json");
    let json_registry = json_policy_registry();
    let typed_registry = typed_policy_registry();
    let annotated_registry = HookRegistry::new();
    let handles = annotated_registry
        .register_annotated(|hook| hook.name() == "bench_typed_annotated")
        .expect("a view's event is canonical");
    assert_eq!(handles.len(), 1, "the annotated typed hook is linked");
    for (label, registry) in [
        ("json", &json_registry),
        ("typed", &typed_registry),
        ("typed_annotated", &annotated_registry),
    ] {
        let outcome = ready(registry.emit("tool:pre", tool_call()));
        assert!(
            outcome.failures.is_empty() && !outcome.is_denied(),
            "{label}"
        );
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                timed(iters, tool_call, |data| {
                    ready(registry.emit("tool:pre", data))
                })
            });
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    emit_noop_handlers,
    harness_floor,
    emit_unknown_event,
    emit_payload_size,
    emit_modify_chain,
    emit_deny_first_versus_last,
    emit_and_collect_10_handlers,
    emit_during_registration_churn,
    emit_annotated_versus_hand_registered,
    emit_typed_versus_json
);
criterion_main!(benches);
