//! Fault injection in the kernel: handlers that hang for ever, panic with odd payloads, answer
//! garbage, or edit the registry (and emit into it) while they run; an approval provider that
//! panics or never answers. In every case the emit returns within its timeout, the decision
//! follows the emit rules (`HookRegistry::emit`'s docs), and the fault is reported.
//!
//! The faults already covered elsewhere (a handler that errors, panics on index, sleeps past
//! its timeout, modifies without data, unregisters a later handler, registers another) are
//! listed with their tests in RELIABILITY.md.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use hooks_core::session::Blocked;
use hooks_core::session::approval::ApprovalError;
use hooks_core::session::{
    ApprovalProvider, ApprovalRequest, HookSession, InMemoryDisplay, ToolCallStatus,
};
use hooks_core::{
    BoxFuture, FailureKind, HookAction, HookHandle, HookOptions, HookRegistry, HookResult,
};
use hooks_testing::MockTool;
use serde_json::{Value, json};
use support::Trace;

fn registry() -> HookRegistry {
    HookRegistry::with_handler_timeout(Some(Duration::from_secs(5)))
}

// Handlers that hang.

#[tokio::test(start_paused = true)]
async fn a_handler_that_never_answers_is_cut_at_its_timeout_and_the_guard_after_it_decides() {
    let registry = registry();
    let trace = Trace::new();
    registry
        .register_with(
            "tool:pre",
            |_: &str, _: &Value| std::future::pending::<HookResult>(),
            HookOptions::new()
                .name("stuck")
                .timeout(Duration::from_millis(300)),
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("guard", HookResult::deny("still enforced")),
            1,
            "guard",
        )
        .unwrap();

    let started = tokio::time::Instant::now();
    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(started.elapsed(), Duration::from_millis(300));
    assert_eq!(outcome.action(), HookAction::Deny);
    assert_eq!(trace.order(), ["guard"]);
    assert_eq!(&*outcome.failures[0].hook, "stuck");
    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Timeout(Duration::from_millis(300))
    );
}

#[tokio::test(start_paused = true)]
async fn a_handler_that_hangs_after_its_first_poll_is_cut_by_the_registry_default() {
    // The timer is armed lazily on the first `Pending`; a handler that does some work, yields,
    // then hangs must still be cut.
    async fn yields_then_hangs(_: &str, _: &Value) -> HookResult {
        tokio::task::yield_now().await;
        std::future::pending::<()>().await;
        HookResult::deny("never reached")
    }
    let registry = registry();
    registry
        .register("tool:pre", yields_then_hangs, 0, "stuck")
        .unwrap();

    let started = tokio::time::Instant::now();
    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Timeout(Duration::from_secs(5))
    );
}

#[tokio::test(start_paused = true)]
async fn a_handler_that_never_answers_is_left_out_of_emit_and_collect() {
    let registry = registry();
    registry
        .register(
            "context:include",
            |_: &str, _: &Value| std::future::pending::<HookResult>(),
            0,
            "stuck",
        )
        .unwrap();
    registry
        .register(
            "context:include",
            |_: &str, _: &Value| async { HookResult::cont().with_data(json!("fresh")) },
            1,
            "prompt",
        )
        .unwrap();

    let started = tokio::time::Instant::now();
    let collected = registry
        .emit_and_collect("context:include", json!({}), Duration::from_millis(200))
        .await;

    assert_eq!(started.elapsed(), Duration::from_millis(200));
    assert_eq!(collected, [json!("fresh")]);
}

// Handlers that panic.

#[tokio::test]
async fn a_panic_with_a_non_string_payload_or_after_an_await_is_reported() {
    async fn panics_late(_: &str, _: &Value) -> HookResult {
        tokio::task::yield_now().await;
        panic!("late panic after {} polls", 2);
    }
    let registry = registry();
    let trace = Trace::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async {
                std::panic::panic_any(42_u8);
                #[allow(unreachable_code)]
                HookResult::cont()
            },
            0,
            "odd_payload",
        )
        .unwrap();
    registry
        .register("tool:pre", panics_late, 1, "late")
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("guard", HookResult::ask("Run it?")),
            2,
            "guard",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::AskUser);
    assert_eq!(trace.order(), ["guard"]);
    let kinds: Vec<_> = outcome.failures.iter().map(|f| f.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            FailureKind::Panic("non-string panic payload".into()),
            FailureKind::Panic("late panic after 2 polls".into()),
        ]
    );
}

#[tokio::test]
async fn a_panic_in_emit_and_collect_is_left_out_and_the_others_are_kept() {
    let registry = registry();
    registry
        .register(
            "context:include",
            |_: &str, _: &Value| async {
                panic!("collector broke");
                #[allow(unreachable_code)]
                HookResult::cont()
            },
            0,
            "broken",
        )
        .unwrap();
    registry
        .register(
            "context:include",
            |_: &str, _: &Value| async { HookResult::cont().with_data(json!(1)) },
            1,
            "ok",
        )
        .unwrap();

    let collected = registry
        .emit_and_collect("context:include", json!({}), Duration::from_secs(1))
        .await;

    assert_eq!(collected, [json!(1)]);
}

// Handlers that answer garbage.

#[tokio::test]
async fn garbage_answers_are_reported_and_change_nothing_they_do_not_say() {
    let registry = registry();
    let trace = Trace::new();
    let empty_inject = HookResult {
        action: HookAction::InjectContext,
        ..HookResult::default()
    };
    let empty_modify = HookResult {
        action: HookAction::Modify,
        ..HookResult::default()
    };
    trace.chain(
        &registry,
        "tool:pre",
        [
            ("empty_inject", empty_inject),
            ("empty_modify", empty_modify),
            ("last", HookResult::cont()),
        ],
    );

    let outcome = registry
        .emit("tool:pre", json!({"tool_input": {"command": "ls"}}))
        .await;

    assert_eq!(trace.order(), ["empty_inject", "empty_modify", "last"]);
    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(outcome.data()["tool_input"], json!({"command": "ls"}));
    assert!(outcome.injections.is_empty() && outcome.modifications.is_empty());
    let failed: Vec<_> = outcome.failures.iter().map(|f| &*f.hook).collect();
    assert_eq!(failed, ["empty_inject", "empty_modify"]);
    assert!(
        outcome
            .failures
            .iter()
            .all(|f| matches!(f.kind, FailureKind::InvalidResult(_)))
    );
}

#[tokio::test(start_paused = true)]
async fn an_ask_with_a_nonsensical_timeout_is_settled_by_its_default_not_allowed() {
    let registry = registry();
    let nonsense = HookResult {
        approval_timeout: f64::NAN,
        ..HookResult::ask("Allow the write?")
    };
    registry
        .register(
            "tool:pre",
            move |_: &str, _: &Value| {
                let answer = nonsense.clone();
                async move { answer }
            },
            0,
            "nan_timeout",
        )
        .unwrap();
    let session = HookSession::builder(registry)
        .approvals(Arc::new(NeverAnswers))
        .build();
    let tool = MockTool::new("write_file");

    let outcome = session.run_tool(&tool, json!({"file_path": "a"})).await;

    assert!(
        matches!(
            outcome.status,
            ToolCallStatus::Blocked(Blocked::ByApproval { .. })
        ),
        "{:?}",
        outcome.status
    );
    assert_eq!(tool.calls(), 0);
}

// Handlers that edit the registry, or emit into it, while they run.

#[tokio::test]
async fn a_handler_that_unregisters_itself_runs_once_and_the_chain_goes_on() {
    let registry = registry();
    let trace = Trace::new();
    let own: Arc<OnceLock<HookHandle>> = Arc::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let (me, counted) = (own.clone(), calls.clone());
    own.set(
        registry
            .register(
                "tool:pre",
                move |_: &str, _: &Value| {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let removed = me.get().is_some_and(HookHandle::unregister);
                    async move { HookResult::inject(format!("one-shot, removed: {removed}")) }
                },
                0,
                "one_shot",
            )
            .unwrap(),
    )
    .unwrap();
    registry
        .register("tool:pre", trace.observe("after"), 1, "after")
        .unwrap();

    let first = registry.emit("tool:pre", json!({})).await;
    let second = registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        first.result.context_injection.as_deref(),
        Some("one-shot, removed: true")
    );
    assert_eq!(second.action(), HookAction::Continue);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(trace.order(), ["after", "after"]);
}

#[tokio::test]
async fn a_handler_that_unregisters_the_guard_after_it_disables_it_for_that_emit_too() {
    // Documented behaviour (HookHandle::unregister): once unregistered, no new call starts.
    // In-process handlers are trusted code; RELIABILITY.md says so.
    let registry = registry();
    let trace = Trace::new();
    let remover = registry.clone();
    registry
        .register(
            "tool:pre",
            move |_: &str, _: &Value| {
                let removed = remover.unregister("guard");
                async move { HookResult::cont().with_reason(format!("removed {removed}")) }
            },
            0,
            "saboteur",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("guard", HookResult::deny("no")),
            1,
            "guard",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert!(trace.order().is_empty());
    assert!(registry.list_handlers(Some("tool:pre"))["tool:pre"] == ["saboteur"]);
}

#[tokio::test]
async fn a_handler_may_emit_into_its_own_registry_recursively_without_deadlock() {
    let registry = registry();
    let depth = Arc::new(AtomicUsize::new(0));
    let (inner, level) = (registry.clone(), depth.clone());
    registry
        .register(
            "tool:pre",
            move |_: &str, data: &Value| {
                let (registry, level) = (inner.clone(), level.clone());
                let n = data["n"].as_u64().unwrap_or(0);
                async move {
                    level.fetch_max(n as usize, Ordering::SeqCst);
                    if n < 3 {
                        // The inner emit's own decision stays inside it.
                        let nested = registry.emit("tool:pre", json!({"n": n + 1})).await;
                        let also = registry.emit("user:notification", json!({})).await;
                        assert_eq!(also.action(), HookAction::Continue);
                        HookResult::inject(format!("level {n} saw {}", nested.action()))
                    } else {
                        HookResult::deny("deepest")
                    }
                }
            },
            0,
            "recursive",
        )
        .unwrap();
    registry
        .register(
            "user:notification",
            |_: &str, _: &Value| async { HookResult::cont() },
            0,
            "notify",
        )
        .unwrap();

    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        registry.emit("tool:pre", json!({"n": 0})),
    )
    .await
    .expect("a re-entrant emit deadlocked");

    assert_eq!(depth.load(Ordering::SeqCst), 3);
    assert_eq!(outcome.action(), HookAction::InjectContext);
    assert_eq!(
        outcome.result.context_injection.as_deref(),
        Some("level 0 saw inject_context")
    );
}

#[tokio::test]
async fn handlers_that_register_and_unregister_on_every_call_leave_a_consistent_registry() {
    let registry = registry();
    let churn = registry.clone();
    registry
        .register(
            "tool:pre",
            move |_: &str, data: &Value| {
                let n = data["n"].as_u64().unwrap_or(0);
                // Register a short-lived handler, and remove the one of the previous call.
                churn
                    .register(
                        "tool:pre",
                        |_: &str, _: &Value| async { HookResult::inject("temp") },
                        -1,
                        format!("temp{n}"),
                    )
                    .unwrap();
                if n > 0 {
                    churn.unregister(&format!("temp{}", n - 1));
                }
                async { HookResult::cont() }
            },
            0,
            "churner",
        )
        .unwrap();

    for n in 0..50_u64 {
        let outcome = registry.emit("tool:pre", json!({"n": n})).await;
        // The snapshot of emit n holds temp{n-1} (priority -1, so it runs before the churner
        // removes it) but not temp{n}, registered during the emit.
        if n == 0 {
            assert!(outcome.injections.is_empty());
        } else {
            assert_eq!(outcome.injections.len(), 1, "emit {n}");
            assert_eq!(&*outcome.injections[0].hook, format!("temp{}", n - 1));
        }
    }
    assert_eq!(
        registry.list_handlers(Some("tool:pre"))["tool:pre"],
        ["temp49", "churner"]
    );
}

// Approval providers that fail.

struct NeverAnswers;

impl ApprovalProvider for NeverAnswers {
    fn ask<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Result<String, ApprovalError>> {
        Box::pin(std::future::pending())
    }
}

struct Panics(Mutex<usize>);

impl ApprovalProvider for Panics {
    fn ask<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Result<String, ApprovalError>> {
        *self.0.lock().unwrap() += 1;
        Box::pin(async { panic!("the approval dialog crashed") })
    }
}

#[tokio::test]
async fn a_panicking_approval_provider_falls_back_to_the_default_deny() {
    let registry = registry();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("Allow the deploy?") },
            0,
            "gate",
        )
        .unwrap();
    let provider = Arc::new(Panics(Mutex::new(0)));
    let display = Arc::new(InMemoryDisplay::new());
    let session = HookSession::builder(registry)
        .approvals(provider.clone())
        .display(display.clone())
        .build();
    let tool = MockTool::new("deploy");

    let outcome = session.run_tool(&tool, json!({})).await;

    assert_eq!(*provider.0.lock().unwrap(), 1);
    assert_eq!(tool.calls(), 0, "the tool must not run");
    match outcome.status {
        ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. }) => {
            assert!(!decision.allowed);
            assert!(
                decision.source.to_string().contains("crashed"),
                "{}",
                decision.source
            );
        }
        other => panic!("expected a denial by the approval default, got {other:?}"),
    }
}
