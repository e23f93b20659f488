//! Registration, unregistration, introspection, `emit_and_collect`, and concurrent use.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::{
    EventNameError, Hook, HookAction, HookHandle, HookOptions, HookRegistry, HookResult,
};
use serde_json::{Value, json};
use support::Trace;
use tokio::sync::Barrier;

// Registration shapes.

struct DenyTool {
    tool: &'static str,
}

impl Hook for DenyTool {
    async fn handle(&self, _event: &str, data: &Value) -> HookResult {
        if data["tool_name"] == self.tool {
            HookResult::deny(format!("{} is disabled", self.tool))
        } else {
            HookResult::cont()
        }
    }
}

async fn plain_async_fn(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("from an async fn")
}

#[tokio::test]
async fn async_fns_closures_and_hook_types_all_register() {
    let registry = HookRegistry::new();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    registry
        .register("tool:pre", plain_async_fn, 0, "fn")
        .unwrap();
    registry
        .register(
            "tool:pre",
            move |_: &str, _: &Value| {
                counter.fetch_add(1, Ordering::SeqCst);
                async { HookResult::cont() }
            },
            1,
            "closure",
        )
        .unwrap();
    registry
        .register("tool:pre", DenyTool { tool: "bash" }, 2, "deny_bash")
        .unwrap();

    let outcome = registry
        .emit("tool:pre", json!({"tool_name": "bash"}))
        .await;

    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.action(), HookAction::Deny);
    assert_eq!(outcome.result.reason.as_deref(), Some("bash is disabled"));
    assert_eq!(outcome.injections[0].text, "from an async fn");
}

#[tokio::test]
async fn a_handler_may_borrow_the_event_data_across_an_await() {
    async fn borrowing(event: &str, data: &Value) -> HookResult {
        let tool = data["tool_name"].as_str().unwrap_or_default();
        tokio::task::yield_now().await;
        HookResult::inject(format!("{event}: {tool}"))
    }
    let registry = HookRegistry::new();
    registry
        .register("tool:pre", borrowing, 0, "borrowing")
        .unwrap();

    let outcome = registry
        .emit("tool:pre", json!({"tool_name": "grep"}))
        .await;

    assert_eq!(outcome.injections[0].text, "tool:pre: grep");
}

#[test]
fn register_with_defaults_the_name_to_the_handler_path() {
    let registry = HookRegistry::new();
    let handle = registry
        .register_with("tool:pre", plain_async_fn, HookOptions::new())
        .unwrap();
    assert!(
        handle.name().ends_with("registry_api::plain_async_fn"),
        "{}",
        handle.name()
    );
    assert_eq!(handle.event(), "tool:pre");
}

#[test]
fn bad_event_names_are_refused_with_a_suggestion() {
    let registry = HookRegistry::new();
    let error = registry
        .register("tool:prre", plain_async_fn, 0, "typo")
        .unwrap_err();
    assert_eq!(error.suggestion(), Some("tool:pre"));
    assert!(matches!(
        registry.register("", plain_async_fn, 0, "empty"),
        Err(EventNameError::Empty)
    ));
    assert!(
        registry
            .register("Tool Pre", plain_async_fn, 0, "spaces")
            .is_err()
    );
    assert!(
        registry.list_handlers(None).is_empty(),
        "nothing was registered"
    );
}

// Introspection.

#[test]
fn list_handlers_groups_names_by_canonical_event() {
    let registry = HookRegistry::new();
    let trace = Trace::new();
    registry
        .register("PreToolUse", trace.observe("a"), 1, "validator")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("b"), 2, "logger")
        .unwrap();
    registry
        .register("session:start", trace.observe("c"), 0, "auth_check")
        .unwrap();

    let all = registry.list_handlers(None);
    assert_eq!(
        all.len(),
        2,
        "aliases are not listed as events of their own: {all:?}"
    );
    assert_eq!(all["tool:pre"], ["validator", "logger"]);
    assert_eq!(all["session:start"], ["auth_check"]);
    assert_eq!(
        registry.list_handlers(Some("PreToolUse"))["tool:pre"],
        ["validator", "logger"]
    );
    let none = registry.list_handlers(Some("custom:event"));
    assert_eq!(none.len(), 1);
    assert!(none["custom:event"].is_empty());
}

#[test]
fn has_handlers_answers_for_names_and_aliases() {
    let registry = HookRegistry::new();
    assert!(!registry.has_handlers("tool:pre"));
    let handle = registry
        .register("tool:pre", plain_async_fn, 0, "x")
        .unwrap();
    assert!(registry.has_handlers("tool:pre"));
    assert!(registry.has_handlers("PreToolUse"));
    assert!(!registry.has_handlers("tool:post"));
    handle.unregister();
    assert!(!registry.has_handlers("PreToolUse"));
}

#[tokio::test]
async fn every_registered_event_is_reached_whatever_its_name_hashes_to() {
    let registry = HookRegistry::new();
    let names: Vec<String> = hooks_core::events::CANONICAL
        .iter()
        .map(|name| (*name).to_owned())
        .chain((0..200).map(|i| format!("app:event_{i}")))
        .collect();
    for name in &names {
        registry
            .register(
                name,
                Trace::new().answer("x", HookResult::inject("heard")),
                0,
                "x",
            )
            .unwrap();
    }
    for name in &names {
        assert!(registry.has_handlers(name), "{name}");
        let outcome = registry.emit(name, json!({})).await;
        assert_eq!(
            outcome.action(),
            HookAction::InjectContext,
            "{name} was not dispatched"
        );
    }
    for (alias, _) in hooks_core::events::ALIASES {
        assert!(registry.has_handlers(alias), "{alias}");
    }
    assert_eq!(registry.unregister("x"), names.len());
    for name in &names {
        assert!(!registry.has_handlers(name), "{name}");
        assert_eq!(
            registry.emit(name, json!({})).await.action(),
            HookAction::Continue
        );
    }
}

// Unregistration.

#[tokio::test]
async fn the_handle_unregisters_exactly_its_handler_once() {
    let registry = HookRegistry::new();
    let trace = Trace::new();
    let first = registry
        .register("tool:pre", trace.observe("first"), 0, "same")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("second"), 0, "same")
        .unwrap();

    assert!(first.unregister());
    assert!(!first.unregister(), "a second unregister is a no-op");
    registry.emit("tool:pre", json!({})).await;

    assert_eq!(trace.order(), ["second"]);
}

#[tokio::test]
async fn duplicate_names_are_allowed_and_unregister_by_name_removes_them_all() {
    let registry = HookRegistry::new();
    let trace = Trace::new();
    registry
        .register("tool:pre", trace.observe("a"), 0, "dup")
        .unwrap();
    registry
        .register("tool:post", trace.observe("b"), 0, "dup")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("c"), 0, "keep")
        .unwrap();

    assert_eq!(registry.unregister("dup"), 2);
    assert_eq!(registry.unregister("dup"), 0);
    registry.emit("tool:pre", json!({})).await;
    registry.emit("tool:post", json!({})).await;

    assert_eq!(trace.order(), ["c"]);
    assert_eq!(registry.list_handlers(None).len(), 1);
}

#[test]
fn a_handle_outliving_its_registry_unregisters_nothing() {
    let handle = {
        let registry = HookRegistry::new();
        registry
            .register("tool:pre", plain_async_fn, 0, "x")
            .unwrap()
    };
    assert!(!handle.unregister());
}

#[tokio::test]
async fn a_handler_unregistered_during_an_emit_does_not_run_in_it() {
    let registry = HookRegistry::new();
    let trace = Trace::new();
    let victim: Arc<std::sync::OnceLock<HookHandle>> = Arc::default();
    let to_remove = victim.clone();
    registry
        .register(
            "tool:pre",
            move |_: &str, _: &Value| {
                let removed = to_remove.get().is_some_and(HookHandle::unregister);
                async move {
                    HookResult::cont()
                        .with_user_message(format!("removed: {removed}"), Default::default())
                }
            },
            0,
            "remover",
        )
        .unwrap();
    victim
        .set(
            registry
                .register("tool:pre", trace.observe("victim"), 10, "victim")
                .unwrap(),
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        outcome.result.user_message.as_deref(),
        Some("removed: true")
    );
    assert!(
        trace.order().is_empty(),
        "the unregistered handler must not start"
    );
    assert_eq!(
        registry.list_handlers(Some("tool:pre"))["tool:pre"],
        ["remover"]
    );
}

#[tokio::test]
async fn a_handler_may_register_another_during_an_emit_without_deadlock() {
    let registry = HookRegistry::new();
    let trace = Trace::new();
    let inner_registry = registry.clone();
    let inner_trace = trace.clone();
    registry
        .register(
            "tool:pre",
            move |_: &str, _: &Value| {
                if inner_registry.list_handlers(Some("tool:pre"))["tool:pre"].len() == 1 {
                    inner_registry
                        .register("tool:pre", inner_trace.observe("late"), 5, "late")
                        .unwrap();
                }
                async { HookResult::cont() }
            },
            0,
            "registrar",
        )
        .unwrap();

    registry.emit("tool:pre", json!({})).await;
    assert!(
        trace.order().is_empty(),
        "an emit in flight keeps the handlers it started with"
    );
    registry.emit("tool:pre", json!({})).await;
    assert_eq!(trace.order(), ["late"]);
}

// emit_and_collect.

#[tokio::test(start_paused = true)]
async fn emit_and_collect_keeps_the_data_of_answers_in_time_and_drops_the_rest() {
    async fn fast(_: &str, data: &Value) -> HookResult {
        HookResult::cont().with_data(json!({"vote": "weather", "query": data["q"]}))
    }
    async fn slow(_: &str, _: &Value) -> HookResult {
        tokio::time::sleep(Duration::from_secs(5)).await;
        HookResult::cont().with_data(json!({"vote": "late"}))
    }
    async fn failing(_: &str, _: &Value) -> Result<HookResult, &'static str> {
        Err("broken")
    }
    async fn panicking(_: &str, _: &Value) -> HookResult {
        panic!("collect handler panicked")
    }
    async fn dataless(_: &str, _: &Value) -> HookResult {
        HookResult::cont()
    }
    async fn null_data(_: &str, _: &Value) -> HookResult {
        HookResult::cont().with_data(Value::Null)
    }
    async fn second_vote(_: &str, _: &Value) -> HookResult {
        HookResult::deny("votes are data, not decisions").with_data(json!({"vote": "web"}))
    }
    let registry = HookRegistry::new();
    registry
        .register("decision:tool_resolution", slow, 0, "slow")
        .unwrap();
    registry
        .register("decision:tool_resolution", fast, 1, "fast")
        .unwrap();
    registry
        .register("decision:tool_resolution", failing, 2, "failing")
        .unwrap();
    registry
        .register("decision:tool_resolution", panicking, 3, "panicking")
        .unwrap();
    registry
        .register("decision:tool_resolution", dataless, 4, "dataless")
        .unwrap();
    registry
        .register("decision:tool_resolution", null_data, 5, "null")
        .unwrap();
    registry
        .register("decision:tool_resolution", second_vote, 6, "second")
        .unwrap();

    let started = tokio::time::Instant::now();
    let votes = registry
        .emit_and_collect(
            "decision:tool_resolution",
            json!({"q": "rain?"}),
            Duration::from_secs(1),
        )
        .await;

    assert_eq!(
        votes,
        [
            json!({"vote": "weather", "query": "rain?"}),
            json!({"vote": "web"})
        ]
    );
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(1),
        "the slow handler is cut at its timeout"
    );
}

#[tokio::test(start_paused = true)]
async fn emit_and_collect_runs_handlers_concurrently() {
    // Each handler waits for the other at a barrier: run one after the other, both time out.
    let barrier = Arc::new(Barrier::new(2));
    let registry = HookRegistry::new();
    for (name, priority) in [("left", 0), ("right", 1)] {
        let barrier = barrier.clone();
        registry
            .register(
                "app:vote",
                move |_: &str, _: &Value| {
                    let barrier = barrier.clone();
                    async move {
                        barrier.wait().await;
                        HookResult::cont().with_data(json!(name))
                    }
                },
                priority,
                name,
            )
            .unwrap();
    }

    let votes = registry
        .emit_and_collect("app:vote", json!({}), Duration::from_secs(1))
        .await;

    assert_eq!(votes, [json!("left"), json!("right")]);
}

#[tokio::test]
async fn emit_and_collect_without_handlers_is_empty() {
    let registry = HookRegistry::new();
    assert!(
        registry
            .emit_and_collect("app:vote", json!({}), Duration::from_secs(1))
            .await
            .is_empty()
    );
}

// Concurrency.

#[test]
fn emitters_run_while_another_thread_registers_and_unregisters() {
    support::runtime().block_on(async {
        let registry = HookRegistry::new();
        registry
            .register(
                "tool:pre",
                Trace::new().answer("guard", HookResult::deny("always")),
                100,
                "guard",
            )
            .unwrap();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));

        let churn = {
            let registry = registry.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut rounds = 0_u32;
                while !stop.load(Ordering::Relaxed) {
                    let handle = registry
                        .register(
                            "tool:pre",
                            Trace::new().answer("flapper", HookResult::inject("flap")),
                            0,
                            "flapper",
                        )
                        .unwrap();
                    tokio::task::yield_now().await;
                    assert!(handle.unregister());
                    rounds += 1;
                }
                rounds
            })
        };
        let emitters: Vec<_> = (0..2)
            .map(|_| {
                let registry = registry.clone();
                tokio::spawn(async move {
                    let mut flaps = 0;
                    for _ in 0..2_000 {
                        let outcome = registry
                            .emit("tool:pre", json!({"tool_name": "bash"}))
                            .await;
                        assert_eq!(outcome.action(), HookAction::Deny);
                        assert_eq!(outcome.decided_by.as_deref(), Some("guard"));
                        assert!(outcome.injections.len() <= 1);
                        flaps += outcome.injections.len();
                        tokio::task::yield_now().await;
                    }
                    flaps
                })
            })
            .collect();

        let finished = tokio::time::timeout(Duration::from_secs(60), async {
            let mut total = 0;
            for emitter in emitters {
                total += emitter.await.expect("emitter panicked");
            }
            total
        })
        .await
        .expect("emitters must never be blocked by the writer");
        stop.store(true, Ordering::Relaxed);
        let rounds = churn.await.expect("writer panicked");
        assert!(rounds > 0, "the writer ran");
        assert!(finished <= 4_000);
        assert_eq!(
            registry.list_handlers(Some("tool:pre"))["tool:pre"],
            ["guard"]
        );
    });
}

// Observers.

#[tokio::test]
async fn observers_see_every_emit_with_its_outcome_heard_or_not() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            Trace::new().answer("guard", HookResult::deny("no")),
            0,
            "guard",
        )
        .unwrap();
    let seen: Arc<std::sync::Mutex<Vec<(String, HookAction, Value)>>> = Arc::default();
    let sink = seen.clone();
    let handle = registry.observe(move |event: &str, outcome: &hooks_core::EmitResult| {
        sink.lock()
            .unwrap()
            .push((event.to_owned(), outcome.action(), outcome.data().clone()));
    });

    registry
        .emit("PreToolUse", json!({"tool_name": "bash"}))
        .await;
    registry
        .emit("SessionStart", json!({"source": "startup"}))
        .await;
    registry.emit("app:custom", json!({"n": 1})).await;
    assert!(handle.unregister());
    assert!(!handle.unregister());
    registry.emit("app:custom", json!({"n": 2})).await;

    let seen = seen.lock().unwrap();
    let summary: Vec<_> = seen
        .iter()
        .map(|(event, action, _)| (event.as_str(), *action))
        .collect();
    assert_eq!(
        summary,
        [
            ("tool:pre", HookAction::Deny),
            ("session:start", HookAction::Continue),
            ("app:custom", HookAction::Continue)
        ],
        "canonical names, heard and unheard events, nothing after removal"
    );
    assert_eq!(seen[0].2["tool_name"], "bash");
    assert!(
        seen[0].2.get("timestamp").is_some(),
        "the data as the handlers saw it"
    );
    assert_eq!(
        seen[2].2,
        json!({"n": 1}),
        "an unheard event's data as given"
    );
}

#[tokio::test]
async fn a_panicking_observer_does_not_disturb_the_emit() {
    let registry = HookRegistry::new();
    registry.observe(|_: &str, _: &hooks_core::EmitResult| panic!("observer bug"));
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    registry.observe(move |_: &str, _: &hooks_core::EmitResult| {
        counter.fetch_add(1, Ordering::SeqCst);
    });

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the next observer still runs"
    );
}

#[tokio::test]
async fn an_observer_unregistered_by_its_former_verb_is_gone_too() {
    let registry = HookRegistry::new();
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    let handle = registry.observe(move |_: &str, _: &hooks_core::EmitResult| {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    registry.emit("app:custom", json!({})).await;
    #[allow(deprecated)]
    let removed = (handle.remove(), handle.remove());
    assert_eq!(removed, (true, false));
    registry.emit("app:custom", json!({})).await;
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(registry.observer_count(), 0);
}
