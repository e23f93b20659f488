//! Instances come from a pool of slots reused from call to call: a reused slot carries nothing
//! over, the limits still hold in it, and calls past the slots wait for one or fail cleanly.

mod support;

use std::sync::Barrier;
use std::time::{Duration, Instant};

use hooks_core::HookAction;
use hooks_wasm::{Abi, CallFailure, Limits, LoadError, WasmHook, WasmRuntime};
use serde_json::json;
use support::*;

fn pooled(slots: u32) -> WasmRuntime {
    WasmRuntime::builder()
        .slots(slots)
        .build()
        .expect("the runtime starts")
}

/// A component that denies if it finds its mark in memory (left by an earlier call) and
/// otherwise leaves the mark, on the first page and on a page it grows, and continues.
fn marker() -> Vec<u8> {
    let body = format!(
        "(if (result i32) (i32.or (i32.load (i32.const 1024))
                                  (i32.gt_u (memory.size) (i32.const 1)))
           (then {deny})
           (else
             (i32.store (i32.const 1024) (i32.const 0x5eed))
             (drop (memory.grow (i32.const 1)))
             (i32.store (i32.const 65600) (i32.const 0x5eed))
             {allow}))",
        deny = answer(DENY, None),
        allow = answer(CONTINUE, None),
    );
    guest(&body, "")
}

fn data() -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})
}

#[test]
fn a_reused_slot_carries_nothing_from_the_call_before() {
    let runtime = pooled(1);
    let hook = load(&runtime, "marker", &marker(), Abi::Hooks);
    for call in 0..200 {
        let result = hook.call("tool:pre", &data()).expect("an answer");
        assert_eq!(
            result.action,
            HookAction::Continue,
            "call {call} saw a mark"
        );
    }
}

#[test]
fn limits_hold_in_a_reused_slot() {
    let runtime = pooled(1);
    let limit = 8 << 20;
    let bomb = load(
        &runtime,
        "bomb",
        &guest(
            "(loop $grow (drop (memory.grow (i32.const 16))) (br $grow)) (i32.const 16)",
            "",
        ),
        Abi::Hooks,
    )
    .with_limits(Limits {
        memory_bytes: limit,
        ..Limits::default()
    });
    let timeout = Duration::from_millis(20);
    let forever = load(
        &runtime,
        "loop",
        &guest("(loop $forever (br $forever)) (i32.const 16)", ""),
        Abi::Hooks,
    )
    .with_limits(Limits {
        timeout,
        ..Limits::default()
    });
    let allow = load(
        &runtime,
        "allow",
        &guest(&answer(CONTINUE, None), ""),
        Abi::Hooks,
    );
    for _ in 0..5 {
        assert!(
            matches!(bomb.call("tool:pre", &data()), Err(CallFailure::Memory { limit: said, .. }) if said == limit)
        );
        assert_eq!(
            forever.call("tool:pre", &data()),
            Err(CallFailure::Timeout(timeout))
        );
        assert_eq!(
            allow.call("tool:pre", &data()).map(|result| result.action),
            Ok(HookAction::Continue)
        );
    }
}

#[test]
fn more_threads_than_slots_all_get_their_answers() {
    let runtime = pooled(2);
    let hook = load(&runtime, "marker", &marker(), Abi::Hooks);
    let threads = 8;
    let start = Barrier::new(threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                start.wait();
                for _ in 0..50 {
                    let result = hook.call("tool:pre", &data()).expect("an answer");
                    assert_eq!(result.action, HookAction::Continue);
                }
            });
        }
    });
}

/// A hook that runs until its deadline, holding its slot that long.
fn hog(runtime: &WasmRuntime, timeout: Duration) -> WasmHook {
    load(
        runtime,
        "hog",
        &guest("(loop $forever (br $forever)) (i32.const 16)", ""),
        Abi::Hooks,
    )
    .with_limits(Limits {
        timeout,
        ..Limits::default()
    })
}

#[test]
fn a_call_finding_every_slot_busy_waits_for_one() {
    let runtime = pooled(1);
    let hog = hog(&runtime, Duration::from_millis(200));
    let allow = load(
        &runtime,
        "allow",
        &guest(&answer(CONTINUE, None), ""),
        Abi::Hooks,
    )
    .with_limits(Limits {
        timeout: Duration::from_secs(10),
        ..Limits::default()
    });
    std::thread::scope(|scope| {
        let hogging = scope.spawn(|| hog.call("tool:pre", &data()));
        // Let the hog take the only slot first.
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        let result = allow
            .call("tool:pre", &data())
            .expect("an answer once the slot is free");
        assert_eq!(result.action, HookAction::Continue);
        assert!(
            started.elapsed() >= Duration::from_millis(100),
            "answered after {:?}, while the slot was taken",
            started.elapsed()
        );
        assert!(matches!(
            hogging.join().expect("the hog's thread"),
            Err(CallFailure::Timeout(_))
        ));
    });
}

#[test]
fn a_call_finding_every_slot_busy_past_its_timeout_is_a_busy_failure() {
    let runtime = pooled(1);
    let hog = hog(&runtime, Duration::from_secs(2));
    let short = Duration::from_millis(30);
    let allow = load(
        &runtime,
        "allow",
        &guest(&answer(CONTINUE, None), ""),
        Abi::Hooks,
    )
    .with_limits(Limits {
        timeout: short,
        ..Limits::default()
    });
    std::thread::scope(|scope| {
        let hogging = scope.spawn(|| hog.call("tool:pre", &data()));
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            allow.call("tool:pre", &data()),
            Err(CallFailure::Busy {
                slots: 1,
                waited: short
            })
        );
        assert!(matches!(
            hogging.join().expect("the hog's thread"),
            Err(CallFailure::Timeout(_))
        ));
    });
    // The slot is free again.
    assert!(allow.call("tool:pre", &data()).is_ok());
}

#[test]
fn a_component_past_the_pool_limits_is_refused_when_loaded() {
    // Three memories, more than a component may hold.
    let bytes = wat::parse_str(
        r#"(component
             (core module $m (memory 1))
             (core instance $a (instantiate $m))
             (core instance $b (instantiate $m))
             (core instance $c (instantiate $m)))"#,
    )
    .expect("the component parses");
    match WasmHook::from_bytes(&pooled(1), "three-memories", &bytes, Abi::Hooks) {
        Err(LoadError::Invalid { name, source }) => {
            assert_eq!(name, "three-memories");
            let reason = format!("{source:#}");
            assert!(reason.contains("memories"), "{reason}");
        }
        other => panic!("expected the pool's limit, got {other:?}"),
    }
}
