//! The process's runtime takes the slots asked for before it starts, and keeps its own after.
//! (Its own test binary: the runtime is the process's.)

use hooks_wasm::WasmRuntime;

#[test]
fn the_shared_runtime_starts_with_the_slots_set_before_it() {
    assert!(WasmRuntime::set_shared_slots(1), "not started yet");
    let runtime = WasmRuntime::shared().expect("the runtime starts");
    assert_eq!(runtime.slots(), 1);
    assert!(
        !WasmRuntime::set_shared_slots(4),
        "too late: it has started"
    );
    assert_eq!(WasmRuntime::shared().expect("the same runtime").slots(), 1);
}
