//! Real components, each built in the test: what they answer, and what the sandbox stops.

mod support;

use std::time::{Duration, Instant};

use hooks_core::module::HookModule;
use hooks_core::{HookAction, HookRegistry, MessageLevel, OnFailure};
use hooks_wasm::{Abi, CallFailure, Grants, Limits, LoadError, WasmModule};
use serde_json::json;
use support::*;

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}})
}

#[test]
fn a_deny_is_answered_with_its_reason() {
    let bytes = guest(
        &answer(DENY, Some((REASON, 256, 5))),
        r#"(data (i32.const 256) "no rm")"#,
    );
    let hook = load(&runtime(), "deny", &bytes, Abi::Hooks);
    let result = hook.call("tool:pre", &bash("rm -rf /")).expect("an answer");
    assert_eq!(result.action, HookAction::Deny);
    assert_eq!(result.reason.as_deref(), Some("no rm"));
}

#[test]
fn a_modify_replaces_the_data() {
    let new = r#"{"tool_name":"Bash","tool_input":{"command":"ls -la"}}"#;
    let bytes = guest(
        &answer(MODIFY, Some((DATA, 256, new.len() as i32))),
        &format!(r#"(data (i32.const 256) "{}")"#, new.replace('"', "\\\"")),
    );
    let hook = load(&runtime(), "modify", &bytes, Abi::Hooks);
    let result = hook.call("tool:pre", &bash("ls")).expect("an answer");
    assert_eq!(result.action, HookAction::Modify);
    assert_eq!(result.data, Some(bash("ls -la")));
}

#[test]
fn the_event_and_data_reach_the_component() {
    // Answers with the data it was given as its deny reason.
    let body = format!(
        "(i32.store8 (i32.const 16) (i32.const 0))
         (i32.store8 (i32.const {RECORD}) (i32.const {DENY}))
         (i32.store8 (i32.const {at}) (i32.const 1))
         (i32.store (i32.const {ptr}) (local.get 2))
         (i32.store (i32.const {len}) (local.get 3))
         (i32.const 16)",
        at = RECORD + REASON,
        ptr = RECORD + REASON + 4,
        len = RECORD + REASON + 8,
    );
    let hook = load(&runtime(), "echo", &guest(&body, ""), Abi::Hooks);
    let data = bash("echo hi");
    let result = hook.call("tool:pre", &data).expect("an answer");
    assert_eq!(result.reason, Some(data.to_string()));
}

/// Calls the component `bytes` with a 50 ms deadline, and checks that it is stopped there.
fn stopped_at_the_deadline(name: &str, bytes: &[u8]) {
    let timeout = Duration::from_millis(50);
    let hook = load(&runtime(), name, bytes, Abi::Hooks).with_limits(Limits {
        timeout,
        ..Limits::default()
    });
    let started = Instant::now();
    let failure = hook.call("tool:pre", &bash("ls")).expect_err("stopped");
    let took = started.elapsed();
    assert_eq!(failure, CallFailure::Timeout(timeout), "{name}");
    assert!(took >= timeout, "{name} stopped after {took:?}");
    assert!(
        took < Duration::from_secs(2),
        "{name} stopped only after {took:?}"
    );
}

#[test]
fn an_infinite_loop_is_stopped_at_the_deadline() {
    let spinning = guest("(loop $forever (br $forever)) (i32.const 16)", "");
    stopped_at_the_deadline("loop", &spinning);
}

/// A component that sleeps for ten seconds before it answers, as `std::thread::sleep` does in
/// a `wasm32-wasip2` component: a pollable of WASI's monotonic clock, blocked on.
fn sleeper() -> Vec<u8> {
    let core = format!(
        r#"(module
            (import "wasi:clocks/monotonic-clock@0.2.0" "subscribe-duration"
              (func $subscribe (param i64) (result i32)))
            (import "wasi:io/poll@0.2.0" "[method]pollable.block" (func $block (param i32)))
            {RUNTIME} {SUBSCRIPTIONS}
            (func (export "hooks:guest/hook@0.1.0#handle") (param i32 i32 i32 i32) (result i32)
              (call $block (call $subscribe (i64.const 10_000_000_000)))
              {}))"#,
        answer(CONTINUE, None)
    );
    importing("sleeper", &["wasi:clocks/monotonic-clock@0.2.0"], &core)
}

#[test]
fn a_sleep_is_stopped_at_the_deadline_too() {
    stopped_at_the_deadline("sleeper", &sleeper());
}

/// From async code a call runs on the caller's task: a guest that sleeps or spins leaves the
/// executor to the caller's other tasks, and is stopped at its deadline there.
#[tokio::test(flavor = "current_thread")]
async fn from_async_code_a_call_shares_the_executor_and_ends_at_its_deadline() {
    let timeout = Duration::from_millis(200);
    let limits = Limits {
        timeout,
        ..Limits::default()
    };
    let runtime = runtime();
    let spinning = guest("(loop $forever (br $forever)) (i32.const 16)", "");
    let hooks = [
        load(&runtime, "loop", &spinning, Abi::Hooks).with_limits(limits),
        load(&runtime, "sleeper", &sleeper(), Abi::Hooks).with_limits(limits),
    ];
    for hook in hooks {
        let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counter = ticks.clone();
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(1)).await;
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let started = Instant::now();
        let failure = hook.call_async("tool:pre", &bash("ls")).await;
        let took = started.elapsed();
        ticker.abort();
        assert_eq!(
            failure,
            Err(CallFailure::Timeout(timeout)),
            "{}",
            hook.name()
        );
        assert!(
            took < Duration::from_secs(2),
            "{} stopped only after {took:?}",
            hook.name()
        );
        let ticked = ticks.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            ticked >= 10,
            "{}: the executor ran {ticked} ticks in {took:?}",
            hook.name()
        );
    }
}

/// The blocking entry points work from async code too (an application mounting its modules in
/// its async `main`): there they run on a thread of their own instead of blocking on a second
/// executor, which would panic.
#[tokio::test(flavor = "current_thread")]
async fn the_blocking_calls_work_inside_an_async_runtime() {
    let hook = load(
        &runtime(),
        "deny",
        &guest(
            &answer(DENY, Some((REASON, 256, 5))),
            r#"(data (i32.const 256) "no rm")"#,
        ),
        Abi::Hooks,
    );
    assert_eq!(
        hook.subscriptions(&serde_json::json!({}))
            .expect("its events"),
        ["tool:pre"]
    );
    let result = hook.call("tool:pre", &bash("rm -rf /")).expect("an answer");
    assert_eq!(result.reason.as_deref(), Some("no rm"));
}

/// A call that ends within its first poll touches no timer: it runs on an executor built
/// without one (a timer is needed only to wait).
#[test]
fn a_quick_call_needs_no_timer() {
    let executor = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("an executor without a timer");
    let hook = load(
        &runtime(),
        "allow",
        &guest(&answer(CONTINUE, None), ""),
        Abi::Hooks,
    );
    let result = executor
        .block_on(hook.call_async("tool:pre", &bash("ls")))
        .expect("an answer");
    assert_eq!(result.action, HookAction::Continue);
}

#[test]
fn a_memory_bomb_is_stopped_at_the_limit() {
    let bytes = guest(
        "(loop $grow (drop (memory.grow (i32.const 16))) (br $grow)) (i32.const 16)",
        "",
    );
    let limit = 8 << 20;
    let hook = load(&runtime(), "bomb", &bytes, Abi::Hooks).with_limits(Limits {
        memory_bytes: limit,
        ..Limits::default()
    });
    match hook.call("tool:pre", &bash("ls")) {
        Err(CallFailure::Memory { asked, limit: said }) => {
            assert_eq!(said, limit);
            assert!(asked > limit);
        }
        other => panic!("expected the memory limit, got {other:?}"),
    }
}

#[test]
fn a_trap_is_a_failure_that_names_where_it_happened() {
    // `handle` calls a function of the guest's own, named in its name section, that traps.
    let hook = load(
        &runtime(),
        "trap",
        &guest(
            "(call $check_the_command) (i32.const 16)",
            "(func $check_the_command unreachable)",
        ),
        Abi::Hooks,
    );
    match hook.call("tool:pre", &bash("ls")) {
        Err(CallFailure::Trap(why)) => {
            assert!(why.contains("unreachable"), "{why}");
            assert!(why.contains("check_the_command"), "{why}");
        }
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[test]
fn garbage_answers_are_failures() {
    let runtime = runtime();
    // An action outside the enum: the component model refuses to read it.
    let bad_enum = load(&runtime, "enum", &guest(&answer(9, None), ""), Abi::Hooks);
    assert!(
        matches!(
            bad_enum.call("tool:pre", &bash("ls")),
            Err(CallFailure::Unreadable(_))
        ),
        "an unknown action"
    );
    // Modified data that is not JSON.
    let bytes = guest(
        &answer(MODIFY, Some((DATA, 256, 5))),
        r#"(data (i32.const 256) "hello")"#,
    );
    let not_json = load(&runtime, "not-json", &bytes, Abi::Hooks);
    assert!(matches!(
        not_json.call("tool:pre", &bash("ls")),
        Err(CallFailure::Unreadable(why)) if why.contains("JSON")
    ));
    // Modify without data.
    let empty = load(
        &runtime,
        "empty",
        &guest(&answer(MODIFY, None), ""),
        Abi::Hooks,
    );
    assert!(matches!(
        empty.call("tool:pre", &bash("ls")),
        Err(CallFailure::Unreadable(_))
    ));
    // A reason that is not UTF-8.
    let bytes = guest(
        &answer(DENY, Some((REASON, 256, 2))),
        r#"(data (i32.const 256) "\ff\fe")"#,
    );
    let not_utf8 = load(&runtime, "utf8", &bytes, Abi::Hooks);
    assert!(not_utf8.call("tool:pre", &bash("ls")).is_err());
}

#[test]
fn an_error_of_the_component_is_a_failure() {
    let body = "(i32.store8 (i32.const 16) (i32.const 1))
                (i32.store (i32.const 24) (i32.const 256))
                (i32.store (i32.const 28) (i32.const 4))
                (i32.const 16)";
    let hook = load(
        &runtime(),
        "error",
        &guest(body, r#"(data (i32.const 256) "oops")"#),
        Abi::Hooks,
    );
    assert_eq!(
        hook.call("tool:pre", &bash("ls")),
        Err(CallFailure::Guest("oops".to_owned()))
    );
}

/// A component importing WASI's environment and preopened directories (as the usual
/// toolchains' components do) that denies with what it found: "dirs=N env=M".
fn probe() -> Vec<u8> {
    let body = format!(
        "(call $dirs (i32.const 160))
         (call $env (i32.const 168))
         (i32.store8 (i32.const 261) (i32.add (i32.const 48) (i32.load (i32.const 164))))
         (i32.store8 (i32.const 267) (i32.add (i32.const 48) (i32.load (i32.const 172))))
         {}",
        answer(DENY, Some((REASON, 256, 12)))
    );
    let core = format!(
        r#"(module
            (import "wasi:cli/environment@0.2.0" "get-environment" (func $env (param i32)))
            (import "wasi:filesystem/preopens@0.2.0" "get-directories" (func $dirs (param i32)))
            {RUNTIME} {SUBSCRIPTIONS}
            (data (i32.const 256) "dirs=0 env=0")
            (func (export "hooks:guest/hook@0.1.0#handle") (param i32 i32 i32 i32) (result i32)
              {body}))"#
    );
    importing(
        "probe",
        &[
            "wasi:cli/environment@0.2.0",
            "wasi:filesystem/preopens@0.2.0",
        ],
        &core,
    )
}

#[test]
fn a_component_importing_wasi_instantiates_and_reaches_nothing() {
    let hook = load(&runtime(), "probe", &probe(), Abi::Hooks);
    let result = hook
        .call("tool:pre", &bash("cat secrets"))
        .expect("an answer");
    assert_eq!(result.reason.as_deref(), Some("dirs=0 env=0"));
}

#[test]
fn granted_directories_and_variables_are_all_it_sees() {
    let dir = scratch("grant");
    std::fs::write(dir.join("policy.txt"), "allow").expect("a file");
    // PATH is set wherever the tests run; HOME and the rest stay hidden.
    let hook = load(&runtime(), "probe", &probe(), Abi::Hooks)
        .with_grants(Grants::none().read_dir(&dir).env_var("PATH"));
    let result = hook.call("tool:pre", &bash("ls")).expect("an answer");
    assert_eq!(result.reason.as_deref(), Some("dirs=1 env=1"));
}

#[test]
fn a_missing_granted_directory_is_a_failure_not_a_silent_grant_of_nothing() {
    let hook = load(&runtime(), "probe", &probe(), Abi::Hooks)
        .with_grants(Grants::none().read_dir("/nonexistent/hooks-wasm"));
    assert!(matches!(
        hook.call("tool:pre", &bash("ls")),
        Err(CallFailure::Setup(why)) if why.contains("/nonexistent/hooks-wasm")
    ));
}

/// An amplifier-core hook module: it reads the protobuf request and denies with its event
/// (`HookResult {action: DENY, reason: event}`, protobuf bytes).
fn amplifier_deny() -> Vec<u8> {
    let core = format!(
        r#"(module {RUNTIME}
            (func (export "amplifier:modules/hook-handler@1.0.0#handle")
              (param $at i32) (param $n i32) (result i32)
              (local $len i32)
              ;; field 1 (event), length-delimited
              (if (i32.ne (i32.load8_u (local.get $at)) (i32.const 0x0a)) (then unreachable))
              (local.set $len (i32.load8_u offset=1 (local.get $at)))
              (i32.store8 (i32.const 1024) (i32.const 0x08))
              (i32.store8 (i32.const 1025) (i32.const 0x03))
              (i32.store8 (i32.const 1026) (i32.const 0x1a))
              (i32.store8 (i32.const 1027) (local.get $len))
              (memory.copy (i32.const 1028) (i32.add (local.get $at) (i32.const 2)) (local.get $len))
              (i32.store8 (i32.const 16) (i32.const 0))
              (i32.store (i32.const 20) (i32.const 1024))
              (i32.store (i32.const 24) (i32.add (local.get $len) (i32.const 4)))
              (i32.const 16)))"#
    );
    component("", "amplifier:modules/hook-module@1.0.0", &core)
}

#[test]
fn an_amplifier_component_loads_unchanged_and_speaks_protobuf() {
    let hook = load(&runtime(), "amplifier", &amplifier_deny(), Abi::Amplifier);
    let result = hook.call("tool:pre", &bash("rm -rf /")).expect("an answer");
    assert_eq!(result.action, HookAction::Deny);
    assert_eq!(result.reason.as_deref(), Some("tool:pre"));
}

#[test]
fn an_amplifier_component_answering_garbage_is_a_failure() {
    let core = format!(
        r#"(module {RUNTIME}
            (data (i32.const 1024) "\ff\ff\ff")
            (func (export "amplifier:modules/hook-handler@1.0.0#handle")
              (param i32 i32) (result i32)
              (i32.store8 (i32.const 16) (i32.const 0))
              (i32.store (i32.const 20) (i32.const 1024))
              (i32.store (i32.const 24) (i32.const 3))
              (i32.const 16)))"#
    );
    let bytes = component("", "amplifier:modules/hook-module@1.0.0", &core);
    let hook = load(&runtime(), "garbage", &bytes, Abi::Amplifier);
    assert!(matches!(
        hook.call("tool:pre", &bash("ls")),
        Err(CallFailure::Unreadable(why)) if why.contains("protobuf")
    ));
}

#[test]
fn a_component_of_another_world_is_refused_with_its_name() {
    let runtime = runtime();
    let error =
        hooks_wasm::WasmHook::from_bytes(&runtime, "policy.wasm", &amplifier_deny(), Abi::Hooks)
            .expect_err("not our world");
    assert!(matches!(error, LoadError::World { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("policy.wasm") && text.contains("hooks:guest/hook@0.1.0"),
        "{text}"
    );
    // An import the host does not provide.
    let package = "package test:needy;
        interface secrets { read: func() -> string; }
        world needy { import secrets; export hooks:guest/hook@0.1.0; }";
    let core = format!(
        r#"(module
            (import "test:needy/secrets" "read" (func (param i32)))
            {RUNTIME} {SUBSCRIPTIONS}
            (func (export "hooks:guest/hook@0.1.0#handle") (param i32 i32 i32 i32) (result i32)
              {}))"#,
        answer(CONTINUE, None)
    );
    let needy = component(package, "needy", &core);
    let error = hooks_wasm::WasmHook::from_bytes(&runtime, "needy.wasm", &needy, Abi::Hooks)
        .expect_err("an import nobody provides");
    assert!(error.to_string().contains("needy.wasm"), "{error}");
    // What is wrong is the error's source, typed, not text folded into its message.
    let mut why = String::new();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        why.push_str(&cause.to_string());
        source = cause.source();
    }
    assert!(why.contains("test:needy/secrets"), "{why}");
    assert!(!error.to_string().contains("test:needy/secrets"), "{error}");
    // Not a component at all.
    let error = hooks_wasm::WasmHook::from_bytes(&runtime, "junk.wasm", b"junk", Abi::Hooks)
        .expect_err("not wasm");
    assert!(matches!(error, LoadError::Invalid { .. }), "{error}");
}

#[tokio::test]
async fn a_module_mounts_on_its_subscriptions_and_failures_go_to_on_failure() {
    let runtime = runtime();
    let deny = guest(
        &answer(DENY, Some((REASON, 256, 5))),
        r#"(data (i32.const 256) "no rm")"#,
    );
    let registry = HookRegistry::new();
    let mounted = WasmModule::new(load(&runtime, "deny", &deny, Abi::Hooks))
        .mount(&registry)
        .expect("mounts");
    let emitted = registry.emit("tool:pre", bash("rm")).await;
    assert_eq!(emitted.result.action, HookAction::Deny);
    let other = registry.emit("tool:post", bash("rm")).await;
    assert_eq!(other.result.action, HookAction::Continue, "not subscribed");
    mounted.unmount();

    let trap = load(&runtime, "trap", &guest("unreachable", ""), Abi::Hooks);
    for (on_failure, action) in [
        (OnFailure::Block, HookAction::Deny),
        (OnFailure::Warn, HookAction::Continue),
        (OnFailure::Ignore, HookAction::Continue),
    ] {
        let registry = HookRegistry::new();
        let _mounted = WasmModule::new(trap.clone())
            .on_failure(on_failure)
            .mount(&registry)
            .expect("mounts");
        let emitted = registry.emit("tool:pre", bash("ls")).await;
        assert_eq!(emitted.result.action, action, "{on_failure:?}");
        let warned = emitted
            .messages
            .iter()
            .any(|message| message.level == MessageLevel::Warning && message.text.contains("trap"));
        assert_eq!(warned, on_failure == OnFailure::Warn, "{on_failure:?}");
    }
}

#[tokio::test]
async fn an_amplifier_module_mounts_on_the_events_it_is_given() {
    let registry = HookRegistry::new();
    let hook = load(&runtime(), "amplifier", &amplifier_deny(), Abi::Amplifier);
    let _mounted = WasmModule::new(hook)
        .events(["tool:pre"])
        .mount(&registry)
        .expect("mounts");
    let emitted = registry.emit("tool:pre", bash("ls")).await;
    assert_eq!(emitted.result.action, HookAction::Deny);
}
