//! The kit tests itself: a sound module passes the behavioural suite, and each deliberately
//! broken module fails the check that is about its defect, so the suite can fail.

#![allow(clippy::unwrap_used)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::session::ToolCallStatus;
use hooks_core::{HookAction, HookModule, HookRegistry, HookResult, MountError, Mounted};
use hooks_testing::behaviour::{Check, Suite};
use hooks_testing::{
    EventRecorder, MockTool, ScriptedSession, TestCoordinator, hook_behaviour_tests,
};
use proptest::prelude::*;
use serde_json::{Value, json};

// A sound module: denies `rm -rf`, feeds lint back after successful Python writes.

struct Guard;

async fn deny_rm_rf(_event: &str, data: &Value) -> HookResult {
    match data["tool_input"]["command"].as_str() {
        Some(command) if command.contains("rm -rf") => {
            HookResult::deny("`rm -rf` is blocked; remove the files you mean by name")
        }
        _ => HookResult::cont(),
    }
}

async fn lint_python(_event: &str, data: &Value) -> HookResult {
    let path = data["tool_input"]["file_path"].as_str().unwrap_or_default();
    if path.ends_with(".py") && data["tool_result"]["success"] == true {
        HookResult::inject(format!("lint: {path} is clean"))
    } else {
        HookResult::cont()
    }
}

impl HookModule for Guard {
    fn name(&self) -> &str {
        "guard"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        mounted.register(registry, "tool:pre", deny_rm_rf, 0, "guard.deny_rm_rf")?;
        mounted.register(registry, "tool:post", lint_python, 0, "guard.lint_python")?;
        Ok(mounted)
    }
}

hook_behaviour_tests!(guard_behaviour, Guard);

// Broken modules, one defect each.

/// Mounts one handler, from a function of the given shape.
macro_rules! module {
    ($type:ident, $name:literal, $event:literal, $handler:expr) => {
        struct $type;

        impl HookModule for $type {
            fn name(&self) -> &str {
                $name
            }

            fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
                let mut mounted = Mounted::new(self.name());
                mounted.register(registry, $event, $handler, 0, $name)?;
                Ok(mounted)
            }
        }
    };
}

module!(
    PanicsOnGarbage,
    "panics_on_garbage",
    "tool:pre",
    |_: &str, data: &Value| {
        let command = data["tool_input"]["command"].as_str().map(str::to_owned);
        async move { HookResult::inject(command.expect("a command string")) }
    }
);

module!(
    DeniesWithoutReason,
    "denies_without_reason",
    "tool:pre",
    |_: &str, _: &Value| async {
        HookResult {
            action: HookAction::Deny,
            ..HookResult::default()
        }
    }
);

module!(Slow, "slow", "tool:pre", |_: &str, _: &Value| async {
    tokio::time::sleep(Duration::from_secs(2)).await;
    HookResult::cont()
});

static CALLS: AtomicUsize = AtomicUsize::new(0);

module!(Stateful, "stateful", "tool:pre", |_: &str, _: &Value| {
    let call = CALLS.fetch_add(1, Ordering::SeqCst);
    async move { HookResult::inject(format!("this is call {call}")) }
});

module!(
    ModifiesGarbage,
    "modifies_garbage",
    "tool:post",
    |_: &str, _: &Value| async { HookResult::modify(json!({"rewritten": true})) }
);

/// Registers two handlers but hands back only one: the other can never be unmounted.
struct Leaky;

impl HookModule for Leaky {
    fn name(&self) -> &str {
        "leaky"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        mounted.register(registry, "tool:pre", deny_rm_rf, 0, "leaky.kept")?;
        registry
            .register("tool:post", lint_python, 0, "leaky.lost")
            .map_err(|source| MountError::Event {
                module: "leaky".into(),
                source,
            })?;
        Ok(mounted)
    }
}

/// Mounts nothing at all.
struct Empty;

impl HookModule for Empty {
    fn name(&self) -> &str {
        "empty"
    }

    fn mount(&self, _registry: &HookRegistry) -> Result<Mounted, MountError> {
        Ok(Mounted::new(self.name()))
    }
}

fn failed_checks(failures: &[hooks_testing::behaviour::BehaviourFailure]) -> Vec<Check> {
    failures.iter().map(|failure| failure.check).collect()
}

#[test]
fn the_sound_module_passes_every_check() {
    assert!(Suite::new(Guard).check_all().is_empty());
}

#[test]
fn a_module_that_panics_on_garbage_fails_the_bad_data_check() {
    let failure = Suite::new(PanicsOnGarbage)
        .check(Check::BadData)
        .unwrap_err();
    assert!(failure.problem.contains("panicked"), "{failure}");
    assert!(
        failure.to_string().contains("panics_on_garbage"),
        "{failure}"
    );
}

#[test]
fn a_deny_without_a_reason_fails_the_validity_checks() {
    let failures = Suite::new(DeniesWithoutReason).check_all();
    let checks = failed_checks(&failures);
    assert!(
        checks.contains(&Check::ValidAnswers) && checks.contains(&Check::ScriptedSession),
        "{checks:?}"
    );
    assert!(
        failures[0].problem.contains("without a reason"),
        "{}",
        failures[0]
    );
}

#[test]
fn a_slow_module_fails_the_time_budget() {
    let failure = Suite::new(Slow)
        .budget(Duration::from_millis(50))
        .check(Check::TimeBudget)
        .unwrap_err();
    assert!(
        failure.problem.contains("took longer than 50ms"),
        "{failure}"
    );
}

#[test]
fn a_module_whose_answers_depend_on_call_order_fails_the_concurrency_check() {
    let failure = Suite::new(Stateful).check(Check::Concurrency).unwrap_err();
    assert!(failure.problem.contains("concurrently"), "{failure}");
}

#[test]
fn a_module_that_rewrites_garbage_fails_the_bad_data_check() {
    let failure = Suite::new(ModifiesGarbage)
        .check(Check::BadData)
        .unwrap_err();
    assert!(failure.problem.contains("instead of continue"), "{failure}");
}

#[test]
fn a_module_that_leaks_a_handler_or_mounts_nothing_fails_mounting() {
    let leaky = Suite::new(Leaky).check(Check::MountAndUnmount).unwrap_err();
    assert!(leaky.problem.contains("cannot be unmounted"), "{leaky}");
    let empty = Suite::new(Empty).check(Check::MountAndUnmount).unwrap_err();
    assert!(empty.problem.contains("no handler"), "{empty}");
}

// The recorder.

fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the assertion must fail");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[tokio::test]
async fn recorder_assertions_pass_on_what_happened_and_fail_showing_the_record() {
    let registry = HookRegistry::new();
    let _guard = Guard.mount(&registry).unwrap();
    let recorder = EventRecorder::new();
    recorder.attach(&registry);
    registry.emit("SessionStart", json!({})).await;
    registry
        .emit("tool:pre", json!({"tool_input": {"command": "rm -rf /"}}))
        .await;
    registry
        .emit("tool:pre", json!({"tool_input": {"command": "ls"}}))
        .await;

    assert_eq!(recorder.events(), ["session:start", "tool:pre", "tool:pre"]);
    assert_eq!(
        recorder.assert_emitted("PreToolUse").action(),
        HookAction::Deny
    );
    recorder.assert_sequence(&["session:start", "tool:pre", "tool:pre"]);
    recorder.assert_count("tool:pre", 2);
    recorder.assert_not_emitted("tool:post");
    assert_eq!(
        recorder.last("tool:pre").unwrap().action(),
        HookAction::Continue
    );

    let missing = panic_message(|| {
        recorder.assert_emitted("tool:post");
    });
    assert!(
        missing.contains("expected `tool:post` to be emitted"),
        "{missing}"
    );
    assert!(
        missing.contains("1: tool:pre -> deny by guard.deny_rm_rf"),
        "{missing}"
    );
    let out_of_order = panic_message(|| recorder.assert_sequence(&["tool:pre", "session:start"]));
    assert!(
        out_of_order.contains("step 1 (`session:start`)"),
        "{out_of_order}"
    );
    let unexpected = panic_message(|| recorder.assert_not_emitted("session:start"));
    assert!(unexpected.contains("not to be emitted"), "{unexpected}");
    let miscounted = panic_message(|| recorder.assert_count("tool:pre", 3));
    assert!(miscounted.contains("emitted 2 time(s)"), "{miscounted}");

    recorder.clear();
    assert!(recorder.recorded().is_empty());
}

// The mock tool and the coordinator.

#[tokio::test(start_paused = true)]
async fn the_mock_tool_answers_as_configured_and_records_its_inputs() {
    let tool = MockTool::new("deploy")
        .returning(json!({"deployed": true}))
        .with_delay(Duration::from_secs(3));
    let started = tokio::time::Instant::now();
    let answer = hooks_core::session::Tool::call(&tool, json!({"env": "staging"})).await;
    assert_eq!(answer, Ok(json!({"deployed": true})));
    assert_eq!(started.elapsed(), Duration::from_secs(3));

    let broken = tool.clone().failing("cluster unreachable");
    let failed = hooks_core::session::Tool::call(&broken, json!({"env": "prod"})).await;
    assert_eq!(failed.unwrap_err().message, "cluster unreachable");
    assert_eq!(tool.calls(), 2, "clones share their record");
    assert_eq!(
        tool.inputs(),
        [json!({"env": "staging"}), json!({"env": "prod"})]
    );
    assert_eq!(tool.last_input(), Some(json!({"env": "prod"})));
}

#[tokio::test]
async fn a_coordinator_drives_a_mounted_module_through_tool_calls() {
    let mut test = TestCoordinator::new();
    let mounted = test.mount(&Guard).unwrap();
    assert_eq!(mounted.handles().len(), 2);
    test.registry()
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"]["file_path"] = json!("sandbox/main.py");
                async move { HookResult::modify(data) }
            },
            10,
            "sandbox",
        )
        .unwrap();
    let bash = MockTool::new("bash");
    let write = MockTool::new("write_file").returning(json!({"success": true}));

    let denied = test
        .run_tool(&bash, json!({"command": "rm -rf build"}))
        .await;
    let written = test
        .run_tool(
            &write,
            json!({"file_path": "main.py", "content": "print(1)"}),
        )
        .await;

    assert!(matches!(denied.status, ToolCallStatus::Blocked(_)));
    assert_eq!(bash.calls(), 0);
    assert_eq!(
        write.last_input().unwrap()["file_path"],
        "sandbox/main.py",
        "the tool saw the modified input"
    );
    assert_eq!(written.injections[0].text, "lint: sandbox/main.py is clean");
    test.recorder()
        .assert_sequence(&["tool:pre", "tool:pre", "tool:post", "injection:audit"]);
    assert!(
        test.context()
            .messages()
            .iter()
            .any(|m| m.content.contains("is clean"))
    );
    assert_eq!(test.unmount_all(), 2);
    assert_eq!(test.registry().list_handlers(None)["tool:pre"], ["sandbox"]);
}

#[tokio::test]
async fn a_coordinator_answers_approvals_from_its_script() {
    let test = TestCoordinator::new();
    test.registry()
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("Deploy?") },
            0,
            "ask",
        )
        .unwrap();
    let tool = MockTool::new("deploy");

    let unanswered = test.run_tool(&tool, json!({})).await;
    test.answer("Allow");
    let answered = test.run_tool(&tool, json!({})).await;

    assert!(
        matches!(unanswered.status, ToolCallStatus::Blocked(_)),
        "no answer: the default, deny"
    );
    assert!(matches!(answered.status, ToolCallStatus::Ran { .. }));
    assert_eq!(test.approvals().asked().len(), 2);
    test.recorder()
        .assert_sequence(&["approval:denied", "approval:granted"]);
}

#[tokio::test]
async fn the_scripted_session_is_a_realistic_turn() {
    let test = TestCoordinator::new();
    let session = ScriptedSession::typical();

    let outcomes = test.play(&session).await;

    let events: Vec<&str> = session.steps().iter().map(|s| s.event).collect();
    assert_eq!(events.first(), Some(&"session:start"));
    assert_eq!(events.last(), Some(&"session:end"));
    for required in [
        "prompt:submit",
        "provider:request",
        "provider:response",
        "tool:pre",
        "tool:post",
        "tool:error",
        "context:pre_compact",
        "prompt:complete",
    ] {
        assert!(
            events.contains(&required),
            "{required} is part of a typical turn"
        );
    }
    assert_eq!(outcomes.len(), events.len());
    assert!(session.sample("tool:pre").unwrap()["tool_input"].is_object());
    assert!(session.sample("provider:request").unwrap()["request"]["messages"].is_array());
    test.recorder().assert_count("tool:pre", 2);
}

#[test]
fn the_scripted_session_carries_every_required_field_and_the_canonical_call_id() {
    let session = ScriptedSession::typical();
    for step in session.steps() {
        let Some(fields) = hooks_core::events::fields::of(step.event) else {
            continue;
        };
        for field in fields.required() {
            assert!(
                !step.data[*field].is_null(),
                "{} lacks its required `{field}`",
                step.event
            );
        }
    }
    let tool_steps: Vec<_> = session
        .steps()
        .iter()
        .filter(|step| step.event.starts_with("tool:"))
        .collect();
    assert_eq!(tool_steps.len(), 4);
    for step in tool_steps {
        assert!(step.data["tool_call_id"].is_string(), "{}", step.event);
        assert!(step.data.get("tool_use_id").is_none(), "{}", step.event);
    }
}

#[tokio::test]
async fn annotated_hooks_join_a_coordinator_only_when_asked() {
    let isolated = TestCoordinator::new();
    assert!(isolated.registry().list_handlers(None).is_empty());
    let with = TestCoordinator::new().with_annotated(|_| true).unwrap();
    let annotated = hooks_core::annotated_hooks().len();
    let registered: usize = with
        .registry()
        .list_handlers(None)
        .values()
        .map(Vec::len)
        .sum();
    assert_eq!(registered, annotated);
}

// The strategies.

proptest! {
    #[test]
    fn generated_results_round_trip_through_json(result in hooks_testing::strategies::hook_result()) {
        let text = serde_json::to_string(&result).unwrap();
        let back: HookResult = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(back, result);
    }

    #[test]
    fn generated_event_names_are_all_usable(name in hooks_testing::strategies::event_name()) {
        prop_assert!(hooks_core::events::canonicalize(&name).is_ok(), "{}", name);
    }

    #[test]
    fn the_sound_module_never_fails_on_generated_data(data in hooks_testing::strategies::event_data()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let registry = HookRegistry::new();
        let _guard = Guard.mount(&registry).unwrap();
        for event in ["tool:pre", "tool:post"] {
            let outcome = runtime.block_on(registry.emit(event, data.clone()));
            prop_assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        }
    }
}
