//! The emit's fast paths keep its rules: a call stored in place or boxed, answered at once or
//! after waiting, a chain of plain continues, and the timestamp every handler reads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::{FailureKind, HookAction, HookOptions, HookRegistry, HookResult, MessageLevel};
use serde_json::{Value, json};

/// A future that is pending at its first poll and ready at the second (waking its task).
async fn wait_one_poll() {
    tokio::task::yield_now().await;
}

/// Panics with `message`; typed as an answer so that handlers can end with it.
fn explode(message: &str) -> HookResult {
    panic!("{message}")
}

/// Sets its flag when dropped: shows that a call's future was dropped, not leaked.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn the_emit_future_can_be_sent_to_another_thread() {
    fn assert_send<T: Send>(_: &T) {}
    let registry = HookRegistry::new();
    let emit = registry.emit("tool:pre", json!({}));
    assert_send(&emit);
}

#[tokio::test]
async fn every_handler_reads_the_same_timestamp_and_the_result_keeps_it() {
    let registry = HookRegistry::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    for name in ["first", "second", "third"] {
        let seen = Arc::clone(&seen);
        registry
            .register(
                "tool:pre",
                move |_: &str, data: &Value| {
                    seen.lock().unwrap().push(data.get("timestamp").cloned());
                    async { HookResult::cont() }
                },
                0,
                name,
            )
            .unwrap();
    }

    let outcome = registry
        .emit("tool:pre", json!({"tool_name": "bash"}))
        .await;

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    let stamp = seen[0]
        .clone()
        .expect("the first handler reads a timestamp");
    assert!(
        stamp
            .as_str()
            .is_some_and(|s| s.len() == 24 && s.ends_with('Z')),
        "{stamp}"
    );
    assert!(seen.iter().all(|s| s.as_ref() == Some(&stamp)), "{seen:?}");
    assert_eq!(
        outcome.data()["timestamp"],
        stamp,
        "the final data keeps it"
    );
    assert_eq!(outcome.data()["tool_name"], "bash");
}

#[tokio::test]
async fn a_chain_of_plain_continues_is_a_plain_continue_with_the_prepared_data() {
    let registry = HookRegistry::new();
    registry.set_default_fields([("session_id", json!("s-1"))]);
    for i in 0..5 {
        registry
            .register(
                "tool:pre",
                |_: &str, _: &Value| async { HookResult::cont() },
                i,
                format!("quiet_{i}"),
            )
            .unwrap();
    }

    let outcome = registry
        .emit("tool:pre", json!({"tool_name": "bash", "timestamp": "t"}))
        .await;

    assert_eq!(
        outcome.result,
        HookResult {
            data: Some(json!({"tool_name": "bash", "timestamp": "t", "session_id": "s-1"})),
            ..HookResult::default()
        }
    );
    assert!(outcome.injections.is_empty() && outcome.messages.is_empty());
    assert!(outcome.modifications.is_empty() && outcome.failures.is_empty());
    assert_eq!(outcome.decided_by, None);
}

#[tokio::test]
async fn a_continue_carrying_fields_that_mean_nothing_on_a_continue_changes_nothing() {
    // Each of these answers is a `continue` with one field set that only another action reads:
    // the chain must end exactly as a chain of bare continues does, with the data untouched.
    let answers: Vec<fn() -> HookResult> = vec![
        || HookResult::cont().with_reason("looked fine"),
        || HookResult {
            data: Some(json!({"tool_name": "rewritten"})),
            ..HookResult::cont()
        },
        || HookResult {
            approval_prompt: Some("really?".into()),
            approval_options: Some(vec!["Yes".into(), "No".into()]),
            ..HookResult::cont()
        },
    ];
    for (i, answer) in answers.into_iter().enumerate() {
        let registry = HookRegistry::new();
        registry
            .register(
                "tool:pre",
                move |_: &str, _: &Value| async move { answer() },
                0,
                "carrier",
            )
            .unwrap();
        let outcome = registry
            .emit("tool:pre", json!({"tool_name": "bash", "timestamp": "t"}))
            .await;
        assert_eq!(
            outcome.result,
            HookResult {
                data: Some(json!({"tool_name": "bash", "timestamp": "t"})),
                ..HookResult::default()
            },
            "answer {i}"
        );
        assert!(outcome.modifications.is_empty() && outcome.decided_by.is_none());
    }
}

#[tokio::test]
async fn an_answer_that_only_suppresses_output_or_only_speaks_to_the_user_is_not_lost() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::cont().with_suppress_output(true) },
            0,
            "quiet",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async {
                HookResult::cont().with_user_message("heads up", MessageLevel::Warning)
            },
            0,
            "talker",
        )
        .unwrap();

    let suppressed = registry.emit("tool:pre", json!({})).await;
    assert_eq!(suppressed.action(), HookAction::Continue);
    assert!(
        suppressed.result.suppress_output,
        "nothing else to merge, yet it counts"
    );

    let told = registry.emit("tool:post", json!({})).await;
    assert_eq!(told.action(), HookAction::Continue);
    assert_eq!(told.result.user_message.as_deref(), Some("heads up"));
    assert_eq!(told.result.user_message_level, MessageLevel::Warning);
    assert_eq!(&*told.messages[0].hook, "talker");
}

#[tokio::test]
async fn provenance_survives_plain_continues_around_the_answers_that_count() {
    let registry = HookRegistry::new();
    let quiet = |_: &str, _: &Value| async { HookResult::cont() };
    registry.register("tool:pre", quiet, 0, "quiet_0").unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut changed = data.clone();
                changed["rewritten"] = json!(true);
                async move { HookResult::modify(changed).with_reason("normalised") }
            },
            1,
            "rewriter",
        )
        .unwrap();
    registry.register("tool:pre", quiet, 2, "quiet_2").unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::inject("lint: 1 warning") },
            3,
            "lint",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("run it?") },
            4,
            "asker",
        )
        .unwrap();
    registry.register("tool:pre", quiet, 5, "quiet_5").unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::AskUser);
    assert_eq!(outcome.decided_by.as_deref(), Some("asker"));
    assert_eq!(outcome.modifications.len(), 1);
    assert_eq!(&*outcome.modifications[0].hook, "rewriter");
    assert_eq!(
        outcome.modifications[0].reason.as_deref(),
        Some("normalised")
    );
    assert_eq!(outcome.injections.len(), 1);
    assert_eq!(&*outcome.injections[0].hook, "lint");
    assert_eq!(&*outcome.injections[0].event, "tool:pre");
    assert_eq!(outcome.data()["rewritten"], true);
}

#[tokio::test]
async fn handlers_pending_at_their_first_poll_keep_their_order_and_answers() {
    let registry = HookRegistry::new();
    let order = Arc::new(Mutex::new(Vec::new()));
    for (priority, name, answer) in [
        (0, "waits", HookResult::inject("from the waiting one")),
        (1, "at_once", HookResult::cont()),
        (2, "waits_then_denies", HookResult::deny("no")),
        (3, "never_runs", HookResult::cont()),
    ] {
        let order = Arc::clone(&order);
        let waits = name.starts_with("waits");
        registry
            .register(
                "tool:pre",
                move |_: &str, _: &Value| {
                    let (order, answer) = (Arc::clone(&order), answer.clone());
                    async move {
                        if waits {
                            wait_one_poll().await;
                        }
                        order.lock().unwrap().push(name);
                        answer
                    }
                },
                priority,
                name,
            )
            .unwrap();
    }

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        *order.lock().unwrap(),
        ["waits", "at_once", "waits_then_denies"]
    );
    assert_eq!(outcome.action(), HookAction::Deny);
    assert_eq!(outcome.decided_by.as_deref(), Some("waits_then_denies"));
    assert_eq!(&*outcome.injections[0].hook, "waits");
}

/// A handler whose future is too big to be stored in place: it is boxed, and behaves alike.
#[tokio::test]
async fn a_handler_with_a_large_future_waits_modifies_and_panics_as_any_other() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut changed = data.clone();
                async move {
                    // Kept across the wait, so it is part of the future: far over the room
                    // a call has in place.
                    let scratch = [7u8; 1024];
                    wait_one_poll().await;
                    changed["sum"] = json!(scratch.iter().map(|&b| u64::from(b)).sum::<u64>());
                    HookResult::modify(changed)
                }
            },
            0,
            "big",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async {
                let scratch = [1u8; 1024];
                wait_one_poll().await;
                if scratch[0] == 1 {
                    panic!("big and broken");
                }
                HookResult::cont()
            },
            1,
            "big_broken",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.data()["sum"], 7 * 1024);
    assert_eq!(&*outcome.modifications[0].hook, "big");
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(&*outcome.failures[0].hook, "big_broken");
    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Panic("big and broken".into())
    );
}

#[tokio::test]
async fn small_handlers_that_panic_at_once_or_after_waiting_are_caught() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { explode("at once") },
            0,
            "at_once",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async {
                wait_one_poll().await;
                explode("after waiting")
            },
            1,
            "after_waiting",
        )
        .unwrap();
    registry
        .register_with(
            "tool:pre",
            |_: &str, _: &Value| async { explode("closed") },
            HookOptions::new()
                .priority(2)
                .name("fails_closed")
                .fail_closed(true),
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    let failures: Vec<_> = outcome
        .failures
        .iter()
        .map(|f| (&*f.hook, f.kind.clone()))
        .collect();
    assert_eq!(
        failures,
        [
            ("at_once", FailureKind::Panic("at once".into())),
            ("after_waiting", FailureKind::Panic("after waiting".into())),
            ("fails_closed", FailureKind::Panic("closed".into())),
        ]
    );
    assert_eq!(
        outcome.action(),
        HookAction::Deny,
        "the fail-closed one denies"
    );
    assert_eq!(outcome.decided_by.as_deref(), Some("fails_closed"));
}

#[tokio::test(start_paused = true)]
async fn a_small_handler_that_never_answers_times_out() {
    let registry = HookRegistry::new();
    registry
        .register_with(
            "tool:pre",
            |_: &str, _: &Value| std::future::pending::<HookResult>(),
            HookOptions::new()
                .name("hangs")
                .timeout(Duration::from_millis(50)),
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Timeout(Duration::from_millis(50))
    );
}

#[tokio::test]
async fn an_emit_dropped_while_a_handler_waits_drops_the_handlers_future() {
    let registry = HookRegistry::new();
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    registry
        .register(
            "tool:pre",
            move |_: &str, _: &Value| {
                let guard = SetOnDrop(Arc::clone(&flag));
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                    HookResult::cont()
                }
            },
            0,
            "waits_for_ever",
        )
        .unwrap();

    let emit = registry.emit("tool:pre", json!({}));
    let timed_out = tokio::time::timeout(Duration::from_millis(10), emit).await;

    assert!(timed_out.is_err(), "the handler never answers");
    assert!(
        dropped.load(Ordering::SeqCst),
        "its future was dropped with the emit"
    );
}
