//! What a call to a trivial WebAssembly hook costs: instantiation from the template, the event
//! in, the answer out and read; on this thread, and through a registry's emit.

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::HookRegistry;
use hooks_core::module::HookModule;
use hooks_wasm::{Abi, WasmModule};
use serde_json::json;
use support::*;

fn calls(c: &mut Criterion) {
    let runtime = runtime();
    let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls -la"}});
    let allow = load(
        &runtime,
        "allow",
        &guest(&answer(CONTINUE, None), ""),
        Abi::Hooks,
    );
    let deny = load(
        &runtime,
        "deny",
        &guest(
            &answer(DENY, Some((REASON, 256, 5))),
            r#"(data (i32.const 256) "no rm")"#,
        ),
        Abi::Hooks,
    );
    let mut group = c.benchmark_group("wasm_call");
    group.bench_function("trivial_continue", |b| {
        b.iter(|| allow.call(black_box("tool:pre"), black_box(&data)))
    });
    group.bench_function("deny_with_reason", |b| {
        b.iter(|| deny.call(black_box("tool:pre"), black_box(&data)))
    });
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let registry = HookRegistry::new();
    let _mounted = WasmModule::new(allow.clone())
        .mount(&registry)
        .expect("mounts");
    group.bench_function("emit_one_wasm_hook", |b| {
        b.to_async(&tokio)
            .iter(|| registry.emit(black_box("tool:pre"), black_box(data.clone())))
    });
    group.finish();
}

criterion_group!(benches, calls);
criterion_main!(benches);
