//! A process that answers one event asks the WebAssembly runtime for one slot. (Its own test
//! binary: the runtime is the process's.)

#![cfg(feature = "wasm")]

#[test]
fn one_event_per_process_gives_the_runtime_one_slot() {
    hooks_config::one_event_per_process();
    let runtime = hooks_config::process_runtime().expect("the runtime starts");
    assert_eq!(runtime.slots(), 1);
    assert_ne!(
        hooks_wasm::DEFAULT_SLOTS,
        1,
        "the default would prove nothing"
    );
}
