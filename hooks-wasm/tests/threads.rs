//! A wasm hook starts no thread: not for its deadline, not to run the call. Alone in its own
//! test binary, so that no other test's threads are counted.

#[path = "support/mod.rs"]
mod support;

use hooks_wasm::Abi;
use support::*;

/// The threads of this process (Linux: the entries of `/proc/self/task`).
#[cfg(target_os = "linux")]
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn loading_and_calling_a_hook_starts_no_thread() {
    let before = threads();
    let runtime = runtime();
    let hook = load(
        &runtime,
        "allow",
        &guest(&answer(CONTINUE, None), ""),
        Abi::Hooks,
    );
    let data = serde_json::json!({"tool_name": "Bash"});
    assert_eq!(
        hook.subscriptions(&serde_json::json!({}))
            .expect("its events"),
        ["tool:pre"]
    );
    hook.call("tool:pre", &data)
        .expect("an answer on this thread");
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("an executor");
    executor
        .block_on(hook.call_async("tool:pre", &data))
        .expect("an answer on this task");
    assert_eq!(threads(), before, "threads were started");
}
