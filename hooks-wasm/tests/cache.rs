//! The disk cache: a component compiled in one process is loaded by the next, and an entry
//! that does not check is compiled again rather than run.

mod support;

use hooks_core::HookAction;
use hooks_wasm::{Abi, CallFailure, ComponentCache, Limits, WasmHook, WasmRuntime};
use serde_json::json;
use support::*;

fn deny() -> Vec<u8> {
    guest(
        &answer(DENY, Some((REASON, 256, 2))),
        r#"(data (i32.const 256) "no")"#,
    )
}

fn cached_runtime(dir: &std::path::Path) -> WasmRuntime {
    WasmRuntime::builder()
        .cache(ComponentCache::new(dir))
        .build()
        .expect("the runtime starts")
}

/// A runtime as a process has one (`Builder::process_wide`): on x86-64 Linux, code from the
/// cache runs from the buffer it was read into.
fn process_runtime(dir: &std::path::Path) -> WasmRuntime {
    WasmRuntime::builder()
        .cache(ComponentCache::new(dir))
        .slots(2)
        .process_wide(true)
        .build()
        .expect("the runtime starts")
}

/// Replaces the file at `path` by `contents` as a writer of the cache does, by a rename: a
/// process that mapped the old file keeps it.
fn replace(path: &std::path::Path, contents: &[u8]) {
    let temporary = path.with_extension("replacing");
    std::fs::write(&temporary, contents).expect("written");
    std::fs::rename(&temporary, path).expect("renamed into place");
}

fn entries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .expect("the cache directory exists")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    found.sort();
    found
}

#[test]
fn a_compiled_component_is_loaded_from_the_cache_by_the_next_runtime() {
    let dir = scratch("cache-reuse").join("nested");
    let bytes = deny();
    let first =
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert!(!first.from_cache(), "nothing cached yet");
    let files = entries(&dir);
    assert_eq!(files.len(), 1, "one entry, no temporary left: {files:?}");
    // A new runtime has a new engine, as a new process would.
    let second =
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert!(second.from_cache());
    let result = second.call("tool:pre", &json!({})).expect("an answer");
    assert_eq!(result.action, HookAction::Deny);
    // Another component is another entry.
    let other = guest(&answer(CONTINUE, None), "");
    let third =
        WasmHook::from_bytes(&cached_runtime(&dir), "allow", &other, Abi::Hooks).expect("loads");
    assert!(!third.from_cache());
    assert_eq!(entries(&dir).len(), 2);
}

#[test]
fn a_corrupt_or_truncated_entry_is_compiled_again() {
    let dir = scratch("cache-corrupt");
    let bytes = deny();
    WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    let entry = entries(&dir).remove(0);
    let mut stored = std::fs::read(&entry).expect("the entry");
    // A byte of the code: only the checksum can tell.
    let middle = stored.len() / 2;
    stored[middle] ^= 0xff;
    replace(&entry, &stored);
    let hook =
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert!(!hook.from_cache(), "a corrupt entry is not trusted");
    assert_eq!(
        hook.call("tool:pre", &json!({})).expect("an answer").action,
        HookAction::Deny
    );
    // The entry was rewritten, and checks again.
    let again =
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert!(again.from_cache());
    replace(&entry, &stored[..100]);
    let hook =
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert!(!hook.from_cache(), "a truncated entry is not trusted");
}

#[test]
fn an_entry_changed_in_place_does_not_reach_a_component_loaded_from_it() {
    for runtime in [cached_runtime, process_runtime] {
        let dir = scratch("cache-in-place");
        let bytes = deny();
        WasmHook::from_bytes(&runtime(&dir), "deny", &bytes, Abi::Hooks).expect("stored");
        let loaded =
            WasmHook::from_bytes(&runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
        assert!(loaded.from_cache());
        // Cut short in place, not replaced: code mapped from the file would now fault.
        std::fs::write(entries(&dir).remove(0), b"cut short").expect("changed in place");
        assert_eq!(
            loaded
                .call("tool:pre", &json!({}))
                .expect("an answer")
                .action,
            HookAction::Deny
        );
        // Dropping it unregisters its code, which reads the code again.
        drop(loaded);
    }
}

#[test]
fn one_runtime_loads_the_same_component_once() {
    let dir = scratch("cache-kept");
    let bytes = deny();
    let runtime = cached_runtime(&dir);
    let first = WasmHook::from_bytes(&runtime, "deny", &bytes, Abi::Hooks).expect("loads");
    assert!(!first.from_cache());
    // Were it compiled or read again, the entry would be read or written again: with it gone,
    // a second load that went to the cache would compile and store it anew.
    for entry in entries(&dir) {
        std::fs::remove_file(entry).expect("the entry removed");
    }
    let second = WasmHook::from_bytes(&runtime, "again", &bytes, Abi::Hooks).expect("loads");
    assert!(!second.from_cache(), "it says where it first came from");
    assert!(entries(&dir).is_empty(), "the cache was not touched");
    assert_eq!(
        second
            .call("tool:pre", &json!({}))
            .expect("an answer")
            .action,
        HookAction::Deny
    );
    // Another runtime (another process) goes to the cache, and stores the entry again.
    WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert_eq!(entries(&dir).len(), 1);
}

#[test]
fn subscriptions_are_asked_once_per_configuration_and_remembered_in_the_cache() {
    let dir = scratch("cache-subscriptions");
    let bytes = deny();
    let records = || {
        entries(&dir)
            .into_iter()
            .filter(|path| path.extension().is_some_and(|ext| ext == "subscriptions"))
            .collect::<Vec<_>>()
    };
    let first =
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks).expect("loads");
    assert_eq!(
        first.subscriptions(&json!({})).expect("asked"),
        ["tool:pre"]
    );
    assert_eq!(records().len(), 1);
    // A later process's hook that cannot even be instantiated (no memory at all): an answer
    // can only be the one remembered.
    let starved = || {
        WasmHook::from_bytes(&cached_runtime(&dir), "deny", &bytes, Abi::Hooks)
            .expect("loads")
            .with_limits(Limits {
                memory_bytes: 0,
                ..Limits::default()
            })
    };
    assert_eq!(
        starved().subscriptions(&json!({})).expect("remembered"),
        ["tool:pre"]
    );
    // Another configuration is asked anew; a failure is not remembered.
    let other = starved().subscriptions(&json!({"strict": true}));
    assert!(
        matches!(other, Err(CallFailure::Memory { .. })),
        "asked anew: {other:?}"
    );
    assert_eq!(records().len(), 1, "the failure left no record");
    // A damaged record is not believed, though it still reads as a list (`["Tool:pre"]`).
    let record = records().remove(0);
    let mut stored = std::fs::read(&record).expect("the record");
    assert_eq!(&stored[..3], b"[\"t");
    stored[2] = b'T';
    replace(&record, &stored);
    let damaged = starved().subscriptions(&json!({}));
    assert!(
        matches!(damaged, Err(CallFailure::Memory { .. })),
        "asked anew: {damaged:?}"
    );
    // Without a cache there is nothing to remember them in: each hook asks.
    let uncached = WasmHook::from_bytes(
        &WasmRuntime::builder().build().expect("starts"),
        "deny",
        &bytes,
        Abi::Hooks,
    )
    .expect("loads")
    .with_limits(Limits {
        memory_bytes: 0,
        ..Limits::default()
    });
    assert!(uncached.subscriptions(&json!({})).is_err());
}

#[test]
fn code_from_the_cache_traps_and_stops_at_its_deadline_like_code_compiled_now() {
    let dir = scratch("cache-traps");
    let trap = guest("unreachable", "");
    let spin = guest("(loop $forever (br $forever)) (i32.const 16)", "");
    // Large enough for its entry to be read into huge pages (src/entry_buffer.rs).
    let large = guest(&answer(DENY, None), &filler(1_000));
    for bytes in [&trap, &spin, &large] {
        WasmHook::from_bytes(&cached_runtime(&dir), "store", bytes, Abi::Hooks).expect("stored");
    }
    let runtime = process_runtime(&dir);
    let trapped = WasmHook::from_bytes(&runtime, "trap", &trap, Abi::Hooks).expect("loads");
    assert!(trapped.from_cache());
    match trapped.call("tool:pre", &json!({})) {
        Err(CallFailure::Trap(why)) => assert!(why.contains("unreachable"), "{why}"),
        other => panic!("not a trap: {other:?}"),
    }
    let spinning = WasmHook::from_bytes(&runtime, "spin", &spin, Abi::Hooks)
        .expect("loads")
        .with_limits(Limits {
            timeout: std::time::Duration::from_millis(50),
            ..Limits::default()
        });
    assert!(spinning.from_cache());
    assert!(matches!(
        spinning.call("tool:pre", &json!({})),
        Err(CallFailure::Timeout(_))
    ));
    let largest_entry = std::fs::read_dir(&dir)
        .expect("the cache")
        .filter_map(|entry| entry.ok()?.metadata().ok())
        .map(|metadata| metadata.len())
        .max();
    assert!(
        largest_entry >= Some(256 << 10),
        "an entry of huge pages: {largest_entry:?}"
    );
    let large = WasmHook::from_bytes(&runtime, "large", &large, Abi::Hooks).expect("loads");
    assert!(large.from_cache());
    assert_eq!(
        large.call("tool:pre", &json!({})).expect("answers").action,
        HookAction::Deny
    );
    // Code such a runtime compiles itself is published by the same means.
    let fresh = WasmRuntime::builder()
        .slots(1)
        .process_wide(true)
        .build()
        .expect("the runtime starts");
    let compiled = WasmHook::from_bytes(&fresh, "trap", &trap, Abi::Hooks).expect("compiles");
    assert!(!compiled.from_cache());
    assert!(matches!(
        compiled.call("tool:pre", &json!({})),
        Err(CallFailure::Trap(_))
    ));
}

#[test]
fn files_unused_for_a_month_are_removed_when_something_new_is_compiled() {
    use std::fs;
    use std::time::{Duration, SystemTime};

    let dir = scratch("cache-sweep");
    let month_ago = SystemTime::now() - Duration::from_secs(40 * 24 * 60 * 60);
    let set_time = |path: &std::path::Path, time: SystemTime| {
        fs::File::options()
            .write(true)
            .open(path)
            .and_then(|file| file.set_modified(time))
            .expect("the time set");
    };
    let modified = |path: &std::path::Path| fs::metadata(path).and_then(|m| m.modified()).ok();
    let entries = || -> Vec<std::path::PathBuf> {
        let mut entries: Vec<_> = fs::read_dir(&dir)
            .expect("the cache")
            .map(|entry| entry.expect("an entry").path())
            .filter(|path| path.extension().is_some_and(|found| found == "cwasm"))
            .collect();
        entries.sort();
        entries
    };

    let used = guest(&answer(CONTINUE, None), "");
    WasmHook::from_bytes(&cached_runtime(&dir), "used", &used, Abi::Hooks).expect("stored");
    let [used_entry] = entries().try_into().expect("one entry");
    set_time(&used_entry, month_ago);
    let stranger = dir.join("notes.txt");
    fs::write(&stranger, "the user's own").expect("written");
    set_time(&stranger, month_ago);
    let abandoned = dir.join(format!(".{}.cwasm.1.ThreadId(1).tmp", "ab".repeat(32)));
    fs::write(&abandoned, "half an entry").expect("written");
    set_time(
        &abandoned,
        SystemTime::now() - Duration::from_secs(2 * 60 * 60),
    );

    // Read by a later process, the old entry counts as used now...
    WasmHook::from_bytes(&cached_runtime(&dir), "used", &used, Abi::Hooks).expect("loads");
    assert!(modified(&used_entry) > Some(SystemTime::now() - Duration::from_secs(60)));
    // ...so compiling another removes only the abandoned temporary file.
    WasmHook::from_bytes(&cached_runtime(&dir), "other", &deny(), Abi::Hooks).expect("stored");
    assert!(used_entry.exists(), "used within the month");
    assert!(stranger.exists(), "not the cache's");
    assert!(!abandoned.exists(), "abandoned for an hour");
    assert_eq!(entries().len(), 2);

    // Unused for a month, it goes when a third is compiled.
    set_time(&used_entry, month_ago);
    let third = guest(&answer(MODIFY, None), "");
    WasmHook::from_bytes(&cached_runtime(&dir), "third", &third, Abi::Hooks).expect("stored");
    assert!(!used_entry.exists(), "unused for a month");
    assert_eq!(entries().len(), 2);
    assert!(stranger.exists());
    // And is compiled again when wanted.
    let again =
        WasmHook::from_bytes(&cached_runtime(&dir), "used", &used, Abi::Hooks).expect("loads");
    assert!(!again.from_cache());
}

/// A component whose `subscriptions` answers a new event name at each call (eight letters from
/// WASI's random numbers), against what its world asks.
fn fickle() -> Vec<u8> {
    let core = format!(
        r#"(module
            (import "wasi:random/random@0.2.0" "get-random-u64" (func $random (result i64)))
            {RUNTIME}
            (func (export "hooks:guest/hook@0.1.0#subscriptions") (param i32 i32) (result i32)
              (local $bits i64) (local $at i32)
              (local.set $bits (call $random))
              (loop $letters
                (i64.store8 (i32.add (i32.const 240) (local.get $at))
                  (i64.add (i64.const 97) (i64.rem_u (local.get $bits) (i64.const 26))))
                (local.set $bits (i64.div_u (local.get $bits) (i64.const 26)))
                (local.set $at (i32.add (local.get $at) (i32.const 1)))
                (br_if $letters (i32.lt_u (local.get $at) (i32.const 8))))
              (i32.store (i32.const 208) (i32.const 240))
              (i32.store (i32.const 212) (i32.const 8))
              (i32.store (i32.const 200) (i32.const 208))
              (i32.store (i32.const 204) (i32.const 1))
              (i32.const 200))
            (func (export "hooks:guest/hook@0.1.0#handle") (param i32 i32 i32 i32) (result i32)
              {}))"#,
        answer(CONTINUE, None)
    );
    importing("fickle", &["wasi:random/random@0.2.0"], &core)
}

#[test]
fn subscriptions_that_change_from_call_to_call_are_not_remembered() {
    let dir = scratch("cache-fickle");
    let records = || {
        std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter(|entry| {
                        entry.as_ref().is_ok_and(|entry| {
                            entry
                                .path()
                                .extension()
                                .is_some_and(|ext| ext == "subscriptions")
                        })
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    let hook = WasmHook::from_bytes(&cached_runtime(&dir), "fickle", &fickle(), Abi::Hooks)
        .expect("loads");
    let first = hook.subscriptions(&json!({})).expect("answers");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(records(), 0, "not remembered");
    let later = WasmHook::from_bytes(&cached_runtime(&dir), "fickle", &fickle(), Abi::Hooks)
        .expect("loads");
    assert_ne!(
        later.subscriptions(&json!({})).expect("answers"),
        first,
        "asked again, not read back"
    );
    // A component that answers alike is remembered (`subscriptions_are_asked_once...`).
    let steady =
        WasmHook::from_bytes(&cached_runtime(&dir), "steady", &deny(), Abi::Hooks).expect("loads");
    steady.subscriptions(&json!({})).expect("answers");
    assert_eq!(records(), 1);
}
